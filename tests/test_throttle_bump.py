"""The throttle through ``release bump``, ``release status`` and the dashboard's report, on the
GitHub stand-in: K red nightlies stop every write (roll, commit, push, PR, merge) with one line in
the output, changelog and step summary; a green nightly or a reviewed reset resumes; roller.yaml
is read as committed at HEAD; without a token the runs are not read and it rolls; unreadable runs
hold it. The rules themselves, over generated runs: tests/test_throttle.py."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from release.core.roller import parse_roller
from tests.support.gitrepos import git
from tests.test_automerge import world  # noqa: F401 (the fixture: checkout, origin, stand-in)
from tests.test_roller import commit_roller

DAY = dt.datetime(2026, 11, 1, 3, 23, tzinfo=dt.timezone.utc)


@pytest.fixture
def cache_env(tmp_path, monkeypatch):
    monkeypatch.setenv("JAX_ROCM_RELEASE_CACHE", str(tmp_path / "cache"))




def nights(fake, conclusions, start=DAY):
    """One nightly run a day from ``start``, oldest first."""
    return [fake.add_workflow_run(conclusion=c, created_at=start + dt.timedelta(days=i))
            for i, c in enumerate(conclusions)]


def bump(run_cli, root, tmp_path, *extra):
    code, out, err = run_cli("bump", "--auto-merge", "--json", "--root", root, "--date", "2026-11-22",
                             "--changelog", tmp_path / "changes.md", *extra)
    assert code == 0, err
    return json.loads(out), err


def bump_branches(root, origin):
    return (git("for-each-ref", "refs/heads/bump/", cwd=root) + git("for-each-ref", "refs/heads/bump/", cwd=origin))


def test_three_red_nights_stop_the_roller_and_a_green_one_resumes_it(world, run_cli, git_remotes, cache_env,  # noqa: F811
                                                                    tmp_path, monkeypatch):
    root, origin, fake = world
    commit_roller(root, "throttle_after_red: 3\n")
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    recorded = nights(fake, ["success", "failure", "cancelled", "failure", "failure"])
    fake.add_workflow_run(conclusion="success", branch="feature", created_at=DAY + dt.timedelta(days=9))
    data, _ = bump(run_cli, root, tmp_path)
    line = data["title"]
    assert data["changed"] is False and data["throttle"]["state"] == "throttled"
    assert line.startswith("throttle: 3 red nightlies in a row, the first #2 (2026-11-02, red: failure, "
                           "build failed in build / build pjrt wheel) ")
    assert recorded[1]["html_url"] in line and "throttle_reset_after: 5" in line
    assert line in summary.read_text()
    assert fake.pulls() == [] and bump_branches(root, origin) == "" and not (tmp_path / "changes.md").exists()

    nights(fake, ["success"], start=DAY + dt.timedelta(days=10))
    data, _ = bump(run_cli, root, tmp_path)
    assert data["changed"] is True and data["throttle"]["state"] == "clear"
    assert len(fake.pulls()) == 1
    assert "throttle: no red nightly since the last green #7 (2026-11-11, green: success); rolling" in \
        (tmp_path / "changes.md").read_text()


def test_a_reviewed_reset_resumes_and_an_uncommitted_one_does_not(world, run_cli, git_remotes, cache_env,  # noqa: F811
                                                                  tmp_path):
    root, origin, fake = world
    commit_roller(root, "throttle_after_red: 2\n")
    nights(fake, ["success", "failure", "timed_out"])
    (root / "roller.yaml").write_text("throttle_after_red: 2\nthrottle_reset_after: 3\n")
    data, err = bump(run_cli, root, tmp_path)
    assert data["throttle"]["state"] == "throttled" and fake.pulls() == []
    assert data["roller_warning"].startswith("roller.yaml: an uncommitted edit is ignored")
    assert err.count("warning: roller.yaml: an uncommitted edit is ignored") == 1
    git("commit", "--quiet", "-am", "reset the throttle after run 3", cwd=root)
    data, err = bump(run_cli, root, tmp_path)
    assert data["throttle"]["state"] == "clear" and len(fake.pulls()) == 1 and "warning" not in err
    assert "since roller.yaml's reset (throttle_reset_after: run #3)" in data["throttle"]["line"]


@pytest.mark.parametrize("committed, edited, rolls", [
    ("mode: running\n", "mode: stopped\n", True),
    ("mode: stopped\n", "mode: running\n", False),
    ("mode: stopped\n", None, False),      # deleted in the work tree only
    (None, "mode: stopped\n", True),       # never committed
])
def test_roller_yaml_is_read_as_committed(world, run_cli, git_remotes, cache_env, tmp_path,  # noqa: F811
                                          committed, edited, rolls):
    root, origin, fake = world
    if committed is not None:
        commit_roller(root, committed)
    if edited is None:
        (root / "roller.yaml").unlink()
    else:
        (root / "roller.yaml").write_text(edited)
    data, err = bump(run_cli, root, tmp_path)
    assert (len(fake.pulls()) == 1) == rolls
    assert err.count("warning: roller.yaml: an uncommitted edit is ignored") == 1


def test_without_a_token_the_runs_are_not_read_and_it_rolls(world, run_cli, git_remotes, cache_env,  # noqa: F811
                                                            tmp_path, monkeypatch):
    root, origin, fake = world
    commit_roller(root, "throttle_after_red: 1\n")
    nights(fake, ["failure"])
    monkeypatch.delenv("GITHUB_TOKEN")
    code, out, err = run_cli("bump", "--commit", "--json", "--root", root, "--date", "2026-11-22")
    assert code == 0, err
    data = json.loads(out)
    line = "throttle: nightly runs not read (GITHUB_TOKEN is not set): rolling without the throttle"
    assert data["throttle"]["state"] == "unchecked" and data["throttle"]["line"] == line
    assert line in git("log", "-1", "--format=%B", data["commit"], cwd=root)
    assert not any(entry[2].endswith("/runs") for entry in fake.log)


@pytest.mark.parametrize("status, when", [(403, "before"), (404, "before"), (200, "malformed")])
def test_unreadable_runs_hold_the_roller_in_one_line(world, run_cli, git_remotes, cache_env, tmp_path,  # noqa: F811
                                                     status, when):
    root, origin, fake = world
    commit_roller(root, "throttle_after_red: 2\n")
    nights(fake, ["success"])
    fake.fail("GET", r"/actions/workflows/[^/]+/runs$", status, when=when,
              message="Resource not accessible by integration")
    data, _ = bump(run_cli, root, tmp_path)
    assert data["throttle"]["state"] == "unreadable" and fake.pulls() == []
    assert data["title"].startswith("throttle: the nightly runs could not be read (GitHub API GET ")
    assert data["title"].endswith("not rolling until they can (the token needs actions: read)")
    assert fake.token not in json.dumps(data)


def test_a_throttled_roller_merges_nothing_and_a_clear_one_says_so_when_it_merges(world, run_cli, git_remotes,  # noqa: F811
                                                                                   cache_env, tmp_path, monkeypatch):
    root, origin, fake = world
    commit_roller(root, "throttle_after_red: 2\n")
    git("push", "--quiet", "origin", "main", cwd=root)
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    opened, _ = bump(run_cli, root, tmp_path, "--dep", "plugin")
    fake.add_check_run(opened["commit"], "build")  # the open bump PR is green
    nights(fake, ["failure", "failure"])
    held, _ = bump(run_cli, root, tmp_path)
    assert held["throttle"]["state"] == "throttled" and "auto_merge" not in held
    assert not any(p.get("merged") for p in fake.pulls())
    nights(fake, ["success"], start=DAY + dt.timedelta(days=5))
    summary.write_text("")
    done, _ = bump(run_cli, root, tmp_path)
    assert done["auto_merge"]["action"] == "merged" and done["throttle"]["state"] == "clear"
    text = summary.read_text()
    assert done["auto_merge"]["line"] in text and done["throttle"]["line"] in text


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
