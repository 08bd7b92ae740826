"""What each job step hands its stage and what it returns (``release.jobs.steps``), called with a
typed ``JobRun`` and the step's declared options; the stages are stood in for where their own
tests hold their rules, and real where the step's rule is about files (collect, respin, the
verify fingerprint). tests/test_job_steps.py holds validate's and verify's findings."""

from __future__ import annotations

import dataclasses
import datetime as _dt
import hashlib
import json
import os
import shutil
import types
from pathlib import Path

import pytest

from release.core import naming
from release.core.config import load_project
from release.core.errors import UserError
from release.core.output import Output
from release.core.revisions import RevisionMap
from release.jobs import steps
from release.jobs.runner import JobOptions, JobRun, OptionsView
from release.jobs.shared import CheckFailed
from tests.support.publish_dist import build_dist

REPO = Path(__file__).resolve().parents[1]
PROJECT = load_project(REPO)


def job_run(tmp_path: Path, version: str = "0.9.1", said: list | None = None, **fields) -> JobRun:
    fields.setdefault("project", PROJECT)
    return JobRun(version=version, dist_root=tmp_path / "dist", store=fields.pop("store", None), out=Output(),
                  say=(said if said is not None else []).append, **fields)


def opts(step: str, **options) -> OptionsView:
    return OptionsView(JobOptions(**options), tuple(options) or tuple(f.name for f in
                                                                       dataclasses.fields(JobOptions)), step)


# ------------------------------------------------------------------ fetch and build


def test_fetch_checks_out_every_pin_into_the_workspace_and_records_each_commit(tmp_path, monkeypatch):
    seen, said = {}, []

    def fetch_sources(deps, workspace, cache, report):
        seen.update(deps=deps, workspace=workspace, cache=cache)
        report("jax", "fetched")
        return {d.name: types.SimpleNamespace(commit=d.commit) for d in deps}
    monkeypatch.setattr("release.sources.checkout.fetch_sources", fetch_sources)
    got = steps.fetch(job_run(tmp_path, said=said), opts("fetch", workspace=tmp_path / "ws", cache=None), {})
    assert got == {d.name: d.commit for d in PROJECT.deps}
    from release.sources.checkout import cache_dir
    assert seen == {"deps": PROJECT.deps, "workspace": tmp_path / "ws", "cache": cache_dir(REPO)}
    assert said == ["jax: fetched"]
    steps.fetch(job_run(tmp_path), opts("fetch", workspace=tmp_path / "ws", cache=tmp_path / "mirrors"), {})
    assert seen["cache"] == tmp_path / "mirrors"


def test_fetchs_fingerprint_moves_with_any_pins_name_url_or_commit(tmp_path):
    def fingerprint(**change):
        deps = dataclasses.replace(PROJECT.deps, items=tuple(
            dataclasses.replace(d, **change) if d.name == "xla" else d for d in PROJECT.deps))
        return steps.fetch_fingerprint(job_run(tmp_path, project=dataclasses.replace(PROJECT, deps=deps)),
                                       opts("fetch"), {})
    same = fingerprint()
    assert fingerprint() == same
    assert fingerprint(commit="f" * 40) != same
    assert fingerprint(url="https://example.invalid/xla.git") != same
    assert fingerprint(name="xla2") != same


@pytest.mark.parametrize(("artifacts", "workspace", "wanted"), [
    (None, "ws", True), ("art", "ws", False), (None, None, False), ("art", None, False)])
def test_only_a_bazel_build_into_a_workspace_fetches(tmp_path, artifacts, workspace, wanted):
    view = opts("fetch", artifacts=artifacts and tmp_path / artifacts, workspace=workspace and tmp_path / workspace)
    assert steps.fetch_wanted(job_run(tmp_path), view) is wanted


