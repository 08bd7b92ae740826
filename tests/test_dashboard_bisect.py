"""The dashboard says why this nightly's bisect did or did not run (issue 34 item 3): the bisect
job's plan says it in one line (its ``said`` output), nightly.yml hands that line and the job's
result to the dashboard job, and the issue shows it under the roller's headline."""

from __future__ import annotations

import datetime as dt
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from release.core import roller_report
from release.core.roller_report import Report
from release.jobs.bisect_plan import AfterRed, BisectPlan
from release.jobs.dashboard import bisect_line
from tests.support.actions_runner import JobResult, Runner, load_workflow, substitute
from tests.test_workflows import WORKFLOWS

NOW = dt.datetime(2026, 11, 20, 6, 0, tzinfo=dt.timezone.utc)
NIGHTLY = load_workflow(next(p for p in WORKFLOWS if p.name == "nightly.yml"))["jobs"]
LINE = load_workflow(next(p for p in WORKFLOWS if p.name == "nightly-line.yml"))["jobs"]
BAD = {"name": "deps.yaml at abc1234", "commit": "abc1234" + "0" * 33, "commits": {}}


@pytest.mark.parametrize("why", [
    "not bisecting: run 7 has smoke failed in smoke 3.12, so no probe would fail again",
    "nothing to do: plugin 1234567, between a and b, is already the culprit (hold PR #12)",
])
def test_a_plan_that_starts_nothing_says_not_run_and_why(why):
    plan = BisectPlan(AfterRed(False, why, bad=BAD), BAD)
    assert plan.outputs()["said"] == f"not run: {why}" and plan.outputs()["bisect"] == "false"


def test_a_plan_that_starts_a_bisect_says_started_and_its_range():
    why = "bisect rocm-jax-v0.9.1.dev20261119..deps.yaml at abc1234: the last green nightly and the red one's pins"
    plan = BisectPlan(AfterRed(True, why, bad=BAD), BAD, {"workflow": "bisect.yml", "ref": "main", "inputs": {}})
    assert plan.outputs()["said"] == f"started bisect.yml: {why}"


def test_the_plans_line_stays_one_line():
    plan = BisectPlan(AfterRed(False, "a\nb\x1b[31m", bad=BAD), BAD)
    assert "\n" not in plan.outputs()["said"] and "\x1b" not in plan.outputs()["said"]


@pytest.mark.parametrize("job, said, shown", [
    ("success", "not run: nothing to bisect", "not run: nothing to bisect"),
    ("failure", "started bisect.yml: bisect a..b", "started bisect.yml: bisect a..b"),
    ("failure", "", "not decided: the bisect job failed before its plan said"),
    ("cancelled", "  ", "not decided: the bisect job was cancelled before its plan said"),
    ("skipped", "", None),   # a green night: no bisect job, nothing said
    ("", "", None),          # not a nightly (the bump workflow's dashboard)
])
def test_the_dashboard_line_comes_from_the_bisect_job(job, said, shown):
    assert bisect_line(job, said) == shown


@pytest.mark.parametrize("bisect", ["not run: the failure was in smoke", None])
def test_the_issue_shows_the_line_under_the_headline_and_only_when_said(bisect):
    report = Report(NOW, "running", 0, None, (), bisect=bisect)
    body = roller_report.markdown(report).splitlines()
    text = roller_report.text(report)
    if bisect is None:
        assert not any(line.startswith("bisect:") for line in body + text)
        return
    head = body.index(next(line for line in body if line.startswith("mode ")))
    assert body[head + 2] == f"bisect: {bisect}" and f"bisect: {bisect}" in text
    assert report.to_json()["bisect"] == bisect


@pytest.mark.parametrize("decided, said", [
    ("not run: smoke failed", "release/0.10: not run: smoke failed"),
    ("", "release/0.10: not decided, the bisect job failed before its plan said"),   # failed before it said
])
def test_a_lines_bisect_job_says_its_line_and_its_plans_words(tmp_path, decided, said):
    """The line's bisect job's output names the line, then its plan's line (or that it failed
    before saying), and the called workflow hands it to nightly.yml."""
    assert any(s.get("id") == "decide" and s["run"].startswith("scripts/bisect.sh plan")
               for s in LINE["bisect"]["steps"])
    run = Runner(tmp_path / "origin.git", tmp_path / "run", {}, now="2026-11-20T03:23:00Z", sha="a" * 40)
    ctx = run.context({"line": "release/0.10"}, None, {"decide": {"outputs": {"said": decided}}}, LINE["bisect"])
    assert substitute(LINE["bisect"]["outputs"]["said"], ctx) == said
    from tests.test_workflows import workflow
    outputs = workflow("nightly-line.yml")["on"]["workflow_call"]["outputs"]
    assert outputs["said"]["value"] == "${{ jobs.bisect.outputs.said }}"


