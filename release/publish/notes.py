"""The state a release carries between steps, kept in its notes: one record, one reader, one writer.

A release's notes are what people read on GitHub and also where the steps leave what the
next step needs: publish marks a draft as this tool's and records what the index lists of
each wheel (``release.publish.wheel_record``), ``release smoke`` adds its verdict,
``release validate`` the digest of the assets it passed, the public index's files it
installed with them and how each cell's with-rocm line resolved
(``release.publish.with_rocm_notes``), ``release pypi-upload`` what the index holds,
``release yank`` the PEP 592 reason. ``Notes`` is that state as one frozen record; ``read``
and ``write`` are the only code that knows how it looks in the text (HTML comments, which
GitHub does not show), so every step reads and writes it here:

- ``write`` puts the yank record on top and the rest after the text, in one order, and cuts
  the text (whole lines, ``release.core.bodies``), never a record, to fit what GitHub keeps;
- ``read`` takes each record from wherever it is (a person may move it), and refuses in one
  line (``NotesError``, exit 2) notes it cannot read exactly: two records of one kind that
  disagree, or something left that looks like a record and is not one it wrote (a hand
  edit, an unclosed section). A person's own text is kept as it is.

``read(write(notes)) == notes`` for every record whose notes fit (tests/test_notes.py).
"""

from __future__ import annotations

import dataclasses
import functools
import re
from typing import Any, Protocol

from release.core import bodies
from release.core.errors import UserError


class Release(Protocol):
    """What the notes are read from: a release's tag and body (``records.Release`` is one; the
    records module reads the draft mark from here, so this module does not import it)."""

    @property
    def tag(self) -> str: ...

    @property
    def body(self) -> str: ...

# Every draft this tool creates says so in its notes: duplicates of ours may be collapsed,
# anybody else's draft is left alone.
MARKER = "<!-- jax-rocm-release draft -->"
_YANK = "<!-- jax-rocm-release yanked: {reason} -->\n**Yanked** (PEP 592): {shown}\n"
_END = r"(?:\r?\n)?"
_READ = {  # in the order they are taken out: the sections first, so a record inside one is seen
    "with-rocm section": re.compile(r"<!-- with-rocm -->\r?\n(?P<value>.*?)<!-- /with-rocm -->" + _END, re.S),
    "validated-with section": re.compile(r"<!-- validated-with -->\r?\n(?P<value>.*?)<!-- /validated-with -->"
                                         + _END, re.S),
    "wheel facts section": re.compile(r"<!-- index-facts -->\r?\n(?P<value>.*?)<!-- /index-facts -->"
                                      + _END, re.S),
    "PyPI section": re.compile(r"<!-- pypi -->\r?\n(?P<value>.*?)<!-- /pypi -->" + _END, re.S),
    "smoke section": re.compile(r"<!-- smoke -->\r?\n(?P<value>.*?)<!-- /smoke -->" + _END, re.S),
    "yank": re.compile(r"^<!-- jax-rocm-release yanked: (?P<value>.*) -->" + _END
                       + r"(?:\*\*Yanked\*\* \(PEP 592\): [^\r\n]*" + _END + ")?", re.M),
    "validated mark": re.compile(r"<!-- validated: sha256=(?P<value>[0-9a-f]{64}) -->" + _END),
    "draft mark": re.compile(r"(?P<value>" + re.escape(MARKER) + ")" + _END),
}
# What looks like one of the records above: text holding it is refused, so it is never misread.
_OURS = re.compile(r"<!--\s*/?\s*(?:smoke|pypi|validated|with-rocm|index-facts|jax-rocm-release\s+(?:draft|yanked))",
                   re.I)
_DIGEST = re.compile(r"[0-9a-f]{64}\Z")
# A section's pattern in ``_READ`` is its opening line, anything, its closing line: found with
# ``str.find`` here (the regular expression tried the closing line at every character of a
# section, a third of reading a release's notes), exactly where ``finditer`` finds it.
_SECTIONS = {kind: (f"<!-- {name} -->", f"<!-- /{name} -->") for kind, name in (
    ("with-rocm section", "with-rocm"), ("validated-with section", "validated-with"),
    ("wheel facts section", "index-facts"), ("PyPI section", "pypi"), ("smoke section", "smoke"))}
# The text each record of ``_READ`` begins with: notes without it hold none (the index reads
# every release's notes, each a few KB, and most records are absent from most notes).
_OPENS = {**{kind: opener for kind, (opener, _) in _SECTIONS.items()}, "yank": "<!-- jax-rocm-release yanked: ",
          "validated mark": "<!-- validated: sha256=", "draft mark": MARKER}


def _ours(text: str) -> re.Match[str] | None:
    """``_OURS.search(text)``; text without ``<!--`` is answered without a scan (every match
    starts with it)."""
    return _OURS.search(text) if "<!--" in text else None


