"""``release pypi-upload TAG``: a published release's validated wheels to PyPI (or any index
with the upload API), pjrt first, resumable; then the notes say what reached it. The work is
``release.publish.pypi.publish_to_pypi``; this module turns flags into its settings and prints."""

from __future__ import annotations

from typing import TYPE_CHECKING

from release.commands._arguments import http_url
from release.commands._common import add_store_options, open_store_from_args, transfer_progress
from release.commands._project_reads import line_majors
from release.commands._pypi_limits import FILE_LIMIT_ENV, add_limit_arguments  # noqa: F401 (named here)
from release.core import flags
from release.core.output import Output, github_output, step_summary

if TYPE_CHECKING:
    import argparse

    from rich.console import Console

    from release.publish import pypi

HELP = "upload a published release's validated wheels to PyPI (pjrt first, resumable) and note it"
TOKEN = ("noting the PyPI upload in a release's notes", "contents: write")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("tag", metavar="TAG", help="the published release, rocm-jax-vX.Y.Z[.postN]")
    parser.add_argument("--repository-url", type=http_url, metavar="URL",
                        help="the index's upload endpoint (default: $TWINE_REPOSITORY_URL, else the "
                             "repository of the ~/.pypirc section)")
    parser.add_argument("--repository", metavar="NAME",
                        help="the ~/.pypirc section to read (default: $TWINE_REPOSITORY, else pypi)")
    parser.add_argument("--config-file", type=flags.existing_file, metavar="FILE", help="the .pypirc to "
                        "read (default: ~/.pypirc)")
    parser.add_argument("--index-url", type=http_url, metavar="URL",
                        help="the index's simple API, asked what it holds (default: from the upload URL)")
    add_limit_arguments(parser)
    parser.add_argument("--attestations", action="store_true",
                        help="upload each wheel with its <wheel>.*.attestation (PEP 740) from the work "
                             "directory; a wheel without one stops the run")
    parser.add_argument("--dry-run", action="store_true", help="stage and check everything and ask the "
                        "index, upload nothing")
    notes = parser.add_mutually_exclusive_group()
    notes.add_argument("--no-notes", action="store_true", help="leave the release notes alone (a job "
                       "without contents: write)")
    notes.add_argument("--notes-only", action="store_true", help="upload nothing: ask the index and "
                       "record in the notes what it holds")
    parser.add_argument("--dist", type=flags.creatable_dir, metavar="DIR", help="where dist/<version>/ "
                        "directories are (default: <root>/dist, as the jobs write them)")
    parser.add_argument("--work", type=flags.creatable_dir, metavar="DIR", help="where the wheels are "
                        "staged and signed (default: <dist>/<version>/pypi)")
    add_store_options(parser)


def settings_from_args(args: argparse.Namespace) -> pypi.PypiSettings:
    """``PypiSettings`` from the flags ``add_arguments`` adds (``--dist``: default the project's
    ``dist/``, where the jobs write, else ``./dist``)."""
    from release.publish import pypi
    return pypi.PypiSettings(
        dist_root=(args.dist or pypi.default_dist_root(args.root)).resolve(),
        repository_url=args.repository_url, repository=args.repository,
        config_file=args.config_file, index_url=args.index_url,
        file_limit=args.file_limit or pypi.file_limit_default(), project_limits=args.project_limit,
        attach=args.attestations, dry_run=args.dry_run,
        notes="only" if args.notes_only else "skip" if args.no_notes else "update",
        work=args.work.resolve() if args.work else None, majors=line_majors(args))


def run(args: argparse.Namespace, out: Output) -> int:
    from release.publish import pypi
    settings = settings_from_args(args)
    store = open_store_from_args(args, out, read_only=True, needs=TOKEN)
    with transfer_progress(out) as progress:
        result = pypi.publish_to_pypi(store, args.tag, settings, say=out.line, progress=progress)
    github_output(pypi.outputs_of(result))
    step_summary(pypi.summary_of(result))

    def human(console: Console) -> None:
        for row in result.get("files", []):
            console.print(f"  {row['name']}: {row.get('action') or ('on the index' if row['listed'] else 'missing')}",
                          markup=False)
        verdict = ("dry run: nothing uploaded" if result.get("dry_run") else
                   "both wheels on the index" if result.get("complete") else "not every wheel is listed yet")
        console.print(f"{result['tag']}: {verdict} ({result['index']}); notes {result.get('notes')}", markup=False)
    out.result(result, human)
    return 0
