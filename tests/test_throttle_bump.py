"""The throttle through ``release bump``, ``release status`` and the dashboard's report, on the
GitHub stand-in: K red nightlies stop every write (roll, commit, push, PR, merge) with one line in
the output, changelog and step summary; a green nightly or a reviewed reset resumes; roller.yaml
is read as committed at HEAD; without a token the runs are not read and it rolls; unreadable runs
hold it. The rules themselves, over generated runs: tests/test_throttle.py."""

from __future__ import annotations

import datetime as dt
import json
import os
from pathlib import Path

import pytest

from release.core.roller import parse_roller
from tests.support import bumping
from tests.support.gitrepos import git
from tests.support.startup import run_probe
from tests.test_automerge import world  # noqa: F401 (the fixture: checkout, origin, stand-in)
from tests.test_roller import commit_roller

DAY = dt.datetime(2026, 11, 1, 3, 23, tzinfo=dt.timezone.utc)


@pytest.fixture
def cache_env(shared_git_cache, monkeypatch):
    monkeypatch.setenv("JAX_ROCM_RELEASE_CACHE", str(shared_git_cache))




def nights(fake, conclusions, start=DAY):
    """One nightly run a day from ``start``, oldest first."""
    return [fake.add_workflow_run(conclusion=c, created_at=start + dt.timedelta(days=i))
            for i, c in enumerate(conclusions)]


def bump(root, tmp_path, **asked):
    """The scheduled run (``--auto-merge --changelog``): its result and the lines it said."""
    said: list[str] = []
    result = bumping.bump(root, said=said, auto_merge=True, date=dt.date(2026, 11, 22),
                          changelog=tmp_path / "changes.md", **asked)
    return result, said


WARNED = "warning: roller.yaml: an uncommitted edit is ignored"


def bump_branches(root, origin):
    return (git("for-each-ref", "refs/heads/bump/", cwd=root) + git("for-each-ref", "refs/heads/bump/", cwd=origin))


def test_three_red_nights_stop_the_roller_and_a_green_one_resumes_it(world, git_remotes, cache_env,  # noqa: F811
                                                                    tmp_path):
    root, origin, fake = world
    commit_roller(root, "throttle_after_red: 3\n")
    recorded = nights(fake, ["success", "failure", "cancelled", "failure", "failure"])
    fake.add_workflow_run(conclusion="success", branch="feature", created_at=DAY + dt.timedelta(days=9))
    held, _ = bump(root, tmp_path)
    line = held.title
    assert held.changed is False and held.throttle["state"] == "throttled" and held.ended_by == "throttle"
    assert line.startswith("throttle: 3 red nightlies in a row, the first #2 (2026-11-02, red: failure, "
                           "build failed in build / build pjrt wheel) ")
    assert recorded[1]["html_url"] in line and "throttle_reset_after: 5" in line
    assert line in held.summary() and held.outputs() == {"changed": "false", "title": line}
    assert fake.pulls() == [] and bump_branches(root, origin) == "" and not (tmp_path / "changes.md").exists()

    nights(fake, ["success"], start=DAY + dt.timedelta(days=10))
    rolled, _ = bump(root, tmp_path)
    assert rolled.changed is True and rolled.throttle["state"] == "clear"
    assert len(fake.pulls()) == 1
    assert "throttle: no red nightly since the last green #7 (2026-11-11, green: success); rolling" in \
        (tmp_path / "changes.md").read_text()


def test_a_reviewed_reset_resumes_and_an_uncommitted_one_does_not(world, git_remotes, cache_env,  # noqa: F811
                                                                  tmp_path):
    root, origin, fake = world
    commit_roller(root, "throttle_after_red: 2\n")
    nights(fake, ["success", "failure", "timed_out"])
    (root / "roller.yaml").write_text("throttle_after_red: 2\nthrottle_reset_after: 3\n")
    held, said = bump(root, tmp_path)
    assert held.throttle["state"] == "throttled" and fake.pulls() == []
    assert held.roller_warning.startswith("roller.yaml: an uncommitted edit is ignored")
    assert [line.startswith(WARNED) for line in said] == [True]
    git("commit", "--quiet", "-am", "reset the throttle after run 3", cwd=root)
    rolled, said = bump(root, tmp_path)
    assert rolled.throttle["state"] == "clear" and len(fake.pulls()) == 1 and said == []
    assert "since roller.yaml's reset (throttle_reset_after: run #3)" in rolled.throttle["line"]


