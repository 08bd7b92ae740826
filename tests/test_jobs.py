"""Job steps on their own: the fetch step of a nightly built with Bazel (not --artifacts)."""

from __future__ import annotations

import datetime as dt

from release.build.plan import make_plan
from release.core.config import load_project
from release.core.manifest import Manifest
from release.core.output import Output
from release.jobs import catalog, nightly, shared
from release.jobs.pipeline import run_steps
from release.jobs.runner import JobOptions, JobRun, steps_for


def _fetch_only(project, plan, tmp_path):
    """The nightly's steps for this run, up to fetch (what a Bazel build does first)."""
    run = JobRun(project, plan.version, tmp_path / "dist", store=None, out=Output(),
                 say=lambda t: None, plan=plan)
    options = JobOptions(workspace=tmp_path / "ws", cache=tmp_path / "cache")
    steps = steps_for(catalog.JOBS["nightly"], run, options)
    assert [s.name for s in steps][:2] == ["fetch", "build"]
    return steps[:1]


def test_fetch_step_checks_out_the_pins_and_is_skipped_when_they_have_not_moved(
        bump_project, git_remotes, tmp_path):
    c = git_remotes.c
    root = bump_project()
    project = load_project(root)
    plan = make_plan(project, "nightly", date=dt.date(2026, 11, 22), pythons=("3.11",))
    manifest = Manifest.load(tmp_path / "dist" / plan.version)
    [first] = run_steps(_fetch_only(project, plan, tmp_path), manifest, Output())
    assert first.ran and dict(first.outputs) == {"plugin": c["P0"], "jax": c["J1"], "xla": c["X1"]}
    [again] = run_steps(_fetch_only(project, plan, tmp_path),
                        Manifest.load(tmp_path / "dist" / plan.version), Output())
    assert not again.ran

    # A moved pin is a new input: the step runs again and checks out the new commit.
    moved = load_project(bump_project(commits={"jax": c["J4"]}))
    [third] = run_steps(_fetch_only(moved, plan, tmp_path),
                        Manifest.load(tmp_path / "dist" / plan.version), Output())
    assert third.ran and third.outputs["jax"] == c["J4"]


# ---------------------------------------------------------------- what may be published next

import dataclasses  # noqa: E402
import json  # noqa: E402
import subprocess  # noqa: E402

import pytest  # noqa: E402

from release.core import versions  # noqa: E402
from release.core.errors import UserError  # noqa: E402
from release.core.revisions import RevisionMap  # noqa: E402
from release.publish import drafts, notes  # noqa: E402
from release.publish.stores import LocalStore, Published  # noqa: E402

DAY = dt.date(2026, 11, 22)


def _publish(store, project, version, *, release_commit="r0", body_extra=""):
    """A published release of ``version`` in ``store``, with its revisions.json (as a job leaves it)."""
    from release.core.naming import release_tag
    revisions = RevisionMap.from_deps(project.deps, version, release_commit)
    draft = store.create_draft(release_tag(version), name=version, body="x" + body_extra,
                               prerelease=versions.kind_of(version) in ("nightly", "rc"))
    src = store.directory.parent / f"rev-{version}.json"
    src.write_text(revisions.dumps())
    store.upload_asset(draft, src, "revisions.json")
    return store.publish(draft, prerelease=draft.prerelease, make_latest=False)


@pytest.mark.parametrize("new, published, blocker", [
    ("0.9.1rc2", ["0.9.1", "0.9.1.post1"], "0.9.1.post1"),      # issue 15: rc after the release
    ("0.9.1rc2", ["0.9.1rc3"], "0.9.1rc3"),
    ("0.9.1rc2", ["0.9.1rc2"], "0.9.1rc2"),                      # at: the tag is taken
    ("0.9.1rc2", ["0.9.1rc1", "0.9.0", "0.9.0.post3", "1.0.0"], None),
    ("0.9.1", ["0.9.1rc9", "0.9.1.dev20261122"], None),
    ("0.9.1", ["0.9.1.post1"], "0.9.1.post1"),
    ("0.9.1.dev20261122", ["0.9.1rc1"], None),                   # nightlies go on under an rc
    ("0.9.1.dev20261122", ["0.9.1"], "0.9.1"),
    ("0.9.1.dev20261122", ["0.9.1.dev20261123"], None),          # a backfilled night is fine
    ("0.9.1.post1", ["0.9.1.post2"], "0.9.1.post2"),
    ("0.9.1.post3", ["0.9.1.post2", "0.9.1"], None),
    ("0.9.1rc1", ["not-a-version", "0.9.2"], None),
])
def test_blocking_version(new, published, blocker):
    assert versions.blocking_version(new, published) == blocker


