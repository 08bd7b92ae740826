"""``jobs.status``: what ``release status`` reads, as one function.

Rules: GitHub is asked for the roller report only online, with a token, and for a repository named
``owner/name`` (``--repo`` first, else ``$GITHUB_REPOSITORY``); offline, status reads the two
files and nothing else (no store, public index, PyPI or GitHub), says so part by part, and still
gives every ``--json`` key and ``$GITHUB_OUTPUT`` key. A release's pins "moved since" are those
deps.yaml pins at another commit now, in the release's order (a dep deps.yaml dropped moved
nowhere). The rest of status's rules (next versions, the public index, PyPI) are stated in
tests/test_version_line.py, tests/test_resolver.py and tests/test_pypi.py through the command.
"""

from __future__ import annotations

import datetime as dt
import json

import pytest

from release.core.config import load_project
from release.jobs.report import ReportOptions
from release.jobs.status import StatusOptions, asked_github, moved_pins, status

NOW = dt.datetime(2026, 11, 28, 3, tzinfo=dt.timezone.utc)


@pytest.mark.parametrize("offline, repo, env, asked", [
    (False, None, {"GITHUB_TOKEN": "t", "GITHUB_REPOSITORY": "o/n"}, ("o", "n")),
    (False, "a/b", {"GITHUB_TOKEN": "t", "GITHUB_REPOSITORY": "o/n"}, ("a", "b")),  # --repo first
    (False, "a/b", {"GITHUB_TOKEN": "t"}, ("a", "b")),
    (True, "a/b", {"GITHUB_TOKEN": "t", "GITHUB_REPOSITORY": "o/n"}, None),  # --offline
    (False, None, {"GITHUB_REPOSITORY": "o/n"}, None),  # no token
    (False, None, {"GITHUB_TOKEN": "", "GITHUB_REPOSITORY": "o/n"}, None),
    (False, None, {"GITHUB_TOKEN": "t"}, None),  # no repository
    (False, None, {"GITHUB_TOKEN": "t", "GITHUB_REPOSITORY": "o"}, None),
    (False, None, {"GITHUB_TOKEN": "t", "GITHUB_REPOSITORY": "o/n/x"}, None),
])
def test_github_is_asked_only_online_with_a_token_and_an_owner_name_repository(offline, repo, env, asked):
    assert asked_github(offline, repo, env) == asked


def _pins(**commits: str) -> dict[str, dict[str, str]]:
    return {name: {"commit": commit, "branch": "main", "url": "", "roll": "follow"} for name, commit in commits.items()}


@pytest.mark.parametrize("built, pins, moved", [
    ({"xla": "a" * 40, "jax": "b" * 40}, _pins(jax="b" * 40, xla="a" * 40), []),
    ({"xla": "a" * 40, "jax": "b" * 40}, _pins(jax="c" * 40, xla="d" * 40), ["xla", "jax"]),  # the release's order
    ({"jax": "b" * 40, "xla": "a" * 40}, _pins(jax="b" * 40, xla="d" * 40), ["xla"]),
    ({"xla": "a" * 40, "gone": "e" * 40}, _pins(xla="a" * 40), []),  # deps.yaml no longer names it
    ({}, _pins(xla="a" * 40), []),
])
def test_the_pins_that_moved_since_a_release_are_the_ones_at_another_commit_now(built, pins, moved):
    assert moved_pins(built, pins) == moved


def test_offline_status_reads_the_two_files_only_and_says_so(project_dir):
    result = status(load_project(project_dir), StatusOptions(date=NOW.date(), report=ReportOptions(NOW),
                                                             offline=True), None, None)
    data = result.to_json()
    assert "store" not in data and result.store is None and result.last_nightly is None
    assert data["public_index"]["checked"] is False and "--offline" in data["public_index"]["note"]
    assert data["pypi"]["checked"] is False and "--offline" in data["pypi"]["note"]
    assert data["roller"]["nightlies"] is None
    assert any("GitHub not asked" in line for line in data["roller"]["unread"])
    assert list(data) == ["root", "version", "line", "rocm_version", "nightly_scheme", "builds", "pins", "next",
                          "next_notes", "public_index", "pypi", "roller"]
    assert set(data["pins"]) == set(load_project(project_dir).deps.names)
    assert result.outputs() == {"version": data["version"], "next-release": data["next"]["release"] or "",
                                "next-rc": data["next"]["rc"] or "", "next-nightly": data["next"]["nightly"] or "",
                                "last-nightly": ""}
    json.dumps(data)  # every value is JSON


