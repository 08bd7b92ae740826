"""``release publish``: whatever a previous run died of, a re-run ends with one draft per tag
and every asset exactly once; published releases are never changed."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil

import pytest

from release.build import provenance
from release.core import core_metadata
from release.core.errors import UserError
from release.core.naming import PROVENANCE_ASSET as PROVENANCE
from release.core.revisions import RevisionMap
from release.publish import notes
from release.publish.drafts import TEMP_SUFFIX, publish_draft, read_dist, undraft
from release.publish.stores import LocalStore
from tests.support.fake_github import FakeGitHub
from tests.support.publish_dist import gh_store, mark_validated, release_dist

NIGHTLY = "0.9.1.dev20261122"
TAG = "rocm-jax-v" + NIGHTLY


class Crash(BaseException):
    """Stands for the process dying (not an Exception, so nothing catches it)."""


def assert_exactly(fake: FakeGitHub, dist, *, draft=True):
    rels = [r for r in fake.releases() if r["tag_name"] == dist.tag]
    assert len(rels) == 1, [(r["id"], r["draft"]) for r in rels]
    assert rels[0]["draft"] is draft
    got = sorted((a["name"], a["digest"], a["state"]) for a in rels[0]["assets"])
    want = sorted((a.name, "sha256:" + a.digest, "uploaded") for a in dist.assets)
    assert got == want
    return rels[0]


@pytest.fixture
def dist(make_dist):
    return read_dist(make_dist(NIGHTLY))


def test_publish_then_rerun_does_nothing(fake_github, dist):
    store = gh_store(fake_github)
    first = publish_draft(store, dist)
    rel = assert_exactly(fake_github, dist)
    assert first["status"] == "draft" and first["release_id"] == rel["id"]
    assert rel["prerelease"] is True and "untagged-" in rel["html_url"]
    body = rel["body"]
    assert "| xla (https://github.com/ROCm/xla" in body
    assert "https://github.com/ROCm/xla/commit/b32df5f07315567cc1940388ef766b87c6e8b9e3" in body
    assert dist.checksums.splitlines()[0] in body
    assert "First release of its kind" in body
    writes_before = sum(1 for e in fake_github.log if e[1] != "GET")
    again = publish_draft(gh_store(fake_github), dist)
    assert again["actions"] == [] and again["release_id"] == rel["id"]
    assert sum(1 for e in fake_github.log if e[1] != "GET") == writes_before
    assert fake_github.tags() == {}  # a draft makes no git tag


def clean_run_writes(make_dist, openapi) -> list[tuple[str, str]]:
    fake = FakeGitHub(openapi).start()
    try:
        publish_draft(gh_store(fake), read_dist(make_dist(NIGHTLY)))
        return [(e[1], e[2]) for e in fake.log if e[1] != "GET"]
    finally:
        fake.stop()


def test_every_write_failing_every_way_then_rerun(make_dist, github_openapi, capsys):
    """Fault at each write of a clean run (5xx before/after applying, dropped connection,
    starter upload), let the run end however it ends, re-run: one draft, each asset once."""
    dist = read_dist(make_dist(NIGHTLY))
    writes = clean_run_writes(make_dist, github_openapi)
    assert [m for m, _ in writes] == ["POST"] * 8  # the draft, then seven uploads (two PEP 658 files)
    cases = 0
    for index, (method, path) in enumerate(writes):
        nth = writes[:index + 1].count((method, path))
        modes = ["before", "after", "drop"] + (["starter"] if "/assets" in path else [])
        for mode in modes:
            fake = FakeGitHub(github_openapi).start()
            try:
                fake.fail(method, re.escape(path) + "$", None if mode == "drop" else 502, nth=nth,
                          when=mode)
                try:
                    publish_draft(gh_store(fake), dist, say=print)
                except UserError as exc:
                    print(exc)
                publish_draft(gh_store(fake), dist, say=print)
                assert_exactly(fake, dist)
                assert not fake.violations, fake.violations
                cases += 1
            finally:
                fake.stop()
    assert cases == 31  # four faults for each of the eight writes but the draft's
    captured = capsys.readouterr()
    assert "re-listing" in captured.out and "interrupted upload" in captured.out
    assert FakeGitHub.__init__.__defaults__[0] not in captured.out + captured.err  # the token


@pytest.mark.parametrize("kind", ["local", "github"])
def test_crash_at_every_step_then_rerun(kind, make_dist, github_openapi, tmp_path):
    """The process dies before each action of the run (and of a re-run that replaces assets).

    On GitHub only the replacing run: dying before each write of a first run is what the
    fault matrix above does already.
    """
    first = read_dist(make_dist(NIGHTLY))
    second = read_dist(make_dist(NIGHTLY, commits={"xla": "1" * 40}))  # same version, new bytes
    for target in ((first, second) if kind == "local" else (second,)):
        step = 0
        while True:
            step += 1
            fake = FakeGitHub(github_openapi).start() if kind == "github" else None
            store = gh_store(fake) if fake else LocalStore(tmp_path / f"store-{id(target)}-{step}")
            try:
                if target is second:
                    publish_draft(store, first)
                calls = []

                def say(text, calls=calls, step=step):
                    calls.append(text)
                    if len(calls) == step:
                        raise Crash(text)
                try:
                    publish_draft(store, target, say=say)
                    finished = True
                except Crash:
                    finished = False
                publish_draft(store, target)
                drafts = store.drafts_for(target.tag)
                assert len(drafts) == 1
                got = sorted((a.name, a.digest) for a in store.list_assets(drafts[0]))
                assert got == sorted((a.name, a.digest) for a in target.assets)
                if fake:
                    assert_exactly(fake, target)
                    assert not fake.violations, fake.violations
            finally:
                if fake:
                    fake.stop()
            if finished:
                break
        assert step >= 3


def test_replacement_uploads_before_deleting(fake_github, make_dist):
    store = gh_store(fake_github)
    publish_draft(store, read_dist(make_dist(NIGHTLY)))
    new = read_dist(make_dist(NIGHTLY, commits={"jax": "2" * 40}))
    result = publish_draft(store, new)
    seq = [(a["action"], a["asset"]) for a in result["actions"]]
    # the new revisions.json goes up under a temporary name before the old one is deleted
    assert seq.index(("upload", "revisions.json" + TEMP_SUFFIX)) < seq.index(("delete", "revisions.json"))
    assert ("rename", "revisions.json" + TEMP_SUFFIX) in seq
    assert not any(a == "jax_rocm7_pjrt-" for _, a in seq)  # unchanged wheels stay
    assert_exactly(fake_github, new)


def test_rate_limited_upload_waits_and_finishes(fake_github, dist, fake_clock):
    """Told to come back in 5 s, the upload waits those 5 s (on the run's clock) and finishes."""
    fault = fake_github.rate_limit("POST", r"/assets$", kind="secondary", retry_after=5, nth=2)
    publish_draft(gh_store(fake_github, fake_clock), dist)
    assert_exactly(fake_github, dist)
    assert fault.fired == 1 and 5.0 in fake_clock.sleeps


def test_duplicate_drafts_from_racing_jobs_collapse(fake_github, dist):
    store = gh_store(fake_github)
    publish_draft(store, dist)
    body = fake_github.releases()[0]["body"]
    for _ in range(2):
        store.create_draft(dist.tag, name="x", body=body, prerelease=True)
    publish_draft(store, dist)
    assert_exactly(fake_github, dist)


def test_undraft_needs_validation_then_publishes_once(fake_github, dist):
    store = gh_store(fake_github)
    publish_draft(store, dist)
    with pytest.raises(UserError) as err:
        undraft(store, dist.tag)
    assert "release validate" in str(err.value)
    mark_validated(store, dist.tag)
    assert notes.read(store.drafts_for(dist.tag)[0].body).validated
    result = undraft(store, dist.tag)
    rel = assert_exactly(fake_github, dist, draft=False)
    assert result["prerelease"] is True and rel["prerelease"] is True
    assert rel["make_latest"] == "false"
    assert dist.tag in fake_github.tags()
    assert undraft(store, dist.tag)["status"] == "published"  # again: a no-op
    again = publish_draft(store, dist)  # same bytes: nothing to do
    assert again["status"] == "published"
    assert_exactly(fake_github, dist, draft=False)


def test_undraft_after_an_unanswered_publish(fake_github, dist):
    store = gh_store(fake_github)
    publish_draft(store, dist)
    mark_validated(store, dist.tag)
    fake_github.fail("PATCH", r"/releases/\d+$", 502, when="after")
    undraft(store, dist.tag)
    assert_exactly(fake_github, dist, draft=False)


@pytest.mark.parametrize("immutable", [True, False], ids=["immutable-releases", "mutable-releases"])
def test_a_published_release_is_never_changed(fake_github, make_dist, immutable):
    """The tool's own rule, whatever the repository's setting: where GitHub would let it change a
    published release's assets (immutable releases off), it still refuses, writing nothing."""
    fake_github.settings.immutable_releases = immutable
    store = gh_store(fake_github)
    dist = release_dist(store, make_dist("0.9.1"))
    assert fake_github.releases()[0]["make_latest"] == "true"
    assert fake_github.releases()[0]["prerelease"] is False
    other = read_dist(make_dist("0.9.1", commits={"xla": "3" * 40}))
    writes = sum(1 for e in fake_github.log if e[1] != "GET")
    with pytest.raises(UserError) as err:
        publish_draft(store, other)
    assert "immutable" in str(err.value) and ".post" in str(err.value)
    assert sum(1 for e in fake_github.log if e[1] != "GET") == writes
    assert_exactly(fake_github, dist, draft=False)


def test_changelog_against_previous_release_of_the_same_kind(fake_github, make_dist):
    store = gh_store(fake_github)
    old = release_dist(store, make_dist("0.9.1.dev20261121"))
    rc = read_dist(make_dist("0.9.1rc1", commits={"xla": "4" * 40}))
    publish_draft(store, rc)  # an rc is another kind: not the nightly's "previous"
    new = read_dist(make_dist(NIGHTLY, commits={"xla": "5" * 40}))
    result = publish_draft(store, new)
    assert result["previous"] == old.tag
    body = next(r["body"] for r in fake_github.releases() if r["tag_name"] == new.tag)
    assert f"Since [{old.tag}]" in body
    assert ("https://github.com/ROCm/xla/compare/b32df5f07315567cc1940388ef766b87c6e8b9e3..."
            + "5" * 40) in body
    assert "- jax: unchanged" in body


def test_dist_that_does_not_match_its_checksums_is_refused(make_dist):
    path = make_dist(NIGHTLY)
    (path / "revisions.json").write_text((path / "revisions.json").read_text() + " ")
    with pytest.raises(UserError) as err:
        read_dist(path)
    assert "SHA256SUMS" in str(err.value) and "revisions.json" in str(err.value)


def test_cli_publish_and_undraft_on_github(run_cli, github_env, make_dist, tmp_path):
    path = make_dist(NIGHTLY)
    out_file = tmp_path / "gh_out"
    os.environ["GITHUB_OUTPUT"] = str(out_file)
    try:
        code, out, err = run_cli("publish", path, "--json")
    finally:
        del os.environ["GITHUB_OUTPUT"]
    assert code == 0, err
    data = json.loads(out)
    assert data["status"] == "draft" and data["store"] == "github" and data["tag"] == TAG
    assert f"tag={TAG}" in out_file.read_text()
    recorded = json.loads((path / "manifest.json").read_text())["steps"]["publish"]
    assert recorded["values"]["release_id"] == data["release_id"]
    assert github_env.token not in out + err + out_file.read_text()
    code, out, err = run_cli("publish", "--undraft", TAG)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert "release validate" in err and github_env.token not in err
    code, _, err = run_cli("publish", path, "--undraft", TAG)
    assert code == 2 and "exactly one" in err


def test_cli_local_store_by_default(run_cli, make_dist, tmp_path, monkeypatch):
    monkeypatch.delenv("GITHUB_REPOSITORY", raising=False)
    path = make_dist(NIGHTLY)
    code, out, err = run_cli("publish", path, "--store-dir", tmp_path / "rel", "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["store"] == "local" and data["where"] == str(tmp_path / "rel")
    store = LocalStore(tmp_path / "rel")
    assert [a.name for a in store.list_assets(store.drafts_for(TAG)[0])] == [a.name for a in read_dist(path).assets]


def cell(full, tmp_path, wheel_prefix):
    """One build cell's dist directory: one wheel, revisions.json, the cell's provenance (as
    `release build` writes it) and SHA256SUMS over those."""
    out = tmp_path / f"cell-{wheel_prefix}" / full.name
    out.mkdir(parents=True)
    for p in full.iterdir():
        if p.name == "revisions.json" or p.name.startswith(wheel_prefix):
            shutil.copy(p, out / p.name)
    provenance.write_for_files(out, [p.name for p in out.glob("*.whl")],
                               RevisionMap.loads((out / "revisions.json").read_text()))
    (out / "SHA256SUMS").write_text("".join(
        f"{hashlib.sha256(p.read_bytes()).hexdigest()}  {p.name}\n" for p in sorted(out.iterdir())))
    return out


def test_partial_cells_share_the_draft_then_finish(fake_github, make_dist, tmp_path):
    from release.core.manifest import Manifest
    from release.publish.drafts import publish_partial, record_upload
    store = gh_store(fake_github)
    full = make_dist(NIGHTLY)
    pjrt = read_dist(cell(full, tmp_path, "jax_rocm7_pjrt"), partial=True)
    plugin = read_dist(cell(full, tmp_path, "jax_rocm7_plugin"), partial=True)
    assert "SHA256SUMS" not in [a.name for a in pjrt.assets]
    fake_github.fail("POST", r"/assets$", 502, nth=2, when="starter")  # the cell's 2nd upload
    publish_partial(store, pjrt)
    result = publish_partial(store, plugin)
    record_upload(plugin, store, result)  # a cell's manifest names the shared draft, as partial
    cell_manifest = Manifest.load(plugin.directory)
    assert cell_manifest.outputs("publish_partial")["release_id"] == result["release_id"]
    assert cell_manifest.outputs("publish") is None
    publish_partial(store, pjrt)  # a re-run of a cell changes nothing
    rel = fake_github.releases()[0]
    assert sorted(a["name"] for a in rel["assets"]) == sorted(
        a.name for a in read_dist(full).assets if a.name not in ("SHA256SUMS", PROVENANCE))
    other = make_dist(NIGHTLY, commits={"xla": "7" * 40})
    with pytest.raises(UserError) as err:
        publish_partial(store, read_dist(cell(other, tmp_path / "o", "jax_rocm7_plugin"), partial=True))
    assert "other pins" in str(err.value)
    dist = read_dist(full)
    publish_draft(store, dist)  # the finish stage: checksums, notes
    assert_exactly(fake_github, dist)


def test_laptop_flow_in_subprocesses(release_subprocess, project_dir, make_dist):
    """No repository configured: the local store under .cache/releases, relative paths."""
    shutil.copytree(make_dist(NIGHTLY), project_dir / "dist" / NIGHTLY)
    env = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
    for argv in (["publish", f"dist/{NIGHTLY}"], ["validate", TAG], ["publish", "--undraft", TAG],
                 ["index", "--out", "site"], ["gc", "--keep", "1"]):
        proc = release_subprocess(*argv, "--root", ".", cwd=project_dir, env=env)
        assert proc.returncode == 0, (argv, proc.stderr)
        assert "Traceback" not in proc.stderr
    store = LocalStore(project_dir / ".cache" / "releases")
    assert [(r.tag, r.draft) for r in store.list_releases()] == [(TAG, False)]
    assert (project_dir / "site" / "nightly" / "jax-rocm7-plugin" / "index.html").is_file()


def test_asset_name_github_would_rename_is_refused(fake_github, make_dist, tmp_path):
    src = make_dist(NIGHTLY)
    local = tmp_path / "local" / NIGHTLY
    shutil.copytree(src, local)
    wheel = next(local.glob("jax_rocm7_pjrt-*.whl"))
    renamed = wheel.with_name(wheel.name.replace(f"-{NIGHTLY}-", f"-{NIGHTLY}+rocm7.0.0-"))
    wheel.rename(renamed)
    for other in [*local.glob("jax_rocm7_plugin-*.whl"), *local.glob("*.metadata")]:
        other.unlink()
    sidecar = core_metadata.write_beside(renamed)
    revisions = local / "revisions.json"
    revisions.write_text(revisions.read_text().replace(f'"{NIGHTLY}"', f'"{NIGHTLY}+rocm7.0.0"'))
    prov = provenance.write_for_files(local, [renamed.name], RevisionMap.loads(revisions.read_text()))
    (local / "SHA256SUMS").write_text("".join(
        f"{hashlib.sha256(p.read_bytes()).hexdigest()}  {p.name}\n"
        for p in (renamed, sidecar, revisions, prov)))
    dist = read_dist(local)
    with pytest.raises(UserError) as err:
        publish_draft(gh_store(fake_github), dist)
    assert "renames special characters" in str(err.value)


def test_rerun_keeps_the_validated_mark_when_notes_come_back_normalised(fake_github, dist):
    store = gh_store(fake_github)
    publish_draft(store, dist)
    draft = mark_validated(store, dist.tag)
    store.update_release(draft, body=draft.body.replace("\n", "\r\n") + "  \r\n")
    publish_draft(store, dist)
    assert notes.read(store.drafts_for(dist.tag)[0].body).validated
    assert undraft(store, dist.tag)["status"] == "published"


def _change_after_validation(store, tag, change, victim_index, tmp_path):
    """Change the validated draft of ``tag``: ``replace`` one asset with other bytes (same
    name), ``remove`` it, or ``add`` a new asset."""
    draft = store.drafts_for(tag)[0]
    assets = sorted(store.list_assets(draft), key=lambda a: a.name)
    victim = assets[victim_index % len(assets)]
    other = tmp_path / "other-bytes"
    other.write_bytes(b"not what was validated\n")
    if change in ("replace", "remove"):
        store.delete_asset(draft, victim)
    if change == "replace":
        store.upload_asset(draft, other, victim.name)
    if change == "add":
        store.upload_asset(draft, other, "extra-" + victim.name)
    return victim.name


def _undo_change(store, dist, change, name):
    """Put the draft back as ``dist`` published it, undoing what ``_change_after_validation`` did
    to the asset ``name``."""
    draft = store.drafts_for(dist.tag)[0]
    held = {a.name: a for a in store.list_assets(draft)}
    if change == "add":
        store.delete_asset(draft, held["extra-" + name])
    else:
        if change == "replace":
            store.delete_asset(draft, held[name])
        store.upload_asset(draft, next(a.path for a in dist.assets if a.name == name), name)
    got = sorted((a.name, a.digest) for a in store.list_assets(draft))
    assert got == sorted((a.name, a.digest) for a in dist.assets)


@pytest.mark.parametrize("store_kind", ["github", "local"])
@pytest.mark.parametrize("change", ["replace", "remove", "add"])
def test_a_draft_changed_after_validation_is_never_published(fake_github, make_dist, tmp_path,
                                                            store_kind, change):
    """The rule: undraft publishes only the assets validate saw. Any asset (a wheel, SHA256SUMS,
    revisions.json, the provenance) replaced, removed or added afterwards keeps the draft a
    draft; validating again lets it through. One draft, published once: after each asset's
    change it is put back as published and validated again for the next."""
    dist = read_dist(make_dist(NIGHTLY))
    store = gh_store(fake_github) if store_kind == "github" else LocalStore(tmp_path / "store")
    tag = dist.tag
    publish_draft(store, dist)
    name = None
    for victim_index in range(len(dist.assets)):
        if name is not None:
            _undo_change(store, dist, change, name)
        mark_validated(store, tag)
        name = _change_after_validation(store, tag, change, victim_index, tmp_path)
        with pytest.raises(UserError, match="release validate"):
            undraft(store, tag)
        assert store.published_for(tag) is None, f"{change} of {name} after validation was published"
    mark_validated(store, tag)  # validated as it now is: publishable
    assert undraft(store, tag)["status"] == "published"