def _without(text: str, matches: list[tuple[int, int, str]]) -> str:
    """``text`` with ``matches`` ((start, end, value), in order, as ``finditer`` finds them) cut
    out: ``pattern.sub("", text)`` without scanning the text again."""
    pieces, at = [], 0
    for start, end, _ in matches:
        pieces.append(text[at:start])
        at = end
    pieces.append(text[at:])
    return "".join(pieces)




def _sections(text: str, opener: str, closer: str) -> list[tuple[int, int, str]]:
    """(start, end, value) of each match of ``opener\r?\n(?P<value>.*?)closer(?:\r?\n)?``
    (``re.S``) in ``text``, in ``finditer``'s order."""
    found, at = [], 0
    while (start := text.find(opener, at)) >= 0:
        value = start + len(opener)
        if text.startswith("\r\n", value):
            value += 2
        elif text.startswith("\n", value):
            value += 1
        else:
            at = start + 1
            continue
        close = text.find(closer, value)
        if close < 0:
            break  # no later opening line has a closing line after it either
        end = close + len(closer)
        end += 2 if text.startswith("\r\n", end) else 1 if text.startswith("\n", end) else 0
        found.append((start, end, text[value:close]))
        at = end
    return found


def _marks(text: str, pattern: re.Pattern[str], opener: str) -> list[tuple[int, int, str]]:
    """(start, end, value) of each match of ``pattern`` in ``text``, as ``finditer`` finds them:
    every match starts with ``opener``, so the pattern is tried only where ``str.find`` finds it
    (``finditer`` tried each character of the notes)."""
    found, at = [], 0
    while (start := text.find(opener, at)) >= 0:
        m = pattern.match(text, start)
        if m is None:
            at = start + 1
            continue
        found.append((start, m.end(), m.group("value")))
        at = m.end()
    return found


class NotesError(UserError):
    """Release notes that cannot be read (or a record that cannot be written) exactly."""


@dataclasses.dataclass(frozen=True)
class Notes:
    """A release's notes: the text people read and the state the steps keep in it."""

    text: str = ""                 # everything else, as it is (trailing newlines go before a record)
    ours: bool = False             # made by this tool (the draft mark)
    smoke: str | None = None       # ``release smoke``'s section (Markdown), None before it ran
    validated: str | None = None   # sha256 over the assets ``release validate`` passed
    pypi: str | None = None        # what the index holds (Markdown), as ``release pypi-upload`` wrote it
    yanked: str | None = None      # the PEP 592 reason ("" when none was given), None when not yanked
    # the public index's files ``release validate`` installed with the set (Markdown,
    # ``release.publish.public_files``), None before it ran
    validated_with: str | None = None
    # how each cell's with-rocm line resolved in ``release validate`` (Markdown,
    # ``release.publish.with_rocm_notes``), None before it was kept
    with_rocm: str | None = None
    # what the index lists of each wheel, written when the draft is (``release.publish.wheel_record``)
    index_facts: str | None = None

    def __post_init__(self) -> None:
        for name in ("smoke", "pypi", "yanked", "validated_with", "with_rocm", "index_facts"):
            value = getattr(self, name)
            if value is not None:
                object.__setattr__(self, name, value.strip())
        if (self.ours or self.smoke is not None or self.validated is not None or self.pypi is not None
                or self.validated_with is not None or self.with_rocm is not None or self.index_facts is not None):
            object.__setattr__(self, "text", self.text.rstrip("\r\n"))
        for name in ("text", "smoke", "pypi", "validated_with", "with_rocm", "index_facts"):
            found = _ours(getattr(self, name) or "")
            if found:
                raise NotesError(f"{_snippet(getattr(self, name), found.start())!r} in the {name}: it "
                                 "would read as one of this tool's records")
        if self.validated is not None and not _DIGEST.match(self.validated):
            raise NotesError(f"validated mark {self.validated[:70]!r}: expected 64 lowercase hex digits")
        reason = self.yanked or ""
        if any(ord(c) < 32 or ord(c) == 127 for c in reason) or "--" in reason:
            raise NotesError(f"yank reason {reason[:70]!r}: expected one line without control "
                             "characters or '--'")

    @property
    def smoke_verdict(self) -> str | None:
        """"passed" or "FAILED" when the notes carry ``release smoke``'s section, else None."""
        if self.smoke is None:
            return None
        return "FAILED" if ": FAILED" in (self.smoke.splitlines() or [""])[0] else "passed"


def _snippet(text: str, at: int) -> str:
    start = text.rfind("\n", 0, at) + 1
    end = text.find("\n", at)
    return text[start:end if end >= 0 else len(text)].strip()[:70]


