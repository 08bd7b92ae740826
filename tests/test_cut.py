"""The cut job's own rules, called directly: a release tag is made once and never moves."""

from __future__ import annotations

import dataclasses
import json
import subprocess

import pytest

from release.core import versions
from release.core.errors import UserError
from release.jobs import cut


def git(cwd, *args) -> str:
    return subprocess.run(["git", "-C", str(cwd), "-c", "user.name=t", "-c", "user.email=t@t", *args],
                          check=True, capture_output=True, text=True).stdout.strip()


def test_a_release_tag_is_made_once_and_never_moves(tmp_path):
    git(tmp_path, "init", "-q")
    git(tmp_path, "commit", "-q", "--allow-empty", "-m", "one")
    first = git(tmp_path, "rev-parse", "HEAD")
    git(tmp_path, "commit", "-q", "--allow-empty", "-m", "two")
    second = git(tmp_path, "rev-parse", "HEAD")
    tag = "rocm-jax-v0.9.1rc1"
    assert cut.tag_release(tmp_path, tag, first, push=False) == {"tag": tag, "commit": first, "pushed": False}
    assert cut.tag_release(tmp_path, tag, first, push=False)["commit"] == first  # a re-run
    with pytest.raises(UserError) as err:
        cut.tag_release(tmp_path, tag, second, push=False)
    assert str(err.value) == (f"tag {tag} already points at {first[:12]}, not at HEAD {second[:12]}; "
                              "a release tag never moves")
    assert git(tmp_path, "rev-parse", f"{tag}^{{commit}}") == first


@pytest.mark.parametrize("branch, flag, cut_from", [
    ("main", None, True), ("rel", "rel", True), ("rel", None, False), ("main", "rel", False)])
def test_a_cut_is_planned_from_the_head_of_the_release_branch_the_flag_names(tmp_path, branch, flag,
                                                                             cut_from):
    """`--release-branch B` reaches the plan's checkout step: a cut is made from B's clean head
    (default main), and from any other branch it is refused naming the one it expects."""
    import types

    from release.commands._job_flags import job_options
    from release.jobs import catalog
    from release.jobs.runner import JobRequest, Planned, run_plan
    git(tmp_path, "init", "-q", "-b", branch)
    git(tmp_path, "commit", "-q", "--allow-empty", "-m", "one")
    args = types.SimpleNamespace(_job_flags=("release_branch",), release_branch=flag or "main")
    checkout = [d for d in catalog.JOBS["cut"].plan if d.name == "checkout"]
    request = JobRequest(types.SimpleNamespace(root=tmp_path), None, tmp_path / "dist", kind="rc")
    if cut_from:
        planned = run_plan(checkout, request, job_options(args, tmp_path))
        assert planned == Planned(commit=git(tmp_path, "rev-parse", "HEAD"))
    else:
        with pytest.raises(UserError) as err:
            run_plan(checkout, request, job_options(args, tmp_path))
        assert str(err.value) == (f"{tmp_path}: on branch {branch}; a release is cut from {flag or 'main'} "
                                  "(check it out, or pass --release-branch)")


# ---------------------------------------------------------------- the checkout a cut is made from


def repo(tmp_path, branch="main", *, remote=False):
    """A git repository with version_info.json and deps.yaml committed on ``branch`` (and a bare
    ``origin`` when asked); its root."""
    from tests.support.project import copy_config
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", branch)
    copy_config(root, "0.9.1")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "the line")
    if remote:
        git(tmp_path, "init", "-q", "--bare", "origin.git")
        git(root, "remote", "add", "origin", str(tmp_path / "origin.git"))
    return root


def test_a_dirty_checkout_is_refused_naming_the_first_change(tmp_path):
    root = repo(tmp_path)
    head = git(root, "rev-parse", "HEAD")
    assert cut.check_release_checkout(root, "main") == head
    (root / "deps.yaml").write_text("changed\n")
    (root / "new.txt").write_text("x\n")
    with pytest.raises(UserError) as err:
        cut.check_release_checkout(root, "main")
    assert str(err.value) == (f"{root}: the working tree is not clean (M deps.yaml ...); "
                              "commit or stash before cutting a release")