@pytest.mark.parametrize("artifacts", [None, "art"])
def test_build_hands_the_plan_the_dist_and_either_the_workspace_or_the_artifacts(tmp_path, monkeypatch, artifacts):
    seen = {}

    def build_release(plan, dist_root, **kwargs):
        seen.update(plan=plan, dist_root=dist_root, **kwargs)
        return types.SimpleNamespace(wheels=["b.whl", "a.whl"])
    monkeypatch.setattr("release.build.dist.build_release", build_release)
    plan, console = object(), object()
    art = artifacts and tmp_path / artifacts
    got = steps.build(job_run(tmp_path, plan=plan, console=console),
                      opts("build", workspace=tmp_path / "ws", artifacts=art), {})
    assert got == {"wheels": ["a.whl", "b.whl"]}
    assert seen == {"plan": plan, "dist_root": tmp_path / "dist", "root": REPO,
                    "workspace": None if artifacts else tmp_path / "ws", "artifacts": art, "console": console}


def test_a_step_that_builds_without_a_plan_is_a_bug_named_with_the_version(tmp_path):
    with pytest.raises(ValueError, match=r"^0\.9\.1: this step needs a build plan$"):
        steps.build_fingerprint(job_run(tmp_path), opts("build"), {})
    plan = types.SimpleNamespace(to_json=lambda: {"version": "0.9.1", "pythons": ["3.12"]})
    assert steps.build_fingerprint(job_run(tmp_path, plan=plan), opts("build"), {}) == repr(plan.to_json())


def test_a_build_without_artifacts_needs_bazel_on_path_and_says_the_other_way(tmp_path, monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda name: None)
    with pytest.raises(UserError) as refused:
        steps.build_needs(job_run(tmp_path), opts("build", artifacts=None))
    assert str(refused.value) == ("build: no bazel on PATH; building the wheels needs Bazel (or bazelisk) and ROCm. "
                                  "On another machine pass --artifacts DIR (the .so files a build made; "
                                  "`release try` makes a sandbox with stand-ins)")
    assert steps.build_needs(job_run(tmp_path), opts("build", artifacts=tmp_path)) is None
    monkeypatch.setattr(shutil, "which", lambda name: f"/usr/bin/{name}" if name == "bazel" else None)
    assert steps.build_needs(job_run(tmp_path), opts("build", artifacts=None)) is None


# ------------------------------------------------------------------ collect and respin: a store in memory


class Store:
    """Releases and their assets in memory; downloads copy the asset's file."""

    where = "memory store"

    def __init__(self):
        self.releases: dict[str, object] = {}
        self.files: dict[str, dict[str, Path]] = {}
        self.downloads: list[str] = []

    def add(self, tag: str, files: list[Path], *, draft: bool, digests: bool = True) -> object:
        release = types.SimpleNamespace(id=len(self.releases) + 1, tag=tag, draft=draft)
        self.releases[tag], self.files[tag] = release, {p.name: p for p in files}
        self.digests = digests
        return release

    def our_drafts(self, tag):
        found = self.releases.get(tag)
        return [found] if found is not None and found.draft else []

    def list_assets(self, release):
        return [types.SimpleNamespace(name=n, state="uploaded", digest=f"sha256:{_sha(p)}" if self.digests else None)
                for n, p in self.files[release.tag].items()]

    def download_asset(self, release, asset, dest, progress=None):
        self.downloads.append(asset.name)
        self.progress = progress
        shutil.copyfile(self.files[release.tag][asset.name], dest)
        return dest


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def cells(tmp_path_factory) -> list[Path]:
    """What a split build's cells upload: each wheel, revisions.json and a stray file."""
    dist = build_dist(tmp_path_factory.mktemp("cells"), "0.9.1", majors=(7,))
    return sorted(p for p in dist.iterdir() if p.suffix == ".whl" or p.name == naming.REVISIONS_ASSET)


