"""The flags that say which version a command makes, each added one way everywhere: its kind
and number, the nightly's date and build number, the Pythons of the plugin wheels. A bad value
is argparse's one line (exit 2) before anything runs."""

from __future__ import annotations

import datetime as _dt
from typing import TYPE_CHECKING

from release.core import flags

if TYPE_CHECKING:
    import argparse


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
