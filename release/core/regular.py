"""Reading and appending to files a person or the environment names: regular files only, read
within a size bound.

A FIFO blocks a reader (or a writer) until someone opens its other end, and a device such as
``/dev/zero`` never ends: either as a config file, a store record or ``$GITHUB_OUTPUT`` would
hang the command or exhaust its memory. Each file is opened without blocking (``O_NONBLOCK``),
checked with ``fstat`` on the open descriptor (so a swap between a check and the open cannot
slip a pipe in), and read up to ``limit`` bytes plus one, so a file that grows or a ``/proc``
file that reports no size is still bounded. Refusals are ``NotRegular`` (an ``OSError`` whose
text is one line), so callers that already turn an unreadable file into their own error keep
doing so; ``FileNotFoundError`` passes through as it is.
"""

from __future__ import annotations

import errno
import os
import stat
from typing import TextIO

MIB = 1 << 20
DEFAULT_LIMIT = 16 * MIB  # no file this tool reads whole is near this; a bigger one is not ours
_KINDS = ((stat.S_ISFIFO, "a named pipe (FIFO)"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"), (stat.S_ISDIR, "a directory"))


class NotRegular(OSError):
    """A path refused: not a regular file, or larger than the bound. ``str()`` is one line."""

    def __init__(self, path: str | os.PathLike[str], reason: str):
        super().__init__(errno.EINVAL, reason, os.fspath(path))
        self.reason = reason

    def __str__(self) -> str:
        return f"{self.filename}: {self.reason}"


def kind(mode: int) -> str | None:
    """What a file of ``st_mode`` is, when it is not a regular file; None for a regular file."""
    if stat.S_ISREG(mode):
        return None
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def refusal(path: str | os.PathLike[str]) -> str | None:
    """Why ``path`` (following links) is no file to read or append to, or None (a regular file,
    or nothing there yet). For the checks made before any work; the readers check again."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return None
    what = kind(mode)
    return f"is {what}; expected a regular file" if what else None


def read_bytes(path: str | os.PathLike[str], limit: int = DEFAULT_LIMIT, *,
               follow_symlinks: bool = True) -> bytes:
    """The bytes of the regular file ``path``, at most ``limit`` of them (``NotRegular`` for
    a FIFO, a device, a socket, a directory, a file over the bound, and a symbolic link when
    ``follow_symlinks`` is false)."""
    flags = os.O_RDONLY | os.O_NONBLOCK  # Python opens descriptors close-on-exec (PEP 446)
    if not follow_symlinks:
        flags |= os.O_NOFOLLOW
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if exc.errno == errno.ELOOP and not follow_symlinks:
            raise NotRegular(path, "is a symbolic link; expected a regular file") from None
        raise
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):  # what open() says of one, as callers have always caught
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), os.fspath(path))
        what = kind(info.st_mode)
        if what:
            raise NotRegular(path, f"is {what}; expected a regular file")
        if info.st_size > limit:
            raise NotRegular(path, f"is {info.st_size:,} bytes; expected at most {limit:,}")
        chunks, total = [], 0
        while total <= limit:
            block = os.read(fd, min(limit + 1 - total, MIB))
            if not block:
                break
            chunks.append(block)
            total += len(block)
        if total > limit:
            raise NotRegular(path, f"is more than {limit:,} bytes; expected at most {limit:,}")
        return b"".join(chunks)
    finally:
        os.close(fd)


def read_text(path: str | os.PathLike[str], limit: int = DEFAULT_LIMIT, *,
              follow_symlinks: bool = True) -> str:
    """``read_bytes`` decoded as UTF-8 (``UnicodeDecodeError`` when it is not)."""
    return read_bytes(path, limit, follow_symlinks=follow_symlinks).decode("utf-8")


def open_append(path: str | os.PathLike[str]) -> TextIO:
    """``path`` opened to append UTF-8 text, created when missing; ``NotRegular`` at once for a
    FIFO (with or without a reader), a socket or a device other than ``/dev/null``."""
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NONBLOCK
    try:
        fd = os.open(path, flags, 0o666)
    except OSError as exc:
        if exc.errno in (errno.ENXIO, errno.EOPNOTSUPP):  # a FIFO nobody reads, a socket
            raise NotRegular(path, f"is {kind(os.stat(path).st_mode) or 'not a regular file'}; "
                                   "expected a regular file") from None
        raise
    info = os.fstat(fd)
    what = kind(info.st_mode)
    if what and not os.path.samestat(info, _devnull()):
        os.close(fd)
        raise NotRegular(path, f"is {what}; expected a regular file")
    return os.fdopen(fd, "a", encoding="utf-8")


def _devnull() -> os.stat_result:
    return os.stat(os.devnull)


def is_devnull(path: str | os.PathLike[str]) -> bool:
    try:
        return os.path.samestat(os.stat(path), _devnull())
    except OSError:
        return False

