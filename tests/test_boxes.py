"""On a terminal a command's tables are boxed by our own code (release.core.boxes): every cell's
text is shown, in its column and in order; the box fits the terminal's width wherever its cells can
wrap, breaking at spaces and breaking a word only where the longest words cannot stand side by side;
the borders line up with wide characters; colours are SGR escapes of ours only, none with NO_COLOR;
and rich is not imported to draw them."""

from __future__ import annotations

import io
import re

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from release.core import boxes, output
from release.core.boxes import ASCII, TermConsole, box_lines
from release.core.plain import PlainTable, cell_width, strip_markup
from tests.test_sanitize import ACTS, UPSTREAM

SGR = re.compile(r"\x1b\[[0-9;]*m")
# Narrow and wide characters, a combining mark, an emoji: words of a cell, spaces between them.
GLYPHS = st.sampled_from(["a", "Z", "7", "-", ".", "/", "é", "e\u0301", "一", "語", "한", "🟢", "_", "ß", ":"])
WORD = st.lists(GLYPHS, min_size=1, max_size=14).map("".join)
CELL = st.lists(WORD, max_size=4).map(" ".join)


@st.composite
def tables(draw):
    columns = draw(st.integers(1, 6))
    headers = draw(st.lists(WORD, min_size=columns, max_size=columns))
    rows = draw(st.lists(st.lists(CELL, min_size=columns, max_size=columns), max_size=4))
    table = PlainTable(draw(st.none() | CELL), title_justify=draw(st.sampled_from(["left", "center"])))
    for header in headers:
        table.add_column(header)
    for row in rows:
        table.add_row(*row)
    return table


def body_columns(lines: list[str], columns: int) -> list[list[str]]:
    """What each column shows below the header, line by line (the box's borders taken off)."""
    plain = [SGR.sub("", line) for line in lines]
    start = max(i for i, line in enumerate(plain) if line.startswith("├")) + 1
    shown: list[list[str]] = [[] for _ in range(columns)]
    for line in plain[start:-1]:
        parts = line.split("│")[1:-1]
        assert len(parts) == columns, line
        for i, part in enumerate(parts):
            shown[i].append(part)
    return shown


def floors(table: PlainTable) -> tuple[list[int], list[int]]:
    """Each column's longest word and widest character (header and cells)."""
    columns = [[h, *(r[i] for r in table.rows)] for i, h in enumerate(table.headers)]
    words = [max(cell_width(w) for c in col for w in c.split(" ")) for col in columns]
    glyphs = [max([1, *(cell_width(ch) for c in col for ch in c)]) for col in columns]
    return words, glyphs


@given(table=tables(), width=st.integers(20, 160), color=st.booleans())
@example(table=PlainTable("pins"), width=40, color=False)
def test_every_cells_text_is_shown_in_its_column_in_order(table, width, color):
    columns = len(table.headers)
    if not columns:
        return
    shown = body_columns(box_lines(table, width, color=color), columns)
    for i in range(columns):
        expected = "".join(row[i] for row in table.rows).replace(" ", "")
        assert "".join(shown[i]).replace(" ", "") == expected, (i, shown[i])


@given(table=tables(), width=st.integers(20, 160), color=st.booleans())
@example(table=PlainTable("a title wider than the table, in words"), width=20, color=True)
def test_the_box_fits_the_terminal_wherever_its_cells_can_wrap(table, width, color):
    """Its lines all as wide as each other (the borders line up, wide characters counted two)."""
    lines = [SGR.sub("", line) for line in box_lines(table, width, color=color)]
    _, glyphs = floors(table) if table.headers else ([], [])
    if 3 * len(glyphs) + 1 + sum(glyphs) <= width:
        assert all(cell_width(line) <= width for line in lines), (width, lines)
    box = [line for line in lines if line[:1] in "┌│├└"]
    assert len({cell_width(line) for line in box}) <= 1, box
    for line in box:  # each border at the same screen column on every line
        bars = [cell_width(line[:m.start()]) for m in re.finditer("[│┌┐├┤└┘┬┼┴]", line)]
        top = [cell_width(box[0][:m.start()]) for m in re.finditer("[┌┬┐]", box[0])]
        assert bars == top, (line, box[0])


@given(table=tables(), width=st.integers(20, 160))
def test_no_word_is_broken_where_the_longest_words_fit_side_by_side(table, width):
    if not table.headers:
        return
    words, _ = floors(table)
    if 3 * len(words) + 1 + sum(words) > width:
        return
    shown = body_columns(box_lines(table, width, color=False), len(table.headers))
    for i, lines in enumerate(shown):
        assert " ".join(lines).split() == " ".join(row[i] for row in table.rows).split(), (i, lines)


