"""Where releases live: a GitHub repository or a local directory, behind one small interface.

Both stores keep GitHub's semantics so every command behaves the same on a laptop
and in CI: releases start as drafts, several drafts may share a tag, a draft is
found by listing (GitHub's get-by-tag cannot see drafts), an asset name is unique
within a release (no overwrite: upload, delete, rename), and a published release
is immutable (no asset added, removed or renamed; one published release per tag).
What to publish is decided elsewhere (``release.publish.drafts``); stores only do it.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import hashlib
import json
import os
import shutil
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Mapping
from urllib.parse import quote, quote_from_bytes

from release.core import bodies
from release.core.atomic import atomic_write
from release.core.errors import UserError
from release.core.safe_names import file_name_problem, plain_file_name
from release.publish import local_records, notes
from release.publish.records import Asset as Asset
from release.publish.records import Published as Published
from release.publish.records import Release as Release
from release.publish.records import parse_time
from release.publish.records import release_version as release_version
from release.sources import asset_ranges, shapes
from release.sources.github import (
    PUBLISH,
    READ_RELEASES,
    GitHubClient,
    GitHubError,
    MalformedAnswer,
    UncertainWrite,
)

if TYPE_CHECKING:
    from filelock import BaseFileLock
    from rich.console import Console

    from release.core.output import ProgressBars, Say

class StoreError(UserError):
    """The store refused an operation (the message says which and why)."""


class AssetExists(StoreError):
    """An asset of that name is already on the release (GitHub: 422 already_exists)."""


class ImmutableRelease(StoreError):
    """The release is published: its assets and tag can no longer change."""


class TagTaken(StoreError):
    """Another published release already has this tag."""


def _answer_time(data: dict, key: str) -> _dt.datetime | None:
    """A timestamp member of a release ``shapes.check`` accepted (a ``TIME``: UTC, in range)."""
    return shapes.time_of(data, key)


class Store:
    """The interface both stores implement."""

    kind = "?"
    where = "?"

    def list_releases(self) -> list[Release]:
        """Every release, drafts included, newest first."""
        raise NotImplementedError

    def create_draft(self, tag: str, *, name: str, body: str, prerelease: bool,
                     target: str | None = None) -> Release:
        """A new draft of ``tag``; publishing it makes the tag at ``target`` (a commit) when the
        tag does not exist yet, else at the default branch's head."""
        raise NotImplementedError

    def update_release(self, release: Release, *, name: str | None = None,
                       body: str | None = None, target: str | None = None) -> Release:
        raise NotImplementedError

    def publish(self, release: Release, *, prerelease: bool, make_latest: bool) -> Release:
        raise NotImplementedError

    def delete_release(self, release: Release) -> None:
        """Delete the release and, when it was published, its tag."""
        raise NotImplementedError

    def list_assets(self, release: Release) -> list[Asset]:
        raise NotImplementedError

    def upload_asset(self, release: Release, path: Path, name: str,
                     progress: ProgressBars | None = None) -> Asset:
        raise NotImplementedError

    def rename_asset(self, release: Release, asset: Asset, name: str) -> Asset:
        raise NotImplementedError

    def delete_asset(self, release: Release, asset: Asset) -> None:
        raise NotImplementedError

    def download_asset(self, release: Release, asset: Asset, dest: Path,
                       progress: ProgressBars | None = None) -> Path:
        raise NotImplementedError

    def read_asset_range(self, release: Release, asset: Asset, start: int, length: int) -> bytes:
        """``length`` bytes of an asset from ``start``, without fetching the rest of it."""
        raise NotImplementedError

    # ---------------------------------------------------------- built on the above

    def drafts_for(self, tag: str) -> list[Release]:
        """Drafts of ``tag``, oldest first (found by listing, never by get-by-tag)."""
        return sorted((r for r in self.list_releases() if r.draft and r.tag == tag), key=lambda r: r.id)

    def our_drafts(self, tag: str) -> list[Release]:
        """The drafts of ``tag`` this tool made (the draft mark in the notes), oldest first: the
        ones it may upload to, publish or delete; a hand-made draft is never among them."""
        return [d for d in self.drafts_for(tag) if d.ours]

    def published(self) -> Published:
        """The published releases by version, from one listing."""
        return Published.of(self.list_releases())

    def published_for(self, tag: str) -> Release | None:
        return next((r for r in self.list_releases() if not r.draft and r.tag == tag), None)

    def find_or_create_draft(self, tag: str, *, name: str, body: str, prerelease: bool,
                             target: str | None = None, attempts: int = 3,
                             say: Say = lambda _: None) -> Release:
        """The one draft of ``tag``, whatever state a previous run left behind, aimed at
        ``target`` (the commit that was built: publishing makes a missing tag there).

        Drafts are found by listing. Of several drafts of ours (a retried create, two
        jobs racing) the oldest is kept and the rest deleted, so concurrent runs agree.
        A create that got no clear answer is followed by a re-list, never a blind retry.
        Someone else's draft of the tag is left alone and stops the run.
        """
        if not notes.is_ours(body):
            body = notes.write(dataclasses.replace(notes.read(body), ours=True))
        for _ in range(attempts):
            drafts = self.drafts_for(tag)
            foreign = [d for d in drafts if not d.ours]
            if foreign:
                raise StoreError(f"{self.where}: draft {foreign[0].id} of tag {tag} was not made by "
                                 "this tool; delete it or publish it by hand, then re-run")
            if drafts:
                keep, *extra = drafts
                for dup in extra:
                    say(f"deleting duplicate draft {dup.id} of {tag}")
                    self.delete_release(dup)
                if target is not None and keep.target != target:
                    say(f"draft of {tag}: target {target[:12]} (was {keep.target or 'unset'})")
                    keep = self.update_release(keep, target=target)
                return keep
            try:
                self.create_draft(tag, name=name, body=body, prerelease=prerelease, target=target)
            except GitHubError as exc:
                if not isinstance(exc, UncertainWrite):
                    raise
                say(f"creating the draft of {tag} got no clear answer ({exc.status}); re-listing")
            # Re-list even after a clean create: a racing job may have made one too.
        raise StoreError(f"{self.where}: could not create a draft of {tag} after {attempts} attempts")


