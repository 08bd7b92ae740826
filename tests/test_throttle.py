"""The throttle, from its rules, over generated run sequences (fixed seed, small budget): K red
nightlies in a row stop rolling; a green run or a person's reset after them resumes it; runs that
are neither green nor red (cancelled, skipped, neutral, still running) never count and never end
a streak; fewer than K never stop. Then the same through ``release bump`` on the GitHub stand-in:
what a throttled bump leaves alone, the one line it says everywhere, and when the runs cannot be
read."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from release.core.roller import parse_roller
from release.sources.nightly_runs import GREEN, RED, NightlyRun
from release.sources.throttle import CLEAR, OFF, THROTTLED, decide, not_asked

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


def test_what_it_is_set_to_when_github_is_not_asked(tmp_path):
    def roller(text):
        return parse_roller(tmp_path / "roller.yaml", text.encode())
    assert not_asked(roller("mode: running\n")) is None
    assert not_asked(roller("throttle_after_red: 2\n")) == ("throttle: stops after 2 red nightlies in a row; "
                                                             "nightly runs not read (GitHub not asked)")


U = "https://github.com/o/r/actions/runs/"


@pytest.mark.parametrize("kinds, limit, reset, line", [
    (["failure", "success"], 3, None,
     f"throttle: 1 red nightly in a row, the first #2 (2026-11-01, red: failure) {U}1002 (stops at 3); rolling"),
    (["timed_out", "cancelled", "failure", "success"], 2, None,
     f"throttle: 2 red nightlies in a row, the first #2 (2026-10-30, red: failure) {U}1002 (limit 2): not rolling "
     "until a nightly is green or a reviewed commit sets roller.yaml throttle_reset_after: 4"),
    (["cancelled", "success", "failure"], 1, None,
     "throttle: no red nightly since the last green #2 (2026-10-31, green: success); rolling"),
    (["cancelled", "failure", "success"], 1, 2,
     "throttle: no red nightly since roller.yaml's reset (throttle_reset_after: R); rolling"),
    (["cancelled"], 1, None, "throttle: no red nightly in the 1 run read; rolling"),
    (["cancelled", "running"], 1, None, "throttle: no red nightly in the 2 runs read; rolling"),
])
def test_each_decision_reads_as_one_exact_line(kinds, limit, reset, line):
    assert decide(runs_of(kinds), limit, reset, "R" if reset else None).line() == line


def test_the_json_says_what_the_line_says():
    runs = runs_of(["failure", "cancelled", "success"])
    data = decide(runs, 1, None, None).to_json()
    assert (data["state"], data["limit"], data["stops"], data["more"], data["at_reset"]) == ("throttled", 1, True,
                                                                                          False, False)
    assert [r["run_number"] for r in data["reds"]] == [3] and data["ended_by"]["run_number"] == 1
    assert decide(runs, 2, 1, "run #1").to_json()["at_reset"] is True  # the reset covers the green #1 first
    older = decide(runs_of(["failure", "success", "failure", "failure"]), 2, 1, "run #1").to_json()
    assert (older["reset"], older["at_reset"], older["ended_by"]["run_number"]) == ("run #1", False, 3)
    off = decide(runs, 0, 5, "run #5").to_json()
    assert off == {"state": "off", "limit": 0, "stops": False, "line": None, "reds": [], "more": False,
                   "ended_by": None, "at_reset": False, "reset": "run #5", "why": None}


@pytest.mark.parametrize("text, line", [
    ("throttle_after_red: 1\n",
     "throttle: stops after 1 red nightly in a row; nightly runs not read (GitHub not asked)"),
    ("throttle_after_red: 1\nthrottle_reset_after: 7\n",
     "throttle: stops after 1 red nightly in a row, reset after run #7; nightly runs not read (GitHub not asked)"),
])
def test_not_asked_says_what_it_is_set_to(tmp_path, text, line):
    assert not_asked(parse_roller(tmp_path / "roller.yaml", text.encode())) == line


# ------------------------------------------------------------------ where the runs come from

class _Client:
    """A client whose runs are ``pages`` (lists of GitHub run objects), or an error."""

    def __init__(self, pages=(), error=None, jobs=None):
        self.pages, self.error, self.asked, self.jobs = list(pages), error, [], jobs or {}

    def paginate(self, path, params, key):
        self.asked.append((path, dict(params)))
        if self.error:
            raise self.error
        if key == "jobs":   # a run's jobs: by default a wheel cell whose build failed
            yield from self.jobs.get(int(path.split("/")[-2]), [_job("build / build pjrt wheel", "failure", [
                ("scripts/build-wheel.sh build (no credentials)", "failure")])])
            return
        for page in self.pages:
            yield from page


def _job(name, conclusion, steps):
    return {"name": name, "conclusion": conclusion,
            "steps": [{"name": n, "conclusion": c} for n, c in steps]}


def _roller(text):
    return parse_roller(Path("roller.yaml"), text.encode())


def test_the_throttle_off_asks_nothing_and_says_nothing():
    from release.sources.throttle import Throttle, check, read
    for text in ("mode: running\n", "throttle_after_red: 0\nthrottle_reset_after: 415\n"):
        roller = _roller(text)
        want = Throttle(0, OFF, reset=roller.reset_text())
        assert check(roller, branch="main", env={"GITHUB_TOKEN": "t", "GITHUB_REPOSITORY": "o/r"}) == want
        client = _Client()
        assert read(roller, client, "o", "r", branch="main") == want and client.asked == []
        assert want.line() is None and not want.stops


@pytest.mark.parametrize("env, why", [
    ({}, "GITHUB_TOKEN is not set"),
    ({"GITHUB_REPOSITORY": "o/r"}, "GITHUB_TOKEN is not set"),
    ({"GITHUB_TOKEN": "t"}, "GITHUB_REPOSITORY is not set to owner/name"),
    ({"GITHUB_TOKEN": "t", "GITHUB_REPOSITORY": "o"}, "GITHUB_REPOSITORY is not set to owner/name"),
    ({"GITHUB_TOKEN": "t", "GITHUB_REPOSITORY": "o/"}, "GITHUB_REPOSITORY is not set to owner/name"),
    ({"GITHUB_TOKEN": "t", "GITHUB_REPOSITORY": "/r"}, "GITHUB_REPOSITORY is not set to owner/name"),
    ({"GITHUB_TOKEN": "t", "GITHUB_REPOSITORY": "o/r/x"}, "GITHUB_REPOSITORY is not set to owner/name"),
], ids=["nothing", "no-token", "no-repository", "owner-only", "no-name", "no-owner", "three-parts"])
def test_runs_not_asked_for_leave_the_roller_rolling_and_say_why(monkeypatch, env, why):
    """The environment given is the one read (not the process's), and what is missing is named."""
    from release.sources.throttle import UNCHECKED, Throttle, check
    monkeypatch.setenv("GITHUB_TOKEN", "from-the-process")
    monkeypatch.setenv("GITHUB_REPOSITORY", "process/repo")
    roller = _roller("throttle_after_red: 3\nthrottle_reset_after: 415\n")
    got = check(roller, branch="main", env=env)
    assert got == Throttle(3, UNCHECKED, reset="run #415", why=why)
    assert got.line() == f"throttle: nightly runs not read ({why}): rolling without the throttle"
    assert not got.stops


def test_runs_github_will_not_give_hold_the_roller_saying_why():
    from release.sources.github import GitHubError
    from release.sources.throttle import UNREADABLE, Throttle, read
    roller = _roller("throttle_after_red: 1\nthrottle_reset_after: 2026-11-24T06:00:00Z\n")
    client = _Client(error=GitHubError("GET", "/repos/o/r/actions/workflows/nightly.yml/runs", 403,
                                       "Resource not accessible by integration"))
    got = read(roller, client, "o", "r", branch="main")
    assert (got.limit, got.state, got.reset) == (1, UNREADABLE, "2026-11-24T06:00:00Z") and got.stops
    assert got == Throttle(1, UNREADABLE, reset="2026-11-24T06:00:00Z", why=got.why)
    assert "403" in got.why and "Resource not accessible" in got.why
    assert client.asked == [("/repos/o/r/actions/workflows/nightly.yml/runs",
                             {"per_page": 20, "exclude_pull_requests": "true", "branch": "main"})]


def test_one_red_is_enough_when_the_limit_is_one():
    from release.sources.throttle import read
    roller = _roller("throttle_after_red: 1\n")
    run = {"id": 7, "run_number": 7, "status": "completed", "conclusion": "failure",
           "created_at": "2026-11-22T03:00:00Z", "html_url": "https://github.com/o/r/actions/runs/7",
           "head_sha": "a" * 40}
    got = read(roller, _Client([[run]]), "o", "r", branch="main")
    assert got.state == THROTTLED and [r.run_number for r in got.reds] == [7] and got.read == 1


# --- what a failed nightly counts as: only its gates (build, verify, validate, smoke) ----------

PLAN = _job("plan and create the draft", "success", [("scripts/nightly.sh plan", "success")])
BUILD_STEP = "scripts/build-wheel.sh build (no credentials)"
FINISH_OK = _job("validate, publish, gc", "success", [("scripts/nightly.sh finish", "success")])


@pytest.mark.parametrize("jobs, outcome, why", [
    ([PLAN, _job("build / build 3.12 wheel", "failure", [(BUILD_STEP, "failure")])],
     RED, "build failed in build / build 3.12 wheel"),
    ([PLAN, _job("build / attest and upload pjrt wheel", "failure", [("verify before attesting", "failure")])],
     RED, "verify failed in build / attest and upload pjrt wheel"),
    ([PLAN, _job("ROCm smoke test (the plugin registers)", "failure", [("scripts/smoke.sh", "failure")])],
     RED, "smoke failed in ROCm smoke test (the plugin registers)"),
    ([PLAN, _job("validate, publish, gc", "failure", [("scripts/nightly.sh finish", "failure")])],
     RED, "validate failed in validate, publish, gc"),
    # the build timed out in its step: GitHub cancels the step and fails the job
    ([PLAN, _job("build / build pjrt wheel", "timed_out", [(BUILD_STEP, "cancelled")])],
     RED, "build failed in build / build pjrt wheel"),
    # published, then Pages, the index or the dashboard failed: the pins were fine
    ([PLAN, FINISH_OK, _job("deploy the index to GitHub Pages", "failure", [("actions/deploy-pages", "failure")])],
     GREEN, "published; only a later job failed"),
    ([PLAN, FINISH_OK, _job("the dashboard issue", "failure", [("scripts/dashboard.sh", "failure")])],
     GREEN, "published; only a later job failed"),
    # the plan refused (a same-day dispatch), an upload flaked, a cell never got a runner
    ([_job("plan and create the draft", "failure", [("scripts/nightly.sh plan", "failure")])],
     "neither", "no gate failed (build, verify, validate, smoke)"),
    ([PLAN, _job("build / attest and upload 3.12 wheel", "failure", [("verify before attesting", "success"),
                                                                    ("scripts/build-wheel.sh upload", "failure")])],
     "neither", "no gate failed (build, verify, validate, smoke)"),
    ([PLAN, _job("build / build 3.13 wheel", "cancelled", [(BUILD_STEP, None)])],
     "neither", "no gate failed (build, verify, validate, smoke)"),
    ([], "neither", "no gate failed (build, verify, validate, smoke)"),
])
def test_a_failed_nightly_is_red_only_when_a_gate_failed(jobs, outcome, why):
    from release.sources.nightly_runs import judge_failed
    assert judge_failed(jobs) == (outcome, why)


def test_failures_outside_the_gates_neither_count_nor_hide_a_streak():
    """Newest first: a red Pages night after publishing (green: ends the streak), so the two
    build reds before it do not stop the roller; a refused dispatch passes over, not ending."""
    from release.sources.throttle import read
    def run(n):
        return {"id": n, "run_number": n, "status": "completed", "conclusion": "failure",
                "created_at": f"2026-11-{n:02d}T03:23:00Z", "html_url": f"{U}{n}", "head_sha": "a" * 40}
    refused = [_job("plan and create the draft", "failure", [("scripts/nightly.sh plan", "failure")])]
    pages = [PLAN, FINISH_OK, _job("deploy the index to GitHub Pages", "failure", [("deploy", "failure")])]
    roller = _roller("throttle_after_red: 2\n")
    got = read(roller, _Client([[run(9), run(8), run(7), run(6)]], jobs={9: refused, 8: pages}), "o", "r",
               branch="main")
    assert got.state == CLEAR and got.reds == () and got.ended_by.run_number == 8
    assert got.line() == ("throttle: no red nightly since the last green #8 (2026-11-08, green: failure, "
                          "published; only a later job failed); rolling")
    got = read(roller, _Client([[run(9), run(7), run(6)]], jobs={9: refused}), "o", "r", branch="main")
    assert got.state == THROTTLED and [r.run_number for r in got.reds] == [7, 6]
    assert "#6 (2026-11-06, red: failure, build failed in build / build pjrt wheel)" in got.line()


def test_the_gates_are_steps_the_nightly_runs():
    """GATE_STEPS names steps of a line's nightly (nightly-line.yml) and the build matrix it calls, so a renamed step
    cannot silently stop counting."""
    import yaml

    from release.sources.nightly_runs import GATE_STEPS, PUBLISHING_STEP
    root = Path(__file__).resolve().parents[1] / ".github" / "workflows"
    names = {step.get("name") for f in ("nightly-line.yml", "build-wheels.yml")
             for job in yaml.safe_load((root / f).read_text())["jobs"].values() for step in job.get("steps", [])}
    assert set(GATE_STEPS) <= names and PUBLISHING_STEP in names
    assert sorted(set(GATE_STEPS.values())) == ["build", "smoke", "validate", "verify"]


def test_the_jobs_are_read_from_github_as_it_answers(fake_github, github_client):
    """Through the stand-in checked against GitHub's description: a red run's jobs are asked
    for (the latest attempt) and judged."""
    from release.sources.nightly_runs import iter_runs, with_gates
    fake_github.add_workflow_run(conclusion="failure", jobs=[
        ("plan and create the draft", "success", [("scripts/nightly.sh plan", "success")]),
        ("validate, publish, gc", "success", [("scripts/nightly.sh finish", "success")]),
        ("the dashboard issue", "failure", [("scripts/dashboard.sh", "failure")])])
    fake_github.add_workflow_run(conclusion="failure")
    owner, name = fake_github.repo.split("/")
    got = list(with_gates(github_client, owner, name, iter_runs(github_client, owner, name)))
    assert [(r.run_number, r.outcome) for r in got] == [(2, RED), (1, GREEN)]
    asked = [e for e in fake_github.log if e[2].endswith("/jobs")]
    assert len(asked) == 2 and all("latest" in str(e[3]) for e in asked)
