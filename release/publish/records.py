"""What a store holds, as plain records: releases, their assets, and which of them are
published, by version (``Published``: the release queries in one home).

Both stores (``release.publish.stores``) answer with these; nothing here does I/O.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt

from packaging.version import InvalidVersion, Version

from release.core import naming

# Every draft this tool creates says so in its body: duplicates of ours may be collapsed,
# anybody else's draft is left alone.
MARKER = "<!-- jax-rocm-release draft -->"


@dataclasses.dataclass(frozen=True)
class Asset:
    id: int
    name: str
    size: int
    digest: str | None  # sha256 hex of the stored bytes, None while unknown
    state: str  # "uploaded" when complete; GitHub's "starter" for an interrupted upload
    url: str  # where anyone can download it once the release is published
    api_url: str | None = None


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
        return MARKER in (self.body or "")


def parse_time(text: str | None) -> _dt.datetime | None:
    if not text:
        return None
    return _dt.datetime.fromisoformat(text.replace("Z", "+00:00"))


def release_version(release: Release) -> Version | None:
    """The version a release's tag carries (``rocm-jax-v<version>``), None for other tags."""
    text = naming.version_from_tag(release.tag)
    try:
        return Version(text) if text else None
    except InvalidVersion:
        return None


@dataclasses.dataclass(frozen=True)
class Published:
    """The published releases of one listing, by version: the release queries in one home
    (latest of a kind, the one before a version, the versions a new one must sort above)."""

    entries: tuple[tuple[Version, Release], ...]  # newest version first

    @classmethod
    def of(cls, releases: list[Release]) -> "Published":
        found = [(v, r) for r in releases if not r.draft and (v := release_version(r)) is not None]
        return cls(tuple(sorted(found, key=lambda e: e[0], reverse=True)))

    def versions(self) -> list[str]:
        return [str(v) for v, _ in self.entries]

    def find(self, version: str) -> Release | None:
        wanted = Version(version)
        return next((r for v, r in self.entries if v == wanted), None)

    def latest(self, kinds: tuple[str, ...], *, below: str | None = None,
               line: str | None = None) -> Release | None:
        """The newest published release of one of ``kinds`` (below ``below``, on ``line``)."""
        from release.core.versions import kind_of
        limit = Version(below) if below is not None else None
        for v, rel in self.entries:
            if kind_of(str(v)) in kinds and (limit is None or v < limit) and (
                    line is None or v.base_version == line):
                return rel
        return None
