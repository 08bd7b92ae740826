"""Static pip indexes of the published wheels: PEP 503 HTML and PEP 691 JSON, per channel.

A site is a directory any static host can serve, and holds only small files::

    SITE/index.html                      the page for people (``release.publish.site``)
    SITE/nightly/<project>/index.html    PEP 503 page: links to the wheels where the store
                                         keeps them (release asset URLs), PEP 592 yanks
    SITE/nightly/<project>/index.json    PEP 691 JSON (api-version 1.1: PEP 700 versions,
                                         size, upload-time)
    SITE/stable/...                      the same for releases, posts and rcs
    SITE/<X.Y>/nightly/, SITE/<X.Y>/stable/   the same for one jax line (``release.publish.line_channels``)

The wheels are never copied: GitHub Pages holds at most 1 GB and one version's wheels are about
185 MB, so a site that copied them would not hold a week of nightlies. Each link points at the
release asset (``browser_download_url``; a local store's file, or ``asset_base`` where a local
store is served). PEP 658 wants a wheel's metadata at the wheel's URL + ``.metadata``: a release
carries that file as an asset of its own beside each wheel (``release.core.core_metadata``), so it
sits at exactly that URL, and the pages name its sha256 (PEP 714's ``data-core-metadata`` and the
older ``data-dist-info-metadata``; JSON ``core-metadata`` and ``dist-info-metadata``), so pip and
uv resolve without downloading a wheel. Only when the asset is there, at that URL, and hashes
like the wheel's own METADATA; an older release without it is listed without the attribute.
``Requires-Python`` and the METADATA's sha256 are read from each wheel with byte-range reads
(``release.publish.ranged``), never a download, and kept in the site's state by the wheel's sha256.

``nightly/`` holds nightlies only and ``stable/`` releases, posts and release candidates, so
pip on ``stable/`` never picks a nightly, and with ``--pre`` an rc only while it is the newest.
Nightlies the retention rule lets go (``release.publish.retention``, the rule ``release gc``
deletes by) are not listed; until gc deletes their releases their wheels stay at their URLs.

Safety: reading a store never creates it; a store with no published wheel, or a run that would
drop every project the old site lists (the wrong store), is refused before anything is written;
the new site replaces the old one whole (``release.publish.staging``).
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import hashlib
import json
import os
import shutil
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable
from urllib.parse import quote

from packaging.version import InvalidVersion, Version

from release.core import core_metadata, naming, versions
from release.core.checksums import sha256_file
from release.core.core_metadata import requires_python
from release.core.errors import UserError
from release.core.gc_batches import larger_batches
from release.core.naming import Identity
from release.core.safe_names import plain_file_name
from release.publish import line_channels, matrix, notes, project_status, public_files
from release.publish.channel_pages import (
    API_VERSION,
    HTML_TYPE,
    JSON_TYPE,
    IndexEntry,
    project_pages,
    write_channel,
)
from release.publish.index_provenance import BUNDLE_SUFFIX, PROVENANCE_SUFFIX
from release.publish.project_status import Retired, Status
from release.publish.retention import DEFAULT_KEEP, Decision, Retention, decide, retention
from release.publish.staging import (
    CHANNELS,
    STATE_FILE,
    Staging,
    check_site,
    read_state,
    write_json,
)
from release.publish.wheel_facts import wheel_metadata

if TYPE_CHECKING:
    from release.core.output import ProgressBars, Say
    from release.publish.site import CountCommits
    from release.publish.stores import Asset, Release, Store

__all__ = ["API_VERSION", "CHANNELS", "HTML_TYPE", "JSON_TYPE", "STATE_FILE", "IndexEntry", "IndexRefused",
           "IndexWheel", "PublishedWheel", "build_site", "channel_of", "project_pages", "write_index"]

class IndexRefused(UserError):
    """Writing the index would lose what the site serves; nothing was written."""


# ------------------------------------------------------------------ files of an index


@dataclasses.dataclass(frozen=True)
class IndexWheel:
    """A wheel to list: its bytes on disk and what the index says about it.

    ``sha256`` is computed when None; ``upload_time`` (UTC) is left out of the JSON when None.
    """

    path: Path
    sha256: str | None = None
    upload_time: _dt.datetime | None = None


def channel_of(version: str) -> str:
    """``nightly`` for a dev version, ``stable`` for releases, posts and rcs."""
    return "nightly" if versions.kind_of(version) == "nightly" else "stable"


def _parse_name(filename: str) -> tuple[str, Version]:
    ident = Identity.of(filename)
    if ident.name_error is not None or ident.dist is None or ident.version is None:
        raise UserError(f"{filename}: not a wheel file name ({ident.name_error})")
    return naming.normalized_name(ident.dist), versions.parse(ident.version)


def describe(path: Path, *, sha256: str | None = None,
             upload_time: _dt.datetime | None = None) -> tuple[IndexEntry, bytes]:
    """The entry of a wheel on disk (its metadata file beside it) and its METADATA bytes."""
    project, version = _parse_name(path.name)
    metadata = wheel_metadata(path)
    entry = IndexEntry(filename=path.name, project=project, version=version,
                       sha256=sha256 or sha256_file(path), size=path.stat().st_size,
                       requires_python=requires_python(metadata),
                       metadata_sha256=hashlib.sha256(metadata).hexdigest(), upload_time=upload_time)
    return entry, metadata


# ------------------------------------------------------------------ index of given wheels


def _place(src: Path, dest: Path) -> None:
    """Put ``src``'s bytes at ``dest``: a hard link when possible (no copy of big wheels)."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    if dest.exists():
        dest.unlink()
    try:
        os.link(src, dest)
    except OSError:
        shutil.copy2(src, dest)


