"""GitHub's limit on a text it stores, and the one cut every writer of such a text uses.

An issue or pull request body, a comment and release notes longer than ``BODY_LIMIT``
characters are refused with 422, so one long upstream commit subject would stop every run
that writes it. Lengths are counted in UTF-16 code units (what GitHub's limit counts; never
fewer than the characters). A body over the limit is cut at a line end, whole lines kept, and
ends with a note saying it was cut; a body that fits is unchanged, so cutting twice is cutting
once.
"""

from __future__ import annotations

BODY_LIMIT = 65536
CUT_NOTE = "\n\n_(cut here: the rest is longer than GitHub keeps in one text)_"


def units(text: str) -> int:
    """``text``'s length as GitHub counts it (UTF-16 code units)."""
    return len(text.encode("utf-16-le")) // 2


def fit(body: str, limit: int = BODY_LIMIT, note: str = CUT_NOTE, fallback: str = "") -> str:
    """``body`` when it fits in ``limit``, else its first whole lines that fit with ``note``
    after them (``fallback`` when not even the first line fits)."""
    if units(body) <= limit:
        return body
    room = limit - units(note)
    kept: list[str] = []
    used = 0
    for line in body.split("\n"):
        cost = units(line) + (1 if kept else 0)
        if used + cost > room:
            break
        kept.append(line)
        used += cost
    return ("\n".join(kept) if kept else fallback) + note
