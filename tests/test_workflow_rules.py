"""What the first real runs on GitHub need from the workflows (issue 26), one rule per test:
tag filters that only rcs and releases match, schedules off the top of the hour, artifacts a
re-run may replace, a bisect that resumes, the plan's clock handed to every later job, every
Python validated on every publishing path, and the scripts' choice of interpreter and flags.
"""

from __future__ import annotations

import functools
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from release.build.bazel import supported_pythons
from release.core import naming, versions
from tests.test_workflows import ACTIONS, REPO, WORKFLOWS, jobs, load, steps, uses_lines, workflow

# --- GitHub's filter patterns (docs: "Filter pattern cheat sheet") ----------------------------


def filter_regex(pattern: str) -> re.Pattern:
    """A GitHub Actions branch/tag filter pattern as a regex over the whole name: ``*`` is any
    run without ``/``, ``**`` any run, ``?`` and ``+`` make the character before optional or
    repeated, ``[...]`` is a class; everything else (``.`` too) is literal."""
    out, i = [], 0
    while i < len(pattern):
        c = pattern[i]
        if pattern.startswith("**", i):
            out.append(".*")
            i += 2
            continue
        if c == "*":
            out.append("[^/]*")
        elif c in "?+":
            out.append(c)
        elif c == "[":
            end = pattern.index("]", i)
            out.append(pattern[i:end + 1])
            i = end
        else:
            out.append(re.escape(c))
        i += 1
    return re.compile("".join(out))


@functools.lru_cache(maxsize=1)
def release_tag_filters() -> tuple[re.Pattern, ...]:
    patterns = workflow("release.yml")["on"]["push"]["tags"]
    assert not any(p.startswith("!") for p in patterns)
    return tuple(filter_regex(p) for p in patterns)


def starts_release(tag: str) -> bool:
    """Whether a pushed ``tag`` starts release.yml (its ``on.push.tags`` patterns)."""
    return any(f.fullmatch(tag) for f in release_tag_filters())


def test_filter_regex_reads_githubs_cheat_sheet_examples():
    assert filter_regex("v[12].[0-9]+.[0-9]+").fullmatch("v2.10.1")
    assert not filter_regex("v[12].[0-9]+.[0-9]+").fullmatch("v3.0.1")
    assert filter_regex("v2*").fullmatch("v2.0") and not filter_regex("v2*").fullmatch("v2/x")
    assert not filter_regex("v1.0").fullmatch("v1x0")   # "." is literal


line = st.tuples(st.integers(0, 30), st.integers(0, 30), st.integers(0, 30)).map(
    lambda t: ".".join(map(str, t)))
days = st.dates(min_value=versions.parse_date("2020-01-01"), max_value=versions.parse_date("2040-12-31"))


@settings(max_examples=60, derandomize=True, deadline=None)
@given(line, st.integers(1, 40), days, st.integers(1, 40))
def test_rc_release_and_maintenance_release_tags_start_the_release_workflow(base, n, day, post):
    """A maintenance line's next release is X.Y.Z.postN (version_info.json names it after X.Y.Z):
    its tag must start a release as X.Y.Z's does; publishing a nightly makes its tag, which never
    may."""
    assert starts_release(naming.release_tag(versions.release(base)))
    assert starts_release(naming.release_tag(versions.rc(base, n)))
    assert starts_release(naming.release_tag(versions.post(versions.release(base), post)))
    assert not starts_release(naming.release_tag(versions.nightly(base, day)))
    assert not starts_release(naming.release_tag(versions.nightly(base, day, n)))
    assert not starts_release(naming.release_tag(versions.nightly(versions.post(versions.release(base), post), day)))
    assert not starts_release(naming.release_tag(versions.release(base)) + "-hotfix")
    assert not starts_release(naming.release_tag(versions.rc(base, n)) + ".x")


# --- schedules, artifacts, runners ------------------------------------------------------------

@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_schedules_are_off_the_top_of_the_hour(path):
    """GitHub delays or drops scheduled runs at minute 0, when the most schedules fire."""
    for entry in load(path)["on"].get("schedule", []) if isinstance(load(path)["on"], dict) else []:
        minute = entry["cron"].split()[0]
        assert minute.isdigit() and int(minute) not in (0, 30), f"{path.name}: cron {entry['cron']}"


