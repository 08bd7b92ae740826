"""One nightly run holds every maintained line (nightly.yml calls nightly-line.yml once a line, on
the default branch): a line's throttle reads the default branch's runs and counts only its own
jobs' gate failures, and a red run's "does a probe reproduce it" reads only the red line's jobs.
Job names are GitHub's for a called workflow in a matrix: ``nightly (<line>) / <called job>``."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from release.core.roller import parse_roller
from release.sources.nightly_runs import GREEN, NEITHER, RED, judge_failed, of_line
from tests.support.fake_github import called_job

BUILD = "scripts/build-wheel.sh build (no credentials)"
LINES3 = ("main", "release/0.10", "release/0.9")


def job(line, name, conclusion, steps):
    """A job of ``line``'s call (None: a job of the run itself, or of a run from before lines)."""
    return {"name": called_job(f"nightly ({line})", name) if line else name, "conclusion": conclusion,
            "steps": [{"name": n, "conclusion": c} for n, c in steps]}


def build_red(line):
    return job(line, "build / build pjrt wheel", "failure", [(BUILD, "failure")])


def published(line):
    return job(line, "validate, publish, gc", "success", [("scripts/nightly.sh finish", "success")])


def smoke_red(line):
    return job(line, "ROCm smoke test (the plugin registers)", "failure", [("scripts/smoke.sh", "failure")])


@pytest.mark.parametrize("lines", [("main", "release/0.10"), LINES3, ("trunk", "release/0.10", "release/0.1")])
def test_a_job_is_the_line_its_caller_names(lines):
    """Each line's jobs are its own: never another line's, even one whose name starts the same
    (release/0.1 against release/0.10); a job no caller names (the run's index, pages and
    dashboard jobs, a run from before lines) is the default branch's line's."""
    for line in lines:
        for other in (*lines, "release/0.1", "release/0.10"):
            for called in ("plan and create the draft", "build / wheel (7, 3.12)"):
                assert of_line(called_job(f"nightly ({other})", called), line) == (other == line)
        assert of_line("pip index and page", line) == (not line.startswith("release/"))
        assert of_line("build / build pjrt wheel", line) == (not line.startswith("release/"))
        assert of_line(called_job(f"nightly ({line})", "x"), None)


@pytest.mark.parametrize("lines", [("main", "release/0.10"), LINES3])
def test_a_failed_run_is_judged_per_line_by_its_own_jobs(lines):
    """main published, release/0.10's build broke, release/0.9's smoke test failed (three lines),
    release/0.8 did not run: each line's verdict is its own."""
    jobs = [job(None, "the maintained lines", "success", [("scripts/lines.sh", "success")]),
            published("main"), build_red("release/0.10"),
            *([published("release/0.9"), smoke_red("release/0.9")] if "release/0.9" in lines else [])]
    for order in (jobs, jobs[::-1]):
        assert judge_failed(order, line="main") == (GREEN, "published; only a later job failed")
        outcome, why = judge_failed(order, line="release/0.10")
        assert outcome == RED and why == "build failed in nightly (release/0.10) / build / build pjrt wheel"
        if "release/0.9" in lines:
            assert judge_failed(order, line="release/0.9")[0] == RED
        assert judge_failed(order, line="release/0.8")[0] == NEITHER
        assert judge_failed(order)[0] == RED  # every job (no line): the build's red counts


def test_the_caller_is_named_nightly_of_the_line():
    """The prefix the jobs are matched by is nightly.yml's: the job calling nightly-line.yml is
    named ``nightly (${{ matrix.line }})``."""
    from release.sources.nightly_runs import LINE_CALLER
    root = Path(__file__).resolve().parents[1] / ".github" / "workflows"
    jobs = yaml.safe_load((root / "nightly.yml").read_text())["jobs"]
    (caller,) = [j for j in jobs.values() if j.get("uses") == "./.github/workflows/nightly-line.yml"]
    assert caller["name"] == LINE_CALLER + " (${{ matrix.line }})"


