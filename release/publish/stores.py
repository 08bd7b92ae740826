"""Where releases live: a GitHub repository or a local directory, behind one small interface.

Both stores keep GitHub's semantics so every command behaves the same on a laptop
and in CI: releases start as drafts, several drafts may share a tag, a draft is
found by listing (GitHub's get-by-tag cannot see drafts), an asset name is unique
within a release (no overwrite: upload, delete, rename), and a published release
is immutable (no asset added, removed or renamed; one published release per tag).
What to publish is decided elsewhere (``release.publish.drafts``); stores only do it.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Mapping
from urllib.parse import quote

from release.core import bodies
from release.core.errors import UserError
from release.publish.local_store import LocalStore as LocalStore
from release.publish.records import Asset as Asset
from release.publish.records import Published as Published
from release.publish.records import Release as Release
from release.publish.records import release_version as release_version
from release.publish.store_base import AssetExists as AssetExists
from release.publish.store_base import ImmutableRelease as ImmutableRelease
from release.publish.store_base import Store as Store
from release.publish.store_base import StoreError as StoreError
from release.publish.store_base import TagTaken as TagTaken
from release.publish.store_base import _answer_time
from release.sources import shapes
from release.sources.github_errors import GitHubError, MalformedAnswer

if TYPE_CHECKING:  # the GitHub client (requests' socket, threads, deadlines) only for a GitHub store
    from rich.console import Console

    from release.core.output import ProgressBars
    from release.sources.github import GitHubClient, Permission


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
        from release.sources import asset_ranges  # here: a local store's run never loads the client
        if asset.url.startswith(("https://", "http://")):  # public repositories: no API request at all
            found = asset_ranges.read_public_range(self.client, asset.url, start, length)
            if found is not None:
                return found
        if asset.api_url is None:
            raise StoreError(f"{self.where}: asset {asset.name} was not listed from GitHub; nothing to read")
        return asset_ranges.read_range(self.client, asset.api_url, start, length)


# ------------------------------------------------------------------ local directory


# ------------------------------------------------------------------ choosing one


def store_kind(kind: str | None, repo: str | None, env: Mapping[str, str] | None = None) -> str:
    """The kind of store ``open_store`` opens for these flags: ``kind`` when given, else
    ``github`` when a repository is named (``repo`` or ``$GITHUB_REPOSITORY``), else ``local``."""
    env = os.environ if env is None else env
    if kind is not None:
        return kind
    return "github" if repo or env.get("GITHUB_REPOSITORY") else "local"


def open_store(kind: str | None, repo: str | None, store_dir: Path | None, root: Path,
               console: Console | None = None, env: Mapping[str, str] | None = None,
               read_only: bool = False, needs: Permission | None = None) -> Store:
    """The store a command works on.

    ``github`` when asked for or when a repository is configured (``--repo`` or
    ``$GITHUB_REPOSITORY``); otherwise ``local`` in ``store_dir`` (default
    ``<root>/.cache/releases``). ``read_only``: a local store that does not exist is an
    error (``StoreError``, with a did-you-mean for a near miss), never an empty store.
    ``needs``: what the command does with the releases and the permission that takes, for the
    line a missing token gets (``release.sources.github.Permission``; None: publishing).
    """
    env = os.environ if env is None else env
    repo = repo or env.get("GITHUB_REPOSITORY") or None
    kind = store_kind(kind, repo, env)
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
    from release.sources.github import PUBLISH, GitHubClient
    return GitHubStore(GitHubClient.from_env(env, console=console, needs=PUBLISH if needs is None else needs),
                       parts[0], parts[1])
