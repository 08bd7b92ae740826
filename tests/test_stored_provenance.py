"""Each wheel's PEP 740 provenance object is made once, by publish, and kept beside its bundle
(``release.publish.stored_provenance``): the index copies those bytes when the wheel's row binds
them to the store's digests of the wheel, the bundle and the object, and builds the object from
the bundle otherwise. The site is the same bytes either way; a release published before, a
bundle or object replaced since or a row edited by hand is never served a stored object."""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from release.check.validate import step_bundles, step_check_files
from release.check.validation import Validation
from release.core import bundles
from release.core.errors import UserError
from release.publish import index_provenance, notes, stored_provenance, wheel_record
from release.publish.drafts import publish_draft, read_dist
from release.publish.index import build_site
from release.publish.records import Asset
from release.publish.staging import write_json
from release.publish.stores import LocalStore
from release.publish.wheel_record import Facts
from tests.support.publish_dist import build_dist, mark_validated, release_dist, without_index_facts

NIGHTLY = "0.9.1.dev20261121"
_HEX = st.text(alphabet="0123456789abcdef", min_size=64, max_size=64)


def bundle_line(name: str, sha256: str, workflow: str = "nightly.yml", cert: bytes = b"DER") -> str:
    """One Sigstore bundle (v0.3) of a SLSA statement about ``name``, as GitHub's attest action
    writes it (unsigned: neither publish nor the index verifies a signature)."""
    statement = {"_type": "https://in-toto.io/Statement/v1", "subject": [{"name": name, "digest": {"sha256": sha256}}],
                 "predicateType": "https://slsa.dev/provenance/v1",
                 "predicate": {"buildDefinition": {"externalParameters": {"workflow": {
                     "repository": "https://github.com/ROCm/jax-rocm-release",
                     "path": f".github/workflows/{workflow}"}}}}}
    return json.dumps({"mediaType": "application/vnd.dev.sigstore.bundle.v0.3+json",
                       "verificationMaterial": {"certificate": {"rawBytes": base64.b64encode(cert).decode()},
                                                "tlogEntries": [{"logIndex": "7", "kindVersion": {"kind": "dsse"}}]},
                       "dsseEnvelope": {"payload": base64.b64encode(json.dumps(statement).encode()).decode(),
                                        "payloadType": "application/vnd.in-toto+json",
                                        "signatures": [{"sig": base64.b64encode(b"sig " + name.encode()).decode()}]}})


def attested_dist(root: Path, version: str = NIGHTLY, workflows: tuple[str, ...] = ("nightly.yml",),
                  skip: int = 0) -> Path:
    """A dist whose wheels (but the first ``skip`` by name) each have a bundle beside them
    (listed in SHA256SUMS, as the upload job leaves them)."""
    out = build_dist(root, version)
    for wheel in sorted(out.glob("*.whl"))[skip:]:
        sha256 = hashlib.sha256(wheel.read_bytes()).hexdigest()
        (out / bundles.file_name(wheel.name)).write_text(
            "".join(bundle_line(wheel.name, sha256, w) + "\n" for w in workflows))
    sums = "".join(f"{hashlib.sha256(p.read_bytes()).hexdigest()}  {p.name}\n"
                   for p in sorted(out.iterdir()) if p.name != "SHA256SUMS" and p.is_file())
    (out / "SHA256SUMS").write_text(sums)
    return out


def _site(store: LocalStore, out: Path) -> tuple[dict, dict[str, bytes]]:
    result = build_site(store, out, site_url="https://example.invalid/jax")
    files = {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*"))
             if p.is_file() and p.name != ".index-state.json"}
    return result, files


def _asset_path(store: LocalStore, tag: str, name: str) -> Path:
    return store.directory / str(store.published_for(tag).id) / "assets" / name


def _replace_asset(store: LocalStore, tag: str, name: str, data: bytes, digest: str | None = None) -> None:
    """An asset's bytes replaced in place, its record naming ``digest`` (default: the new bytes')."""
    release = store.published_for(tag)
    _asset_path(store, tag, name).write_bytes(data)
    path = store.directory / str(release.id) / "release.json"
    record = json.loads(path.read_text())
    for asset in record["assets"]:
        if asset["name"] == name:
            asset.update(digest=digest or hashlib.sha256(data).hexdigest(), size=len(data))
    path.write_text(json.dumps(record))