def test_a_pushed_tag_is_built_only_where_it_points(tmp_path):
    root = repo(tmp_path)
    tag = "rocm-jax-v0.9.1rc1"
    with pytest.raises(UserError) as err:
        cut.tagged_checkout(root, tag)
    assert str(err.value) == (f"{root}: no tag {tag}; push it first, or run `release cut` on the "
                              "release branch to make it")
    first = git(root, "rev-parse", "HEAD")
    git(root, "tag", tag)
    assert cut.tagged_checkout(root, tag) == first
    git(root, "commit", "-q", "--allow-empty", "-m", "later")
    head = git(root, "rev-parse", "HEAD")
    with pytest.raises(UserError) as err:
        cut.tagged_checkout(root, tag)
    assert str(err.value) == f"{root}: tag {tag} points at {first[:12]} but HEAD is {head[:12]}; check out the tag"


def test_a_tag_is_pushed_only_when_asked_and_to_the_remote_named(tmp_path):
    root = repo(tmp_path, remote=True)
    head = git(root, "rev-parse", "HEAD")
    cut.tag_release(root, "rocm-jax-v0.9.1rc1", head, push=False)
    assert git(tmp_path / "origin.git", "tag") == ""
    assert cut.tag_release(root, "rocm-jax-v0.9.1rc1", head, push=True) == {
        "tag": "rocm-jax-v0.9.1rc1", "commit": head, "pushed": True}
    assert git(tmp_path / "origin.git", "tag") == "rocm-jax-v0.9.1rc1"
    git(root, "remote", "rename", "origin", "upstream")
    cut.tag_release(root, "rocm-jax-v0.9.1rc2", head, push=True, remote="upstream")
    assert git(tmp_path / "origin.git", "tag").split() == ["rocm-jax-v0.9.1rc1", "rocm-jax-v0.9.1rc2"]
    # an annotated tag, saying what it is
    assert git(root, "cat-file", "-t", "rocm-jax-v0.9.1rc2") == "tag"
    assert git(root, "tag", "-l", "--format=%(contents:subject)", "rocm-jax-v0.9.1rc2") == "jax-rocm rocm-jax-v0.9.1rc2"


# ---------------------------------------------------------------- after a release: the line moves on


@pytest.mark.parametrize("released, nxt", [("0.9.1", "0.9.1.post1"), ("0.9.1.post1", "0.9.1.post2")])
def test_after_a_release_version_info_moves_to_the_next_post_on_a_branch(tmp_path, released, nxt):
    from release.core.config import load_project
    root = repo(tmp_path)
    head = git(root, "rev-parse", "HEAD")
    got = cut.commit_next_version(load_project(root), released)
    assert got == {"next_version": nxt, "branch": f"release/next-{nxt}", "commit": got["commit"]}
    assert git(root, "rev-parse", "HEAD") == head and git(root, "branch", "--show-current") == "main"
    assert git(root, "rev-parse", f"release/next-{nxt}") == got["commit"]
    assert git(root, "rev-parse", f"{got['commit']}^") == head
    info = json.loads(git(root, "show", f"{got['commit']}:version_info.json"))
    assert info["version"] == nxt
    assert git(root, "diff", "--name-only", head, got["commit"]) == "version_info.json"
    subject = git(root, "log", "-1", "--format=%s", got["commit"])
    assert subject == f"Move the next version to {nxt} after releasing {released}"
    body = git(root, "log", "-1", "--format=%b", got["commit"])
    assert f"{nxt}.devYYYYMMDD and sort above {released}" in body and f"the next release of the line is {nxt}." in body


def test_an_uncommitted_version_info_is_refused(tmp_path):
    from release.core.config import load_project
    from tests.support.project import copy_config
    git(tmp_path, "init", "-q", "-b", "main")
    git(tmp_path, "commit", "-q", "--allow-empty", "-m", "empty")
    project = load_project(copy_config(tmp_path, "0.9.1"))
    with pytest.raises(UserError) as err:
        cut.commit_next_version(project, "0.9.1")
    assert str(err.value) == f"{project.version_info.path}: not committed; commit it before cutting a release"


@pytest.mark.parametrize("push", [False, True])
def test_the_next_version_branch_is_pushed_only_when_asked(tmp_path, push):
    from release.core.config import load_project
    from release.core.output import Output
    root = repo(tmp_path, remote=True)
    got = cut.finish_release(load_project(root), "0.9.1", push=push, open_pr=False, out=Output())
    assert got.get("pushed", False) is push and "pull" not in got
    pushed = git(tmp_path / "origin.git", "branch", "--list", "release/next-0.9.1.post1")
    assert bool(pushed) is push
    if push:
        assert git(tmp_path / "origin.git", "rev-parse", "release/next-0.9.1.post1") == got["commit"]


