"""Retention for nightly prereleases: delete all but the newest N (and their tags).

Only published prereleases whose tag carries a nightly version are candidates; a
release, a release candidate, a post release or a draft is never touched, and
neither are the newest ``keep`` nightlies, whatever their age. ``older_than``
narrows the candidates to those published more than that many days ago.
"""

from __future__ import annotations

import datetime as _dt
from typing import Callable

from packaging.version import InvalidVersion, Version

from release import naming, versions
from release.errors import UserError
from release.stores import Release, Store


def nightly_version(release: Release) -> Version | None:
    text = naming.version_from_tag(release.tag)
    if text is None or release.draft or not release.prerelease:
        return None
    try:
        return Version(text) if versions.kind_of(text) == "nightly" else None
    except InvalidVersion:
        return None


def plan_gc(releases: list[Release], keep: int, older_than_days: float | None,
            now: _dt.datetime) -> tuple[list[Release], list[Release]]:
    """(to delete, kept) among the nightlies, newest first. Pure: no store, no clock."""
    if keep < 1:
        raise UserError(f"--keep {keep}: expected at least 1 (the newest nightly always stays)")
    if older_than_days is not None and older_than_days < 0:
        raise UserError(f"--older-than {older_than_days}: expected a number of days >= 0")
    nightlies = sorted(((v, r) for r in releases if (v := nightly_version(r)) is not None),
                       key=lambda pair: pair[0], reverse=True)
    kept = [r for _, r in nightlies[:keep]]
    delete = []
    for _, rel in nightlies[keep:]:
        if older_than_days is not None:
            when = rel.published_at or rel.created_at
            if when is None or now - when < _dt.timedelta(days=older_than_days):
                kept.append(rel)
                continue
        delete.append(rel)
    return delete, kept


def collect(store: Store, keep: int, older_than_days: float | None, *, dry_run: bool,
            now: _dt.datetime, say: Callable[[str], None] = lambda t: None) -> dict:
    delete, kept = plan_gc(store.list_releases(), keep, older_than_days, now)
    for rel in delete:
        say(("would delete " if dry_run else "delete ") + f"{rel.tag} (release {rel.id} and its tag)")
        if not dry_run:
            store.delete_release(rel)
    return {"dry_run": dry_run, "keep": keep, "older_than_days": older_than_days,
            "store": store.kind, "where": store.where,
            "deleted": [r.tag for r in delete], "kept": [r.tag for r in kept]}
