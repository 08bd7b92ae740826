"""Each wheel's attestation bundle is a release asset beside it (``<wheel>.jsonl``, as LLVM names
them) that anybody verifies offline, without a GitHub token: the sigstore library verifies the
bundle the release carries against a trust root on disk, with no network, and its statement
names the wheel and its sha256. The tool refuses a bundle that attests anything else (publish,
validate). The bundles here are signed offline by a throwaway Sigstore (tests/support/sigstore_offline.py)."""

from __future__ import annotations

import json

import pytest

from release.check.validate import validate
from release.core import bundles, checksums, naming
from release.core.checksums import sha256_file
from release.core.errors import UserError
from release.publish.drafts import publish_draft, read_dist
from release.publish.stores import LocalStore
from tests.support.sigstore_offline import ISSUER, WORKFLOW, Signer, statement

sigstore = pytest.importorskip("sigstore", reason="sigstore is in the test extras")


def attest(directory, signer, *, wrong: str | None = None) -> list[str]:
    """``<wheel>.jsonl`` beside each wheel of a dist (``wrong``: this wheel's attests another
    digest), and SHA256SUMS over everything, as the finish stage writes it."""
    wheels = sorted(directory.glob("*.whl"))
    for wheel in wheels:
        digest = "0" * 64 if wheel.name == wrong else sha256_file(wheel)
        (directory / bundles.file_name(wheel.name)).write_text(
            signer.bundle_line(statement({wheel.name: digest})) + "\n", encoding="utf-8")
    names = sorted(p.name for p in directory.iterdir() if p.name not in (naming.CHECKSUMS_ASSET, "manifest.json"))
    checksums.write_for(directory, names)
    return [w.name for w in wheels]


def verify_offline(signer, bundle_text: str, tmp_path):
    from sigstore.models import Bundle, TrustedRoot
    from sigstore.verify import Verifier
    from sigstore.verify.policy import Identity
    root = tmp_path / "trusted_root.json"
    root.write_text(signer.trusted_root_json(), encoding="utf-8")
    verifier = Verifier(trusted_root=TrustedRoot.from_file(str(root)))
    out = []
    for line in bundle_text.splitlines():
        kind, payload = verifier.verify_dsse(Bundle.from_json(line), Identity(identity=WORKFLOW, issuer=ISSUER))
        out.append((kind, json.loads(payload)))
    return out


def test_the_release_carries_each_wheels_bundle_and_it_verifies_offline(make_dist, tmp_path):
    signer = Signer.new()
    dist_dir = make_dist("0.9.1")
    wheels = attest(dist_dir, signer)
    store = LocalStore(tmp_path / "store")
    publish_draft(store, read_dist(dist_dir))
    result = validate(store, naming.release_tag("0.9.1"), public_index="none")
    assert result.ok and "attestation-bundles" in result.checked, result.problems
    draft = store.our_drafts(naming.release_tag("0.9.1"))[0]
    assets = {a.name: a for a in store.list_assets(draft)}
    for wheel in wheels:
        bundle = store.download_asset(draft, assets[bundles.file_name(wheel)], tmp_path / bundles.file_name(wheel))
        got = store.download_asset(draft, assets[wheel], tmp_path / wheel)
        [(kind, stmt)] = verify_offline(signer, bundle.read_text(encoding="utf-8"), tmp_path)
        assert kind == "application/vnd.in-toto+json"
        assert stmt["subject"] == [{"name": wheel, "digest": {"sha256": sha256_file(got)}}]


def test_a_tampered_bundle_does_not_verify(make_dist, tmp_path):
    from sigstore.errors import VerificationError
    signer = Signer.new()
    line = json.loads(signer.bundle_line(statement({"x.whl": "a" * 64})))
    other = json.loads(signer.bundle_line(statement({"x.whl": "b" * 64})))
    line["dsseEnvelope"]["payload"] = other["dsseEnvelope"]["payload"]  # another statement, the first signature
    with pytest.raises(VerificationError):
        verify_offline(signer, json.dumps(line), tmp_path)
    with pytest.raises(VerificationError):  # signed by another Sigstore than the trust root names
        verify_offline(Signer.new(), signer.bundle_line(statement({"x.whl": "a" * 64})), tmp_path)


