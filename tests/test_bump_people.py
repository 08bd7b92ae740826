"""People's commits on the bump branch are never overwritten.

The tool marks its own commits (a trailer, and one identity as author and committer); when the
bump PR's branch on origin ends in anything else (a person's commit on top, an amend, a rebase,
a merge of main), ``bump --open-pr`` pushes nothing there, says so on the PR once and in its
output and changelog, and opens the next roll on a new branch only once that PR is merged or
closed. Real git throughout: a bare origin, a person's clone pushing to it."""

from __future__ import annotations

import datetime as dt
import os

import pytest

from release.sources.pull_requests import KEPT_MARK
from release.sources.repo import TOOL_TRAILER, ReleaseRepo
from tests.support import bumping
from tests.support.gitrepos import git

PERSON = {"GIT_AUTHOR_NAME": "Ada Person", "GIT_AUTHOR_EMAIL": "ada@example.com",
          "GIT_COMMITTER_NAME": "Ada Person", "GIT_COMMITTER_EMAIL": "ada@example.com"}


@pytest.fixture
def cache_env(shared_git_cache, monkeypatch):
    monkeypatch.setenv("JAX_ROCM_RELEASE_CACHE", str(shared_git_cache))


@pytest.fixture
def checkout(release_checkout):
    """The project as a git checkout on main, with a bare origin (tests/support/gitrepos)."""
    return release_checkout


def person_edits(origin, tmp_path, branch, how):
    """A person clones origin and changes ``branch`` the way ``how`` says; returns the new tip."""
    clone = tmp_path / f"person-{how}"
    env = os.environ | PERSON
    git("clone", "--quiet", origin.as_uri(), clone, env=env)
    git("checkout", "--quiet", branch, cwd=clone, env=env)
    if how == "commit on top":
        (clone / "NOTES.md").write_text("why this roll needs a patch\n")
        git("add", "NOTES.md", cwd=clone, env=env)
        git("commit", "--quiet", "-m", "Fix the build for this roll", cwd=clone, env=env)
    elif how == "amend":  # the trailer stays, the committer is now the person
        git("commit", "--quiet", "--amend", "--no-edit", cwd=clone, env=env)
    elif how == "rebase onto main":
        git("checkout", "--quiet", "main", cwd=clone, env=env)
        (clone / "ci.txt").write_text("a CI change on main\n")
        git("add", "ci.txt", cwd=clone, env=env)
        git("commit", "--quiet", "-m", "CI change", cwd=clone, env=env)
        git("push", "--quiet", "origin", "main", cwd=clone, env=env)
        git("checkout", "--quiet", branch, cwd=clone, env=env)
        git("rebase", "--quiet", "main", cwd=clone, env=env)
    elif how == "merge main in":
        git("checkout", "--quiet", "main", cwd=clone, env=env)
        (clone / "ci.txt").write_text("a CI change on main\n")
        git("add", "ci.txt", cwd=clone, env=env)
        git("commit", "--quiet", "-m", "CI change", cwd=clone, env=env)
        git("checkout", "--quiet", branch, cwd=clone, env=env)
        git("merge", "--quiet", "--no-edit", "--no-ff", "main", cwd=clone, env=env)
    git("push", "--quiet", "--force", "origin", branch, cwd=clone, env=env)
    return git("rev-parse", "HEAD", cwd=clone).strip()


def tip(origin, branch):
    return git("rev-parse", f"refs/heads/{branch}", cwd=origin).strip()


def bump(root, **asked):
    """``bump --open-pr`` on 2026-11-22."""
    return bumping.bump(root, open_pr=True, date=dt.date(2026, 11, 22), **asked)


def test_the_tools_commit_carries_its_mark(checkout, git_remotes, cache_env, github_env):
    root, origin = checkout
    first = bump(root, deps=("plugin",)).delivered
    assert git("log", "-1", "--format=%B", first["commit"], cwd=root).rstrip().endswith(TOOL_TRAILER)
    assert ReleaseRepo(root).person_pushed(first["branch"]) is None
    assert ReleaseRepo(root).person_pushed("bump/no-such-branch") is None