def _drop_asset(store: LocalStore, tag: str, name: str) -> None:
    """A published release's asset gone, as a release published before it never had it."""
    release = store.published_for(tag)
    path = store.directory / str(release.id) / "release.json"
    record = json.loads(path.read_text())
    record["assets"] = [a for a in record["assets"] if a["name"] != name]
    path.write_text(json.dumps(record))
    _asset_path(store, tag, name).unlink()


# ------------------------------------------------------------------ publish makes it


def test_publish_stores_each_bundles_object_beside_it_and_binds_it_in_the_wheels_row(tmp_path):
    store = LocalStore(tmp_path / "store")
    dist = release_dist(store, attested_dist(tmp_path / "dist"))
    release = store.published_for(dist.tag)
    assets = {a.name: a for a in store.list_assets(release)}
    rows = wheel_record.from_text(notes.of(release).index_facts)
    assert sorted(n for n in assets if stored_provenance.is_stored(n)) == sorted(
        stored_provenance.file_name(w.name) for w in dist.wheels)
    for wheel in dist.wheels:
        bundle, stored = assets[bundles.file_name(wheel.name)], assets[stored_provenance.file_name(wheel.name)]
        text = _asset_path(store, dist.tag, bundle.name).read_text()
        # the bytes the index writes when it builds the object from the bundle
        made = write_json(index_provenance.provenance(text, wheel.name, wheel.digest))
        assert _asset_path(store, dist.tag, stored.name).read_bytes() == made
        assert rows[wheel.name].bundle_sha256 == bundle.digest
        assert rows[wheel.name].provenance_sha256 == stored.digest == hashlib.sha256(made).hexdigest()


def test_only_the_wheels_with_a_bundle_get_an_object(tmp_path):
    store = LocalStore(tmp_path / "store")
    dist = release_dist(store, attested_dist(tmp_path / "dist", skip=1))
    names = {a.name for a in store.list_assets(store.published_for(dist.tag))}
    first, *rest = sorted(w.name for w in dist.wheels)
    assert rest and {n for n in names if stored_provenance.is_stored(n)} == {
        stored_provenance.file_name(n) for n in rest}
    row = wheel_record.from_text(notes.of(store.published_for(dist.tag)).index_facts)[first]
    assert (row.bundle_sha256, row.provenance_sha256) == (None, None)


def test_publishing_the_same_dist_again_writes_nothing_new(tmp_path):
    store = LocalStore(tmp_path / "store")
    dist = read_dist(attested_dist(tmp_path / "dist"))
    first = publish_draft(store, dist)
    assert first["changed"] and any(stored_provenance.is_stored(a["asset"]) for a in first["actions"])
    again = publish_draft(store, dist)
    assert again["actions"] == [] and again["changed"] is False
    mark_validated(store, dist.tag)
    from release.publish.drafts import undraft
    undraft(store, dist.tag)
    published = publish_draft(store, dist)  # published: immutable, the same assets, nothing to do
    assert published["status"] == "published" and published["changed"] is False


def test_a_release_published_before_the_stored_objects_is_still_the_same_release(tmp_path):
    """Publishing again a release that has bundles but no stored objects (published by an
    earlier version of the tool) is a no-op, not a refusal: the objects are publish's own."""
    store = LocalStore(tmp_path / "store")
    path = attested_dist(tmp_path / "dist")
    dist = release_dist(store, path)
    for wheel in dist.wheels:  # as the earlier tool left it
        _drop_asset(store, dist.tag, stored_provenance.file_name(wheel.name))
    before = sorted(a.name for a in store.list_assets(store.published_for(dist.tag)))
    result = publish_draft(store, read_dist(path))
    assert result["changed"] is False and sorted(a["name"] for a in result["assets"]) == before
    other = attested_dist(tmp_path / "other", workflows=("release.yml",))  # other bundles: refused as ever
    with pytest.raises(UserError, match="published and immutable"):
        publish_draft(store, read_dist(other))


