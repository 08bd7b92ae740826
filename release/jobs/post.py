"""The post-release job: re-spin a published release as ``X.Y.Z.postN`` by promoting its
wheels (no rebuild); its steps are ``catalog.JOBS["post"]``, the shipping tail of every job."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from release.core import naming, versions
from release.core.errors import UserError
from release.jobs import catalog
from release.jobs.shared import check_publishable
from release.publish.drafts import previous_revisions

if TYPE_CHECKING:
    from release.jobs.runner import JobOptions, JobRun
    from release.publish.stores import Release, Store


def post_source(store: Store, number: int, base: str | None,
                line: str | None = None) -> tuple[Release, str]:
    """The published release to re-spin (``base``, default the newest release of ``line``,
    the jax line version_info.json is on: a post re-spins its own line, never a newer one's)
    and the ``X.Y.Z.postN`` it becomes; refused, as any release, when that would not be
    installable."""
    published = store.published()
    if base is None:
        latest = published.latest(("release",), line=line)
        if latest is None:
            of = f" of line {line}" if line else ""
            raise UserError(f"{store.where}: no published release{of} to re-spin; pass --from X.Y.Z")
        base = naming.version_of_tag(latest.tag, ("release",))
    source = published.find(base) if versions.kind_of(base) == "release" else None
    if source is None:
        raise UserError(f"{store.where}: {naming.release_tag(base)} is not a published release")
    version = versions.post(base, number)
    before = previous_revisions(store, source)
    if before is None:
        raise UserError(f"{source.tag} has no readable {naming.REVISIONS_ASSET} to re-spin")
    check_publishable(store, version, dataclasses.replace(before, version=version), published)
    return source, version


def run_post(job_run: JobRun, options: JobOptions, *, lock_timeout: float = 0) -> dict:
    """Re-spin ``job_run.source`` as ``job_run.version``: promote, then ship as any release."""
    if job_run.source is None:
        raise ValueError("a post release re-spins a published release")
    done = catalog.run("post", job_run, options, lock_timeout=lock_timeout)
    return {"version": job_run.version, "tag": job_run.tag, "kind": "post",
            "from": job_run.source.tag, "steps": [s.to_json() for s in done]}
