"""The flags several commands share, each added one way everywhere: the store, where builds read
and write, the retention rule, an index's URL. (The version a command makes, its kind, date and
Pythons, are ``_version_arguments``'; a job's own options are offered by ``_job_flags``, from
the steps that take them.)"""

from __future__ import annotations

from typing import TYPE_CHECKING

from release.core import flags

if TYPE_CHECKING:
    import argparse


def add_store_options(parser: argparse.ArgumentParser) -> None:
    """``--store``, ``--repo`` and ``--store-dir``: every command that reads or writes releases."""
    parser.add_argument("--store", choices=("github", "local"),
                        help="where releases live (default: github when a repository is configured, "
                             "else local)")
    parser.add_argument("--repo", type=flags.repository, metavar="OWNER/NAME",
                        help="GitHub repository (default: $GITHUB_REPOSITORY)")
    parser.add_argument("--store-dir", type=flags.creatable_dir, metavar="DIR",
                        help="directory of the local store (default: <root>/.cache/releases)")


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


def http_url(text: str) -> str:
    """An http(s) URL with a host (an index's upload endpoint or simple API)."""
    from urllib.parse import urlsplit
    parts = urlsplit(text)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise flags.Bad(f"{text!r}: expected an http(s) URL")
    return text


def add_lock_timeout_option(parser: argparse.ArgumentParser) -> None:
    """``--lock-timeout SECONDS`` for the commands that run a locked job
    (``release.jobs.pipeline.job_lock``'s timeout)."""
    parser.add_argument("--lock-timeout", type=flags.timeout_seconds, default=0, metavar="SECONDS",
                        help="wait this long for a running job of the same kind to finish "
                             "(default 0: fail at once; -1: wait forever)")