def test_published_answers_release_queries_from_one_listing(tmp_path, project_dir):
    from release.core.config import load_project
    project = load_project(project_dir)
    store = LocalStore(tmp_path / "store")
    for v in ("0.9.0", "0.9.1rc1", "0.9.1.dev20261120", "0.9.1.dev20261121", "0.9.0.post1"):
        _publish(store, project, v)
    store.create_draft("rocm-jax-v0.9.1rc2", name="d", body="d", prerelease=True)
    store.create_draft("some-other-tag", name="o", body="o", prerelease=False)
    published = store.published()
    assert published.versions() == ["0.9.1rc1", "0.9.1.dev20261121", "0.9.1.dev20261120",
                                    "0.9.0.post1", "0.9.0"]
    assert published.latest(("nightly",)).tag == "rocm-jax-v0.9.1.dev20261121"
    assert published.latest(("nightly",), below="0.9.1.dev20261121").tag.endswith("20261120")
    assert published.latest(("release", "post")).tag == "rocm-jax-v0.9.0.post1"
    assert published.latest(("rc",), line="0.9.0") is None
    assert published.find("0.9.1rc1").tag == "rocm-jax-v0.9.1rc1" and published.find("0.9.1rc2") is None
    assert drafts.previous_release(store.list_releases(), "0.9.1.dev20261122").tag.endswith("21")
    assert Published.of([]).latest(("release",)) is None


@pytest.fixture
def published_line(tmp_path, project_dir):
    from release.core.config import load_project
    project = load_project(project_dir)
    store = LocalStore(tmp_path / "store")
    return project, store


def test_cut_never_publishes_below_a_published_release(published_line):
    project, store = published_line
    _publish(store, project, "0.9.1")
    _publish(store, project, "0.9.1.post1")
    rc2 = make_plan(project, "rc", number=2, pythons=("3.12",), release_commit="r0")
    with pytest.raises(UserError, match=r"0.9.1rc2 would sort below 0.9.1.post1, already "
                                        r"published .*move version_info.json's version to 0.9.1.post2"):
        shared.check_publishable(store, rc2.version, rc2.revisions)
    release = make_plan(project, "release", pythons=("3.12",), release_commit="r0")
    shared.check_publishable(store, "0.9.1.post2", release.revisions)
    with pytest.raises(UserError, match="would sort below 0.9.1.post1"):
        shared.check_publishable(store, release.version, release.revisions)


def test_the_same_version_again_is_a_rerun_only_with_the_same_sources(published_line):
    """Issue 14: the refusal to re-publish a tag already published with other sources."""
    project, store = published_line
    _publish(store, project, "0.9.1rc1", release_commit="r1")
    same = make_plan(project, "rc", number=1, pythons=("3.12",), release_commit="r1")
    shared.check_publishable(store, same.version, same.revisions)   # a re-run: allowed
    other = make_plan(project, "rc", number=1, pythons=("3.12",), release_commit="r2")
    with pytest.raises(UserError, match="rocm-jax-v0.9.1rc1 is already published with other "
                                        "sources .*cut the next number"):
        shared.check_publishable(store, other.version, other.revisions)
    with pytest.raises(UserError, match="cut a higher number than 0.9.1rc1"):
        shared.check_publishable(store, "0.9.1rc0", other.revisions)


def _nightly(project, release_commit, day=DAY, **kw):
    return make_plan(project, "nightly", date=day, pythons=("3.12",), release_commit=release_commit,
                     **kw)


