"""The Actions stand-in is as strict as GitHub where the workflows' outcome depends on it
(issue 34 item 10): how a run ends reaches the dashboard, ``failure()`` sees every job a job
depends on, a job's token writes only where a repository write is granted, and artifacts
expire after their retention. Each rule is checked on the workflows' own jobs."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.actions_runner import JobResult, Runner, condition, load_workflow, substitute
from tests.test_workflows import WORKFLOWS

NIGHTLY = load_workflow(next(p for p in WORKFLOWS if p.name == "nightly.yml"))["jobs"]
LINE = load_workflow(next(p for p in WORKFLOWS if p.name == "nightly-line.yml"))["jobs"]
RELEASE = load_workflow(next(p for p in WORKFLOWS if p.name == "release.yml"))["jobs"]
BUILD_WHEELS = load_workflow(next(p for p in WORKFLOWS if p.name == "build-wheels.yml"))["jobs"]


def runner(tmp_path: Path, now="2026-11-20T03:23:00Z") -> Runner:
    return Runner(tmp_path / "origin.git", tmp_path / "run", {"RUNNER_WRITE_TOKEN": "W", "RUNNER_READ_TOKEN": "R"},
                  now=now, sha="a" * 40)


def record(run: Runner, results: dict[str, str], job_needs: dict[str, list[str]] | None = None) -> None:
    for name, result in results.items():
        run.jobs[name] = JobResult(result)
        run.needs[name] = (job_needs or {}).get(name, [])


@pytest.mark.parametrize("results, said", [
    ({"lines": "success", "nightly": "failure", "index": "success", "pages": "success"}, "failure"),
    ({"lines": "success", "nightly": "cancelled", "index": "skipped", "pages": "skipped"}, "cancelled"),
    ({"lines": "success", "nightly": "success", "index": "success", "pages": "success"}, "success"),
    ({"lines": "failure", "nightly": "skipped", "index": "skipped", "pages": "skipped"}, "failure"),
])
def test_the_dashboard_is_told_how_the_run_ended(tmp_path, results, said):
    run = runner(tmp_path)
    record(run, results)
    [step] = [s for s in NIGHTLY["dashboard"]["steps"] if "DASHBOARD_THIS_RUN" in (s.get("env") or {})]
    ctx = run.context({}, None, {}, NIGHTLY["dashboard"])
    assert substitute(step["env"]["DASHBOARD_THIS_RUN"], ctx) == said


AFTER_FINISH = {"needs": "finish", "if": "${{ !cancelled() && !failure() }}", "steps": []}


def test_failure_sees_a_red_job_behind_a_skipped_one_as_github_does(tmp_path):
    """finish is skipped after a red build; GitHub's failure() in a job needing finish still
    sees the red build behind it, so that job does not run (the stand-in once ran it)."""
    run = runner(tmp_path)
    record(run, {"plan": "success", "build": "failure", "smoke": "skipped", "finish": "skipped"},
           {"build": ["plan"], "smoke": ["plan", "build"], "finish": ["plan", "build", "smoke"]})
    assert run.run_job("after", AFTER_FINISH).result == "skipped"
    green = runner(tmp_path / "green")
    record(green, {"plan": "success", "build": "success", "smoke": "success", "finish": "success"},
           {"build": ["plan"], "smoke": ["plan", "build"], "finish": ["plan", "build", "smoke"]})
    assert condition(AFTER_FINISH["if"], green.context({}, None, {}, AFTER_FINISH), failed=False)


@pytest.mark.parametrize("lines, nightly, runs", [
    ("success", "failure", True),     # one line red, another published: its nightly reaches the index
    ("success", "success", True),
    ("failure", "skipped", False),    # the lines could not be read: nothing ran
])
def test_the_index_runs_once_after_every_line_whatever_one_lines_night_was(tmp_path, lines, nightly, runs):
    run = runner(tmp_path)
    record(run, {"lines": lines, "nightly": nightly}, {"nightly": ["lines"]})
    ctx = run.context({}, None, {}, NIGHTLY["index"])
    assert condition(NIGHTLY["index"]["if"], ctx, failed="failure" in (lines, nightly)) is runs


@pytest.mark.parametrize("job, token", [
    (RELEASE["pypi"], "R"),                 # contents: read, id-token: write
    (NIGHTLY["pages"], "R"),                # pages: write, id-token: write
    (NIGHTLY["index"], "R"),
    (BUILD_WHEELS["upload"], "W"),          # contents: write
    (RELEASE["post"], "W"),
    (LINE["bisect"], "W"),                  # actions: write
    (LINE["smoke"], "R"),
    (NIGHTLY["lines"], "R"),
])
def test_a_jobs_token_writes_only_where_a_repository_write_is_granted(tmp_path, job, token):
    assert runner(tmp_path).context({}, None, {}, job)["github"]["token"] == token


def test_a_job_sees_only_the_needs_it_names(tmp_path):
    run = runner(tmp_path)
    record(run, {"plan": "success", "build": "failure"})
    assert set(run.context({}, None, {}, NIGHTLY["index"])["needs"]) == set()   # index needs lines and nightly
    assert set(run.context({}, None, {}, LINE["smoke"])["needs"]) == {"plan", "build"}


@pytest.mark.parametrize("days, later, found", [
    (3, "2026-11-22T03:23:00Z", True), (3, "2026-11-23T03:23:00Z", False), (30, "2026-12-19T03:00:00Z", True),
    (None, "2027-02-17T03:23:00Z", True), (None, "2027-02-18T03:23:00Z", False)])
def test_an_artifact_is_gone_after_its_retention(tmp_path, days, later, found):
    """Retention counts from the upload on the runner's clock (GitHub's default: 90 days)."""
    run = runner(tmp_path)
    cwd = tmp_path / "machine"
    (cwd / "dist").mkdir(parents=True)
    (cwd / "dist" / "w.whl").write_bytes(b"wheel")
    upload = {"name": "wheel-nightly-pjrt", "path": "dist/*.whl", "if-no-files-found": "error"}
    assert run._upload({**upload, **({"retention-days": days} if days else {})}, cwd)[0]
    run.now = later
    ok, _, said = run._download({"name": "wheel-nightly-pjrt", "path": "back"}, cwd)
    assert ok is found and (found or said.startswith("Artifact not found"))
    merged = run._download({"pattern": "wheel-nightly-*", "merge-multiple": True, "path": "merged"}, cwd)
    assert (cwd / "merged" / "w.whl").exists() is found and merged[0]


def test_the_index_jobs_site_cache_is_a_directory_saved_and_restored_whole(tmp_path):
    """The index job saves its site/ directory after the index step and the next night's job
    restores it by the key's prefix before that step (the stand-in once saved only files)."""
    steps = {s.get("name") or s.get("uses", ""): s for s in NIGHTLY["index"]["steps"]}
    save = next(s for s in steps.values() if s.get("uses", "").startswith("actions/cache/save@"))
    restore = next(s for s in steps.values() if s.get("uses", "").startswith("actions/cache/restore@"))
    run = runner(tmp_path)
    night = tmp_path / "night-1"
    (night / "site" / "nightly" / "jax-rocm7-plugin").mkdir(parents=True)
    (night / "site" / "nightly" / "jax-rocm7-plugin" / "index.html").write_text("<a>w</a>\n")
    (night / "site" / "index.html").write_text("top\n")
    ctx = run.context({}, None, {}, NIGHTLY["index"])
    with_ = {k: substitute(v, ctx) for k, v in save["with"].items()}
    assert run._cache_save(with_, night)[0]
    run.run_id = 2
    ctx = run.context({}, None, {}, NIGHTLY["index"])
    next_night = tmp_path / "night-2"
    next_night.mkdir()
    ok, outputs, _ = run._cache_restore({k: substitute(v, ctx) for k, v in restore["with"].items()}, next_night)
    assert ok and outputs["cache-matched-key"] == with_["key"]
    assert sorted(p.relative_to(next_night).as_posix() for p in next_night.rglob("*") if p.is_file()) == [
        "site/index.html", "site/nightly/jax-rocm7-plugin/index.html"]
