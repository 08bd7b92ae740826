"""Tables and lines as plain text, for a log or a pipe: what a command's people output is when it
is not shown on a terminal (``release.core.boxes`` draws it boxed there). Importing rich and drawing
its boxes was about a third of a small command's start-up (issue 36), for output a CI log or
``grep`` reads as text.

A table is its title, a header, a rule of dashes and the rows, columns two spaces apart and padded
to the widest cell (a wide character counts two), no trailing spaces: ``cut``/``awk`` read it as
they read ``pip list``. Every line goes out through ``sanitize.line``: a cell or a line from
upstream cannot move the cursor or recolour a log.
"""

from __future__ import annotations

import re
from typing import IO, TYPE_CHECKING, Any, Iterator

from release.core import sanitize

if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table

GAP = "  "
# rich's markup tags (``[bold]``, ``[/]``, ``[link=...]``); ``\\[`` is a literal bracket.
_TAG = re.compile(r"(\\*)\[([a-z#/@][^[]*?)]")


def cell_width(text: str) -> int:
    """The columns ``text`` takes on a terminal: two for a wide (East Asian) character, none for
    a combining mark."""
    if text.isascii():
        return len(text)
    import unicodedata
    return sum(0 if unicodedata.combining(c) else 2 if unicodedata.east_asian_width(c) in "WF" else 1
               for c in text)


def markup_pieces(text: str) -> Iterator[tuple[str, bool]]:
    """``text`` as rich reads its markup: (words, False) as printed, an escaped bracket kept, and
    (a tag's inside, True) for each tag (``bold``, ``/bold``, ``/``, ``link=...``)."""
    at = 0
    for match in _TAG.finditer(text):
        yield text[at:match.start()].replace("\\[", "["), False
        pairs, escaped = divmod(len(match.group(1)), 2)  # each pair is one backslash
        yield "\\" * pairs + (f"[{match.group(2)}]" if escaped else ""), False
        if not escaped:
            yield match.group(2), True
        at = match.end()
    yield text[at:].replace("\\[", "["), False


def strip_markup(text: str) -> str:
    """``text`` as rich would print it without styles: its tags dropped, an escaped bracket kept."""
    if "[" not in text:
        return text
    return "".join(piece for piece, tag in markup_pieces(text) if not tag)


class PlainTable:
    """The part of rich's ``Table`` the views use (a title, columns, rows), as aligned text."""

    def __init__(self, title: str | None = None, *, title_justify: str = "left", **_: Any):
        self.title = title
        self.title_justify = title_justify  # where a boxed table (``release.core.boxes``) puts its title
        self.headers: list[str] = []
        self.rows: list[tuple[str, ...]] = []

    def add_column(self, header: str, **_: Any) -> None:
        self.headers.append(sanitize.line(header))

    def add_row(self, *cells: str | None) -> None:
        self.rows.append(tuple(sanitize.line(c or "") for c in cells))

    def lines(self) -> list[str]:
        rows = [tuple(self.headers), *self.rows]
        widths = [max(cell_width(row[i]) if i < len(row) else 0 for row in rows) for i in range(len(self.headers))]
        rows.insert(1, tuple("-" * w for w in widths))
        out = [sanitize.line(self.title).rstrip()] if self.title else []
        for row in rows:
            padded = [c + " " * (w - cell_width(c)) for c, w in zip(row, widths)]
            out.append(GAP.join(padded).rstrip())
        return out


class PlainConsole:
    """The part of rich's ``Console`` the views use: ``print`` of text or a table. Markup is
    dropped (``markup=False`` text is written as it is), styles are ignored."""

    is_terminal = False

    def __init__(self, stream: IO[str]):
        self.stream = stream
        self._last: str | None = None  # what was printed last: "table", "text" or nothing yet

    def print(self, *objects: Any, markup: bool | None = None, sep: str = " ", **_: Any) -> None:
        texts = [str(obj) if markup is False else strip_markup(str(obj))
                 for obj in objects if not isinstance(obj, PlainTable)]
        if texts:
            self._write("text", [sanitize.line(part) for part in sep.join(texts).split("\n")])
        for table in (obj for obj in objects if isinstance(obj, PlainTable)):
            self._write("table", table.lines())

    def _write(self, kind: str, lines: list[str]) -> None:
        """A table is set off from what is around it by an empty line."""
        apart = self._last is not None and "table" in (kind, self._last)
        self.stream.write("\n" * apart + "".join(line + "\n" for line in lines))
        self._last = kind


def new_table(console: Console | PlainConsole, title: str, *, title_justify: str = "left") -> Table | PlainTable:
    """A table for ``console``: rich's on rich's console, else ours (its title on a line of its own;
    boxed on a terminal, ``release.core.boxes``)."""
    if isinstance(console, PlainConsole):
        return PlainTable(title, title_justify=title_justify)
    from rich.table import Table
    return Table(title=title, title_justify=title_justify)  # type: ignore[arg-type]
