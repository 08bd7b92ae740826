"""The throttle, from its rules, over generated run sequences (fixed seed, small budget): K red
nightlies in a row stop rolling; a green run or a person's reset after them resumes it; runs that
are neither green nor red (cancelled, skipped, neutral, still running) never count and never end
a streak; fewer than K never stop. Then the same through ``release bump`` on the GitHub stand-in:
what a throttled bump leaves alone, the one line it says everywhere, and when the runs cannot be
read."""

from __future__ import annotations

import datetime as dt
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from release.core.roller import parse_roller
from release.sources.nightly_runs import GREEN, RED, NightlyRun
from release.sources.throttle import CLEAR, OFF, THROTTLED, decide
from tests.support.gitrepos import git
from tests.test_automerge import world  # noqa: F401 (the fixture: checkout, origin, stand-in)

DAY = dt.datetime(2026, 11, 1, 3, 23, tzinfo=dt.timezone.utc)
REDS = ("failure", "timed_out", "startup_failure")
NEITHER = ("cancelled", "skipped", "neutral", "stale", "action_required")
KINDS = ("success", *REDS, *NEITHER, "running")


def runs_of(kinds, newest_number=None):
    """Runs newest first from their kinds: run numbers count down, one a day back."""
    top = newest_number or len(kinds)
    out = []
    for i, kind in enumerate(kinds):
        status, conclusion = ("in_progress", None) if kind == "running" else ("completed", kind)
        out.append(NightlyRun(1000 + top - i, top - i, status, conclusion, DAY - dt.timedelta(days=i),
                              f"https://github.com/o/r/actions/runs/{1000 + top - i}", "a" * 40))
    return out


kinds = st.lists(st.sampled_from(KINDS), max_size=14)
limits = st.integers(min_value=1, max_value=5)
fillers = st.lists(st.sampled_from((*NEITHER, "running")), max_size=3)


def streak(runs):
    """Reds before the first green (an oracle by index, not by walking)."""
    green = next((i for i, r in enumerate(runs) if r.outcome == GREEN), len(runs))
    return [r for r in runs[:green] if r.outcome == RED]


@settings(max_examples=60)
@given(older=kinds, limit=limits, reds=st.lists(st.sampled_from(REDS), min_size=5, max_size=5),
       gaps=st.lists(fillers, min_size=5, max_size=5))
def test_k_reds_in_a_row_stop_rolling_whatever_came_before(older, limit, reds, gaps):
    newest = [kind for red, gap in zip(reds[:limit], gaps) for kind in (*gap, red)]
    runs = runs_of(newest + older)
    result = decide(runs, limit)
    assert result.state == THROTTLED and result.stops
    assert result.reds[:limit] == tuple(r for r in runs if r.outcome == RED)[:limit]


@settings(max_examples=60)
@given(runs=kinds.map(runs_of), limit=limits)
def test_the_decision_is_the_red_streak_up_to_the_last_green(runs, limit):
    result = decide(runs, limit)
    expected = streak(runs)
    assert list(result.reds) == expected
    assert result.state == (THROTTLED if len(expected) >= limit else CLEAR)
    assert result.stops == (len(expected) >= limit)
    line = result.line()
    assert line is not None and "\n" not in line and line.startswith("throttle: ")
    if expected:  # the count and the first red of the streak: its number, date and link
        first = expected[-1]
        assert f"{len(expected)} red nightl" in line
        assert f"#{first.run_number} ({first.created_at:%Y-%m-%d}" in line and first.html_url in line
    if result.stops:
        assert "until a nightly is green" in line
        assert f"throttle_reset_after: {expected[0].run_number}" in line
    else:
        assert line.endswith("rolling")


@settings(max_examples=60)
@given(after=st.lists(st.sampled_from((*REDS, *NEITHER, "running")), max_size=6), older=kinds,
       limit=limits, by_time=st.booleans())
def test_a_green_or_a_reset_after_the_reds_resumes(after, older, limit, by_time):
    """A green run newer than every counted red, or a reset at the newest red, lets it roll
    unless K reds came after that."""
    reds_before = [REDS[0]] * limit + older
    green = runs_of(after + ["success"] + reds_before)
    assert decide(green, limit).stops == (sum(k in REDS for k in after) >= limit)
    runs = runs_of(after + reds_before)
    boundary = runs[len(after)]  # the newest of the K reds: the reset names it
    reset = boundary.created_at if by_time else boundary.run_number
    result = decide(runs, limit, reset, "r")
    assert result.stops == (sum(k in REDS for k in after) >= limit)
    assert all(r.run_number > boundary.run_number for r in result.reds)
    if not result.reds:
        assert "since roller.yaml's reset (throttle_reset_after: r)" in (result.line() or "")


@settings(max_examples=60)
@given(runs=kinds, limit=limits, inserts=st.lists(st.tuples(st.integers(0, 14), st.sampled_from((*NEITHER, "running"))),
                                                   max_size=5))