def test_the_docs_state_the_schedules_the_workflows_use():
    readme = (REPO / "docs" / "reference" / "workflows.md").read_text()
    for name in ("nightly.yml", "bump.yml"):
        (entry,) = workflow(name)["on"]["schedule"]
        minute, hour = entry["cron"].split()[:2]
        assert f"daily {int(hour):02d}:{int(minute):02d} UTC" in readme, name


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_every_artifact_upload_may_be_replaced_by_a_re_run(path):
    """Artifact names are fixed within a run: a re-run's upload must overwrite, not fail."""
    for step in steps(path):
        if step.get("uses", "").startswith("actions/upload-artifact@"):
            assert step["with"].get("overwrite") is True, f"{path.name}: {step.get('name')}"


def test_one_red_cell_does_not_keep_the_other_cells_wheels_out_of_the_draft():
    upload = jobs(REPO / ".github" / "workflows" / "build-wheels.yml")["upload"]
    condition = upload.get("if", "")
    assert "!cancelled()" in condition and "success()" not in condition
    # ...and nothing is published with a cell missing: finish needs the whole build.
    for name in ("nightly-line.yml", "release.yml"):
        finish = workflow(name)["jobs"]["finish"]
        assert "build" in finish["needs"] and "if" not in finish, name


# Actions that ran on node20 in their old majors; the workflows use these majors or newer.
CURRENT_MAJORS = {"actions/checkout": 7, "actions/setup-python": 7, "actions/cache": 5,
                  "actions/upload-artifact": 7, "actions/download-artifact": 8,
                  "actions/attest-build-provenance": 4, "actions/create-github-app-token": 3}


@pytest.mark.parametrize("path", WORKFLOWS + ACTIONS, ids=lambda p: p.parent.name + "/" + p.name)
def test_actions_are_on_current_majors(path):
    for ref, comment in uses_lines(path):
        action = "/".join(ref.split("@")[0].split("/")[:2])
        if action in CURRENT_MAJORS:
            major = int(re.match(r"v(\d+)", comment).group(1))
            assert major >= CURRENT_MAJORS[action], f"{path.name}: {ref} # {comment}"


def test_one_action_one_commit_everywhere():
    """The same action is pinned to the same commit in every file (one upgrade, one place)."""
    pins: dict[str, set[str]] = {}
    for path in WORKFLOWS + ACTIONS:
        for ref, comment in uses_lines(path):
            if "@" in ref:
                pins.setdefault(ref.split("@")[0], set()).add(f"{ref.split('@')[1]} {comment}")
    assert {a: p for a, p in pins.items() if len(p) > 1} == {}


# --- bisect resumes ---------------------------------------------------------------------------

def test_bisect_restores_its_state_before_running_and_saves_it_whatever_happened():
    from release.jobs import bisect as bisect_job
    job = workflow("bisect.yml")["jobs"]["bisect"]
    names = [s.get("uses", s.get("run", "")).split("@")[0] for s in job["steps"]]
    restore, run, save = (names.index("actions/cache/restore"), names.index("scripts/bisect.sh"),
                          names.index("actions/cache/save"))
    assert names.index("actions/checkout") < restore < run < save
    r, s = job["steps"][restore]["with"], job["steps"][save]
    assert job["steps"][save]["if"] == "always()"
    state = "dist/bisect/state.json"
    assert r["path"] == s["with"]["path"] == state
    assert "state.json" in (bisect_job.__doc__ or "") and state in Path(bisect_job.__file__).read_text()
    # The save key is new on every attempt (cache entries cannot be replaced) and the restore
    # finds the newest one of the same good..bad by prefix.
    assert s["with"]["key"] == r["key"] and "github.run_attempt" in r["key"]
    (prefix,) = r["restore-keys"].strip().splitlines()
    assert r["key"].startswith(prefix) and "inputs.good" in prefix and "inputs.bad" in prefix
    assert "run_id" not in prefix


# --- the plan's clock travels with the run ----------------------------------------------------

def test_every_job_after_the_nightly_plan_runs_on_the_plans_clock():
    """A re-run the next day must build the plan's nightly: RELEASE_NOW is the plan's `now`."""
    nightly = workflow("nightly-line.yml")
    assert nightly["jobs"]["plan"]["outputs"]["now"] == "${{ steps.plan.outputs.now }}"
    assert nightly["jobs"]["build"]["with"]["now"] == "${{ needs.plan.outputs.now }}"
    # every step that runs the nightly's own commands (they date and check the nightly)
    finish = [s for s in nightly["jobs"]["finish"]["steps"] if "scripts/nightly.sh" in s.get("run", "")]
    assert finish and all(s["env"]["RELEASE_NOW"] == "${{ needs.plan.outputs.now }}" for s in finish)
    cells = workflow("build-wheels.yml")
    assert "now" in cells["on"]["workflow_call"]["inputs"]
    for name, job in cells["jobs"].items():
        for step in job["steps"]:
            if "run" in step:
                assert step["env"]["RELEASE_NOW"] == "${{ inputs.now }}", f"{name}: {step['run']}"
                assert step["env"]["RELEASE_DATE"] == "${{ inputs.date }}", f"{name}: {step['run']}"


