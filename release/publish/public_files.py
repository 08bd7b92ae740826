"""The public index's files a release was validated with: the other half of the set.

``release validate`` installs the draft's plugin and pjrt with jax, jaxlib and their dependencies
from the public index, as users do (``release.check.user_install``). The files pip took from the
public index are recorded in the release's notes (``Notes.validated_with``, a Markdown table
people can read and this module parses exactly), so each channel index links exactly those files
(``release.publish.index``) beside the release's own wheels, and one ``--index-url`` installs the
whole set as it was validated, without asking the public index again.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from typing import Callable, Iterable

from packaging.version import Version

from release.core import naming
from release.core.errors import UserError
from release.publish import notes
from release.publish.notes import Release

TITLE = "Validated with these files of the public index (each channel index links them):"
HEAD = ("| file | sha256 | size | Requires-Python | PEP 658 metadata sha256 |\n"
        "|---|---|---|---|---|")
NONE = "-"
_ROW = re.compile(r"\| \[(?P<name>[^\[\]\s|`]+)\]\((?P<url>https?://[^()\s|`<>]+)\) "
                  r"\| `(?P<sha256>[0-9a-f]{64})` \| (?P<size>[0-9]{1,15}|-) "
                  r"\| (?:`(?P<requires>[^`|\r\n]+)`|-) \| (?:`(?P<meta>[0-9a-f]{64})`|-) \|")


@functools.lru_cache(maxsize=4096)  # a season's nightlies record the same few files again and again
def _parsed(filename: str) -> tuple[str, Version]:
    """The normalized project name and version of a wheel file name (``naming.Identity``, the one
    reader of wheel names); ValueError naming what is wrong when it is none."""
    ident = naming.Identity.of(filename)
    if ident.name_error is not None or ident.dist is None or ident.version is None:
        raise ValueError(ident.name_error or "no name and version")
    return naming.normalized_name(ident.dist), Version(ident.version)


class RecordError(UserError):
    """A recorded file, or a table of them, that cannot be read exactly."""


@dataclasses.dataclass(frozen=True)
class PublicFile:
    """One wheel of the public index, as a simple index names it (``size`` None: not known)."""

    filename: str
    url: str
    sha256: str
    size: int | None = None
    requires_python: str | None = None
    metadata_sha256: str | None = None

    def __post_init__(self) -> None:
        row = self.row()
        if not _ROW.fullmatch(row):
            raise RecordError(f"public file {self.filename[:80]!r} ({self.url[:80]}): expected a wheel "
                              "name, an http(s) URL without spaces, brackets or quotes, and sha256 digests")
        try:
            _parsed(self.filename)
        except ValueError as exc:
            raise RecordError(f"public file {self.filename[:80]!r}: not a wheel file name ({exc})") from None

    @property
    def project(self) -> str:
        return _parsed(self.filename)[0]

    @property
    def version(self) -> Version:
        return _parsed(self.filename)[1]

    def row(self) -> str:
        size = NONE if self.size is None else str(self.size)
        requires = f"`{self.requires_python}`" if self.requires_python else NONE
        meta = f"`{self.metadata_sha256}`" if self.metadata_sha256 else NONE
        return f"| [{self.filename}]({self.url}) | `{self.sha256}` | {size} | {requires} | {meta} |"


def to_text(files: Iterable[PublicFile]) -> str:
    """The notes' section: a title and one table row per file, sorted by file name."""
    rows = sorted({f.filename: f for f in files}.values(), key=lambda f: f.filename)
    return "\n".join([TITLE, "", HEAD, *(f.row() for f in rows)])


@functools.lru_cache(maxsize=4096)
def from_text(text: str, where: str = "the validated-with section") -> tuple[PublicFile, ...]:
    """The files a section written by ``to_text`` lists; ``RecordError`` naming ``where`` and
    the line for anything else (a hand edit that would link a file nobody validated). Read
    once a process (the index links each release's files in its channel and its line's)."""
    found: list[PublicFile] = []
    for number, line in enumerate(text.replace("\r\n", "\n").split("\n"), 1):
        line = line.strip()
        if not line or line == TITLE or line in HEAD.split("\n"):
            continue
        m = _ROW.fullmatch(line)
        if m is None:
            raise RecordError(f"{where}, line {number}: {line[:80]!r} is not a row of the table "
                              "`release validate` writes")
        found.append(PublicFile(m["name"], m["url"], m["sha256"],
                                None if m["size"] == NONE else int(m["size"]), m["requires"], m["meta"]))
    return tuple(found)


def linked(releases: Iterable[Release], own: set[str], warn: Callable[[str], None]) -> list[PublicFile]:
    """The public files a channel links for ``releases`` (newest first): each file once, as
    the newest release recorded it; never a file of a project the store publishes itself
    (``own``: the channel's own wheels are the set's). A release whose record cannot be read
    is said (``warn``) and links none: the index is still written."""
    found: dict[str, PublicFile] = {}
    for release in releases:
        text = notes.of(release).validated_with
        if not text:
            continue
        try:
            files = from_text(text, f"{release.tag}'s validated-with section")
        except RecordError as exc:
            warn(f"warning: {exc}; its public files are not linked")
            continue
        for f in files:
            if f.project not in own:
                found.setdefault(f.filename, f)
    return list(found.values())