def test_a_bundle_of_another_wheel_is_refused_before_it_is_published(make_dist, tmp_path):
    dist_dir = make_dist("0.9.1")
    pjrt = naming.pjrt_wheel(7, "0.9.1")
    attest(dist_dir, Signer.new(), wrong=pjrt)
    with pytest.raises(UserError, match=f"{pjrt}.jsonl, line 1: attests {pjrt} 000000000000..., not {pjrt}"):
        read_dist(dist_dir)


def test_validate_refuses_a_bundle_that_attests_something_else(make_dist, tmp_path):
    store = LocalStore(tmp_path / "store")
    dist_dir = make_dist("0.9.1")
    publish_draft(store, read_dist(dist_dir))
    draft = store.our_drafts(naming.release_tag("0.9.1"))[0]
    pjrt = naming.pjrt_wheel(7, "0.9.1")
    wrong = tmp_path / bundles.file_name(pjrt)
    wrong.write_text(Signer.new().bundle_line(statement({pjrt: "1" * 64})) + "\n", encoding="utf-8")
    store.upload_asset(draft, wrong, wrong.name)
    result = validate(store, naming.release_tag("0.9.1"), public_index="none")
    assert not result.ok and not result.marked
    assert f"{pjrt}.jsonl, line 1: attests {pjrt} 111111111111..., not {pjrt}" in " ".join(result.problems)


@pytest.mark.parametrize("text, problem", [
    ("", "no attestation bundle in it"),
    ("not json\n", "line 1: not JSON"),
    ('{"mediaType": "application/json"}\n', "line 1: not a Sigstore bundle (mediaType 'application/json')"),
    ('{"mediaType": "application/vnd.dev.sigstore.bundle.v0.3+json", "messageSignature": {}}\n',
     "line 1: its DSSE envelope carries no application/vnd.in-toto+json statement"),
    ('{"mediaType": "application/vnd.dev.sigstore.bundle.v0.3+json", "dsseEnvelope": '
     '{"payloadType": "application/vnd.in-toto+json", "payload": "%%%"}}\n',
     "line 1: its statement is not base64 JSON"),
])
def test_what_is_not_a_bundle_of_the_wheel_is_one_line(text, problem):
    name = "a-1-py3-none-any.whl.jsonl"
    assert bundles.problems(name, text, "a" * 64) == [f"{name}{', ' if 'line' in problem else ': '}{problem}"]


def test_two_bundles_each_must_attest_the_wheel():
    signer = Signer.new()
    good, bad = signer.bundle_line(statement({"a.whl": "a" * 64})), signer.bundle_line(statement({"a.whl": "b" * 64}))
    assert bundles.problems("a.whl.jsonl", f"{good}\n{good}\n", "a" * 64) == []
    assert bundles.problems("a.whl.jsonl", f"{good}\n{bad}\n", "a" * 64) == [
        "a.whl.jsonl, line 2: attests a.whl bbbbbbbbbbbb..., not a.whl (aaaaaaaaaaaa...)"]
    assert bundles.problems("a.whl.jsonl", good, None) == [
        "a.whl.jsonl: an attestation bundle of a.whl, which is not an asset"]


def test_a_cells_bundle_goes_up_with_its_wheel_and_a_whole_dist_lists_it(make_dist, tmp_path):
    """A build cell's bundle is written after its build's SHA256SUMS (the upload job attests the
    wheel): ``publish --partial`` takes it unlisted; a whole dist (the finish stage's) must list it."""
    dist_dir = make_dist("0.9.1")
    pjrt = dist_dir / naming.pjrt_wheel(7, "0.9.1")
    bundle = dist_dir / bundles.file_name(pjrt.name)
    bundle.write_text(Signer.new().bundle_line(statement({pjrt.name: sha256_file(pjrt)})) + "\n", encoding="utf-8")
    assert bundle.name in {a.name for a in read_dist(dist_dir, partial=True).assets}
    with pytest.raises(UserError, match=f"does not list {bundle.name}"):
        read_dist(dist_dir)
