"""Static pip indexes of the published wheels: PEP 503 HTML and PEP 691 JSON, per channel.

A site is a directory any static host can serve::

    SITE/index.html                      the page for people (``release.publish.site``)
    SITE/nightly/<project>/index.html    PEP 503 page, PEP 658/714 metadata attributes
    SITE/nightly/<project>/index.json    PEP 691 JSON (api-version 1.1: PEP 700 versions,
                                         size, upload-time)
    SITE/nightly/<project>/<wheel>       the wheel and <wheel>.metadata (PEP 658 wants the
                                         metadata at the wheel's URL + ".metadata", which a
                                         release asset URL cannot offer, so wheels live here)
    SITE/stable/...                      the same for releases, posts and rcs

``nightly/`` holds nightlies only and ``stable/`` releases, posts and release candidates, so
pip on ``stable/`` never picks a nightly, and with ``--pre`` an rc only while it is the newest.
Nightlies the retention rule lets go (``release.publish.retention``, the rule ``release gc`` deletes
by) stay on disk but are no longer listed (no link ever points at a file that is gone).

Safety: reading a store never creates it; a store with no published wheel, or a run that would
drop every project or any wheel the store still has, is refused before anything is written.
The new site is built in ``.SITE.new`` beside SITE (wheels hard-linked from the old site when
their digest matches) and swapped in with one atomic directory exchange; when its bytes equal
the old site's, nothing is swapped, so a re-run with no change rewrites nothing.
"""

from __future__ import annotations

import ctypes
import dataclasses
import datetime as _dt
import filecmp
import hashlib
import html
import json
import os
import shutil
import zipfile
from email.parser import HeaderParser
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Iterable

from filelock import FileLock, Timeout
from packaging.utils import InvalidWheelFilename, canonicalize_name, parse_wheel_filename
from packaging.version import InvalidVersion, Version

from release.core import naming, versions
from release.core.checksums import sha256_file
from release.core.errors import UserError
from release.core.safe_names import plain_file_name
from release.publish.retention import DEFAULT_KEEP, Decision, Retention, decide, retention

if TYPE_CHECKING:
    from release.core.output import ProgressBars, Say
    from release.publish.site import CountCommits
    from release.publish.stores import Asset, Release, Store

API_VERSION = "1.1"  # PEP 700 adds versions, size and upload-time to PEP 691's 1.0
JSON_TYPE = "application/vnd.pypi.simple.v1+json"
HTML_TYPE = "application/vnd.pypi.simple.v1+html"
CHANNELS = ("nightly", "stable")
STATE_FILE = ".index-state.json"  # also marks a directory as one this tool wrote
PAGE_FILES = ("index.html", "index.json")


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


@dataclasses.dataclass(frozen=True)
class IndexEntry:
    """One listed file as both page formats render it."""

    filename: str
    project: str
    version: Version
    sha256: str
    size: int
    requires_python: str | None
    metadata_sha256: str
    upload_time: _dt.datetime | None


def channel_of(version: str) -> str:
    """``nightly`` for a dev version, ``stable`` for releases, posts and rcs."""
    return "nightly" if versions.kind_of(version) == "nightly" else "stable"


def wheel_metadata(path: Path) -> bytes:
    """The METADATA file of a wheel, byte for byte."""
    try:
        with zipfile.ZipFile(path) as zf:
            names = [n for n in zf.namelist()
                     if n.count("/") == 1 and n.endswith(".dist-info/METADATA")]
            if len(names) != 1:
                raise UserError(f"{path.name}: expected one .dist-info/METADATA, found {len(names)}")
            return zf.read(names[0])
    except zipfile.BadZipFile:
        raise UserError(f"{path.name}: not a wheel (not a zip file)") from None


def _parse_name(filename: str) -> tuple[str, Version]:
    try:
        name, version, _, _ = parse_wheel_filename(filename)
    except InvalidWheelFilename as exc:
        raise UserError(f"{filename}: not a wheel file name ({exc})") from None
    return canonicalize_name(name), version


def _plain_name(name: str) -> str:
    """Refuse names that could leave their folder (they come from stores and APIs): the one
    rule of ``release.core.safe_names``."""
    return plain_file_name(name, "asset name")


