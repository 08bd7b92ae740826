"""A Sigstore bundle made here, offline: a throwaway certificate authority, certificate-transparency
log and transparency log, and a DSSE in-toto statement signed as GitHub's attest action signs one
(a short-lived certificate naming the workflow, its SCT, a Rekor ``dsse`` entry with an inclusion
proof, a signed checkpoint and a signed entry timestamp). ``trusted_root_json`` is the trust root
that names these keys, so the sigstore library verifies the bundle with no network and nothing
mocked; only the keys are ours instead of the public-good instance's.

    signer = Signer.new()
    line = signer.bundle_line(statement)          # one line of a <wheel>.jsonl asset
    root = signer.trusted_root_json()             # for sigstore.models.TrustedRoot.from_file
"""

from __future__ import annotations

import base64
import dataclasses
import datetime as _dt
import hashlib
import json
import struct

import rfc8785
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, ExtensionOID, NameOID

WHEN = _dt.datetime(2026, 11, 20, 3, 0, tzinfo=_dt.timezone.utc)
ISSUER = "https://token.actions.githubusercontent.com"
WORKFLOW = "https://github.com/example/jax-rocm-release/.github/workflows/build-wheels.yml@refs/heads/main"
LOG_ORIGIN = "rekor.example.invalid"
PAYLOAD_TYPE = "application/vnd.in-toto+json"
_ISSUER_OID = x509.ObjectIdentifier("1.3.6.1.4.1.57264.1.1")  # Fulcio's OIDC issuer (v1, raw text)


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def _spki(key: ec.EllipticCurvePrivateKey) -> bytes:
    return key.public_key().public_bytes(serialization.Encoding.DER,
                                         serialization.PublicFormat.SubjectPublicKeyInfo)


def _der_octets(data: bytes) -> bytes:
    """DER OCTET STRING (the SCT list extension's value)."""
    n = len(data)
    size = (n.bit_length() + 7) // 8
    length = bytes([n]) if n < 0x80 else bytes([0x80 | size]) + n.to_bytes(size, "big")
    return b"\x04" + length + data


def _sign(key: ec.EllipticCurvePrivateKey, data: bytes) -> bytes:
    return key.sign(data, ec.ECDSA(hashes.SHA256()))


