"""``release dashboard``: write how the roller is doing into the one dashboard issue.

The report (``release.core.roller_report``) is gathered here once, for this command and for
``release status``: roller.yaml's mode and cooldown, the throttle, each pin with its commit's age
by the run's clock (``$RELEASE_NOW``), the last nightlies from the nightly workflow's runs (each
with the version published from its day), the open bump and hold pull requests and the bisects
still running. The issue is opened once and edited only when its body changes
(``release.sources.dashboard``). The bump and nightly workflows call it last.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from release.commands._common import add_store_options, now_utc, open_store_from_args, project
from release.core import flags, output

if TYPE_CHECKING:
    import argparse

    from release.core.config import Deps, Project
    from release.core.output import Output
    from release.core.roller_report import Report
    from release.publish.stores import Store
    from release.sources.github import GitHubClient

HELP = "open or edit the one dashboard issue: roller mode, pins and their age, nightlies, holds"
NIGHTLIES = 14  # the last two weeks, by default
BISECT_RUNS_READ = 10  # the newest bisect runs looked at for the ones still going


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_store_options(parser)
    parser.add_argument("--dry-run", action="store_true",
                        help="print the body and what would be sent; write nothing")
    add_report_options(parser)
    parser.add_argument("--this-run", choices=("success", "failure", "cancelled"), metavar="CONCLUSION",
                        help="this workflow run ($GITHUB_RUN_ID, a nightly writing the dashboard as its "
                             "last job, still in progress) ends with CONCLUSION: success, failure or "
                             "cancelled")
    parser.add_argument("--author", metavar="LOGIN",
                        help="whose dashboard it is (default: the token's own login, or "
                             "github-actions[bot] for an Actions token); only that author's issues "
                             "count. By hand with your own token: --author github-actions[bot] edits "
                             "the workflows' dashboard and never opens one as you")


def add_report_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--nightlies", type=flags.count(1, 100), default=NIGHTLIES, metavar="N",
                        help=f"how many of the last nightlies to show (default {NIGHTLIES})")
    parser.add_argument("--base", metavar="BRANCH",
                        help="the branch bump and hold PRs go into (default: the checkout's branch, "
                             "else main)")


def run(args: argparse.Namespace, out: Output) -> int:
    import os

    from release.core import roller_report
    from release.core.errors import UserError
    from release.sources import dashboard
    from release.sources.github import DASHBOARD, GitHubClient
    from release.sources.pull_requests import repository_from_env
    proj = project(args)
    owner, name = args.repo.split("/", 1) if args.repo else repository_from_env(flag="--repo")
    client = GitHubClient.from_env(console=out.progress_console(), needs=DASHBOARD)
    store = open_store_from_args(args, out, read_only=True, writes=False)
    this_run = None
    if args.this_run:
        run_id = os.environ.get("GITHUB_RUN_ID", "")
        if not run_id.isdigit():
            raise UserError(f"--this-run needs GITHUB_RUN_ID, this workflow run's id (GitHub Actions "
                            f"sets it); it is {run_id!r}")
        this_run = (int(run_id), args.this_run)
    report = gather(proj, client, owner, name, store, nightlies=args.nightlies,
                    base=args.base, fetch=True, merged=True, this_run=this_run)
    body = roller_report.markdown(report)
    writer = dashboard.token_login(client)  # None: an installation token (the workflows')
    login = args.author or writer or dashboard.ACTIONS_LOGIN
    result = dashboard.sync_issue(client, owner, name, body, login=login, dry_run=args.dry_run,
                                  may_open=writer is None or writer == login)
    line = result.line()
    data = {"issue": result.to_json(), "line": line, "report": report.to_json()}
    if args.dry_run:
        data["body"] = body
    output.github_output({"issue": str(result.number or ""), "action": result.action})
    output.step_summary(f"## dashboard\n\n{line}\n")

    def human(console: Any) -> None:
        if args.dry_run:
            print(body, file=out.stream)
        console.print(line, markup=False)
    out.result(data, human)
    return 0


def gather(proj: Project, client: GitHubClient | None, owner: str, name: str, store: Store | None, *,
           nightlies: int = NIGHTLIES, base: str | None = None, fetch: bool = False,
           merged: bool = False, this_run: tuple[int, str] | None = None) -> Report:
    """The report as of the run's clock. ``client`` None: nothing read from GitHub (said in
    ``unread``); ``store`` None: nightlies shown without versions; ``fetch``: a pinned commit the
    git cache lacks is fetched for its time (status reads the cache only); ``merged``: the pins
    of deps.yaml at the base branch's tip on origin (the dashboard: a bump merged in its job is
    shown), else the checkout's; ``this_run``: (run id, conclusion) of the workflow run writing
    the dashboard, still in progress on GitHub, shown as it ends."""
    import dataclasses

    from release.core.errors import ReleaseError
    from release.core.roller_report import Report
    from release.sources import dashboard, nightly_runs
    from release.sources.checkout import cache_dir
    from release.sources.repo import committed_roller
    from release.sources.throttle import not_asked
    from release.sources.throttle import read as read_throttle

    roller, roller_warning = committed_roller(proj.root)  # as bump reads it: committed at HEAD
    roller = roller.at(now_utc())
    deps, unread = (_merged_deps(proj, base) if merged else (proj.deps, ()))
    pins, pin_unread = dashboard.pin_times(deps, cache_dir(proj.root), fetch=fetch)
    unread += pin_unread + ((roller_warning,) if roller_warning else ())
    throttle_line = not_asked(roller)
    report: dict[str, Any] = {"nightlies": None}
    if client is None:
        unread += ("nightlies, pull requests and bisects: GitHub not asked (no GITHUB_TOKEN and "
                   "GITHUB_REPOSITORY, or --offline)",)
    else:
        throttle_line = read_throttle(roller, client, owner, name, branch=base or _base(proj.root)).line()
        try:
            branch = base or _base(proj.root)
            runs = [dataclasses.replace(r, status="completed", conclusion=this_run[1])
                    if this_run and r.id == this_run[0] else r
                    for r in nightly_runs.recent_runs(client, owner, name, nightlies, branch=branch)]
            store_unread: list[str] = []
            report["nightlies"] = dashboard.runs_shown(runs, _versions_by_day(store, store_unread))
            unread += tuple(store_unread)
            bisects = nightly_runs.recent_runs(client, owner, name, BISECT_RUNS_READ, workflow="bisect.yml",
                                               branch=branch)
            report["bisects"] = tuple(r for r in dashboard.runs_shown(bisects) if r.outcome == nightly_runs.RUNNING)
        except ReleaseError as exc:
            unread += (f"nightly and bisect runs: {exc}",)
        try:
            report["bump"], report["holds"] = dashboard.open_pulls(client, owner, name, base or _base(proj.root))
        except ReleaseError as exc:
            unread += (f"pull requests: {exc}",)
    return Report(now=now_utc(), mode=roller.mode, cooldown_hours=roller.cooldown_hours,
                  roller_file=roller.source, pins=pins,
                  throttle=throttle_line and throttle_line.removeprefix("throttle: "),
                  unread=unread, **report)


def _merged_deps(proj: Project, base: str | None) -> tuple[Deps, tuple[str, ...]]:
    """deps.yaml at the base branch's tip on origin, else (no checkout, no origin or branch: said
    in one line when it could not be read) the checkout's."""
    from release.core.config import parse_deps
    from release.core.errors import ReleaseError, UserError
    from release.sources.repo import ReleaseRepo
    try:
        repo = ReleaseRepo(proj.root)
    except UserError:
        return proj.deps, ()  # not a checkout: the files are all there is
    branch = base or _base(proj.root)
    try:
        text = repo.text_at_remote_tip(branch, proj.deps.path)
    except ReleaseError as exc:
        return proj.deps, (f"deps.yaml on origin's {branch}: {exc}; the checkout's pins are shown",)
    return (proj.deps, ()) if text is None else (parse_deps(proj.deps.path, text), ())


def _versions_by_day(store: Store | None, unread: list[str]) -> dict[str, str]:
    """``YYYY-MM-DD`` -> the nightly published for that day (its version's dev date); an
    unreadable store is a line in ``unread`` and no versions."""
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


def _base(root: Path) -> str:
    """The checkout's branch, else ``main`` (a detached checkout, as CI may make)."""
    from release.core.errors import ReleaseError
    from release.sources.repo import ReleaseRepo
    try:
        return ReleaseRepo(root).current_branch()
    except (ReleaseError, OSError):
        return "main"
