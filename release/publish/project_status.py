"""Retired projects and lines, as the maintainer declares them: PEP 792 status markers.

One file the maintainer edits, ``.github/project-status.json`` (``release index
--project-status FILE``), names the projects (a wheel name that was renamed) and the jax lines
(``X.Y``) that are retired, each ``archived`` (no new releases expected) or ``deprecated``
(obsolete, maybe superseded), with a reason people read::

    {"projects": {"jax-rocm-plugin": {"status": "deprecated", "reason": "renamed jax-rocm7-plugin"}},
     "lines": {"0.9": {"status": "archived", "reason": "0.9 is no longer maintained"}}}

A project's status on a channel index is its own entry, else, when every version the channel
lists of it is on retired lines, theirs (``archived`` only when all of them are archived). The
page for people shows both. ``quarantined`` is not offered: it would mean serving no files.
"""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Protocol, Sequence

from packaging.version import Version

from release.core.errors import UserError
from release.core.naming import normalized_name as canonicalize_name  # packaging's, without packaging.tags

if TYPE_CHECKING:
    from release.publish.site import SiteData


class Listed(Protocol):
    """A listed file (``release.publish.channel_pages.IndexEntry``): its project and version."""

    @property
    def project(self) -> str: ...

    @property
    def version(self) -> Version: ...

STATUS_FILE = Path(".github") / "project-status.json"
STATUSES = ("archived", "deprecated")
_LINE = re.compile(r"(0|[1-9][0-9]{0,5})\.(0|[1-9][0-9]{0,5})")
_REASON_LIMIT = 300


@dataclasses.dataclass(frozen=True)
class Status:
    status: str  # one of STATUSES
    reason: str | None = None


@dataclasses.dataclass(frozen=True)
class Retired:
    """The declared statuses: by canonical project name and by line (``(X, Y)``)."""

    projects: dict[str, Status] = dataclasses.field(default_factory=dict)
    lines: dict[tuple[int, int], Status] = dataclasses.field(default_factory=dict)

    def of_line(self, version: Version) -> Status | None:
        parts = version.release + (0,)
        return self.lines.get((parts[0], parts[1])) if self.lines else None

    def of_project(self, project: str, versions: Iterable[Version]) -> Status | None:
        """``project``'s status on an index listing ``versions`` of it (module docstring)."""
        if project in self.projects:
            return self.projects[project]
        if not self.lines:
            return None
        found = [self.of_line(v) for v in versions]
        if not found or any(s is None for s in found):
            return None
        statuses = [s for s in found if s is not None]
        status = "archived" if all(s.status == "archived" for s in statuses) else "deprecated"
        reasons = sorted({s.reason for s in statuses if s.reason})
        return Status(status, "; ".join(reasons) or None)


def _status(value: object, where: str) -> Status:
    if not isinstance(value, dict) or set(value) - {"status", "reason"}:
        raise UserError(f"{where}: expected {{\"status\": \"archived\" or \"deprecated\", \"reason\": \"...\"}}")
    status, reason = value.get("status"), value.get("reason")
    if status not in STATUSES:
        raise UserError(f"{where}: status {status!r}; expected one of {', '.join(STATUSES)}")
    if reason is not None and (not isinstance(reason, str) or len(reason) > _REASON_LIMIT
                               or any(ord(c) < 32 or ord(c) == 127 for c in reason)):
        raise UserError(f"{where}: reason: expected one line of text of at most {_REASON_LIMIT} characters")
    return Status(str(status), (reason.strip() or None) if isinstance(reason, str) else None)


def parse(data: object, where: str) -> Retired:
    """The statuses of a parsed file; ``UserError`` naming ``where`` and the entry otherwise."""
    if not isinstance(data, dict) or set(data) - {"projects", "lines"}:
        raise UserError(f"{where}: expected an object with \"projects\" and/or \"lines\"")
    projects, lines = data.get("projects", {}), data.get("lines", {})
    if not isinstance(projects, dict) or not isinstance(lines, dict):
        raise UserError(f"{where}: \"projects\" and \"lines\" are objects (name -> status)")
    retired = Retired()
    for name, value in projects.items():
        if not re.fullmatch(r"[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?", name):
            raise UserError(f"{where}: projects: {name[:60]!r} is not a project name")
        retired.projects[canonicalize_name(name)] = _status(value, f"{where}: projects: {name}")
    for line, value in lines.items():
        m = _LINE.fullmatch(line)
        if m is None:
            raise UserError(f"{where}: lines: {line[:60]!r}; expected a line as X.Y (\"0.9\")")
        retired.lines[(int(m[1]), int(m[2]))] = _status(value, f"{where}: lines: {line}")
    return retired


def load(path: Path, *, given: bool) -> Retired:
    """The file at ``path``; none (``Retired()``) when it is the default file (not ``given``)
    and missing. A given file that is missing, or any that cannot be read, is one line, exit 2."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        if not given:
            return Retired()
        raise UserError(f"--project-status {path}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise UserError(f"{path}: cannot be read ({type(exc).__name__})") from None
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise UserError(f"{path}: not JSON ({exc})") from None
    return parse(data, str(path))


def statuses(retired: Retired | None, own: Sequence[Listed]) -> dict[str, Status]:
    """PEP 792 statuses of the store's own projects on a channel (``release.publish.project_status``)."""
    if retired is None or not (retired.projects or retired.lines):
        return {}
    versions: dict[str, list[Version]] = {}
    for e in own:
        versions.setdefault(e.project, []).append(e.version)
    return {p: s for p, vs in versions.items() if (s := retired.of_project(p, vs)) is not None}


def with_statuses(data: SiteData, retired: Retired | None, statuses: dict[str, Status]) -> SiteData:
    """The page's data with the retired projects and each release's retired line."""
    if retired is None or not (retired.projects or retired.lines):
        return data
    rows = []
    for row in data.releases:
        line = retired.of_line(Version(row.version))
        rows.append(row if line is None else dataclasses.replace(
            row, retired=f"{line.status}" + (f": {line.reason}" if line.reason else "")))
    return dataclasses.replace(data, releases=tuple(rows),
                               statuses=tuple((p, s.status, s.reason) for p, s in sorted(statuses.items())))
