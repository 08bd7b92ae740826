"""The nightly job: build tonight only when the pins or this repository's commit moved
since the last published nightly, then build, verify, draft, validate, publish and gc.

A nightly whose only moved pin is the plugin, moved only outside ``jax_rocm_plugin/`` (the
tree the build reads; most rocm-jax commits are CI, docker and docs), builds nothing either,
as bisect judges "changes the build" (``release.jobs.bisect.BUILD_TREE``)."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Callable

from release.core import versions
from release.jobs import catalog
from release.jobs.bisect import BUILD_TREE, SOURCE
from release.jobs.shared import check_publishable
from release.publish.drafts import previous_revisions

if TYPE_CHECKING:
    from release.build.plan import BuildPlan
    from release.core.config import Project
    from release.core.revisions import RevisionMap
    from release.jobs.runner import JobOptions, JobRun
    from release.publish.stores import Release, Store


@dataclasses.dataclass(frozen=True)
class NightlyDecision:
    build: bool
    reason: str
    last: str | None  # tag of the last published nightly


# (old, new) -> the paths that differ between two plugin commits; None when they cannot be read
PluginPaths = Callable[[str, str], "set[str] | None"]


def decide_nightly(store: Store, plan: BuildPlan, plugin_paths: PluginPaths | None = None) -> NightlyDecision:
    """Whether tonight's nightly must be built, and why (one line for people). With
    ``plugin_paths``, a plugin that moved only outside the build tree builds nothing."""
    published = store.published()
    versions.check_scheme(published.versions(), plan.version)
    # the last nightly of this line: another maintained line's nights are not this one's sources
    last = published.latest(("nightly",), line=versions.base_of(plan.version))
    before = None
    if last is not None:
        before = previous_revisions(store, last)
        if before is not None and before.same_sources(plan.revisions):
            return NightlyDecision(False, f"no build: nothing changed since {last.tag} (same pins, "
                                          "same release commit)", last.tag)
        if last is not None and before is not None and plugin_paths is not None:
            skip = _outside_build_tree(last.tag, before, plan.revisions, plugin_paths)
            if skip is not None:
                return NightlyDecision(False, skip, last.tag)
    check_publishable(store, plan.version, plan.revisions, published)
    return NightlyDecision(True, _build_reason(last, before, plan.revisions), last.tag if last else None)


def _outside_build_tree(tag: str, before: RevisionMap, now: RevisionMap, plugin_paths: PluginPaths) -> str | None:
    """The no-build line when only the plugin pin moved and nothing under BUILD_TREE changed."""
    moved = {name for name, commit in now.commits.items() if before.commits.get(name) != commit}
    if set(before.commits) != set(now.commits) or moved != {SOURCE}:
        return None
    old, new = before.commits[SOURCE], now.commits[SOURCE]
    paths = plugin_paths(old, new)
    if paths is None or any(p.startswith(BUILD_TREE) for p in paths):
        return None
    shown = ", ".join(sorted(paths)[:3]) + (f" and {len(paths) - 3} more" if len(paths) > 3 else "")
    return (f"no build: only {SOURCE} moved since {tag} ({old[:7]}..{new[:7]}), and only outside "
            f"{BUILD_TREE} ({shown or 'no file'}); the build reads nothing that changed")


def mirror_paths(project: Project) -> PluginPaths:
    """``PluginPaths`` over the plugin's cached mirror (trees only); None when a commit
    cannot be read, so a doubt builds."""
    def paths(old: str, new: str) -> set[str] | None:
        from release.core.errors import ReleaseError
        from release.sources.checkout import cache_dir
        from release.sources.git import Remote
        from release.sources.mirror import Mirror
        if SOURCE not in project.deps.names:
            return None
        dep = project.deps[SOURCE]
        try:
            with Mirror(cache_dir(project.root), Remote(dep.name, dep.url)) as mirror:
                if not (mirror.fetch_commit(old) and mirror.fetch_commit(new)):
                    return None
                return mirror.changed_paths(old, new)
        except ReleaseError:
            return None
    return paths


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
    decision = decide_nightly(job_run.store, plan, mirror_paths(job_run.project))
    result = {"version": plan.version, "tag": plan.tag, "built": decision.build,
              "reason": decision.reason, "last_nightly": decision.last}
    if not decision.build:
        job_run.out.line(decision.reason)  # the one line a night without a build prints
        return result | {"steps": []}
    done = catalog.run("nightly", job_run, options, lock_timeout=lock_timeout,
                       announce=decision.reason)  # first: why this run builds
    return result | {"steps": [s.to_json() for s in done]}
