"""What the commands do at run time with their flags: load the project, open the store,
draw transfer progress, build a job's request (the line's majors and the retention rule:
``_project_reads``); and the run's clock
(``release.core.clock``). The flags themselves are added by ``_arguments`` (re-exported here
for the commands that import them from here)."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import TYPE_CHECKING, Any

from release.commands._arguments import add_store_options as add_store_options
from release.commands._version_arguments import add_date_option as add_date_option
from release.commands._version_arguments import add_date_options as add_date_options
from release.core.clock import now_utc as now_utc
from release.core.clock import today_utc as today_utc

# What a command does with the releases and the token permission that takes, for the line a
# missing GITHUB_TOKEN gets (release.sources.github.Permission); a command that changes releases
# names its own act in its module's ``TOKEN``.
READS = ("reading releases", "contents: read")
PUBLISHES = ("publishing releases", "contents: write")

if TYPE_CHECKING:
    import argparse

    from rich.progress import Progress

    from release.core.config import Project
    from release.core.output import Output, ProgressBars
    from release.jobs.runner import JobRequest
    from release.publish.stores import Store


def project(args: argparse.Namespace) -> Project:
    from release.core.config import load_project
    return load_project(args.root)


def open_store_from_args(args: argparse.Namespace, out: Output, read_only: bool = False, *,
                         needs: tuple[str, str]) -> Store:
    """The store the flags name; the local store lives under the project root (or the cwd).

    ``read_only``: a missing local store is an error, not an empty one; ``needs``: what THIS
    command does with the releases and the token permission that takes (``READS``, or the
    command's ``TOKEN``), the words a missing token's line says.
    """
    from release.core.errors import UserError
    from release.publish.stores import open_store, store_kind

    root = args.root
    if root is None and args.store_dir is None:
        from release.core.project_root import find_root  # only to find its local store
        try:
            root = find_root()
        except UserError:
            root = Path.cwd()
    # only GitHub's client prints (rate limits, retries): a local store's command never loads rich for it
    console = out.progress_console() if store_kind(args.store, args.repo) == "github" else None
    return open_store(args.store, args.repo, args.store_dir, root or Path.cwd(),
                      console=console, read_only=read_only, needs=needs)


def transfer_progress(out: Output) -> contextlib.AbstractContextManager[Progress | None]:
    """A rich progress bar for uploads and downloads (on stderr when --json is set); None where
    it would not draw (a CI log, a pipe), and then rich's progress is not even imported."""
    if not out.draws_progress():
        return contextlib.nullcontext(None)
    from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TransferSpeedColumn
    console = out.progress_console()
    return Progress(TextColumn("{task.description}"), BarColumn(), DownloadColumn(),
                    TransferSpeedColumn(), console=console, transient=True,
                    disable=not console.is_terminal)


def job_request(args: argparse.Namespace, project: Project, out: Output, progress: ProgressBars | None,
                *, needs: tuple[str, str], reads_store: bool = True, **more: Any) -> JobRequest:
    """The ``JobRequest`` of a job command: the project, ``--dist`` (default ``<root>/dist``),
    the store the flags name (opened by the job's plan, after it checked its inputs; none for
    a dry run), ``--python``, ``--lock-timeout`` and the command's own fields (``more``)."""
    from release.jobs.runner import JobRequest
    return JobRequest(project, out, args.dist or project.root / "dist",
                      open_store=(lambda: open_store_from_args(args, out, needs=needs)) if reads_store else None,
                      pythons=tuple(args.pythons) if args.pythons else None,
                      lock_timeout=args.lock_timeout, progress=progress, **more)
