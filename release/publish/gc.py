"""``release gc``: delete the published nightlies the retention rule lets go (and their tags),
and this tool's stale nightly drafts.

Which nightlies stay is ``release.publish.retention``'s one rule, shared with ``release index``: the
newest ``keep`` of each maintained line (none of a retired one), protected versions, and (with
``older_than_days``) the young ones. The same rule ranks this tool's nightly drafts on their own
(``decide_drafts``; today's and yesterday's always stay). A release, a release candidate, a
post release, or a draft of anything else or of someone else is never touched.
"""

from __future__ import annotations

import datetime as _dt
from typing import Callable

from release.publish.retention import Retention, decide, decide_drafts
from release.publish.stores import Release, Store


def plan_gc(releases: list[Release], rule: Retention,
            now: _dt.datetime) -> tuple[list[Release], list[Release]]:
    """(to delete, kept) among the nightlies, newest first. Pure: no store, no clock."""
    decision = decide(releases, rule, now)
    return list(decision.expired), [k.release for k in decision.kept]


def collect(store: Store, rule: Retention, *, dry_run: bool, now: _dt.datetime,
            say: Callable[[str], None] = lambda _: None) -> dict:
    releases = store.list_releases()
    decision = decide(releases, rule, now)
    drafts = decide_drafts(releases, rule, now)
    for version in decision.unknown_protect:
        say(f"warning: --protect {version}: no published nightly has it")
    for rel in decision.expired:
        say(("would delete " if dry_run else "delete ") + f"{rel.tag} (release {rel.id} and its tag)")
        if not dry_run:
            store.delete_release(rel)
    gone: list[str] = []
    if drafts.stale:
        still = {r.id: r for r in store.list_releases()} if not dry_run else {r.id: r for r in releases}
        for rel in drafts.stale:
            now_rel = still.get(rel.id)
            if now_rel is None or not now_rel.draft:
                continue  # published (or deleted) since the listing: not a stale draft any more
            say(("would delete " if dry_run else "delete ") + f"stale draft {rel.tag} (release {rel.id}, "
                "never published)")
            if not dry_run:
                store.delete_release(now_rel)
            gone.append(rel.tag)
    return {"dry_run": dry_run, "keep": rule.keep, "older_than_days": rule.older_than_days,
            "store": store.kind, "where": store.where,
            "deleted": [r.tag for r in decision.expired], "kept": [k.release.tag for k in decision.kept],
            "deleted_drafts": gone, "kept_drafts": [k.release.tag for k in drafts.kept],
            "protected": decision.kept_for("protected"), "protect_missing": list(decision.unknown_protect)}
