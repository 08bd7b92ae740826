"""``release status``: the pins, what the store holds, the versions each kind of build would get,
and how the roller is doing (the dashboard issue's report).

The flags become ``release.jobs.status.StatusOptions``; ``release.jobs.status.status`` reads
everything (see there what and why); ``release.commands._status_view`` prints it for people
(``_line_view`` the maintained lines' table).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from release.commands._common import (
    READS,
    add_date_options,
    add_store_options,
    now_utc,
    open_store_from_args,
    project,
)
from release.core import output

if TYPE_CHECKING:
    import argparse

    from rich.console import Console

    from release.core.config import Project
    from release.core.output import Output
    from release.core.plain import PlainConsole
    from release.jobs.status import StatusOptions, StatusResult

HELP = "show the pins, the last nightly, drafts, latest rc and release, and the next versions"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from release.commands.dashboard import add_report_options
    from release.core.public_index import add_public_index_option
    add_date_options(parser)
    add_store_options(parser)
    parser.add_argument("--offline", action="store_true",
                        help="pins and versions from the two files only; do not read the store "
                             "or ask the public index")
    add_public_index_option(parser, "the next versions are compared with")
    add_report_options(parser)


def run(args: argparse.Namespace, out: Output) -> int:
    import os

    from release.commands import _status_view
    from release.commands._line_view import lines_table
    from release.jobs.report import OnGitHub, ReportOptions
    from release.jobs.status import StatusOptions, asked_github, status
    proj = project(args)
    now = now_utc()
    options = StatusOptions(date=args.date or now.date(), build_number=args.build_number,
                            report=ReportOptions(now, nightlies=args.nightlies, base=args.base),
                            offline=args.offline,
                            public_index=None if args.offline else _public_index(args),
                            upload_url=os.environ.get("TWINE_REPOSITORY_URL", ""))
    store = None if args.offline else open_store_from_args(args, out, needs=READS)
    github = None
    where = asked_github(args.offline, args.repo, os.environ)
    if where is not None:
        from release.sources.github import GitHubClient
        github = OnGitHub(GitHubClient.from_env(console=out.progress_console()), *where)
    result = status(proj, options, store, github)
    lines = _lines(proj, result, options)  # every maintained line, when lines.json lists them
    output.github_output(result.outputs())
    output.step_summary(_status_view.summary(result))

    def human(console: Console | PlainConsole) -> None:  # rich on a terminal, else plain text
        _status_view.human(console, proj, result)
        lines_table(console, lines)
    out.result_view(result.to_json() | ({"lines": lines} if lines is not None else {}), human)
    return 0


def _public_index(args: argparse.Namespace) -> str | None:
    from release.check import resolver  # asked only online: --offline compares with no index
    return resolver.public_index_from_args(args)


def _lines(proj: Project, result: StatusResult, options: StatusOptions) -> list[dict] | None:
    from pathlib import Path
    if not (proj.root / Path(".github") / "lines.json").exists():  # one line: shown above already
        return None
    from release.jobs.lines import current_branch, status_rows
    published = list((result.store or {}).get("published_versions", ()))
    return status_rows(proj, published, options.date, offline=options.offline, current=current_branch(proj.root))
