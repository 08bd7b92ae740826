"""The record of nightly results is the nightly workflow's runs as GitHub keeps them: read newest
first through the client (pages asked only as consumed), only that workflow and branch, each
run's outcome green, red, neither or running by its conclusion; an answer that is not what
GitHub documents is one line, exit 3. The stand-in's answers are checked against GitHub's
description by the ``fake_github`` fixture."""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from release.core.errors import RemoteError
from release.sources import nightly_runs
from release.sources.nightly_runs import GREEN, NEITHER, RED, RUNNING, NightlyRun, iter_runs, recent_runs

OWNER, NAME = "rocm", "jax-rocm-release"
DAY = dt.datetime(2026, 11, 1, 3, 23, tzinfo=dt.timezone.utc)
GITHUB_CONCLUSIONS = ("success", "failure", "neutral", "cancelled", "skipped", "timed_out",
                      "action_required", "stale", "startup_failure")
STATUSES = ("queued", "in_progress", "completed", "waiting", "requested", "pending")


def record(fake, conclusions, *, workflow="nightly.yml", branch="main", start=DAY):
    """One run a day from ``start``, oldest first; returns them as recorded."""
    return [fake.add_workflow_run(workflow, conclusion=c, branch=branch, created_at=start + dt.timedelta(days=i))
            for i, c in enumerate(conclusions)]


def run_requests(fake):
    return [entry for entry in fake.log if entry[2].endswith("/runs")]


def test_runs_are_read_newest_first_across_pages_only_of_the_nightly_on_its_branch(fake_github, github_client):
    recorded = record(fake_github, ["success", "failure", "cancelled", "failure", "success"])
    record(fake_github, ["failure"] * 2, workflow="bump.yml")  # another workflow
    record(fake_github, ["success"], branch="feature")          # a nightly run on another branch
    record(fake_github, ["failure"], start=DAY + dt.timedelta(days=10))  # newest: on main
    runs = list(iter_runs(github_client, OWNER, NAME, branch="main", page_size=2))
    assert [r.run_number for r in runs] == [7, 5, 4, 3, 2, 1]
    assert [r.outcome for r in runs] == [RED, GREEN, RED, NEITHER, RED, GREEN]
    assert all(r.head_branch == "main" for r in runs)
    assert runs[1].html_url == recorded[4]["html_url"] and runs[1].created_at == DAY + dt.timedelta(days=4)
    assert len(run_requests(fake_github)) == 3  # six runs at two a page


def test_pages_are_asked_only_as_runs_are_consumed(fake_github, github_client):
    record(fake_github, ["success"] * 9)
    first = next(iter_runs(github_client, OWNER, NAME, page_size=3))
    assert first.run_number == 9 and len(run_requests(fake_github)) == 1
    assert [r.run_number for r in recent_runs(github_client, OWNER, NAME, 4)] == [9, 8, 7, 6]
    assert recent_runs(github_client, OWNER, NAME, 0) == []
    assert len(recent_runs(github_client, OWNER, NAME, 50)) == 9


def test_no_runs_yet_is_an_empty_record(fake_github, github_client):
    assert list(iter_runs(github_client, OWNER, NAME, branch="main")) == []


def test_a_running_run_is_running_until_it_completes(fake_github, github_client):
    run = fake_github.add_workflow_run(status="in_progress", created_at=DAY)
    assert next(iter_runs(github_client, OWNER, NAME)).outcome == RUNNING
    fake_github.update_workflow_run(run["id"], conclusion="failure")
    again = next(iter_runs(github_client, OWNER, NAME))
    assert (again.outcome, again.conclusion, again.run_number) == (RED, "failure", 1)


def test_the_status_filter_is_githubs(fake_github, github_client):
    record(fake_github, ["success", "failure", "cancelled", "failure"])
    red = list(iter_runs(github_client, OWNER, NAME, status="failure"))
    assert [r.run_number for r in red] == [4, 2]


