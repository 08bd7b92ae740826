"""The record of nightly results: the nightly workflow's runs, read where GitHub keeps them.

Why here and not the store: a red nightly publishes nothing, so the store only knows the
green ones. GitHub Actions keeps every run of ``.github/workflows/nightly.yml`` with its
conclusion, so the throttle and the dashboard read that, newest first
(``GET /repos/{o}/{r}/actions/workflows/{file}/runs``, through ``GitHubClient``: its deadline,
retries, rate-limit waits and pagination bounds).

What a run counts as (``outcome``):
- green: conclusion ``success``;
- red: ``failure``, ``timed_out`` or ``startup_failure`` (the nightly ran, or tried to, and broke);
- neither: ``cancelled``, ``skipped``, ``neutral``, ``stale``, ``action_required`` and any
  conclusion GitHub adds later (a person or GitHub stopped it, or it never ran: it says nothing
  about the pins), and every run not yet ``completed`` (queued, in progress, waiting).

A failed run is red for the pins only when one of the nightly's gates failed (``GATE_STEPS``:
the build, verify, validate and smoke steps, read from the run's jobs, ``with_gates``); failed
only elsewhere (the plan refusing a same-day dispatch, an upload, the index, Pages, the
dashboard) it is green when the nightly was published all the same, else neither.

One run holds every maintained line (``nightly.yml`` calls ``nightly-line.yml`` once a line, on
the default branch), so a failed run is judged for one line by that line's jobs alone
(``of_line``): GitHub names a called workflow's job ``<caller job> / <called job>``, the caller
being ``nightly (<line>)``. A job of no line (the run's own jobs, or a run from before the
lines) is the default branch's line's.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import itertools
import re
from typing import TYPE_CHECKING, Iterable, Iterator, Mapping

from release.core import sanitize
from release.core.lines import LINE_PREFIX
from release.sources import shapes
from release.sources.shapes import fields

if TYPE_CHECKING:
    from release.sources.github import GitHubClient

NIGHTLY_WORKFLOW = "nightly.yml"
GREEN, RED, NEITHER, RUNNING = "green", "red", "neither", "running"
GREEN_CONCLUSIONS = frozenset({"success"})
RED_CONCLUSIONS = frozenset({"failure", "timed_out", "startup_failure"})
PAGE_SIZE = 20  # a run is ~5 KB of JSON; the throttle usually stops on the first page
TOKEN_SCOPES = "actions: read"
# The nightly's gates, by their step names in nightly.yml and build-wheels.yml (a test holds
# them to the files): a failure there says the pins, or the build of them, are bad.
GATE_STEPS = {"scripts/build-wheel.sh build (no credentials)": "build",
              "verify before attesting": "verify",
              "scripts/nightly.sh finish": "validate",
              "scripts/smoke.sh": "smoke"}
# What a bisect probe builds, verifies and validates again (it runs no smoke test: no GPU is
# asked of it): only a failure of these is worth bisecting.
PROBED_GATES = {step: gate for step, gate in GATE_STEPS.items() if gate != "smoke"}
PUBLISHING_STEP = "scripts/nightly.sh finish"  # succeeded: tonight's nightly is published
# nightly.yml's job that calls nightly-line.yml once a line is named "nightly (<line>)" (a test
# holds it to the file); GitHub names each called job "nightly (<line>) / <called job>".
LINE_CALLER = "nightly"
_LINE_JOB = re.compile(re.escape(LINE_CALLER) + r" \(([^()]+)\) / ")


def of_line(job_name: str, line: str | None) -> bool:
    """Whether the nightly run's job ``job_name`` is one of line ``line``'s (a branch of
    ``.github/lines.json``): its caller names that line; a job no caller names belongs to the
    default branch's line (a line that is no ``release/X.Y``). ``line`` None: every job."""
    if line is None:
        return True
    found = _LINE_JOB.match(job_name)
    return found.group(1) == line if found else not line.startswith(LINE_PREFIX)


@dataclasses.dataclass(frozen=True)
class NightlyRun:
    """One run of the nightly workflow, with the members the throttle and dashboard read."""

    id: int
    run_number: int
    status: str
    conclusion: str | None
    created_at: _dt.datetime
    html_url: str
    head_sha: str
    event: str = "schedule"
    head_branch: str | None = None
    judged: str | None = None   # a failed run's outcome from its jobs (``with_gates``)
    why: str | None = None      # the gate that failed, or that none did

    @property
    def outcome(self) -> str:
        """GREEN, RED, NEITHER or RUNNING (see the module's rules)."""
        if self.status != "completed":
            return RUNNING
        if self.judged is not None:
            return self.judged
        if self.conclusion in GREEN_CONCLUSIONS:
            return GREEN
        if self.conclusion in RED_CONCLUSIONS:
            return RED
        return NEITHER

    def label(self) -> str:
        """``#412 (2026-11-24, red: failure)``: how a line names a run."""
        what = self.conclusion or self.status
        why = f", {self.why}" if self.why else ""
        return f"#{self.run_number} ({self.created_at:%Y-%m-%d}, {self.outcome}: {what}{why})"

    def to_json(self) -> dict:
        return {"id": self.id, "run_number": self.run_number, "status": self.status,
                "conclusion": self.conclusion, "outcome": self.outcome,
                "created_at": self.created_at.strftime("%Y-%m-%dT%H:%M:%SZ"),
                "html_url": self.html_url, "head_sha": self.head_sha, "event": self.event,
                "head_branch": self.head_branch, "why": self.why}