def test_online_status_shows_the_store_and_says_why_pypi_was_not_asked(project_dir, tmp_path):
    """The store as status shows it (the newest of each kind with the nightly's pins, the drafts
    and whose they are, every published version), and PyPI asked only for releases and post
    releases, on the index uploads go to (else the public index), never when that is 'none'."""
    import dataclasses

    from release.check.resolver import NO_PUBLIC_INDEX
    from release.publish.notes import MARKER
    from release.publish.pypi_index import derive_index_url
    from release.publish.stores import LocalStore
    from tests.test_jobs import _publish
    project = load_project(project_dir)
    store = LocalStore(tmp_path / "store")
    _publish(store, project, "0.9.1.dev20261121", release_commit="r1")
    _publish(store, project, "0.9.1.dev20261120")
    store.create_draft("rocm-jax-v0.9.1rc1", name="0.9.1rc1", body=MARKER, prerelease=True)
    store.create_draft("rocm-jax-v0.9.1rc2", name="0.9.1rc2", body="a person's", prerelease=True)
    options = StatusOptions(date=NOW.date(), report=ReportOptions(NOW), public_index=NO_PUBLIC_INDEX)
    result = status(project, options, store, None)
    view = result.store
    assert view is not None and (view["kind"], view["where"]) == (store.kind, store.where)
    nightly = view["latest"]["nightly"]
    assert (nightly["tag"], nightly["version"], nightly["release_commit"]) == (
        "rocm-jax-v0.9.1.dev20261121", "0.9.1.dev20261121", "r1")  # the newest version, not the last made
    assert nightly["pins"] == {d.name: d.commit for d in project.deps} and nightly["published"]
    assert set(view["latest"]) == {"nightly"} and view["published_versions"] == ["0.9.1.dev20261120",
                                                                                 "0.9.1.dev20261121"]
    assert sorted((d["tag"], d["ours"]) for d in view["drafts"]) == [("rocm-jax-v0.9.1rc1", True),
                                                               ("rocm-jax-v0.9.1rc2", False)]
    assert result.to_json()["store"] == view and result.outputs()["last-nightly"] == nightly["tag"]
    assert set(nightly) == {"tag", "version", "published", "url", "pins", "release_commit"}
    assert [set(d) for d in view["drafts"]] == [{"tag", "id", "ours", "created"}] * 2
    assert all(d["id"] is not None and d["created"] for d in view["drafts"])
    assert {name: set(pin) for name, pin in result.pins.items()} == {
        d.name: {"url", "branch", "commit", "roll"} for d in project.deps}
    assert {name: (pin["branch"], pin["commit"], pin["roll"]) for name, pin in result.pins.items()} == {
        d.name: (d.branch, d.commit, str(d.roll)) for d in project.deps}
    assert list(result.to_json())[-4:] == ["store", "public_index", "pypi", "roller"]  # after the rest
    assert result.to_json()["root"] == str(project.root)
    assert result.pypi == {"index": None, "checked": False, "versions": {},
                           "note": "PyPI not checked (the public index is 'none')"}
    upload = "http://127.0.0.1:9/legacy/"  # nothing listens: asking it would say so
    shown = status(project, dataclasses.replace(options, upload_url=f" {upload} "), store, None).pypi
    assert shown == {"index": derive_index_url(upload), "checked": False, "versions": {},
                     "note": "no release or post release to look for"}  # nightlies never go to PyPI


def test_status_says_every_cell_the_line_builds_or_why_it_cannot(tmp_path):
    """A two-major jax-tree line shows its layout and its 2 x 2 cells; one without its pythons
    shows the one-line problem, and the rest of status still shows."""
    from tests.test_line_build import jax_tree_line
    options = StatusOptions(date=NOW.date(), report=ReportOptions(NOW), offline=True)
    root = jax_tree_line(tmp_path / "line", pythons=("3.12", "3.13"))
    builds = status(load_project(root), options, None, None).to_json()["builds"]
    assert builds["layout"]["name"] == "jax-tree" and builds["rocm_versions"] == ["7.2.0", "10.0.0"]
    assert builds["cells"] == [{"major": m, "python": p} for m in (7, 10) for p in ("3.12", "3.13")]
    root = jax_tree_line(tmp_path / "other", pythons=())
    data = status(load_project(root), options, None, None).to_json()
    assert "pythons: got nothing (missing)" in data["builds"]["problem"] and data["next"]["nightly"]