def _time_text(when: _dt.datetime) -> str:
    return when.astimezone(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def describe(path: Path, *, sha256: str | None = None,
             upload_time: _dt.datetime | None = None) -> tuple[IndexEntry, bytes]:
    """The entry of a wheel on disk and its METADATA bytes."""
    project, version = _parse_name(path.name)
    metadata = wheel_metadata(path)
    requires = HeaderParser().parsestr(metadata.decode("utf-8", "replace")).get("Requires-Python")
    entry = IndexEntry(filename=path.name, project=project, version=version,
                       sha256=sha256 or sha256_file(path), size=path.stat().st_size,
                       requires_python=requires.strip() if requires else None,
                       metadata_sha256=hashlib.sha256(metadata).hexdigest(), upload_time=upload_time)
    return entry, metadata


# ------------------------------------------------------------------ the two page formats


def _html(title: str, lines: list[str]) -> bytes:
    body = "".join(f"    {line}<br/>\n" for line in lines)
    return (f'<!DOCTYPE html>\n<html>\n  <head>\n    <meta name="pypi:repository-version" '
            f'content="{API_VERSION}">\n    <title>{html.escape(title)}</title>\n  </head>\n'
            f"  <body>\n    <h1>{html.escape(title)}</h1>\n{body}  </body>\n</html>\n").encode()


def _json(data: dict) -> bytes:
    return (json.dumps(data, indent=1, sort_keys=True) + "\n").encode()


def project_pages(project: str, entries: list[IndexEntry]) -> tuple[bytes, bytes]:
    """PEP 503 HTML and PEP 691 JSON of one project (files sorted by version, then name)."""
    entries = sorted(entries, key=lambda e: (e.version, e.filename))
    links, files = [], []
    for e in entries:
        attrs = [f'href="{html.escape(e.filename)}#sha256={e.sha256}"']
        if e.requires_python:
            attrs.append(f'data-requires-python="{html.escape(e.requires_python)}"')
        attrs.append(f'data-dist-info-metadata="sha256={e.metadata_sha256}"')
        attrs.append(f'data-core-metadata="sha256={e.metadata_sha256}"')
        links.append(f"<a {' '.join(attrs)}>{html.escape(e.filename)}</a>")
        item = {"filename": e.filename, "url": e.filename, "hashes": {"sha256": e.sha256},
                "size": e.size, "core-metadata": {"sha256": e.metadata_sha256},
                "dist-info-metadata": {"sha256": e.metadata_sha256}}
        if e.requires_python:
            item["requires-python"] = e.requires_python
        if e.upload_time is not None:
            item["upload-time"] = _time_text(e.upload_time)
        files.append(item)
    listed = sorted({e.version for e in entries})
    data = {"meta": {"api-version": API_VERSION}, "name": project, "files": files,
            "versions": [str(v) for v in listed]}
    return _html(f"Links for {project}", links), _json(data)


def root_pages(projects: Iterable[str]) -> tuple[bytes, bytes]:
    names = sorted(projects)
    page = _html("Simple index", [f'<a href="{html.escape(p)}/">{html.escape(p)}</a>' for p in names])
    return page, _json({"meta": {"api-version": API_VERSION}, "projects": [{"name": p} for p in names]})


# ------------------------------------------------------------------ building a tree


def _place(src: Path, dest: Path) -> None:
    """Put ``src``'s bytes at ``dest``: a hard link when possible (no copy of big wheels)."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    if dest.exists():
        dest.unlink()
    try:
        os.link(src, dest)
    except OSError:
        shutil.copy2(src, dest)


class _Tree:
    """A site being written in a staging directory, with the digests it knows."""

    def __init__(self, root: Path):
        self.root = root
        self.digests: dict[str, dict] = {}  # relative path of a wheel -> {sha256, size, mtime_ns}

    def add_wheel(self, rel: str, src: Path, sha256: str) -> Path:
        dest = self.root / rel
        _place(src, dest)
        st = dest.stat()
        self.digests[rel] = {"sha256": sha256, "size": st.st_size, "mtime_ns": st.st_mtime_ns}
        return dest

    def write(self, rel: str, data: bytes) -> None:
        dest = self.root / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes(data)

    def channel(self, channel: str, listed: list[tuple[IndexEntry, bytes]]) -> dict[str, list[str]]:
        """Pages and metadata files of one channel (``channel`` "" is the tree's root)."""
        prefix = f"{channel}/" if channel else ""
        by_project: dict[str, list[IndexEntry]] = {}
        for entry, metadata in listed:
            by_project.setdefault(entry.project, []).append(entry)
            self.write(f"{prefix}{entry.project}/{entry.filename}.metadata", metadata)
        for project, entries in by_project.items():
            page, data = project_pages(project, entries)
            self.write(f"{prefix}{project}/index.html", page)
            self.write(f"{prefix}{project}/index.json", data)
        page, data = root_pages(by_project)
        self.write(f"{prefix}index.html", page)
        self.write(f"{prefix}index.json", data)
        return {p: [e.filename for e in sorted(es, key=lambda e: (e.version, e.filename))]
                for p, es in sorted(by_project.items())}

    def save_state(self, extra: dict | None = None) -> None:
        state = {"schema": 1, "generator": "jax-rocm-release index", "wheels": self.digests,
                 **(extra or {})}
        self.write(STATE_FILE, _json(state))


def _read_state(site: Path) -> dict:
    try:
        data = json.loads((site / STATE_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _known_digest(path: Path, rel: str, state: dict) -> str:
    """The sha256 of a file of the old site, trusting the state file while size and mtime match."""
    known = (state.get("wheels") or {}).get(rel)
    st = path.stat()
    if isinstance(known, dict) and known.get("size") == st.st_size and known.get("mtime_ns") == st.st_mtime_ns:
        return str(known.get("sha256"))
    return sha256_file(path)


# ------------------------------------------------------------------ the site directory


def _is_legacy_project_dir(path: Path) -> bool:
    return path.is_dir() and all(p.is_file() and (p.suffix in (".whl", ".metadata") or p.name in PAGE_FILES)
                                 for p in path.iterdir())


def check_site(site: Path) -> None:
    """SITE must be new, empty, or a site this tool wrote (never someone's directory)."""
    if site.exists() and not site.is_dir():
        raise UserError(f"--out {site}: is a file; expected a directory for the site")
    if not site.exists():
        return
    if (site / STATE_FILE).is_file():
        return
    for child in site.iterdir():
        if child.name in PAGE_FILES or child.name in CHANNELS or _is_legacy_project_dir(child):
            continue
        raise UserError(f"--out {site}: holds {child.name}, which this tool did not write; "
                        "expected an empty directory or a site written by `release index`")


def old_wheels(site: Path) -> dict[str, Path]:
    """Every wheel of an existing site, by file name (current and older layouts)."""
    found: dict[str, Path] = {}
    if not site.is_dir():
        return found
    for path in sorted(site.glob("*/*.whl")) + sorted(site.glob("*/*/*.whl")):
        found.setdefault(path.name, path)
    return found


def listed_projects(site: Path) -> set[str]:
    """Projects the old site's channel pages (or its older single page) list."""
    projects = set()
    for page in [site / "index.json"] + [site / c / "index.json" for c in CHANNELS]:
        try:
            data = json.loads(page.read_text(encoding="utf-8"))
            projects |= {p["name"] for p in data.get("projects", [])}
        except (OSError, ValueError, TypeError, KeyError, AttributeError):
            continue
    for child in site.iterdir() if site.is_dir() else ():
        if child.name not in CHANNELS and child.is_dir() and any(child.glob("*.whl")):
            projects.add(child.name)
    return projects


def _same_tree(a: Path, b: Path) -> bool:
    def files(root: Path) -> dict[str, Path]:
        return {str(p.relative_to(root)): p for p in root.rglob("*") if p.is_file() or p.is_symlink()}
    fa, fb = files(a), files(b)
    if fa.keys() != fb.keys():
        return False
    for rel, pa in fa.items():
        pb = fb[rel]
        sa, sb = pa.stat(), pb.stat()
        if (sa.st_dev, sa.st_ino) == (sb.st_dev, sb.st_ino):
            continue
        if sa.st_size != sb.st_size or not filecmp.cmp(pa, pb, shallow=False):
            return False
    return True


_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


def _exchange(a: Path, b: Path) -> bool:
    """Swap two directories atomically (Linux renameat2); False when the system cannot."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        fn = libc.renameat2
    except (OSError, AttributeError):
        return False
    fn.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    if fn(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    return False


class Staging:
    """``.SITE.new`` beside SITE, swapped in whole; leftovers of a crashed run are cleared.

    Used as a context manager it holds ``.SITE.lock`` (one writer at a time; a second run
    waits up to ``lock_timeout`` seconds) and drops the new tree when the block fails.
    """

    def __init__(self, site: Path, lock_timeout: float = 600):
        self.site = Path(site).absolute()
        self.new = self.site.with_name(f".{self.site.name}.new")
        self.old = self.site.with_name(f".{self.site.name}.old")
        self.lock = FileLock(str(self.site.with_name(f".{self.site.name}.lock")))
        self.lock_timeout = lock_timeout

    def __enter__(self) -> Staging:
        self.site.parent.mkdir(parents=True, exist_ok=True)
        try:
            self.lock.acquire(timeout=self.lock_timeout)
        except Timeout:
            raise UserError(f"{self.site}: another `release index` is still writing it (waited "
                            f"{self.lock_timeout:.0f} s for {self.lock.lock_file}); try again later") from None
        self.recover()
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if kind is not None:
            self.discard()
        self.lock.release()

    def recover(self) -> None:
        """Finish what a crash between the two renames of the fallback swap left."""
        if self.old.exists():
            if self.site.exists():
                shutil.rmtree(self.old)
            else:
                os.replace(self.old, self.site)

    def begin(self) -> _Tree:
        self.recover()
        if self.new.exists():
            shutil.rmtree(self.new)
        self.new.mkdir(parents=True)
        return _Tree(self.new)

    def discard(self) -> None:
        shutil.rmtree(self.new, ignore_errors=True)

    def commit(self) -> bool:
        """Swap the new tree in; False (and the new tree dropped) when it equals the old one."""
        if self.site.is_dir() and _same_tree(self.site, self.new):
            self.discard()
            return False
        if not self.site.exists():
            os.replace(self.new, self.site)
        elif _exchange(self.new, self.site):
            shutil.rmtree(self.new)
        else:
            os.replace(self.site, self.old)
            os.replace(self.new, self.site)
            shutil.rmtree(self.old)
        return True


# ------------------------------------------------------------------ index of given wheels


def write_index(out: Path, wheels: Iterable[Path | IndexWheel]) -> dict:
    """A PEP 503/691 index of exactly ``wheels`` at ``out`` (no store, no channels).

    ``out/index.html|json`` and ``out/<project>/{index.html,index.json,<wheel>,<wheel>.metadata}``;
    serve ``out`` and point ``pip --index-url`` at it. Written beside ``out`` and swapped in, so
    ``out`` is either the old or the new index; a re-run with the same wheels changes nothing.
    Returns ``{"out", "projects": {project: [file, ...]}, "changed"}``.
    """
    out = Path(out)
    check_site(out)
    with Staging(out) as staging:
        tree = staging.begin()
        listed: list[tuple[IndexEntry, bytes]] = []
        for given in wheels:
            item = given if isinstance(given, IndexWheel) else IndexWheel(Path(given))
            path = Path(item.path)
            if not path.is_file():
                raise UserError(f"{path}: no such wheel file")
            entry, metadata = describe(path, sha256=item.sha256, upload_time=item.upload_time)
            if any(e.filename == entry.filename for e, _ in listed):
                raise UserError(f"{entry.filename}: given twice")
            tree.add_wheel(f"{entry.project}/{entry.filename}", path, entry.sha256)
            listed.append((entry, metadata))
        projects = tree.channel("", listed)
        tree.save_state()
        changed = staging.commit()
    return {"out": str(out), "projects": projects, "changed": changed}


# ------------------------------------------------------------------ the site of a store


@dataclasses.dataclass
class PublishedWheel:
    """A wheel asset of a published release, and where the site keeps it."""

    release: Release
    asset: Asset
    version: str
    channel: str
    listed: bool = True

    @property
    def rel(self) -> str:
        project, _ = _parse_name(self.asset.name)
        return f"{self.channel}/{project}/{self.asset.name}"


def published_wheels(store: Store, releases: list[Release]) -> list[PublishedWheel]:
    """The wheel assets of every published release whose tag carries a version."""
    found: list[PublishedWheel] = []
    for release in releases:
        version = naming.version_from_tag(release.tag)
        if release.draft or version is None:
            continue
        try:
            channel = channel_of(version)
        except InvalidVersion:
            continue
        for asset in store.list_assets(release):
            if not asset.name.endswith(".whl") or asset.state != "uploaded":
                continue
            _plain_name(asset.name)
            try:
                parse_wheel_filename(asset.name)
            except InvalidWheelFilename:
                continue  # not a wheel pip could install: nothing to index
            found.append(PublishedWheel(release, asset, version, channel))
    return found


def select(wheels: list[PublishedWheel], decision: Decision) -> None:
    """List a nightly wheel only when the retention rule (``release.publish.retention``) keeps its release."""
    for w in wheels:
        if w.channel == "nightly":
            w.listed = Version(w.version) in decision.kept_versions


def build_site(store: Store, out: Path, *, keep: int = DEFAULT_KEEP, protect: Iterable[str] = (),
               older_than_days: float | None = None, rule: Retention | None = None,
               now: _dt.datetime | None = None, site_url: str | None = None,
               count_commits: CountCommits | None = None, say: Say = lambda _: None,
               progress: ProgressBars | None = None) -> dict:
    """Write the nightly and stable indexes and the page for people of ``store`` into ``out``.

    ``nightly/`` lists the nightlies ``release.publish.retention`` keeps for ``rule`` (else ``keep``,
    ``protect``, versions or tags, and ``older_than_days``) at ``now`` (needed only with
    ``older_than_days``): exactly what ``release gc`` with the same flags keeps.

    Refused (``IndexRefused``, ``out`` untouched) when the store has no published wheel, when
    no project the old site lists would stay listed, or when a wheel of the old site that the
    store still has would be dropped. ``count_commits(url, old, new) -> int | None`` counts the
    commits of a moved dep for the page (``release.publish.site.mirror_counter``); counts once made are
    kept in the site's state.
    """
    from release.publish import site as people_page

    out = Path(out)
    check_site(out)
    rule = rule or retention(keep, older_than_days, protect)
    releases = store.list_releases()
    wheels = published_wheels(store, releases)
    if not wheels:
        raise IndexRefused(f"{store.where}: no published wheels in this {store.kind} store; refusing "
                           f"to write an empty index over {out} (nothing was changed)")
    decision = decide(releases, rule, now)
    select(wheels, decision)
    missing_protect = list(decision.unknown_protect)
    for version in missing_protect:
        say(f"warning: --protect {version}: no published nightly has it")

    fetched: list[str] = []
    with Staging(out) as staging:
        before = old_wheels(out)
        before_projects = listed_projects(out)
        state = _read_state(out)
        tree = staging.begin()
        for w in wheels:
            old, stored = before.get(w.asset.name), w.asset.digest
            if old is not None and stored and _known_digest(old, str(old.relative_to(out)), state) == stored:
                tree.add_wheel(w.rel, old, stored)  # the same bytes are on the site already
                continue
            if not w.listed:
                continue  # hidden and not on the site: nothing to keep
            say(f"fetch {w.asset.name} from {w.release.tag}")
            part = tree.root / ".download" / w.asset.name
            part.parent.mkdir(exist_ok=True)
            store.download_asset(w.release, w.asset, part, progress=progress)
            digest = sha256_file(part)
            if stored and digest != stored:
                raise UserError(f"{w.asset.name}: downloaded bytes do not match the asset digest "
                                f"of {w.release.tag}")
            tree.add_wheel(w.rel, part, digest)
            part.unlink()
            fetched.append(w.asset.name)
        shutil.rmtree(tree.root / ".download", ignore_errors=True)

        channels: dict[str, dict[str, list[str]]] = {}
        for channel in CHANNELS:
            listed = []
            for w in wheels:
                if w.channel != channel or not w.listed:
                    continue
                path = tree.root / w.rel
                entry, metadata = describe(path, sha256=tree.digests[w.rel]["sha256"],
                                           upload_time=w.release.published_at)
                listed.append((entry, metadata))
            channels[channel] = tree.channel(channel, listed)
        for w in wheels:  # hidden wheels kept on disk keep their metadata file too
            if not w.listed and (tree.root / w.rel).exists():
                tree.write(w.rel + ".metadata", wheel_metadata(tree.root / w.rel))

        after_projects = {p for c in channels.values() for p in c}
        if before_projects and not (before_projects & after_projects):
            raise IndexRefused(f"{out}: the new index would drop every project it lists "
                               f"({', '.join(sorted(before_projects))}); is {store.where} the right "
                               "store? (nothing was changed)")
        store_names = {w.asset.name for w in wheels}
        dropped = sorted(n for n in before if n in store_names and n not in {Path(rel).name for rel in tree.digests})
        if dropped:
            raise IndexRefused(f"{out}: would drop {len(dropped)} wheel(s) the store still has, e.g. "
                               f"{dropped[0]} (nothing was changed)")

        cache = state.get("revisions") if isinstance(state.get("revisions"), dict) else {}
        used: dict = {}
        known = state.get("commit_counts") if isinstance(state.get("commit_counts"), dict) else {}
        counter = people_page.CommitCounter(count_commits, known)
        page = people_page.render(people_page.gather(store, releases, wheels, site_url=site_url,
                                                     keep=rule.keep, present=set(tree.digests),
                                                     cache=cache, used=used, count=counter))
        tree.write("index.html", page)
        tree.save_state({"revisions": used, "commit_counts": counter.used})
        changed = staging.commit()
    removed = sorted(n for n in before if n not in store_names)
    return {"out": str(out), "store": store.kind, "where": store.where, "changed": changed,
            "channels": channels,
            "hidden": sorted(w.asset.name for w in wheels if not w.listed),
            "fetched": sorted(fetched), "removed": removed, "protect_missing": missing_protect}