def _decide(store, plan):
    """The nightly's declared plan steps after its version is chosen, over ``plan`` (the public
    index not asked): whether tonight builds, and whether what it builds may be published."""
    from release.jobs.runner import JobRequest, Planned, run_plan
    steps = catalog.JOBS["nightly"].plan
    after = steps[[d.name for d in steps].index("version") + 1:]
    request = JobRequest(None, Output(), None, open_store=lambda: store)
    return run_plan(after, request, JobOptions(public_index="none"), Planned(
        store=store, listing=store.published(), plan=plan, version=plan.version,
        revisions=plan.revisions))


def test_nightly_decision(published_line):
    project, store = published_line
    plan = _nightly(project, "r1")
    first = _decide(store, plan)
    assert (first.changed, first.reason, first.last, first.done) == (True, "building: first nightly",
                                                                     None, None)
    _publish(store, project, plan.version, release_commit="r1")
    # The same sources as the last nightly: no build, whatever the date.
    again = _decide(store, _nightly(project, "r1", DAY + dt.timedelta(days=1)))
    assert not again.changed and again.last == plan.tag and again.done == again.reason
    # Tonight's tag already published, from other sources: refused (issue 14), never rebuilt.
    with pytest.raises(UserError, match=f"{plan.tag} is already published with other sources"):
        _decide(store, _nightly(project, "r2"))
    moved = _decide(store, _nightly(project, "r2", DAY + dt.timedelta(days=1)))
    assert moved.changed and moved.reason.startswith(
        f"building: only this repository changed since {plan.tag}")
    # After the release of the line, its nightlies would sort below it: refused.
    _publish(store, project, "0.9.1", release_commit="r3")
    with pytest.raises(UserError, match=r"0.9.1.dev20261124 would sort below 0.9.1"):
        _decide(store, _nightly(project, "r4", DAY + dt.timedelta(days=2)))
    # Nothing changed since the last nightly: no build, said so, though tonight's version could
    # no longer be published (the plan stops at the decision, before asking).
    quiet = _decide(store, _nightly(project, "r1", DAY + dt.timedelta(days=2)))
    assert not quiet.changed and quiet.done.startswith("no build: nothing changed since")


def test_nightly_decision_refuses_to_mix_schemes_on_one_line(published_line, tmp_path):
    """Issue 14: the mixed-scheme refusal in the nightly decision."""
    project, store = published_line
    _publish(store, project, "0.9.1.dev20261121", release_commit="r1")
    info = dataclasses.replace(project.version_info, nightly_scheme="date-build")
    build_scheme = dataclasses.replace(project, version_info=info)
    plan = _nightly(build_scheme, "r2")
    assert plan.version == "0.9.1.dev20261122000"   # issue 14: the date-build default is 000
    with pytest.raises(versions.VersionError, match="uses the 'date-build' scheme but "
                                                    "0.9.1.dev20261121 on the same version line"):
        nightly.decide_nightly(store, plan)
    # Another line may use the other scheme.
    later = dataclasses.replace(info, version="0.10.0")
    nightly.decide_nightly(store, _nightly(dataclasses.replace(
        project, version_info=later, deps=project.deps.with_pins({"jax": {"line": "0.10.0"}})), "r2"))


def test_date_build_default_and_explicit_number(project_dir):
    from release.core.config import load_project
    project = load_project(project_dir)
    info = dataclasses.replace(project.version_info, nightly_scheme="date-build")
    build_scheme = dataclasses.replace(project, version_info=info)
    assert _nightly(build_scheme, "r").version == "0.9.1.dev20261122000"
    assert _nightly(build_scheme, "r", build_number=7).version == "0.9.1.dev20261122007"
    assert _nightly(project, "r").version == "0.9.1.dev20261122"
    with pytest.raises(versions.VersionError, match="would mix"):
        _nightly(project, "r", build_number=0)


@pytest.mark.parametrize("version, prerelease, latest", [
    ("0.9.1.dev20261122", True, False), ("0.9.1rc1", True, False),
    ("0.9.1", False, True), ("0.9.1.post1", False, True)])
