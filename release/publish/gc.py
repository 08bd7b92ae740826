"""``release gc``: delete the published nightlies the retention rule lets go (and their tags).

Which nightlies stay is ``release.publish.retention``'s one rule, shared with ``release index``: the
newest ``keep``, protected versions, and (with ``older_than_days``) the young ones. A release,
a release candidate, a post release or a draft is never touched.
"""

from __future__ import annotations

import datetime as _dt
from typing import Callable

from release.publish.retention import Retention, decide
from release.publish.stores import Release, Store


def plan_gc(releases: list[Release], rule: Retention,
            now: _dt.datetime) -> tuple[list[Release], list[Release]]:
    """(to delete, kept) among the nightlies, newest first. Pure: no store, no clock."""
    decision = decide(releases, rule, now)
    return list(decision.expired), [k.release for k in decision.kept]


def collect(store: Store, rule: Retention, *, dry_run: bool, now: _dt.datetime,
            say: Callable[[str], None] = lambda _: None) -> dict:
    decision = decide(store.list_releases(), rule, now)
    for version in decision.unknown_protect:
        say(f"warning: --protect {version}: no published nightly has it")
    for rel in decision.expired:
        say(("would delete " if dry_run else "delete ") + f"{rel.tag} (release {rel.id} and its tag)")
        if not dry_run:
            store.delete_release(rel)
    return {"dry_run": dry_run, "keep": rule.keep, "older_than_days": rule.older_than_days,
            "store": store.kind, "where": store.where,
            "deleted": [r.tag for r in decision.expired], "kept": [k.release.tag for k in decision.kept],
            "protected": decision.kept_for("protected"), "protect_missing": list(decision.unknown_protect)}
