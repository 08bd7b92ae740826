"""The page for people beside the pip index: what was published, from what, and how to install it.

This module gathers the page's data from the store; ``release.publish.page`` renders it.

One static HTML file with inline CSS and SVG (no server, no JavaScript): the install lines per
channel, a chart of wheel size and nightly outcome over time, and every release newest first
with its channel, date, version, wheel sizes, revision table (commit links), what changed since
the previous release of the same kind, and its provenance file when it has one. Everything on it
comes from the store (release metadata, assets, ``revisions.json``), so a re-run over the same
store writes the same bytes: no clock is read.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import hashlib
import re
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Protocol, Sequence

from packaging.version import InvalidVersion, Version

from release.core import naming, versions
from release.core.revisions import RevisionMap, github_base
from release.publish import matrix, notes
from release.publish.stores import Asset, Published, Release, Store

if TYPE_CHECKING:
    from release.core.output import Say

CHART_DAYS = 60  # the outcome strip shows at most this many days, ending at the newest nightly

CountCommits = Callable[[str, str, str], "int | None"]
"""``(url, old, new) -> commits of old..new``, None when there is no plain count."""


class PublishedWheel(Protocol):
    """What the page reads of a published wheel (``release.publish.index.PublishedWheel`` is one; the
    index calls the page, so the page names only what it reads, and imports nothing of it)."""

    @property
    def release(self) -> Release: ...
    @property
    def asset(self) -> Asset: ...
    @property
    def listed(self) -> bool: ...
    @property
    def rel(self) -> str: ...
    @property
    def url(self) -> str: ...


@dataclasses.dataclass(frozen=True)
class WheelRow:
    name: str
    size: int
    href: str | None  # where the wheel is downloaded from (the release asset); None: not from this page


@dataclasses.dataclass(frozen=True)
class Change:
    dep: str
    old: str | None
    new: str
    compare_url: str | None
    commits: int | None  # None: not recorded


@dataclasses.dataclass(frozen=True)
class ReleaseRow:
    tag: str
    version: str
    kind: str
    channel: str
    published: _dt.datetime | None
    url: str | None
    listed: bool
    wheels: tuple[WheelRow, ...]
    revisions: RevisionMap | None
    provenance_url: str | None
    previous: str | None  # tag of the previous release of the same kind
    changes: tuple[Change, ...]
    yanked: str | None = None  # the PEP 592 reason ("" for none given), None when not yanked
    validated: bool = False  # the notes carry the mark `release validate` leaves (verify passed first)
    smoke: str | None = None  # "passed" / "FAILED": the ROCm smoke gate's verdict in the notes
    retired: str | None = None  # "archived: reason" when its line is retired (``release.publish.project_status``)
    cells: tuple[matrix.Cell, ...] = ()  # its compatibility matrix (``release.publish.matrix``)
    strays: tuple[str, ...] = ()  # its jax-rocm wheels of another version: in no cell (``matrix.strays``)
    # its notes record the public index's files (jax, jaxlib) it was validated with, which its
    # channels link (``release.publish.public_files``); False when validate had no public index
    public_set: bool = False


@dataclasses.dataclass(frozen=True)
class LineView:
    """A jax line's own channels as the page shows them (``release.publish.line_channels``)."""

    name: str  # "0.10"
    channels: tuple[str, ...]  # "nightly", "stable": those it has
    current: bool
    why: str | None = None  # why it is not current: "archived: reason", "no longer maintained"


@dataclasses.dataclass(frozen=True)
class SiteData:
    project: str  # the plugin's distribution name, what people install
    site_url: str | None
    keep: int
    releases: tuple[ReleaseRow, ...]  # newest first
    drafts: tuple[tuple[str, _dt.date | None], ...]  # nightly drafts never published: (tag, date)
    statuses: tuple[tuple[str, str, str | None], ...] = ()  # PEP 792: (project, status, reason)
    plugins: tuple[str, ...] = ()  # every plugin project (one per ROCm major), sorted by major
    lines: tuple[LineView, ...] = ()  # the jax lines' own channels, newest first


# ------------------------------------------------------------------ gathering


def _asset_text(store: Store, release: Release, asset: Asset, cache: dict) -> str | None:
    """A small asset's text: ``cache``'s (by sha256) when it still hashes to the asset's digest,
    else downloaded; None when it is no UTF-8."""
    text = cache.get(asset.digest) if asset.digest else None
    if isinstance(text, str) and hashlib.sha256(text.encode("utf-8")).hexdigest() == asset.digest:
        return text
    try:
        return _small_asset(store, release, asset).decode("utf-8")
    except UnicodeDecodeError:
        return None


