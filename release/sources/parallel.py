"""Questions to different remotes asked at once, so their round trips overlap.

A bump's time on a real network is mostly round trips (each git fetch is two or three HTTP
requests, each a network's latency), and the checks of deps on different repositories do not
depend on each other: they run on threads, one per repository, each waiting on its own git
processes. The deps of one repository stay on one thread, in order: one mirror is never
fetched into by two git processes at once.
"""

from __future__ import annotations

import functools
import threading
from typing import Callable, Generic, Hashable, Iterable, TypeVar

T = TypeVar("T")
R = TypeVar("R")


class Later(Generic[R]):
    """``call()`` run on its own thread from now; ``get()`` waits for it and returns its result,
    or raises what it raised (an answer nobody asks for is dropped with its error)."""

    def __init__(self, call: Callable[[], R]):
        self._call = call
        self._result: R | None = None
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            self._result = self._call()
        except BaseException as exc:  # noqa: BLE001 (handed to whoever asks, with its traceback)
            self._error = exc

    def get(self) -> R:
        self._thread.join()
        if self._error is not None:
            raise self._error
        return self._result  # type: ignore[return-value]  # set by _run when no error


def by_group(items: Iterable[T], key: Callable[[T], Hashable],
             each: Callable[[T], R]) -> tuple[dict[int, R], dict[int, BaseException]]:
    """``each(item)`` for every item: the items of one ``key`` one after another on one thread,
    the groups at once. Returns ``({index: result}, {index: error})`` by the items' order; a
    group stops at its first error (the items after it in that group have neither)."""
    groups: dict[Hashable, list[tuple[int, T]]] = {}
    for i, item in enumerate(items):
        groups.setdefault(key(item), []).append((i, item))
    results: dict[int, R] = {}
    errors: dict[int, BaseException] = {}

    def run(group: list[tuple[int, T]]) -> None:
        for i, item in group:
            try:
                results[i] = each(item)
            except BaseException as exc:  # noqa: BLE001 (the caller raises the first, by order)
                errors[i] = exc
                return

    if len(groups) == 1:
        run(next(iter(groups.values())))
    else:
        for later in [Later(functools.partial(run, group)) for group in groups.values()]:
            later.get()
    return results, errors
