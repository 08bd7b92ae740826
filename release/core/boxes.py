"""Tables and lines for a terminal, drawn by this tool: a table in a box of line-drawing
characters, its title and header bold, bold and colours as SGR escapes (none with ``NO_COLOR``),
fitted to the terminal's width by wrapping cells at their spaces. rich drew these before;
importing its console and table was about 1.3 ``python -c pass`` of every ``status``, dry run
and ``promote`` on a terminal (issue 36), for a few boxes. Progress bars stay rich's.

Fitting: a table as wide as its cells when that fits; else its widest columns give way first,
each down to its longest word, so no word is broken; only where even the longest words do not fit
side by side are words folded, the longest first (a long URL in a narrow terminal). Every cell's text is shown, none
cut. Lines of text are not wrapped (the terminal does that), as rich did with ``soft_wrap``.
"""

from __future__ import annotations

from typing import IO, Any

from release.core import sanitize
from release.core.plain import PlainConsole, PlainTable, cell_width, markup_pieces

# top-left, top-join, top-right, mid-left, cross, mid-right, bottom-left, bottom-join, bottom-right,
# horizontal, vertical
LINES = "┌┬┐├┼┤└┴┘─│"
ASCII = "+++++++++-|"  # for a terminal whose encoding has no line-drawing characters

# The style words the views use (rich's names), as SGR parameters; any other word is dropped.
SGR = {"bold": "1", "b": "1", "dim": "2", "italic": "3", "i": "3", "underline": "4", "u": "4",
       "red": "31", "green": "32", "yellow": "33", "blue": "34", "magenta": "35", "cyan": "36", "white": "37"}
RESET = "\x1b[0m"


def sgr(style: str | None) -> str:
    """The escape that turns on ``style`` (``"bold yellow"``), or ``""`` for none it knows."""
    codes = [SGR[word] for word in (style or "").split() if word in SGR]
    return f"\x1b[{';'.join(codes)}m" if codes else ""


def painted(text: str, style: str | None, color: bool) -> str:
    """``text`` in ``style`` when colour is on (``text`` is already safe)."""
    on = sgr(style) if color else ""
    return f"{on}{text}{RESET}" if on and text else text


def fold(word: str, width: int) -> list[str]:
    """``word`` in pieces of at most ``width`` columns (a combining mark stays with its letter)."""
    if cell_width(word) <= width:
        return [word]
    pieces, piece, used = [], "", 0
    for char in word:
        w = cell_width(char)
        if piece and used + w > width:
            pieces.append(piece)
            piece, used = "", 0
        piece, used = piece + char, used + w
    return [*pieces, piece]


def wrap(text: str, width: int) -> list[str]:
    """``text`` in lines of at most ``width`` columns, broken at spaces; a word longer than a line
    is folded. Text that fits is kept as it is."""
    if cell_width(text) <= width:
        return [text]
    lines: list[str] = []
    line, used = "", -1  # -1: nothing on the line yet
    for word in text.split(" "):
        for piece in fold(word, width) if word else ():
            w = cell_width(piece)
            if used >= 0 and used + 1 + w <= width:
                line, used = f"{line} {piece}", used + 1 + w
                continue
            if used >= 0:
                lines.append(line)
            line, used = piece, w
    return [*lines, line] if used >= 0 else [""]


def _shrink(widths: list[int], floors: list[int], room: int) -> list[int]:
    """``widths`` narrowed to sum to ``room`` where they can: the widest first, none below its floor."""
    widths = list(widths)
    excess = sum(widths) - room
    while excess > 0:
        can = [i for i, w in enumerate(widths) if w > floors[i]]
        if not can:
            break
        widest = max(widths[i] for i in can)
        i = next(i for i in can if widths[i] == widest)
        widths[i] -= 1
        excess -= 1
    return widths


def column_widths(columns: list[list[str]], room: int) -> list[int]:
    """Each column's width (its cells beside each other in ``room`` columns, borders apart)."""
    natural = [max([1, *(cell_width(c) for c in col)]) for col in columns]
    words = [max([1, *(cell_width(w) for c in col for w in c.split(" "))]) for col in columns]
    if sum(words) > room:  # some words must fold: those of the columns with the longest ones
        glyphs = [max([1, *(cell_width(ch) for c in col for ch in c)]) for col in columns]
        words = _shrink(words, glyphs, room)
    return _shrink(natural, words, room)


