"""The job functions the commands call: each decides with its job's declared plan steps
(``release.jobs.runner.run_plan``), runs the job's steps (``release.jobs.catalog``) and
returns what the run says (``JobResult``: the ``--json`` data, the ``$GITHUB_OUTPUT`` keys,
the summary), which the command only prints. Which job of ``catalog.JOBS`` runs is the
request's stage: the whole job, a split run's plan (``*-plan``) or finish (``*-finish``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from release.core import naming, versions
from release.jobs import catalog
from release.jobs.planning import job_run
from release.jobs.runner import JobResult, run_plan

if TYPE_CHECKING:
    from release.jobs.pipeline import StepResult
    from release.jobs.runner import JobOptions, JobRequest


def _job(family: str, stage: str | None) -> str:
    return {"plan": f"{family}-plan", "finish": f"{family}-finish"}.get(stage or "", family)


def run_nightly(request: JobRequest, options: JobOptions) -> JobResult:
    """Tonight's nightly: its dry run (``open_store`` None: the plan, changing nothing), its
    plan stage, its finish stage, or the whole job; each decides with the declared plan steps
    of its job, then runs the job's steps."""
    job = catalog.JOBS[_job("nightly", request.stage)]
    planned = run_plan(job.plan, request, options)
    plan = planned.plan
    if plan is None or request.now is None:
        raise ValueError("a nightly's plan stage plans it")
    # ``now``: the plan's clock, which CI hands every later job as $RELEASE_NOW, so a job
    # re-run on a later day still builds and publishes the plan's nightly.
    keys = {"date": (request.date or request.now.date()).isoformat(),
            "now": request.now.isoformat(timespec="seconds").replace("+00:00", "Z"),
            "version": plan.version, "tag": plan.tag}
    if request.open_store is None:
        return JobResult(plan.to_json() | {"public_index": dict(planned.public_check)}, keys,
                         f"### nightly {plan.version} (dry run)\n\n`{plan.tag}`: "
                         + ", ".join(f"`{a}`" for a in plan.assets), plan)
    summary = f"### nightly {plan.version}\n\n"
    if request.stage == "finish":
        done = catalog.run(job.name, job_run(request, planned), options,
                           lock_timeout=request.lock_timeout)
        return JobResult({"version": plan.version, "tag": plan.tag, "stage": "finish",
                          "steps": [s.to_json() for s in done]}, {"published": "true", **keys},
                         summary + "published", plan)
    done = [] if not planned.changed else catalog.run(
        job.name, job_run(request, planned), options, lock_timeout=request.lock_timeout,
        announce=planned.reason)   # first, once the lock is held: why this run builds
    if request.stage == "plan" or not planned.changed:
        request.out.line(planned.reason)  # the one line a night without a build prints
    outputs = {"changed": str(bool(planned.changed)).lower(), **keys}
    if request.stage == "plan":
        data = {"stage": "plan", "changed": bool(planned.changed), "reason": planned.reason} | keys
    else:
        data = {"version": plan.version, "tag": plan.tag, "built": bool(planned.changed),
                "reason": planned.reason, "last_nightly": planned.last,
                "steps": [s.to_json() for s in done]}
    return JobResult(data, outputs, summary + planned.reason, plan)


def run_cut(request: JobRequest, options: JobOptions) -> JobResult:
    """``release cut``: a post re-spin (kind ``post``), a split run's plan or finish stage, or
    the whole cut of an rc or a release; each decides with its job's declared plan steps,
    then runs the job's steps."""
    name = "post" if request.kind == "post" else _job("cut", request.stage)
    job = catalog.JOBS[name]
    planned = run_plan(job.plan, request, options)
    version = planned.version
    if version is None:
        raise ValueError("a cut's plan stage chooses its version")
    tag = naming.release_tag(version)
    if planned.done is not None:   # only a pushed tag's plan stage stops early: published
        request.out.line(planned.done)
        return JobResult({"stage": "plan", "published": True, "version": version, "tag": tag},
                         {"published": "true", "version": version, "tag": tag},
                         _summary(version, []))
    done = catalog.run(name, job_run(request, planned), options, lock_timeout=request.lock_timeout)
    if name == "cut-plan":
        number = planned.number
        return JobResult({"stage": "plan", "kind": planned.kind, "number": number,
                          "version": version, "tag": tag},
                         {"kind": planned.kind or "", "number": "" if number is None else str(number),
                          "version": version, "tag": tag}, _summary(version, []), planned.plan)
    more = ({"from": planned.source.tag} if planned.source is not None else
            {"stage": "finish"} if name == "cut-finish" else {})
    data: dict[str, Any] = {"version": version, "tag": tag,
                            "kind": planned.kind or versions.kind_of(version), **more,
                            "steps": [s.to_json() for s in done]}
    moved = next((dict(s.outputs) for s in done if s.name == "next-version"), None)
    if moved is not None:
        data["next"] = moved
    return JobResult(data, {"version": version, "tag": tag,
                            "next-version": (moved or {}).get("next_version", "")},
                     _summary(version, done), planned.plan)


def _summary(version: str, done: list[StepResult]) -> str:
    return f"### cut {version}\n\n" + " ".join(f"{s.name}:{'ran' if s.ran else 'skipped'}"
                                              for s in done)