def test_runs_neither_green_nor_red_never_count(runs, limit, inserts):
    more = list(runs)
    for where, kind in inserts:
        more.insert(min(where, len(more)), kind)
    plain, padded = decide(runs_of(runs), limit), decide(runs_of(more), limit)
    assert plain.stops == padded.stops
    assert [r.conclusion for r in plain.reds] == [r.conclusion for r in padded.reds]


@settings(max_examples=60)
@given(runs=kinds, limit=limits)
def test_fewer_than_k_reds_never_stop(runs, limit):
    reds_seen = 0
    capped = []
    for kind in runs:  # at most limit - 1 reds in the whole record
        if kind in REDS:
            if reds_seen == limit - 1:
                continue
            reds_seen += 1
        capped.append(kind)
    assert not decide(runs_of(capped), limit).stops


def test_k_is_counted_exactly_at_its_boundary():
    three = runs_of(["failure", "cancelled", "failure", "failure", "success"])
    assert decide(three, 3).stops and not decide(three, 4).stops
    assert not decide(runs_of(["failure", "failure", "success", "failure"]), 3).stops


def test_off_when_zero_and_bounded_reads_say_or_more():
    assert decide(runs_of(["failure"] * 5), 0).state == OFF and decide([], 0).line() is None
    long = decide(runs_of(["failure"] * 8), 3, max_read=5)
    assert long.stops and long.more and "5 or more red nightlies" in (long.line() or "")
    exact = decide(runs_of(["failure"] * 5), 3, max_read=5)
    assert not exact.more and "5 red nightlies" in (exact.line() or "")
    assert decide([], 3).line() == "throttle: no red nightly (no nightly run yet); rolling"


def test_a_reset_covers_runs_at_or_before_it_by_number_or_time():
    runs = runs_of(["failure", "failure", "failure", "success"])  # numbers 4, 3, 2, 1
    assert decide(runs, 2, 2).stops and not decide(runs, 2, 3).stops
    assert decide(runs, 2, runs[2].created_at - dt.timedelta(seconds=1)).stops
    assert not decide(runs, 2, runs[1].created_at).stops


@pytest.mark.parametrize("text, limit, reset", [
    ("throttle_after_red: 3\n", 3, None),
    ("throttle_after_red: 0\nthrottle_reset_after: 412\n", 0, "run #412"),
    ("throttle_after_red: 2\nthrottle_reset_after: 2026-11-24T06:00:00Z\n", 2, "2026-11-24T06:00:00Z"),
    ("throttle_reset_after: 2026-11-24T08:00:00+02:00\n", 0, "2026-11-24T06:00:00Z"),
    ("throttle_reset_after: '2026-11-24 06:00:00'\n", 0, "2026-11-24T06:00:00Z"),
])
def test_the_throttle_keys_of_roller_yaml(tmp_path, text, limit, reset):
    roller = parse_roller(tmp_path / "roller.yaml", text.encode())
    assert (roller.throttle_after_red, roller.reset_text()) == (limit, reset)


@pytest.mark.parametrize("text", ["throttle_after_red: -1", "throttle_after_red: true", "throttle_after_red: 2.5",
                                  "throttle_after_red: 101", "throttle_after_red: three",
                                  "throttle_reset_after: 2026-11-24", "throttle_reset_after: '2026-11-24'",
                                  "throttle_reset_after: 0", "throttle_reset_after: true",
                                  "throttle_reset_after: yesterday", "throttle_reset_after: [1]"])
def test_a_bad_throttle_key_is_one_line_naming_it(tmp_path, text):
    from release.core.errors import ConfigError
    with pytest.raises(ConfigError) as exc:
        parse_roller(tmp_path / "roller.yaml", text.encode())
    line = str(exc.value)
    assert "\n" not in line and "roller.yaml" in line and text.split(":")[0] in line


# ---------------------------------------------------------------- through release bump


@pytest.fixture
def cache_env(tmp_path, monkeypatch):
    monkeypatch.setenv("JAX_ROCM_RELEASE_CACHE", str(tmp_path / "cache"))


def commit_roller(root, text):
    (root / "roller.yaml").write_text(text)
    git("add", "roller.yaml", cwd=root)
    git("commit", "--quiet", "-m", "roller", cwd=root)


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
    assert line.startswith("throttle: 3 red nightlies in a row, the first #2 (2026-11-02, red: failure) ")
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
    from release.commands.dashboard import gather
    from release.core.config import load_project
    from release.sources.throttle import read
    root, origin, fake = world
    commit_roller(root, "throttle_after_red: 2\n")
    nights(fake, conclusions)
    owner, name = fake.repo.split("/")
    report = gather(load_project(root), github_client, owner, name, None)
    decided = read(parse_roller(root / "roller.yaml", b"throttle_after_red: 2\n"), github_client, owner, name,
                   branch="main")
    assert decided.state == state and shown in (decided.line() or "")
    assert report.throttle == (decided.line() or "").removeprefix("throttle: ")
