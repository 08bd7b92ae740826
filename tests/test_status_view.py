"""The parts ``release status`` is made of, called one at a time (a local store, no network):
the store's view (the newest release of each kind by version, the last nightly's pins, the
drafts and whose they are, every published version sorted), PyPI asked only for releases and
post releases, on the index uploads go to, else the public index, else pip's, never 'none', for
both projects of every major; the next versions count what the public index lists too; the
``--json`` object and ``$GITHUB_OUTPUT`` of a result. tests/test_status_job.py runs the whole job."""

from __future__ import annotations

import dataclasses
import datetime as dt

import pytest

from release.check import resolver
from release.core.config import load_project
from release.jobs import status as status_job
from release.jobs.report import ReportOptions
from release.jobs.status import StatusOptions, StatusResult, pypi_view, store_view
from release.publish.stores import LocalStore
from tests.test_jobs import _publish

NOW = dt.datetime(2026, 11, 28, 3, tzinfo=dt.timezone.utc)
OPTIONS = StatusOptions(date=NOW.date(), report=ReportOptions(NOW))


@pytest.fixture
def asked(monkeypatch):
    from release.publish import pypi
    calls: list[tuple] = []

    def presence(index, projects, wanted):
        calls.append((index, projects, wanted))
        return {"index": index, "checked": True, "versions": {v: "none" for v in wanted}}

    monkeypatch.setattr(pypi, "presence", presence)
    return calls


def view_of(*versions: str) -> dict:
    return {"published_versions": list(versions)}


@pytest.mark.parametrize("majors, projects", [
    (7, ("jax-rocm7-pjrt", "jax-rocm7-plugin")),
    ((7, 10), ("jax-rocm7-pjrt", "jax-rocm7-plugin", "jax-rocm10-pjrt", "jax-rocm10-plugin")),
    ((10, 7), ("jax-rocm10-pjrt", "jax-rocm10-plugin", "jax-rocm7-pjrt", "jax-rocm7-plugin")),
])
def test_pypi_is_asked_for_the_releases_and_post_releases_of_every_majors_two_projects(asked, majors, projects):
    view = view_of("0.9.1.dev20261120", "0.9.0rc1", "0.9.0", "0.9.0.post1", "0.8.0")
    options = dataclasses.replace(OPTIONS, public_index="https://index.example/simple/")
    shown = pypi_view(options, majors, view)
    assert asked == [("https://index.example/simple/", projects, ["0.9.0", "0.9.0.post1", "0.8.0"])]
    assert shown == {"index": "https://index.example/simple/", "checked": True,
                     "versions": {"0.9.0": "none", "0.9.0.post1": "none", "0.8.0": "none"}}


UPLOADS = "https://test.example/legacy/"  # its index: derive_index_url's


@pytest.mark.parametrize("upload, public, index", [
    (f" {UPLOADS} ", "https://index.example/simple/", UPLOADS),
    (UPLOADS, resolver.NO_PUBLIC_INDEX, UPLOADS),
    ("", "https://index.example/simple/", "https://index.example/simple/"),
    ("  ", "https://index.example/simple/", "https://index.example/simple/"),
])
def test_pypi_is_the_index_uploads_go_to_else_the_public_index(asked, upload, public, index):
    from release.publish.pypi_index import derive_index_url
    index = derive_index_url(UPLOADS) if index == UPLOADS else index
    assert index != UPLOADS
    pypi_view(dataclasses.replace(OPTIONS, upload_url=upload, public_index=public), 7, view_of("0.9.0"))
    assert [call[0] for call in asked] == [index]


def test_pypi_is_pips_own_index_when_the_public_index_is_pips(asked, monkeypatch):
    monkeypatch.setattr(resolver, "pip_configured_index", lambda: "https://pip.example/simple/")
    pypi_view(dataclasses.replace(OPTIONS, public_index=resolver.PIP_DEFAULT), 7, view_of("0.9.0"))
    monkeypatch.setattr(resolver, "pip_configured_index", lambda: resolver.NO_PUBLIC_INDEX)
    shown = pypi_view(dataclasses.replace(OPTIONS, public_index=resolver.PIP_DEFAULT), 7, view_of("0.9.0"))
    assert [call[0] for call in asked] == ["https://pip.example/simple/"]
    assert shown["checked"] is False and shown["index"] is None


@pytest.mark.parametrize("view, shown", [
    (None, {"index": None, "checked": False, "versions": {}, "note": "PyPI not checked (--offline)"}),
    (view_of("0.9.0"), {"index": None, "checked": False, "versions": {},
                        "note": "PyPI not checked (the public index is 'none')"}),
    (view_of(), {"index": "https://index.example/simple/", "checked": False, "versions": {},
                 "note": "no release or post release to look for"}),
    (view_of("0.9.1rc1", "0.9.1.dev20261120"), {"index": "https://index.example/simple/", "checked": False,
                                                "versions": {}, "note": "no release or post release to look for"}),
])
def test_pypi_is_not_asked_offline_of_none_or_for_nothing_and_says_which(asked, view, shown):
    index = resolver.NO_PUBLIC_INDEX if shown["note"].endswith("'none')") else "https://index.example/simple/"
    assert pypi_view(dataclasses.replace(OPTIONS, public_index=index), 7, view) == shown
    assert asked == []