@pytest.mark.parametrize("fault", ["no workflow", "not UTF-8"])
def test_a_bundle_that_gives_no_provenance_gets_no_stored_object_and_no_binding(tmp_path, fault):
    """Publish takes the bundle (its statement names the wheel), the index lists the wheel
    without provenance, and nothing is stored that the index would not write."""
    path = build_dist(tmp_path / "dist", NIGHTLY)
    wheel = sorted(path.glob("*.whl"))[0]
    sha256 = hashlib.sha256(wheel.read_bytes()).hexdigest()
    line = json.loads(bundle_line(wheel.name, sha256))
    if fault == "no workflow":
        statement = json.loads(base64.b64decode(line["dsseEnvelope"]["payload"]))
        statement["predicate"] = {}  # bundles.problems lets it pass, the index gives no provenance
        line["dsseEnvelope"]["payload"] = base64.b64encode(json.dumps(statement).encode()).decode()
        data = (json.dumps(line) + "\n").encode()
    else:  # a byte that is no UTF-8 inside a string: the index reads bundles strictly
        line["verificationMaterial"]["tlogEntries"][0]["logIndex"] = "7@"
        data = (json.dumps(line) + "\n").encode().replace(b"7@", b"7\xff")
    (path / bundles.file_name(wheel.name)).write_bytes(data)
    sums = "".join(f"{hashlib.sha256(p.read_bytes()).hexdigest()}  {p.name}\n"
                   for p in sorted(path.iterdir()) if p.name != "SHA256SUMS" and p.is_file())
    (path / "SHA256SUMS").write_text(sums)
    store = LocalStore(tmp_path / "store")
    dist = release_dist(store, path)
    release = store.published_for(dist.tag)
    assert not any(stored_provenance.is_stored(a.name) for a in store.list_assets(release))
    row = wheel_record.from_text(notes.of(release).index_facts)[wheel.name]
    assert (row.bundle_sha256, row.provenance_sha256) == (None, None)
    said: list[str] = []
    build_site(store, tmp_path / "site", say=said.append)
    assert not list((tmp_path / "site").rglob(stored_provenance.file_name(wheel.name)))
    assert [s for s in said if wheel.name in s and "without PEP 740 provenance" in s]


# ------------------------------------------------------------------ the index copies it when bound


def test_the_index_copies_the_stored_objects_and_writes_the_site_building_them_writes(tmp_path):
    store = LocalStore(tmp_path / "store")
    dists = [release_dist(store, attested_dist(tmp_path / f"dist-{v}", v)) for v in (NIGHTLY, "0.9.1")]
    wheels = sum(len(d.wheels) for d in dists)
    copied, site = _site(store, tmp_path / "site")
    assert (copied["provenance_copies"], copied["bundle_reads"]) == (wheels, 0)
    without_index_facts(store, dists[0].tag)  # an older release: no row binds its objects
    mixed, same = _site(store, tmp_path / "site2")
    assert (mixed["provenance_copies"], mixed["bundle_reads"]) == (len(dists[1].wheels), len(dists[0].wheels))
    assert same == site
    for wheel in dists[1].wheels:  # a release without the objects at all
        _drop_asset(store, dists[1].tag, stored_provenance.file_name(wheel.name))
    built, again = _site(store, tmp_path / "site3")
    assert (built["provenance_copies"], built["bundle_reads"]) == (0, wheels) and again == site


