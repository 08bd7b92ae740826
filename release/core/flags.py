"""Flag types: every path and number a person types is checked where it enters.

Each function here is an argparse ``type=``: it returns the parsed value or raises
``argparse.ArgumentTypeError`` with what was wrong and what was expected, which
argparse prefixes with the flag's name ("argument --out: ..."). Numbers are checked
whole at parse time. Paths are checked in two steps: their syntax at parse time, and
against the file system by ``check_paths`` (the type's ``check``), which ``release.cli``
runs after parsing and before the command (so parsing alone never touches the disk).
A command that takes a path or a number uses one of these, so a file where a
directory belongs, an unwritable place, a missing file, a negative count, ``nan`` or
``inf`` end as one line with exit status 2 before anything is read or written.
"""

from __future__ import annotations

import argparse
import math
import os
import re
from pathlib import Path
from typing import Callable

from release.core import regular

Bad = argparse.ArgumentTypeError

# Whole numbers a person types stay below this: larger ones are typos (and make
# versions, tags and timedeltas nobody can use).
MAX_COUNT = 10**6
MAX_DAYS = 36_500.0  # a century: more would overflow a date computation


def _path(text: str) -> Path:
    if not text or not text.strip():
        raise Bad("empty path; expected a path")
    if "\0" in text:
        raise Bad(f"{text!r}: a path cannot hold a NUL character")
    return Path(text)


class PathType:
    """An argparse type for a path: syntax when parsed, ``check`` (the file system) in
    ``check_paths``, once every flag is known."""

    def __init__(self, check: Callable[[Path], None], doc: str):
        self.check = check
        self.__name__ = check.__name__.removeprefix("_check_")  # argparse names the type by it
        self.__doc__ = doc

    def __call__(self, text: str) -> Path:
        return _path(text)


def _check_existing_dir(path: Path) -> None:
    if not path.exists():
        raise Bad(f"{path}: no such directory")
    if not path.is_dir():
        raise Bad(f"{path}: is a file, expected a directory")


def _check_existing_file(path: Path) -> None:
    if not path.exists():
        raise Bad(f"{path}: no such file")
    if path.is_dir():
        raise Bad(f"{path}: is a directory, expected a file")
    if (why := regular.refusal(path)) is not None:
        raise Bad(f"{path}: {why}")
    if not os.access(path, os.R_OK):
        raise Bad(f"{path}: cannot be read")


def _first_existing(path: Path) -> Path:
    """``path`` or its nearest ancestor that exists (the one a mkdir -p would create in)."""
    here = path.absolute()
    while not here.exists() and here != here.parent:
        here = here.parent
    return here


def _can_create_in(directory: Path) -> bool:
    """Whether a new entry can be made in ``directory``: tried, not guessed (root ignores modes,
    a read-only mount does not)."""
    import tempfile  # here, not at import time: every command's start-up pays for flags
    try:
        probe = tempfile.mkdtemp(prefix=".release-probe-", dir=directory)
    except OSError:
        return False
    os.rmdir(probe)
    return True


def _check_creatable_dir(path: Path) -> None:
    if path.exists() and not path.is_dir():
        raise Bad(f"{path}: is a file, expected a directory")
    base = _first_existing(path)
    if not base.is_dir():
        raise Bad(f"{path}: {base} is a file, so no directory can be made under it")
    if not _can_create_in(base):
        where = "it" if base == path.absolute() else str(base)
        raise Bad(f"{path}: cannot write there ({where} is not writable)")


def _check_output_file(path: Path) -> None:
    if path.is_dir():
        raise Bad(f"{path}: is a directory, expected a file name")
    if (why := regular.refusal(path)) is not None and not regular.is_devnull(path):
        raise Bad(f"{path}: {why}")  # a FIFO would block the write, a device swallow or refuse it
    parent = path.absolute().parent
    if not parent.exists():
        raise Bad(f"{path}: directory {parent} does not exist")
    if not parent.is_dir():
        raise Bad(f"{path}: {parent} is a file, not a directory")
    if not _can_create_in(parent):
        raise Bad(f"{path}: cannot write in {parent}")


def _check_executable(path: Path) -> None:
    import shutil
    if shutil.which(str(path)) is None:
        if path.is_file():
            raise Bad(f"{path}: is not executable")
        raise Bad(f"{path}: no such program; expected a path to an executable or a name on PATH")


existing_dir = PathType(_check_existing_dir, "A directory that exists (read from, never created).")
existing_file = PathType(_check_existing_file, "A regular file that exists and can be read.")
creatable_dir = PathType(_check_creatable_dir,
                         "A directory the command may create and write into: it exists and is "
                         "writable, or its nearest existing ancestor is a writable directory.")
output_file = PathType(_check_output_file, "A file the command writes (replaced if it exists) in "
                       "an existing, writable directory.")
executable = PathType(_check_executable, "A program: a path to an executable file, or a name on PATH.")


def check_paths(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Check every path flag of ``parser`` in ``args`` against the file system, in flag order;
    ``parser.error`` (one line, exit 2) for the first that is wrong."""
    for action in parser._actions:
        check = getattr(action.type, "check", None)
        value = getattr(args, action.dest, None)
        if check is None or value is None:
            continue
        for item in value if isinstance(value, list) else (value,):
            try:
                check(Path(item))
            except Bad as exc:
                name = "/".join(action.option_strings) or action.metavar or action.dest
                parser.error(f"argument {name}: {exc}")


def _whole(text: str) -> int:
    if not re.fullmatch(r"\s*[+-]?\d+\s*", text or ""):
        raise Bad(f"{text!r}: expected a whole number")
    return int(text)


def count(minimum: int = 0, maximum: int = MAX_COUNT) -> Callable[[str], int]:
    """A whole number in ``minimum..maximum``."""
    def parse(text: str) -> int:
        value = _whole(text)
        if not minimum <= value <= maximum:
            raise Bad(f"{text}: expected a whole number from {minimum} to {maximum}")
        return value
    parse.__name__ = "count"  # argparse names the type in some messages
    return parse


positive_int = count(1)
non_negative_int = count(0)


def _finite(text: str) -> float:
    try:
        value = float(text)
    except (TypeError, ValueError):
        raise Bad(f"{text!r}: expected a number") from None
    if not math.isfinite(value):
        raise Bad(f"{text}: expected a finite number")
    return value


def days(text: str) -> float:
    """A number of days, 0 or more (fractions allowed), at most a century."""
    value = _finite(text)
    if not 0 <= value <= MAX_DAYS:
        raise Bad(f"{text}: expected a number of days from 0 to {MAX_DAYS:g}")
    return value


def timeout_seconds(text: str) -> float:
    """Seconds to wait: 0 or more, or -1 for no limit."""
    value = _finite(text)
    if value != -1 and value < 0:
        raise Bad(f"{text}: expected seconds, 0 or more, or -1 to wait without limit")
    return value


def repository(text: str) -> str:
    """``OWNER/NAME`` as GitHub spells repositories."""
    if not re.fullmatch(r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})/[A-Za-z0-9._-]{1,100}", text or "") \
            or text.split("/")[1] in (".", ".."):
        raise Bad(f"{text!r}: expected OWNER/NAME")
    return text
