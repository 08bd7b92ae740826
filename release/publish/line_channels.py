"""Per-line channels: ``SITE/<X.Y>/nightly/`` and ``SITE/<X.Y>/stable/``, one pip index per jax line.

The site's ``nightly/`` and ``stable/`` list every line, so ``pip install --pre`` there takes the
newest line's set. A cluster pinned to one line points at that line's directory instead: the line
comes first in the path, so everything of 0.10 is under ``<URL>/0.10/`` and a proxy or mirror
allowing "0.10 only" allows one prefix. Each line channel lists what the site's channel of the same
name lists of that line (the nightlies the retention rule keeps, the releases, posts and rcs), the
files of the public index those releases were validated with (``release.publish.public_files``),
their PEP 740 provenance (the site channel's file, by a relative URL: never read twice), PEP 792 statuses and
a ``matrix.json`` of the line's releases.

A line is *current* when the default branch's ``lines.json`` maintains it (every line is, without
the list: ``Retention.lines``) and ``project-status.json`` does not retire it. A line that is not
keeps its directory while it lists anything (its releases stay installable where admins pinned
them; its nightlies go when the retention rule lets them go), and the page names it retired,
never among the current lines.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Callable, Iterable, Protocol, Sequence, TypeVar

from packaging.version import Version

from release.core.lines import line_key
from release.publish import matrix, project_status
from release.publish.channel_pages import write_channel
from release.publish.staging import CHANNELS, Tree

if TYPE_CHECKING:
    from release.publish.channel_pages import IndexEntry
    from release.publish.project_status import Retired, Status
    from release.publish.site import SiteData

Key = tuple[int, int]


class ListedWheel(Protocol):
    """What a line's channels read of a published wheel (``release.publish.index.PublishedWheel``)."""

    @property
    def listed(self) -> bool: ...

    @property
    def tag_version(self) -> Version | None: ...


W = TypeVar("W", bound=ListedWheel)


def name_of(key: Key) -> str:
    """``0.10`` of ``(0, 10)``: the line's directory."""
    return f"{key[0]}.{key[1]}"


def prefix(key: Key, channel: str) -> str:
    """The line channel's place in the site: ``0.10/nightly/``."""
    return f"{name_of(key)}/{channel}/"


@dataclasses.dataclass(frozen=True)
class Line:
    """A line with a channel on the site: which channels it has, whether it is current, and the
    status ``project-status.json`` declares for it (None: none)."""

    key: Key
    channels: tuple[str, ...]
    current: bool
    status: Status | None = None

    @property
    def name(self) -> str:
        return name_of(self.key)


def _key(version: Version) -> Key:
    found = line_key(version)
    assert found is not None  # a Version always has a line
    return found


def write(tree: Tree, own: dict[str, list[IndexEntry]], wheels: Sequence[W],
          maintained: frozenset[Key] | None, retired: Retired | None,
          public: Callable[[list[W], str, set[str]], list[IndexEntry]]) -> list[Line]:
    """Write each line's channels from ``own`` (channel -> the store's entries the site's channel
    lists, their provenance already written there); ``public(wheels, channel, own projects)`` is
    the public files a line's listed ``wheels`` link. The lines, newest first."""
    by_line: dict[Key, dict[str, list[IndexEntry]]] = {}
    for channel in CHANNELS:
        for entry in own.get(channel, []):
            by_line.setdefault(_key(entry.version), {}).setdefault(channel, []).append(entry)
    wheels_of: dict[Key, list[W]] = {}
    for w in wheels:
        if w.listed and w.tag_version is not None:
            wheels_of.setdefault(_key(w.tag_version), []).append(w)
    lines = []
    for key in sorted(by_line, reverse=True):
        for channel, listed in sorted(by_line[key].items()):
            statuses = project_status.statuses(retired, listed)
            links = public(wheels_of.get(key, []), channel, {e.project for e in listed})
            # the site channel's provenance file, by a URL relative to the line's page (no second
            # file: a season's provenance files are most of what a run creates); the entries are
            # the site channel's own, so their rows are encoded once (``channel_pages``)
            write_channel(tree, prefix(key, channel), listed + links, statuses=statuses,
                          provenance_at=f"../../../{channel}/")
        declared = retired.lines.get(key) if retired is not None else None
        current = (maintained is None or key in maintained) and declared is None
        lines.append(Line(key, tuple(c for c in CHANNELS if c in by_line[key]), current, declared))
    return lines


def write_matrices(tree: Tree, lines: Iterable[Line], rows: Sequence[matrix.Row],
                   encoder: matrix.Encoder | None = None) -> None:
    """Each line channel's ``matrix.json``: the site channel's rows of that line (``encoder``: the
    one that wrote the site channels', so each release's entry is encoded once)."""
    encoder = encoder or matrix.Encoder()
    for line in lines:
        mine = [r for r in rows if line_key(r.version) == line.key]
        for channel in line.channels:
            tree.write(f"{prefix(line.key, channel)}{matrix.FILE}", encoder.file(channel, mine, line.name))


def on_page(data: SiteData, lines: Iterable[Line]) -> SiteData:
    """The page's data with each line's channels; a line that is not current says why."""
    from release.publish.site import LineView
    views = tuple(LineView(line.name, line.channels, line.current, None if line.current else (
        f"{line.status.status}" + (f": {line.status.reason}" if line.status.reason else "")
        if line.status is not None else "no longer maintained")) for line in lines)
    return dataclasses.replace(data, lines=views)


def summary(lines: Iterable[Line]) -> dict:
    """The lines for ``release index --json``: ``{"0.10": {"current", "status", "channels"}}``."""
    return {line.name: {"current": line.current, "status": line.status.status if line.status else None,
                        "channels": [prefix(line.key, c) for c in line.channels]}
            for line in lines}