def write_index(out: Path, wheels: Iterable[Path | IndexWheel]) -> dict:
    """A PEP 503/691 index of exactly ``wheels`` at ``out`` (no store, no channels): for local use
    (validate's draft index), so the wheels and their PEP 658 metadata files sit beside the pages.

    ``out/index.html|json`` and ``out/<project>/{index.html,index.json,<wheel>,<wheel>.metadata}``;
    serve ``out`` and point ``pip --index-url`` at it. Written beside ``out`` and swapped in, so
    ``out`` is either the old or the new index; a re-run with the same wheels changes nothing.
    Returns ``{"out", "projects": {project: [file, ...]}, "changed"}``.
    """
    out = Path(out)
    check_site(out)
    with Staging(out) as staging:
        tree = staging.begin()
        listed: list[IndexEntry] = []
        metadata: dict[str, bytes] = {}
        for given in wheels:
            item = given if isinstance(given, IndexWheel) else IndexWheel(Path(given))
            path = Path(item.path)
            if not path.is_file():
                raise UserError(f"{path}: no such wheel file")
            entry, meta = describe(path, sha256=item.sha256, upload_time=item.upload_time)
            if entry.filename in metadata:
                raise UserError(f"{entry.filename}: given twice")
            _place(path, tree.root / entry.project / entry.filename)
            listed.append(entry)
            metadata[entry.filename] = meta
        projects = write_channel(tree, "", listed, metadata)
        tree.write(STATE_FILE, write_json({"schema": 2, "generator": "jax-rocm-release index"}))
        changed = staging.commit()
    return {"out": str(out), "projects": projects, "changed": changed}


# ------------------------------------------------------------------ the site of a store


@dataclasses.dataclass
class PublishedWheel:
    """A wheel asset of a published release, where it is downloaded from, and whether it is listed.

    ``metadata``: the release's ``<wheel>.metadata`` asset when it sits at ``url`` + ``.metadata``
    (PEP 658), else None."""

    release: Release
    asset: Asset
    version: str
    channel: str
    url: str
    listed: bool = True
    metadata: Asset | None = None
    bundle: Asset | None = None  # its attestation bundle(s), ``<wheel>.jsonl`` (``index_provenance``)
    stored: Asset | None = None  # the provenance object publish made of it (``stored_provenance``)
    # (project, version) of the file name and the release's version, parsed once: the index
    # asks for them per wheel, and a season holds thousands of wheels
    parsed: tuple[str, Version] | None = dataclasses.field(default=None, repr=False, compare=False)
    tag_version: Version | None = dataclasses.field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.parsed is None:
            self.parsed = _parse_name(self.asset.name)
        if self.tag_version is None:
            self.tag_version = versions.parse(self.version)

    @property
    def project(self) -> str:
        assert self.parsed is not None
        return self.parsed[0]

    @property
    def file_version(self) -> Version:
        """The version the wheel's file name carries (what pip sees)."""
        assert self.parsed is not None
        return self.parsed[1]

    @property
    def rel(self) -> str:
        """Its place in the site's layout (``channel/project/file``): a key, not a file on disk."""
        return f"{self.channel}/{self.project}/{self.asset.name}"


