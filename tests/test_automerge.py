"""``bump --auto-merge``: the bump PR merges itself only when it is the tool's own and green.

Rules: a green week merges every bump with no person; a PR whose checks are pending is neither
merged nor rewritten (the checks finish first); a red or incomplete one is not merged (the roll
goes on over it); a person's commit on the branch is never merged by the tool, green or not;
GitHub's own refusals (the head moved: 409; not mergeable: 405) are a wait, not an error. The
stand-in is as strict as GitHub: a PR's head branch must exist, a merge needs green checks on
the head and the head sha it names. Real git: a bare origin the stand-in reads and merges into."""

from __future__ import annotations

import datetime as dt
import json
import os

import pytest

from release.sources.github import GitHubError
from tests.support import bumping
from tests.support.gitrepos import git, push_to_origin
from tests.test_bump_people import PERSON, person_edits


@pytest.fixture
def cache_env(shared_git_cache, monkeypatch):
    monkeypatch.setenv("JAX_ROCM_RELEASE_CACHE", str(shared_git_cache))


@pytest.fixture
def world(bump_project, tmp_path, github_env):
    """The project as a checkout on main, a bare origin, and the stand-in reading that origin."""
    root = bump_project()
    origin = tmp_path / "origin.git"
    push_to_origin(root, origin, "deps.yaml", "version_info.json")
    github_env.git_dir = origin
    return root, origin, github_env


def bump(root, **asked):
    """One scheduled run with ``--auto-merge`` (the job's result as ``--json`` has it)."""
    return bumping.bump(root, auto_merge=True, date=dt.date(2026, 11, 22), **asked).to_json()


def tip(origin, branch):
    return git("rev-parse", f"refs/heads/{branch}", cwd=origin).strip()


def pull_main(root):
    git("fetch", "--quiet", "origin", "main", cwd=root)
    git("merge", "--quiet", "--ff-only", "FETCH_HEAD", cwd=root)


def test_a_green_week_merges_every_bump_with_no_person(world, git_remotes, cache_env):
    root, origin, fake = world
    merged = []
    for dep in ({"deps": ("plugin",)}, {}):
        opened = bump(root, **dep)
        assert opened["pull_request"]["action"] == "opened", opened
        fake.add_check_run(opened["commit"], "build")
        fake.set_status(opened["commit"], "ci/lint", "success")
        done = bump(root)
        number = opened["pull_request"]["number"]
        assert done["auto_merge"] == {
            "action": "merged", "number": number, "sha": opened["commit"], "checks": "green",
            "line": f"auto-merge: merged bump PR #{number} at {opened['commit'][:12]} (the tool's own commit, "
                    "every required check green)"}, done
        assert done["title"] == done["auto_merge"]["line"]
        merged.append(done["auto_merge"]["number"])
        main = tip(origin, "main")
        assert git("rev-parse", f"{main}^2", cwd=origin).strip() == opened["commit"]
        pull_main(root)
    assert [p["number"] for p in fake.pulls() if p.get("merged")] == merged and len(merged) == 2
    assert all(p["state"] == "closed" for p in fake.pulls())
    # Everything rolled and merged: the next run has nothing to do.
    last = bump(root)
    assert last["changed"] is False
    assert last["auto_merge"] == {"action": "none", "line": "auto-merge: no open bump PR", "number": None,
                                  "sha": None, "checks": None}
    assert fake.violations == []