@pytest.mark.parametrize("change", ["object", "object-unrecorded", "bundle", "row-object", "row-bundle", "row-wheel"])
def test_a_stored_object_not_bound_to_the_stores_digests_is_never_served(tmp_path, change):
    """Whatever no longer agrees (an object replaced, with or without its record's digest; the
    bundle replaced since; the row naming other bytes), the object is built from the bundle the
    store holds: the site serves exactly that."""
    store = LocalStore(tmp_path / "store")
    dist = release_dist(store, attested_dist(tmp_path / "dist"))
    wheel = next(w for w in dist.wheels if "plugin" in w.name)
    name, bundle_name = stored_provenance.file_name(wheel.name), bundles.file_name(wheel.name)
    forged = write_json({"version": 1, "attestation_bundles": []})
    if change == "object":
        _replace_asset(store, dist.tag, name, forged)
    elif change == "object-unrecorded":  # the bytes changed, the store's record did not
        recorded = _asset_path(store, dist.tag, name).read_bytes()
        _replace_asset(store, dist.tag, name, forged + b" " * (len(recorded) - len(forged)),
                       hashlib.sha256(recorded).hexdigest())
    elif change == "bundle":
        again = bundle_line(wheel.name, wheel.digest, "hotfix.yml") + "\n"
        _replace_asset(store, dist.tag, bundle_name, again.encode())
    else:
        release = store.published_for(dist.tag)
        rows = wheel_record.from_text(notes.of(release).index_facts)
        field = {"row-object": "provenance_sha256", "row-bundle": "bundle_sha256", "row-wheel": "sha256"}[change]
        rows[wheel.name] = dataclasses.replace(rows[wheel.name], **{field: "f" * 64})
        store.update_release(release, body=notes.changed(release, index_facts=wheel_record.to_text(rows.values())))
    result, site = _site(store, tmp_path / "site")
    bundle_text = _asset_path(store, dist.tag, bundle_name).read_text()
    served = site[f"nightly/jax-rocm7-plugin/{name}"]
    assert served == write_json(index_provenance.provenance(bundle_text, wheel.name, wheel.digest))
    assert result["bundle_reads"] == 1
    if change == "bundle":
        assert [b["publisher"]["workflow"] for b in json.loads(served)["attestation_bundles"]] == ["hotfix.yml"]


# ------------------------------------------------------------------ validate checks it


def _files(store: LocalStore, tag: str) -> dict[str, Path]:
    release = store.published_for(tag)
    return {a.name: _asset_path(store, tag, a.name) for a in store.list_assets(release)}


def test_validate_takes_a_stored_object_made_of_its_bundle_without_a_checksum_entry(tmp_path):
    store = LocalStore(tmp_path / "store")
    dist = release_dist(store, attested_dist(tmp_path / "dist"))
    files = _files(store, dist.tag)
    result = Validation(dist.tag, None)
    step_check_files(files, dist.version, result)
    step_bundles(files, result)
    assert result.problems == []
    wheel = dist.wheels[0]
    name = stored_provenance.file_name(wheel.name)
    files[name].write_bytes(write_json({"version": 1, "attestation_bundles": []}))
    stray = "0-1-py3-none-any.whl.provenance"  # named first: every object is checked, not the first few
    (tmp_path / stray).write_bytes(b"{}")
    files[stray] = tmp_path / stray
    unbundled = dist.wheels[1].name
    del files[bundles.file_name(unbundled)]
    wrong = Validation(dist.tag, None)
    step_bundles(files, wrong)
    assert sorted(wrong.problems) == sorted([
        f"{stray}: a PEP 740 provenance object of 0-1-py3-none-any.whl, which has no wheel asset",
        f"{name}: not the PEP 740 provenance object of {bundles.file_name(wheel.name)}; publish the release "
        "again to make it anew",
        f"{stored_provenance.file_name(unbundled)}: a PEP 740 provenance object of {unbundled}, which has no "
        "attestation bundle asset"])


# ------------------------------------------------------------------ the rule, over generated records


_DIGESTS = st.sampled_from(["a" * 64, "b" * 64, "c" * 64]) | st.none()


@given(row_digests=st.tuples(_DIGESTS, _DIGESTS, _DIGESTS), store_digests=st.tuples(_DIGESTS, _DIGESTS, _DIGESTS),
       has_row=st.booleans(), has_bundle=st.booleans(), has_stored=st.booleans())
def test_a_row_binds_a_stored_object_only_when_every_sha256_it_names_is_the_stores(
        row_digests, store_digests, has_row, has_bundle, has_stored):
    wheel, bundle, stored = store_digests
    name = "a-1-py3-none-any.whl"
    row = Facts(name, row_digests[0] or "d" * 64, None, "e" * 64, row_digests[1], row_digests[2]) if has_row else None
    bundle_asset = Asset(2, bundles.file_name(name), 10, bundle, "uploaded", "") if has_bundle else None
    stored_asset = Asset(3, stored_provenance.file_name(name), 10, stored, "uploaded", "") if has_stored else None
    expected = (has_row and has_bundle and has_stored and None not in (wheel, bundle, stored)
                and (row_digests[0] or "d" * 64, row_digests[1], row_digests[2]) == (wheel, bundle, stored))
    assert stored_provenance.bound(row, wheel or "0" * 64, bundle_asset, stored_asset) is expected