def test_collect_brings_the_drafts_wheels_home_and_writes_one_set_of_sums_metadata_and_provenance(tmp_path, cells):
    store, said = Store(), []
    stray = tmp_path / "notes.txt"
    stray.write_text("not a dist file\n")
    store.add("rocm-jax-v0.9.1", [stray, *cells], draft=True)
    progress = object()
    run = job_run(tmp_path, said=said, store=store, progress=progress)
    got = steps.collect(run, opts("collect"), {})
    assert store.progress is progress
    wheels = sorted(p.name for p in cells if p.suffix == ".whl")
    sidecars = [f"{w}.metadata" for w in wheels]
    assert got == {"assets": sorted([*wheels, naming.REVISIONS_ASSET, *sidecars])}
    directory = tmp_path / "dist" / "0.9.1"
    assert not (directory / "notes.txt").exists() and sorted(store.downloads) == sorted(p.name for p in cells)
    assert said == [f"download {n}" for n in store.downloads]
    sums = dict(reversed(line.split("  ")) for line in (directory / naming.CHECKSUMS_ASSET).read_text().splitlines())
    assert sorted(sums) == sorted([*got["assets"], "provenance.intoto.json"])
    assert all(_sha(directory / name) == digest for name, digest in sums.items())
    statement = json.loads((directory / "provenance.intoto.json").read_text())
    assert sorted(s["name"] for s in statement["subject"]) == wheels
    build = statement["predicate"]["buildDefinition"]
    assert build["internalParameters"]["rocmVersion"] == PROJECT.version_info.rocm_version
    assert "layout" not in build["externalParameters"]          # the rocm-jax layout's provenance, as it was

    store.downloads.clear()                    # a second run downloads only what is missing or differs
    (directory / wheels[0]).unlink()
    (directory / naming.REVISIONS_ASSET).write_text("{}\n")
    steps.collect(job_run(tmp_path, store=store), opts("collect"), {})
    assert sorted(store.downloads) == sorted([wheels[0], naming.REVISIONS_ASSET])


def test_collect_of_a_jax_tree_line_records_its_layout_and_every_rocm_in_the_provenance(tmp_path, cells,
                                                                                       monkeypatch):
    from release.build import layouts
    monkeypatch.setattr(layouts, "layout_of", lambda project: types.SimpleNamespace(name=layouts.JAX_TREE))
    store = Store()
    store.add("rocm-jax-v0.9.1", cells, draft=True)
    steps.collect(job_run(tmp_path, store=store), opts("collect"), {})
    statement = json.loads((tmp_path / "dist" / "0.9.1" / "provenance.intoto.json").read_text())
    external = statement["predicate"]["buildDefinition"]["externalParameters"]
    assert external["layout"] == layouts.JAX_TREE and external["rocmVersions"] == list(PROJECT.version_info.rocms)


@pytest.mark.parametrize("step", ["collect", "respin"])
def test_an_asset_name_refused_names_the_store_and_the_release(tmp_path, cells, step):
    store = Store()
    bad = tmp_path / "x" / ".hidden.whl"
    bad.parent.mkdir()
    bad.write_bytes(b"x")
    source = store.add("rocm-jax-v0.9.1", [bad, *cells], draft=step == "collect")
    refused = r"^memory store: asset of rocm-jax-v0\.9\.1: file name '\.hidden\.whl' refused"
    with pytest.raises(UserError, match=refused):
        steps.__dict__[step](job_run(tmp_path, "0.9.1.post1" if step == "respin" else "0.9.1", store=store,
                                     source=source), opts(step), {})


def test_collect_downloads_again_whatever_the_store_gives_no_digest_for(tmp_path, cells):
    store = Store()
    store.add("rocm-jax-v0.9.1", cells, draft=True, digests=False)
    steps.collect(job_run(tmp_path, store=store), opts("collect"), {})
    store.downloads.clear()
    steps.collect(job_run(tmp_path, store=store), opts("collect"), {})
    assert sorted(store.downloads) == sorted(p.name for p in cells)


@pytest.mark.parametrize(("keep", "why"), [
    (None, r"^memory store: no draft of rocm-jax-v0\.9\.1; run the plan stage first$"),
    ("wheels", r"^memory store: draft of rocm-jax-v0\.9\.1 lacks wheels or revisions\.json; did every build cell"),
    ("revisions", r"^memory store: draft of rocm-jax-v0\.9\.1 lacks wheels or revisions\.json")])
