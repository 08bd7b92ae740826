"""What a listed wheel's index entry needs beyond its asset record, read once and kept.

Its sha256, ``Requires-Python`` and the sha256 of its METADATA come from the last run's state
when the sha256 is known there, else from its release's notes (``release.publish.wheel_record``:
worked out when the draft was made, for the bytes of that sha256), else from the store: a few
range reads of the wheel's end (``release.publish.ranged``), or one download when the store
records no digest.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from release.core import core_metadata
from release.core.checksums import sha256_file
from release.core.core_metadata import requires_python
from release.publish import index_provenance, notes, stored_provenance
from release.publish.ranged import remote_metadata
from release.publish.staging import Tree, write_json
from release.publish.wheel_record import recorded

if TYPE_CHECKING:
    from release.core.output import ProgressBars, Say
    from release.publish.records import Asset, Release
    from release.publish.stores import Store


class PublishedWheel(Protocol):
    """A listed wheel asset (``release.publish.index.PublishedWheel``) and its siblings."""

    release: Release
    asset: Asset
    metadata: Asset | None
    bundle: Asset | None
    stored: Asset | None


def wheel_metadata(path: Path) -> bytes:
    """The METADATA file of a wheel, byte for byte."""
    return core_metadata.read(path, path.name)


class WheelFacts:
    """What a listed wheel's entry needs beyond its asset record (its sha256, Requires-Python and
    the sha256 of its METADATA), from the last run's state when the sha256 is known there, else
    from the release's notes when they record that sha256's facts, else read from the store: a
    few range reads of the wheel's end, or one download when the store records no digest."""

    def __init__(self, store: Store, known: dict, say: Say, progress: ProgressBars | None):
        self.store, self.known, self.say, self.progress = store, known, say, progress
        self.used: dict[str, dict] = {}
        self.range_reads = 0
        self.downloads: list[str] = []

    def __call__(self, w: PublishedWheel) -> tuple[str, str | None, str | None]:
        """(the wheel's sha256, its Requires-Python, the sha256 of its PEP 658 metadata file
        when the release has one that is exactly its METADATA, else None)."""
        digest = w.asset.digest
        cached = self.known.get(digest) if digest else None
        requires: str | None
        if digest is None:
            digest, requires, meta_sha = self._download(w)
        elif (isinstance(cached, dict) and cached.get("size") == w.asset.size and "requires_python" in cached
              and isinstance(cached.get("metadata_sha256"), str)):
            self.store.vouch_asset(w.release, w.asset)  # listed unread: still never through a link
            requires, meta_sha = cached["requires_python"], cached["metadata_sha256"]
        elif (row := recorded(notes.of(w.release).index_facts, w.asset.name, digest)) is not None:
            self.store.vouch_asset(w.release, w.asset)
            requires, meta_sha = row.requires_python, row.metadata_sha256
        else:
            meta, reads = remote_metadata(lambda start, n: self.store.read_asset_range(w.release, w.asset, start, n),
                                          w.asset.size, w.asset.name)
            self.range_reads += reads
            requires, meta_sha = requires_python(meta), hashlib.sha256(meta).hexdigest()
        self.used[digest] = {"size": w.asset.size, "requires_python": requires, "metadata_sha256": meta_sha}
        return (digest, requires if isinstance(requires, str) else None,
                meta_sha if self._sidecar_digest(w) == meta_sha else None)

    def _sidecar_digest(self, w: PublishedWheel) -> str | None:
        """The sha256 of the wheel's metadata asset (a store that records none: hashed here, it is small)."""
        if w.metadata is None:
            return None
        if w.metadata.digest is not None:
            return w.metadata.digest
        import tempfile  # only for a store that records no digest

        with tempfile.TemporaryDirectory(prefix="release-index-") as tmp:
            part = self.store.download_asset(w.release, w.metadata, Path(tmp) / "metadata")
            self.downloads.append(w.metadata.name)
            return sha256_file(part)

    def _download(self, w: PublishedWheel) -> tuple[str, str | None, str]:
        self.say(f"fetch {w.asset.name} from {w.release.tag} (the store records no sha256 for it)")
        import tempfile  # only for a store that records no digest

        with tempfile.TemporaryDirectory(prefix="release-index-") as tmp:
            part = Path(tmp) / w.asset.name
            self.store.download_asset(w.release, w.asset, part, progress=self.progress)
            self.downloads.append(w.asset.name)
            meta = wheel_metadata(part)
            return sha256_file(part), requires_python(meta), hashlib.sha256(meta).hexdigest()


class Provenances:
    """Writes the PEP 740 provenance object of each listed wheel with an attestation bundle
    (``release.publish.index_provenance``): linked from the old site when the last run wrote it
    for the same bundle and wheel (its state maps their sha256s to the file), else copied from
    the object publish stored beside the bundle when the wheel's row binds it
    (``release.publish.stored_provenance``), else built from the bundle asset (one small read
    each way). The objects are not kept in the state: a year of them is tens of MB, which every
    run would parse and write again."""

    def __init__(self, store: Store, known: dict, say: Say, old_site: Path, tree: Tree):
        self.store, self.known, self.say, self.old_site, self.tree = store, known, say, old_site, tree
        self.used: dict[str, str] = {}
        self.reads = 0
        self.copies = 0

    def __call__(self, w: PublishedWheel, sha256: str, rel: str) -> bool:
        """Whether ``rel`` (the site's path for the wheel's provenance) now holds it."""
        bundle = w.bundle
        if bundle is None:
            return False
        key = f"{bundle.digest}:{sha256}" if bundle.digest else None
        before = self.known.get(key) if key else None
        if not (isinstance(before, str) and before == rel and self.tree.link(rel, os.path.join(self.old_site, rel))):
            made = self._stored(w, sha256)
            if made is None and (made := self._built(w, bundle, sha256)) is None:
                return False
            self.tree.write(rel, made)
        if key:
            self.used[key] = rel
        return True

    def _stored(self, w: PublishedWheel, sha256: str) -> bytes | None:
        """The object publish stored, when the wheel's row binds it to the store's digests and
        the bytes read are those."""
        stored = w.stored
        if stored is None or stored.size > index_provenance.BUNDLE_LIMIT or not stored_provenance.bound(
                recorded(notes.of(w.release).index_facts, w.asset.name, sha256), sha256, w.bundle, stored):
            return None
        self.copies += 1
        return stored_provenance.vouched(self.store.read_asset_range(w.release, stored, 0, stored.size), stored)

    def _built(self, w: PublishedWheel, bundle: Asset, sha256: str) -> bytes | None:
        """The object built from the bundle, or None (said once) when it gives none."""
        pep740 = index_provenance
        try:
            if bundle.size > pep740.BUNDLE_LIMIT:
                raise pep740.BundleError(f"{bundle.size} bytes; a bundle is a few KB")
            text = self.store.read_asset_range(w.release, bundle, 0, bundle.size).decode("utf-8")
            self.reads += 1
            return write_json(pep740.provenance(text, w.asset.name, sha256))
        except (pep740.BundleError, UnicodeDecodeError) as exc:
            self.say(f"warning: {bundle.name} of {w.release.tag}: {exc}; {w.asset.name} is listed "
                     "without PEP 740 provenance")
            return None