@given(st.lists(st.builds(Facts, st.sampled_from(["a-1-py3-none-any.whl", "b-2-py3-none-any.whl"]), _HEX,
                          st.none() | st.sampled_from([">=3.11", "<4"]), _HEX, st.none() | _HEX, st.none() | _HEX),
                max_size=4))
def test_rows_with_or_without_the_bundle_columns_read_back_and_older_rows_read_as_unbound(facts):
    text = wheel_record.to_text(facts)
    assert wheel_record.from_text(text) == {f.filename: f for f in facts}
    for f in facts:  # the row an older publish wrote: four columns, nothing bound
        old = f"| {f.filename} | `{f.sha256}` | " + ("-" if f.requires_python is None else f"`{f.requires_python}`")
        old += f" | `{f.metadata_sha256}` |"
        assert wheel_record.from_text(old) == {f.filename: dataclasses.replace(
            f, bundle_sha256=None, provenance_sha256=None)}


@given(st.lists(st.sampled_from(["nightly.yml", "release.yml", "hotfix.yml"]), min_size=1, max_size=3),
       st.binary(min_size=1, max_size=40), st.booleans(), st.sampled_from([b"", b"\xff", b"\xc3\xa9"]))
def test_the_stored_bytes_are_the_object_the_index_builds_or_none_when_it_builds_none(workflows, cert, other, odd):
    """``encode`` of a bundle file is exactly the index's own reading of it (UTF-8, strictly)
    and encoding; None where the index gives no provenance."""
    name = "a-1-py3-none-any.whl"
    sha256 = "a" * 64
    text = "".join(bundle_line("b-1-py3-none-any.whl" if other else name, sha256, w, cert) + "\n" for w in workflows)
    data = text.replace('"7"', '"7@"').encode().replace(b"7@", b"7" + odd)  # a byte in a log entry's string
    try:
        expected: bytes | None = write_json(index_provenance.provenance(data.decode("utf-8"), name, sha256))
    except (index_provenance.BundleError, UnicodeDecodeError):
        expected = None
    assert stored_provenance.encode(data, name, sha256) == expected
    assert (expected is None) == (other or odd == b"\xff")


def test_on_github_the_object_goes_up_with_the_draft_and_the_index_copies_it(fake_github, tmp_path):
    """Through the GitHub stand-in (checked against GitHub's OpenAPI): the draft holds each
    object as an asset, and the site from the copies is the site from the bundles."""
    from tests.support.publish_dist import gh_store

    store = gh_store(fake_github)
    dist = release_dist(store, attested_dist(tmp_path / "dist"))
    release = store.published_for(dist.tag)
    assert sorted(a.name for a in store.list_assets(release) if stored_provenance.is_stored(a.name)) == sorted(
        stored_provenance.file_name(w.name) for w in dist.wheels)
    copied = build_site(store, tmp_path / "site")
    assert (copied["provenance_copies"], copied["bundle_reads"]) == (len(dist.wheels), 0)
    without_index_facts(store, dist.tag)
    built = build_site(store, tmp_path / "site2")
    assert (built["provenance_copies"], built["bundle_reads"]) == (0, len(dist.wheels))
    files = [p.relative_to(tmp_path / "site") for p in sorted((tmp_path / "site").rglob("*.provenance"))]
    assert files and all((tmp_path / "site" / f).read_bytes() == (tmp_path / "site2" / f).read_bytes() for f in files)


def test_a_bundle_past_the_index_size_limit_gets_no_stored_object(tmp_path):
    """The index reads no bundle over ``BUNDLE_LIMIT`` (it lists the wheel without provenance),
    so publish stores nothing for one: a blank line more and the object would be served where
    building gives none."""
    name, sha256 = "a-1-py3-none-any.whl", "a" * 64
    line = (bundle_line(name, sha256) + "\n").encode()
    fits = line + b"\n" * (index_provenance.BUNDLE_LIMIT - len(line))
    assert stored_provenance.encode(fits, name, sha256) is not None
    assert stored_provenance.encode(fits + b"\n", name, sha256) is None