def test_collect_without_a_draft_or_with_half_of_one_is_one_line(tmp_path, cells, keep, why):
    store = Store()
    if keep == "wheels":
        store.add("rocm-jax-v0.9.1", [p for p in cells if p.suffix == ".whl"], draft=True)
    elif keep == "revisions":
        store.add("rocm-jax-v0.9.1", [p for p in cells if p.suffix != ".whl"], draft=True)
    else:
        store.add("rocm-jax-v0.9.1", cells, draft=False)      # published, not a draft
    with pytest.raises(UserError, match=why):
        steps.collect(job_run(tmp_path, store=store), opts("collect"), {})


def test_a_respin_promotes_the_releases_wheels_to_the_post_without_a_rebuild(tmp_path, cells):
    store, said = Store(), []
    source = store.add("rocm-jax-v0.9.1", cells, draft=False)
    (tmp_path / "dist" / "0.9.1.post2").mkdir(parents=True)     # a re-run after a crash: the dist is there
    run = job_run(tmp_path, "0.9.1.post2", said=said, store=store, source=source)
    got = steps.respin(run, opts("respin"), {})
    wheels = sorted(p.name.replace("-0.9.1-", "-0.9.1.post2-") for p in cells if p.suffix == ".whl")
    assert got["from"] == "rocm-jax-v0.9.1" and got["wheels"] == wheels
    before = RevisionMap.loads((next(p for p in cells if p.suffix == ".json")).read_text())
    assert got["revisions"] == dataclasses.replace(before, version="0.9.1.post2").to_json()
    directory = tmp_path / "dist" / "0.9.1.post2"
    assert sorted(p.name for p in directory.glob("*.whl")) == wheels
    assert RevisionMap.loads((directory / naming.REVISIONS_ASSET).read_text()).version == "0.9.1.post2"
    assert (directory / naming.CHECKSUMS_ASSET).is_file()
    assert said == [f"download {p.name} from rocm-jax-v0.9.1" for p in cells if p.suffix == ".whl"] + [
        f"download {naming.REVISIONS_ASSET} from rocm-jax-v0.9.1"]
    assert steps.respin_fingerprint(run, opts("respin"), {}) == "rocm-jax-v0.9.1->0.9.1.post2"
    assert steps.respin_fingerprint(job_run(tmp_path, "0.9.1.post2"), opts("respin"), {}) == "?->0.9.1.post2"


@pytest.mark.parametrize("keep", ["wheels", "revisions"])
def test_a_release_without_wheels_or_revisions_is_not_respun(tmp_path, cells, keep):
    store = Store()
    source = store.add("rocm-jax-v0.9.1", [p for p in cells if (p.suffix == ".whl") == (keep == "wheels")],
                       draft=False)
    with pytest.raises(UserError, match=r"^rocm-jax-v0\.9\.1 has no wheels or no revisions\.json to re-spin$"):
        steps.respin(job_run(tmp_path, "0.9.1.post1", store=store, source=source), opts("respin"), {})
    with pytest.raises(ValueError, match="^respin needs the release it re-spins$"):
        steps.respin(job_run(tmp_path, "0.9.1.post1", store=store), opts("respin"), {})


# ------------------------------------------------------------------ verify: what it reads, as it is now


def test_verify_reads_the_dists_revisions_and_says_through_the_run(tmp_path, monkeypatch):
    directory = tmp_path / "dist" / "0.9.1"
    directory.mkdir(parents=True)
    revisions = RevisionMap.from_deps(PROJECT.deps, "0.9.1", "0" * 40)
    (directory / naming.REVISIONS_ASSET).write_text(revisions.dumps())
    seen = []
    monkeypatch.setattr(steps, "verify_dist", lambda *args: seen.append(args) or {"verified": 2})
    said: list = []
    assert steps.verify(job_run(tmp_path, said=said), opts("verify"), {}) == {"verified": 2}
    assert seen == [(directory, revisions, said.append, REPO)]