def run_from(data: object) -> NightlyRun:
    """A ``NightlyRun`` from one element of ``workflow_runs``, its members checked
    (``MalformedAnswer`` when GitHub's answer is not what it documents)."""
    run = shapes.check(data, shapes.WORKFLOW_RUN, "workflow run")
    created = shapes.time_of(run, "created_at")
    assert created is not None  # TIME: checked
    event, branch = run.get("event"), run.get("head_branch")
    # status and conclusion are nullable: absent reads as null, as ``Maybe`` lets it through
    return NightlyRun(run["id"], run["run_number"], run.get("status") or "unknown", run.get("conclusion"),
                      created, run["html_url"], run["head_sha"],
                      event if isinstance(event, str) else "unknown",
                      branch if isinstance(branch, str) else None)


def iter_runs(client: GitHubClient, owner: str, repo: str, *, workflow: str = NIGHTLY_WORKFLOW,
              branch: str | None = None, status: str | None = None,
              page_size: int = PAGE_SIZE) -> Iterator[NightlyRun]:
    """The workflow's runs, newest first, read a page at a time as the caller consumes them
    (stop early and no further page is asked for). ``branch`` keeps the runs of that head
    branch (a nightly runs on the default branch; a run on a pull request's branch is not
    a nightly); ``status`` is GitHub's filter (a status or a conclusion)."""
    params: dict[str, object] = {"per_page": page_size, "exclude_pull_requests": "true"}
    if branch:
        params["branch"] = branch
    if status:
        params["status"] = status
    path = f"/repos/{owner}/{repo}/actions/workflows/{workflow}/runs"
    for data in client.paginate(path, params, key="workflow_runs"):
        yield run_from(data)


def recent_runs(client: GitHubClient, owner: str, repo: str, count: int, *,
                workflow: str = NIGHTLY_WORKFLOW, branch: str | None = None) -> list[NightlyRun]:
    """The newest ``count`` runs (fewer when there are fewer), newest first: the dashboard's
    "last N nightlies"."""
    size = max(1, min(count, 100))
    return list(itertools.islice(iter_runs(client, owner, repo, workflow=workflow, branch=branch,
                                           page_size=size), max(count, 0)))


def judge_failed(jobs: Iterable[object], gates: Mapping[str, str] = GATE_STEPS, *,
                 line: str | None = None) -> tuple[str, str]:
    """(outcome, why) of a failed run for ``line`` from its jobs (``GET .../runs/{id}/jobs``,
    checked; only that line's, ``of_line``): RED when a step of ``gates`` failed, or its job
    failed or timed out while in it; GREEN when the publishing step succeeded (a later job
    failed); NEITHER otherwise."""
    published = False
    for data in jobs:
        job = fields(data, "workflow job", name=str, conclusion=(str, type(None)), steps=(list, type(None)))
        if not of_line(job["name"], line):
            continue
        for raw in job.get("steps") or []:
            step = fields(raw, "workflow job step", name=str, conclusion=(str, type(None)))
            gate = gates.get(step["name"])
            if gate is not None and (step.get("conclusion") in RED_CONCLUSIONS or (
                    step.get("conclusion") == "cancelled" and job.get("conclusion") in RED_CONCLUSIONS)):
                return RED, f"{gate} failed in {sanitize.line(job['name'])[:80]}"
            published |= step["name"] == PUBLISHING_STEP and step.get("conclusion") == "success"
    if published:
        return GREEN, "published; only a later job failed"
    return NEITHER, f"no gate failed ({', '.join(dict.fromkeys(gates.values()))})"


def with_gates(client: GitHubClient, owner: str, repo: str, runs: Iterable[NightlyRun], *,
               line: str | None = None) -> Iterator[NightlyRun]:
    """``runs`` with each failed one judged by ``line``'s jobs (every job: None; one more
    request per red run, made only when the caller gets that far)."""
    for run in runs:
        if run.outcome == RED:
            jobs = client.paginate(f"/repos/{owner}/{repo}/actions/runs/{run.id}/jobs",
                                   {"per_page": 100, "filter": "latest"}, key="jobs")
            outcome, why = judge_failed(jobs, line=line)
            run = dataclasses.replace(run, judged=outcome, why=why)
        yield run
