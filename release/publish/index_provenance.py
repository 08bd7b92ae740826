"""PEP 740 provenance on the channel indexes, built from each wheel's attestation bundle.

A release may carry, beside a wheel, its Sigstore attestation bundle as ``<wheel>.jsonl`` (one
bundle a line, as GitHub's ``actions/attest-build-provenance`` writes them and LLVM attaches
them): that is the seam with the step that signs. For each listed wheel with one, the index
writes ``<channel>/<project>/<wheel>.provenance``, the PEP 740 provenance object PyPI serves
(``{"version": 1, "attestation_bundles": [{"publisher": ..., "attestations": [...]}]}``, each
attestation the bundle's certificate, transparency log entries and DSSE statement and
signature), and names it in the page's entry (JSON ``provenance``, HTML ``data-provenance``),
so an installer or ``pypi-attestations`` verifies the wheel against it offline. A bundle whose
statement does not name exactly this wheel and sha256, or that is not a bundle, gives no
provenance (said once); nothing else changes. The objects are kept in the site's state by the
bundle's sha256, so a re-run reads no bundle it read before; publish makes each object once and
stores it beside its bundle, which the index copies when it is bound
(``release.publish.stored_provenance``).
"""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any

from release.core import bounded

BUNDLE_SUFFIX = ".jsonl"
PROVENANCE_SUFFIX = ".provenance"
BUNDLE_LIMIT = 1 << 20  # a bundle is a few KB; more is not one


class BundleError(ValueError):
    """An attestation bundle that cannot stand for the wheel beside it."""


def _b64(value: object, what: str) -> bytes:
    if not isinstance(value, str):
        raise BundleError(f"no {what}")
    try:
        return base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        raise BundleError(f"{what} is not base64") from None


def _publisher(statement: dict) -> dict:
    """The GitHub publisher of a SLSA v1 statement (its workflow's repository and file)."""
    workflow = ((statement.get("predicate") or {}).get("buildDefinition") or {}).get("externalParameters", {})
    workflow = workflow.get("workflow") if isinstance(workflow, dict) else None
    if not isinstance(workflow, dict):
        raise BundleError("the statement names no workflow (a SLSA v1 build by GitHub Actions)")
    repo, path = workflow.get("repository"), workflow.get("path")
    if not (isinstance(repo, str) and repo.startswith("https://github.com/") and isinstance(path, str)):
        raise BundleError("the statement's workflow has no GitHub repository and path")
    return {"kind": "GitHub", "repository": repo.removeprefix("https://github.com/").strip("/"),
            "workflow": path.rsplit("/", 1)[-1]}


def attestation(bundle: Any, filename: str, sha256: str) -> tuple[dict, dict]:
    """(PEP 740 attestation, publisher) of one Sigstore bundle whose DSSE statement names
    exactly ``filename`` with ``sha256``."""
    if not isinstance(bundle, dict):
        raise BundleError("not a bundle object")
    material = bundle.get("verificationMaterial") or {}
    envelope = bundle.get("dsseEnvelope") or {}
    cert = (material.get("certificate") or {}).get("rawBytes")
    if cert is None:  # bundles before v0.3 carry a chain
        chain = (material.get("x509CertificateChain") or {}).get("certificates") or [{}]
        cert = chain[0].get("rawBytes") if isinstance(chain[0], dict) else None
    _b64(cert, "certificate")
    entries = material.get("tlogEntries")
    if not isinstance(entries, list) or not entries:
        raise BundleError("no transparency log entry")
    signatures = envelope.get("signatures")
    if not isinstance(signatures, list) or len(signatures) != 1 or not isinstance(signatures[0], dict):
        raise BundleError("expected a DSSE envelope with one signature")
    payload = envelope.get("payload")
    try:
        statement = json.loads(_b64(payload, "statement"))
    except ValueError:
        raise BundleError("the statement is not JSON") from None
    subjects = statement.get("subject") if isinstance(statement, dict) else None
    if not (isinstance(subjects, list) and [(s.get("name"), (s.get("digest") or {}).get("sha256"))
                                            for s in subjects if isinstance(s, dict)] == [(filename, sha256)]):
        raise BundleError(f"its statement's subject is not exactly {filename} with its sha256")
    _b64(signatures[0].get("sig"), "signature")
    return ({"version": 1, "verification_material": {"certificate": cert, "transparency_entries": entries},
             "envelope": {"statement": payload, "signature": signatures[0]["sig"]}}, _publisher(statement))


def provenance(text: str, filename: str, sha256: str) -> dict:
    """The PEP 740 provenance object of a ``.jsonl`` of bundles (one a line) for one wheel."""
    bundles: dict[str, dict] = {}
    for line in text.splitlines():
        if not line.strip():
            continue
        try:
            data = bounded.json_loads(line)
        except ValueError:
            raise BundleError("a line is not JSON") from None
        made, publisher = attestation(data, filename, sha256)
        key = json.dumps(publisher, sort_keys=True)
        bundles.setdefault(key, {"publisher": publisher, "attestations": []})["attestations"].append(made)
    if not bundles:
        raise BundleError("no bundle")
    return {"version": 1, "attestation_bundles": list(bundles.values())}
