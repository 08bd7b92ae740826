"""Which published nightlies stay: the one retention rule of ``release gc`` and ``release index``.

gc deletes every nightly release this rule does not keep; the index lists in ``nightly/`` exactly
the nightlies it keeps. Both commands take the same flags (``--keep``, ``--older-than``,
``--protect``, ``--protect-file``), so for one store and one set of flags the index never lists
a nightly gc would delete, and gc never deletes one the index was told to protect.

Kept, in this order of reasons: the newest ``keep`` nightlies (by version) of each line (``X.Y``:
two maintained lines publish side by side, and the newer line's nights never push the older
line's out, ``release.core.lines``), of a maintained line only (``lines``: a line the default
branch's ``.github/lines.json`` no longer lists keeps none; None, without the file: every line);
protected ones
(a version or tag a pinned downstream uses); one published as a full release by hand (not a
prerelease); with ``older_than_days``, one published less than that many days before ``now``.
Releases, release candidates, post releases and drafts are never nightlies here, so no rule
ever removes them.

Drafts are ranked on their own by the same rule (``decide_drafts``): a red nightly leaves its
draft behind and the next night has a new tag, so without this they would stay forever. Only
nightly drafts this tool made (its marker in the notes) are ever candidates, and the drafts of
today's and yesterday's nightly (by the date in the version, against the run's clock) always
stay: one of them may be the draft a job, or a re-run of yesterday's, is working on. A draft no
rule lets publish (a published nightly sorts above it, or its line's release or post does, or
its tag is published) is never one of the newest ``keep``: those are the newest publishable ones.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import functools
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable, Sequence

from packaging.version import InvalidVersion, Version

from release.core import naming, regular, versions
from release.core.errors import UserError
from release.core.lines import line_key

if TYPE_CHECKING:
    from release.publish.stores import Release

DEFAULT_KEEP = 14


@dataclasses.dataclass(frozen=True)
class Retention:
    """The retention flags, checked: ``keep`` >= 1, ``older_than_days`` >= 0 or None."""

    keep: int = DEFAULT_KEEP
    older_than_days: float | None = None
    protect: frozenset[Version] = frozenset()
    lines: frozenset[tuple[int, int]] | None = None  # the maintained lines (X, Y); None: every line

    def maintains(self, version: Version) -> bool:
        """Whether ``version``'s line keeps its newest ``keep`` nightlies (a retired line keeps none)."""
        return self.lines is None or line_key(version) in self.lines

    def __post_init__(self) -> None:
        if self.keep < 1:
            raise UserError(f"--keep {self.keep}: expected at least 1 (the newest nightly always stays)")
        if self.older_than_days is not None and self.older_than_days < 0:
            raise UserError(f"--older-than {self.older_than_days}: expected a number of days >= 0")


def protected_version(text: str, where: str = "--protect") -> Version:
    """A protected nightly named by its version (``0.9.1.dev20261122``) or its tag
    (``rocm-jax-v0.9.1.dev20261122``)."""
    value = text.strip()
    version = naming.version_from_tag(value) or value
    try:
        return Version(version)
    except InvalidVersion:
        raise UserError(f"{where} {text}: not a version or release tag (expected e.g. 0.9.1.dev20261122 "
                        f"or {naming.release_tag('0.9.1.dev20261122')})") from None


def read_protect_file(path: Path) -> list[str]:
    """Versions or tags to protect, one a line; ``#`` starts a comment."""
    try:
        text = regular.read_text(path)
    except (OSError, UnicodeDecodeError) as exc:
        reason = getattr(exc, "strerror", None) or exc
        raise UserError(f"--protect-file {path}: cannot read it ({reason})") from None
    return [line.split("#", 1)[0].strip() for line in text.splitlines() if line.split("#", 1)[0].strip()]


def retention(keep: int = DEFAULT_KEEP, older_than_days: float | None = None,
              protect: Iterable[str] = (), protect_file: Path | None = None,
              lines: frozenset[tuple[int, int]] | None = None) -> Retention:
    """The ``Retention`` the flags name (``protect`` entries are versions or tags), for the
    maintained ``lines`` (``release.jobs.lines.maintained``)."""
    found = {protected_version(t) for t in protect}
    if protect_file is not None:
        found |= {protected_version(t, f"--protect-file {protect_file}:") for t in read_protect_file(protect_file)}
    return Retention(keep=keep, older_than_days=older_than_days, protect=frozenset(found), lines=lines)


def _nightly_of_tag(tag: str) -> Version | None:
    """The version a nightly's tag names; None for any other tag."""
    text = naming.version_from_tag(tag)
    if text is None:
        return None
    try:
        return versions.parse(text) if versions.kind_of(text) == "nightly" else None
    except InvalidVersion:
        return None


def nightly_version(release: Release) -> Version | None:
    """The version of a published nightly release; None for anything else (drafts included)."""
    return None if release.draft else _nightly_of_tag(release.tag)


@dataclasses.dataclass(frozen=True)
class Kept:
    """A release retention keeps, and why."""

    release: Release
    version: Version
    reason: str  # "newest", "protected", "not a prerelease", "too young"