def _revisions(store: Store, release: Release, assets: list[Asset], cache: dict,
               used: dict) -> RevisionMap | None:
    """The release's ``revisions.json``; ``cache`` maps an asset sha256 to its text, so a re-run
    downloads only what it has not read before (``used`` collects what this run needed)."""
    asset = next((a for a in assets if a.name == naming.REVISIONS_ASSET), None)
    if asset is None:
        return None
    text = _asset_text(store, release, asset, cache)
    if text is None:
        return None
    try:
        found = RevisionMap.loads(text)
    except (ValueError, TypeError):
        return None
    if asset.digest:
        used[asset.digest] = text  # the text itself: its order of deps is the table's order
    return found


def _rocm_version(store: Store, release: Release, assets: dict[str, Asset], cache: dict,
                  used: dict) -> str | None:
    """The ROCm version the release's provenance says its wheels were built against (its
    ``internalParameters.rocmVersion``), read once per provenance sha256: ``cache``/``used`` keep
    the answer, ``{"rocm_version": ...}``, not the statement (kept whole, a season's statements
    were most of the site's state, parsed and written again by every run)."""
    import json
    asset = assets.get(naming.PROVENANCE_ASSET)
    if asset is None or asset.size > SMALL_ASSET:
        return None
    kept = cache.get(asset.digest) if asset.digest else None
    if isinstance(kept, dict) and list(kept) == [_ROCM_KEY] and _rocm_or_none(kept[_ROCM_KEY]) == kept[_ROCM_KEY]:
        used[asset.digest] = kept
        return kept[_ROCM_KEY]
    text = _asset_text(store, release, asset, cache)
    if text is None:
        return None
    try:
        found = _rocm_or_none(json.loads(text)["predicate"]["buildDefinition"]["internalParameters"]["rocmVersion"])
    except (ValueError, TypeError, KeyError):
        found = None
    if asset.digest:
        used[asset.digest] = {_ROCM_KEY: found}
    return found


_ROCM_KEY = "rocm_version"


def _rocm_or_none(found: object) -> str | None:
    return found if isinstance(found, str) and re.fullmatch(r"\d+(\.\d+){0,3}", found) else None


SMALL_ASSET = 1 << 20  # a revisions.json is about a kilobyte: read in one range read, no file


def _small_asset(store: Store, release: Release, asset: Asset) -> bytes:
    """A small asset's bytes: one range read (a temporary directory and a download per release
    cost more than the rest of the page); a larger one is downloaded to a temporary file."""
    if asset.size <= SMALL_ASSET:
        return store.read_asset_range(release, asset, 0, asset.size)
    import tempfile  # only for an asset too big to read in one range read

    with tempfile.TemporaryDirectory() as tmp:
        return store.download_asset(release, asset, Path(tmp) / "asset").read_bytes()


_COUNT = re.compile(r"^\s*[-*]\s*(?P<dep>[\w.-]+):.*?\((?P<n>\d+) commits?\)", re.M)


def commit_counts(body: str) -> dict[str, int]:
    """Commit counts per dep when the release notes record them (``- xla: ... (12 commits)``);
    notes without ``commit)`` or ``commits)`` hold none, and are not scanned line by line."""
    if "commit)" not in (body or "") and "commits)" not in (body or ""):
        return {}
    return {m.group("dep"): int(m.group("n")) for m in _COUNT.finditer(body or "")}


class CommitCounter:
    """Commits between two pins of a dep: remembered answers first, then ``ask`` (git), else None.

    ``known`` comes from the site's state, ``used`` goes back into it, so a count made once (by
    ``release index --count-commits``) stays on the page without asking git again.
    """

    def __init__(self, ask: CountCommits | None = None, known: dict | None = None):
        self.ask, self.known = ask, dict(known or {})
        self.used: dict[str, int] = {}

    def __call__(self, url: str, old: str, new: str) -> int | None:
        key = f"{url} {old}..{new}"
        found = self.known.get(key)
        if not isinstance(found, int) and self.ask is not None:
            found = self.ask(url, old, new)
        if isinstance(found, int):
            self.used[key] = found
            return found
        return None


