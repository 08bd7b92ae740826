"""PEP 658/714 core metadata files: every release carries ``<wheel>.metadata`` (the wheel's METADATA,
byte for byte) as an asset beside each wheel, and the index names its sha256 only when that asset
sits at the wheel's URL + ``.metadata`` and is exactly the wheel's METADATA.

What holds: a dist without them (or with a wrong one) is never published; validate names a wrong
one in one line and marks nothing; the validated mark covers them; a ``.metadata`` is never counted
as a wheel; the index's attribute follows the asset for every mix of right, missing and wrong
files (generated), an old release without them stays listed without it, and the site's state keeps
the METADATA's sha256 so a re-run reads nothing.
"""

from __future__ import annotations

import dataclasses
import hashlib
import io
import json
import re
import shutil
import tempfile
import urllib.request
import warnings
import zipfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from release.check.validate import validate
from release.core import core_metadata
from release.core.errors import UserError
from release.publish.drafts import LocalAsset, publish_draft, read_dist, undraft
from release.publish.index import build_site
from release.publish.stores import LocalStore
from tests.support.publish_dist import build_dist, gh_store, mark_validated, without_index_facts

NIGHTLY = "0.9.1.dev20261122"
TAG = "rocm-jax-v" + NIGHTLY
PLUGIN, PJRT = "jax-rocm7-plugin", "jax-rocm7-pjrt"


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


# ------------------------------------------------------------------ the file itself


@settings(max_examples=30, derandomize=True, deadline=None)
@given(meta=st.binary(min_size=1, max_size=300), cut=st.integers(min_value=0, max_value=299),
       flip=st.integers(min_value=0, max_value=255))
def test_a_metadata_file_is_accepted_only_when_it_is_its_wheels_metadata_byte_for_byte(meta, cut, flip):
    import zipfile
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        wheel = folder / "jax_rocm7_pjrt-0.9.1-py3-none-manylinux_2_28_x86_64.whl"
        with zipfile.ZipFile(wheel, "w") as zf:
            zf.writestr("jax_rocm7_pjrt-0.9.1.dist-info/METADATA", meta)
            zf.writestr("jax_rocm7_pjrt-0.9.1.dist-info/RECORD", b"")
        sidecar = core_metadata.write_beside(wheel)
        assert sidecar.name == wheel.name + ".metadata" and sidecar.read_bytes() == meta
        files = {p.name: p for p in folder.iterdir()}
        assert core_metadata.problems(files) == [] and core_metadata.missing(files) == []
        changed = bytearray(meta)
        changed[cut % len(meta)] ^= flip or 1  # one byte differs
        for wrong in (bytes(changed), meta[:cut % len(meta)], meta + b"\n"):
            sidecar.write_bytes(wrong)
            [line] = core_metadata.problems(files)
            assert line.startswith(sidecar.name) and "METADATA" in line
        assert core_metadata.missing([wheel.name]) == [wheel.name]
        [orphan] = core_metadata.problems({sidecar.name: sidecar})
        assert "without its wheel" in orphan


def small_wheel(path: Path, members: dict[str, bytes]) -> Path:
    import zipfile
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return path


def test_every_wrong_metadata_file_is_named_not_only_the_first(tmp_path):
    """One line per problem, in name order: an orphan, a wheel that cannot be read and a wrong
    file in one set are all named (a check that stops at the first hides the rest)."""
    good = small_wheel(tmp_path / "c_good-1.0-py3-none-any.whl", {"c_good-1.0.dist-info/METADATA": b"Name: c\n"})
    broken = tmp_path / "b_broken-1.0-py3-none-any.whl"
    broken.write_bytes(b"not a zip")
    orphan = tmp_path / "a_gone-1.0-py3-none-any.whl.metadata"
    for path, data in ((orphan, b"x"), (tmp_path / (broken.name + ".metadata"), b"x"),
                       (tmp_path / (good.name + ".metadata"), b"Name: other\n")):
        path.write_bytes(data)
    found = core_metadata.problems({p.name: p for p in tmp_path.iterdir()})
    assert found == [
        f"{orphan.name}: a core metadata file without its wheel a_gone-1.0-py3-none-any.whl",
        f"{broken.name}.metadata: its wheel's METADATA cannot be read ({broken.name}: not a wheel (not a zip file))",
        f"{good.name}.metadata is not the METADATA of {good.name} (PEP 658: it must be that file byte for byte)",
    ]


