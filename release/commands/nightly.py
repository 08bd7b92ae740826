"""``release nightly``: tonight's prerelease, from pins to published wheels.

With no ``--stage`` the whole job runs here (Bazel and ROCm needed, or ``--artifacts``).
CI splits it: ``--stage plan`` decides and opens the draft, the build matrix uploads into
it (``release build`` + ``release publish --partial``), ``--stage finish`` completes it.
The workflow is ``release.jobs.workflows.run_nightly``; this module turns flags into its
request and prints its result.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING

from release.commands._common import (
    PUBLISHES,
    add_date_options,
    add_store_options,
    job_request,
    now_utc,
    project,
    transfer_progress,
)
from release.commands._job_flags import add_job_flags, job_options
from release.commands._render import print_plan, untested_note
from release.commands._version_arguments import add_python_option
from release.core import output

if TYPE_CHECKING:
    import argparse

    from rich.console import Console

    from release.core.output import Output
    from release.core.plain import PlainConsole

HELP = "build, verify and publish tonight's nightly prerelease (--dry-run shows the plan)"
TOKEN = PUBLISHES
# release.jobs.catalog: the jobs this command runs
JOBS = ("nightly", "nightly-plan", "nightly-finish")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from release.commands._arguments import add_lock_timeout_option
    add_date_options(parser, force=True)
    add_python_option(parser)
    parser.add_argument("--dry-run", action="store_true",
                        help="print the plan (version, revisions, wheels, tag, assets, Bazel "
                             "commands) without changes; the public index is asked only for "
                             "its newest versions")
    parser.add_argument("--stage", choices=("plan", "finish"),
                        help="run one stage of a split CI run (default: the whole job)")
    add_job_flags(parser, JOBS)
    add_store_options(parser)
    add_lock_timeout_option(parser)


def run(args: argparse.Namespace, out: Output) -> int:
    from release.jobs.workflows import run_nightly
    proj = project(args)
    options = job_options(args, proj.root)  # a bad --protect is refused before anything, even a dry run
    now = now_utc()
    # a dry run moves no files: no bar (and no rich on a terminal)
    with transfer_progress(out) if not args.dry_run else contextlib.nullcontext(None) as progress:
        result = run_nightly(job_request(args, proj, out, progress, needs=TOKEN, reads_store=not args.dry_run,
                                         stage=args.stage, date=args.date or now.date(), now=now,
                                         build_number=args.build_number, force=args.force), options)
    output.github_output(result.outputs)
    output.step_summary(result.summary)
    data = result.data

    def human(console: Console | PlainConsole) -> None:
        """A dry run shows its plan (rich's table on a terminal, else plain text); people read
        the reason line already printed, and a build ends with what it published."""
        if args.dry_run and result.plan is not None:
            from release.commands._render import print_public_index
            print_plan(console, result.plan)
            print_public_index(console, data["public_index"])
        elif data.get("steps"):
            console.print(f"nightly {data['version']}: published {data['tag']}" + untested_note(data),
                          markup=False)
    out.result_view(data, human)
    return 0
