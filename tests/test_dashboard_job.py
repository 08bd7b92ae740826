"""``release dashboard``'s job (release.jobs.dashboard) at unit level: what it gathers, how a
workflow run names itself, the bisect line's bound and the JSON it prints. The whole flow on the
GitHub stand-in is tests/test_dashboard.py; these run in milliseconds.
"""

from __future__ import annotations

import datetime as dt

import pytest

from release.core.errors import UserError
from release.core.roller_report import Report
from release.jobs import dashboard as job
from release.jobs.report import ReportOptions
from release.sources.dashboard import IssueResult

NOW = dt.datetime(2026, 11, 22, 3, tzinfo=dt.timezone.utc)


class Gathered(Exception):
    """Raised by the stand-in gatherer: what write_dashboard asked for, and nothing sent."""


@pytest.mark.parametrize("fetch, merged", [(False, False), (True, False), (False, True)])
def test_the_dashboard_gathers_the_pins_merged_on_the_base_branch_fetched_from_the_given_store(
        monkeypatch, fetch, merged):
    """A bump merged in its own job is shown (``merged``) and a pin the cache lacks is fetched
    for its time (``fetch``), whatever the options said; the store asked is the one given."""
    asked = []

    def gather(project, options, github, store):
        asked.append((options, store))
        raise Gathered

    monkeypatch.setattr(job, "gather_report", gather)
    store = object()
    options = ReportOptions(NOW, base="release", fetch=fetch, merged=merged, bisect="not run")
    with pytest.raises(Gathered):
        job.write_dashboard(object(), job.DashboardOptions(options), object(), store)  # type: ignore[arg-type]
    (got, got_store), = asked
    assert got.fetch is True and got.merged is True and got_store is store
    assert (got.now, got.base, got.bisect) == (NOW, "release", "not run")


def test_a_conclusion_without_a_run_id_is_one_line_saying_what_was_found(monkeypatch):
    for env, shown in [({}, "''"), ({"GITHUB_RUN_ID": "12a"}, "'12a'"), ({"GITHUB_RUN_ID": ""}, "''")]:
        with pytest.raises(UserError) as caught:
            job.this_run("failure", env)
        assert str(caught.value).endswith(f"it is {shown}") and "\n" not in str(caught.value)
    assert job.this_run("success", {"GITHUB_RUN_ID": "0042"}) == (42, "success")


@pytest.mark.parametrize("length", [299, 300, 301, 1000])
def test_the_bisect_line_is_at_most_300_characters(length):
    said = ("x" * length)
    assert job.bisect_line("failure", said) == "x" * min(length, 300)


def result() -> job.DashboardResult:
    return job.DashboardResult(Report(NOW, "running", 0, None, ()), "the body\n", IssueResult("edited", 7))


def test_the_json_carries_the_body_only_when_asked():
    """A dry run asks for it (it sends nothing: the body is what it would send)."""
    data = result().to_json()
    assert set(data) == {"issue", "line", "report"} and data["line"] == "dashboard issue #7 edited"
    assert data["issue"]["number"] == 7 and data["report"] == result().report.to_json()
    assert result().to_json(with_body=False) == data
    assert result().to_json(with_body=True) == data | {"body": "the body\n"}