def test_the_verify_fingerprint_moves_with_each_wheels_bytes_and_the_earlier_steps(tmp_path):
    directory = tmp_path / "dist" / "0.9.1"
    directory.mkdir(parents=True)
    run = job_run(tmp_path)

    def fp(ctx=None):
        return steps.dist_as_it_is(run, opts("verify"), ctx or {})
    empty = fp()
    (directory / "a.whl").write_bytes(b"a")
    one = fp()
    assert one != empty and fp() == one
    (directory / "a.whl").write_bytes(b"ab")            # another size
    assert fp() != one
    two = fp()
    os.utime(directory / "a.whl", ns=(1, 1))            # same size, touched
    assert fp() != two
    three = fp()
    (directory / "notes.txt").write_text("x")           # not read by verify
    assert fp() == three
    (directory / naming.REVISIONS_ASSET).write_text("{}")
    assert fp() != three
    four = fp()
    assert fp({"build": {"wheels": ["a.whl"]}}) != four != fp({"build": {"wheels": ["b.whl"]}})
    assert json.loads(four)["files"][0][0] == "a.whl"


# ------------------------------------------------------------------ draft, smoke, publish, gc


def test_draft_publishes_the_dist_as_read_and_returns_its_id_and_url(tmp_path, monkeypatch):
    seen = {}
    monkeypatch.setattr("release.publish.drafts.read_dist", lambda directory: ("dist of", directory))

    def publish_draft(store, dist, **kwargs):
        seen.update(store=store, dist=dist, **kwargs)
        return {"release_id": 7, "url": "https://example.invalid/r/7", "other": 1}
    monkeypatch.setattr("release.publish.drafts.publish_draft", publish_draft)
    store, progress, said = object(), object(), []
    got = steps.draft(job_run(tmp_path, said=said, store=store, progress=progress), opts("draft"), {})
    assert got == {"release_id": 7, "url": "https://example.invalid/r/7"}
    assert seen == {"store": store, "dist": ("dist of", tmp_path / "dist" / "0.9.1"), "say": said.append,
                    "progress": progress}


@pytest.mark.parametrize("smoke", [False, True])
def test_the_smoke_gate_runs_only_when_asked(tmp_path, smoke):
    assert steps.smoke_wanted(job_run(tmp_path), opts("smoke", smoke=smoke)) is smoke


def test_a_passed_smoke_records_the_devices_and_each_cell(tmp_path, monkeypatch):
    seen = {}
    cell = types.SimpleNamespace(rocm_major=7, python="3.12", ok=True, other="x")

    def smoke_draft(store, tag, **kwargs):
        seen.update(store=store, tag=tag, **kwargs)
        return types.SimpleNamespace(ok=True, problems=[], rocm_devices=["gfx942"], cells=[cell])
    monkeypatch.setattr("release.check.smoke.smoke_draft", smoke_draft)
    store, said = object(), []
    got = steps.smoke(job_run(tmp_path, said=said, store=store), opts("smoke", public_index="none"), {})
    assert got == {"rocm_devices": ["gfx942"], "cells": [{"rocm_major": 7, "python": "3.12", "ok": True}]}
    assert seen == {"store": store, "tag": "rocm-jax-v0.9.1", "public_index": "none", "say": said.append}


def test_a_failed_smoke_stops_the_job_with_every_problem(tmp_path, monkeypatch):
    problems = ["ROCm 7, Python 3.12: import failed", "ROCm 7, Python 3.13: no device"]
    monkeypatch.setattr("release.check.smoke.smoke_draft", lambda store, tag, **kw: types.SimpleNamespace(
        ok=False, problems=problems, rocm_devices=[], cells=[]))
    with pytest.raises(CheckFailed) as failed:
        steps.smoke(job_run(tmp_path), opts("smoke", public_index=None), {})
    assert failed.value.findings == problems
    assert str(failed.value) == ("the ROCm smoke test of rocm-jax-v0.9.1 failed; the draft is not published: "
                                 + "; ".join(problems))