def test_a_table_that_fits_is_one_line_a_row_and_a_narrow_one_wraps_at_spaces():
    table = PlainTable("next versions (ROCm 7.2.0)")
    for col in ("kind", "version", "note"):
        table.add_column(col)
    table.add_row("nightly", "0.9.1.dev20261128", "")
    table.add_row("rc", "-", "version_info.json names 0.9.1.post7, a post release: rcs come before a line's first")
    wide = box_lines(table, 200, color=False)
    assert len(wide) == 1 + 4 + 2 and "│ rc      │ -                 │ version_info.json names" in wide[-2]
    narrow = box_lines(table, 52, color=False)  # the longest words side by side: 51 columns
    assert max(cell_width(line) for line in narrow) <= 52
    kinds = [line.split("│")[1].strip() for line in narrow[4:-1]]
    assert [k for k in kinds if k] == ["nightly", "rc"]  # a short column keeps its words whole
    notes = " ".join(line.split("│")[3].strip() for line in narrow[4:-1]).split()
    assert notes == table.rows[1][2].split()


def test_the_title_is_bold_on_its_own_line_centred_when_asked():
    table = PlainTable("revisions", title_justify="center")
    table.add_column("dep")
    table.add_column("commit")
    table.add_row("xla", "b32df5f07315567cc1940388ef766b87c6e8b9e3")
    title, top, *_ = box_lines(table, 120, color=True)
    assert title.strip() == "\x1b[1mrevisions\x1b[0m" and title.startswith(" " * 10)
    assert top.startswith("┌")
    assert box_lines(table, 120, color=False)[0] == " " * ((cell_width(top) - 9) // 2) + "revisions"


def terminal_output(monkeypatch, env: dict[str, str], human, stream=None) -> str:
    for name in ("TTY_COMPATIBLE", "FORCE_COLOR", "NO_COLOR", "COLUMNS", "TERM"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    stream = stream or io.StringIO()
    output.Output(stream=stream).result_view({}, human)
    return stream.getvalue()


def pins(console) -> None:
    from release.core.plain import new_table
    table = new_table(console, "pins")
    for col in ("dep", "url"):
        table.add_column(col)
    table.add_row("jax", "https://github.com/ROCm/jax a repository of ROCm's")
    console.print(table)
    console.print("[bold]assets[/bold] and \\[not a tag]")
    console.print("warning: x", markup=False, style="bold yellow")


@pytest.mark.parametrize("env", [{"TTY_COMPATIBLE": "1"}, {"FORCE_COLOR": "1"}])
def test_a_terminal_gets_colours_and_no_color_gets_no_escape(monkeypatch, env):
    coloured = terminal_output(monkeypatch, env, pins)
    assert "\x1b[1massets\x1b[0m and [not a tag]" in coloured and "\x1b[1;33mwarning: x\x1b[0m" in coloured
    assert "┌" in coloured and not ACTS.search(SGR.sub("", coloured).replace("\n", ""))
    plain = terminal_output(monkeypatch, {**env, "NO_COLOR": "1"}, pins)
    assert "\x1b" not in plain and SGR.sub("", coloured) == plain
    assert "assets and [not a tag]\nwarning: x\n" in plain
    assert "\x1b" not in terminal_output(monkeypatch, {**env, "TERM": "dumb"}, pins)


def test_the_terminals_width_is_columns_else_its_own_else_a_logs(monkeypatch):
    import os
    narrow = SGR.sub("", terminal_output(monkeypatch, {"TTY_COMPATIBLE": "1", "COLUMNS": "30"}, pins)).split("\n")
    assert max(cell_width(line) for line in narrow if line.startswith(("┌", "│"))) <= 30
    wide = SGR.sub("", terminal_output(monkeypatch, {"TTY_COMPATIBLE": "1"}, pins))  # a StringIO: no terminal to ask
    assert "│ jax │ https://github.com/ROCm/jax a repository of ROCm's │" in wide
    primary, secondary = os.openpty()
    try:
        import fcntl
        import struct
        import termios
        fcntl.ioctl(secondary, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 36, 0, 0))
        with open(secondary, "w", closefd=False) as tty:
            assert output.is_terminal(tty) and output.columns(tty) == 36
    finally:
        os.close(primary)
        os.close(secondary)


def test_a_terminal_without_line_drawing_characters_gets_ascii_boxes():
    stream = io.TextIOWrapper(io.BytesIO(), encoding="ascii")
    console = TermConsole(stream, 80, color=False)
    table = PlainTable("t")
    table.add_column("h")
    table.add_row("r")
    console.print(table)
    stream.flush()
    assert stream.buffer.getvalue().decode() == "t\n+---+\n| h |\n+---+\n| r |\n+---+\n"  # type: ignore[attr-defined]
    assert ASCII[-2:] == "-|"


@given(cells=st.lists(UPSTREAM, min_size=1, max_size=3), title=UPSTREAM, text=UPSTREAM, color=st.booleans())
@example(cells=["\x1b[31mred"], title="\x1b]0;t\x07", text="[bold]\x1b[2J[/bold]", color=True)
def test_nothing_a_terminal_acts_on_gets_through_but_our_colours(cells, title, text, color):
    stream = io.StringIO()
    console = TermConsole(stream, 60, color=color)
    table = PlainTable(title)
    for cell in cells:
        table.add_column(cell)
    table.add_row(*cells)
    console.print(table)
    console.print(text)
    console.print(text, markup=False, style="red")
    written = stream.getvalue()
    assert not ACTS.search(SGR.sub("", written).replace("\n", "")), repr(written)
    ours = {"0", *boxes.SGR.values()}
    assert all(set(code.split(";")) <= ours for code in re.findall(r"\x1b\[([0-9;]*)m", written)), written
    if not color:
        assert "\x1b" not in written


MARKUP = st.lists(st.sampled_from(["[bold]", "[/bold]", "[/]", "[i]", "\\[", "x", " ", "[red]", "[bold yellow]",
                                   "[link=https://a.example/x]", "[1]"]), max_size=10).map("".join)


@given(text=MARKUP, color=st.booleans())
def test_markup_shows_the_words_rich_would_print(text, color):
    """Its styles are escapes around them (or nothing): the words are ``strip_markup``'s."""
    stream = io.StringIO()
    TermConsole(stream, 80, color=color).print(text)
    assert SGR.sub("", stream.getvalue()) == strip_markup(text) + "\n"


def test_a_view_on_a_terminal_imports_no_rich():
    import subprocess
    import sys
    probe = ("import io, os, sys\nos.environ['TTY_COMPATIBLE'] = '1'\nfrom release.core import output\n"
             "from release.commands._render import print_public_index\n"
             "out = output.Output(stream=io.StringIO())\n"
             "out.result_view({}, lambda c: print_public_index(c, {'warnings': ['w'], 'note': None}))\n"
             "out.line('a line')\n"
             "assert 'w' in out.stream.getvalue() and out.draws_progress()\n"
             "print(sorted(m for m in sys.modules if m.split('.')[0] == 'rich'))\n")
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert proc.stdout.strip() == "[]"


def test_a_narrow_table_drawn_exactly():
    """Widest column first, down to its longest word, then the longest words folded; the header bold;
    a short row's missing cells blank; a narrowed table takes the terminal's whole width."""
    table = PlainTable("pins (deps.yaml)")
    for col in ("dep", "url", "note"):
        table.add_column(col)
    table.add_row("jax", "https://github.com/ROCm/jax", "pinned by the plugin")
    table.add_row("xla")
    assert box_lines(table, 40, color=False) == [
        "pins (deps.yaml)",
        "┌─────┬───────────────────────┬────────┐",
        "│ dep │ url                   │ note   │",
        "├─────┼───────────────────────┼────────┤",
        "│ jax │ https://github.com/RO │ pinned │",
        "│     │ Cm/jax                │ by the │",
        "│     │                       │ plugin │",
        "│ xla │                       │        │",
        "└─────┴───────────────────────┴────────┘"]
    coloured = box_lines(table, 40, color=True)
    assert coloured[2] == "│ \x1b[1mdep\x1b[0m │ \x1b[1murl\x1b[0m                   │ \x1b[1mnote\x1b[0m   │"
    assert coloured[0] == "\x1b[1mpins (deps.yaml)\x1b[0m" and coloured[4] == box_lines(table, 40, color=False)[4]
    untitled = PlainTable()
    untitled.add_column("h")
    assert box_lines(untitled, 40, color=False)[0] == "┌───┐"


@given(table=tables(), width=st.integers(20, 160))
def test_a_table_too_wide_for_the_terminal_takes_its_whole_width(table, width):
    if not table.headers:
        return
    natural = [max(cell_width(c) for c in [h, *(r[i] for r in table.rows)]) for i, h in enumerate(table.headers)]
    _, glyphs = floors(table)
    box = [line for line in box_lines(table, width, color=False) if line[:1] in "┌│├└"]
    n = len(natural)
    if sum(natural) + 3 * n + 1 > width >= sum(glyphs) + 3 * n + 1:
        assert {cell_width(line) for line in box} == {width}, box
    elif sum(natural) + 3 * n + 1 <= width:
        assert {cell_width(line) for line in box} == {sum(natural) + 3 * n + 1}, box


def test_text_on_a_terminal_exactly():
    """Objects joined by ``sep``, a text's lines each its own, nested tags, a style across lines, a
    ``style`` around a whole line, brackets kept with ``markup=False``, no empty line around a table."""
    stream = io.StringIO()
    console = TermConsole(stream, 80, color=True)
    console.print("a", "[bold]b[/bold]", 3, sep="-")
    console.print("[bold]x [red]y[/red] z\nnext[/bold] plain")
    console.print("[bold]kept[/bold]", markup=False, style="yellow")
    table = PlainTable()
    table.add_column("h")
    console.print(table)
    console.print("after")
    assert stream.getvalue().split("\n") == [
        "a-\x1b[1mb\x1b[0m-3",
        "\x1b[1mx \x1b[0m\x1b[1;31my\x1b[0m\x1b[1m z\x1b[0m",
        "\x1b[1mnext\x1b[0m plain",
        "\x1b[33m[bold]kept[/bold]\x1b[0m",
        "┌───┐", "│ \x1b[1mh\x1b[0m │", "├───┤", "└───┘", "after", ""]


def test_a_stream_without_an_encoding_is_taken_for_utf8():
    class Bare(io.StringIO):
        encoding = None  # type: ignore[assignment]
    assert TermConsole(Bare(), 80, color=False).chars == boxes.LINES
    assert TermConsole(io.TextIOWrapper(io.BytesIO(), encoding="UTF-8"), 80, color=False).chars == boxes.LINES


def test_wrapping_and_folding_exactly():
    from release.core.boxes import fold, wrap
    assert wrap("a b c dd", 5) == ["a b c", "dd"]  # a line holds as many words as fit
    assert wrap("a  b", 4) == ["a  b"]  # text that fits is kept as it is
    assert wrap("aa  bb", 4) == ["aa", "bb"]  # a run of spaces is one break
    assert wrap("aa\u00a0bb cc", 5) == ["aa\u00a0bb", "cc"]  # a no-break space does not break
    # a word of zero columns (a lone combining mark) on a line of its own is kept, and joined to
    assert wrap("aaa \u0301", 3) == ["aaa", "\u0301"]
    assert wrap("aaa \u0301 b", 3) == ["aaa", "\u0301 b"]
    assert wrap("aaa \u0301 bbb", 3) == ["aaa", "\u0301", "bbb"]
    assert wrap("aaa \u0301 一語", 3) == ["aaa", "\u0301 一", "語"]
    assert wrap("     ", 3) == [""]  # spaces alone wider than the column: an empty line
    assert fold("abcdefgh", 3) == ["abc", "def", "gh"]
    assert fold("一語한", 4) == ["一語", "한"]


def test_a_title_alone_and_a_title_wider_than_its_table():
    alone = PlainTable("pins")
    assert box_lines(alone, 40, color=True) == ["\x1b[1mpins\x1b[0m"] and box_lines(PlainTable(), 40, color=True) == []
    table = PlainTable("a title wider than its table but not the terminal")
    table.add_column("h")
    assert box_lines(table, 80, color=False)[0] == table.title


def test_styles_carried_to_the_next_line_and_none_without_colour():
    stream = io.StringIO()
    TermConsole(stream, 80, color=True).print("[bold][red]a\nb[/red][/bold] c", "d")
    assert stream.getvalue() == "\x1b[1m\x1b[0m\x1b[1;31ma\x1b[0m\n\x1b[1;31mb\x1b[0m\x1b[1m\x1b[0m c d\n"
    plain = io.StringIO()
    TermConsole(plain, 80, color=False).print("[bold][red]a\nb[/red][/bold] c")
    assert plain.getvalue() == "a\nb c\n"


@pytest.mark.parametrize("headers, row, width, expected", [
    (("k", "commit"), ("a b c", "0123456789ab"), 20, [
        "┌───┬──────────────┐",
        "│ k │ commit       │",
        "├───┼──────────────┤",
        "│ a │ 0123456789ab │",
        "│ b │              │",
        "│ c │              │",
        "└───┴──────────────┘"]),
    (("version", "note"), ("0.9.1\xa0rc1", "a few words that wrap"), 22, [
        "┌───────────┬────────┐",
        "│ version   │ note   │",
        "├───────────┼────────┤",
        "│ 0.9.1\xa0rc1 │ a few  │",
        "│           │ words  │",
        "│           │ that   │",
        "│           │ wrap   │",
        "└───────────┴────────┘"]),
], ids=["one-letter-words", "no-break-space"])
def test_a_column_narrows_to_its_longest_word_be_it_one_letter_or_joined_by_no_break_spaces(headers, row, width,
                                                                                           expected):
    """A word is what wrapping keeps whole: text between plain spaces. A column of one-letter words
    narrows to one letter; a no-break space joins its words into one, which is never folded while
    the longest words fit side by side."""
    table = PlainTable()
    for header in headers:
        table.add_column(header)
    table.add_row(*row)
    assert box_lines(table, width, color=False) == expected
