"""Each wheel's attestation bundle, a release asset beside it: ``<wheel>.jsonl``, as LLVM names them.

In GitHub Actions the upload job has GitHub attest each wheel (``actions/attest-build-provenance``:
a Sigstore bundle, a DSSE envelope over an in-toto statement naming the wheel and its sha256,
signed with a certificate naming the workflow and logged in Rekor). GitHub keeps it behind its
API; the workflow also writes it beside the wheel, one bundle per line, so it travels with the
release: anybody verifies it without a GitHub token, offline, with the Sigstore tools
(``sigstore verify github --bundle <wheel>.jsonl --repository OWNER/NAME <wheel>``, or the
sigstore library), against the public-good trust root.

This module holds what the tool itself checks, without Sigstore: each line is a Sigstore bundle
whose in-toto statement names the wheel beside it with its sha256 (a bundle of another build, or
copied beside the wrong wheel, is refused). The signature is Sigstore's to verify.
"""

from __future__ import annotations

import base64
import binascii
import json

SUFFIX = ".jsonl"
BUNDLE_MEDIA_TYPE = "application/vnd.dev.sigstore.bundle"  # + ".v0.3+json" and the older forms
IN_TOTO = "application/vnd.in-toto+json"


def file_name(wheel: str) -> str:
    return wheel + SUFFIX


def is_bundle(name: str) -> bool:
    """``<wheel>.jsonl``: the attestation bundles of the wheel of that name."""
    return name.endswith(".whl" + SUFFIX)


def wheel_of(name: str) -> str:
    return name[:-len(SUFFIX)]


def subjects(line: str) -> list[tuple[str, str]]:
    """(name, sha256) of each subject of one bundle's in-toto statement; ``ValueError`` saying
    what is wrong when the line is not such a bundle."""
    try:
        bundle = json.loads(line)
    except ValueError:
        raise ValueError("not JSON") from None
    media = bundle.get("mediaType") if isinstance(bundle, dict) else None
    if not isinstance(bundle, dict) or not str(media).startswith(BUNDLE_MEDIA_TYPE):
        raise ValueError(f"not a Sigstore bundle (mediaType {str(media)[:60]!r})")
    envelope = bundle.get("dsseEnvelope")
    if not isinstance(envelope, dict) or envelope.get("payloadType") != IN_TOTO:
        raise ValueError(f"its DSSE envelope carries no {IN_TOTO} statement")
    try:
        statement = json.loads(base64.b64decode(str(envelope.get("payload", "")), validate=True))
    except (binascii.Error, ValueError):
        raise ValueError("its statement is not base64 JSON") from None
    found = statement.get("subject") if isinstance(statement, dict) else None
    if not isinstance(found, list):
        raise ValueError("its statement has no subjects")
    return [(str(s.get("name")), str((s.get("digest") or {}).get("sha256")))
            for s in found if isinstance(s, dict) and isinstance(s.get("digest"), dict)]


def problems(name: str, text: str, wheel_sha256: str | None) -> list[str]:
    """What is wrong with the bundle asset ``name`` (``<wheel>.jsonl``) of the wheel whose sha256
    is ``wheel_sha256`` (None: the release has no such wheel)."""
    wheel = wheel_of(name)
    if wheel_sha256 is None:
        return [f"{name}: an attestation bundle of {wheel}, which is not an asset"]
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines:
        return [f"{name}: no attestation bundle in it"]
    out = []
    for n, line in enumerate(lines, 1):
        try:
            named = subjects(line)
        except ValueError as exc:
            out.append(f"{name}, line {n}: {exc}")
            continue
        if not any(digest == wheel_sha256 for _, digest in named):
            shown = ", ".join(f"{s} {d[:12]}..." for s, d in named[:3]) or "nothing"
            out.append(f"{name}, line {n}: attests {shown}, not {wheel} ({wheel_sha256[:12]}...)")
    return out