# ---------------------------------------------------------------- the plan steps


def request(root, **kw):
    import types

    from release.jobs.runner import JobRequest
    return JobRequest(types.SimpleNamespace(root=root), None, root / "dist", **kw)


@pytest.mark.parametrize("stage, tag, planning", [("plan", "rocm-jax-v0.9.1rc1", True), ("plan", None, False),
                                                  (None, "rocm-jax-v0.9.1rc1", False),
                                                  ("finish", "rocm-jax-v0.9.1rc1", False)])
def test_only_a_pushed_tags_plan_stage_plans_that_tag(tmp_path, stage, tag, planning):
    from release.jobs.runner import Planned
    assert cut.planning_a_tag(request(tmp_path, stage=stage, tag=tag), Planned()) is planning


@pytest.mark.parametrize("stage, tag", [("plan", "rocm-jax-v0.9.1rc1"), (None, None),
                                        (None, "rocm-jax-v0.9.1rc1"), ("finish", "rocm-jax-v0.9.1rc1")])
def test_the_release_commit_is_the_tags_or_the_release_branchs_head(tmp_path, stage, tag):
    from release.jobs.runner import JobOptions, OptionsView, Planned
    root = repo(tmp_path, "rel")
    head = git(root, "rev-parse", "HEAD")
    git(root, "tag", "rocm-jax-v0.9.1rc1")
    git(root, "checkout", "-q", "--detach")    # a tag's CI run is on no branch
    opts = OptionsView(JobOptions(release_branch="rel"), ("release_branch",), "checkout")
    if stage != "plan":    # only a pushed tag's plan stage is made where the tag points
        with pytest.raises(UserError, match="HEAD is detached"):   # a cut without a tag needs the branch
            cut.release_checkout(request(root, stage=stage, tag=tag), opts, Planned())
        git(root, "checkout", "-q", "rel")
    assert cut.release_checkout(request(root, stage=stage, tag=tag), opts, Planned()) == Planned(commit=head)


def test_a_pushed_tag_already_published_is_done_and_one_not_yet_goes_on(tmp_path):
    from release.core.config import load_project
    from release.jobs.runner import Planned
    from release.publish.stores import LocalStore
    from tests.test_jobs import _publish
    root = repo(tmp_path)
    project, store = load_project(root), LocalStore(tmp_path / "store")
    _publish(store, project, "0.9.1rc1")
    planned = Planned(store=store, listing=store.published())
    done = cut.already_published(request(root, stage="plan", tag="rocm-jax-v0.9.1rc1"), None, planned)
    assert (done.version, done.done) == ("0.9.1rc1", "rocm-jax-v0.9.1rc1: already published; nothing to build")
    assert cut.already_published(request(root, stage="plan", tag="rocm-jax-v0.9.1rc2"), None, planned) == planned
    for bad in (request(root, stage="plan"), None):
        with pytest.raises(ValueError, match="^the published check reads the tag and the store's listing$"):
            cut.already_published(bad or request(root, stage="plan", tag="rocm-jax-v0.9.1rc1"), None,
                                  planned if bad else Planned())


@pytest.mark.parametrize("kind, number, stage, tag, version", [
    ("rc", 2, None, None, "0.9.1rc2"),
    ("release", None, None, None, "0.9.1"),
    ("rc", 5, "plan", "rocm-jax-v0.9.1rc3", "0.9.1rc3"),       # the pushed tag decides, not the flags
    ("rc", None, "plan", "rocm-jax-v0.9.1", "0.9.1"),
    ("rc", 2, "finish", "rocm-jax-v0.9.1rc3", "0.9.1rc2"),     # only a plan stage plans the tag
    ("rc", 2, None, "rocm-jax-v0.9.1rc3", "0.9.1rc2"),
])
def test_the_cut_plans_the_version_asked_for_or_the_pushed_tags(tmp_path, kind, number, stage, tag, version):
    from release.core.config import load_project
    from release.jobs.runner import Planned
    root = repo(tmp_path)
    project = load_project(root)
    req = dataclasses.replace(request(root, kind=kind, number=number, stage=stage, tag=tag, pythons=("3.12",)),
                              project=project)
    got = cut.cut_version(req, None, Planned(commit="c" * 40))
    assert (got.version, got.plan.version, got.revisions) == (version, version, got.plan.revisions)
    assert got.kind == versions.kind_of(version) and got.number == (None if got.kind == "release" else
                                                                    int(version.rpartition("rc")[2]))
    assert got.plan.revisions.release_commit == "c" * 40 and got.plan.pythons == ("3.12",)