@pytest.mark.parametrize("checks, merges, pushes", [
    ({"build": "in_progress"}, False, False),
    ({"build": "failure"}, False, True),
    ({}, False, True),
    ({"build": "success", "lint": "in_progress"}, False, False),
    ({"build": "success", "lint": "success"}, True, False),
], ids=["pending", "red", "no-checks", "one-pending", "green"])
def test_only_green_merges_and_pending_is_left_to_finish(world, git_remotes, cache_env, checks,
                                                         merges, pushes):
    root, origin, fake = world
    opened = bump(root, deps=("plugin",))
    branch, sha = opened["branch"], opened["commit"]
    for name, state in checks.items():
        if state == "in_progress":
            fake.add_check_run(sha, name, status="in_progress")
        else:
            fake.add_check_run(sha, name, conclusion=state)
    main_before = tip(origin, "main")
    done = bump(root)
    number = opened["pull_request"]["number"]
    got = done["auto_merge"]
    assert (got["action"] == "merged") is merges
    assert (got["number"], got["sha"]) == (number, sha)
    if not merges:  # the verdict on that very commit, in one line
        state = "pending" if "in_progress" in checks.values() else "red" if checks else "missing"
        assert got["action"] == "waiting" and got["checks"] == state, got
        said = {"pending": "pending (running: ", "red": "red (failing: build)",
                "missing": "not green (no checks or statuses)"}[state]
        assert got["line"].startswith(f"auto-merge: bump PR #{number} not merged: checks on {sha[:12]} are "
                                      f"{said}"), got
    assert (tip(origin, "main") != main_before) is merges
    # Pending checks are not restarted by a new push; red or none: the roll goes on over it.
    assert (tip(origin, branch) != sha) is pushes
    if not merges:
        assert done["auto_merge"]["line"] in (done["title"] if not pushes else json.dumps(done))
    assert fake.violations == []


def test_a_named_required_check_must_have_run(world, git_remotes, cache_env):
    root, origin, fake = world
    opened = bump(root, deps=("plugin",))
    fake.add_check_run(opened["commit"], "lint")
    done = bump(root, merge_require=("build",))
    assert done["auto_merge"]["action"] == "waiting" and "build" in done["auto_merge"]["line"]
    fake.add_check_run(tip(origin, opened["branch"]), "build")
    fake.add_check_run(tip(origin, opened["branch"]), "lint", conclusion="failure")
    done = bump(root, merge_require=("build",))  # lint is not required: it may fail
    assert done["auto_merge"]["action"] == "waiting", "GitHub's own rule still needs every check green"
    assert "405" in done["auto_merge"]["line"]


def test_a_persons_commit_is_never_merged_by_the_tool(world, git_remotes, cache_env, tmp_path):
    root, origin, fake = world
    opened = bump(root, deps=("plugin",))
    theirs = person_edits(origin, tmp_path, opened["branch"], "commit on top")
    fake.add_check_run(theirs, "build")
    main_before = tip(origin, "main")
    for _ in range(2):
        done = bump(root)
        number = fake.pulls()[0]["number"]
        assert done["auto_merge"] == {
            "action": "kept", "number": number, "sha": theirs, "checks": None,
            "line": f"auto-merge: bump PR #{number} not merged: Ada Person pushed {theirs[:12]} to "
                    f"{opened['branch']}; a person merges it"}
        assert tip(origin, "main") == main_before and tip(origin, opened["branch"]) == theirs
    assert [p.get("merged") for p in fake.pulls()] == [False]


def test_the_head_moving_after_the_check_is_a_wait(world, git_remotes, cache_env):
    root, origin, fake = world
    opened = bump(root, deps=("plugin",))
    fake.add_check_run(opened["commit"], "build")
    fake.fail("PUT", r"/merge$", status=409, message="Head branch was modified. Review and try the merge again.")
    done = bump(root)
    number = fake.pulls()[0]["number"]
    assert done["auto_merge"] == {"action": "waiting", "number": number, "sha": opened["commit"], "checks": None,
                                  "line": f"auto-merge: bump PR #{number} not merged: GitHub said 409"}
    assert tip(origin, "main") == git("rev-parse", "HEAD", cwd=root).strip()