def mirror_counter(cache: Path, say: Say = lambda _: None) -> CountCommits:
    """``ask`` for ``CommitCounter`` from the git mirrors under ``cache`` (fetching what is
    missing): the commits of ``old..new``, or None when ``new`` does not descend from ``old``
    (a rewind or a sideways move has no plain count) or the remote cannot answer."""
    from release.core.errors import UserError
    from release.sources.git import Remote
    from release.sources.mirror import Mirror

    def ask(url: str, old: str, new: str) -> int | None:
        try:
            with Mirror(cache, Remote("count", url)) as mirror:
                if not (mirror.fetch_commit(new, trees=False) and mirror.fetch_commit(old, trees=False)):
                    say(f"warning: {display(url)} no longer has {old[:12]} or {new[:12]}; count unknown")
                    return None
                return mirror.count(new, old) if mirror.is_ancestor(old, new) else None
        except UserError as exc:
            say(f"warning: cannot count commits of {display(url)}: {exc}")
            return None
    return ask


def display(url: str) -> str:
    from release.core.redact import display_url
    return display_url(url)


class GithubBases:
    """``github_base`` of each URL worked out once while one page is made (a season asks it 2,280
    times, of three URLs, at about 14 us each: it renders the URL with ``display_url``). Its
    answer depends on the URL and on the secrets ``redact`` knows, which are only ever added, so
    an answer is kept with their count and worked out again when that moved."""

    def __init__(self) -> None:
        self._kept: dict[str, tuple[int, str | None]] = {}

    def __call__(self, url: str) -> str | None:
        from release.core.redact import secrets_known
        kept = self._kept.get(url)
        if kept is not None and kept[0] == secrets_known():
            return kept[1]
        found = github_base(url)
        self._kept[url] = (secrets_known(), found)  # the count after: rendering it may register one
        return found


def changes(before: RevisionMap | None, now: RevisionMap | None, body: str,
            count: CountCommits | None = None,
            base_of: Callable[[str], str | None] = github_base) -> tuple[Change, ...]:
    """Per dep of ``now``: unchanged, or moved with a compare link and a commit count (from the
    notes, else ``count(url, old, new)``, else None: not recorded); ``base_of``: ``github_base``,
    or a ``GithubBases`` kept for the page."""
    if before is None or now is None:
        return ()
    counts = commit_counts(body)
    old = before.commits
    out = []
    for name, rev in now.revisions:
        was = old.get(name)
        if was == rev.commit:
            out.append(Change(name, was, rev.commit, None, 0))
            continue
        base = base_of(rev.url)
        url = f"{base}/compare/{was}...{rev.commit}" if base and was else None
        n = counts.get(name)
        if n is None and was and count is not None:
            n = count(rev.url, was, rev.commit)
        out.append(Change(name, was, rev.commit, url, n))
    return tuple(out)


def _sort_key(version: str) -> Version:
    try:
        return versions.parse(version)
    except InvalidVersion:
        return Version("0")