def test_publish_undrafts_with_the_lines_majors_and_tells_the_workflow_at_once(tmp_path, monkeypatch):
    seen, told = {}, []

    def undraft(store, tag, **kwargs):
        seen.update(store=store, tag=tag, **kwargs)
        return {"url": "https://example.invalid/r/1", "id": 1}
    monkeypatch.setattr("release.publish.drafts.undraft", undraft)
    monkeypatch.setattr("release.core.output.github_output", told.append)
    store, said = object(), []
    got = steps.publish(job_run(tmp_path, said=said, store=store), opts("publish"), {})
    assert got == {"url": "https://example.invalid/r/1"}
    assert told == [{"published": "rocm-jax-v0.9.1"}]
    assert seen == {"store": store, "tag": "rocm-jax-v0.9.1", "say": said.append,
                    "majors": PROJECT.version_info.rocm_majors}


def test_gc_collects_for_real_by_the_runs_clock_and_the_jobs_retention(tmp_path, monkeypatch):
    from release.publish.retention import Retention
    seen = {}

    def collect(store, retention, **kwargs):
        seen.update(store=store, retention=retention, **kwargs)
        return {"deleted": ("a", "b"), "kept": ["c"]}
    monkeypatch.setattr("release.publish.gc.collect", collect)
    now, store, said = _dt.datetime(2026, 11, 24, 3, tzinfo=_dt.timezone.utc), object(), []
    mine = Retention(keep=3)
    got = steps.gc(job_run(tmp_path, said=said, store=store, now=now), opts("gc", retention=mine), {})
    assert got == {"deleted": ["a", "b"]}
    assert seen == {"store": store, "retention": mine, "dry_run": False, "now": now, "say": said.append}
    steps.gc(job_run(tmp_path, store=store, now=now), opts("gc", retention=None), {})
    assert seen["retention"] == Retention()
    with pytest.raises(ValueError, match="^gc needs the run's clock$"):
        steps.gc(job_run(tmp_path, store=store), opts("gc", retention=None), {})


def test_a_split_runs_plan_stage_opens_the_one_draft_of_the_plans_tag(tmp_path, monkeypatch):
    seen = []
    monkeypatch.setattr("release.jobs.shared.open_draft",
                        lambda store, plan, say: seen.append((store, plan, say)) or types.SimpleNamespace(tag="t1"))
    store, plan, said = object(), object(), []
    assert steps.open_draft(job_run(tmp_path, said=said, store=store, plan=plan), opts("open_draft"), {}) == {
        "draft": "t1"}
    assert seen == [(store, plan, said.append)]


# ------------------------------------------------------------------ cut's own


def test_the_tag_is_the_versions_at_the_release_commit_pushed_when_asked(tmp_path, monkeypatch):
    seen = []
    monkeypatch.setattr("release.jobs.cut.tag_release",
                        lambda root, tag, commit, *, push: seen.append((root, tag, commit, push)) or {"tag": tag})
    run = job_run(tmp_path, "0.9.1rc2", commit="c" * 40)
    assert steps.tag(run, opts("tag", push=True), {}) == {"tag": "rocm-jax-v0.9.1rc2"}
    assert seen == [(REPO, "rocm-jax-v0.9.1rc2", "c" * 40, True)]
    assert steps.tag_fingerprint(run, opts("tag", push=True), {}) != steps.tag_fingerprint(
        run, opts("tag", push=False), {})
    assert steps.tag_fingerprint(run, opts("tag", push=True), {}) != steps.tag_fingerprint(
        job_run(tmp_path, "0.9.1rc2", commit="d" * 40), opts("tag", push=True), {})
    with pytest.raises(ValueError, match="^tag needs the release commit$"):
        steps.tag(job_run(tmp_path), opts("tag", push=False), {})


@pytest.mark.parametrize(("next_", "version", "moves"), [
    ("0.9.1", "0.9.1", True), ("0.9.1.post2", "0.9.1.post2", True), ("0.9.1.post2", "0.9.1.post1", False),
    ("0.9.1", "0.9.1rc1", False), ("0.9.1", "0.9.1.dev20261124", False), ("0.9.2", "0.9.1", False)])