@settings(max_examples=40)
@given(status=st.sampled_from(STATUSES),
       conclusion=st.one_of(st.none(), st.sampled_from(GITHUB_CONCLUSIONS), st.text(max_size=12)))
def test_outcome_follows_the_documented_rules(status, conclusion):
    run = NightlyRun(1, 1, status, conclusion, DAY, "https://github.com/o/r/actions/runs/1", "a" * 40)
    expected = (RUNNING if status != "completed" else GREEN if conclusion == "success" else
                RED if conclusion in ("failure", "timed_out", "startup_failure") else NEITHER)
    assert run.outcome == expected
    assert run.label() == f"#1 (2026-11-01, {expected}: {conclusion or status})"


@pytest.mark.parametrize("body, says", [
    (b'{"total_count": 1, "workflow_runs": [{"id": 1}]}', "run_number"),
    (b'{"total_count": 1, "workflow_runs": [{"id": 1, "run_number": 2, "status": "completed", '
     b'"conclusion": "failure", "created_at": "last tuesday", "html_url": "u", "head_sha": "s"}]}',
     "created_at"),
    (b'{"total_count": 1, "workflow_runs": {}}', "workflow_runs"),
    (b'[1, 2]', "expected an object"),
])
def test_an_answer_that_is_not_githubs_is_one_line_exit_3(fake_github, github_client, body, says):
    fake_github.add_workflow_run(created_at=DAY)
    fake_github.fail("GET", r"/actions/workflows/[^/]+/runs$", when="malformed", body=body)
    with pytest.raises(RemoteError) as exc:
        list(iter_runs(github_client, OWNER, NAME))
    assert says in str(exc.value) and "\n" not in str(exc.value) and exc.value.exit_code == 3


def test_a_rate_limit_is_waited_out_by_the_client(fake_github, github_client, fake_clock):
    record(fake_github, ["failure"])
    fake_github.rate_limit("GET", r"/actions/workflows/", kind="secondary", retry_after=42)
    assert [r.outcome for r in iter_runs(github_client, OWNER, NAME)] == [RED]
    assert fake_clock.sleeps == [42]


def test_the_workflow_is_named_by_file_or_id_and_an_unknown_id_is_refused(fake_github, github_client):
    from release.core.errors import UserError
    run = record(fake_github, ["success"])[0]
    by_id = list(iter_runs(github_client, OWNER, NAME, workflow=str(run["workflow_id"])))
    assert [r.id for r in by_id] == [run["id"]]
    with pytest.raises(UserError):
        list(iter_runs(github_client, OWNER, NAME, workflow="999999"))
    assert nightly_runs.NIGHTLY_WORKFLOW == "nightly.yml"


# ---------------------------------------------------------------- each run as GitHub gives it

moments = st.datetimes(min_value=dt.datetime(2020, 1, 1), max_value=dt.datetime(2040, 1, 1),
                       timezones=st.sampled_from([dt.timezone.utc, dt.timezone(dt.timedelta(hours=-7)),
                                                  dt.timezone(dt.timedelta(hours=5, minutes=30))]))
members = st.fixed_dictionaries({
    "id": st.integers(1, 2 ** 40), "run_number": st.integers(1, 10 ** 6),
    "status": st.one_of(st.none(), st.sampled_from(STATUSES)),
    "conclusion": st.one_of(st.none(), st.sampled_from(GITHUB_CONCLUSIONS)),
    "html_url": st.text(min_size=1, max_size=30), "head_sha": st.text(min_size=1, max_size=40),
    "event": st.one_of(st.sampled_from(["schedule", "workflow_dispatch"]), st.none(), st.integers()),
    "head_branch": st.one_of(st.none(), st.text(min_size=1, max_size=20), st.integers()),
})


