"""A progress bar stand-in for jobs that report progress (``release.core.output.ProgressBars``'s
bars): it remembers what it was told, so a test can state what a long step showed."""

from __future__ import annotations


class Bar:
    """A progress bar that remembers what it was told."""

    def __init__(self) -> None:
        self.described: list[str] = []
        self.advanced = 0

    def describe(self, text: str) -> None:
        self.described.append(text)

    def advance(self, n: int) -> None:
        self.advanced += n