# ------------------------------------------------------------------ GitHub


class GitHubStore(Store):
    kind = "github"

    def __init__(self, client: GitHubClient, owner: str, repo: str):
        self.client, self.owner, self.repo = client, owner, repo
        self.where = f"{owner}/{repo}"
        self._base = f"/repos/{owner}/{repo}"

    def _release(self, data: dict) -> Release:
        shapes.check(data, shapes.RELEASE, "release")
        return Release(id=int(data["id"]), tag=data["tag_name"], name=data.get("name"),
                       body=data.get("body") or "", draft=bool(data["draft"]),
                       prerelease=bool(data["prerelease"]),
                       created_at=_answer_time(data, "created_at"),
                       published_at=_answer_time(data, "published_at"),
                       html_url=data.get("html_url"), upload_url=data.get("upload_url"),
                       target=data.get("target_commitish"))

    @staticmethod
    def _asset(data: dict) -> Asset:
        shapes.check(data, shapes.ASSET, "release asset")
        digest = data.get("digest")
        if isinstance(digest, str) and digest.startswith("sha256:"):
            digest = digest.split(":", 1)[1]
        else:
            digest = None
        return Asset(id=int(data["id"]), name=data["name"], size=int(data["size"]), digest=digest,
                     state=data.get("state") or "uploaded", url=data["browser_download_url"],
                     api_url=data["url"])

    def list_releases(self) -> list[Release]:
        return [self._release(d) for d in self.client.paginate(f"{self._base}/releases")]

    def create_draft(self, tag: str, *, name: str, body: str, prerelease: bool,
                     target: str | None = None) -> Release:
        data = {"tag_name": tag, "name": name, "body": bodies.fit(body), "draft": True, "prerelease": prerelease}
        if target is not None:
            data["target_commitish"] = target
        return self._release(self.client.request("POST", f"{self._base}/releases", json=data))

    def update_release(self, release: Release, *, name: str | None = None,
                       body: str | None = None, target: str | None = None) -> Release:
        fields = {k: v for k, v in (("name", name), ("body", None if body is None else bodies.fit(body)),
                                    ("target_commitish", target)) if v is not None}
        return self._release(self.client.request("PATCH", f"{self._base}/releases/{release.id}",
                                                 json=fields))

    def publish(self, release: Release, *, prerelease: bool, make_latest: bool) -> Release:
        try:
            data = self.client.request("PATCH", f"{self._base}/releases/{release.id}", json={
                "draft": False, "prerelease": prerelease,
                "make_latest": "true" if make_latest else "false"})
        except GitHubError as exc:
            if exc.status == 422 and exc.has_code("already_exists"):
                raise TagTaken(f"{self.where}: tag {release.tag} already has a published release") from None
            raise
        return self._release(data)

    def delete_release(self, release: Release) -> None:
        self.client.request("DELETE", f"{self._base}/releases/{release.id}")
        if not release.draft:
            try:
                self.client.request("DELETE", f"{self._base}/git/refs/tags/{quote(release.tag, safe='')}")
            except GitHubError as exc:
                if exc.status not in (404, 422):  # 422: the reference is already gone
                    raise

    def list_assets(self, release: Release) -> list[Asset]:
        return [self._asset(d) for d in self.client.paginate(f"{self._base}/releases/{release.id}/assets")]

    def upload_asset(self, release: Release, path: Path, name: str,
                     progress: ProgressBars | None = None) -> Asset:
        if not release.upload_url:
            release = self._release(self.client.request("GET", f"{self._base}/releases/{release.id}"))
        if not release.upload_url:
            raise MalformedAnswer(f"release {release.id}", "no upload_url, so no asset can be uploaded")
        try:
            return self._asset(self.client.upload(release.upload_url, path, name, progress=progress))
        except GitHubError as exc:
            raise self._refusal(exc, release, name) from None

    def _refusal(self, exc: GitHubError, release: Release, name: str) -> Exception:
        """GitHub's 422s on assets in the store's terms."""
        if exc.status == 422 and exc.has_code("already_exists"):
            return AssetExists(f"{self.where} release {release.tag}: asset {name} already exists")
        if exc.status == 422 and ("immutable" in str(exc).lower() or not exc.errors):
            return ImmutableRelease(f"{self.where}: release {release.tag} is published; its assets "
                                    f"cannot change ({exc})")
        return exc

    def rename_asset(self, release: Release, asset: Asset, name: str) -> Asset:
        try:
            return self._asset(self.client.request("PATCH", f"{self._base}/releases/assets/{asset.id}",
                                                   json={"name": name}))
        except GitHubError as exc:
            raise self._refusal(exc, release, name) from None

    def delete_asset(self, release: Release, asset: Asset) -> None:
        try:
            self.client.request("DELETE", f"{self._base}/releases/assets/{asset.id}")
        except GitHubError as exc:
            raise self._refusal(exc, release, asset.name) from None

    def download_asset(self, release: Release, asset: Asset, dest: Path,  # noqa: ARG002 (the Store interface)
                       progress: ProgressBars | None = None) -> Path:
        if asset.api_url is None:  # an asset listed from another store
            raise StoreError(f"{self.where}: asset {asset.name} was not listed from GitHub; nothing to download")
        return self.client.download(asset.api_url, dest, progress=progress, name=asset.name)

    def read_asset_range(self, release: Release, asset: Asset, start: int, length: int) -> bytes:  # noqa: ARG002 (the Store interface)
        if length <= 0:
            return b""
        if asset.url.startswith(("https://", "http://")):  # public repositories: no API request at all
            found = asset_ranges.read_public_range(self.client, asset.url, start, length)
            if found is not None:
                return found
        if asset.api_url is None:
            raise StoreError(f"{self.where}: asset {asset.name} was not listed from GitHub; nothing to read")
        return asset_ranges.read_range(self.client, asset.api_url, start, length)