@pytest.mark.parametrize("members, expected", [
    (None, "not a wheel (not a zip file)"),
    ({"x/RECORD": b""}, "expected one .dist-info/METADATA, found 0"),
    ({"a-1.dist-info/METADATA": b"1", "b-1.dist-info/METADATA": b"2"}, "expected one .dist-info/METADATA, found 2"),
])
def test_a_file_that_is_not_a_wheel_with_one_metadata_is_one_line_naming_it(tmp_path, members, expected):
    import io
    path = tmp_path / "x-1.0-py3-none-any.whl"
    if members is None:
        path.write_bytes(b"PK not really")
    else:
        small_wheel(path, members)
    for handle, name, label in ((path, None, path.name), (str(path), "shown.whl", "shown.whl"),
                                (io.BytesIO(path.read_bytes()), None, "wheel")):
        with pytest.raises(UserError) as err:
            core_metadata.read(handle, name)
        assert str(err.value) == f"{label}: {expected}"


def test_a_rebuilt_wheel_gets_a_new_metadata_file_and_an_unchanged_one_is_left_alone(tmp_path):
    import os
    wheel = small_wheel(tmp_path / "x-1.0-py3-none-any.whl", {"x-1.0.dist-info/METADATA": b"Version: 1.0\n"})
    sidecar = core_metadata.write_beside(wheel)
    os.utime(sidecar, ns=(1, 1))
    assert core_metadata.write_beside(wheel) == sidecar and sidecar.stat().st_mtime_ns == 1  # not rewritten
    small_wheel(wheel, {"x-1.0.dist-info/METADATA": b"Version: 1.0\nRequires-Dist: y\n"})  # rebuilt
    core_metadata.write_beside(wheel)
    assert sidecar.read_bytes() == b"Version: 1.0\nRequires-Dist: y\n"


OTHER_NAMES = ["x-1.dist-info/RECORD", "pkg/x.so", "pkg/ünï.py", "x-1.data/x.dist-info/METADATA",
               "x-1.dist-info/METADATA/", "pkg/a.py", "y-1.dist-info/METADATA", "x-1.dist-info/METADATA"]


def _zipfile_read(blob: bytes) -> bytes | str:
    """What ``read`` answers when zipfile alone reads the wheel: its bytes, or the error's text."""
    real = core_metadata._plain_zip_metadata
    core_metadata._plain_zip_metadata = lambda handle: None
    try:
        return core_metadata.read(io.BytesIO(blob))
    except Exception as exc:  # noqa: BLE001 (every outcome is compared, an error's text too)
        return f"{type(exc).__name__}: {exc}"
    finally:
        core_metadata._plain_zip_metadata = real


member = st.tuples(st.binary(max_size=300), st.sampled_from([zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED]),
                  st.sampled_from([False, False, False, True]))  # (bytes, method, an extra field)