def read(body: str | None, where: str = "the release notes") -> Notes:
    """The record ``body`` holds, or ``NotesError`` naming ``where`` (module docstring)."""
    rest = body or ""
    found: dict[str, str] = {}
    for kind, pattern in _READ.items():
        if _OPENS[kind] not in rest:  # what every match starts with: no scan of the notes for it
            continue
        matches = _sections(rest, *_SECTIONS[kind]) if kind in _SECTIONS else _marks(rest, pattern, _OPENS[kind])
        values = {value.strip() for _, _, value in matches}
        if len(values) > 1:
            shown = ", ".join(sorted(repr(v[:40]) for v in values))
            raise NotesError(f"{where}: {len(values)} {kind}s that disagree ({shown}); keep one")
        if values:
            found[kind] = values.pop()
            rest = _without(rest, matches)
    for kind in ("PyPI section", "smoke section", "validated-with section", "with-rocm section",
                 "wheel facts section"):
        inside = _ours(found.get(kind, ""))
        if inside:
            raise NotesError(f"{where}: the {kind} holds {_snippet(found[kind], inside.start())!r}; "
                             "expected no record inside another")
    stray = _ours(rest)
    if stray:
        raise NotesError(f"{where}: {_snippet(rest, stray.start())!r} looks like one of this tool's "
                         "records but is not one it wrote (a hand edit or an unclosed section); "
                         "remove it or restore the record")
    try:
        return Notes(text=rest, ours="draft mark" in found, smoke=found.get("smoke section"),
                     validated=found.get("validated mark"), pypi=found.get("PyPI section"),
                     yanked=found.get("yank"), validated_with=found.get("validated-with section"),
                     with_rocm=found.get("with-rocm section"), index_facts=found.get("wheel facts section"))
    except NotesError as exc:
        raise NotesError(f"{where}: {exc}") from None


def of(release: Release) -> Notes:
    """The record in a release's notes (``read``, naming the release in an error); the same
    notes are read once (the index asks for each release's record in three places)."""
    return _read_once(release.body, f"{release.tag}'s notes")


@functools.lru_cache(maxsize=8192)
def _read_once(body: str | None, where: str) -> Notes:
    return read(body, where)


def changed(release: Release, **fields: Any) -> str:
    """``release``'s notes with ``fields`` of their record set (``of``, then ``write``)."""
    return write(dataclasses.replace(of(release), **fields))


def write(notes: Notes) -> str:
    """The notes' text with its records: the yank on top, the rest after the text, which is cut
    (whole lines) so that the whole fits in what GitHub keeps."""
    top = "" if notes.yanked is None else _YANK.format(reason=notes.yanked,
                                                       shown=notes.yanked or "no reason given")
    tail = "\n\n" + MARKER if notes.ours else ""
    if notes.index_facts is not None:
        tail += f"\n\n<!-- index-facts -->\n{notes.index_facts}\n<!-- /index-facts -->"
    if notes.smoke is not None:
        tail += f"\n\n<!-- smoke -->\n{notes.smoke}\n<!-- /smoke -->"
    if notes.validated is not None:
        tail += f"\n<!-- validated: sha256={notes.validated} -->"
    if notes.validated_with is not None:
        tail += f"\n\n<!-- validated-with -->\n{notes.validated_with}\n<!-- /validated-with -->"
    if notes.with_rocm is not None:
        tail += f"\n\n<!-- with-rocm -->\n{notes.with_rocm}\n<!-- /with-rocm -->"
    if notes.pypi is not None:
        tail += f"\n\n<!-- pypi -->\n{notes.pypi}\n<!-- /pypi -->"
    tail += "\n" if tail else ""
    return top + bodies.fit(notes.text, bodies.BODY_LIMIT - bodies.units(top + tail)) + tail


def is_ours(body: str | None) -> bool:
    """Whether notes carry the draft mark: all that is asked of anybody's draft (a foreign
    draft's notes are never read further, so they can never stop a run)."""
    return MARKER in (body or "")


def same_text(stored: str, wanted: str, where: str = "the release notes") -> bool:
    """Whether ``stored`` notes say what ``wanted`` says, apart from the smoke section and the
    validated mark (which stay with a draft) and the whitespace a host may change (CRLF,
    trailing spaces, blank lines around the text)."""
    def plain(body: str, place: str) -> Notes:
        found = read(body, place)
        def lines(text: str) -> str:  # CRLF is one line end to splitlines
            return "\n".join(line.rstrip() for line in text.strip().splitlines())
        return dataclasses.replace(found, text=lines(found.text), smoke=None, validated=None, validated_with=None,
                                   with_rocm=None,
                                   index_facts=None if found.index_facts is None else lines(found.index_facts))
    return plain(stored, where) == plain(wanted, "the notes written")
