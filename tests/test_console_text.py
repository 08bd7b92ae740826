"""What the tool prints for people shows upstream words as they are written: a ``:name:`` in a pull
request's title, a note or a line (``:fire:``, ``:rocket:``) stays those characters, in a table's cell
as in a line, never a picture of something the author did not write (and rich's table of emoji
codes, about 0.1 of a ``python -c pass``, is never loaded to look it up)."""

from __future__ import annotations

import io

import pytest

from release.core.output import Output

CODES = (":fire:", ":rocket:", ":smile:", ":white_check_mark:", ":x:")


@pytest.mark.parametrize("code", CODES)
def test_an_emoji_code_in_a_cell_or_a_line_is_printed_as_written(code):
    from rich.table import Table

    stream = io.StringIO()
    out = Output(stream=stream)
    table = Table(title=f"pins {code}")
    table.add_column("note", no_wrap=True)
    table.add_row(f"roll {code} now")
    out.console.print(table)
    out.console.print(f"bump pull request: #12 {code} roll", markup=False)
    out.line(f"nightly {code}")
    text = stream.getvalue()
    assert text.count(code) == 4, text
    assert not any(ord(c) > 0x2FFF for c in text), text  # no emoji (the box drawing is below U+2600)
