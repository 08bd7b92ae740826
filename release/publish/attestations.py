"""PEP 740 attestations for the PyPI upload: one single-subject statement per wheel.

PyPI accepts an in-toto statement with exactly one subject, the uploaded file, so the
set-level provenance (``provenance.intoto.json``, every wheel in one statement; it stays
as it is) is narrowed per wheel: ``wheel_statement`` names only that wheel and its sha256
and keeps the predicate's SLSA fields whole (the same pins, parameters, builder and
invocation), leaving out only this project's extension fields, which Sigstore refuses.

Signing needs a Sigstore certificate for the job's OIDC identity, which only CI has. So
this module writes what gets signed (``write_for_signing``: the SLSA predicate, beside the
staged wheels) and checks what comes back (``load_attestation``): an attestation file
``<wheel>.<kind>.attestation`` (twine's naming) whose statement names exactly that wheel and
sha256 and carries the set-level predicate. The workflow signs with Sigstore's own tools
(README, "Publishing to PyPI"); the signature itself is verified by the index on upload.
"""

from __future__ import annotations

import base64
import binascii
import copy
import json
from pathlib import Path
from typing import Mapping

from release.build.provenance_schema import PREDICATE_TYPE, STATEMENT_TYPE
from release.core import regular
from release.core.errors import UserError

PREDICATE_FILE = "predicate.slsa.json"
PUBLISH_PREDICATE = "https://docs.pypi.org/attestations/publish/v1"
ACCEPTED_PREDICATES = (PREDICATE_TYPE, PUBLISH_PREDICATE)  # what PyPI verifies today


# SLSA provenance v1's own fields: Sigstore's tools refuse a predicate with any other, so the
# set-level statement's extension fields (its ``jaxrocm_signing`` note) stay out of the signed one.
_SLSA_FIELDS = {"buildDefinition": ("buildType", "externalParameters", "internalParameters",
                                    "resolvedDependencies"),
                "runDetails": ("builder", "metadata", "byproducts")}
_RUN_FIELDS = {"builder": ("id", "builderDependencies", "version"),
               "metadata": ("invocationId", "startedOn", "finishedOn")}


def signing_predicate(provenance: Mapping) -> dict:
    """The set-level predicate with SLSA v1's fields only: the same build definition (pins,
    parameters), builder and invocation; without the extension fields."""
    predicate = provenance.get("predicate")
    if not isinstance(predicate, dict):
        raise UserError("provenance.intoto.json: no predicate object")
    out: dict = {}
    for part, keys in _SLSA_FIELDS.items():
        section = predicate.get(part)
        if isinstance(section, dict):
            out[part] = {k: copy.deepcopy(section[k]) for k in keys if k in section}
    run = out.get("runDetails", {})
    for part, keys in _RUN_FIELDS.items():
        if isinstance(run.get(part), dict):
            run[part] = {k: v for k, v in run[part].items() if k in keys}
    return out


def wheel_statement(provenance: Mapping, name: str, sha256: str) -> dict:
    """The set-level statement narrowed to one wheel: its one subject, the same predicate
    (``signing_predicate``)."""
    subjects = [s for s in provenance.get("subject", []) if isinstance(s, dict) and s.get("name") == name]
    if len(subjects) != 1 or (subjects[0].get("digest") or {}).get("sha256") != sha256:
        raise UserError(f"provenance.intoto.json: no subject {name} with sha256 {sha256[:12]}...; "
                        "the provenance does not cover this wheel")
    return {"_type": STATEMENT_TYPE, "subject": [{"name": name, "digest": {"sha256": sha256}}],
            "predicateType": provenance.get("predicateType", PREDICATE_TYPE),
            "predicate": signing_predicate(provenance)}


def write_for_signing(directory: Path, provenance: Mapping, wheels: Mapping[str, str]) -> list[Path]:
    """The predicate Sigstore's ``attest`` signs per wheel, and each wheel's unsigned statement
    (``<wheel>.intoto.json``, for people and for ``release verify``-style checks)."""
    from release.core.atomic import atomic_write

    directory.mkdir(parents=True, exist_ok=True)
    written = [directory / PREDICATE_FILE]
    atomic_write(written[0], json.dumps(signing_predicate(provenance), indent=2, sort_keys=True) + "\n")
    for name, sha256 in sorted(wheels.items()):
        path = directory / f"{name}.intoto.json"
        atomic_write(path, json.dumps(wheel_statement(provenance, name, sha256), indent=2) + "\n")
        written.append(path)
    return written