@dataclasses.dataclass
class Signer:
    ca_key: ec.EllipticCurvePrivateKey
    ct_key: ec.EllipticCurvePrivateKey
    log_key: ec.EllipticCurvePrivateKey
    ca: x509.Certificate
    identity: str = WORKFLOW

    @classmethod
    def new(cls, identity: str = WORKFLOW) -> "Signer":
        ca_key, ct_key, log_key = (ec.generate_private_key(ec.SECP256R1()) for _ in range(3))
        name = x509.Name([x509.NameAttribute(NameOID.ORGANIZATION_NAME, "test"),
                          x509.NameAttribute(NameOID.COMMON_NAME, "offline fulcio")])
        ca = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(ca_key.public_key())
              .serial_number(1).not_valid_before(WHEN - _dt.timedelta(days=30))
              .not_valid_after(WHEN + _dt.timedelta(days=30))
              .add_extension(x509.BasicConstraints(ca=True, path_length=1), critical=True)
              .add_extension(x509.KeyUsage(False, False, False, False, False, True, True, False, False), critical=True)
              .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), critical=False)
              .sign(ca_key, hashes.SHA256()))
        return cls(ca_key, ct_key, log_key, ca, identity)

    def _leaf(self, key: ec.EllipticCurvePrivateKey) -> x509.Certificate:
        """A ten-minute certificate for ``key`` naming the workflow, with its embedded SCT (RFC 6962)."""
        builder = (x509.CertificateBuilder().subject_name(x509.Name([])).issuer_name(self.ca.subject)
                   .public_key(key.public_key()).serial_number(2)
                   .not_valid_before(WHEN - _dt.timedelta(minutes=5)).not_valid_after(WHEN + _dt.timedelta(minutes=5))
                   .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
                   .add_extension(x509.KeyUsage(True, False, False, False, False, False, False, False, False),
                                  critical=True)
                   .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.CODE_SIGNING]), critical=False)
                   .add_extension(x509.SubjectAlternativeName([x509.UniformResourceIdentifier(self.identity)]),
                                  critical=True)
                   .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(self.ca_key.public_key()),
                                  critical=False)
                   .add_extension(x509.UnrecognizedExtension(_ISSUER_OID, ISSUER.encode()), critical=False))
        precert_tbs = builder.sign(self.ca_key, hashes.SHA256()).tbs_certificate_bytes
        millis = int(WHEN.timestamp() * 1000)
        signed = (struct.pack("!BBQH", 0, 0, millis, 1) + hashlib.sha256(_spki(self.ca_key)).digest()
                  + len(precert_tbs).to_bytes(3, "big") + precert_tbs + b"\x00\x00")
        signature = _sign(self.ct_key, signed)
        sct = (b"\x00" + hashlib.sha256(_spki(self.ct_key)).digest() + struct.pack("!QH", millis, 0)
               + struct.pack("!BBH", 4, 3, len(signature)) + signature)
        sct_list = struct.pack("!HH", len(sct) + 2, len(sct)) + sct
        return builder.add_extension(
            x509.UnrecognizedExtension(ExtensionOID.PRECERT_SIGNED_CERTIFICATE_TIMESTAMPS, _der_octets(sct_list)),
            critical=False).sign(self.ca_key, hashes.SHA256())

    def bundle(self, statement: dict) -> dict:
        """A Sigstore bundle (v0.3) of the DSSE envelope over ``statement``, logged in our Rekor."""
        key = ec.generate_private_key(ec.SECP256R1())
        cert = self._leaf(key)
        payload = json.dumps(statement).encode()
        pae = b"DSSEv1 %d %s %d " % (len(PAYLOAD_TYPE), PAYLOAD_TYPE.encode(), len(payload)) + payload
        signature = _sign(key, pae)
        envelope = {"payload": _b64(payload), "payloadType": PAYLOAD_TYPE, "signatures": [{"sig": _b64(signature)}]}
        pem = cert.public_bytes(serialization.Encoding.PEM)
        body = rfc8785.dumps({"apiVersion": "0.0.1", "kind": "dsse", "spec": {
            "envelopeHash": {"algorithm": "sha256", "value": hashlib.sha256(rfc8785.dumps(envelope)).hexdigest()},
            "payloadHash": {"algorithm": "sha256", "value": hashlib.sha256(payload).hexdigest()},
            "signatures": [{"signature": _b64(signature), "verifier": _b64(pem)}]}})
        log_id = hashlib.sha256(_spki(self.log_key)).digest()
        root = hashlib.sha256(b"\x00" + body).digest()  # a tree of one leaf: the root is the leaf's hash
        note = f"{LOG_ORIGIN}\n1\n{_b64(root)}\n"
        checkpoint = note + f"\n\u2014 {LOG_ORIGIN} {_b64(log_id[:4] + _sign(self.log_key, note.encode()))}\n"
        when = int(WHEN.timestamp())
        promise = rfc8785.dumps({"body": _b64(body), "integratedTime": when, "logID": log_id.hex(), "logIndex": 0})
        entry = {"logIndex": "0", "logId": {"keyId": _b64(log_id)}, "kindVersion": {"kind": "dsse", "version": "0.0.1"},
                 "integratedTime": str(when), "canonicalizedBody": _b64(body),
                 "inclusionPromise": {"signedEntryTimestamp": _b64(_sign(self.log_key, promise))},
                 "inclusionProof": {"logIndex": "0", "rootHash": _b64(root), "treeSize": "1", "hashes": [],
                                    "checkpoint": {"envelope": checkpoint}}}
        der = cert.public_bytes(serialization.Encoding.DER)
        return {"mediaType": "application/vnd.dev.sigstore.bundle.v0.3+json",
                "verificationMaterial": {"certificate": {"rawBytes": _b64(der)}, "tlogEntries": [entry]},
                "dsseEnvelope": envelope}

    def bundle_line(self, statement: dict) -> str:
        return json.dumps(self.bundle(statement), separators=(",", ":"))

    def trusted_root_json(self) -> str:
        def log(key: ec.EllipticCurvePrivateKey, url: str) -> dict:
            return {"baseUrl": url, "hashAlgorithm": "SHA2_256",
                    "publicKey": {"rawBytes": _b64(_spki(key)), "keyDetails": "PKIX_ECDSA_P256_SHA_256",
                                  "validFor": {"start": "2026-01-01T00:00:00Z"}},
                    "logId": {"keyId": _b64(hashlib.sha256(_spki(key)).digest())}}
        return json.dumps({
            "mediaType": "application/vnd.dev.sigstore.trustedroot+json;version=0.1",
            "tlogs": [log(self.log_key, f"https://{LOG_ORIGIN}")],
            "ctlogs": [log(self.ct_key, "https://ct.example.invalid")],
            "certificateAuthorities": [{
                "subject": {"organization": "test", "commonName": "offline fulcio"},
                "uri": "https://fulcio.example.invalid",
                "certChain": {"certificates": [{"rawBytes": _b64(self.ca.public_bytes(serialization.Encoding.DER))}]},
                "validFor": {"start": "2026-01-01T00:00:00Z"}}],
            "timestampAuthorities": []})


def statement(subjects: dict[str, str]) -> dict:
    """An in-toto v1 statement with SLSA provenance v1 over ``subjects`` (name -> sha256)."""
    return {"_type": "https://in-toto.io/Statement/v1",
            "subject": [{"name": n, "digest": {"sha256": d}} for n, d in sorted(subjects.items())],
            "predicateType": "https://slsa.dev/provenance/v1",
            "predicate": {"buildDefinition": {"buildType": "https://actions.github.io/buildtypes/workflow/v1",
                                              "externalParameters": {}},
                          "runDetails": {"builder": {"id": WORKFLOW}}}}