def box_lines(table: PlainTable, width: int, *, color: bool, chars: str = LINES) -> list[str]:
    """``table`` drawn in a box at most ``width`` columns wide where its cells can wrap to fit."""
    n = len(table.headers)
    rows = [tuple(row[i] if i < len(row) else "" for i in range(n)) for row in table.rows]
    title = sanitize.line(table.title).strip() if table.title else ""
    if not n:
        return [painted(t, "bold", color) for t in wrap(title, width)] if title else []
    widths = column_widths([[h, *(r[i] for r in rows)] for i, h in enumerate(table.headers)], width - 3 * n - 1)
    span = sum(widths) + 3 * n + 1
    tl, tj, tr, ml, mx, mr, bl, bj, br, h, v = tuple(chars)
    out = []
    for line in wrap(title, max(span, width) if cell_width(title) > span else span) if title else []:
        pad = (span - cell_width(line)) // 2 if table.title_justify == "center" else 0
        out.append(" " * max(pad, 0) + painted(line, "bold", color))

    def rule(left: str, join: str, right: str) -> str:
        return left + join.join(h * (w + 2) for w in widths) + right

    def row_lines(cells: tuple[str, ...], style: str | None) -> list[str]:
        wrapped = [wrap(cell, w) for cell, w in zip(cells, widths)]
        drawn = []
        for k in range(max(len(lines) for lines in wrapped)):
            parts = []
            for lines, w in zip(wrapped, widths):
                piece = lines[k] if k < len(lines) else ""
                parts.append(painted(piece, style, color) + " " * (w - cell_width(piece)))
            drawn.append(f"{v} " + f" {v} ".join(parts) + f" {v}")
        return drawn

    out.append(rule(tl, tj, tr))
    out += row_lines(tuple(table.headers), "bold")
    out.append(rule(ml, mx, mr))
    for row in rows:
        out += row_lines(row, None)
    out.append(rule(bl, bj, br))
    return out


class TermConsole(PlainConsole):
    """Our console on a terminal: tables boxed (``box_lines``), markup and ``style`` as SGR
    escapes when ``color``, every piece of text made safe (``sanitize.line``) before a colour is
    put around it. A ``PlainConsole`` to the views (rich's escaping is not needed)."""

    is_terminal = True

    def __init__(self, stream: IO[str], width: int, *, color: bool):
        super().__init__(stream)
        self.width, self.color = width, color
        encoding = (getattr(stream, "encoding", None) or "utf-8").lower().replace("-", "")
        self.chars = LINES if encoding.startswith("utf") else ASCII

    def print(self, *objects: Any, markup: bool | None = None, sep: str = " ", style: str | None = None,
              **_: Any) -> None:
        texts = [str(obj) for obj in objects if not isinstance(obj, PlainTable)]
        if texts:
            joined = sep.join(texts).split("\n")
            lines = ([sanitize.line(line) for line in joined] if markup is False
                     else self._styled(joined))
            self._write("text", [painted(line, style, self.color) for line in lines])
        for table in (obj for obj in objects if isinstance(obj, PlainTable)):
            self._write("table", box_lines(table, self.width, color=self.color, chars=self.chars))

    def _styled(self, lines: list[str]) -> list[str]:
        """Lines of markup: each tag's style turned on (or off, ``[/]``) by an escape, each line
        ending with every style off."""
        styles: list[str] = []
        out = []
        for line in lines:
            said = on = sgr(" ".join(styles)) if self.color else ""
            for piece, is_tag in markup_pieces(line):
                if not is_tag:
                    said += sanitize.line(piece)
                    continue
                styles = styles[:-1] if piece.startswith("/") else [*styles, piece]
                if self.color:
                    said += (RESET if on else "") + (on := sgr(" ".join(styles)))
            out.append(said + RESET if on else said)
        return out

    def _write(self, kind: str, lines: list[str]) -> None:
        """No empty line around a table: its box sets it off."""
        self.stream.write("".join(line + "\n" for line in lines))
        self._last = kind
