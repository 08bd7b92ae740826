"""People output in a log or a pipe is plain text (release.core.plain): a table's columns line up
as a terminal shows them (rich's own cell widths are the measure here), nothing a terminal acts on
gets through, markup reads as rich would print it, and a line is what rich wrote there before."""

from __future__ import annotations

import io
import re

import pytest
from hypothesis import assume, example, given
from hypothesis import strategies as st
from rich.cells import cell_len
from rich.errors import MarkupError
from rich.text import Text

from release.core import output
from release.core.boxes import TermConsole
from release.core.plain import PlainConsole, PlainTable, new_table, strip_markup
from tests.test_sanitize import ACTS, UPSTREAM

# Narrow and wide characters, a combining mark, an emoji, punctuation: no spaces, so the words of
# a row are its cells.
GLYPHS = st.sampled_from(["a", "Z", "7", "-", ".", "/", "é", "e\u0301", "一", "語", "한", "🟢", "_", "ß"])
CELL = st.lists(GLYPHS, min_size=1, max_size=6).map("".join)


@st.composite
def tables(draw):
    columns = draw(st.integers(1, 5))
    headers = draw(st.lists(CELL, min_size=columns, max_size=columns))
    rows = draw(st.lists(st.lists(CELL, min_size=columns, max_size=columns), max_size=5))
    return headers, rows


def starts(line: str) -> list[int]:
    """The screen column each word of ``line`` starts at."""
    return [cell_len(line[:m.start()]) for m in re.finditer(r"\S+", line)]


@given(table=tables(), title=CELL)
@example(table=(["dep", "commit"], [["一語", "a"], ["x", "🟢🟢"]]), title="pins")
def test_every_column_starts_at_the_same_screen_column_on_every_line(table, title):
    headers, rows = table
    plain = PlainTable(title)
    for header in headers:
        plain.add_column(header, no_wrap=True)
    for row in rows:
        plain.add_row(*row)
    title_line, header, rule, *body = plain.lines()
    assert title_line == title and len(body) == len(rows)
    assert all(set(dashes) == {"-"} for dashes in rule.split())
    column_starts = starts(rule)
    for line, cells in zip([header, *body], [headers, *rows]):
        assert line.split() == cells and starts(line) == column_starts, (line, rule)
    for dashes, i in zip(rule.split(), range(len(headers))):  # a column is as wide as its widest cell
        assert cell_len(dashes) == max(cell_len(cells[i]) for cells in [headers, *rows])


def test_an_empty_cell_leaves_its_column_blank_and_the_next_one_in_place():
    plain = PlainTable("next versions")
    for col in ("kind", "version", "note"):
        plain.add_column(col)
    plain.add_row("nightly", "0.9.1.dev20261128", "")
    plain.add_row("rc", "", "rcs come first")
    plain.add_row("post", None, "a post re-spins a release")
    _, header, _, nightly, rc, post = plain.lines()
    assert nightly == "nightly  0.9.1.dev20261128"  # no trailing spaces
    assert rc.index("rcs") == post.index("a post") == header.index("note")


@given(cells=st.lists(UPSTREAM, min_size=2, max_size=4), title=UPSTREAM, text=UPSTREAM)
@example(cells=["", "\x1b[31m"], title="\r", text="\r")
def test_nothing_a_terminal_acts_on_gets_through(cells, title, text):
    stream = io.StringIO()
    console = PlainConsole(stream)
    table = PlainTable(title)
    for cell in cells:
        table.add_column(cell)
    table.add_row(*cells)
    console.print(table)
    assert all(line == line.rstrip() for line in stream.getvalue().split("\n"))  # a table's lines end in a cell
    console.print(text, markup=False)
    console.print(text)
    written = stream.getvalue()
    assert not ACTS.search(written.replace("\n", "")), repr(written)


MARKUP = st.lists(st.sampled_from(["[bold]", "[/bold]", "[/]", "[i]", "\\[", "\\", "[", "]", "x", " ",
                                   "[link=https://a.example/x]", "[1]", "[#ff0000]", "[@click]", "[a=b]"]),
                  max_size=10).map("".join)