def test_undraft_marks_releases_and_post_releases_latest(tmp_path, version, prerelease, latest):
    """Issue 14: post releases are marked latest (pip users and the Releases page see them)."""
    from release.core.naming import release_tag
    store = LocalStore(tmp_path / "store")
    tag = release_tag(version)
    draft = store.create_draft(tag, name=version, body="notes\n" + "<!-- jax-rocm-release draft -->",
                               prerelease=prerelease)
    sums = tmp_path / "SHA256SUMS"
    sums.write_text("0" * 64 + "  x.whl\n")
    store.upload_asset(draft, sums, "SHA256SUMS")
    store.update_release(draft, body=notes.changed(draft, validated=drafts.current_assets_digest(store, draft)))
    result = drafts.undraft(store, tag)
    assert (result["prerelease"], result["make_latest"]) == (prerelease, latest)
    stored = json.loads((store.directory / str(draft.id) / "release.json").read_text())
    assert stored["make_latest"] == ("true" if latest else "false")
    assert stored["prerelease"] is prerelease and stored["draft"] is False


def test_status_next_versions_come_from_what_is_published(run_cli, published_line, tmp_path):
    project, store = published_line
    root = project.root

    def nxt():
        code, out, err = run_cli("status", "--json", "--root", root, "--store", "local",
                                 "--store-dir", store.directory)
        assert code == 0, err
        data = json.loads(out)
        return data["next"], data["next_notes"]

    assert nxt() == ({"nightly": "0.9.1.dev20261122", "rc": "0.9.1rc1", "release": "0.9.1",
                      "post": None}, {"post": "nothing of line 0.9.1 is published: a post re-spins "
                                              "a published release"})
    _publish(store, project, "0.9.1rc1")
    _publish(store, project, "0.9.1rc2")
    assert nxt()[0]["rc"] == "0.9.1rc3"
    _publish(store, project, "0.9.1")
    _publish(store, project, "0.9.1.post1")
    now, blocked = nxt()  # released: counted on from what is published, version_info.json untouched
    assert now == {"nightly": "0.9.1.post2.dev20261122", "rc": None, "release": "0.9.1.post2",
                   "post": "0.9.1.post2"}
    assert blocked["rc"].startswith("line 0.9.1 is released") and "0.9.1.post2" in blocked["rc"]
    # A store that does not exist yet: nothing published, and reading it creates nothing.
    code, out, _ = run_cli("status", "--json", "--root", root, "--store", "local", "--store-dir",
                           tmp_path / "none")
    assert code == 0 and json.loads(out)["next"]["rc"] == "0.9.1rc1"
    assert not (tmp_path / "none").exists()


