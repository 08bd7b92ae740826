"""The post-release job: re-spin a published release as ``X.Y.Z.postN`` by promoting its
wheels (no rebuild); ``catalog.JOBS["post"]``: which release becomes which post (its plan
stage, here), then the respin and the shipping tail of every job."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, NamedTuple

from release.core import naming, versions
from release.core.errors import UserError

if TYPE_CHECKING:
    from release.core.revisions import RevisionMap
    from release.jobs.runner import JobRequest, OptionsView, Planned
    from release.publish.stores import Published, Release, Store


class PostSource(NamedTuple):
    source: Release        # the published release re-spun
    version: str           # the X.Y.Z.postN it becomes
    revisions: RevisionMap  # what that post is made of: the source's sources, re-versioned


def post_source(store: Store, number: int, base: str | None, line: str | None = None,
                published: Published | None = None) -> PostSource:
    """The published release to re-spin (``base``, default the newest release of ``line``,
    the jax line version_info.json is on: a post re-spins its own line, never a newer one's)
    and the ``X.Y.Z.postN`` it becomes. (Whether that may be published is the plan's next
    step, ``planning.publishable``.)"""
    published = published or store.published()
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
    from release.publish.drafts import previous_revisions  # the drafts' stack: only with a store
    before = previous_revisions(store, source)
    if before is None:
        raise UserError(f"{source.tag} has no readable {naming.REVISIONS_ASSET} to re-spin")
    return PostSource(source, version, dataclasses.replace(before, version=version))


def post_release(request: JobRequest, _opts: OptionsView, planned: Planned) -> Planned:
    """The post's plan step: the release re-spun (``--from``, or ``--tag``'s release, or the
    newest of version_info.json's line) and the version it becomes."""
    if planned.store is None or request.number is None:
        raise ValueError("a post re-spins from the store, as post N")
    base = request.base
    if request.tag and not base:
        base = naming.version_of_tag(request.tag, ("release",))
    source, version, revisions = post_source(planned.store, request.number, base,
                                             request.project.version_info.line, planned.listing)
    return dataclasses.replace(planned, source=source, kind="post", version=version,
                               revisions=revisions)