def test_only_the_release_version_info_names_next_moves_the_line_on(tmp_path, next_, version, moves):
    project = dataclasses.replace(PROJECT, version_info=dataclasses.replace(PROJECT.version_info, version=next_))
    assert steps.moves_the_line_on(job_run(tmp_path, version, project=project), opts("next_version")) is moves


def test_the_next_version_step_hands_on_its_options(tmp_path, monkeypatch):
    seen = {}
    monkeypatch.setattr("release.jobs.cut.finish_release",
                        lambda project, version, **kwargs: seen.update(project=project, version=version, **kwargs)
                        or {"action": "pushed"})
    run = job_run(tmp_path)
    view = opts("next_version", push=True, open_pr=False, release_branch="release/0.9")
    assert steps.next_version(run, view, {}) == {"action": "pushed"}
    assert seen == {"project": PROJECT, "version": "0.9.1", "push": True, "open_pr": False, "out": run.out,
                    "base_branch": "release/0.9"}
    fingerprints = {steps.next_version_fingerprint(run, opts("next_version", push=p, open_pr=o, release_branch=b), {})
                    for p in (False, True) for o in (False, True) for b in ("main", "release/0.9")}
    assert len(fingerprints) == 8


@pytest.mark.parametrize(("pypi", "version", "wanted"), [
    (True, "0.9.1", True), (True, "0.9.1.post1", True), (True, "0.9.1rc1", False),
    (True, "0.9.1.dev20261124", False), (False, "0.9.1", False)])
def test_pypi_gets_releases_and_post_releases_when_asked(tmp_path, pypi, version, wanted):
    assert steps.pypi_wanted(job_run(tmp_path, version), opts("pypi", pypi=pypi)) is wanted


def test_the_pypi_step_uploads_the_published_release_and_records_what_reached_it(tmp_path, monkeypatch):
    seen = {}

    def publish_to_pypi(store, tag, settings, **kwargs):
        seen.update(store=store, tag=tag, settings=settings, **kwargs)
        return {"uploaded": ("a.whl",), "complete": 1}
    monkeypatch.setattr("release.publish.pypi.publish_to_pypi", publish_to_pypi)
    monkeypatch.setattr("release.publish.pypi.file_limit_default", lambda: 123)
    store, progress, said = object(), object(), []
    got = steps.pypi(job_run(tmp_path, said=said, store=store, progress=progress), opts("pypi"), {})
    assert got == {"uploaded": ["a.whl"], "complete": True}
    settings = seen.pop("settings")
    assert (settings.dist_root, settings.file_limit, settings.majors) == (
        tmp_path / "dist", 123, PROJECT.version_info.rocm_majors)
    assert seen == {"store": store, "tag": "rocm-jax-v0.9.1", "say": said.append, "progress": progress}
    monkeypatch.setattr("release.publish.pypi.publish_to_pypi", lambda *a, **kw: {"skipped": "nothing to upload"})
    assert steps.pypi(job_run(tmp_path), opts("pypi"), {}) == {"uploaded": [], "complete": False}


# ------------------------------------------------------------------ validate: what it hands on and records


@pytest.fixture
def validation(monkeypatch):
    """``validate`` stood in for: returns ``answer.value``; ``answer.seen`` is what it was handed.
    A jax-tree line's RUNPATH for this checkout, a configured one (naming its root) for any other."""
    from release.check.validate import Validation
    answer = types.SimpleNamespace(value=Validation("rocm-jax-v0.9.1", 1, warnings=["w1", "w2"]), seen=None)

    def validate(store, tag, **kwargs):
        answer.seen = {"store": store, "tag": tag, **kwargs}
        return answer.value
    monkeypatch.setattr("release.check.validate.validate", validate)
    answer.layout = {REPO: ("$ORIGIN/jax-tree",)}
    monkeypatch.setattr("release.check.runpath.layout_runpath", lambda root: answer.layout.get(root))
    monkeypatch.setattr("release.build.bazel.configured_runpath", lambda root: ["/configured", str(root)])
    return answer


