"""``release dashboard``: write how the roller is doing into the one dashboard issue.

The flags become ``release.jobs.dashboard.DashboardOptions``; the report is gathered by
``release.jobs.report`` (as ``release status`` shows it) and written by
``release.jobs.dashboard.write_dashboard``. Here: the flags, and the result printed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from release.commands._common import READS, add_store_options, now_utc, open_store_from_args, project
from release.core import flags, output
from release.jobs.report import NIGHTLIES

if TYPE_CHECKING:
    import argparse

    from release.core.output import Output

HELP = "open or edit the one dashboard issue: roller mode, pins and their age, nightlies, holds"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_store_options(parser)
    parser.add_argument("--dry-run", action="store_true",
                        help="print the body and what would be sent; write nothing")
    add_report_options(parser)
    parser.add_argument("--this-run", choices=("success", "failure", "cancelled"), metavar="CONCLUSION",
                        help="this workflow run ($GITHUB_RUN_ID, a nightly writing the dashboard as its "
                             "last job, still in progress) ends with CONCLUSION: success, failure or "
                             "cancelled")
    parser.add_argument("--bisect-job", choices=("success", "failure", "cancelled", "skipped"), metavar="RESULT",
                        help="how this nightly's bisect job ended (with --bisect-said: what its plan said); "
                             "without both (bump's dashboard) the bisect line the last nightly wrote is kept")
    parser.add_argument("--bisect-said", default="", metavar="LINE",
                        help="the bisect plan's line (nightly.yml's bisect job output `said`): whether a "
                             "bisect started and why; shown under the roller's headline")
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

    from release.jobs.dashboard import DashboardOptions, bisect_line, this_run, write_dashboard
    from release.jobs.report import OnGitHub, ReportOptions
    from release.sources.github import DASHBOARD, GitHubClient
    from release.sources.pull_requests import repository_from_env
    proj = project(args)
    owner, name = args.repo.split("/", 1) if args.repo else repository_from_env(flag="--repo")
    client = GitHubClient.from_env(console=out.progress_console(), needs=DASHBOARD)
    store = open_store_from_args(args, out, read_only=True, needs=READS)
    options = DashboardOptions(ReportOptions(now_utc(), nightlies=args.nightlies, base=args.base,
                                             this_run=this_run(args.this_run, os.environ),
                                             bisect=bisect_line(args.bisect_job or "", args.bisect_said)),
                               author=args.author, dry_run=args.dry_run,
                               keep_bisect=args.bisect_job is None and not args.bisect_said.strip())
    result = write_dashboard(proj, options, OnGitHub(client, owner, name), store)
    output.github_output({"issue": str(result.issue.number or ""), "action": result.issue.action})
    output.step_summary(f"## dashboard\n\n{result.line}\n")

    def human(console: Any) -> None:
        if args.dry_run:
            print(result.body, file=out.stream)
        console.print(result.line, markup=False)
    out.result(result.to_json(with_body=args.dry_run), human)
    return 0
