"""The store interface every store keeps, and its refusals (``release.publish.stores`` chooses
one: ``GitHubStore`` there, ``LocalStore`` in ``release.publish.local_store``).

Both stores keep GitHub's semantics, so what a command does is the same on a laptop and in CI.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
from pathlib import Path
from typing import TYPE_CHECKING

from release.core.errors import UserError
from release.publish import notes
from release.publish.records import Asset as Asset
from release.publish.records import Published as Published
from release.publish.records import Release as Release
from release.publish.records import release_version as release_version
from release.sources import shapes
from release.sources.github_errors import (  # the errors alone: a local store loads no GitHub client
    GitHubError,
    UncertainWrite,
)

if TYPE_CHECKING:

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

    def vouch_asset(self, release: Release, asset: Asset) -> None:
        """Refuse (one line) an asset that is listed without being read when a read would refuse it;
        a store whose files are its own by construction (GitHub's) has nothing to check."""

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
