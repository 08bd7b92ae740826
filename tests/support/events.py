"""Waiting for another process to reach a point, without reading the wall clock.

A test that must act while a child is mid-way (kill it, run a second one against its lock)
blocks on an event the child emits: a line it prints, or a write to a named pipe (FIFO) its
script makes. The wait ends on that event or on the child's exit (a ``pidfd``), never on a poll
interval. ``SAFETY_NET`` seconds bound a wait only so that a hung child fails the test loudly
instead of hanging the suite; no outcome depends on it.
"""

from __future__ import annotations

import os
import select
import subprocess
from pathlib import Path

SAFETY_NET = 600.0


def fifo(path: Path) -> int:
    """Make a named pipe at ``path`` and open its read end (non-blocking, so the open does not
    wait for a writer). A child's ``echo x > path`` then succeeds at once and wakes the reader."""
    os.mkfifo(path)
    return os.open(path, os.O_RDONLY | os.O_NONBLOCK)


def _wait(fd: int, proc: subprocess.Popen, what: str, seen: bytes) -> bool:
    """Block until ``fd`` is readable (True) or ``proc`` has exited (False)."""
    pidfd = os.pidfd_open(proc.pid)
    try:
        ready, _, _ = select.select([fd, pidfd], [], [], SAFETY_NET)
    finally:
        os.close(pidfd)
    if not ready:
        raise AssertionError(f"{what}: nothing after {SAFETY_NET:.0f} s (the child hangs); "
                             f"seen so far: {seen.decode(errors='replace')!r}")
    return fd in ready


def _stderr(proc: subprocess.Popen) -> str:
    if proc.stderr is None or proc.stderr.closed:
        return ""
    text = proc.stderr.read()
    return f"; stderr: {text.decode(errors='replace') if isinstance(text, bytes) else text}"


def await_fifo(fd: int, proc: subprocess.Popen, what: str) -> bytes:
    """The first write to the FIFO read end ``fd`` (from ``fifo``); fails when ``proc`` exits
    before any write, or a writer closes the pipe without writing."""
    if not _wait(fd, proc, what, b""):
        raise AssertionError(f"{what}: the process exited ({proc.wait()}) before it happened"
                             + _stderr(proc))
    data = os.read(fd, 4096)
    if not data:
        raise AssertionError(f"{what}: the pipe was closed without a word")
    return data


def await_output(stream, marker: bytes, proc: subprocess.Popen, what: str) -> bytes:
    """Read ``proc``'s output pipe ``stream`` (a binary ``Popen`` pipe) until ``marker`` appears;
    returns what was read. Fails when the pipe ends (the process exited) before it."""
    fd = stream.fileno()
    seen = b""
    while marker not in seen:
        if not _wait(fd, proc, what, seen):
            seen += os.read(fd, 1 << 16) if select.select([fd], [], [], 0)[0] else b""
            if marker in seen:
                break
            raise AssertionError(f"{what}: the process exited ({proc.wait()}) first; it printed "
                                 f"{seen.decode(errors='replace')!r}" + _stderr(proc))
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            raise AssertionError(f"{what}: the output ended first; it printed "
                                 f"{seen.decode(errors='replace')!r}")
        seen += chunk
    return seen
