"""Small helpers the command modules share: flags, clock, project loading."""

from __future__ import annotations

import contextlib
import datetime as _dt
import os
from pathlib import Path
from typing import TYPE_CHECKING

from release.core import flags

if TYPE_CHECKING:
    import argparse

    from rich.progress import Progress

    from release.core.config import Project
    from release.core.output import Output
    from release.publish.retention import Retention
    from release.publish.stores import Store

NOW_ENV = "RELEASE_NOW"


def now_utc() -> _dt.datetime:
    """The run's clock, the one place commands read it: ``$RELEASE_NOW`` (ISO 8601, UTC when
    no zone is given; tests and replays set it) or the wall clock."""
    text = os.environ.get(NOW_ENV, "").strip()
    if not text:
        return _dt.datetime.now(_dt.timezone.utc)
    try:
        value = _dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        from release.core.errors import UserError
        raise UserError(f"${NOW_ENV}={text!r}: expected an ISO 8601 time such as "
                        "2026-11-23T03:00:00Z") from None
    return value.replace(tzinfo=_dt.timezone.utc) if value.tzinfo is None else \
        value.astimezone(_dt.timezone.utc)


def today_utc() -> _dt.date:
    """The UTC date of the run (``now_utc``): what nightly versions are dated."""
    return now_utc().date()


def project(args: argparse.Namespace) -> Project:
    from release.core.config import load_project
    return load_project(args.root)


def add_kind_options(parser: argparse.ArgumentParser, *, default_kind: str | None = None, force: bool = False) -> None:
    from release.core import versions
    parser.add_argument("--kind", choices=versions.KINDS, default=default_kind,
                        required=default_kind is None, help="what kind of version to make")
    parser.add_argument("--number", type=flags.positive_int, metavar="N",
                        help="rc or post number (default 1)")
    add_date_options(parser, force=force)


def add_date_options(parser: argparse.ArgumentParser, *, force: bool = False) -> None:
    add_date_option(parser, "UTC date of a nightly (default: today, UTC)")
    if force:
        parser.add_argument("--force", action="store_true",
                            help="allow a nightly --date more than a day from today (UTC)")
    parser.add_argument("--build-number", type=flags.count(0, 999), metavar="N",
                        help="nightly build number 0-999 (only with nightly_scheme 'date-build')")


def add_date_option(parser: argparse.ArgumentParser, help: str) -> None:
    """``--date YYYY-MM-DD``: the day a command acts for, so the clock is an input."""
    parser.add_argument("--date", type=_date_flag, metavar="YYYY-MM-DD", help=help)


def add_python_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--python", action="append", metavar="3.X", dest="pythons",
                        type=_python_flag,
                        help="Python version of a plugin wheel, repeatable (default: every "
                             "build:python3NN config in jax_rocm_plugin/.bazelrc)")


def _date_flag(text: str) -> _dt.date:
    import argparse

    from release.core import versions
    try:
        return versions.parse_date(text)
    except versions.VersionError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _python_flag(text: str) -> str:
    import argparse

    from release.core import naming
    try:
        naming.python_tag(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


def add_store_options(parser: argparse.ArgumentParser) -> None:
    """``--store``, ``--repo`` and ``--store-dir``: every command that reads or writes releases."""
    parser.add_argument("--store", choices=("github", "local"),
                        help="where releases live (default: github when a repository is configured, "
                             "else local)")
    parser.add_argument("--repo", type=flags.repository, metavar="OWNER/NAME",
                        help="GitHub repository (default: $GITHUB_REPOSITORY)")
    parser.add_argument("--store-dir", type=flags.creatable_dir, metavar="DIR",
                        help="directory of the local store (default: <root>/.cache/releases)")


def open_store_from_args(args: argparse.Namespace, out: Output, read_only: bool = False,
                         writes: bool = True) -> Store:
    """The store the flags name; the local store lives under the project root (or the cwd).

    ``read_only``: a missing local store is an error, not an empty one; ``writes``: the command
    changes releases (what a missing token is asked for).
    """
    from release.core.errors import UserError
    from release.publish.stores import open_store

    root = args.root
    if root is None and args.store_dir is None:
        from release.core.config import find_root  # the project's files: only to find its local store
        try:
            root = find_root()
        except UserError:
            root = Path.cwd()
    return open_store(args.store, args.repo, args.store_dir, root or Path.cwd(),
                      console=out.progress_console(), read_only=read_only, writes=writes)


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


def add_build_input_options(parser: argparse.ArgumentParser) -> None:
    """Where a build's shared objects come from, and where its dist directories go."""
    add_dist_option(parser)
    add_build_source_options(parser)


def add_dist_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--dist", type=flags.creatable_dir, metavar="DIR",
                        help="where dist/<version>/ directories go (default: <root>/dist)")


def add_build_source_options(parser: argparse.ArgumentParser) -> None:
    """``--workspace`` or ``--artifacts``: Bazel, or prebuilt shared objects."""
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--workspace", type=flags.creatable_dir, metavar="DIR",
                        help="build with Bazel in the checkouts `release fetch-sources` makes "
                             "(default: <root>/workspace)")
    source.add_argument("--artifacts", type=flags.existing_dir, metavar="DIR",
                        help="package prebuilt .so files instead of running Bazel: "
                             "DIR/xla_rocm_plugin.so and the kernel .so files in DIR or DIR/3.X/")


def add_retention_options(parser: argparse.ArgumentParser, *, keep_required: bool = False,
                          what: str = "gc keeps") -> None:
    """``--keep``, ``--older-than``, ``--protect``, ``--protect-file``: the one retention rule's
    flags (``release.publish.retention``), the same on gc, index and the nightly job."""
    from release.publish.retention import DEFAULT_KEEP
    default = "" if keep_required else f" (default {DEFAULT_KEEP})"
    parser.add_argument("--keep", type=flags.positive_int, required=keep_required,
                        default=None if keep_required else DEFAULT_KEEP, metavar="N",
                        help=f"the newest N nightlies {what}{default}")
    parser.add_argument("--older-than", type=flags.days, metavar="DAYS",
                        help="beyond the newest N, keep nightlies published DAYS days ago or less too")
    parser.add_argument("--protect", nargs="+", action="extend", default=[], metavar="VERSION",
                        help="nightlies (versions or tags) always kept, e.g. one a downstream pins")
    parser.add_argument("--protect-file", type=flags.existing_file, metavar="FILE",
                        help="more versions or tags to protect, one a line (# comments)")


def retention_from_args(args: argparse.Namespace) -> Retention:
    """The ``release.publish.retention.Retention`` the retention flags name."""
    from release.publish.retention import retention
    return retention(args.keep, args.older_than, args.protect, args.protect_file)