@dataclasses.dataclass(frozen=True)
class Decision:
    """What the rule keeps and what it lets go, newest first."""

    kept: tuple[Kept, ...]
    expired: tuple[Release, ...]
    unknown_protect: tuple[str, ...]  # protected versions no published nightly has (typos?)

    @functools.cached_property
    def kept_versions(self) -> frozenset[Version]:
        """Built once per decision: the index asks it for every wheel."""
        return frozenset(k.version for k in self.kept)

    def kept_for(self, reason: str) -> list[str]:
        return [k.release.tag for k in self.kept if k.reason == reason]


def decide(releases: Sequence[Release], rule: Retention, now: _dt.datetime | None) -> Decision:
    """Apply ``rule`` to the published nightlies among ``releases``. Pure: no store, no clock
    (``now`` is needed only with ``older_than_days``)."""
    if rule.older_than_days is not None and now is None:
        raise ValueError("decide: older_than_days needs the run's time")
    nightlies = sorted(((v, r) for r in releases if (v := nightly_version(r)) is not None),
                       key=lambda pair: pair[0], reverse=True)
    kept: list[Kept] = []
    expired: list[Release] = []
    ranks: dict[tuple[int, int] | None, int] = {}  # per line: how many newer nightlies it has
    for version, rel in nightlies:
        when = rel.published_at or rel.created_at
        rank = ranks[line_key(version)] = ranks.get(line_key(version), -1) + 1
        if rank < rule.keep and rule.maintains(version):
            reason = "newest"
        elif version in rule.protect:
            reason = "protected"
        elif not rel.prerelease:
            reason = "not a prerelease"
        elif rule.older_than_days is not None and now is not None and (
                when is None or now - when <= _dt.timedelta(days=rule.older_than_days)):
            reason = "too young"
        else:
            expired.append(rel)
            continue
        kept.append(Kept(rel, version, reason))
    known = {v for v, _ in nightlies}
    unknown = tuple(sorted(str(v) for v in rule.protect - known))
    return Decision(tuple(kept), tuple(expired), unknown)


def nightly_date(version: Version) -> _dt.date | None:
    """The build date a nightly's version carries (``.devYYYYMMDD`` or ``.devYYYYMMDDBBB``)."""
    dev = str(version.dev) if version.dev is not None else ""
    if len(dev) not in (8, 11):
        return None
    try:
        return _dt.datetime.strptime(dev[:8], "%Y%m%d").date()
    except ValueError:
        return None


def draft_version(release: Release) -> Version | None:
    """The version of a nightly draft this tool made; None for anything else (a hand-made draft,
    a draft of an rc, a release, a post or another tag, a published release)."""
    return _nightly_of_tag(release.tag) if release.draft and release.ours else None


@dataclasses.dataclass(frozen=True)
class DraftDecision:
    """Which nightly drafts of this tool stay and which are stale, newest first."""

    kept: tuple[Kept, ...]  # reasons: "current" (today's or yesterday's), "newest", "protected", "too young"
    stale: tuple[Release, ...]


def _publishable(releases: Sequence[Release]) -> Callable[[Version], bool]:
    """Whether a nightly draft of this version may still be published: no published nightly
    of its line sorts above it (pip would never choose it), and its line has no published release or post
    above it and its tag is free (``versions.blocking_version``, the rule the nightly job
    publishes by)."""
    published = [t for r in releases if not r.draft and (t := naming.version_from_tag(r.tag)) is not None]
    newest: dict[tuple[int, int] | None, Version] = {}  # per line: another line's nights never block
    for r in releases:
        if (v := nightly_version(r)) is not None and (
                line_key(v) not in newest or v > newest[line_key(v)]):
            newest[line_key(v)] = v
    return lambda version: ((line_key(version) not in newest or version >= newest[line_key(version)])
                            and versions.blocking_version(str(version), published) is None)


def decide_drafts(releases: Sequence[Release], rule: Retention, now: _dt.datetime) -> DraftDecision:
    """Apply ``rule`` to this tool's nightly drafts, ranked among themselves. Pure: ``now`` is the
    run's clock, which says which drafts are current."""
    current = now.astimezone(_dt.timezone.utc).date() - _dt.timedelta(days=1)
    drafts = sorted(((v, r) for r in releases if (v := draft_version(r)) is not None),
                    key=lambda pair: (pair[0], pair[1].id), reverse=True)
    publishable = _publishable(releases)
    kept: list[Kept] = []
    stale: list[Release] = []
    rank = 0  # among the drafts that may still be published
    for version, rel in drafts:
        day = nightly_date(version)
        ahead, alive = rank, publishable(version)
        rank += alive
        if day is None or day >= current:
            reason = "current"
        elif alive and ahead < rule.keep and rule.maintains(version):
            reason = "newest"
        elif version in rule.protect:
            reason = "protected"
        elif rule.older_than_days is not None and (
                rel.created_at is None or now - rel.created_at <= _dt.timedelta(days=rule.older_than_days)):
            reason = "too young"
        else:
            stale.append(rel)
            continue
        kept.append(Kept(rel, version, reason))
    return DraftDecision(tuple(kept), tuple(stale))