def test_the_store_view_is_the_newest_of_each_kind_by_version_with_the_nightlys_pins(project_dir, tmp_path):
    project = load_project(project_dir)
    store = LocalStore(tmp_path / "store")
    for version, commit in [("0.9.1.dev20261122", "n22"), ("0.9.1.dev20261121", "n21"), ("0.9.0", "rel"),
                            ("0.9.1rc2", "rc2"), ("0.9.1rc10", "rc10"), ("0.9.0.post1", "post")]:
        _publish(store, project, version, release_commit=commit)
    store.create_draft("rocm-jax-v0.9.1rc11", name="0.9.1rc11", body="a person's", prerelease=True)
    view = store_view(store, ((7, "3.12"),))
    assert {kind: (shown["tag"], shown["version"]) for kind, shown in view["latest"].items()} == {
        "nightly": ("rocm-jax-v0.9.1.dev20261122", "0.9.1.dev20261122"), "rc": ("rocm-jax-v0.9.1rc10", "0.9.1rc10"),
        "release": ("rocm-jax-v0.9.0", "0.9.0"), "post": ("rocm-jax-v0.9.0.post1", "0.9.0.post1")}
    assert view["latest"]["nightly"]["release_commit"] == "n22"
    assert view["latest"]["nightly"]["pins"] == {d.name: d.commit for d in project.deps}
    assert all("pins" not in shown and "release_commit" not in shown
               for kind, shown in view["latest"].items() if kind != "nightly")  # only the nightly's are shown
    assert all(shown["published"] and shown["url"] is not None for shown in view["latest"].values())
    assert view["published_versions"] == sorted(["0.9.1.dev20261122", "0.9.1.dev20261121", "0.9.0", "0.9.1rc2",
                                                 "0.9.1rc10", "0.9.0.post1"])
    assert [(d["tag"], d["ours"]) for d in view["drafts"]] == [("rocm-jax-v0.9.1rc11", False)]
    assert [row["tag"] for row in view["cells"]] == [view["latest"][kind]["tag"] for kind in view["latest"]]
    assert all([(c["rocm_major"], c["python"]) for c in row["cells"]] == [(7, "3.12")] for row in view["cells"])


def test_an_empty_store_shows_nothing_latest_and_no_drafts(tmp_path):
    view = store_view(LocalStore(tmp_path / "store"))
    assert (view["latest"], view["drafts"], view["published_versions"], view["cells"]) == ({}, [], [], [])


def test_the_next_versions_count_what_the_public_index_lists_as_published(project_dir, monkeypatch):
    project = load_project(project_dir)
    version = project.version_info.version
    nothing = status_job.next_versions(project, NOW.date(), None, None)
    listed = status_job.next_versions(project, NOW.date(), None, None, (version,))
    stored = status_job.next_versions(project, NOW.date(), None, view_of(version))
    assert nothing["release"][0] == version and nothing["rc"][0] is not None
    assert listed["release"][0] == stored["release"][0] == f"{version}.post1"
    assert listed["rc"][0] is None and stored["rc"][0] is None


def result_of(**fields: object) -> StatusResult:
    from release.core.roller_report import Report
    roller = dataclasses.make_dataclass("R", [], namespace={"to_json": lambda self: {"r": 1}})()
    base = dict(root="/r", version="0.9.1", line={}, rocm_version="7.2.0", nightly_scheme="dev", builds={},
                pins={}, next={"release": "0.9.1", "rc": None, "nightly": "0.9.1.dev20261128"}, next_notes={},
                store=None, public_index={"p": 1}, pypi={"q": 1}, roller=roller)
    assert Report is not None
    return StatusResult(**(base | fields))  # type: ignore[arg-type]


def test_the_json_keeps_the_store_only_when_read_and_the_outputs_are_strings():
    offline = result_of()
    assert list(offline.to_json()) == ["root", "version", "line", "rocm_version", "nightly_scheme", "builds", "pins",
                                       "next", "next_notes", "public_index", "pypi", "roller"]
    assert offline.to_json()["roller"] == {"r": 1} and offline.last_nightly is None
    assert offline.outputs() == {"version": "0.9.1", "next-release": "0.9.1", "next-rc": "",
                                 "next-nightly": "0.9.1.dev20261128", "last-nightly": ""}
    nightly = {"tag": "rocm-jax-v0.9.1.dev20261127"}
    online = result_of(store={"latest": {"nightly": nightly}}, next={"release": None, "rc": "0.9.1rc1",
                                                                     "nightly": None})
    assert online.to_json()["store"] == {"latest": {"nightly": nightly}} and online.last_nightly == nightly
    assert online.outputs() == {"version": "0.9.1", "next-release": "", "next-rc": "0.9.1rc1", "next-nightly": "",
                                "last-nightly": "rocm-jax-v0.9.1.dev20261127"}
    assert result_of(store={"latest": {}}).outputs()["last-nightly"] == ""
    assert list(result_of(store={}).to_json())[-4:] == ["store", "public_index", "pypi", "roller"]


