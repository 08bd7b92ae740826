"""``release bump``: roll the pins in deps.yaml, print the changelog, commit, push, open the PR.

The job is ``release.jobs.bump.run_bump``; this module turns flags into ``BumpOptions`` and prints
the ``BumpResult``."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from release.commands._common import add_date_option, now_utc, project
from release.core import flags
from release.core.output import Output, github_output, step_summary

if TYPE_CHECKING:
    import argparse

    from rich.console import Console

    from release.core.plain import PlainConsole
    from release.jobs.bump import BumpResult

HELP = "roll the pinned commits forward by their roll policies, with a changelog (and a PR)"
# release.sources.changelog.DEFAULT_MAX_LINES, not imported: --help loads no git or YAML stack
DEFAULT_MAX_LOG_LINES = 50


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--dep", action="append", default=[], metavar="NAME",
                        help="roll only this dep (repeatable; default: all)")
    parser.add_argument("--to", metavar="SHA", help="pin the one --dep to this exact commit")
    parser.add_argument("--allow-rewind", action="store_true",
                        help="allow a move backwards or sideways (new is not a descendant of old)")
    parser.add_argument("--changelog", type=flags.output_file, metavar="FILE",
                        help="also write the Markdown changelog here")
    parser.add_argument("--max-log-lines", type=flags.non_negative_int, default=DEFAULT_MAX_LOG_LINES,
                        metavar="N",
                        help=f"commits listed per dep before '... and N more' "
                             f"(default {DEFAULT_MAX_LOG_LINES})")
    parser.add_argument("--commit", action="store_true",
                        help="commit deps.yaml on a branch bump/<date>-<deps> (work tree untouched)")
    parser.add_argument("--push", action="store_true", help="push the bump branch to origin (implies --commit)")
    parser.add_argument("--open-pr", action="store_true",
                        help="open or update the one bump PR, or close it when pins are current "
                             "(implies --push; needs GITHUB_REPOSITORY and GITHUB_TOKEN)")
    parser.add_argument("--auto-merge", action="store_true",
                        help="first merge the open bump PR when its branch is the tool's own commit and "
                             "every required check on it passed; a merge or pending checks end the run "
                             "(implies --open-pr)")
    parser.add_argument("--merge-require", action="append", default=[], metavar="NAME",
                        help="with --auto-merge: the check or status that must pass (repeatable; "
                             "default: every check present, at least one)")
    parser.add_argument("--merge-method", choices=("merge", "squash", "rebase"), default="merge",
                        help="with --auto-merge: how GitHub merges (default merge)")
    parser.add_argument("--dry-run", action="store_true", help="show what would move; write nothing")
    add_date_option(parser, "UTC date in the bump branch's name (default: today, UTC)")


def run(args: argparse.Namespace, out: Output) -> int:
    from release.jobs.bump import BumpOptions, run_bump
    options = BumpOptions(now=now_utc(), deps=tuple(args.dep), to=args.to, allow_rewind=args.allow_rewind,
                          changelog=args.changelog, max_log_lines=args.max_log_lines, commit=args.commit,
                          push=args.push, open_pr=args.open_pr, auto_merge=args.auto_merge,
                          merge_require=tuple(args.merge_require), merge_method=args.merge_method,
                          dry_run=args.dry_run, date=args.date)
    result = run_bump(project(args), options, os.environ, lambda line: out.err.print(line, markup=False),
                      console=out.progress_console() if out.draws_progress() else None)
    github_output(result.outputs())
    step_summary(result.summary())
    # Drawn by release.core.plain/boxes, not rich: importing rich was the last ~50 ms of a bump
    # (issue 36 item 4: a cold bump's wall).
    out.result_view(result.to_json(), lambda console: _human(console, result))
    return 0


def _human(console: Console | PlainConsole, result: BumpResult) -> None:
    body = result.body
    if body is None:  # a gate ended the run: its lines
        console.print("\n".join(result.said), markup=False)
        return
    text = body.markdown()
    if not result.changed:
        console.print(text.rstrip() if "notes" in result.facts else "pins are current", markup=False)
        if "notes" not in result.facts:  # the text (with notes) already ends with these lines
            for line in result.decisions:
                console.print(line, markup=False)
    else:
        dry = " (dry run: nothing written)" if result.dry_run else ""
        console.print(result.title + dry, markup=False, style="bold")  # a branch name is text, not markup
        console.print(text, markup=False, highlight=False)
    pr, done = result.pull_request, result.delivered
    if "commit" in done and not (pr and pr["action"] == "kept"):
        console.print(f"committed {done['commit'][:12]} on {done['branch']}", markup=False)
    if pr and pr["action"] == "kept":
        if not result.changed:  # a changed bump's text already ends with this line
            console.print(pr["reason"], markup=False)
    elif pr and pr["action"] != "none":
        console.print(f"pull request {pr['action']}: "
                      f"{pr.get('url') or ', '.join('#%d' % n for n in pr['closed'])}", markup=False)
