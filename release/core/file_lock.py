"""An exclusive lock on a file beside what it guards: ``with held(path): ...``.

The manifest's writers (build, publish, validate) re-read, change and replace it under this
lock. It is ``flock(2)`` on ``path``, as the ``filelock`` package takes it on Unix, so a
process holding either waits for the other; written here because importing that package costs
a small command (``release build`` of a tiny wheel) about a tenth of its CPU. The lock file is
never removed (removing it while another process waits on it would let a third lock a new
file beside them), and a link or a directory in its place is refused, not followed.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import stat
from pathlib import Path
from typing import Iterator

from release.core.errors import UserError


@contextlib.contextmanager
def held(path: Path | str) -> Iterator[None]:
    """Hold the exclusive lock on ``path`` (created 0644 if missing) for the ``with`` block,
    waiting for whoever holds it; released when the block ends, however it ends."""
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK, 0o644)
    except OSError as exc:
        why = ("a symbolic link" if exc.errno == errno.ELOOP
               else "a directory" if exc.errno == errno.EISDIR else (exc.strerror or str(exc)).lower())
        raise UserError(f"{path}: cannot take the lock ({why}); expected a regular file or none") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise UserError(f"{path}: cannot take the lock (not a regular file); expected a regular file or none")
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # lets go of the lock (the only descriptor of this open file)
