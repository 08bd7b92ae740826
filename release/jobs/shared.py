"""What the jobs decide before and between their steps: whether a version may be published
(``check_publishable``), whether a dist's wheels pass (``verify_dist``), and the draft a split
CI run's cells upload into (``open_draft``). The steps themselves are ``release.jobs.steps``,
in the order ``release.jobs.catalog`` declares.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from release.core import naming, versions
from release.core.errors import UserError

if TYPE_CHECKING:
    from release.build.plan import BuildPlan
    from release.core.output import Say
    from release.core.revisions import RevisionMap
    from release.publish.stores import Published, Release, Store


class CheckFailed(UserError):
    """Verification or validation found errors: the job stops, exit 1, the draft stays.

    ``findings`` lists every one (the message holds them all too: none is cut)."""

    exit_code = 1

    def __init__(self, message: str, findings: list[str] | None = None):
        super().__init__(message)
        self.findings = list(findings or [])


# ------------------------------------------------------------------ reading the store


def published_from(store: Store, version: str, revisions: RevisionMap,
                   published: Published | None = None) -> bool:
    """Whether ``version`` is published from these sources: a run that makes it again is a
    re-run (publishing it again is a no-op), not a new version."""
    from release.publish.drafts import previous_revisions
    published = published or store.published()
    found = published.find(version)
    if found is None:
        return False
    before = previous_revisions(store, found)
    return before is not None and before.same_sources(revisions)


def check_publishable(store: Store, plan_version: str, revisions: RevisionMap,
                      published: Published | None = None) -> None:
    """Refuse a version that would sort at or below what its line already published.

    ``versions.MUST_SORT_ABOVE`` says what each kind must sort above (``cut --rc 2`` after
    0.9.1 was published made 0.9.1rc2, which pip never picks). The same version already
    published is a re-run when its sources are these (publishing it again is a no-op), and
    refused when they differ: published releases are immutable.
    """
    published = published or store.published()
    blocker = versions.blocking_version(plan_version, published.versions())
    if blocker is None:
        return
    tag = naming.release_tag(plan_version)
    if blocker == plan_version:
        if published_from(store, plan_version, revisions, published):
            return
        kind = versions.kind_of(plan_version)
        hint = ("build tomorrow's, or switch version_info.json to nightly_scheme 'date-build' on "
                "the next version line" if kind == "nightly" else
                "re-spin as a higher .postN" if kind == "post" else
                "cut the next number, or a .postN of a release")
        raise UserError(f"{tag} is already published with other sources (releases are "
                        f"immutable); {hint}")
    from release.build.next_version import move_on
    move = ("re-spin as a higher .postN" if versions.kind_of(plan_version) == "post" else
            move_on(blocker, published.versions()))
    raise UserError(f"{plan_version} would sort below {blocker}, already published on "
                    f"{store.where}, so pip would never choose it; {move}")


# ------------------------------------------------------------------ checking a dist


def verify_dist(directory: Path, revisions: RevisionMap, say: Say,
                root: Path | None = None) -> dict[str, Any]:
    """Run every check over the wheels of a dist directory; errors stop the job, every one
    of them listed (on ``say`` and in the error)."""
    from release.build import bazel
    from release.check import verify
    options = verify.Options(runpath=tuple(bazel.configured_runpath(root)), revisions=revisions)
    reports = verify.verify_wheels(sorted(Path(directory).glob("*.whl")), options)
    errors = [f"{r.wheel.name}: {f.check}: {f.message}" for r in reports for f in r.errors]
    for report in reports:
        say(f"verify {report.wheel.name}: {'ok' if report.ok else 'FAILED'}")
    if errors:
        for error in errors:
            say(f"  - {error}")
        raise CheckFailed(f"verify found {len(errors)} error(s): " + "; ".join(errors),
                          findings=errors)
    return {"wheels": [r.wheel.name for r in reports]}


# ------------------------------------------------------------------ split runs (CI stages)


def open_draft(store: Store, plan: BuildPlan, say: Say) -> Release:
    """The one draft of the plan's tag, created if missing (the matrix cells upload into it)."""
    return store.find_or_create_draft(plan.tag, name=f"jax-rocm {plan.version}",
                                      body=f"{plan.kind} {plan.version}: wheels are being built.",
                                      prerelease=plan.prerelease,
                                      target=plan.revisions.release_commit, say=say)