# ------------------------------------------------------------------ local directory


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
        self._filelock: BaseFileLock | None = None
        self._uri = self.directory.as_uri()
        # release.json records as last read, by release id, with the file's stat when read: a
        # listing followed by each release's assets (the index) reads each record once, and a
        # record changed since (it is replaced whole) is read again
        self._records: dict[int, tuple[tuple[int, ...], dict]] = {}

    @property
    def _lock(self) -> BaseFileLock:
        """The store's lock; taking it is a write, so the directory is created here, never on a read."""
        if self._filelock is None:
            if self.directory.exists() and not self.directory.is_dir():
                raise StoreError(f"{self.where}: is a file; expected the local store's directory")
            try:
                self.directory.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise StoreError(f"{self.where}: cannot create the local store ({exc.strerror or exc})") from None
            local_records.remove_link(self.directory / ".lock")
            from filelock import FileLock  # loaded by the commands that write a store, when they do
            self._filelock = FileLock(str(self.directory / ".lock"))
        return self._filelock

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

    def _record(self, path: Path, release_id: int) -> dict:
        """A release record to read (not to change): the one read before while the file is
        unchanged (same inode, size and times: every write replaces it whole), else read now."""
        try:
            info = os.stat(path)
        except FileNotFoundError:
            raise StoreError(f"{self.where}: release {release_id} does not exist") from None
        key = (info.st_ino, info.st_dev, info.st_size, info.st_mtime_ns, info.st_ctime_ns)
        known = self._records.get(release_id)
        if known is not None and known[0] == key:
            return known[1]
        data = local_records.release_record(path)
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
                       html_url=(self.directory / str(data["id"])).as_uri(),
                       target=data.get("target") if isinstance(data.get("target"), str) else None)

    def _asset(self, release_id: int, data: dict) -> Asset:
        # A record is data from outside: its name is checked before it is joined to a path.
        name = data.get("name")
        if not isinstance(name, str) or file_name_problem(name) is not None:
            name = plain_file_name(name, f"{self._meta_path(release_id)}: asset record")  # refuses
        # Path.as_uri() of <dir>/<id>/assets/<name>, without a Path per asset
        return Asset(id=data["id"], name=data["name"], size=data["size"], digest=data["digest"],
                     state="uploaded", url=f"{self._uri}/{release_id}/assets/{quote_from_bytes(os.fsencode(name))}")

    def _mutable(self, data: dict) -> None:
        if not data["draft"]:
            raise ImmutableRelease(f"{self.where}: release {data['tag']} is published; its assets "
                                   "and tag cannot change")

    def _now(self) -> str:
        return self.clock().astimezone(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")

    # interface
    def list_releases(self) -> list[Release]:
        found: list[Release] = []
        if not self.directory.is_dir():
            return found  # nothing published yet; reading never creates the store
        for child in self.directory.iterdir():
            local_records.not_linked(child, self.where)
            if child.is_dir() and child.name.isdigit() and (child / "release.json").exists():
                found.append(self._release(self._record(child / "release.json", int(child.name))))
        return sorted(found, key=lambda r: -r.id)

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
        data = self._record(self._meta_path(release.id), release.id)
        return [self._asset(release.id, a) for a in data["assets"]]

    def upload_asset(self, release: Release, path: Path, name: str,
                     progress: ProgressBars | None = None) -> Asset:
        plain_file_name(name, f"{self.where}: upload")
        with self._lock:
            data = self._read(release.id)
            self._mutable(data)
            if any(a["name"] == name for a in data["assets"]):
                raise AssetExists(f"{self.where} release {data['tag']}: asset {name} already exists")
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
            data = self._read(release.id)
            self._mutable(data)
            if any(a["name"] == name for a in data["assets"]):
                raise AssetExists(f"{self.where} release {data['tag']}: asset {name} already exists")
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
        with local_records.open_asset(self.directory, release.id, asset.name, self.where) as handle:
            handle.seek(start)
            return handle.read(length)


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


# ------------------------------------------------------------------ choosing one


def open_store(kind: str | None, repo: str | None, store_dir: Path | None, root: Path,
               console: Console | None = None, env: Mapping[str, str] | None = None,
               read_only: bool = False, writes: bool = True) -> Store:
    """The store a command works on.

    ``github`` when asked for or when a repository is configured (``--repo`` or
    ``$GITHUB_REPOSITORY``); otherwise ``local`` in ``store_dir`` (default
    ``<root>/.cache/releases``). ``read_only``: a local store that does not exist is an
    error (``StoreError``, with a did-you-mean for a near miss), never an empty store.
    ``writes``: the command changes releases, so a missing token asks for ``contents: write``.
    """
    env = os.environ if env is None else env
    repo = repo or env.get("GITHUB_REPOSITORY") or None
    if kind is None:
        kind = "github" if repo else "local"
    if kind == "local":
        store = LocalStore(Path(store_dir) if store_dir else Path(root) / ".cache" / "releases")
        if read_only:
            store.require_existing("--store-dir" if store_dir else "local store")
        return store
    if kind != "github":
        raise UserError(f"--store {kind}: expected github or local")
    if not repo:
        raise UserError("--store github needs --repo OWNER/NAME (or $GITHUB_REPOSITORY)")
    parts = repo.split("/")
    if len(parts) != 2 or not all(parts):
        raise UserError(f"--repo {repo}: expected OWNER/NAME")
    return GitHubStore(GitHubClient.from_env(env, console=console, needs=PUBLISH if writes else READ_RELEASES),
                       parts[0], parts[1])
