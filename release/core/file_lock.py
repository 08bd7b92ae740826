"""An exclusive lock on a file beside what it guards: ``with held(path): ...``; the only lock
concept of the tool (the manifest, the mirror, a local store, an index site, a job).

A writer re-reads, changes and replaces what it guards under this lock. It is ``flock(2)`` on
``path``, as the ``filelock`` package takes it on Unix, so an older ``release`` that used that
package and this one wait for each other; a dozen lines here instead of a second import per
command (importing it cost ``release build`` of a tiny wheel about a tenth of its CPU). The lock
file is never removed (removing it while another process waits on it would let a third lock a
new file beside them), never truncated, and a link or a directory in its place is refused, not
followed.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import stat
import time
from pathlib import Path
from typing import Iterator

from release.core.errors import UserError


class Busy(Exception):
    """Another holder kept the lock for the whole ``timeout``; the caller says what that means."""


class Refused(UserError):
    """Something other than a regular file (a link, a directory) is where the lock goes."""

    def __init__(self, path: Path | str, why: str):
        super().__init__(f"{path}: cannot take the lock ({why}); expected a regular file or none")
        self.why = why


def _attempt(fd: int) -> bool:
    """One try at the lock without waiting: True when taken."""
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def _open(path: Path | str) -> int:
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK, 0o644)
    except OSError as exc:
        raise Refused(path, "a symbolic link" if exc.errno == errno.ELOOP
                      else "a directory" if exc.errno == errno.EISDIR
                      else (exc.strerror or str(exc)).lower()) from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise Refused(path, "not a regular file")
    return fd


@contextlib.contextmanager
def held(path: Path | str, *, timeout: float | None = None, poll: float = 0.05) -> Iterator[None]:
    """Hold the exclusive lock on ``path`` (created 0644 if missing) for the ``with`` block;
    released when the block ends, however it ends.

    ``timeout``: None or negative waits for whoever holds it as long as they do; 0 tries once;
    more tries every ``poll`` seconds until that many seconds have passed. Raises ``Busy`` when
    it was not taken in time, ``Refused`` (one line) when ``path`` is not a regular file.
    """
    fd = _open(path)
    try:
        if timeout is None or timeout < 0:
            fcntl.flock(fd, fcntl.LOCK_EX)
        else:
            deadline = time.monotonic() + timeout
            while not _attempt(fd):
                left = deadline - time.monotonic()
                if left <= 0:
                    raise Busy(str(path))
                time.sleep(min(poll, left))
        yield
    finally:
        os.close(fd)  # lets go of the lock (the only descriptor of this open file)