# --- every publishing path validates every Python ---------------------------------------------

def publishing_jobs():
    for name in ("nightly-line.yml", "release.yml"):
        for job_name, job in workflow(name)["jobs"].items():
            runs = " ".join(s.get("run", "") for s in job.get("steps", []))
            if re.search(r"scripts/(nightly|release)\.sh (finish|--post)", runs):
                yield name, job_name, job


def test_every_job_that_publishes_installs_every_python_the_release_carries():
    found = list(publishing_jobs())
    assert {(n, j) for n, j, _ in found} == {("nightly-line.yml", "finish"), ("release.yml", "finish"),
                                            ("release.yml", "post")}
    for name, job_name, job in found:
        (setup,) = [s for s in job["steps"] if s.get("uses", "").startswith("actions/setup-python@")]
        assert setup["with"]["python-version"].split() == list(supported_pythons(REPO)), job_name
        run = next(s for s in job["steps"]
                   if re.search(r"scripts/(nightly|release)\.sh (finish|--post)", s.get("run", "")))
        assert run["env"]["RELEASE_REQUIRE_ALL_PYTHONS"] == "1", f"{name}: {job_name}"


# --- the scripts ------------------------------------------------------------------------------

RECORD = """#!{python}
import json, sys
with open({log!r}, "a") as handle:
    handle.write(json.dumps([__file__, *sys.argv[1:]]) + "\\n")
if sys.argv[1:4] == ["-m", "release", "version"]:
    print("0.9.1.dev20260102")
"""


def script_copy(tmp_path: Path, venv: bool) -> tuple[Path, Path]:
    """scripts/ in a fresh tree, with a recording `.venv/bin/python` when ``venv``."""
    tree = tmp_path / "tree"
    shutil.copytree(REPO / "scripts", tree / "scripts")
    log = tmp_path / "calls.jsonl"
    recorder = tree / ".venv" / "bin" / "python"
    if venv:
        recorder.parent.mkdir(parents=True)
        recorder.write_text(RECORD.format(python=sys.executable, log=str(log)))
        recorder.chmod(0o755)
    return tree, log


def clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RELEASE_", "BUMP_", "GITHUB_"))}
    return {**env, **extra}


@pytest.mark.parametrize("argv", [["nightly.sh", "--dry-run"], ["release.sh", "plan"], ["bump.sh"],
                                  ["index.sh", "site"], ["bisect.sh"],
                                  ["build-wheel.sh", "nightly", "pjrt", "check"]])
def test_scripts_run_the_readmes_venv_when_it_exists(tmp_path, argv):
    """After the README's first command, `scripts/X` runs with .venv's Python, not python3."""
    tree, log = script_copy(tmp_path, venv=True)
    proc = subprocess.run([str(tree / "scripts" / argv[0]), *argv[1:]], capture_output=True, text=True,
                          env=clean_env(BISECT_GOOD="rocm-jax-v0.9.1.dev20261120"), timeout=60)
    assert proc.returncode == 0, proc.stderr
    calls = [json.loads(line) for line in log.read_text().splitlines()]
    assert calls and all(Path(c[0]).parent == tree / ".venv" / "bin" for c in calls)