@given(text=MARKUP)
@example(text="\\\\[bold]b[/bold]")
@example(text="\\[bold] is how rich shows a tag")
@example(text="\\[ [bold]x[/bold]")  # an escaped bracket that opens no tag, before one that is a tag
def test_markup_reads_as_rich_prints_it(text):
    try:
        expected = Text.from_markup(text).plain
    except MarkupError:  # rich refuses it (a closing tag nothing opened): no view prints that
        assume(False)
    assert strip_markup(text) == expected


@given(text=UPSTREAM, terminal=st.booleans())
@example(text="line one\nline two", terminal=True)
@example(text="", terminal=False)
def test_a_line_is_what_rich_wrote_there(text, terminal, monkeypatch):
    """``Output.line`` writes a line itself, on a terminal or not (rich is not imported): the
    same characters rich's console wrote on that stream."""
    for name in output._TERMINAL_OVERRIDES:
        monkeypatch.delenv(name, raising=False)
    if terminal:
        monkeypatch.setenv("TTY_COMPATIBLE", "1")
    ours = io.StringIO()
    output.Output(stream=ours).line(text)
    theirs = io.StringIO()
    safe = "\n".join(output.sanitize.line(part) for part in text.split("\n"))
    console = output.console_for(theirs)
    assert console.is_terminal is terminal
    console.print(safe, markup=False, emoji=False)
    assert ours.getvalue() == theirs.getvalue()


@pytest.mark.parametrize("as_json, terminal, drawn_by", [
    (False, False, PlainConsole), (False, True, TermConsole), (True, False, None), (True, True, None)])
def test_a_view_is_plain_text_off_a_terminal_boxed_on_one_and_json_with_json(monkeypatch, as_json, terminal, drawn_by):
    """Either way the table's title is on its own line, at its left (rich's ``title_justify``)."""
    for name in output._TERMINAL_OVERRIDES:
        monkeypatch.delenv(name, raising=False)
    if terminal:
        monkeypatch.setenv("TTY_COMPATIBLE", "1")
        monkeypatch.setenv("NO_COLOR", "1")
    seen = []

    def human(console):
        seen.append(type(console))
        table = new_table(console, "pins")
        table.add_column("a")
        table.add_row("a cell much wider than the title")
        console.print(table)

    stream = io.StringIO()
    output.Output(as_json=as_json, stream=stream).result_view({"a": 1}, human)
    assert seen == ([drawn_by] if drawn_by else [])
    written = re.sub(r"\x1b\[[0-9;]*m", "", stream.getvalue())
    if as_json:
        assert '"a": 1' in written
    else:
        assert ("┌" in written) is terminal and "a cell much wider" in written
        assert written.split("\n")[0] == "pins", written


def test_a_table_is_set_off_from_the_lines_around_it():
    stream = io.StringIO()
    console = PlainConsole(stream)
    console.print("line 0.9.1", markup=False)
    table = PlainTable("pins")
    table.add_column("dep")
    table.add_row("xla")
    console.print(table)
    console.print(table)
    console.print("[bold]assets[/bold]")
    console.print("  a.whl")
    assert stream.getvalue() == ("line 0.9.1\n\npins\ndep\n---\nxla\n\npins\ndep\n---\nxla\n\nassets\n  a.whl\n")


def test_text_is_written_as_rich_prints_it():
    """Several objects joined by ``sep``, each line of a text its own line, markup dropped unless
    ``markup=False`` (then the brackets are the text's own), and no blank line before a first table."""
    stream = io.StringIO()
    console = PlainConsole(stream)
    table = PlainTable("first")
    table.add_column("h")
    table.add_row("r")
    console.print(table)
    console.print("a", "[bold]b[/bold]", 3)
    console.print("one\ntwo", markup=False)
    console.print("[bold]kept[/bold] as written", markup=False)
    assert stream.getvalue() == "first\nh\n-\nr\n\na b 3\none\ntwo\n[bold]kept[/bold] as written\n"


def test_a_table_without_a_title_starts_at_its_header_and_a_short_row_leaves_the_rest_blank():
    table = PlainTable()
    for col in ("tag", "ROCm", "note"):
        table.add_column(col)
    table.add_row("v1", "7")  # fewer cells than columns
    table.add_row("v2", "10", "n")
    assert table.lines() == ["tag  ROCm  note", "---  ----  ----", "v1   7", "v2   10    n"]
