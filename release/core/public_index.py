"""The ``--public-index`` flag and ``$RELEASE_PUBLIC_INDEX``: which public index a command
compares with, checked when read. Apart from the resolver (``release.check.resolver``, which
asks that index) so that a command that only offers the flag (``status --offline``, every
``--help``) does not load the resolver to parse its flags."""

from __future__ import annotations

import urllib.parse
from typing import TYPE_CHECKING

from release.core.errors import UserError

if TYPE_CHECKING:
    import argparse

PUBLIC_INDEX_ENV = "RELEASE_PUBLIC_INDEX"
NO_PUBLIC_INDEX = "none"  # resolve against the draft's index alone (tests, air-gapped machines)
PIP_DEFAULT = None  # the index pip itself is configured with: exactly what users get


def check_index_flag(value: str, where: str = "--public-index") -> str:
    """An index URL (http, https or file) or ``none``; anything else is a one-line error."""
    if value == NO_PUBLIC_INDEX:
        return value
    parts = urllib.parse.urlsplit(value)
    remote = parts.scheme in ("http", "https")
    if not (remote and parts.netloc) and parts.scheme != "file":
        raise UserError(f"{where} {value!r}: expected an index URL such as "
                        f"https://host/simple, or {NO_PUBLIC_INDEX!r}")
    return value


def add_public_index_option(parser: argparse.ArgumentParser, what: str) -> None:
    """``--public-index URL|none`` for commands that compare with the public index."""
    parser.add_argument("--public-index", metavar="URL", type=_index_flag_type,
                        help=f"the public index {what} (default: ${PUBLIC_INDEX_ENV}, else the "
                             f"index pip is configured with); '{NO_PUBLIC_INDEX}' to skip it")


def _index_flag_type(text: str) -> str:
    import argparse
    try:
        return check_index_flag(text)
    except UserError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
