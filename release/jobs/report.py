"""The roller report, gathered once for ``release dashboard`` and ``release status``.

What it holds (``release.core.roller_report.Report``, which also renders it): roller.yaml's
mode and cooldown as bump reads them (committed at HEAD), the throttle, each pin with its
commit's age by the run's clock (``ReportOptions.now``, never the wall clock), the last
nightlies from the nightly workflow's runs (each with the version published from its day), the
open bump and hold pull requests and the bisects still running. Whatever could not be read is
one line of ``Report.unread``, never an error: the report is a view, and half a view is still
worth showing.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from release.core.config import Deps, Project
    from release.core.roller_report import Report
    from release.publish.stores import Store
    from release.sources.github import GitHubClient

NIGHTLIES = 14  # the last two weeks, by default
BISECT_RUNS_READ = 10  # the newest bisect runs looked at for the ones still going


@dataclasses.dataclass(frozen=True)
class OnGitHub:
    """This repository on GitHub, where its workflow runs, pull requests and issues are."""

    client: GitHubClient
    owner: str
    name: str


@dataclasses.dataclass(frozen=True)
class ReportOptions:
    """What to gather. ``fetch``: a pinned commit the git cache lacks is fetched for its time
    (status reads the cache only); ``merged``: the pins of deps.yaml at the base branch's tip on
    origin (the dashboard: a bump merged in its job is shown), else the checkout's;
    ``this_run``: (run id, conclusion) of the workflow run writing the dashboard, still in
    progress on GitHub, shown as it ends; ``base``: the branch bump and hold PRs go into (None:
    the checkout's, else main)."""

    now: _dt.datetime
    nightlies: int = NIGHTLIES
    base: str | None = None
    fetch: bool = False
    merged: bool = False
    this_run: tuple[int, str] | None = None
    bisect: str | None = None   # this nightly's bisect, one line (``dashboard.bisect_line``)


def gather_report(project: Project, options: ReportOptions, github: OnGitHub | None,
                  store: Store | None) -> Report:
    """The report as of ``options.now``. ``github`` None: nothing read from GitHub (said in
    ``unread``); ``store`` None: nightlies shown without versions."""
    from release.core.errors import ReleaseError
    from release.core.project_root import cache_dir
    from release.core.roller import RUNNING, not_asked
    from release.core.roller_report import Report
    from release.sources import dashboard
    from release.sources.repo import committed_roller

    roller, roller_warning = committed_roller(project.root)
    roller = roller.at(options.now)
    deps, unread = (_merged_deps(project, options.base) if options.merged else (project.deps, ()))
    pins, pin_unread = dashboard.pin_times(deps, cache_dir(project.root), fetch=options.fetch)
    unread += pin_unread + ((roller_warning,) if roller_warning else ())
    throttle_line = not_asked(roller)
    report: dict[str, Any] = {"nightlies": None}
    if github is None:
        unread += ("nightlies, pull requests and bisects: GitHub not asked (no GITHUB_TOKEN and "
                   "GITHUB_REPOSITORY, or --offline)",)
    else:  # what only GitHub answers: loaded only when it is asked
        from release.sources import nightly_runs
        from release.sources.throttle import read as read_throttle
        client, owner, name = github.client, github.owner, github.name
        branch = options.base or base_branch(project.root)
        throttle_line = read_throttle(roller, client, owner, name, branch=branch).line()
        try:
            this_run = options.this_run
            runs = [dataclasses.replace(r, status="completed", conclusion=this_run[1])
                    if this_run and r.id == this_run[0] else r
                    for r in nightly_runs.recent_runs(client, owner, name, options.nightlies, branch=branch)]
            store_unread: list[str] = []
            report["nightlies"] = dashboard.runs_shown(runs, versions_by_day(store, store_unread))
            unread += tuple(store_unread)
            bisects = nightly_runs.recent_runs(client, owner, name, BISECT_RUNS_READ, workflow="bisect.yml",
                                               branch=branch)
            report["bisects"] = tuple(r for r in dashboard.runs_shown(bisects) if r.outcome == nightly_runs.RUNNING)
        except ReleaseError as exc:
            unread += (f"nightly and bisect runs: {exc}",)
        try:
            report["bump"], report["holds"] = dashboard.open_pulls(client, owner, name, branch)
        except ReleaseError as exc:
            unread += (f"pull requests: {exc}",)
    return Report(now=options.now, mode=roller.mode, cooldown_hours=roller.cooldown_hours,
                  roller_file=roller.source, pins=pins,
                  throttle=throttle_line and throttle_line.removeprefix("throttle: "),
                  unread=unread, bisect=options.bisect, **report,
                  until=roller.until if roller.mode != RUNNING else None)  # a pause past it is running


def _merged_deps(project: Project, base: str | None) -> tuple[Deps, tuple[str, ...]]:
    """deps.yaml at the base branch's tip on origin, else (no checkout, no origin or branch: said
    in one line when it could not be read) the checkout's."""
    from release.core.config import parse_deps
    from release.core.errors import ReleaseError, UserError
    from release.sources.repo import ReleaseRepo
    try:
        repo = ReleaseRepo(project.root)
    except UserError:
        return project.deps, ()  # not a checkout: the files are all there is
    branch = base or base_branch(project.root)
    try:
        text = repo.text_at_remote_tip(branch, project.deps.path)
    except ReleaseError as exc:
        return project.deps, (f"deps.yaml on origin's {branch}: {exc}; the checkout's pins are shown",)
    return (project.deps, ()) if text is None else (parse_deps(project.deps.path, text), ())


def versions_by_day(store: Store | None, unread: list[str]) -> dict[str, str]:
    """``YYYY-MM-DD`` -> the nightly published for that day (its version's dev date; two of one
    day: the newest); an unreadable store is a line in ``unread`` and no versions."""
    from release.core import versions
    from release.core.errors import ReleaseError
    from release.publish.records import Published
    if store is None:
        return {}
    try:
        releases = store.list_releases()
    except ReleaseError as exc:
        unread.append(f"nightly versions (the store): {exc}")
        return {}
    days: dict[str, str] = {}
    for version, _ in reversed(Published.of(releases).entries):  # oldest first: newest wins
        if versions.kind_of(str(version)) == "nightly" and version.dev is not None:
            stamp = str(version.dev)[:8]
            days[f"{stamp[:4]}-{stamp[4:6]}-{stamp[6:8]}"] = str(version)
    return days


def base_branch(root: Path) -> str:
    """The checkout's branch, else ``main`` (a detached checkout, as CI may make)."""
    from release.core.errors import ReleaseError
    from release.sources.repo import ReleaseRepo
    try:
        return ReleaseRepo(root).current_branch()
    except (ReleaseError, OSError):
        return "main"
