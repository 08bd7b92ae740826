"""What to bisect after a red nightly, so the workflow computes nothing in shell.

The good end is the last green nightly: the newest published one (a red nightly is never
published), with the pins of its ``revisions.json``. The bad end is what the red nightly built:
deps.yaml at the commit it ran from. There is nothing to do when the plugin pin did not move
between them (a bisect walks plugin commits), and when a culprit already named for this failure
lies between them (``known_in_range``): held in deps.yaml at HEAD, or in a hold PR, open, merged
or closed. So a second red night after a first one whose bisect named a culprit the pins still
contain starts no second bisect. Nor does a red night whose failure no probe can reproduce: a
probe builds, verifies and validates, so only a failure there is bisected (``probe_reproducible``,
from the run's jobs), never a smoke, upload or publish failure or a cell that got no runner.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from release.core.errors import UserError
from release.jobs.bisect import SOURCE
from release.publish.drafts import built_from

if TYPE_CHECKING:
    from release.core.config import Deps
    from release.core.output import Say
    from release.publish.stores import Release, Store
    from release.sources.github import GitHubClient
    from release.sources.holds import KnownHold


@dataclasses.dataclass(frozen=True)
class AfterRed:
    """The decision: ``bisect`` good..bad, or not, and the one line saying why."""

    bisect: bool
    line: str
    good: dict | None = None   # {"name": tag, "commits": {...}}
    bad: dict | None = None    # {"name": "deps.yaml at <sha7>", "commits": {...}}
    known: KnownHold | None = None

    def to_json(self) -> dict[str, Any]:
        return {"bisect": self.bisect, "line": self.line, "good": self.good, "bad": self.bad,
                "known": self.known.to_json() if self.known else None}


def known_in_range(deps: Deps, good: Mapping[str, str], bad: Mapping[str, str],
                   known: Sequence[KnownHold], cache: Path) -> KnownHold | None:
    """The first of ``known`` whose culprit the bad pins contain and the good ones do not: the
    failure between them already has its bisect and hold. A culprit the plugin's remote does
    not have is no answer."""
    from release.sources.git import Remote
    from release.sources.mirror import Mirror

    mine = [k for k in known if k.dep == SOURCE]
    if not mine or SOURCE not in deps.names or SOURCE not in good or SOURCE not in bad:
        return None
    dep = deps[SOURCE]
    with Mirror(cache, Remote(dep.name, dep.url)) as mirror:
        for end in (good[SOURCE], bad[SOURCE]):
            if not mirror.fetch_commit(end, trees=False):
                raise UserError(f"{SOURCE}: commit {end[:7]} is not on {mirror.remote.shown}")
        for hold in mine:
            if not mirror.fetch_commit(hold.commit, trees=False):
                continue
            if mirror.is_ancestor(hold.commit, bad[SOURCE]) and not mirror.is_ancestor(hold.commit, good[SOURCE]):
                return hold
    return None


def probe_reproducible(client: GitHubClient, owner: str, name: str, run_id: str) -> str | None:
    """None when the red run ``run_id`` failed where a bisect probe can fail again (its build,
    verify or validate: ``nightly_runs.PROBED_GATES``), else the line saying why not to bisect
    (the smoke test, an upload, publishing, a cell that never got a runner). Runs read from
    GitHub; a run whose jobs cannot be read is decided by the pins alone."""
    from release.core import sanitize
    from release.sources.github import GitHubError
    from release.sources.nightly_runs import PROBED_GATES, RED, judge_failed
    try:
        jobs = client.paginate(f"/repos/{owner}/{name}/actions/runs/{run_id}/jobs",
                               {"per_page": 100, "filter": "latest"}, key="jobs")
        outcome, why = judge_failed(jobs, PROBED_GATES)
    except GitHubError:
        return None
    if outcome == RED:
        return None
    return (f"not bisecting: run {sanitize.line(run_id)[:20]} has {why}, so no probe would fail again "
            "(a failed smoke test, upload or publish, or a cell without a runner, is not the pins'); "
            "see the run's log")


def after_red_nightly(store: Store, deps: Deps, bad: dict, known: Sequence[KnownHold], cache: Path, *,
                      good_tag: str | None = None, say: Say = lambda _: None) -> AfterRed:
    """Decide what to bisect after a red nightly whose pins are ``bad`` (see the module doc)."""
    release: Release | None
    if good_tag is None:
        last = store.published().latest(("nightly",))
        if last is None:
            return AfterRed(False, f"nothing to bisect: {store.where} has no published nightly, so "
                                   "no green end to start from", bad=bad)
        good_tag, release = last.tag, last
    else:
        release = store.published_for(good_tag)
        if release is None:
            raise UserError(f"{store.where}: no published release {good_tag}; expected the tag of the "
                            "last green nightly")
    commits: dict[str, str] = dict(built_from(store, release, good_tag).commits)
    good = {"name": good_tag, "commits": commits}
    if commits.get(SOURCE) == bad["commits"].get(SOURCE):
        return AfterRed(False, f"nothing to bisect: the {SOURCE} pin is {bad['commits'].get(SOURCE, '?')[:7]} "
                               f"in {good_tag} and in {bad['name']}; bisect walks {SOURCE} commits, so "
                               "this failure is not one of them (see the nightly's log)", good, bad)
    say(f"looking for a culprit already named between {good_tag} and {bad['name']}")
    hold = known_in_range(deps, commits, bad["commits"], known, cache)
    if hold is not None:
        return AfterRed(False, f"nothing to do: {SOURCE} {hold.commit[:7]}, between {good_tag} and "
                               f"{bad['name']}, is already the culprit ({hold.where})", good, bad, hold)
    return AfterRed(True, f"bisect {good_tag}..{bad['name']}: the last green nightly and the red one's pins "
                          f"({SOURCE} {commits[SOURCE][:7]}..{bad['commits'][SOURCE][:7]})",
                    good, bad)