def _roller(limit):
    return parse_roller(Path("roller.yaml"), f"throttle_after_red: {limit}\n".encode())


@pytest.mark.parametrize("default", ["main", "trunk"])
def test_a_release_lines_throttle_reads_the_default_branchs_runs_and_counts_its_own_reds(
        fake_github, github_client, default):
    """Three lines, on the GitHub stand-in: release/0.10's build is red two nights running while
    the others publish; release/0.9's smoke test was red the night before. release/0.10 stops at
    2; main and release/0.9 roll (their newest night's own jobs are green)."""
    from release.sources.throttle import CLEAR, THROTTLED, read
    fake_github.settings.default_branch = default
    lines = (default, "release/0.10", "release/0.9")
    owner, name = fake_github.repo.split("/")
    # oldest first: a green night, then release/0.9 red, then release/0.10 red twice
    fake_github.add_workflow_run(branch=default)
    fake_github.add_workflow_run(branch=default, conclusion="failure", jobs=[
        (called_job(f"nightly ({line})", "build / build pjrt wheel"), "success", [(BUILD, "success")])
        for line in lines] + [(called_job("nightly (release/0.9)", "ROCm smoke test (the plugin registers)"),
                               "failure", [("scripts/smoke.sh", "failure")])])
    for _ in range(2):
        fake_github.add_workflow_run(branch=default, conclusion="failure", jobs=[
            (called_job(f"nightly ({line})", "validate, publish, gc"), "success",
             [("scripts/nightly.sh finish", "success")]) for line in lines if line != "release/0.10"]
            + [(called_job("nightly (release/0.10)", "build / build pjrt wheel"), "failure", [(BUILD, "failure")])])
    fake_github.add_workflow_run(branch="release/0.10", conclusion="success")  # not a nightly of the lines
    fake_github.add_workflow_run(branch=default, status="in_progress", line="release/0.10")  # tonight's: passed over
    got = read(_roller(2), github_client, owner, name, branch="release/0.10")
    assert got.state == THROTTLED and [r.run_number for r in got.reds] == [4, 3]
    assert got.read == 5  # 6 (running), 4, 3, 2 (neither for it), 1 (green)
    assert "build failed in nightly (release/0.10) / build" in got.line()
    for line in (default, "release/0.9"):
        mine = read(_roller(2), github_client, owner, name, branch=line)
        assert mine.state == CLEAR and mine.reds == () and mine.ended_by.run_number == 4
    low = read(_roller(1), github_client, owner, name, branch="release/0.9")
    assert low.state == CLEAR  # its red night (run 2) is older than its green ones


def test_a_probe_is_asked_of_the_red_lines_own_jobs(fake_github, github_client):
    """In one red run main's smoke test failed (no probe reproduces it) and release/0.10's build
    failed: the bisect of release/0.10 goes on, main's does not, and no line's bisect is decided
    by another's jobs."""
    from release.jobs.bisect_plan import probe_reproducible
    owner, name = fake_github.repo.split("/")
    run = fake_github.add_workflow_run(conclusion="failure", jobs=[
        (called_job("nightly (main)", "ROCm smoke test (the plugin registers)"), "failure",
         [("scripts/smoke.sh", "failure")]),
        (called_job("nightly (release/0.10)", "build / build pjrt wheel"), "failure", [(BUILD, "failure")]),
        (called_job("nightly (release/0.9)", "validate, publish, gc"), "success",
         [("scripts/nightly.sh finish", "success")])])
    rid = str(run["id"])
    assert probe_reproducible(github_client, owner, name, rid, line="release/0.10") is None
    assert "smoke" in (probe_reproducible(github_client, owner, name, rid, line="main") or "")
    assert probe_reproducible(github_client, owner, name, rid, line="release/0.9") is not None
    assert probe_reproducible(github_client, owner, name, rid) is None  # every job: a build failed