def test_cut_rc_below_a_published_release_is_refused_before_tagging(run_cli, published_line,
                                                                    tmp_path):
    """Issue 15: `release cut --rc 2` after 0.9.1 and 0.9.1.post1 published 0.9.1rc2."""
    project, store = published_line
    root = project.root

    def git(*args):
        return subprocess.run(["git", *args], cwd=root, check=True, capture_output=True,
                              text=True).stdout

    git("init", "--quiet", "-b", "main")
    git("add", "-A")
    git("-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "--quiet", "-m", "init")
    head = git("rev-parse", "HEAD").strip()
    _publish(store, project, "0.9.1", release_commit=head)
    _publish(store, project, "0.9.1.post1", release_commit=head)
    for stage in ((), ("--stage", "plan")):
        code, out, err = run_cli("cut", "--rc", "2", *stage, "--root", root, "--artifacts",
                                 tmp_path, "--store", "local", "--store-dir", store.directory,
                                 "--dist", tmp_path / "dist")
        assert code == 2 and out == "" and len(err.strip().splitlines()) == 1, err
        assert "0.9.1.post2 is the next post release of the released line 0.9.1; release " \
               "candidates exist only before a line's first release" in err
        assert git("tag") == "" and not (tmp_path / "dist").exists()
    assert [r.tag for r in store.list_releases() if r.draft] == []


def _committed_checkout(root, tools, monkeypatch, bazel=None):
    """``root`` committed as a fresh clone would be, with only git (and ``bazel``, a script, when
    given) on PATH; returns a git runner for it."""
    import os
    import shutil
    tools.mkdir()
    os.symlink(shutil.which("git"), tools / "git")
    if bazel is not None:
        (tools / "bazel").write_text(bazel)
        (tools / "bazel").chmod(0o755)
    monkeypatch.setenv("PATH", str(tools))

    def git(*args):
        return subprocess.run([str(tools / "git"), *args], cwd=root, check=True, capture_output=True,
                              text=True).stdout

    git("init", "--quiet", "-b", "main")
    git("add", "-A")
    git("-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "--quiet", "-m", "init")
    return git


def test_a_cut_or_nightly_that_cannot_build_here_says_so_before_tagging_or_fetching(
        run_cli, published_line, tmp_path, monkeypatch):
    """A fresh clone on a machine without Bazel: `release cut` (and a nightly) refuse in one line
    naming --artifacts, with no tag, no workspace, no dist; with --artifacts the check is not made."""
    project, store = published_line
    root = project.root
    git = _committed_checkout(root, tmp_path / "bin", monkeypatch)  # git, and no bazel, on PATH
    for argv in (("cut", "--rc", "1"), ("cut",), ("nightly", "--date", "2026-11-22")):
        code, out, err = run_cli(*argv, "--root", root, "--store", "local", "--store-dir", store.directory,
                                 "--workspace", tmp_path / "ws", "--dist", tmp_path / "dist")
        assert code == 2 and out == "" and len(err.strip().splitlines()) == 1, err
        assert "no bazel on PATH" in err and "--artifacts DIR" in err
        assert git("tag") == "" and not (tmp_path / "dist").exists() and not (tmp_path / "ws").exists()
    assert store.list_releases() == []


@pytest.mark.parametrize("argv", [("cut", "--rc", "1"), ("cut",)])
def test_a_cut_tags_only_after_everything_that_can_fail_before_it_passed(
        run_cli, published_line, tmp_path, monkeypatch, argv):
    """Bazel on PATH and the upstream gone: the fetch fails, and the cut leaves no tag (a tag
    never moves, so one made before a failure would pin the version to a commit that never
    shipped) and nothing published."""
    project, store = published_line
    root = project.root
    deps = root / "deps.yaml"
    deps.write_text(deps.read_text().replace("https://github.com/", f"file://{tmp_path}/gone/"))
    # git, and a bazel that must never be reached
    git = _committed_checkout(root, tmp_path / "bin", monkeypatch, bazel="#!/bin/sh\nexit 99\n")
    code, out, err = run_cli(*argv, "--root", root, "--store", "local", "--store-dir", store.directory,
                             "--workspace", tmp_path / "ws", "--dist", tmp_path / "dist")
    assert code == 2 and len(err.strip().splitlines()) == 1 and "gone" in err, err
    assert "fetch sources: failed" in out
    assert git("tag") == ""
    assert [r.tag for r in store.list_releases() if not r.draft] == []


def test_a_resumed_run_checks_only_what_its_unrecorded_steps_need(tmp_path):
    from release.jobs.runner import JobDecl, StepDecl, check_needs

    def needs(run, opts):
        raise UserError("no bazel")

    job = JobDecl("j", (StepDecl("build", "b", lambda *a: {}, needs=needs), StepDecl("pub", "p", lambda *a: {})))
    with pytest.raises(UserError, match="no bazel"):
        check_needs(job, None, JobOptions())
    check_needs(job, None, JobOptions(), recorded={"build"})


def test_a_post_release_never_sorts_at_or_below_a_published_one(published_line):
    """post's own rule is check_publishable, as every job's: refused before anything is fetched."""
    from release.jobs.runner import JobRequest, run_plan
    project, store = published_line
    _publish(store, project, "0.9.1")
    _publish(store, project, "0.9.1.post2")

    def post(number, base=None):
        request = JobRequest(project, Output(), store.directory.parent / "dist",
                             open_store=lambda: store, kind="post", number=number, base=base)
        planned = run_plan(catalog.JOBS["post"].plan, request, JobOptions())
        return planned.source.tag, planned.version

    with pytest.raises(UserError, match=r"0.9.1.post1 would sort below 0.9.1.post2.*higher .postN"):
        post(1)
    assert post(3) == ("rocm-jax-v0.9.1", "0.9.1.post3")
    assert post(2, "0.9.1")[1] == "0.9.1.post2"   # a re-run of the same re-spin
    assert not (store.directory.parent / "dist").exists()   # a plan changes nothing
