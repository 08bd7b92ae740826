"""MkDocs hook: the hand-written pages read on a phone (390 px) with no code word split and no
sideways scrolling, as the generated reference does (``release.docs_reference._whole``).


- Each word of inline code (split at its spaces) is a ``.w`` span (``white-space: nowrap``,
  docs/stylesheets/extra.css), so a line breaks between ``--build-number`` and the next word,
  never inside it or at its hyphens; a word longer than ``WHOLE`` characters may still break
  rather than run off the screen, and so may one in a heading wider than the phone's line.
- Each table cell carries its column's header as ``data-label``: on a narrow screen the CSS lays
  a row out as a block of ``header: cell`` lines, since four columns of whole words cannot share
  390 px (squeezed, a table split its words; widened, the page scrolled sideways).
- A code block keeps its lines as written and scrolls sideways inside its own box, the
  ``<pre>``, a tab stop (``tabindex="0"``) so a keyboard scrolls it too (axe finds a scrolling
  box no keyboard reaches; Material's script keeps its ``<code>`` one only where a pointer hovers).
"""

from __future__ import annotations

import html
import re

# Characters of a code word that still fit a phone's line wherever it starts (in a list item, a
# table cell, after a label): a longer word may break rather than push the page sideways.
WHOLE = 32

_PRE = re.compile(r"(<pre\b.*?</pre>)", re.S)
_CODE = re.compile(r"<code>([^<]*)</code>")
_PRE_OPEN = re.compile(r"<pre(?=[ >])")
_TABLE = re.compile(r"<table>(.*?)</table>", re.S)
_HEAD = re.compile(r"<th\b[^>]*>(.*?)</th>", re.S)
_ROW = re.compile(r"<tr>(.*?)</tr>", re.S)
_CELL = re.compile(r"<td\b")
_TAG = re.compile(r"<[^>]+>")


def whole_words(text: str) -> str:
    """Inline code's words as ``.w`` spans (the text is HTML already escaped by Markdown)."""
    def words(match: re.Match) -> str:
        inner = match.group(1)
        return "<code>" + " ".join(
            f'<span class="w">{part}</span>' if len(html.unescape(part)) <= WHOLE else part
            for part in inner.split()) + "</code>"
    return "".join(piece if piece.startswith("<pre") else _CODE.sub(words, piece) for piece in _PRE.split(text))


def reachable_code(text: str) -> str:
    """Each code block's ``<pre>`` a tab stop: a line wider than the screen scrolls inside it."""
    return _PRE_OPEN.sub('<pre tabindex="0"', text)


def labelled_cells(text: str) -> str:
    """Each ``<td>`` of a Markdown table with its column's header text as ``data-label``."""
    def table(match: re.Match) -> str:
        body = match.group(1)
        heads = [html.escape(html.unescape(_TAG.sub("", h)).strip(), quote=True) for h in _HEAD.findall(body)]

        def row(found: re.Match) -> str:
            column = iter(heads)
            return "<tr>" + _CELL.sub(lambda _: f'<td data-label="{next(column, "")}"', found.group(1)) + "</tr>"
        return "<table>" + _ROW.sub(row, body) + "</table>"
    return _TABLE.sub(table, text)


def on_page_content(html_text: str, **_: object) -> str:  # MkDocs' hook signature (page, config, files)
    return reachable_code(labelled_cells(whole_words(html_text)))
