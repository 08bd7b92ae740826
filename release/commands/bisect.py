"""``release bisect``: find the first bad plugin commit (and which pin moved) between two nightlies:
the flags made ``release.jobs.bisect_run.run_bisect_job``'s options (``--plan``: ``bisect_plan.plan_bisect``'s)."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from release.commands._common import add_date_options, add_store_options, open_store_from_args, project, today_utc
from release.core import flags
from release.core.errors import UserError
from release.core.output import Output, github_output, step_summary

if TYPE_CHECKING:
    import argparse

    from release.jobs.bisect_plan import BisectPlan
    from release.jobs.bisect_run import BisectResult
    from release.publish.stores import Store

HELP = ("binary-search the plugin commits between a good and a bad nightly for the first bad pin set "
        "(build + verify + validate per probe, or --probe-command); never publishes")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--good", metavar="TAG",
                        help="tag of the last good nightly (its revisions.json gives the pins); needed "
                             "unless --plan, which takes the newest published nightly")
    bad = parser.add_mutually_exclusive_group()
    bad.add_argument("--bad", metavar="TAG",
                     help="tag of the red nightly (default: the pins in deps.yaml)")
    bad.add_argument("--bad-commit", metavar="SHA",
                     help="the pins deps.yaml had at this repository's commit SHA (the one a red "
                          "nightly ran from)")
    parser.add_argument("--plan", action="store_true",
                        help="decide what to bisect after a red nightly and change nothing: the good end "
                             "(default: the newest published nightly), the bad pins, or why there is "
                             "nothing to do (the plugin pin did not move, or a culprit already held or "
                             "proposed lies between them); outputs bisect, good and bad-commit")
    parser.add_argument("--dispatch", metavar="WORKFLOW",
                        help="with --plan: when there is something to bisect, start WORKFLOW (e.g. "
                             "bisect.yml) on the current branch with inputs good, bad-commit and "
                             "skip-known (needs GITHUB_REPOSITORY and a GITHUB_TOKEN with actions: write)")
    parser.add_argument("--skip-known", action="store_true",
                        help="do nothing (exit 0, one line) when a culprit already held or proposed "
                             "lies between good and bad: a second red night starts no second bisect")
    parser.add_argument("--recorded-only", action="store_true",
                        help="never probe: report (and --hold) the finished bisect dist/bisect/state.json "
                             "records; exit 2 when it needs a probe (the CI job that delivers the hold)")
    parser.add_argument("--probe-command", metavar="CMD",
                        help="shell command deciding each probe instead of a build: exit 0 good, "
                             "125 skip, 1-127 bad; BISECT_PLUGIN_COMMIT, BISECT_JAX_COMMIT, "
                             "BISECT_XLA_COMMIT, BISECT_INDEX and BISECT_DIR name the candidate")
    parser.add_argument("--dist", type=flags.creatable_dir, metavar="DIR",
                        help="where dist/ is (default: <root>/dist); probes go to DIR/bisect/<sha>/")
    parser.add_argument("--workspace", type=flags.creatable_dir, metavar="DIR",
                        help="checkouts the build probes share (default: <dist>/bisect/workspace)")
    parser.add_argument("--reset", action="store_true",
                        help="forget dist/bisect/state.json and start over")
    parser.add_argument("--hold", action="store_true",
                        help="commit a hold of the first bad plugin commit into deps.yaml on the branch "
                             "hold/plugin (HEAD untouched), so bumps stop before it once merged")
    parser.add_argument("--push", action="store_true",
                        help="force-push the hold branch to origin (implies --hold)")
    parser.add_argument("--open-pr", action="store_true",
                        help="open the hold's pull request, or refresh the open one, with the culprit, "
                             "the probes and the reason (implies --push; needs GITHUB_REPOSITORY and "
                             "GITHUB_TOKEN)")
    parser.add_argument("--max-log-lines", type=flags.non_negative_int, default=50, metavar="N",
                        help="commits listed per dep in the changelog of the bad step (default 50)")
    add_date_options(parser)
    add_store_options(parser)


def run(args: argparse.Namespace, out: Output) -> int:
    from release.jobs.bisect_plan import PlanOptions, plan_bisect
    from release.jobs.bisect_run import BisectOptions, run_bisect_job
    proj = project(args)
    if args.dispatch and not args.plan:
        raise UserError("--dispatch starts the bisect --plan decides on; pass --plan with it")

    def store() -> Store:  # opened once the checkout a hold or plan needs is found
        from release.commands._common import READS
        return open_store_from_args(args, out, needs=READS)
    ends, console = {"bad": args.bad, "bad_commit": args.bad_commit}, out.progress_console()
    result: BisectPlan | BisectResult
    if args.plan:
        result = plan_bisect(proj, PlanOptions(good=args.good, dispatch=args.dispatch, run_id=os.environ.get(
            "GITHUB_RUN_ID", ""), **ends), store, env=os.environ, console=console, say=out.line)
    else:
        result = run_bisect_job(proj, BisectOptions(
            good=args.good, date=args.date or today_utc(), dist=args.dist or proj.root / "dist",
            skip_known=args.skip_known, recorded_only=args.recorded_only, probe_command=args.probe_command,
            workspace=args.workspace, reset=args.reset, hold=args.hold, push=args.push, open_pr=args.open_pr,
            max_log_lines=args.max_log_lines, **ends), store, env=os.environ, console=console, say=out.line)
    github_output(result.outputs())
    step_summary(result.markdown())
    out.result(result.to_json(), lambda console: console.print(result.text(), markup=False, highlight=False))
    return result.exit_status
