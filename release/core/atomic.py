"""Replace a file whole or not at all, and durably: the one way this tool writes a small file.

A temp file beside the target is written, flushed and fsynced, renamed over the target, and
the directory is fsynced, so a crash (or a power cut) leaves the old content or the new, never
a torn or empty file, and a file the tool says it wrote survives a reboot. A failed write
leaves no temp file behind. An existing file keeps its permission bits; a new one is 0o644.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def atomic_write(path: Path, text: str | bytes) -> None:
    """Replace ``path`` with ``text`` (UTF-8 when a str) via a temp file and a rename."""
    path = Path(path)
    data = text.encode("utf-8") if isinstance(text, str) else text
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        try:
            mode = path.stat().st_mode & 0o7777
        except FileNotFoundError:
            mode = 0o644
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    _sync_directory(path.parent)


def _sync_directory(directory: Path) -> None:
    """fsync the directory so the rename itself is on disk (a no-op where not supported)."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