@pytest.mark.parametrize("committed, edited, rolls", [
    ("mode: running\n", "mode: stopped\n", True),
    ("mode: stopped\n", "mode: running\n", False),
    ("mode: stopped\n", None, False),      # deleted in the work tree only
    (None, "mode: stopped\n", True),       # never committed
])
def test_roller_yaml_is_read_as_committed(world, git_remotes, cache_env, tmp_path,  # noqa: F811
                                          committed, edited, rolls):
    root, origin, fake = world
    if committed is not None:
        commit_roller(root, committed)
    if edited is None:
        (root / "roller.yaml").unlink()
    else:
        (root / "roller.yaml").write_text(edited)
    _, said = bump(root, tmp_path)
    assert (len(fake.pulls()) == 1) == rolls
    assert [line.startswith(WARNED) for line in said] == [True]


def test_without_a_token_the_runs_are_not_read_and_it_rolls(world, git_remotes, cache_env,  # noqa: F811
                                                            tmp_path):
    root, origin, fake = world
    commit_roller(root, "throttle_after_red: 1\n")
    nights(fake, ["failure"])
    env = {key: value for key, value in os.environ.items() if key != "GITHUB_TOKEN"}  # the step's
    rolled = bumping.bump(root, env=env, commit=True, date=dt.date(2026, 11, 22))
    line = "throttle: nightly runs not read (GITHUB_TOKEN is not set): rolling without the throttle"
    assert rolled.throttle["state"] == "unchecked" and rolled.throttle["line"] == line
    assert line in git("log", "-1", "--format=%B", rolled.delivered["commit"], cwd=root)
    assert not any(entry[2].endswith("/runs") for entry in fake.log)


@pytest.mark.parametrize("status, when", [(403, "before"), (404, "before"), (200, "malformed")])
def test_unreadable_runs_hold_the_roller_in_one_line(world, git_remotes, cache_env, tmp_path,  # noqa: F811
                                                     status, when):
    root, origin, fake = world
    commit_roller(root, "throttle_after_red: 2\n")
    nights(fake, ["success"])
    fake.fail("GET", r"/actions/workflows/[^/]+/runs$", status, when=when,
              message="Resource not accessible by integration")
    held, _ = bump(root, tmp_path)
    assert held.throttle["state"] == "unreadable" and fake.pulls() == []
    assert held.title.startswith("throttle: the nightly runs could not be read (GitHub API GET ")
    assert held.title.endswith("not rolling until they can (the token needs actions: read)")
    assert fake.token not in json.dumps(held.to_json())


def test_a_throttled_roller_merges_nothing_and_a_clear_one_says_so_when_it_merges(world, git_remotes,  # noqa: F811
                                                                                   cache_env, tmp_path):
    root, origin, fake = world
    commit_roller(root, "throttle_after_red: 2\n")
    git("push", "--quiet", "origin", "main", cwd=root)
    opened, _ = bump(root, tmp_path, deps=("plugin",))
    fake.add_check_run(opened.delivered["commit"], "build")  # the open bump PR is green
    nights(fake, ["failure", "failure"])
    held, _ = bump(root, tmp_path)
    assert held.throttle["state"] == "throttled" and held.auto_merge is None
    assert not any(p.get("merged") for p in fake.pulls())
    nights(fake, ["success"], start=DAY + dt.timedelta(days=5))
    done, _ = bump(root, tmp_path)
    assert done.auto_merge["action"] == "merged" and done.throttle["state"] == "clear"
    assert done.said == (done.auto_merge["line"], done.throttle["line"])
    assert done.auto_merge["line"] in done.summary() and done.throttle["line"] in done.summary()
    assert done.outputs() == {"changed": "false", "title": done.auto_merge["line"], "merged": "true"}


# ---------------------------------------------------------------- what status and the dashboard show


def test_status_shows_the_throttle_as_set_without_asking_github(bump_project, run_cli):
    root = bump_project()
    (root / "roller.yaml").write_text("mode: dry-run\ncooldown_hours: 6\nthrottle_after_red: 3\n"
                                      "throttle_reset_after: 41\n")
    code, out, err = run_cli("status", "--offline", "--json", "--root", root)
    assert code == 0, err
    roller = json.loads(out)["roller"]
    assert (roller["mode"], roller["cooldown_hours"]) == ("dry-run", 6)
    assert roller["throttle"] == ("stops after 3 red nightlies in a row, reset after run #41; "
                                  "nightly runs not read (GitHub not asked)")
    (root / "roller.yaml").write_text("mode: running\n")
    code, out, err = run_cli("status", "--offline", "--json", "--root", root)
    assert json.loads(out)["roller"]["throttle"] is None


