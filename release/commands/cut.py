"""``release cut``: cut a release candidate or a release from the release branch, or re-spin one.

``release cut`` / ``release cut --rc N`` needs a clean checkout of the release branch: it
builds, verifies, drafts and validates, tags HEAD ``rocm-jax-v<version>`` and publishes, then
(after a final release) commits version_info.json moved to the line's next post release on a
branch and, with ``--open-pr``, opens that pull request. ``release cut --post N`` re-spins a published
release by promoting its wheels to ``X.Y.Z.postN``: no rebuild. The workflow is
``release.jobs.workflows.run_cut``; this module turns flags into its request and prints its result.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from release.commands._common import PUBLISHES, add_store_options, job_request, project, transfer_progress
from release.commands._job_flags import add_job_flags, job_options
from release.commands._render import untested_note
from release.commands._version_arguments import add_python_option
from release.core import flags, output
from release.core.errors import UserError

if TYPE_CHECKING:
    import argparse

    from release.core.output import Output

HELP = "cut and publish a release (or --rc N) from the release branch, or re-spin one as --post N"
TOKEN = PUBLISHES
JOBS = ("cut", "cut-plan", "cut-finish", "post")  # release.jobs.catalog: the jobs this command runs


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from release.commands._arguments import add_lock_timeout_option
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--rc", type=flags.positive_int, metavar="N", help="cut release candidate N")
    which.add_argument("--post", type=flags.positive_int, metavar="N",
                       help="re-spin a published release as X.Y.Z.postN by promoting its wheels")
    parser.add_argument("--from", dest="base", metavar="X.Y.Z",
                        help="with --post: the release to re-spin (default: the newest published release "
                             "of version_info.json's line)")
    parser.add_argument("--stage", choices=("plan", "finish"),
                        help="run one stage of a split CI run (default: the whole job)")
    parser.add_argument("--tag", metavar="TAG",
                        help="with --stage finish: the tag the plan stage chose; with --post: the "
                             "release to re-spin (like --from)")
    add_python_option(parser)
    add_job_flags(parser, JOBS)
    add_store_options(parser)
    add_lock_timeout_option(parser)


def run(args: argparse.Namespace, out: Output) -> int:
    from release.jobs.workflows import run_cut
    proj = project(args)
    if args.base and args.post is None:
        raise UserError("--from goes with --post N")
    options = job_options(args, proj.root)
    kind = "post" if args.post is not None else "rc" if args.rc is not None else "release"
    with transfer_progress(out) as progress:
        result = run_cut(job_request(args, proj, out, progress, needs=TOKEN, kind=kind, stage=args.stage,
                                     number=args.post if kind == "post" else args.rc,
                                     tag=args.tag, base=args.base), options)
    output.github_output(result.outputs)
    output.step_summary(result.summary)
    out.result(result.data, lambda console: console.print(_line(result.data), markup=False))
    return 0


def _line(result: dict[str, Any]) -> str:
    """One line for people: what was cut and where it stands, the next version, untested Pythons."""
    moved = result.get("next")
    return (f"{result.get('kind', 'release')} {result['version']} ({result['tag']}): "
            + ("already published" if result.get("published") else
               "planned" if result.get("stage") == "plan" else "published")
            + (f"; next version {moved['next_version']} on {moved['branch']}" if moved else "")
            + untested_note(result))
