"""What the index lists of each wheel, worked out once when the wheel enters the store.

An index entry needs, beyond the store's asset record (name, size, sha256), the wheel's
``Requires-Python`` and the sha256 of its METADATA (PEP 658). Publish already holds each wheel
on disk and hashes it, so the draft's notes record both in a table (``Notes.index_facts``),
and ``release index`` reads a season's records instead of every wheel's end: from an empty
SITE that is one range read (over HTTP, one request) less per wheel. A wheel with an
attestation bundle also gets the sha256 of its bundle and of the PEP 740 provenance object
publish made of it (``release.publish.stored_provenance``): what binds that object to the bytes.

A row is used only for the bytes it was worked out from: its sha256 must be the store's digest
of the asset of that name (a wheel replaced since, or a row a person edited, no longer matches
and the wheel is read as before). A release whose notes carry no table (published before this
record, or by hand) is indexed by reading its wheels; a value the table cannot hold exactly
(a Requires-Python with a backquote, a bar, a line break or ``<!--``) gets no row, so the
wheel is read.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import re
from pathlib import Path
from typing import Iterable

from release.core import core_metadata
from release.core.filled import filled

TITLE = "What each wheel's index entry says (`release index` reads it here, not from the wheel):"
HEAD = ("| wheel | sha256 | Requires-Python | METADATA sha256 | bundle sha256 | provenance sha256 |\n"
        "|---|---|---|---|---|---|")
NONE = "-"
# the two last columns came later: a row of an older release ends after the METADATA sha256
_ROW = re.compile(r"\| (?P<name>[^\s|`\[\]<>]+) \| `(?P<sha256>[0-9a-f]{64})` "
                  r"\| (?:`(?P<requires>[^`|\r\n]+)`|-) \| `(?P<meta>[0-9a-f]{64})` \|"
                  r"(?: (?:`(?P<bundle>[0-9a-f]{64})`|-) \| (?:`(?P<stored>[0-9a-f]{64})`|-) \|)?")


@dataclasses.dataclass(frozen=True)
class Facts:
    """One wheel's row: its file name and sha256, what its METADATA says to the index, and the
    sha256 of its attestation bundle and of the provenance object publish made of it (None: none)."""

    filename: str
    sha256: str
    requires_python: str | None
    metadata_sha256: str
    bundle_sha256: str | None = None
    provenance_sha256: str | None = None

    def row(self) -> str | None:
        """The table's row, or None when the table cannot hold these facts exactly."""
        requires = NONE if self.requires_python is None else f"`{self.requires_python}`"
        bundle, stored = (NONE if d is None else f"`{d}`" for d in (self.bundle_sha256, self.provenance_sha256))
        line = (f"| {self.filename} | `{self.sha256}` | {requires} | `{self.metadata_sha256}` "
                f"| {bundle} | {stored} |")
        if "<!--" in line or _read_row(line) != self:
            return None
        return line


_FIELDS = ("filename", "sha256", "requires_python", "metadata_sha256", "bundle_sha256", "provenance_sha256")


def _read_row(line: str) -> Facts | None:
    """The Facts of a row, made as ``Facts(...)`` makes them without the frozen ``__init__``'s
    call per field (a season's notes hold thousands of rows, each read once a run)."""
    m = _ROW.fullmatch(line)
    if m is None:
        return None
    return filled(Facts, zip(_FIELDS, m.group("name", "sha256", "requires", "meta", "bundle", "stored")))


def of_wheel(path: Path, sha256: str, bundle_sha256: str | None = None,
             provenance_sha256: str | None = None) -> Facts:
    """The facts of a wheel on disk whose sha256 is ``sha256`` (one read of its zip directory
    and METADATA), with the sha256s of its bundle and stored provenance object when it has them."""
    metadata = core_metadata.read(path, path.name)
    return Facts(path.name, sha256, core_metadata.requires_python(metadata), hashlib.sha256(metadata).hexdigest(),
                 bundle_sha256, provenance_sha256)


def to_text(facts: Iterable[Facts]) -> str | None:
    """The notes' section: a title and a row per wheel the table can hold (the last given of a
    name), by file name; None when there is none."""
    rows = sorted(row for f in {f.filename: f for f in facts}.values() if (row := f.row()) is not None)
    return "\n".join([TITLE, "", HEAD, *rows]) if rows else None


def from_text(text: str | None) -> dict[str, Facts]:
    """The rows of a section ``to_text`` wrote, by file name; a line that is not one is
    skipped (its wheel, if any, is read instead: never a wrong entry)."""
    return dict(_rows(text))


@functools.lru_cache(maxsize=8192)  # the index asks once per wheel; a release's text is parsed once
def _rows(text: str | None) -> dict[str, Facts]:
    found: dict[str, Facts] = {}
    for line in (text or "").replace("\r\n", "\n").split("\n"):  # not splitlines: a row may hold \x1e
        facts = _read_row(line.strip())
        if facts is not None and core_metadata.is_wheel(facts.filename):
            found[facts.filename] = facts
    return found


def recorded(text: str | None, filename: str, sha256: str | None) -> Facts | None:
    """The row of ``filename`` when it was worked out from the bytes whose sha256 the store
    records (``sha256``), else None: read the wheel."""
    found = _rows(text).get(filename)
    return found if found is not None and sha256 is not None and found.sha256 == sha256 else None