def attestation_files(directory: Path, name: str) -> list[Path]:
    """``<wheel>.*.attestation`` beside the staged wheel (twine's convention)."""
    return sorted(p for p in directory.glob(f"{name}.*.attestation") if p.is_file())


def _b64(value: object, where: str) -> bytes:
    if not isinstance(value, str) or not value:
        raise UserError(f"{where}: missing; expected base64 text")
    try:
        return base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        raise UserError(f"{where}: not base64") from None


def check_attestation(data: object, where: str, *, name: str, sha256: str, provenance: Mapping) -> dict:
    """An attestation object (PEP 740) that can go up with ``name``: version 1, a certificate and
    a signature, and an in-toto v1 statement with exactly one subject, ``name`` with ``sha256``.
    A SLSA statement must carry the set-level predicate (the same pins). Returns the object."""
    if not isinstance(data, dict) or data.get("version") != 1:
        raise UserError(f"{where}: not a PEP 740 attestation object (expected version 1)")
    material, envelope = data.get("verification_material"), data.get("envelope")
    if not isinstance(material, dict) or not isinstance(envelope, dict):
        raise UserError(f"{where}: expected verification_material and envelope objects")
    _b64(material.get("certificate"), f"{where}: verification_material.certificate")
    if not isinstance(material.get("transparency_entries"), list) or not material["transparency_entries"]:
        raise UserError(f"{where}: verification_material.transparency_entries: expected at least one")
    _b64(envelope.get("signature"), f"{where}: envelope.signature")
    try:
        stmt = json.loads(_b64(envelope.get("statement"), f"{where}: envelope.statement"))
    except ValueError:
        raise UserError(f"{where}: envelope.statement is not JSON") from None
    if not isinstance(stmt, dict) or stmt.get("_type") != STATEMENT_TYPE:
        raise UserError(f"{where}: the statement is not an in-toto v1 Statement")
    subjects = stmt.get("subject")
    if not isinstance(subjects, list) or len(subjects) != 1 or not isinstance(subjects[0], dict):
        raise UserError(f"{where}: the statement has {len(subjects) if isinstance(subjects, list) else 'no'} "
                        "subjects; PyPI accepts exactly one")
    subject = subjects[0]
    found = (subject.get("digest") or {}).get("sha256") if isinstance(subject.get("digest"), dict) else None
    if subject.get("name") != name or found != sha256:
        raise UserError(f"{where}: the statement names {subject.get('name')!r} with sha256 "
                        f"{str(found)[:12]}..., not {name} with {sha256[:12]}...")
    kind = stmt.get("predicateType")
    if kind not in ACCEPTED_PREDICATES:
        raise UserError(f"{where}: predicateType {kind!r}; PyPI accepts {', '.join(ACCEPTED_PREDICATES)}")
    if kind == PREDICATE_TYPE and stmt.get("predicate") != signing_predicate(provenance):
        raise UserError(f"{where}: its SLSA predicate differs from provenance.intoto.json's (other "
                        "pins or another run); sign the predicate this release carries")
    return data


def load_attestations(directory: Path, name: str, sha256: str, provenance: Mapping) -> list[dict]:
    """Every ``<wheel>.*.attestation`` of ``name`` in ``directory``, each checked; at most one per
    predicate type (PyPI refuses two)."""
    found, kinds = [], set()
    for path in attestation_files(directory, name):
        try:
            data = json.loads(regular.read_text(path))
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            raise UserError(f"{path}: not a JSON attestation ({type(exc).__name__})") from None
        checked = check_attestation(data, str(path), name=name, sha256=sha256, provenance=provenance)
        kind = json.loads(base64.b64decode(checked["envelope"]["statement"]))["predicateType"]
        if kind in kinds:
            raise UserError(f"{path}: a second {kind} attestation of {name}; PyPI takes one per type")
        kinds.add(kind)
        found.append(checked)
    return found