@pytest.mark.parametrize("how", ["commit on top", "amend", "rebase onto main", "merge main in"])
def test_a_persons_push_is_kept_said_once_and_the_next_roll_waits(
        checkout, git_remotes, cache_env, github_env, tmp_path, how):
    root, origin = checkout
    fake = github_env
    first = bump(root).delivered  # every dep: the next roll, the same day, has the same branch name
    number, branch = first["pull_request"]["number"], first["branch"]
    theirs = person_edits(origin, tmp_path, branch, how)

    for run in range(2):  # twice: still nothing is pushed, one comment in all
        changes = tmp_path / f"changes{run}.md"
        kept = bump(root, changelog=changes)
        pr = kept.pull_request
        assert pr["action"] == "kept" and pr["number"] == number and pr["branch"] == branch
        assert tip(origin, branch) == theirs, "the person's commit was overwritten"
        assert "Ada Person" in pr["reason"] and theirs[:12] in pr["reason"]
        assert pr["reason"] in changes.read_text() and pr["reason"] in kept.summary()
        assert [p["number"] for p in fake.pulls() if p["state"] == "open"] == [number]
        assert git("for-each-ref", "--format=%(refname)", "refs/heads/bump/", cwd=origin).split() == [
            f"refs/heads/{branch}"]
        comments = fake.comments(number)
        assert len(comments) == 1 and KEPT_MARK in comments[0]["body"]
    # Pins current now (the roll landed some other way): the person's PR is not closed either.
    assert fake.violations == []

    # They close it: the next roll opens on a new branch; their branch stays as they left it.
    github_env_close(fake, number)
    data = bump(root).delivered
    pr = data["pull_request"]
    assert pr["action"] == "opened" and pr["number"] != number and pr["branch"] == f"{branch}-2"
    assert tip(origin, branch) == theirs
    assert tip(origin, pr["branch"]) == data["commit"]
    # And that new PR, the tool's own, is updated in place as before.
    assert bump(root).pull_request["action"] == "updated"


def github_env_close(fake, number):
    with fake.lock:
        for pull in fake._pulls[fake.repo]:
            if pull["number"] == number:
                pull["state"] = "closed"


def test_a_merge_or_an_unmarked_commit_is_not_the_tools(tmp_path):
    """The mark is all three: one parent, the trailer, author == committer."""
    repo_dir = tmp_path / "r"
    git("init", "--quiet", "-b", "main", repo_dir)
    tool = os.environ | {"GIT_AUTHOR_NAME": "bot", "GIT_AUTHOR_EMAIL": "b@x", "GIT_COMMITTER_NAME": "bot",
                         "GIT_COMMITTER_EMAIL": "b@x"}
    marked = f"roll\n\n{TOOL_TRAILER}\n"
    git("commit", "--quiet", "--allow-empty", "-m", "base", cwd=repo_dir, env=tool)
    git("commit", "--quiet", "--allow-empty", "-m", marked, cwd=repo_dir, env=tool)
    one = git("rev-parse", "HEAD", cwd=repo_dir).strip()
    git("commit", "--quiet", "--allow-empty", "-m", "roll", cwd=repo_dir, env=tool)
    unmarked = git("rev-parse", "HEAD", cwd=repo_dir).strip()
    tree = git("rev-parse", "HEAD^{tree}", cwd=repo_dir).strip()
    merge = git("commit-tree", tree, "-p", one, "-p", unmarked, "-m", marked, cwd=repo_dir, env=tool).strip()
    repo = ReleaseRepo(repo_dir)
    assert repo.is_tool_commit(one)
    assert not repo.is_tool_commit(unmarked) and not repo.is_tool_commit(merge)


def test_pins_current_leaves_a_persons_pr_open(checkout, git_remotes, cache_env, github_env,
                                               tmp_path):
    """A bump that finds the pins current closes the tool's PR, never one a person pushed to."""
    root, origin = checkout
    fake = github_env
    first = bump(root).delivered
    person_edits(origin, tmp_path, first["branch"], "commit on top")
    git("merge", "--quiet", "--ff-only", first["commit"], cwd=root)  # the pins land on main
    current = bump(root)
    assert current.changed is False and current.pull_request["action"] == "kept"
    assert current.kept in current.summary()  # said, though nothing moved
    assert [p["state"] for p in fake.pulls()] == ["open"]


def test_a_shallow_checkout_judges_the_tip_alone(checkout, git_remotes, cache_env, github_env,
                                                 tmp_path):
    """CI clones one commit deep: the remote tip is fetched one deep and judged by itself."""
    root, origin = checkout
    first = bump(root, deps=("plugin",)).delivered
    shallow = tmp_path / "shallow"
    git("clone", "--quiet", "--depth", "1", origin.as_uri(), shallow)
    assert ReleaseRepo(shallow).person_pushed(first["branch"]) is None
    person_edits(origin, tmp_path, first["branch"], "commit on top")
    said = ReleaseRepo(shallow).person_pushed(first["branch"])
    assert said is not None and "Ada Person" in said