def gather(store: Store, releases: list[Release], wheels: Sequence[PublishedWheel], *,
           site_url: str | None, keep: int, yanked: dict[int, str] | None = None,
           link_asset: Callable[[Release, Asset], str] | None = None, cache: dict | None = None,
           used: dict | None = None, count: CommitCounter | None = None,
           list_assets: Callable[[Release], list[Asset]] | None = None) -> SiteData:
    """The page's data from the store's releases and ``release.publish.index``'s wheel selection.

    ``yanked``: release id -> yank reason; ``link_asset``: where an asset is downloaded from
    (default its store URL); ``cache``/``used``:
    revision maps by asset sha256, read from and collected for the site's state; ``count``:
    commit counts per moved dep; ``list_assets``: the store's listing of a release, when the
    caller already made it.
    """
    yanked = yanked or {}
    cache = {} if cache is None else cache
    used = {} if used is None else used
    by_release: dict[int, list[PublishedWheel]] = {}
    for w in wheels:
        by_release.setdefault(w.release.id, []).append(w)
    rows: dict[str, ReleaseRow] = {}
    maps: dict[str, RevisionMap | None] = {}
    bases = GithubBases()
    published = [(r, v) for r in releases if not r.draft and (v := naming.version_from_tag(r.tag))]
    queries = Published.of(releases)  # the store's release queries (the one before a version)
    ordered = sorted(published, key=lambda rv: (rv[0].published_at or _dt.datetime.min.replace(
        tzinfo=_dt.timezone.utc), _sort_key(rv[1])), reverse=True)
    assets_of: dict[str, list[Asset]] = {}
    kinds: dict[str, str] = {}
    for rel, version in ordered:
        kind = _kind(version)
        if kind is None:
            continue
        kinds[rel.tag] = kind
        assets = (list_assets or store.list_assets)(rel)
        assets_of[rel.tag] = assets
        maps[rel.tag] = _revisions(store, rel, assets, cache, used)
    for rel, version in ordered:
        if rel.tag not in kinds:
            continue
        kind = kinds[rel.tag]
        mine = by_release.get(rel.id, [])
        listed = any(w.listed for w in mine) if mine else False
        wheel_rows = tuple(sorted((WheelRow(w.asset.name, w.asset.size, w.url) for w in mine),
                                  key=lambda r: r.name))
        prov_asset = next((a for a in assets_of[rel.tag] if a.name == naming.PROVENANCE_ASSET), None)
        prov = safe_url(None if prov_asset is None else link_asset(rel, prov_asset) if link_asset else prov_asset.url)
        previous = queries.latest((kind,), below=version)
        record = notes.of(rel)
        by_name = {a.name: a for a in assets_of[rel.tag]}
        cells = matrix.cells(version, by_name, validated=record.validated is not None, smoke=record.smoke,
                             with_rocm=record.with_rocm,
                             rocm=_rocm_version(store, rel, by_name, cache, used),
                             link=_linker(rel, by_name, link_asset))
        rows[rel.tag] = ReleaseRow(
            tag=rel.tag, version=version, kind=kind, channel="nightly" if kind == "nightly" else "stable",
            published=rel.published_at, url=safe_url(rel.html_url), listed=listed, wheels=wheel_rows,
            revisions=maps[rel.tag], provenance_url=prov, previous=previous.tag if previous else None,
            changes=changes(maps.get(previous.tag) if previous else None, maps[rel.tag], rel.body, count,
                            bases),
            yanked=yanked.get(rel.id), validated=record.validated is not None,
            smoke=record.smoke_verdict, cells=tuple(cells), strays=tuple(matrix.strays(version, by_name)),
            public_set=bool(record.validated_with))
    shown = {x.version for x in rows.values()}
    drafts = tuple(sorted(((r.tag, r.created_at.date() if r.created_at else None) for r in releases
                           if r.draft and (v := naming.version_from_tag(r.tag))
                           and _kind(v) == "nightly" and v not in shown),
                          key=lambda t: t[0], reverse=True))
    projects = sorted({w.rel.split("/")[1] for w in wheels})
    plugins = tuple(sorted((p for p in projects if p.endswith("-plugin")), key=lambda p: (len(p), p)))
    project = next((p for p in projects if p.endswith("-plugin")), projects[0] if projects else "")
    site_url = site_url.rstrip("/") if site_url else None
    if site_url and not site_url.startswith("file://"):  # a served page cannot open this machine's files
        rows = {tag: _served(row) for tag, row in rows.items()}
    return SiteData(project=project, site_url=site_url, keep=keep, releases=tuple(rows.values()), drafts=drafts,
                    plugins=plugins)


def _linker(release: Release, assets: dict[str, Asset],
            link_asset: Callable[[Release, Asset], str] | None) -> Callable[[str], str | None]:
    """Where an asset of ``release`` is downloaded from, by name (``link_asset``, else its store URL)."""
    def link(name: str) -> str | None:
        return safe_url(link_asset(release, assets[name]) if link_asset else assets[name].url)
    return link


def _local(url: str | None) -> str | None:
    return None if url is None or url.lower().startswith("file:") else url


def _served(row: ReleaseRow) -> ReleaseRow:
    """A row without links to this machine's files (a local store's paths), for a page served by URL."""
    wheels = tuple(dataclasses.replace(w, href=_local(w.href)) for w in row.wheels)
    cells = tuple(dataclasses.replace(c, lock=_local(c.lock)) for c in row.cells)
    return dataclasses.replace(row, url=_local(row.url), provenance_url=_local(row.provenance_url), wheels=wheels,
                               cells=cells)


def safe_url(url: str | None) -> str | None:
    """A link target from the store (data from outside): http(s) or file URLs only, never
    ``javascript:`` or ``data:``, so a hostile API answer cannot put script behind a link."""
    if isinstance(url, str) and url.lower().startswith(("https://", "http://", "file://")):
        return url
    return None


def _kind(version: str) -> str | None:
    try:
        return versions.kind_of(version)
    except InvalidVersion:
        return None


def nightly_day(version: str, published: _dt.datetime | None) -> _dt.date | None:
    """The build date a nightly's version carries (``.devYYYYMMDD[BBB]``), else its publishing day."""
    try:
        dev = versions.parse(version).dev
    except InvalidVersion:
        dev = None
    if dev is not None and len(str(dev)) in (8, 11):
        try:
            return _dt.datetime.strptime(str(dev)[:8], "%Y%m%d").date()
        except ValueError:
            pass
    return published.date() if published else None