@settings(max_examples=150, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(metadata=member, others=st.lists(st.tuples(st.sampled_from(OTHER_NAMES), member), max_size=4),
       at=st.integers(0, 4), comment=st.sampled_from([b"", b"", b"", b"c"]),
       before=st.sampled_from([b"", b"", b"", b"junk!"]),
       flips=st.lists(st.tuples(st.floats(0, 1, exclude_max=True), st.integers(1, 255)), max_size=2))
def test_the_metadata_is_what_zipfile_reads_for_every_zip_plain_or_damaged(metadata, others, at, comment, before,
                                                                           flips):
    """The direct reading of a plain wheel's directory answers exactly zipfile's bytes, or leaves
    the wheel to zipfile: over generated zips (METADATA anywhere, stored or deflated, named twice,
    another dist-info's, extra fields, a comment, bytes before the first member, non-ASCII names)
    with bytes flipped anywhere. A plain, undamaged one is read directly (zipfile is not needed)."""
    members = others[:at] + [("x-1.dist-info/METADATA", metadata)] + others[at:]
    buf = io.BytesIO()
    buf.write(before)
    with zipfile.ZipFile(buf, "a" if before else "w") as zf:
        for name, (data, method, extra) in members:
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = method
            if extra:  # an extended-timestamp field, as the zip tool writes
                info.extra = b"UT\x05\x00\x01\x00\x00\x00\x00"
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # "Duplicate name": a damaged wheel is generated on purpose
                zf.writestr(info, data)
        zf.comment = comment
    blob = bytearray(buf.getvalue())
    for where, xor in flips:
        blob[int(where * len(blob))] ^= xor
    direct = core_metadata._plain_zip_metadata(io.BytesIO(bytes(blob)))
    expected = _zipfile_read(bytes(blob))
    assert direct is None or direct == expected
    plain = (not flips and not comment and not before and not any(extra for _, (_, _, extra) in members)
             and sum(name.endswith(".dist-info/METADATA") and name.count("/") == 1 for name, _ in members) == 1)
    if plain:
        assert direct == metadata[0]


def _damaged(kind: str) -> bytes:
    """A wheel whose METADATA (stored, first) is b"Version: 1.0\\n", damaged as ``kind`` says."""
    name = "x-1.0.dist-info/METADATA"
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr(zipfile.ZipInfo(name), b"Version: 1.0\n")
        zf.writestr("x-1.0.data/x.dist-info/METADATA", b"Version: 9\n")  # not the wheel's: two levels down
    blob = bytearray(buf.getvalue())
    body = 30 + len(name)
    if kind == "crc":
        blob[body + 3] ^= 1
    elif kind == "local name":
        blob[30] = ord("y")
    return bytes(blob)


@pytest.mark.parametrize("kind, expected", [("plain", b"Version: 1.0\n"),
                                            ("crc", "not a wheel (not a zip file)"),
                                            ("local name", "not a wheel (not a zip file)")])
def test_a_wheels_metadata_is_its_top_level_one_and_a_damaged_one_is_refused(kind, expected):
    """Only the .dist-info directly under the root holds the wheel's METADATA; one whose bytes
    fail their CRC-32, or whose local header names another file, is not read."""
    blob = _damaged(kind)
    if isinstance(expected, bytes):
        assert core_metadata.read(io.BytesIO(blob)) == expected == _zipfile_read(blob)
        assert core_metadata._plain_zip_metadata(io.BytesIO(blob)) == expected  # read directly
    else:
        with pytest.raises(UserError) as err:
            core_metadata.read(io.BytesIO(blob))
        assert str(err.value) == f"wheel: {expected}"


def test_a_plain_wheel_is_read_without_zipfile(tmp_path, monkeypatch):
    wheel = small_wheel(tmp_path / "x-1.0-py3-none-any.whl", {"x-1.0.dist-info/METADATA": b"Version: 1.0\n",
                                                              "x-1.0.dist-info/RECORD": b""})
    monkeypatch.setattr(zipfile, "ZipFile", None)
    assert core_metadata.read(wheel) == b"Version: 1.0\n"


def test_a_metadata_file_is_never_a_wheel():
    name = "jax_rocm7_plugin-0.9.1-cp311-cp311-manylinux_2_28_x86_64.whl"
    assert core_metadata.is_wheel(name) and not core_metadata.is_wheel(name + ".metadata")
    assert core_metadata.wheel_of(name + ".metadata") == name
    assert core_metadata.wheel_of(name) is None and core_metadata.wheel_of("SHA256SUMS.metadata") is None


# ------------------------------------------------------------------ publishing


def test_publish_puts_each_metadata_file_at_its_wheels_url_and_the_mark_covers_it(fake_github, tmp_path):
    dist = read_dist(build_dist(tmp_path / "dist", NIGHTLY))
    assert [a.name for a in dist.wheels] == sorted(n for n in (a.name for a in dist.assets) if n.endswith(".whl"))
    assert {a.name for a in dist.assets} >= {w.name + ".metadata" for w in dist.wheels}
    store = gh_store(fake_github)
    publish_draft(store, dist)
    mark_validated(store, TAG)
    # a metadata file replaced after validation: the mark no longer holds, nothing is published
    draft = store.drafts_for(TAG)[0]
    [pjrt_meta] = [a for a in store.list_assets(draft) if a.name.startswith("jax_rocm7_pjrt") and
                   a.name.endswith(".metadata")]
    store.delete_asset(draft, pjrt_meta)
    changed = tmp_path / pjrt_meta.name
    changed.write_bytes((dist.directory / pjrt_meta.name).read_bytes() + b"\n")
    store.upload_asset(draft, changed, pjrt_meta.name)
    with pytest.raises(UserError, match="has not passed"):
        undraft(store, TAG)
    publish_draft(store, dist)  # the re-run puts the right bytes back; validated again, it publishes
    mark_validated(store, TAG)
    assert undraft(store, TAG)["status"] == "published"
    rel = store.published_for(TAG)
    assets = {a.name: a for a in store.list_assets(rel)}
    for wheel in dist.wheels:
        meta = assets[wheel.name + ".metadata"]
        assert meta.url == assets[wheel.name].url + ".metadata"  # GitHub's browser_download_url, same tag path
        assert "/releases/download/" + TAG + "/" in meta.url
        with urllib.request.urlopen(meta.url, timeout=30) as answer:
            assert answer.read() == core_metadata.read(wheel.path)


@pytest.mark.parametrize("damage, expected", [
    ("missing", "missing; expected the PEP 658 metadata of"),
    ("other", "is not the METADATA of"),
    ("orphan", "without its wheel"),
])
def test_a_dist_whose_metadata_files_are_not_its_wheels_is_refused(tmp_path, damage, expected):
    out = build_dist(tmp_path / "dist", NIGHTLY)
    pjrt = next(out.glob("jax_rocm7_pjrt-*.whl"))
    plugin = next(out.glob("jax_rocm7_plugin-*.whl"))
    if damage == "missing":
        (out / (pjrt.name + ".metadata")).unlink()
    elif damage == "other":  # the metadata of the wrong wheel
        shutil.copy(out / (plugin.name + ".metadata"), out / (pjrt.name + ".metadata"))
    else:
        (out / "jax_rocm7_pjrt-0.9.1.dev20990101-py3-none-manylinux_2_28_x86_64.whl.metadata").write_bytes(b"x")
    with pytest.raises(UserError) as err:
        read_dist(out)
    assert expected in str(err.value) and "\n" not in str(err.value)


def draft_of(store, dist, replace: dict[str, bytes | None], scratch: Path) -> None:
    """Draft ``dist`` with some assets replaced (bytes) or left out (None), as a store holding an
    older release, or a hostile one, would have it."""
    assets = []
    for asset in dist.assets:
        if asset.name not in replace:
            assets.append(asset)
        elif (data := replace[asset.name]) is not None:
            path = scratch / asset.name
            path.write_bytes(data)
            assets.append(LocalAsset(asset.name, path, len(data), sha(data)))
    publish_draft(store, dataclasses.replace(dist, assets=tuple(assets)))


def publish_with(store, dist, replace: dict[str, bytes | None], scratch: Path) -> None:
    """``draft_of``, then validated and published."""
    draft_of(store, dist, replace, scratch)
    mark_validated(store, dist.tag)
    undraft(store, dist.tag)


def test_validate_names_a_metadata_file_of_the_wrong_wheel_in_one_line_and_marks_nothing(tmp_path):
    store = LocalStore(tmp_path / "store")
    dist = read_dist(build_dist(tmp_path / "dist", NIGHTLY))
    pjrt, plugin = sorted(dist.wheels, key=lambda w: "plugin" in w.name)
    wrong = core_metadata.read(plugin.path)
    sums = (dist.directory / "SHA256SUMS").read_text()  # SHA256SUMS agrees: only the PEP 658 rule can tell
    sums = re.sub(rf"\w+  {re.escape(pjrt.name)}\.metadata", f"{sha(wrong)}  {pjrt.name}.metadata", sums)
    draft_of(store, dist, {pjrt.name + ".metadata": wrong, "SHA256SUMS": sums.encode()}, tmp_path)
    result = validate(store, TAG, mark=True)
    assert [p for p in result.problems if ".metadata" in p] == [
        f"{pjrt.name}.metadata is not the METADATA of {pjrt.name} (PEP 658: it must be that file byte for byte)"]
    assert not result.ok and not result.marked and "install" not in result.checked


def test_validate_warns_about_a_wheel_without_its_metadata_file(tmp_path):
    store = LocalStore(tmp_path / "store")
    dist = read_dist(build_dist(tmp_path / "dist", NIGHTLY))
    sums = "".join(line + "\n" for line in (dist.directory / "SHA256SUMS").read_text().splitlines()
                   if ".metadata" not in line)
    draft_of(store, dist, {**{w.name + ".metadata": None for w in dist.wheels}, "SHA256SUMS": sums.encode()},
             tmp_path)
    result = validate(store, TAG, mark=False, public_index="none")
    assert result.ok, result.problems
    assert sorted(w for w in result.warnings if "PEP 658" in w) == sorted(
        f"{w.name}: no {w.name}.metadata asset (PEP 658); resolvers download the whole wheel to read "
        "its dependencies" for w in dist.wheels)


# ------------------------------------------------------------------ the index names it


STATES = ("right", "missing", "other", "edited")


@settings(max_examples=16, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(states=st.lists(st.sampled_from(STATES), min_size=2, max_size=2))
def test_the_index_names_a_metadata_file_only_when_it_is_the_wheels_metadata(states):
    """For any mix of right, missing, another wheel's and edited metadata assets, a link carries
    data-core-metadata and data-dist-info-metadata (JSON: core-metadata, dist-info-metadata)
    exactly when the right file is there, and the sha256 named is that of the bytes at the
    wheel's URL + .metadata (which are the wheel's METADATA), never the wheel's own."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        dist = read_dist(build_dist(root / "dist", NIGHTLY))
        pjrt, plugin = sorted(dist.wheels, key=lambda w: "plugin" in w.name)
        state = {pjrt.name: states[0], plugin.name: states[1]}
        other = {pjrt.name: plugin.name, plugin.name: pjrt.name}
        replace: dict[str, bytes | None] = {}
        for wheel, how in state.items():
            meta = core_metadata.read(dist.directory / wheel)
            replace[wheel + ".metadata"] = {
                "right": meta, "missing": None, "edited": meta.replace(b"Version:", b"Version: "),
                "other": core_metadata.read(dist.directory / other[wheel])}[how]
        store = LocalStore(root / "store")
        publish_with(store, dist, replace, root)
        site = root / "site"
        build_site(store, site)
        for project, wheel in ((PJRT, pjrt), (PLUGIN, plugin)):
            page = (site / "nightly" / project / "index.html").read_text()
            [item] = json.loads((site / "nightly" / project / "index.json").read_text())["files"]
            [link] = re.findall(r"<a [^>]*>", page)
            if state[wheel.name] == "right":
                with urllib.request.urlopen(item["url"] + ".metadata", timeout=30) as answer:
                    served = answer.read()
                assert served == core_metadata.read(wheel.path)
                digest = sha(served)
                assert digest != item["hashes"]["sha256"]
                assert item["core-metadata"] == item["dist-info-metadata"] == {"sha256": digest}
                assert f'data-core-metadata="sha256={digest}"' in link
                assert f'data-dist-info-metadata="sha256={digest}"' in link
            else:
                assert "core-metadata" not in item and "dist-info-metadata" not in item
                assert "metadata" not in link


def test_an_old_release_without_metadata_files_stays_listed_without_the_attribute(tmp_path):
    store = LocalStore(tmp_path / "store")
    old = read_dist(build_dist(tmp_path / "dist", "0.9.1.dev20261121"))
    publish_with(store, old, {w.name + ".metadata": None for w in old.wheels}, tmp_path)
    without_index_facts(store, old.tag)  # old: its notes do not record its wheels' facts either
    new = read_dist(build_dist(tmp_path / "dist", NIGHTLY))
    publish_with(store, new, {}, tmp_path)
    site = tmp_path / "site"
    first = build_site(store, site)
    files = json.loads((site / "nightly" / PLUGIN / "index.json").read_text())["files"]
    assert {f["filename"].split("-")[1]: "core-metadata" in f for f in files} == {
        "0.9.1.dev20261121": False, NIGHTLY: True}
    assert first["range_reads"] > 0
    assert first["without_core_metadata"] == sorted(w.name for w in old.wheels)
    # the METADATA's sha256 is kept by the wheel's: a re-run reads no wheel and writes the same site
    again = build_site(store, site)
    assert again["range_reads"] == 0 and again["changed"] is False
    state = json.loads((site / ".index-state.json").read_text())["wheel_facts"]
    assert all(len(f["metadata_sha256"]) == 64 for f in state.values())
    # a state written before it knew the METADATA's sha256 is read again, not trusted
    for facts in state.values():
        del facts["metadata_sha256"]
    raw = json.loads((site / ".index-state.json").read_text())
    raw["wheel_facts"] = state
    (site / ".index-state.json").write_text(json.dumps(raw))
    third = build_site(store, site)
    assert third["range_reads"] > 0
    assert (site / "nightly" / PLUGIN / "index.json").read_text().count('"core-metadata"') == 1


def test_a_metadata_asset_that_is_not_at_the_wheels_url_plus_metadata_is_not_named(tmp_path):
    """pip and uv look for the file at the wheel's URL + .metadata only: a store that keeps it
    elsewhere (a host that renamed it, another path) gets no attribute, or pip would 404."""
    store = LocalStore(tmp_path / "store")
    dist = read_dist(build_dist(tmp_path / "dist", NIGHTLY))
    publish_with(store, dist, {}, tmp_path)
    original = store.list_assets
    store.list_assets = lambda rel: [dataclasses.replace(a, url=a.url.replace("/assets/", "/elsewhere/"))
                                     if a.name.endswith(".metadata") else a for a in original(rel)]
    result = build_site(store, tmp_path / "site")
    assert result["without_core_metadata"] == sorted(w.name for w in dist.wheels)
    assert "core-metadata" not in (tmp_path / "site" / "nightly" / PLUGIN / "index.html").read_text()


def test_a_store_that_records_no_sha256_still_gets_the_right_metadata_hash(tmp_path):
    """An asset record without a digest: the wheel is downloaded once to hash it (and its
    METADATA), the small metadata file is hashed too; the names still follow the bytes."""
    store = LocalStore(tmp_path / "store")
    dist = read_dist(build_dist(tmp_path / "dist", NIGHTLY))
    publish_with(store, dist, {}, tmp_path)
    original = store.list_assets
    store.list_assets = lambda rel: [dataclasses.replace(a, digest=None) for a in original(rel)]
    result = build_site(store, tmp_path / "site")
    assert result["without_core_metadata"] == []
    assert sorted(result["fetched"]) == sorted([*(w.name for w in dist.wheels),
                                                *(w.name + ".metadata" for w in dist.wheels)])
    for project, wheel in ((PJRT, next(w for w in dist.wheels if "pjrt" in w.name)),
                           (PLUGIN, next(w for w in dist.wheels if "plugin" in w.name))):
        [item] = json.loads((tmp_path / "site" / "nightly" / project / "index.json").read_text())["files"]
        assert item["core-metadata"] == {"sha256": sha(core_metadata.read(wheel.path))}
