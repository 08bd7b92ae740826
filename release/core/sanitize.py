"""Text from upstream is data: commit subjects, authors, branch and patch names, check names,
GitHub's error messages and store records reach terminals, files, commit messages, PR bodies
and release notes only through here.

``line``: one line with no control characters. Terminal escape sequences (colours, cursor
moves, OSC titles and hyperlinks) are dropped whole; any other control or direction-override
character is shown escaped (``\\x07``, ``\\u202e``), so a person sees that it was there and
nothing acts on it. ``markdown``: a ``line`` that renders as the same words in Markdown and
HTML: no raw HTML, no links or images (``[x](javascript:...)``), no @mention pings or
cross-repository #refs, no heading or quote at the start. ``code``: a ``line`` that stays
inside a code span.
"""

from __future__ import annotations

import re

# ESC-introduced sequences: CSI (ESC [ ... final), OSC / DCS / PM / APC strings up to BEL or
# ESC \, and two-character escapes; the C1 single-byte CSI (U+009B) too.
_ESCAPES = re.compile(r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]?"
                      r"|\x1b[\]P^_X][^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?"
                      r"|\x1b[ -/]*[0-~]?")
_BREAKS = re.compile(r"[\t\n\v\f\r\x85\u2028\u2029]+")
# C0 and C1 controls, DEL, and the characters that reorder or hide text (bidi overrides and
# isolates, marks, zero-width joiners, the byte order mark).
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]")
# What can make a link, an image, raw HTML, a code span or a table cell; emphasis is harmless.
_MARKDOWN = re.compile(r"[\\`\[\]|]")
_ENTITY = re.compile(r"&(?=#?\w+;)")
_PING = re.compile(r"([@#])(?=\w)")
_ZWSP = "\u200b"  # between @ and a name: shown as typed, never a mention


def _escaped(match: re.Match[str]) -> str:
    code = ord(match.group(0))
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def line(text: object) -> str:
    """``text`` as one safe line: escape sequences dropped, breaks made spaces, any other
    control character shown escaped."""
    text = _ESCAPES.sub("", str(text))
    text = _BREAKS.sub(" ", text)
    return _CONTROL.sub(_escaped, text)


def markdown(text: object) -> str:
    """``text`` as Markdown that shows exactly these words: a safe ``line`` with HTML and
    Markdown syntax escaped, @mentions and #refs kept from pinging."""
    safe = _ENTITY.sub("&amp;", line(text)).replace("<", "&lt;")
    safe = _MARKDOWN.sub(lambda m: "\\" + m.group(0), safe)
    safe = _PING.sub("\\1" + _ZWSP, safe)
    stripped = safe.lstrip()
    if stripped[:1] in ("#", "+", "-", "=", ">") or re.match(r"\d+[.)]", stripped):
        safe = "\\" + stripped  # not a heading, list item or setext underline at the start
    return safe


def code(text: object, *, in_table: bool = False) -> str:
    """``text`` for inside a single-backtick code span: a safe ``line`` without backticks,
    never empty (two backticks in a row would open a longer span and swallow what follows);
    ``in_table``: a ``|`` escaped, since a table splits its cells before it reads code spans."""
    safe = line(text).replace("`", "'").strip() or "-"
    return safe.replace("|", "\\|") if in_table else safe