def asset_link(store: Store, release: Release, asset: Asset, asset_base: str | None) -> str:
    """Where pip downloads an asset: ``asset_base/<release id>/assets/<file>`` for a local store
    served at ``asset_base``, else the store's own URL (GitHub's ``browser_download_url``, a
    local store's ``file://`` path). Only http(s) and file URLs: the link is data from outside."""
    if asset_base is not None:
        if store.kind != "local":
            raise UserError("--asset-url: only for a local store (a GitHub store's assets have their own URLs)")
        return f"{asset_base.rstrip('/')}/{release.id}/assets/{quote(asset.name)}"
    if not asset.url[:8].lower().startswith(("https://", "http://", "file://")):  # not the whole URL lowered
        raise UserError(f"{store.where}: asset {asset.name} of {release.tag} has the URL {asset.url[:80]!r}; "
                        "expected an http(s) or file URL")
    return asset.url


def wheel_name(filename: str, known: dict) -> tuple[str, str] | None:
    """(canonical project, version) of a wheel file name pip could install, else None; ``known``
    holds the answers of earlier runs (the site's state: a name's answer never changes)."""
    found = known.get(filename)
    if isinstance(found, list) and len(found) == 2 and all(isinstance(x, str) for x in found):
        return found[0], found[1]
    ident = Identity.of(filename)
    if ident.name_error is not None or ident.dist is None or ident.version is None:
        return None
    known[filename] = [naming.normalized_name(ident.dist), ident.version]
    return known[filename][0], known[filename][1]


def published_wheels(store: Store, releases: list[Release], asset_base: str | None = None,
                     list_assets: Callable[[Release], list[Asset]] | None = None,
                     names: dict | None = None) -> list[PublishedWheel]:
    """The wheel assets of every published release whose tag carries a version (``list_assets``:
    the store's listing, or one already made; ``names``: ``wheel_name``'s answers, kept)."""
    names = {} if names is None else names
    found: list[PublishedWheel] = []
    version_of = versions.parse  # a release's wheels carry its version: each is parsed once
    for release in releases:
        text = naming.version_from_tag(release.tag)
        if release.draft or text is None:
            continue
        try:
            version, channel = version_of(text), channel_of(text)
        except InvalidVersion:
            continue
        assets = [a for a in (list_assets or store.list_assets)(release) if a.state == "uploaded"]
        by_name = {a.name: a for a in assets}
        for asset in assets:
            if not core_metadata.is_wheel(asset.name):
                continue
            plain_file_name(asset.name, "asset name")
            name = wheel_name(asset.name, names)
            if name is None:
                continue  # not a wheel pip could install: nothing to index
            url = asset_link(store, release, asset, asset_base)
            sidecar = by_name.get(core_metadata.file_name(asset.name))
            if sidecar is not None and asset_link(store, release, sidecar, asset_base) != url + core_metadata.SUFFIX:
                sidecar = None  # not where pip looks for it: the page names no metadata file
            found.append(PublishedWheel(release, asset, text, channel, url, metadata=sidecar,
                                        bundle=by_name.get(asset.name + BUNDLE_SUFFIX),
                                        stored=by_name.get(asset.name + PROVENANCE_SUFFIX),
                                        parsed=(name[0], version_of(name[1])),
                                        tag_version=version))
    return found


def select(wheels: list[PublishedWheel], decision: Decision) -> None:
    """List a nightly wheel only when the retention rule (``release.publish.retention``) keeps its release."""
    for w in wheels:
        if w.channel == "nightly":
            w.listed = w.tag_version in decision.kept_versions


def listed_projects(site: Path) -> set[str]:
    """Projects the old site's channel pages (or its older single page) list."""
    projects = set()
    for page in [site / "index.json"] + [site / c / "index.json" for c in CHANNELS]:
        try:
            data = json.loads(page.read_text(encoding="utf-8"))
            projects |= {p["name"] for p in data.get("projects", [])}
        except (OSError, ValueError, TypeError, KeyError, AttributeError):
            continue
    return projects