@pytest.mark.parametrize("commit, version", [("c" * 40, "0.9.1"), ("d" * 40, "0.9.1.post1")])
def test_a_release_already_published_from_these_sources_is_a_re_run_not_a_post(tmp_path, commit, version):
    from release.core.config import load_project
    from release.jobs.runner import Planned
    from release.publish.stores import LocalStore
    from tests.test_jobs import _publish
    root = repo(tmp_path)
    project, store = load_project(root), LocalStore(tmp_path / "store")
    _publish(store, project, "0.9.1", release_commit="c" * 40)
    req = dataclasses.replace(request(root, kind="release", pythons=("3.12",)), project=project)
    got = cut.cut_version(req, None, Planned(store=store, listing=store.published(), commit=commit))
    assert got.version == version and got.plan.pythons == ("3.12",)
    # the same, without a store to ask (a dry run): the plan past what the index published
    dry = cut.cut_version(req, None, Planned(public=("0.9.1",), commit="c" * 40))
    assert dry.version == "0.9.1.post1"


def test_a_finish_stage_builds_the_version_its_plan_stage_tagged(tmp_path):
    from release.jobs.runner import Planned
    got = cut.tagged_version(request(tmp_path, stage="finish", tag="rocm-jax-v0.9.1rc4"), None, Planned())
    assert got == Planned(version="0.9.1rc4")
    with pytest.raises(UserError) as err:
        cut.tagged_version(request(tmp_path, stage="finish", tag=""), None, Planned())
    assert str(err.value) == "--stage finish needs --tag rocm-jax-v<version> (the plan stage's output)"


@pytest.mark.parametrize("from_env", [True, False])
def test_open_pr_proposes_the_next_version_branch_against_the_release_branch(tmp_path, github_env, monkeypatch,
                                                                             from_env):
    """--open-pr pushes the branch and opens its pull request into --release-branch, in the
    repository $GITHUB_REPOSITORY names (the process's environment, or the one handed in)."""
    import io
    import os

    from release.core.config import load_project
    from release.core.output import Output
    fake = github_env
    env = None if from_env else dict(os.environ)
    if not from_env:
        for name in ("GITHUB_REPOSITORY", "GITHUB_TOKEN", "GITHUB_API_URL"):
            monkeypatch.delenv(name)
    root = repo(tmp_path, remote=True)
    stream = io.StringIO()
    got = cut.finish_release(load_project(root), "0.9.1", push=False, open_pr=True, out=Output(stream=stream),
                             base_branch="rel", env=env)
    assert got["pushed"] is True and got["pull"]["action"] == "opened"
    [pull] = fake.pulls()
    assert pull["number"] == got["pull"]["number"] and pull["base"]["ref"] == "rel"
    assert pull["head"]["label"] == f"{fake.repo.split('/')[0]}:release/next-0.9.1.post1"
    assert "0.9.1.post1" in pull["title"] and "0.9.1" in pull["body"]
    assert stream.getvalue() == f"next-version pull request #{pull['number']} (opened)\n"
    assert git(tmp_path / "origin.git", "rev-parse", "release/next-0.9.1.post1") == got["commit"]


def test_open_pr_without_a_token_says_the_right_it_needs(tmp_path, github_env):
    from release.core.config import load_project
    from release.core.output import Output
    from release.sources.github import PULL_REQUEST
    root = repo(tmp_path, remote=True)
    env = {"GITHUB_REPOSITORY": github_env.repo, "GITHUB_API_URL": github_env.api_url}
    with pytest.raises(UserError) as err:
        cut.finish_release(load_project(root), "0.9.1", push=False, open_pr=True, out=Output(), env=env)
    assert f"{PULL_REQUEST[0]} needs a token with {PULL_REQUEST[1]}" in str(err.value)