@pytest.mark.parametrize("outputs, job, said", [
    ({"said": "main: not run: smoke failed"}, "success", "main: not run: smoke failed"),
    ({"said": ""}, "skipped", ""),       # no line's bisect job ran (every line green)
    ({}, "skipped", ""),
])
def test_nightly_hands_the_bisect_line_to_the_dashboard(tmp_path, outputs, job, said):
    """On the Actions stand-in: the dashboard job's step gets the line through the matrix call's
    output (a bisect job that ran always says something), the job's result from it."""
    run = Runner(tmp_path / "origin.git", tmp_path / "run", {}, now="2026-11-20T03:23:00Z", sha="a" * 40)
    run.jobs["nightly"] = JobResult("failure" if said else "success", outputs)
    [step] = [s for s in NIGHTLY["dashboard"]["steps"] if "DASHBOARD_BISECT" in (s.get("env") or {})]
    ctx = run.context({}, None, {}, NIGHTLY["dashboard"])
    assert substitute(step["env"]["DASHBOARD_BISECT_JOB"], ctx) == job
    assert substitute(step["env"]["DASHBOARD_BISECT"], ctx) == said


def test_dashboard_sh_passes_the_bisect_job_and_line(tmp_path):
    from tests.test_workflow_rules import release_argvs
    (argv,) = release_argvs(tmp_path / "a", ["dashboard.sh"], DASHBOARD_BISECT_JOB="failure",
                            DASHBOARD_BISECT="not run: smoke failed")
    assert argv[argv.index("--bisect-job") + 1] == "failure"
    assert argv[argv.index("--bisect-said") + 1] == "not run: smoke failed"
    (plain,) = release_argvs(tmp_path / "b", ["dashboard.sh"])
    assert "--bisect-job" not in plain and "--bisect-said" not in plain


# ------------------------------------------------------------------ kept by a writer that says nothing

@given(st.text(min_size=1, max_size=80))
def test_the_bisect_line_reads_back_from_the_body_as_the_words_it_was_given(said):
    """Whatever the plan said (upstream text: Markdown, HTML, pings, controls), the body's line
    reads back as those words, so keeping it rewrites the same body."""
    shown = bisect_line("failure", said)
    body = roller_report.markdown(Report(NOW, "running", 0, None, (), bisect=shown))
    kept = roller_report.bisect_of(body)
    assert kept == (shown.strip() if shown and shown.strip() else None)
    assert roller_report.markdown(Report(NOW, "running", 0, None, (), bisect=kept)) == body


def test_a_body_without_a_bisect_line_keeps_none():
    assert roller_report.bisect_of(roller_report.markdown(Report(NOW, "running", 0, None, ()))) is None


@pytest.fixture
def dash(bump_project, github_env, tmp_path, monkeypatch):
    monkeypatch.setenv("JAX_ROCM_RELEASE_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("GITHUB_RUN_ID", "1")
    return bump_project(), github_env


def test_bumps_dashboard_keeps_the_nightlys_bisect_line_and_the_next_nightly_replaces_it(dash, run_cli):
    """Issue 34: the bump workflow's dashboard job says nothing of a bisect; the line the red
    nightly wrote stays through it, and only a nightly replaces it (a green one removes it)."""
    root, fake = dash
    said = "not run: not bisecting: run 7 has smoke failed in smoke 3.12 <b>#12</b> [x](y)"

    def body() -> str:
        (issue,) = fake.issues()
        return issue["body"]

    code, _, err = run_cli("dashboard", "--bisect-job", "success", "--bisect-said", said, "--root", root)
    assert code == 0, err
    line = next(line for line in body().splitlines() if line.startswith("bisect: "))
    code, out, err = run_cli("dashboard", "--json", "--root", root)       # bump's: no bisect flags
    assert code == 0, err
    assert json.loads(out)["report"]["bisect"] == said and line in body().splitlines()
    code, _, err = run_cli("dashboard", "--bisect-job", "failure", "--bisect-said", "started bisect.yml: a..b",
                           "--root", root)                                  # the next red nightly
    assert code == 0, err
    assert "bisect: started bisect.yml: a..b" in body().splitlines()
    code, _, err = run_cli("dashboard", "--bisect-job", "skipped", "--root", root)   # a green nightly
    assert code == 0, err
    assert not any(line.startswith("bisect:") for line in body().splitlines())
    code, _, err = run_cli("dashboard", "--root", root)                     # bump's again: nothing to keep
    assert code == 0, err
    assert not any(line.startswith("bisect:") for line in body().splitlines())


def test_the_dashboard_shows_every_lines_open_hold_pr(dash, run_cli, github_client):
    """A hold is per line (hold/X.Y/<dep> into release/X.Y): the one dashboard shows each line's
    open hold PR, not only the default branch's; a closed one is not shown."""
    root, fake = dash
    owner, name = fake.repo.split("/")
    main = github_client.create_pull(owner, name, title="Hold plugin before aaaaaaa", head="hold/plugin", base="main")
    line = github_client.create_pull(owner, name, title="Hold plugin before bbbbbbb", head="hold/0.10/plugin",
                                     base="release/0.10")
    gone = github_client.create_pull(owner, name, title="Hold xla before ccccccc", head="hold/0.9/xla",
                                     base="release/0.9")
    github_client.request("PATCH", f"/repos/{owner}/{name}/pulls/{gone['number']}", json={"state": "closed"})
    code, out, err = run_cli("dashboard", "--json", "--root", root)
    assert code == 0, err
    holds = json.loads(out)["report"]["holds"]
    assert sorted(h["number"] for h in holds) == sorted([main["number"], line["number"]]), holds