def test_validate_hands_on_the_draft_the_runs_talk_and_the_lines_runpath(tmp_path, validation):
    store, progress, said = object(), object(), []
    plan = types.SimpleNamespace(majors=[types.SimpleNamespace(major=7), types.SimpleNamespace(major=10)],
                                 pythons=("3.12", "3.13"))
    got = steps.validate(job_run(tmp_path, said=said, store=store, progress=progress, plan=plan),
                         opts("validate", python="/usr/bin/python3.12", public_index="none",
                              require_all_pythons=True), {})
    assert validation.seen == {"store": store, "tag": "rocm-jax-v0.9.1", "say": said.append, "progress": progress,
                               "python": "/usr/bin/python3.12", "runpath": ("$ORIGIN/jax-tree",),
                               "public_index": "none", "require_all_pythons": True,
                               "line_majors": (7, 10), "line_pythons": ("3.12", "3.13")}
    assert got == {"validated": True, "untested_cells": [], "untested_pythons": [], "warnings": ["w1", "w2"],
                   "with_rocm": []}
    assert said == ["warning: w1", "warning: w2"]


def test_without_a_plan_validate_checks_the_lines_majors_with_this_python_and_the_configured_runpath(
        tmp_path, validation):
    import sys

    from release.check.validate import line_of_project
    validation.layout = {}
    steps.validate(job_run(tmp_path), opts("validate", python=None, public_index=None, require_all_pythons=None), {})
    assert validation.seen["python"] == sys.executable
    assert validation.seen["runpath"] == ("/configured", str(REPO))
    assert (validation.seen["line_majors"], validation.seen["line_pythons"]) == (
        line_of_project(PROJECT, "0.9.1")[0], None)


def test_a_failed_validation_is_one_line_counting_its_problems(tmp_path, validation):
    from release.check.validate import Validation
    validation.value = Validation("rocm-jax-v0.9.1", 1, problems=["first problem", "second problem"])
    with pytest.raises(CheckFailed) as failed:
        steps.validate(job_run(tmp_path), opts("validate", python=None, public_index=None, require_all_pythons=None),
                       {})
    assert str(failed.value) == ("validation of rocm-jax-v0.9.1 failed with 2 problem(s); the draft is left as it "
                                 "is: first problem; second problem")


def test_each_cells_with_rocm_line_is_kept_in_cell_order_pythons_by_minor(tmp_path, validation):
    from release.check.validate import Validation
    ok = {"pip": "ok", "uv": "ok", "runtime": [], "reason": None}
    validation.value = Validation("rocm-jax-v0.9.1", 1, cells={
        (7, "3.13"): {"tested": True, "with_rocm": ok}, (7, "3.9"): {"tested": True, "with_rocm": ok}})
    got = steps.validate(job_run(tmp_path), opts("validate", python=None, public_index=None,
                                                 require_all_pythons=None), {})
    assert [c["python"] for c in got["with_rocm"]] == ["3.9", "3.13"]


def test_the_verify_fingerprint_is_the_same_for_outputs_read_back_in_another_key_order(tmp_path):
    """A skipped step's outputs come from the manifest, a run step's as it made them: the same
    outputs in another key order are the same inputs (verify is not run again for nothing)."""
    run = job_run(tmp_path)
    made = steps.dist_as_it_is(run, opts("verify"), {"build": {"wheels": ["a.whl"], "cells": 2}})
    assert made == steps.dist_as_it_is(run, opts("verify"), {"build": {"cells": 2, "wheels": ["a.whl"]}})


def test_a_respin_says_in_its_provenance_which_release_it_was_promoted_from(tmp_path, cells):
    store = Store()
    source = store.add("rocm-jax-v0.9.1", cells, draft=False)
    steps.respin(job_run(tmp_path, "0.9.1.post1", store=store, source=source), opts("respin"), {})
    statement = json.loads((tmp_path / "dist" / "0.9.1.post1" / "provenance.intoto.json").read_text())
    assert statement["predicate"]["buildDefinition"]["externalParameters"]["promotedFrom"] == "rocm-jax-v0.9.1"
