"""The nightly job: build tonight only when the pins or this repository's commit moved
since the last published nightly, then build, verify, draft, validate, publish and gc
(``catalog.JOBS["nightly"]``: its plan stage, then its steps).

A nightly whose only moved pin is the plugin, moved only outside ``jax_rocm_plugin/`` (the
tree the build reads; most rocm-jax commits are CI, docker and docs), builds nothing either,
as bisect judges "changes the build" (``release.jobs.plugin_tree``, one rule for both)."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Callable

from release.core import versions
from release.jobs.plugin_tree import BUILD_TREE, SOURCE

if TYPE_CHECKING:
    from release.build.plan import BuildPlan
    from release.core.config import Project
    from release.core.revisions import RevisionMap
    from release.jobs.runner import JobRequest, OptionsView, Planned
    from release.publish.stores import Published, Release, Store


@dataclasses.dataclass(frozen=True)
class NightlyDecision:
    """Whether tonight builds, and why, against the last published nightly."""

    build: bool
    reason: str
    last: str | None  # tag of the last published nightly


# (old, new) -> the paths that differ between two plugin commits; None when they cannot be read
PluginPaths = Callable[[str, str], "set[str] | None"]


def decide_nightly(store: Store, plan: BuildPlan, plugin_paths: PluginPaths | None = None,
                   published: Published | None = None) -> NightlyDecision:
    """Whether tonight's nightly must be built, and why (one line for people). With
    ``plugin_paths``, a plugin that moved only outside the build tree builds nothing.
    (Whether a build may be published is the plan's next step, ``planning.publishable``.)"""
    published = published or store.published()
    versions.check_scheme(published.versions(), plan.version)
    # the last nightly of this line: another maintained line's nights are not this one's sources
    last = published.latest(("nightly",), line=versions.base_of(plan.version))
    before = None
    if last is not None:
        from release.publish.drafts import previous_revisions  # the drafts' stack: only with a store
        before = previous_revisions(store, last)
        if before is not None and before.same_sources(plan.revisions):
            return NightlyDecision(False, f"no build: nothing changed since {last.tag} (same pins, "
                                          "same release commit)", last.tag)
        if last is not None and before is not None and plugin_paths is not None:
            skip = _outside_build_tree(last.tag, before, plan.revisions, plugin_paths)
            if skip is not None:
                return NightlyDecision(False, skip, last.tag)
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


# ---------------------------------------------------------------- the nightly's plan steps


def nightly_version(request: JobRequest, _opts: OptionsView, planned: Planned) -> Planned:
    """Tonight's plan: a released line's nightlies sort above what it published, wherever it
    was published (the store, once read, and the public index). Run before the store is
    opened too, so a bad --date or --python is refused before a store (or its token) is asked."""
    from release.build.plan import make_plan
    from release.sources.git import head_of
    if request.now is None:
        raise ValueError("a nightly is planned on the run's clock")
    plan = make_plan(request.project, "nightly", date=request.date or request.now.date(),
                     build_number=request.build_number, pythons=request.pythons,
                     release_commit=head_of(request.project.root, enclosing=True),
                     today=request.now.date(), force=request.force, published=planned.published())
    return dataclasses.replace(planned, plan=plan, kind="nightly", version=plan.version,
                               revisions=plan.revisions)


def changed(request: JobRequest, _opts: OptionsView, planned: Planned) -> Planned:
    """Whether tonight builds (``decide_nightly``); a night without a build is done here."""
    if planned.store is None or planned.plan is None:
        raise ValueError("a nightly decides from its plan and the store")
    decision = decide_nightly(planned.store, planned.plan, mirror_paths(request.project),
                              planned.listing)
    return dataclasses.replace(planned, changed=decision.build, reason=decision.reason,
                               last=decision.last, done=None if decision.build else decision.reason)
