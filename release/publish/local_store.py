"""A store in a local directory (``--store local``): the same semantics as GitHub's releases,
kept in files (``release.publish.local_records``) under one lock, for a laptop and the tests.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import os
import re
import shutil
import weakref
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, ContextManager
from urllib.parse import quote_from_bytes

from release.core.atomic import atomic_write
from release.core.file_lock import held
from release.core.safe_names import file_name_problem, plain_file_name
from release.publish import local_records
from release.publish.records import Asset, Release, parse_time
from release.publish.store_base import AssetExists, ImmutableRelease, Store, StoreError, TagTaken

if TYPE_CHECKING:
    from release.core.output import ProgressBars


# What ``quote`` leaves as it is (letters, digits, ``_.-~``): a name of only these is its own URL
# path, without encoding it and quoting it byte by byte (a listing quotes every asset's name).
_URL_PLAIN = re.compile(r"[A-Za-z0-9_.~-]*")


class LocalStore(Store):
    """Releases as directories: ``<dir>/<id>/release.json`` and ``<dir>/<id>/assets/<name>``.

    Every change is written to a temp file and renamed into place under a file lock,
    so a crash leaves either the old or the new state.
    """

    kind = "local"

    def __init__(self, directory: Path, clock: Callable[[], _dt.datetime] | None = None):
        self.directory = Path(directory).absolute()
        self.where = str(self.directory)
        self.clock = clock or (lambda: _dt.datetime.now(_dt.timezone.utc))
        self._made = False  # the directory, made by the first write
        self._uri = self.directory.as_uri()
        # release.json records as last read, by release id, with the file's stat when read: a
        # listing followed by each release's assets (the index) reads each record once, and a
        # record changed since (it is replaced whole) is read again
        self._records: dict[int, tuple[tuple[int, ...], dict]] = {}
        # the Release each record made, under the same stat: a listing in a loop (a process that
        # publishes a season) costs one directory scan and one stat per release, never a parse
        self._listed: dict[int, tuple[tuple[int, ...], Release]] = {}
        # [release id, its open assets directory, its regular files or None until scanned] of
        # the release last read or vouched for (``local_records.open_assets``): the index takes a
        # release's wheels and objects one after another. Listing that release or any write
        # closes it; so does the store going.
        self._folder: list = []
        weakref.finalize(self, _close_folder, self._folder)

    @property
    def _lock(self) -> ContextManager[None]:
        """The store's lock (``<dir>/.lock``, waited for as long as another writer holds it);
        taking it is a write, so the directory is created here, never on a read."""
        if not self._made:
            if self.directory.exists() and not self.directory.is_dir():
                raise StoreError(f"{self.where}: is a file; expected the local store's directory")
            try:
                self.directory.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise StoreError(f"{self.where}: cannot create the local store ({exc.strerror or exc})") from None
            local_records.remove_link(self.directory / ".lock")
            self._made = True
        _close_folder(self._folder)  # a write may change what a scan saw
        return held(self.directory / ".lock")

    def exists(self) -> bool:
        """True when the directory is a store this tool wrote (it has ``store.json``)."""
        return (self.directory / "store.json").is_file()

    def require_existing(self, flag: str = "--store-dir") -> None:
        """For commands that only read: a missing store is a mistake, never an empty store."""
        if self.exists():
            return
        if self.directory.is_file():
            raise StoreError(f"{flag} {self.where}: is a file; expected the local store's directory")
        if self.directory.is_dir():
            raise StoreError(f"{flag} {self.where}: not a local store (no store.json); expected a "
                             "directory `release publish --store local` wrote")
        hint = _near_store(self.directory)
        if hint is not None:
            raise StoreError(f"{flag} {self.where}: no such directory; did you mean {hint}?")
        raise StoreError(f"{flag} {self.where}: no local store there (nothing was published to it); "
                         "pass --store-dir DIR of an existing store, or --store github --repo OWNER/NAME")

    # state files
    def _state(self) -> dict:
        path = self.directory / "store.json"
        if not path.exists():
            return {"next_id": 1, "burned_tags": []}
        return local_records.state_record(path)

    def _save_json(self, path: Path, data: Any) -> None:
        atomic_write(path, json.dumps(data, indent=2, sort_keys=True) + "\n")

    def _new_id(self) -> int:
        state = self._state()
        new = state["next_id"]
        state["next_id"] = new + 1
        self._save_json(self.directory / "store.json", state)
        return new

    def _meta_path(self, release_id: int) -> Path:
        return self.directory / str(release_id) / "release.json"

    def _read(self, release_id: int) -> dict:
        path = self._meta_path(release_id)
        if not path.exists():
            raise StoreError(f"{self.where}: release {release_id} does not exist")
        return local_records.release_record(path)

    def _record(self, path: Path | str, release_id: int) -> dict:
        """A release record to read (not to change): the one read before while the file is
        unchanged (same inode, size and times: every write replaces it whole), else read now."""
        try:
            key = _stat_key(path)
        except FileNotFoundError:
            raise StoreError(f"{self.where}: release {release_id} does not exist") from None
        return self._record_at(path, release_id, key)

    def _record_at(self, path: Path | str, release_id: int, key: tuple[int, ...]) -> dict:
        known = self._records.get(release_id)
        if known is not None and known[0] == key:
            return known[1]
        data = local_records.release_record(Path(path))
        self._records[release_id] = (key, data)
        return data

    def _release(self, data: dict) -> Release:
        if not isinstance(data.get("id"), int) or isinstance(data["id"], bool):
            raise StoreError(f"{self.where}: a release record has id {data.get('id')!r}; "
                             "expected an integer")
        return Release(id=data["id"], tag=data["tag"], name=data.get("name"), body=data.get("body") or "",
                       draft=data["draft"], prerelease=data["prerelease"],
                       created_at=parse_time(data.get("created_at")),
                       published_at=parse_time(data.get("published_at")),
                       html_url=f"{self._uri}/{data['id']}",  # Path.as_uri() of <dir>/<id>: an id is digits
                       target=data.get("target") if isinstance(data.get("target"), str) else None)

    def _asset(self, release_id: int, data: dict, base: str | None = None) -> Asset:
        """The Asset of an asset record (``base``: its release's ``<uri>/<id>/assets/``)."""
        # A record is data from outside: its name is checked before it is joined to a path.
        name = data.get("name")
        if not isinstance(name, str) or file_name_problem(name) is not None:
            name = plain_file_name(name, f"{self._meta_path(release_id)}: asset record")  # refuses
        # Path.as_uri() of <dir>/<id>/assets/<name>, without a Path per asset
        quoted = name if _URL_PLAIN.fullmatch(name) else quote_from_bytes(os.fsencode(name))
        return Asset.listed(data["id"], data["name"], data["size"], data.get("digest"), "uploaded",
                            (base or f"{self._uri}/{release_id}/assets/") + quoted)

    def _mutable(self, data: dict) -> None:
        if not data["draft"]:
            raise ImmutableRelease(f"{self.where}: release {data['tag']} is published; its assets "
                                   "and tag cannot change")

    def _now(self) -> str:
        return self.clock().astimezone(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")

    # interface
    def list_releases(self) -> list[Release]:
        """Newest first, read now: every record is stat'ed on every listing (another process may
        have replaced it); only an unchanged one's Release is reused."""
        found: list[Release] = []
        if not self.directory.is_dir():
            return found  # nothing published yet; reading never creates the store
        with os.scandir(self.directory) as entries:
            for entry in entries:
                if not entry.name.isdigit():
                    continue
                if entry.is_symlink():  # from the scan, no system call
                    local_records.not_linked(Path(entry.path), self.where)  # refuses the store
                if not entry.is_dir():
                    continue
                found_one = self._listed_release(os.path.join(entry.path, "release.json"), int(entry.name))
                if found_one is not None:
                    found.append(found_one)
        return sorted(found, key=lambda r: -r.id)

    def _listed_release(self, path: str, release_id: int) -> Release | None:
        """The release of ``<id>/release.json``, None when there is none (a create killed midway)."""
        try:
            key = _stat_key(path)
        except (FileNotFoundError, NotADirectoryError):
            return None
        seen = self._listed.get(release_id)
        if seen is not None and seen[0] == key:
            return seen[1]
        release = self._release(self._record_at(path, release_id, key))
        self._listed[release_id] = (key, release)
        return release

    def create_draft(self, tag: str, *, name: str, body: str, prerelease: bool,
                     target: str | None = None) -> Release:
        with self._lock:
            if tag in self._state()["burned_tags"]:
                raise TagTaken(f"{self.where}: tag {tag} belonged to a deleted published release "
                               "and cannot be reused")
            self._sweep()
            new = self._new_id()
            (self.directory / str(new) / "assets").mkdir(parents=True)
            data = {"id": new, "tag": tag, "name": name, "body": body, "draft": True,
                    "prerelease": prerelease, "created_at": self._now(), "published_at": None,
                    "make_latest": None, "target": target, "assets": []}
            self._save_json(self._meta_path(new), data)
            return self._release(data)

    def update_release(self, release: Release, *, name: str | None = None,
                       body: str | None = None, target: str | None = None) -> Release:
        with self._lock:
            data = self._read(release.id)
            if name is not None:
                data["name"] = name
            if body is not None:
                data["body"] = body
            if target is not None:
                data["target"] = target
            self._save_json(self._meta_path(release.id), data)
            return self._release(data)

    def publish(self, release: Release, *, prerelease: bool, make_latest: bool) -> Release:
        with self._lock:
            data = self._read(release.id)
            if not data["draft"]:
                return self._release(data)
            other = self.published_for(data["tag"])
            if other is not None:
                raise TagTaken(f"{self.where}: tag {data['tag']} already has a published release")
            data.update(draft=False, prerelease=prerelease, published_at=self._now(),
                        make_latest="true" if make_latest else "false")
            self._save_json(self._meta_path(release.id), data)
            return self._release(data)

    def delete_release(self, release: Release) -> None:
        with self._lock:
            folder = self.directory / str(release.id)
            local_records.not_linked(folder, self.where)
            if not folder.exists():
                return
            data = self._read(release.id)
            if not data["draft"]:
                state = self._state()
                state["burned_tags"] = sorted(set(state["burned_tags"]) | {data["tag"]})
                self._save_json(self.directory / "store.json", state)
            trash = self.directory / f".deleted-{release.id}"
            local_records.remove_link(trash)
            if trash.exists():  # a delete killed midway left it: finish that one first
                shutil.rmtree(trash)
            os.replace(folder, trash)
            shutil.rmtree(trash)
            self._sweep()

    def _sweep(self) -> None:
        """Remove what deletes killed midway left (``.deleted-N/``): already out of the store."""
        for leftover in self.directory.glob(".deleted-*"):
            local_records.remove_link(leftover)  # an older version renamed a linked release here
            shutil.rmtree(leftover, ignore_errors=True)

    def list_assets(self, release: Release) -> list[Asset]:
        if self._folder and self._folder[0] == release.id:
            _close_folder(self._folder)  # this listing's assets are read and scanned anew
        # the path as text: a Path is made only to read a record changed since it was listed
        data = self._record(os.path.join(self.where, str(release.id), "release.json"), release.id)
        base = f"{self._uri}/{release.id}/assets/"
        return [self._asset(release.id, a, base) for a in data["assets"]]

    def _taking_name(self, release_id: int, name: str) -> dict:
        """The record of a release that may still change and has no asset ``name`` (under the lock)."""
        data = self._read(release_id)
        self._mutable(data)
        if any(a["name"] == name for a in data["assets"]):
            raise AssetExists(f"{self.where} release {data['tag']}: asset {name} already exists")
        return data

    def upload_asset(self, release: Release, path: Path, name: str,
                     progress: ProgressBars | None = None) -> Asset:
        plain_file_name(name, f"{self.where}: upload")
        with self._lock:
            data = self._taking_name(release.id, name)
            folder = self.directory / str(release.id) / "assets"
            part = folder / f".{name}.part"
            size = Path(path).stat().st_size
            task = progress.add_task(f"copy {name}", total=size) if progress is not None else None
            digest = hashlib.sha256()
            with open(path, "rb") as src, open(part, "wb") as dst:
                for chunk in iter(lambda: src.read(1 << 20), b""):
                    digest.update(chunk)
                    dst.write(chunk)
                    if progress is not None and task is not None:
                        progress.advance(task, len(chunk))
            if progress is not None and task is not None:
                progress.remove_task(task)
            os.replace(part, folder / name)
            entry = {"id": self._new_id(), "name": name, "size": size, "digest": digest.hexdigest()}
            data["assets"].append(entry)
            self._save_json(self._meta_path(release.id), data)
            return self._asset(release.id, entry)

    def rename_asset(self, release: Release, asset: Asset, name: str) -> Asset:
        plain_file_name(name, f"{self.where}: rename")
        with self._lock:
            data = self._taking_name(release.id, name)
            entry = next(a for a in data["assets"] if a["id"] == asset.id)
            folder = self.directory / str(release.id) / "assets"
            os.replace(folder / entry["name"], folder / name)
            entry["name"] = name
            self._save_json(self._meta_path(release.id), data)
            return self._asset(release.id, entry)

    def delete_asset(self, release: Release, asset: Asset) -> None:
        with self._lock:
            data = self._read(release.id)
            self._mutable(data)
            data["assets"] = [a for a in data["assets"] if a["id"] != asset.id]
            self._save_json(self._meta_path(release.id), data)
            (self.directory / str(release.id) / "assets" / asset.name).unlink(missing_ok=True)

    def download_asset(self, release: Release, asset: Asset, dest: Path,
                       progress: ProgressBars | None = None) -> Path:  # noqa: ARG002 (the Store interface: a copy has no progress)
        tmp = Path(dest).with_name(Path(dest).name + ".part")
        with local_records.open_asset(self.directory, release.id, asset.name, self.where) as a, open(tmp, "wb") as b:
            shutil.copyfileobj(a, b)
        os.replace(tmp, dest)
        return Path(dest)

    def read_asset_range(self, release: Release, asset: Asset, start: int, length: int) -> bytes:
        return local_records.read_asset_range(self.directory, release.id, asset.name, self.where, start, length,
                                              self._assets(release.id))

    def vouch_asset(self, release: Release, asset: Asset) -> None:
        """A regular file in the scan of its directory since the release was last listed passes;
        anything else (a link, a FIFO, a directory, missing, a link for a directory) is checked
        on its own by ``local_records.vouch_asset``, which says what it is."""
        folder = self._assets(release.id)
        if folder is not None:
            if self._folder[2] is None:
                self._folder[2] = local_records.regular_names(folder)
            if asset.name in self._folder[2]:
                return
        local_records.vouch_asset(self.directory, release.id, asset.name, self.where)

    def _assets(self, release_id: int) -> int | None:
        """The open assets directory of ``release_id`` (the one held, or opened now in its
        place), None when it cannot be opened without following a link."""
        if self._folder and self._folder[0] == release_id:
            return self._folder[1]
        _close_folder(self._folder)
        folder = local_records.open_assets(self.directory, release_id)
        if folder is not None:
            self._folder[:] = [release_id, folder, None]
        return folder


def _close_folder(held: list) -> None:
    """Close a store's held assets directory (``LocalStore._folder``), if any."""
    if held:
        os.close(held[1])
        held.clear()


def _stat_key(path: Path | str) -> tuple[int, ...]:
    """What changes whenever a record is replaced (every write replaces it whole)."""
    info = os.stat(path)
    return (info.st_ino, info.st_dev, info.st_size, info.st_mtime_ns, info.st_ctime_ns)


def _near_store(directory: Path) -> Path | None:
    """An existing store whose path is a likely typo of ``directory`` (its parent or siblings)."""
    import difflib

    parent = directory.parent
    while not parent.is_dir() and parent != parent.parent:
        parent = parent.parent
    try:
        candidates = {str(p): p for p in parent.iterdir() if (p / "store.json").is_file()}
    except OSError:
        return None
    close = difflib.get_close_matches(str(directory), list(candidates), n=1, cutoff=0.75)
    return candidates[close[0]] if close else None
