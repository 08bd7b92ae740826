"""Each wheel's PEP 740 provenance object, made once by publish and kept beside its bundle.

The index serves, beside each wheel with an attestation bundle (``<wheel>.jsonl``), the PEP 740
provenance object of that bundle (``release.publish.index_provenance``). Building it means
parsing the bundle, decoding its statement and encoding the object: a quarter of a run from an
empty SITE over a season. Publish holds the bundle and the wheel's sha256 when it makes the
draft, so it makes the object there, once, as the release asset ``<wheel>.provenance`` (the
bytes the index would write), and records its sha256 and the bundle's in the wheel's row of
the notes (``release.publish.wheel_record``).

The index copies those bytes only when the row binds them: the row is the wheel's (its sha256
is the store's digest of the wheel), its bundle sha256 is the store's digest of the bundle, its
provenance sha256 the store's digest of the stored object and of the bytes read. Anything else
(a release published before this, a bundle or object replaced or edited since, a row edited by
hand) and the index builds the object from the bundle as before: the site is the same bytes
either way.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Mapping

from release.core import bundles
from release.core.checksums import sha256_file
from release.publish import index_provenance
from release.publish.staging import write_json

if TYPE_CHECKING:
    from release.publish.stores import Asset
    from release.publish.wheel_record import Facts

SUFFIX = index_provenance.PROVENANCE_SUFFIX


def file_name(wheel: str) -> str:
    """``<wheel>.provenance``: the name the site serves it under, as an asset of the release."""
    return wheel + SUFFIX


def is_stored(name: str) -> bool:
    return name.endswith(".whl" + SUFFIX)


def encode(bundle: bytes, wheel: str, sha256: str) -> bytes | None:
    """The bytes the index writes for ``wheel`` (whose sha256 is ``sha256``) from its bundle
    file; None when the bundle gives no provenance, as the index reads it (UTF-8, strictly: it
    says why, and lists the wheel without it; nor past its size limit)."""
    if len(bundle) > index_provenance.BUNDLE_LIMIT:
        return None
    try:
        return write_json(index_provenance.provenance(bundle.decode("utf-8"), wheel, sha256))
    except (index_provenance.BundleError, UnicodeDecodeError):
        return None


def made(wheels: Iterable[tuple[str, str]], bundle_files: Mapping[str, Path]) -> dict[str, bytes]:
    """The stored object of each wheel ``(name, sha256)`` with a bundle file (by the bundle's
    name), by the object's asset name."""
    out = {}
    for name, sha256 in wheels:
        path = bundle_files.get(bundles.file_name(name))
        if path is None:
            continue
        data = encode(path.read_bytes(), name, sha256)
        if data is not None:
            out[file_name(name)] = data
    return out


def bound(row: Facts | None, wheel_sha256: str, bundle: Asset | None, stored: Asset | None) -> bool:
    """Whether the wheel's row binds the stored object to the bundle and the wheel the store
    holds now: every sha256 it names is the store's digest of that asset."""
    return (row is not None and row.sha256 == wheel_sha256 and bundle is not None and stored is not None
            and bundle.digest is not None and row.bundle_sha256 == bundle.digest
            and stored.digest is not None and row.provenance_sha256 == stored.digest)


def vouched(data: bytes, stored: Asset) -> bytes | None:
    """The bytes read of the stored object when they hash to the digest the row bound, else None."""
    return data if hashlib.sha256(data).hexdigest() == stored.digest else None


def problems(files: Mapping[str, Path]) -> list[str]:
    """``release validate``'s check of a release's stored objects: each is exactly the object of
    the bundle and wheel beside it (so it needs no SHA256SUMS entry: it is made of two that have
    one)."""
    out = []
    for name in sorted(n for n in files if is_stored(n)):
        wheel = name[:-len(SUFFIX)]
        bundle = files.get(bundles.file_name(wheel))
        if wheel not in files or bundle is None:
            out.append(f"{name}: a PEP 740 provenance object of {wheel}, which has no "
                       f"{'wheel' if wheel not in files else 'attestation bundle'} asset")
            continue
        sha256 = sha256_file(files[wheel])
        if encode(bundle.read_bytes(), wheel, sha256) != files[name].read_bytes():
            out.append(f"{name}: not the PEP 740 provenance object of {bundle.name}; publish the release "
                       "again to make it anew")
    return out