@settings(max_examples=40)
@given(data=members, moment=moments, zulu=st.booleans())
def test_a_run_is_read_as_given_its_time_in_utc(local_zone_not_utc, data, moment, zulu):
    stamp = moment.astimezone(dt.timezone.utc).replace(microsecond=0)
    text = stamp.strftime("%Y-%m-%dT%H:%M:%SZ") if zulu else moment.replace(microsecond=0).isoformat()
    run = nightly_runs.run_from({**data, "created_at": text})
    shown = run.to_json()
    assert run.created_at == stamp and run.created_at.tzinfo == dt.timezone.utc
    assert shown["created_at"] == stamp.strftime("%Y-%m-%dT%H:%M:%SZ")
    for key in ("id", "run_number", "conclusion", "html_url", "head_sha"):
        assert shown[key] == data[key]
    assert shown["status"] == (data["status"] or "unknown")
    assert shown["event"] == (data["event"] if isinstance(data["event"], str) else "unknown")
    assert shown["head_branch"] == (data["head_branch"] if isinstance(data["head_branch"], str) else None)
    assert shown["outcome"] == run.outcome


@pytest.fixture
def local_zone_not_utc(monkeypatch):
    """The machine's zone is not UTC (a person's laptop): GitHub's times still read as UTC."""
    import time
    monkeypatch.setenv("TZ", "America/Denver")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def test_a_time_without_a_zone_is_utc(local_zone_not_utc):
    base = {"id": 1, "run_number": 1, "status": "completed", "conclusion": "success", "html_url": "u",
            "head_sha": "s"}
    assert nightly_runs.run_from({**base, "created_at": "2026-11-01T03:23:00"}).created_at == DAY


@pytest.mark.parametrize("member", ["id", "run_number", "status", "conclusion", "created_at", "html_url", "head_sha"])
def test_a_member_missing_or_of_another_type_is_named(member):
    from release.sources.github import MalformedAnswer
    good = {"id": 1, "run_number": 1, "status": "completed", "conclusion": "success",
            "created_at": "2026-11-01T03:23:00Z", "html_url": "u", "head_sha": "s"}
    missing = {k: v for k, v in good.items() if k != member}
    if member in ("status", "conclusion"):  # nullable: absent is null (a run not yet judged)
        assert nightly_runs.run_from(missing).outcome in (RUNNING, NEITHER)
    for bad in ((missing, {**good, member: [member]}) if member not in ("status", "conclusion")
                else ({**good, member: [member]},)):
        with pytest.raises(MalformedAnswer) as exc:
            nightly_runs.run_from(bad)
        assert str(exc.value).startswith("GitHub API workflow run: malformed answer: ")
        assert repr(member) in str(exc.value)
    with pytest.raises(MalformedAnswer) as exc:
        nightly_runs.run_from({**good, "created_at": "x" * 60})
    assert str(exc.value) == ("GitHub API workflow run: malformed answer: created_at " + repr("x" * 40)
                              + " is not an ISO 8601 time")


def test_recent_runs_ask_one_page_of_the_size_wanted_of_that_workflow_and_branch(fake_github, github_client):
    record(fake_github, ["success", "failure", "failure"])
    record(fake_github, ["failure"], branch="feature")
    record(fake_github, ["failure"], workflow="bisect.yml")
    runs = recent_runs(github_client, OWNER, NAME, 2, branch="main")
    assert [r.run_number for r in runs] == [3, 2] and all(r.head_branch == "main" for r in runs)
    queries = [dict(entry[3]) for entry in run_requests(fake_github)]
    assert queries == [{"per_page": "2", "exclude_pull_requests": "true", "branch": "main"}]
    assert [r.run_number for r in recent_runs(github_client, OWNER, NAME, 5, workflow="bisect.yml")] == [1]
    recent_runs(github_client, OWNER, NAME, 1)
    assert dict(run_requests(fake_github)[-1][3])["per_page"] == "1"
    recent_runs(github_client, OWNER, NAME, 250)
    assert dict(run_requests(fake_github)[-1][3])["per_page"] == "100"