def test_release_python_wins_over_the_venv(tmp_path):
    tree, log = script_copy(tmp_path, venv=True)
    other = tmp_path / "other-python"
    other.write_text(RECORD.format(python=sys.executable, log=str(log)))
    other.chmod(0o755)
    proc = subprocess.run([str(tree / "scripts" / "nightly.sh"), "--dry-run"], capture_output=True,
                          text=True, env=clean_env(RELEASE_PYTHON=str(other)), timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert [json.loads(line)[0] for line in log.read_text().splitlines()] == [str(other)]


def test_without_a_venv_the_scripts_run_python3(tmp_path):
    tree, _ = script_copy(tmp_path, venv=False)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    seen = tmp_path / "python3-called"
    (bin_dir / "python3").write_text(f"#!/bin/sh\necho \"$@\" > {seen}\n")
    (bin_dir / "python3").chmod(0o755)
    env = clean_env(PATH=f"{bin_dir}:{os.environ['PATH']}")
    proc = subprocess.run([str(tree / "scripts" / "nightly.sh"), "--dry-run"], capture_output=True,
                          text=True, env=env, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert seen.read_text().split()[:3] == ["-m", "release", "nightly"]


def release_argvs(tmp_path: Path, argv: list[str], **env: str) -> list[list[str]]:
    tree, log = script_copy(tmp_path, venv=True)
    if log.exists():
        log.unlink()
    proc = subprocess.run([str(tree / "scripts" / argv[0]), *argv[1:]], capture_output=True, text=True,
                          env=clean_env(**env), timeout=60)
    assert proc.returncode == 0, proc.stderr
    return [json.loads(line)[3:] for line in log.read_text().splitlines()]


def test_bump_pushes_and_opens_the_pr_only_for_a_github_repository(tmp_path):
    """The README's local variant (no GITHUB_REPOSITORY) commits the bump and stops there."""
    (local,) = release_argvs(tmp_path / "a", ["bump.sh"])
    assert "--commit" in local and "--push" not in local and "--open-pr" not in local
    (github,) = release_argvs(tmp_path / "b", ["bump.sh"], GITHUB_REPOSITORY="o/r")
    assert {"--commit", "--push", "--open-pr"} <= set(github)


def test_a_final_releases_finish_stage_pushes_and_opens_the_next_version_pr(tmp_path):
    """CI's finish stage (GITHUB_REPOSITORY set) passes --push --open-pr; plan never does (the
    tag is already pushed), nor does the whole job by hand (it would push the tag too)."""
    (finish,) = release_argvs(tmp_path / "a", ["release.sh", "finish"], GITHUB_REPOSITORY="o/r",
                              RELEASE_TAG="rocm-jax-v0.9.1")
    assert finish[:3] == ["cut", "--stage", "finish"] and {"--push", "--open-pr"} <= set(finish)
    (plan,) = release_argvs(tmp_path / "b", ["release.sh", "plan"], GITHUB_REPOSITORY="o/r",
                            RELEASE_TAG="rocm-jax-v0.9.1")
    assert "--push" not in plan and "--open-pr" not in plan
    (whole,) = release_argvs(tmp_path / "c", ["release.sh", "--rc", "1"], GITHUB_REPOSITORY="o/r")
    assert "--push" not in whole
    from release.cli import build_parser
    args = build_parser().parse_args(finish)
    assert args.push and args.open_pr and args.tag == "rocm-jax-v0.9.1"


def test_a_post_re_spin_in_ci_moves_the_line_on_against_the_branch_it_was_dispatched_on(tmp_path):
    """release.yml's post job: --push --open-pr (the next-version PR), based on RELEASE_BRANCH."""
    (post,) = release_argvs(tmp_path / "a", ["release.sh", "--post", "3"], GITHUB_REPOSITORY="o/r",
                            RELEASE_TAG="rocm-jax-v0.9.1", RELEASE_BRANCH="release/0.9")
    assert {"--push", "--open-pr"} <= set(post)
    from release.cli import build_parser
    args = build_parser().parse_args(post)
    assert args.post == 3 and args.release_branch == "release/0.9" and args.push and args.open_pr
    (by_hand,) = release_argvs(tmp_path / "b", ["release.sh", "--post", "3"], RELEASE_TAG="rocm-jax-v0.9.1")
    assert "--push" not in by_hand and "--open-pr" not in by_hand and "--release-branch" not in by_hand
    step = next(s for s in workflow("release.yml")["jobs"]["post"]["steps"] if s.get("id") == "post")
    assert step["env"]["RELEASE_BRANCH"] == "${{ github.ref_name }}"
    checkout = workflow("release.yml")["jobs"]["post"]["steps"][0]
    assert checkout["with"]["ref"] == "${{ github.ref }}"   # the line's version_info.json, not the tag's


def test_a_pushed_tags_next_version_pr_goes_to_the_branch_of_its_line(tmp_path):
    """release.yml's finish job: `lines.sh base` names the base from the plan's tag (the
    repository's default branch as the fallback) before `release.sh finish`, which takes it as
    RELEASE_BRANCH, so a maintenance line's own tag moves that line on, not main."""
    job = workflow("release.yml")["jobs"]["finish"]
    ids = [s.get("id") for s in job["steps"]]
    base = job["steps"][ids.index("base")]
    assert ids.index("base") < ids.index("finish")
    assert base["run"].startswith("scripts/lines.sh base ")
    assert base["env"]["TAG"] == "${{ needs.plan.outputs.tag }}" and '--tag "$TAG"' in base["run"]
    assert base["env"]["DEFAULT"] == "${{ github.event.repository.default_branch }}"
    assert job["steps"][ids.index("finish")]["env"]["RELEASE_BRANCH"] == "${{ steps.base.outputs.base }}"
    (argv,) = release_argvs(tmp_path / "a", ["lines.sh", "base", "--tag", "rocm-jax-v0.9.1.post2",
                                              "--default", "main"])
    assert argv == ["line", "base", "--tag", "rocm-jax-v0.9.1.post2", "--default", "main"]
    (listed,) = release_argvs(tmp_path / "b", ["lines.sh"])
    assert listed == ["line", "list"]
    (finish,) = release_argvs(tmp_path / "c", ["release.sh", "finish"], GITHUB_REPOSITORY="o/r",
                              RELEASE_TAG="rocm-jax-v0.9.1.post2", RELEASE_BRANCH="release/0.9")
    from release.cli import build_parser
    assert build_parser().parse_args(finish).release_branch == "release/0.9"


@pytest.mark.parametrize("finish, post, kind, goes", [
    ({"result": "success", "outputs": {"published": "rocm-jax-v0.9.1"}}, {"result": "skipped"}, "release", True),
    # the next-version PR failed after publishing: the release still goes to PyPI
    ({"result": "failure", "outputs": {"published": "rocm-jax-v0.9.1"}}, {"result": "skipped"}, "release", True),
    ({"result": "failure", "outputs": {}}, {"result": "skipped"}, "release", False),      # never published
    ({"result": "success", "outputs": {"published": "rocm-jax-v0.9.1rc1"}}, {"result": "skipped"}, "rc", False),
    ({"result": "skipped"}, {"result": "failure", "outputs": {"published": "rocm-jax-v0.9.1.post1"}}, "", True),
    ({"result": "skipped"}, {"result": "failure", "outputs": {}}, "", False),
])
def test_pypi_follows_the_publish_not_the_next_version_pr(finish, post, kind, goes):
    from tests.support.actions_runner import condition, substitute
    jobs_ = workflow("release.yml")["jobs"]
    ctx = {"needs": {"plan": {"result": "success" if kind else "skipped", "outputs": {"kind": kind}},
                     "finish": finish, "post": post},
           "vars": {"PYPI_REPOSITORY_URL": "https://upload.example/legacy/"}}
    failed = "failure" in (finish["result"], post["result"])
    assert condition(jobs_["pypi"]["if"], ctx, failed=failed) is goes
    if goes:
        tag = substitute(jobs_["pypi"]["steps"][-1]["env"]["RELEASE_TAG"], ctx)
        assert tag == (finish.get("outputs") or post.get("outputs"))["published"]
    assert set(jobs_["pypi"]["needs"]) >= {"finish", "post"} and "next-version" not in jobs_


# --- untrusted code never reaches the ROCm runners ----------------------------------------------

# Events a person without write access can cause (a fork's pull request, a comment, a review).
UNTRUSTED = {"pull_request", "pull_request_target", "pull_request_review", "pull_request_review_comment",
             "issue_comment", "issues", "discussion", "discussion_comment", "fork", "watch",
             "workflow_run"}


def _self_hosted(job: dict, seen: tuple[str, ...] = ()) -> bool:
    """Whether ``job`` runs on a self-hosted runner, itself or through the workflow it calls."""
    runs_on = json.dumps(job.get("runs-on", ""))
    if "self-hosted" in runs_on or "ROCM_RUNNER_LABELS" in runs_on:
        return True
    called = job.get("uses", "")
    if called.startswith("./.github/workflows/") and called not in seen:
        return any(_self_hosted(j, (*seen, called)) for j in workflow(called.rsplit("/", 1)[1])["jobs"].values())
    return False


def test_no_workflow_an_outsider_can_start_runs_on_the_rocm_runners():
    """The ROCm runners build the wheels that are attested and published: a fork's pull request
    (or any event an outsider causes) must never run code there, by construction. Every
    workflow with a self-hosted job starts only on a push, a schedule, a dispatch or a call."""
    for path in WORKFLOWS:
        doc = load(path)
        on = doc["on"]
        events = {on} if isinstance(on, str) else set(on)
        if any(_self_hosted(job) for job in doc["jobs"].values()):
            assert not events & UNTRUSTED, f"{path.name}: self-hosted jobs and {sorted(events & UNTRUSTED)}"
            assert events <= {"push", "schedule", "workflow_dispatch", "workflow_call"}, path.name
            if "push" in events:   # a push needs write access; never a fork's branch
                assert set(on["push"]) <= {"tags", "branches"}, path.name
    # and the check itself sees through a reusable workflow
    assert _self_hosted(workflow("nightly-line.yml")["jobs"]["build"])
    assert not _self_hosted(workflow("ci.yml")["jobs"]["test"])



# --- re-runs, runners and tokens as GitHub has them ----------------------------------------------

RERUN_DAYS = 30  # "Re-run failed jobs" of a red night works this long after it


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_an_artifact_a_later_job_takes_lasts_as_long_as_a_re_run_may_need_it(path):
    """A re-run of the failed jobs downloads what the earlier attempt's green jobs uploaded:
    wheels and the smoke verdict must outlive the days a person may take to re-run."""
    for step in steps(path):
        if step.get("uses", "").startswith("actions/upload-artifact@"):
            days = step["with"].get("retention-days")
            assert days is None or days >= RERUN_DAYS or "log" in step["with"]["name"], (path.name, step["with"])


def test_each_attempt_deploys_the_site_its_own_index_job_made():
    """The Pages artifact is named by the run attempt: "Re-run all jobs" uploads anew (a second
    artifact of the first attempt's name is a 409), and a re-run of the pages job alone finds no
    site of its attempt, so it fails rather than deploy the older one."""
    nightly = workflow("nightly.yml")["jobs"]
    [upload] = [s for s in nightly["index"]["steps"] if s.get("uses", "").startswith("actions/upload-pages-artifact@")]
    [deploy] = [s for s in nightly["pages"]["steps"] if s.get("uses", "").startswith("actions/deploy-pages@")]
    assert upload["with"]["name"] == deploy["with"]["artifact_name"] == "github-pages-${{ github.run_attempt }}"


def test_setup_python_runs_only_on_githubs_own_runners():
    """setup-python's builds are made for GitHub's images; a self-hosted ROCm runner brings its
    own python3, and the project goes into .venv there (the scripts run it)."""
    action = load(ACTIONS[0]) if ACTIONS[0].parent.name == "setup-release" else None
    action = action or next(load(a) for a in ACTIONS if a.parent.name == "setup-release")
    for step in action["runs"]["steps"]:
        if step.get("uses", "").startswith("actions/setup-python@") or "pip install" in step.get("run", ""):
            hosted = step.get("if") == "runner.environment == 'github-hosted'"
            assert hosted or (step.get("if") == "runner.environment != 'github-hosted'" and
                              step["run"].startswith("python3 -m venv .venv && .venv/bin/python -m pip")), step
    for path in WORKFLOWS:
        for name, job in load(path)["jobs"].items():
            if "ROCM_RUNNER_LABELS" in json.dumps(job.get("runs-on", "")):
                assert not any(s.get("uses", "").startswith("actions/setup-python@") for s in job.get("steps", [])), \
                    f"{path.name}: {name}"


def test_the_bump_token_is_an_apps_minted_for_the_run_when_one_is_configured():
    """With BUMP_APP_ID set, the job mints a GitHub App token with every permission the job
    uses (push, PRs, the throttle's runs, auto-merge's checks and statuses) and uses it first."""
    job = workflow("bump.yml")["jobs"]["bump"]
    app = job["steps"][0]
    assert app["uses"].startswith("actions/create-github-app-token@") and app["if"] == "vars.BUMP_APP_ID != ''"
    granted = {k.removeprefix("permission-"): v for k, v in app["with"].items() if k.startswith("permission-")}
    assert granted == {k: v for k, v in job["permissions"].items()}
    token = "${{ steps.app.outputs.token || secrets.BUMP_TOKEN || github.token }}"
    uses_token = [s for s in job["steps"] if "token" in (s.get("with") or {}) or "GITHUB_TOKEN" in (s.get("env") or {})]
    assert uses_token and all((s.get("with") or {}).get("token", token) == token and
                              (s.get("env") or {}).get("GITHUB_TOKEN", token) == token for s in uses_token)
