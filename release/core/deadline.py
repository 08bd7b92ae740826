"""A wall-clock deadline that holds during a blocking call, not only between calls.

A socket timeout bounds each read; a server that drips one byte every few seconds satisfies
every read and holds a request for as long as it likes. ``wall_clock_limit`` arms a real-time
timer (``SIGALRM``) for the block, and the timer's handler raises ``DeadlineExceeded`` inside
whatever call is blocked; the previous timer and handler are restored afterwards, so limits
nest (the inner one never outlives the outer one). Signals reach only the main thread: off
it, the block runs without the timer and callers keep their per-read timeouts.

A request whose phases have different deadlines (an upload: sending, then the index's answer)
restarts its limit between them (``Limit.restart``, callable from inside the blocked call).
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


class Limit:
    """The running limit of a ``wall_clock_limit`` block."""

    def __init__(self, seconds: float, outer_ends: float | None = None, outer_handler: Any = None,
                 armed: bool = False):
        self.seconds, self._outer_ends, self._armed = seconds, outer_ends, armed
        self._outer_handler = outer_handler

    def _arm(self) -> None:
        """Set the timer to ``seconds`` from now, or to what the outer limit has left when that is
        less (then the outer limit's handler fires: its error is the one that counts)."""
        left = self._outer_ends - time.monotonic() if self._outer_ends is not None else None
        mine = left is None or self.seconds <= left
        signal.signal(signal.SIGALRM, self._expire if mine else self._outer_handler)
        signal.setitimer(signal.ITIMER_REAL, self.seconds if mine else max(left or 0.0, 1e-6))

    def _expire(self, _signum: int, _frame: Any) -> None:
        raise DeadlineExceeded(self.seconds)

    def restart(self, seconds: float) -> None:
        """From now on the block has ``seconds`` more (the next phase of one request)."""
        if not math.isfinite(seconds) or seconds <= 0:
            raise DeadlineExceeded(0.0)  # nothing left: never '-0 s' or 'nan s'
        self.seconds = seconds
        if self._armed:
            self._arm()


@contextlib.contextmanager
def wall_clock_limit(seconds: float) -> Iterator[Limit]:
    """Run the block for at most ``seconds`` of real time, else raise ``DeadlineExceeded``."""
    if not math.isfinite(seconds) or seconds <= 0:
        raise DeadlineExceeded(0.0)
    if not _armable():
        yield Limit(seconds)
        return
    outer_left, _ = signal.getitimer(signal.ITIMER_REAL)
    outer_ends = time.monotonic() + outer_left if outer_left > 0 else None
    previous = signal.getsignal(signal.SIGALRM)
    limit = Limit(seconds, outer_ends, previous, armed=True)
    limit._arm()
    try:
        yield limit
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        if outer_ends is not None:  # give the outer limit back what is left of it
            signal.setitimer(signal.ITIMER_REAL, max(outer_ends - time.monotonic(), 1e-6))