@pytest.mark.parametrize("conclusions, state, shown", [
    (["success", "failure", "failure"], "throttled", "2 red nightlies in a row, the first #2"),
    (["failure", "failure", "success"], "clear", "no red nightly since the last green #3"),
    (["failure", "cancelled"], "clear", "1 red nightly in a row, the first #1"),
])
def test_the_report_carries_the_same_decision_bump_makes(world, github_client, run_cli, cache_env,  # noqa: F811
                                                         conclusions, state, shown):
    from release.commands._common import now_utc
    from release.core.config import load_project
    from release.jobs.report import OnGitHub, ReportOptions, gather_report
    from release.sources.throttle import read
    root, origin, fake = world
    commit_roller(root, "throttle_after_red: 2\n")
    nights(fake, conclusions)
    owner, name = fake.repo.split("/")
    report = gather_report(load_project(root), ReportOptions(now_utc()), OnGitHub(github_client, owner, name),
                           None)
    decided = read(parse_roller(root / "roller.yaml", b"throttle_after_red: 2\n"), github_client, owner, name,
                   branch="main")
    assert decided.state == state and shown in (decided.line() or "")
    assert report.throttle == (decided.line() or "").removeprefix("throttle: ")


def test_the_runs_are_read_with_the_environment_given(github_env, monkeypatch):
    """A step's environment, not the process's: its token and API reach GitHub, the process's don't."""
    import os

    from release.sources.throttle import CLEAR, THROTTLED, check
    fake = github_env
    nights(fake, ["failure", "failure"])
    given = {k: os.environ[k] for k in ("GITHUB_API_URL", "GITHUB_TOKEN", "GITHUB_REPOSITORY")}
    monkeypatch.setenv("GITHUB_TOKEN", "not-the-steps-token")
    monkeypatch.setenv("GITHUB_API_URL", "http://127.0.0.1:9")  # nothing listens there
    roller = parse_roller(Path("roller.yaml"), b"throttle_after_red: 2\n")
    got = check(roller, branch=None, env=given)
    assert got.state == THROTTLED and got.read == 2, got
    assert check(parse_roller(Path("roller.yaml"), b"throttle_after_red: 3\n"),
                 branch=None, env=given).state == CLEAR


@pytest.mark.parametrize("throttle", ["", "throttle_after_red: 3\n"])
def test_a_warm_bump_with_nothing_moved_asks_the_throttle_nothing_it_cannot_use(
        bump_project, git_remotes, tmp_path, throttle):
    """Issue 36: the next day's bump, nothing moved upstream, under a second. The throttle that is
    off, or cannot ask GitHub (no token), does not look up the checked-out branch (GitPython) or
    load the GitHub client nor the runs' reader (nightly_runs, shapes); with --json nothing draws,
    so rich is not loaded; the mirrors' lock is not the filelock package. Each run of the roller is
    still the bump it was: pins current."""
    c = git_remotes.c
    root = bump_project(commits={"plugin": c["P2"], "jax": c["J4"], "xla": c["Y_TIP"]})
    if throttle:
        (root / "roller.yaml").write_text(throttle)
    env = {k: v for k, v in os.environ.items() if k not in ("GITHUB_TOKEN", "GITHUB_REPOSITORY")}
    env["JAX_ROCM_RELEASE_CACHE"] = str(tmp_path / "cache")
    for day in ("cold", "warm"):
        proc, modules = run_probe("bump", "--root", str(root), "--json", env=env, cwd=root)
        result = json.loads(proc.stdout)
        assert result["changed"] is False, (day, proc.stdout)
        loaded = sorted({m for m in modules if m.split(".")[0] in ("git", "rich", "filelock", "requests")}
                        | {m for m in modules if m in ("release.sources.github", "release.sources.nightly_runs",
                                                       "release.sources.shapes")})
        assert loaded == [], (day, loaded)


def test_the_checked_out_branch_is_the_one_git_names(tmp_path):
    """The throttle reads the nightly runs of the branch checked out (the bump PR's base): its
    full name (also when a tag is named the same), None on a detached HEAD or outside a checkout,
    from any directory below the top; as GitPython's ReleaseRepo names it."""
    from release.sources.repo import ReleaseRepo, checked_out_branch
    root = tmp_path / "checkout"
    root.mkdir()
    git("init", "--quiet", "-b", "main", cwd=root)
    assert checked_out_branch(root) == "main" == ReleaseRepo(root).current_branch()  # before a commit too
    (root / "sub").mkdir()
    (root / "sub" / "f").write_text("x\n")
    git("add", "-A", cwd=root)
    git("-c", "user.name=a", "-c", "user.email=a@example.com", "commit", "--quiet", "-m", "one", cwd=root)
    for branch in ("main", "release/0.9", "heads/odd"):
        if branch != "main":
            git("checkout", "--quiet", "-b", branch, cwd=root)
        git("tag", "-f", branch, cwd=root)  # a tag named as the branch
        assert checked_out_branch(root) == branch == ReleaseRepo(root).current_branch()
        assert checked_out_branch(root / "sub") == branch
    git("checkout", "--quiet", "main", cwd=root)  # tagged "main" too, above
    assert checked_out_branch(root) == "main"
    git("checkout", "--quiet", "--detach", cwd=root)
    assert checked_out_branch(root) is None
    assert checked_out_branch(tmp_path) is None and checked_out_branch(tmp_path / "nowhere") is None