def public_entries(wheels: list[PublishedWheel], channel: str, own: set[str], say: Say) -> list[IndexEntry]:
    """The public index's files the listed releases of ``channel`` were validated with
    (``release.publish.public_files``), linked where that index serves them, so one index
    URL resolves the whole set."""
    newest_first: dict[int, tuple[Version, Release]] = {}
    for w in wheels:
        if w.channel == channel and w.listed and w.tag_version is not None:
            newest_first[w.release.id] = (w.tag_version, w.release)
    ordered = [r for _, r in sorted(newest_first.values(), key=lambda vr: vr[0], reverse=True)]
    return [IndexEntry(filename=f.filename, project=f.project, version=f.version, sha256=f.sha256, size=f.size,
                       requires_python=f.requires_python, metadata_sha256=f.metadata_sha256, upload_time=None,
                       url=f.url) for f in public_files.linked(ordered, own, say)]


def build_site(store: Store, out: Path, *, keep: int = DEFAULT_KEEP, protect: Iterable[str] = (),
               older_than_days: float | None = None, rule: Retention | None = None,
               now: _dt.datetime | None = None, site_url: str | None = None, asset_base: str | None = None,
               count_commits: CountCommits | None = None, say: Say = lambda _: None,
               progress: ProgressBars | None = None, retired: Retired | None = None) -> dict:
    """Write the nightly and stable indexes and the page for people of ``store`` into ``out``.

    ``nightly/`` lists the nightlies ``release.publish.retention`` keeps for ``rule`` (else ``keep``,
    ``protect``, versions or tags, and ``older_than_days``) at ``now`` (needed only with
    ``older_than_days``): exactly what ``release gc`` with the same flags keeps. Links point at
    the store's assets (``asset_base``: where a local store's directory is served).

    Refused (``IndexRefused``, ``out`` untouched) when the store has no published wheel, or when
    no project the old site lists would stay listed. ``count_commits(url, old, new) -> int | None``
    counts the commits of a moved dep for the page (``release.publish.site.mirror_counter``);
    counts once made are kept in the site's state.
    """
    with larger_batches():  # a season's objects all live until the end (release.core.gc_batches)
        return _build_site(store, Path(out), keep=keep, protect=protect, older_than_days=older_than_days,
                           rule=rule, now=now, site_url=site_url, asset_base=asset_base,
                           count_commits=count_commits, say=say, progress=progress, retired=retired)


def _state_key(site: Path) -> tuple[int, ...] | None:
    """What changes whenever the site's state file is replaced or written (a run swaps in a new
    site whole): None when there is none."""
    try:
        info = os.stat(site / STATE_FILE)
    except OSError:
        return None
    return (info.st_ino, info.st_dev, info.st_size, info.st_mtime_ns, info.st_ctime_ns)