def test_a_bump_branch_gone_from_origin_is_a_wait_naming_it(world, git_remotes, cache_env):
    root, origin, fake = world
    opened = bump(root, deps=("plugin",))
    fake.add_check_run(opened["commit"], "build")
    git("update-ref", "-d", f"refs/heads/{opened['branch']}", cwd=origin)  # a person deleted it
    number = opened["pull_request"]["number"]
    done = bump(root)
    assert done["auto_merge"] == {"action": "waiting", "number": number, "sha": None, "checks": None,
                                  "line": f"auto-merge: bump PR #{number} not merged: its branch "
                                          f"{opened['branch']} is gone from origin"}
    assert not any(p.get("merged") for p in fake.pulls())


@pytest.mark.parametrize("method", ["squash", "rebase"])
def test_the_merge_method_asked_is_the_one_github_makes(world, git_remotes, cache_env, method):
    root, origin, fake = world
    opened = bump(root, deps=("plugin",))
    fake.add_check_run(opened["commit"], "build")
    done = bump(root, merge_method=method)
    assert done["auto_merge"]["action"] == "merged"
    main = tip(origin, "main")
    parents = git("rev-list", "--parents", "-n", "1", main, cwd=origin).split()[1:]
    assert len(parents) == 1 and parents[0] != opened["commit"]  # one commit on main, not a merge
    assert git("rev-parse", f"{main}^{{tree}}", cwd=origin) == git("rev-parse", f"{opened['commit']}^{{tree}}",
                                                                  cwd=origin)
    assert fake.violations == []


def test_the_stand_in_is_as_strict_as_github(world, github_client, tmp_path):
    root, origin, fake = world
    owner, name = fake.repo.split("/")
    with pytest.raises(GitHubError) as exc:
        github_client.create_pull(owner, name, title="t", head="bump/nowhere", base="main")
    assert exc.value.status == 422
    env = os.environ | PERSON
    git("push", "--quiet", "origin", "main:refs/heads/bump/x", cwd=root, env=env)
    clone = tmp_path / "c"
    git("clone", "--quiet", "-b", "bump/x", origin.as_uri(), clone, env=env)
    (clone / "f").write_text("x\n")
    git("add", "f", cwd=clone, env=env)
    git("commit", "--quiet", "-m", "x", cwd=clone, env=env)
    git("push", "--quiet", "origin", "bump/x", cwd=clone, env=env)
    head = git("rev-parse", "HEAD", cwd=clone).strip()
    pull = github_client.create_pull(owner, name, title="t", head="bump/x", base="main")
    assert pull["head"]["sha"] == head
    for sha, status in ((head, 405), ("0" * 40, 409)):  # no checks yet; then a wrong head
        if status == 409:
            fake.add_check_run(head, "build")
        with pytest.raises(GitHubError) as exc:
            github_client.merge_pull(owner, name, pull["number"], sha=sha)
        assert exc.value.status == status
    fake.add_check_run(head, "lint", conclusion="failure")
    with pytest.raises(GitHubError) as exc:
        github_client.merge_pull(owner, name, pull["number"], sha=head)
    assert exc.value.status == 405
    fake.add_check_run(head, "lint")
    assert github_client.merge_pull(owner, name, pull["number"], sha=head)["merged"] is True
    assert git("rev-parse", "main^2", cwd=origin).strip() == head
    assert fake.violations == []


def test_only_the_bump_pr_into_this_branch_is_merged(world, git_remotes, cache_env, github_client):
    """A maintenance line's bump PR into another base, newer and green, is not this run's to merge."""
    root, origin, fake = world
    opened = bump(root, deps=("plugin",))
    fake.add_check_run(opened["commit"], "build")
    git("branch", "release/0.9.1", "main", cwd=origin)
    owner, name = fake.repo.split("/")
    other = github_client.create_pull(owner, name, title="Roll plugin (0.9.1 line)", head=opened["branch"],
                                      base="release/0.9.1")
    line_before = tip(origin, "release/0.9.1")
    done = bump(root)
    assert done["auto_merge"]["number"] == opened["pull_request"]["number"] != other["number"]
    assert tip(origin, "release/0.9.1") == line_before
    assert [p["number"] for p in fake.pulls() if p.get("merged")] == [opened["pull_request"]["number"]]
