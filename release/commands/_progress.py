"""A bytes progress bar for the commands that read or write whole wheels (verify, promote)."""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Iterator

if TYPE_CHECKING:   # rich is imported only when a bar is drawn
    from rich.progress import Progress, TaskID

    from release.core.output import Output


class Bar:
    """What the work reports (``release.jobs.promote.Bar``): the file it is on, the bytes it moved."""

    def __init__(self, progress: Progress | None, task: TaskID | None):
        self._progress, self._task = progress, task

    def advance(self, n: int) -> None:
        if self._progress is not None and self._task is not None:
            self._progress.advance(self._task, n)

    def describe(self, text: str) -> None:
        if self._progress is not None and self._task is not None:
            self._progress.update(self._task, description=text)


# Fewer bytes than this are read or copied in a few hundredths of a second (verify and promote move
# hundreds of MB a second): a bar for them would be erased before anyone saw it, and importing rich
# to draw it was more than the work (issue 36).
BAR_FROM = 16 << 20


@contextlib.contextmanager
def byte_progress(out: Output, title: str, total: int) -> Iterator[Bar]:
    """A bytes progress bar on a terminal (stderr with --json) for ``BAR_FROM`` bytes or more;
    silent when not a terminal or less (and then rich is not even imported: CI's verify pays only
    for its own work)."""
    if total < BAR_FROM or not out.draws_progress():
        yield Bar(None, None)
        return
    from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TransferSpeedColumn
    console = out.progress_console()
    with Progress(TextColumn("{task.description}"), BarColumn(), DownloadColumn(),
                  TransferSpeedColumn(), console=console, transient=True) as progress:
        yield Bar(progress, progress.add_task(title, total=total))
