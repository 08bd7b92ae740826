"""The ``--public-index`` flag and ``$RELEASE_PUBLIC_INDEX``: which public index a command
compares with, checked when read; ``--rocm-index`` and ``$RELEASE_ROCM_INDEX``: where TheRock's
ROCm runtime wheels come from for the with-rocm install. Apart from the resolver (``release.check.resolver``, which
asks that index) so that a command that only offers the flag (``status --offline``, every
``--help``) does not load the resolver to parse its flags."""

from __future__ import annotations

import os
import urllib.parse
from typing import TYPE_CHECKING, Mapping

from release.core.errors import UserError

if TYPE_CHECKING:
    import argparse

PUBLIC_INDEX_ENV = "RELEASE_PUBLIC_INDEX"
NO_PUBLIC_INDEX = "none"  # resolve against the draft's index alone (tests, air-gapped machines)
PIP_DEFAULT = None  # the index pip itself is configured with: exactly what users get
ROCM_INDEX_ENV = "RELEASE_ROCM_INDEX"  # where TheRock's ROCm runtime wheels come from (the with-rocm path)


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


def add_rocm_index_option(parser: argparse.ArgumentParser, with_rocm_flag: bool = False) -> None:
    """``--rocm-index URL`` (and smoke's ``--with-rocm``) for the install of users without a system ROCm."""
    if with_rocm_flag:
        parser.add_argument("--with-rocm", action="store_true",
                            help="install as users without a system ROCm: jax[rocmN], the plugin's with-rocm "
                                 "extra pulling TheRock's runtime wheels (default: jax[rocmN-local])")
    parser.add_argument("--rocm-index", metavar="URL", type=_rocm_index_flag_type,
                        help="the index TheRock's ROCm runtime wheels come from, for the with-rocm path "
                             f"(jax[rocmN]); default: ${ROCM_INDEX_ENV}, else the public index alone")


def rocm_index_default(env: Mapping[str, str] | None = None) -> str | None:
    """``$RELEASE_ROCM_INDEX`` (an index URL), else None."""
    value = (os.environ if env is None else env).get(ROCM_INDEX_ENV, "").strip()
    return check_rocm_index(value, f"${ROCM_INDEX_ENV}") if value else None


def check_rocm_index(value: str, where: str = "--rocm-index") -> str:
    """An index URL; anything else (``none`` too: leave it unset) is a one-line error."""
    if value == NO_PUBLIC_INDEX:
        raise UserError(f"{where} {value!r}: expected an index URL such as https://host/simple; "
                        "leave it unset for the public index alone")
    return check_index_flag(value, where)


def rocm_index_from_args(args: argparse.Namespace) -> str | None:
    return args.rocm_index if args.rocm_index else rocm_index_default()


def _rocm_index_flag_type(text: str) -> str:
    import argparse
    try:
        return check_rocm_index(text)
    except UserError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
