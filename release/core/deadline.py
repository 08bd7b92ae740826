"""A wall-clock deadline that holds during a blocking call, not only between calls.

A socket timeout bounds each read; a server that drips one byte every few seconds satisfies
every read and holds a request for as long as it likes. ``wall_clock_limit`` arms a real-time
timer (``SIGALRM``) for the block, and the timer's handler raises ``DeadlineExceeded`` inside
whatever call is blocked; the previous timer and handler are restored afterwards, so limits
nest (the inner one never outlives the outer one). Signals reach only the main thread: off
it, the block runs without the timer and callers keep their per-read timeouts.
"""

from __future__ import annotations

import contextlib
import math
import signal
import threading
import time
from typing import Any, Iterator


class DeadlineExceeded(Exception):
    """The block ran past its wall-clock limit (raised from inside the blocked call)."""

    def __init__(self, seconds: float):
        self.seconds = seconds
        super().__init__(f"no complete answer within {seconds:g} s")


def _armable() -> bool:
    return hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()


@contextlib.contextmanager
def wall_clock_limit(seconds: float) -> Iterator[None]:
    """Run the block for at most ``seconds`` of real time, else raise ``DeadlineExceeded``."""
    if not math.isfinite(seconds) or seconds <= 0:
        raise DeadlineExceeded(max(seconds, 0.0) if math.isfinite(seconds) else 0.0)
    if not _armable():
        yield
        return
    outer_left, _ = signal.getitimer(signal.ITIMER_REAL)
    outer_ends = time.monotonic() + outer_left if outer_left > 0 else None
    limit = min(seconds, outer_left) if outer_left > 0 else seconds
    mine = limit == seconds  # else the outer limit fires first and raises its own error

    def expire(_signum: int, _frame: Any) -> None:
        raise DeadlineExceeded(seconds)

    previous = signal.signal(signal.SIGALRM, expire if mine else signal.getsignal(signal.SIGALRM))
    signal.setitimer(signal.ITIMER_REAL, limit)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        if outer_ends is not None:  # give the outer limit back what is left of it
            signal.setitimer(signal.ITIMER_REAL, max(outer_ends - time.monotonic(), 1e-6))