def test_a_released_line_offers_no_rc_and_its_output_is_empty(project_dir, tmp_path):
    from release.check.resolver import NO_PUBLIC_INDEX
    from release.publish.stores import LocalStore
    from tests.test_jobs import _publish
    project = load_project(project_dir)
    store = LocalStore(tmp_path / "store")
    _publish(store, project, project.version_info.version)  # the line's release is out
    result = status(project, StatusOptions(date=NOW.date(), report=ReportOptions(NOW), public_index=NO_PUBLIC_INDEX),
                    store, None)
    assert (result.next["rc"], result.next["release"]) == (None, project.version_info.version + ".post1")
    outputs = result.outputs()
    assert (outputs["next-rc"], outputs["next-release"], outputs["last-nightly"]) == (
        "", project.version_info.version + ".post1", "")
    assert result.store is not None and set(result.store["latest"]) == {"release"}



def _smoke(store, tag, version, failed):
    from release.check.smoke import Smoke, Verdict
    from release.publish import notes
    draft = store.drafts_for(tag)[0]
    verdict = Verdict([Smoke(py, devices=["rocm:0"], rocm_devices=["rocm:0"], jit_matches=True,
                             problems=["broken"] if (m, py) == failed else [], rocm_major=m)
                       for m in (7, 10) for py in ("3.12", "3.13")])
    store.update_release(draft, body=notes.changed(draft, smoke=verdict.markdown(version)))


@pytest.mark.parametrize("smoke_failed", [(7, "3.12"), (10, "3.12"), (10, "3.13")])
def test_status_shows_every_cell_of_the_line_built_gated_and_published(tmp_path, make_dist, smoke_failed):
    """A ROCm 7 + 10 line of 3.12 and 3.13. Its published rc holds 3.12 of both majors only (3.13
    shows not built), validated, smoke-tested, with a lock for ROCm 7 3.12 only (ROCm 10's
    validate: not run). The newer draft holds every cell, its smoke gate failed for one cell:
    only that cell shows it, a verdict of one major never on the other."""
    from release.check.resolver import NO_PUBLIC_INDEX
    from release.core import naming
    from release.publish.drafts import publish_draft, read_dist, undraft
    from release.publish.stores import LocalStore
    from tests.support.publish_dist import mark_validated
    from tests.test_line_build import jax_tree_line
    project = load_project(jax_tree_line(tmp_path / "line", pythons=("3.12", "3.13"), version="0.11.1"))
    store = LocalStore(tmp_path / "store")
    old, new = "0.11.1rc1", "0.11.1rc2"
    publish_draft(store, read_dist(make_dist(old, majors=(7, 10), pythons=("3.12",))))
    lock = tmp_path / "pylock.rocm7-py312.toml"
    lock.write_text('lock-version = "1.0"\n')
    store.upload_asset(store.drafts_for(naming.release_tag(old))[0], lock, lock.name)
    _smoke(store, naming.release_tag(old), old, None)
    mark_validated(store, naming.release_tag(old))
    undraft(store, naming.release_tag(old))
    publish_draft(store, read_dist(make_dist(new, majors=(7, 10), pythons=("3.12", "3.13"))))
    _smoke(store, naming.release_tag(new), new, smoke_failed)
    result = status(project, StatusOptions(date=NOW.date(), report=ReportOptions(NOW), public_index=NO_PUBLIC_INDEX),
                    store, None)
    rows = {row["tag"]: row for row in result.to_json()["store"]["cells"]}
    every = {(m, py) for m in (7, 10) for py in ("3.12", "3.13")}
    shipped = {(c["rocm_major"], c["python"]): c for c in rows[naming.release_tag(old)]["cells"]}
    assert set(shipped) == every and rows[naming.release_tag(old)]["draft"] is False
    for (major, py), c in shipped.items():
        built = py == "3.12"
        assert (c["built"], c["published"]) == (built, built)
        assert (c["verify"], c["smoke"]) == (("passed", "passed") if built else ("not built", "not built"))
        assert c["validate"] == ("not built" if not built else "passed" if major == 7 else "not run")
    drafted = {(c["rocm_major"], c["python"]): c for c in rows[naming.release_tag(new)]["cells"]}
    assert set(drafted) == every and rows[naming.release_tag(new)]["draft"] is True
    assert all(c["built"] and not c["published"] and c["verify"] == "unknown" for c in drafted.values())
    assert {cell: c["smoke"] for cell, c in drafted.items()} == {
        cell: "failed" if cell == smoke_failed else "passed" for cell in every}