def _build_site(store: Store, out: Path, *, keep: int, protect: Iterable[str], older_than_days: float | None,
                rule: Retention | None, now: _dt.datetime | None, site_url: str | None, asset_base: str | None,
                count_commits: CountCommits | None, say: Say, progress: ProgressBars | None,
                retired: Retired | None) -> dict:
    from release.publish import site as people_page
    from release.publish.page import render as render_page

    check_site(out)
    rule = rule or retention(keep, older_than_days, protect)
    releases = store.list_releases()
    listed_assets: dict[int, list[Asset]] = {}

    def list_assets(release: Release) -> list[Asset]:
        """The store's listing of a release, made once (the wheels and the page both read it)."""
        if release.id not in listed_assets:
            listed_assets[release.id] = store.list_assets(release)
        return listed_assets[release.id]

    read_before = _state_key(out)
    kept_state = read_state(out)
    kept_names = kept_state.get("names")  # a cache of pure answers: read before the lock
    names: dict = {}
    if isinstance(kept_names, dict):
        names.update(kept_names)
    wheels = published_wheels(store, releases, asset_base, list_assets, names)
    if not wheels:
        raise IndexRefused(f"{store.where}: no published wheels in this {store.kind} store; refusing "
                           f"to write an empty index over {out} (nothing was changed)")
    decision = decide(releases, rule, now)
    select(wheels, decision)
    missing_protect = list(decision.unknown_protect)
    for version in missing_protect:
        say(f"warning: --protect {version}: no published nightly has it")
    yanked = {r.id: reason for r in releases if not r.draft and (reason := notes.of(r).yanked) is not None}

    with Staging(out) as staging:
        before_projects = listed_projects(out)
        # read again only when another run replaced it meanwhile (a year's state is 2 MB of JSON)
        state = kept_state if read_before is not None and _state_key(out) == read_before else read_state(out)
        known = state.get("wheel_facts")
        from release.publish.wheel_facts import Provenances, WheelFacts

        facts = WheelFacts(store, known if isinstance(known, dict) else {}, say, progress)
        kept = state.get("provenance")
        tree = staging.begin()
        provenances = Provenances(store, kept if isinstance(kept, dict) else {}, say, out, tree)
        channels: dict[str, dict[str, list[str]]] = {}
        own: dict[str, list[IndexEntry]] = {}  # the store's entries each channel lists
        statuses_of: dict[str, Status | None] = {}
        without_metadata: list[str] = []
        for channel in CHANNELS:
            listed = []
            for w in wheels:
                if w.channel != channel or not w.listed:
                    continue
                sha256, requires, metadata_sha256 = facts(w)
                if metadata_sha256 is None:
                    without_metadata.append(w.asset.name)
                prov = provenances(w, sha256, f"{channel}/{w.project}/{w.asset.name}{PROVENANCE_SUFFIX}")
                listed.append(IndexEntry.made(filename=w.asset.name, project=w.project, version=w.file_version,
                                              sha256=sha256, size=w.asset.size, requires_python=requires,
                                              metadata_sha256=metadata_sha256, upload_time=w.release.published_at,
                                              url=w.url, yanked=yanked.get(w.release.id),
                                              provenance=quote(w.asset.name) + PROVENANCE_SUFFIX if prov else None))
            statuses = project_status.statuses(retired, listed)
            for project in {e.project for e in listed}:  # the page names a status every channel gives
                if project not in statuses_of or statuses_of[project] != statuses.get(project):
                    statuses_of[project] = statuses.get(project) if project not in statuses_of else None
            own[channel] = list(listed)
            listed += public_entries(wheels, channel, {e.project for e in listed}, say)
            channels[channel] = write_channel(tree, f"{channel}/", listed, statuses=statuses)

        lines = line_channels.write(  # SITE/<X.Y>/<channel>/ (warnings were said for the site's channels)
            tree, own, wheels, rule.lines, retired,
            lambda ws, channel, projects: public_entries(ws, channel, projects, lambda _: None))
        after_projects = {p for c in channels.values() for p in c}
        if before_projects and not (before_projects & after_projects):
            raise IndexRefused(f"{out}: the new index would drop every project it lists "
                               f"({', '.join(sorted(before_projects))}); is {store.where} the right "
                               "store? (nothing was changed)")

        cache = state.get("revisions") if isinstance(state.get("revisions"), dict) else {}
        used: dict = {}
        counts = state.get("commit_counts")
        counter = people_page.CommitCounter(count_commits, counts if isinstance(counts, dict) else {})
        data = people_page.gather(store, releases, wheels, site_url=site_url, keep=rule.keep, yanked=yanked,
                                  link_asset=lambda r, a: asset_link(store, r, a, asset_base),
                                  cache=cache, used=used, count=counter, list_assets=list_assets)
        matrices = matrix.Encoder()  # the compatibility matrix as data (release.publish.matrix)
        for channel in CHANNELS:
            tree.write(f"{channel}/{matrix.FILE}", matrices.file(channel, data.releases))
        line_channels.write_matrices(tree, lines, data.releases, matrices)
        page = render_page(project_status.with_statuses(
            line_channels.on_page(data, lines), retired, {p: st for p, st in statuses_of.items() if st is not None}))
        tree.write("index.html", page)
        tree.write(STATE_FILE, write_json({"schema": 2, "generator": "jax-rocm-release index",
                                           "wheel_facts": facts.used, "revisions": used,
                                           "commit_counts": counter.used, "provenance": provenances.used,
                                           "names": {w.asset.name: names[w.asset.name] for w in wheels}}))
        changed = staging.commit()
    return {"out": str(out), "store": store.kind, "where": store.where, "changed": changed,
            "channels": channels, "lines": line_channels.summary(lines),
            "hidden": sorted(w.asset.name for w in wheels if not w.listed),
            "yanked": sorted(r.tag for r in releases if r.id in yanked),
            "range_reads": facts.range_reads, "bundle_reads": provenances.reads,
            "provenance_copies": provenances.copies,
            "fetched": sorted(facts.downloads),
            "without_core_metadata": sorted(without_metadata),
            "protect_missing": missing_protect}
