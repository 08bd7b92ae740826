"""What a store holds, as plain records: releases, their assets, and which of them are
published, by version (``Published``: the release queries in one home).

Both stores (``release.publish.stores``) answer with these; nothing here does I/O.
"""

from __future__ import annotations

import bisect
import dataclasses
import datetime as _dt
import functools

from packaging.version import InvalidVersion, Version

from release.core import naming, versions
from release.core.filled import filled
from release.publish.notes import is_ours


@dataclasses.dataclass(frozen=True)
class Asset:
    id: int
    name: str
    size: int
    digest: str | None  # sha256 hex of the stored bytes, None while unknown
    state: str  # "uploaded" when complete; GitHub's "starter" for an interrupted upload
    url: str  # where anyone can download it once the release is published
    api_url: str | None = None

    @classmethod
    def listed(cls, id: int, name: str, size: int, digest: str | None, state: str, url: str,  # noqa: A002
               api_url: str | None = None) -> Asset:
        """The same Asset as ``Asset(...)``, made without the frozen ``__init__``'s call to
        ``object.__setattr__`` per field: a store's listing makes one per asset, 12,000 for a
        year of nightlies, and that was a twentieth of ``release index``."""
        return filled(cls, {"id": id, "name": name, "size": size, "digest": digest, "state": state, "url": url,
                            "api_url": api_url})


@dataclasses.dataclass(frozen=True)
class Release:
    id: int
    tag: str
    name: str | None
    body: str
    draft: bool
    prerelease: bool
    created_at: _dt.datetime | None
    published_at: _dt.datetime | None
    html_url: str | None = None
    upload_url: str | None = dataclasses.field(default=None, compare=False, repr=False)
    # The commit publishing tags (GitHub's target_commitish) when the tag does not exist yet.
    target: str | None = dataclasses.field(default=None, compare=False)

    @property
    def ours(self) -> bool:
        """Made by this tool (the draft mark in its notes: ``release.publish.notes``)."""
        return is_ours(self.body)


def parse_time(text: str | None) -> _dt.datetime | None:
    if not text:
        return None
    return _dt.datetime.fromisoformat(text.replace("Z", "+00:00"))


def release_version(release: Release) -> Version | None:
    """The version a release's tag carries (``rocm-jax-v<version>``), None for other tags."""
    text = naming.version_from_tag(release.tag)
    try:
        return versions.parse(text) if text else None
    except InvalidVersion:
        return None


@dataclasses.dataclass(frozen=True)
class Published:
    """The published releases of one listing, by version: the release queries in one home
    (latest of a kind, the one before a version, the versions a new one must sort above).

    Each version is parsed and classified once (``of``), so asking for the one before each of
    N releases costs N log N, not N^2."""

    entries: tuple[tuple[Version, Release], ...]  # newest version first

    @classmethod
    def of(cls, releases: list[Release]) -> "Published":
        found = [(v, r) for r in releases if not r.draft and (v := release_version(r)) is not None]
        return cls(tuple(sorted(found, key=lambda e: e[0], reverse=True)))

    def versions(self) -> list[str]:
        return [str(v) for v, _ in self.entries]

    def find(self, version: str) -> Release | None:
        wanted = versions.parse(version)
        return next((r for v, r in self.entries if v == wanted), None)

    @functools.cached_property
    def _kinds(self) -> tuple[str, ...]:
        from release.core.versions import kind_of_version
        return tuple(kind_of_version(v) for v, _ in self.entries)

    @functools.cached_property
    def _oldest_first(self) -> dict[str, tuple[list[Version], list[Release]]]:
        """Per kind, its versions and releases oldest first; among equal versions the one
        ``entries`` lists first comes last, so it is the one a search from the top finds."""
        found: dict[str, tuple[list[Version], list[Release]]] = {}
        for (v, rel), kind in zip(reversed(self.entries), reversed(self._kinds)):
            vs, rels = found.setdefault(kind, ([], []))
            vs.append(v)
            rels.append(rel)
        return found

    def latest(self, kinds: tuple[str, ...], *, below: str | None = None,
               line: str | None = None) -> Release | None:
        """The newest published release of one of ``kinds`` (below ``below``, on ``line``)."""
        limit = versions.parse(below) if below is not None else None
        if line is not None:
            for (v, rel), kind in zip(self.entries, self._kinds):
                if kind in kinds and (limit is None or v < limit) and v.base_version == line:
                    return rel
            return None
        best: tuple[Version, Release] | None = None
        for kind in kinds:
            vs, rels = self._oldest_first.get(kind, ([], []))
            at = len(vs) if limit is None else bisect.bisect_left(vs, limit)
            if at and (best is None or vs[at - 1] > best[0]):
                best = (vs[at - 1], rels[at - 1])
        return None if best is None else best[1]