def test_online_status_counts_the_public_indexs_versions_of_every_major_and_the_build_number(
        project_dir, tmp_path, monkeypatch):
    """What the public index lists is published too (a release made by hand): status asks it
    about the line's majors, and offers the next post release; a build number reaches the
    nightly's version; the store's rows hold the line's cells."""
    import json
    info = json.loads((project_dir / "version_info.json").read_text())
    (project_dir / "version_info.json").write_text(json.dumps(info | {"nightly_scheme": "date-build"}))
    project = load_project(project_dir)
    version = project.version_info.version
    asked_index: list[tuple] = []

    def index_versions(majors, index):
        asked_index.append((majors, index))
        return (version,)

    monkeypatch.setattr(resolver, "index_versions", index_versions)
    store = LocalStore(tmp_path / "store")
    _publish(store, project, "0.9.1.dev20261120")
    options = dataclasses.replace(OPTIONS, public_index=resolver.NO_PUBLIC_INDEX)
    result = status_job.status(project, options, store, None)
    assert asked_index == [(project.version_info.rocm_majors, resolver.NO_PUBLIC_INDEX)]
    assert result.next["release"] == f"{version}.post1" and result.next["rc"] is None
    numbered = status_job.status(project, dataclasses.replace(options, build_number=7), store, None)
    assert numbered.next["nightly"] == status_job.next_versions(project, NOW.date(), 7, None, (version,))["nightly"][0]
    assert numbered.next["nightly"] != result.next["nightly"]
    cells = [(c["rocm_major"], c["python"]) for row in result.store["cells"] for c in row["cells"]]
    assert cells and cells == list(status_job.line_cells(project))
    status_job.status(project, dataclasses.replace(options, offline=True), None, None)
    assert len(asked_index) == 2  # offline asks no index


def test_status_says_the_lines_files_as_they_are_and_the_public_index_check_of_the_versions_it_offers(
        project_dir, monkeypatch):
    """version_info.json's fields and the line as the two files say; offline the public index
    is one fixed 'not checked'; online it is asked about each version offered (none for a kind
    with no next version), on the index asked, for the line's majors."""
    project = load_project(project_dir)
    info = project.version_info
    offline = status_job.status(project, dataclasses.replace(OPTIONS, offline=True), None, None)
    assert (offline.version, offline.rocm_version, offline.nightly_scheme) == (info.version, info.rocm_version,
                                                                                info.nightly_scheme)
    assert offline.line == {"line": info.line, "jax_line": project.jax_line, "ok": project.line_problem() is None,
                            "problem": project.line_problem()}
    assert offline.public_index == {"index": None, "checked": False, "newest": {}, "warnings": [],
                                    "note": "public index not checked (--offline)"}
    nxt = status_job.next_versions(project, NOW.date(), None, None)
    assert offline.next_notes == {kind: note for kind, (_, note) in nxt.items() if note} and offline.next_notes
    checked: list[tuple] = []
    monkeypatch.setattr(resolver, "index_versions", lambda majors, index: ())
    monkeypatch.setattr(resolver, "check_planned_versions",
                        lambda planned, majors, index: checked.append((planned, majors, index)) or {"asked": 1})
    online = status_job.status(project, dataclasses.replace(OPTIONS, public_index="https://index.example/simple/"),
                               None, None)
    assert online.public_index == {"asked": 1}
    assert checked == [({k: v for k, v in online.next.items() if v}, info.rocm_majors, "https://index.example/simple/")]


def test_status_hands_the_roller_report_and_pypi_what_it_was_given(project_dir, tmp_path, monkeypatch):
    """The roller report gets the project, its options, GitHub and the store status was handed;
    PyPI is asked about the line's majors over the store's view."""
    project = load_project(project_dir)
    handed: dict = {}
    roller = dataclasses.make_dataclass("R", [], namespace={"to_json": lambda self: {}})()
    monkeypatch.setattr(status_job, "gather_report",
                        lambda *args: handed.setdefault("report", args) and roller)
    monkeypatch.setattr(status_job, "pypi_view", lambda *args: handed.setdefault("pypi", args) and {"p": 1})
    store, github = LocalStore(tmp_path / "store"), object()
    options = dataclasses.replace(OPTIONS, public_index=resolver.NO_PUBLIC_INDEX)
    result = status_job.status(project, options, store, github)  # type: ignore[arg-type]
    assert handed["report"] == (project, options.report, github, store) and result.roller is roller
    assert handed["pypi"] == (options, project.version_info.rocm_majors, result.store) and result.pypi == {"p": 1}
