"""The nightly job: build tonight only when the pins or this repository's commit moved
since the last published nightly, then build, verify, draft, validate, publish and gc."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from release.core import versions
from release.jobs import catalog
from release.jobs.shared import check_publishable
from release.publish.drafts import previous_revisions

if TYPE_CHECKING:
    from release.build.plan import BuildPlan
    from release.core.revisions import RevisionMap
    from release.jobs.runner import JobOptions, JobRun
    from release.publish.stores import Release, Store


@dataclasses.dataclass(frozen=True)
class NightlyDecision:
    build: bool
    reason: str
    last: str | None  # tag of the last published nightly


def decide_nightly(store: Store, plan: BuildPlan) -> NightlyDecision:
    """Whether tonight's nightly must be built, and why (one line for people)."""
    published = store.published()
    versions.check_scheme(published.versions(), plan.version)
    last = published.latest(("nightly",))
    before = None
    if last is not None:
        before = previous_revisions(store, last)
        if before is not None and before.same_sources(plan.revisions):
            return NightlyDecision(False, f"no build: nothing changed since {last.tag} (same pins, "
                                          "same release commit)", last.tag)
    check_publishable(store, plan.version, plan.revisions, published)
    return NightlyDecision(True, _build_reason(last, before, plan.revisions), last.tag if last else None)


def _build_reason(last: Release | None, before: RevisionMap | None, now: RevisionMap) -> str:
    """Why tonight builds, in one line: which pins moved, or that only this repository did."""
    if last is None:
        return "building: first nightly"
    if before is None:
        return f"building: {last.tag} has no readable revisions.json to compare with"
    moved = [f"{name} {before.commits[name][:7]}..{commit[:7]}" for name, commit in now.commits.items()
             if before.commits.get(name) != commit]
    if moved:
        return f"building: pins moved since {last.tag}: {', '.join(moved)}"
    return (f"building: only this repository changed since {last.tag} (release commit "
            f"{(before.release_commit or '?')[:7]}..{(now.release_commit or '?')[:7]})")


def run_nightly(job_run: JobRun, options: JobOptions, *, lock_timeout: float = 0) -> dict:
    """The whole nightly: decide, then the steps ``catalog.JOBS["nightly"]`` declares."""
    plan = job_run.plan
    if plan is None:
        raise ValueError("a nightly runs from its plan")
    decision = decide_nightly(job_run.store, plan)
    result = {"version": plan.version, "tag": plan.tag, "built": decision.build,
              "reason": decision.reason, "last_nightly": decision.last}
    if not decision.build:
        job_run.out.line(decision.reason)  # the one line a night without a build prints
        return result | {"steps": []}
    done = catalog.run("nightly", job_run, options, lock_timeout=lock_timeout,
                       announce=decision.reason)  # first: why this run builds
    return result | {"steps": [s.to_json() for s in done]}
