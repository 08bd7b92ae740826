"""A tampered local store is one line and exit 2, never a traceback, and nothing is written:
generated release.json and store.json records run through the commands that read a store."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from release.core.errors import UserError
from release.publish.stores import LocalStore

TAG = "rocm-jax-v0.9.1.dev20261121"
JSON_VALUES = st.recursive(st.none() | st.booleans() | st.integers(-5, 10**6) | st.floats(allow_nan=False)
                           | st.text(max_size=8), lambda inner: st.lists(inner, max_size=3)
                           | st.dictionaries(st.text(max_size=6), inner, max_size=3), max_leaves=6)


def _store(tmp_path: Path) -> tuple[LocalStore, Path]:
    store = LocalStore(tmp_path / "store")
    release = store.create_draft(TAG, name=TAG, body="notes", prerelease=True)
    wheel = tmp_path / "jax_rocm7_pjrt-0.9.1.dev20261121-py3-none-manylinux_2_28_x86_64.whl"
    wheel.write_bytes(b"PK\x05\x06" + b"\0" * 18)
    store.upload_asset(release, wheel, wheel.name)
    store.publish(release, prerelease=True, make_latest=False)
    return store, store.directory / str(release.id) / "release.json"


def _snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
            and p.name != ".lock"}


@pytest.fixture(scope="module")
def pristine(tmp_path_factory):
    _, path = _store(tmp_path_factory.mktemp("pristine"))
    return json.loads(path.read_text())


def _tampered(pristine: dict, key: str, value: object, where: str) -> object:
    data = json.loads(json.dumps(pristine))
    if where == "release":
        if value is _DROP:
            data.pop(key, None)
        else:
            data[key] = value
    elif value is _DROP:
        data["assets"][0].pop(key, None)
    else:
        data["assets"][0][key] = value
    return data


_DROP = object()
RECORD_KEYS = ["id", "tag", "draft", "prerelease", "assets", "created_at", "published_at", "name", "body"]


@given(key=st.sampled_from(RECORD_KEYS), value=JSON_VALUES | st.just(_DROP),
       where=st.sampled_from(["release", "asset"]))
@example(key="tag", value=_DROP, where="release")
@example(key="published_at", value="yesterday", where="release")
@example(key="assets", value=5, where="release")
@example(key="id", value="1", where="asset")
@example(key="size", value="12", where="asset")
def test_any_tampered_release_record_is_one_line_and_exit_2(tmp_path_factory, run_cli, pristine, key, value, where):
    root = tmp_path_factory.mktemp("tampered")
    _, path = _store(root)
    data = _tampered(pristine, key if where == "release" else ("size" if key not in ("id", "name") else key),
                     value, where)
    path.write_text(json.dumps(data))
    before = _snapshot(root / "store")
    for argv in (("gc", "--keep", "1", "--dry-run"), ("index", "--out", root / "site")):
        code, out, err = run_cli(*argv, "--store", "local", "--store-dir", root / "store", "--json")
        assert code in (0, 2), err
        assert "Traceback" not in err and err.count("\n") <= (1 if code else err.count("\n"))
        if code == 2 and argv[0] == "gc":
            assert str(path) in err
    assert _snapshot(root / "store") == before


@pytest.mark.parametrize("text", ["not json", "[]", "[" * 10_000, '{"id": ' + "9" * 5000 + "}", "\xff"])
@pytest.mark.parametrize("which", ["release.json", "store.json"])
def test_an_unreadable_store_file_is_one_line(tmp_path, run_cli, text, which):
    store, path = _store(tmp_path)
    target = path if which == "release.json" else store.directory / "store.json"
    target.write_bytes(text.encode("utf-8") if text != "\xff" else b"\xff")
    before = _snapshot(store.directory)
    if which == "release.json":
        code, out, err = run_cli("gc", "--keep", "1", "--store", "local", "--store-dir", store.directory)
        assert code == 2 and err.count("\n") == 1 and "Traceback" not in err, err
        assert str(target) in err
    else:  # store.json is read when the store writes: a new draft
        with pytest.raises(UserError, match="store.json") as caught:
            store.create_draft("rocm-jax-v0.9.2", name="x", body="", prerelease=False)
        assert "\n" not in str(caught.value)
    assert _snapshot(store.directory) == before


@pytest.mark.parametrize("where, key, value, expected", [
    ("asset", "size", -1, "has 'size' -1; expected 0 or more"),
    ("asset", "size", True, "has bool 'size'; expected int"),
    ("asset", "id", False, "has bool 'id'; expected int"),
    ("asset", "size", 1.5, "has float 'size'; expected int"),
    ("asset", "digest", 7, "has int 'digest'; expected str"),
    ("release", "id", -3, "has 'id' -3; expected 0 or more"),
    ("release", "draft", 1, "has int 'draft'; expected bool"),
    ("release", "tag", None, "has nothing 'tag'; expected str"),
    ("release", "name", [], "has list 'name'; expected str"),
    ("release", "published_at", "soon", "has 'published_at' that is not an ISO 8601 time"),
])
def test_each_member_of_a_record_is_of_its_type_and_not_below_zero(tmp_path, pristine, where, key, value, expected):
    """A record read for a listing is checked member by member: a bool is no integer, an integer
    no bool, nothing is below 0 (one line naming the file and the member); the pristine one reads."""
    from release.publish.local_records import BadRecord, release_record

    folder = tmp_path / str(pristine["id"])
    folder.mkdir()
    path = folder / "release.json"
    path.write_text(json.dumps(pristine))
    assert release_record(path) == pristine
    path.write_text(json.dumps(_tampered(pristine, key, value, where)))
    with pytest.raises(BadRecord) as caught:
        release_record(path)
    assert str(caught.value).startswith(f"{path}: ") and expected in str(caught.value)


# ------------------------------------------------------------------ range reads of an asset


@pytest.fixture(scope="module")
def an_asset(tmp_path_factory):
    """A store with one asset of 70,000 bytes no two 4-byte windows alike (a range read at the wrong
    offset or of the wrong length gives other bytes)."""
    root = tmp_path_factory.mktemp("ranged")
    store = LocalStore(root / "store")
    release = store.create_draft(TAG, name=TAG, body="notes", prerelease=True)
    data = b"".join(i.to_bytes(4, "big") for i in range(17_500))
    path = root / "x-1.0-py3-none-any.whl"
    path.write_bytes(data)
    asset = store.upload_asset(release, path, path.name)
    return store, release, asset, data


@given(start=st.integers(0, 70_010), length=st.integers(0, 70_010))
@example(start=0, length=70_000)  # the whole file
@example(start=70_000 - 22, length=22)  # a zip's end record
@example(start=69_990, length=65_536)  # past the end: what is there
@example(start=5, length=1)
def test_a_range_read_is_exactly_those_bytes_of_the_asset(an_asset, start, length):
    store, release, asset, data = an_asset
    assert store.read_asset_range(release, asset, start, length) == data[start:start + length]


def test_a_range_read_goes_on_after_a_short_read(an_asset, monkeypatch):
    """``pread`` may return fewer bytes than asked before the end: the read goes on from there,
    and the range is the file's bytes, whole and in order."""
    import os
    store, release, asset, data = an_asset
    real = os.pread
    monkeypatch.setattr(os, "pread", lambda fd, n, at: real(fd, min(n, 4096), at))
    assert store.read_asset_range(release, asset, 3, 69_990) == data[3:69_993]


def test_a_release_s_assets_are_read_through_its_opened_assets_directory(an_asset, tmp_path):
    """``open_assets`` opens the release's own ``assets`` directory (its regular files are its
    assets); a range read given that descriptor opens the name in it, whatever is at the path,
    and a refusal there names the caller's ``where``."""
    import os

    from release.publish import local_records as lr
    store, release, asset, data = an_asset
    folder = lr.open_assets(store.directory, release.id)
    assert folder is not None
    try:
        assert lr.regular_names(folder) == {asset.name}
        assert lr.read_asset_range(store.directory, release.id, asset.name, "here", 0, 9, folder) == data[:9]
    finally:
        os.close(folder)
    other = tmp_path / "other"
    other.mkdir()
    (other / asset.name).write_bytes(b"other bytes")
    (other / "not-a-file").mkdir()
    folder = os.open(other, os.O_RDONLY | os.O_DIRECTORY)
    try:
        assert lr.read_asset_range(store.directory, release.id, asset.name, "here", 0, 5, folder) == b"other"
        with pytest.raises(lr.BadRecord, match=r"^here: asset not-a-file of release \d+ is a directory"):
            lr.read_asset_range(store.directory, release.id, "not-a-file", "here", 0, 5, folder)
    finally:
        os.close(folder)
    (tmp_path / "empty").mkdir()  # a name the given directory does not hold is taken again by path
    folder = os.open(tmp_path / "empty", os.O_RDONLY | os.O_DIRECTORY)
    try:
        assert lr.read_asset_range(store.directory, release.id, asset.name, "here", 0, 9, folder) == data[:9]
    finally:
        os.close(folder)
    with pytest.raises(UserError, match=r"^here: file name '\.\./x\.whl' refused"):
        lr.read_asset_range(store.directory, release.id, "../x.whl", "here", 0, 5)
    (tmp_path / "9").mkdir()
    (tmp_path / "9" / "assets").write_bytes(b"")  # a file where the directory goes: not opened
    assert lr.open_assets(tmp_path, 9) is None


@pytest.mark.parametrize("through_folder", [False, True])
def test_a_link_where_an_asset_or_its_directory_goes_is_refused_in_one_whole_line(tmp_path, through_folder):
    """A link as the asset's file (opened in its directory) or as its ``assets`` directory (by
    path, or by path again when the given directory lacks the name) is refused, naming the
    caller's ``where`` and saying nothing was read."""
    import os

    from release.publish import local_records as lr
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "x.whl").write_bytes(b"x")
    (tmp_path / "5").mkdir()
    (tmp_path / "5" / "assets").symlink_to(tmp_path / "elsewhere")
    (tmp_path / "6" / "assets").mkdir(parents=True)
    (tmp_path / "6" / "assets" / "x.whl").symlink_to(tmp_path / "elsewhere" / "x.whl")
    (tmp_path / "empty").mkdir()
    folder = os.open(tmp_path / "empty", os.O_RDONLY | os.O_DIRECTORY) if through_folder else None
    try:
        with pytest.raises(lr.BadRecord) as caught:
            lr.read_asset_range(tmp_path, 5, "x.whl", "here", 0, 1, folder)
        assert str(caught.value) == ("here: 5/assets is a symbolic link; expected the directory this tool "
                                     "wrote (nothing was read through it)")
    finally:
        if folder is not None:
            os.close(folder)
    folder = lr.open_assets(tmp_path, 6) if through_folder else None
    try:
        with pytest.raises(lr.BadRecord) as caught:
            lr.read_asset_range(tmp_path, 6, "x.whl", "here", 0, 1, folder)
        assert str(caught.value) == (f"here: asset x.whl of release 6 is a symbolic link (to {tmp_path}/"
                                     "elsewhere/x.whl); expected a file this tool wrote (nothing was read)")
    finally:
        if folder is not None:
            os.close(folder)


def test_an_asset_opened_for_a_download_reads_its_bytes_blocking(an_asset):
    """``open_asset`` gives the asset's file for reading in binary, set back to blocking (it
    was opened non-blocking so a FIFO never waits): a whole read is the whole file."""
    import os

    from release.publish import local_records as lr
    store, release, asset, data = an_asset
    with lr.open_asset(store.directory, release.id, asset.name, "here") as file:
        assert os.get_blocking(file.fileno()) and file.mode == "rb"
        assert file.read() == data


def test_an_asset_vouched_for_or_read_by_path_that_is_no_file_is_one_whole_line(tmp_path):
    """A directory where an asset's file goes, vouched for (listed unread) or read by its path,
    is refused in one line naming where, the asset, its release and what it is."""
    from release.publish import local_records as lr
    (tmp_path / "7" / "assets" / "x.whl").mkdir(parents=True)
    line = "here: asset x.whl of release 7 is a directory; expected a file this tool wrote"
    with pytest.raises(lr.BadRecord) as caught:
        lr.vouch_asset(tmp_path, 7, "x.whl", "here")
    assert str(caught.value) == line
    with pytest.raises(lr.BadRecord) as caught:
        lr.read_asset_range(tmp_path, 7, "x.whl", "here", 0, 1)
    assert str(caught.value) == line


@pytest.mark.parametrize("kind", ["fifo", "directory"])
def test_a_range_read_of_an_asset_that_is_no_file_is_one_line_and_never_waits(tmp_path, kind):
    """A FIFO (no writer: a blocking open would wait for ever) or a directory where the asset's file
    goes is refused, naming the asset and what it is."""
    import os
    store, _ = _store(tmp_path)
    release = store.list_releases()[0]
    asset = store.list_assets(release)[0]
    path = store.directory / str(release.id) / "assets" / asset.name
    path.unlink()
    os.mkfifo(path) if kind == "fifo" else path.mkdir()
    with pytest.raises(UserError) as caught:
        store.read_asset_range(release, asset, 0, 22)
    assert asset.name in str(caught.value) and "\n" not in str(caught.value)
    with pytest.raises(UserError) as caught:  # a download opens it by its path
        store.download_asset(release, asset, tmp_path / "copy")
    assert asset.name in str(caught.value) and "\n" not in str(caught.value)
    assert not (tmp_path / "copy").exists() and not (tmp_path / "copy.part").exists()


ASSET_KEYS = ["id", "name", "size", "digest", "created_at", "published_at", "state"]


@given(asset=st.dictionaries(st.sampled_from(ASSET_KEYS), JSON_VALUES | st.sampled_from(
           [0, 7, "x.whl", "2026-11-21T00:00:00Z", "soon", None, True]), max_size=7)
       | JSON_VALUES)
@example(asset={"id": 1, "name": "x.whl", "size": 3, "digest": None, "created_at": "soon"})
@example(asset={"id": 1, "name": "x.whl", "size": 3, "published_at": "soon"})
@example(asset={"id": 1, "name": "x.whl", "size": 3})
@example(asset={"id": 1, "name": "x.whl", "size": 3, "digest": "ab", "state": [1]})
def test_an_asset_record_is_read_exactly_when_every_check_of_its_members_passes(tmp_path_factory, pristine, asset):
    """Asset records as the store writes them are passed in one expression (a season holds
    12,000): a record is read exactly when the member-by-member check passes it, and refused
    with that check's line otherwise."""
    from release.publish.local_records import _ASSET_OPTIONAL, _ASSET_TYPES, BadRecord, _check, release_record

    folder = tmp_path_factory.mktemp("asset") / str(pristine["id"])
    folder.mkdir()
    path = folder / "release.json"
    path.write_text(json.dumps({**pristine, "assets": [asset]}))
    try:
        _check(path, "an asset record", asset, _ASSET_TYPES, _ASSET_OPTIONAL)
    except BadRecord as exc:
        with pytest.raises(BadRecord) as caught:
            release_record(path)
        assert str(caught.value) == str(exc)
    else:
        assert release_record(path)["assets"] == [asset]


@pytest.mark.parametrize("asset", [
    {"id": 0, "name": "x.whl", "size": 0, "digest": None},
    {"id": 7, "name": "jax-0.9.1-py3-none-any.whl", "size": 3, "digest": "sha256:ab"},
    {"id": 7, "name": "", "size": 2**40},  # a record without a digest, as an older store wrote it
])
def test_an_asset_record_as_the_store_writes_it_is_passed_without_the_member_by_member_check(
        tmp_path, pristine, monkeypatch, asset):
    """A season's 12,000 asset records are as the store writes them (ids and sizes from 0, a name,
    a digest or none, no time): each is passed in one expression, never ``_check``'s walk of its
    members (which still decides every other record, above)."""
    from release.publish import local_records

    walked = []
    real = local_records._check
    monkeypatch.setattr(local_records, "_check", lambda path, what, data, *rest: walked.append(what)
                        or real(path, what, data, *rest))
    folder = tmp_path / str(pristine["id"])
    folder.mkdir()
    (folder / "release.json").write_text(json.dumps({**pristine, "assets": [asset, asset]}))
    assert local_records.release_record(folder / "release.json")["assets"] == [asset, asset]
    assert walked == ["the release record"]


@pytest.mark.parametrize("record_id, folder", [(8, "7"), (7, "07"), (70, "7")])
def test_a_release_record_whose_id_is_not_its_directory_s_name_is_one_line_naming_both(tmp_path, pristine,
                                                                                      record_id, folder):
    """A record moved or copied into another release's directory is refused, saying the id it
    has and the directory name it was expected to match."""
    from release.publish.local_records import BadRecord, release_record

    path = tmp_path / folder / "release.json"
    path.parent.mkdir()
    path.write_text(json.dumps({**pristine, "id": record_id}))
    with pytest.raises(BadRecord) as caught:
        release_record(path)
    assert str(caught.value) == (f"{path}: the release record has id {record_id}; expected {folder}, its "
                                 "directory's name")


_PLAIN_ASSET = {"id": 7, "name": "x.whl", "size": 3, "digest": "sha256:ab"}


def test_the_records_the_store_writes_are_decided_in_one_pass_of_their_members(tmp_path, pristine):
    """The release record, its asset records and the store's state, as the store writes them,
    are passed by the one pass over their members' exact types (``_well_typed``); only a record
    it does not pass takes the walk that says what is wrong."""
    from release.publish import local_records as lr

    store, _ = _store(tmp_path)
    state = json.loads((store.directory / "store.json").read_text())
    assert lr._well_typed(pristine, lr._RELEASE_TYPES, lr._RELEASE_OPTIONAL)
    assert lr._well_typed({**pristine, "name": None, "body": None}, lr._RELEASE_TYPES, lr._RELEASE_OPTIONAL)
    for asset in (*pristine["assets"], _PLAIN_ASSET, {"id": 0, "name": "x.whl", "size": 0, "digest": None}):
        assert lr._well_typed(asset, lr._ASSET_TYPES, lr._ASSET_OPTIONAL), asset
    assert lr._well_typed(state, {"next_id": (int,), "burned_tags": (list,)}, {})
    for member in ("id", "tag", "assets"):  # one required member missing: the walk says which
        assert not lr._well_typed({k: v for k, v in pristine.items() if k != member}, lr._RELEASE_TYPES,
                                  lr._RELEASE_OPTIONAL)


@pytest.mark.parametrize("member, value, words", [
    ("id", -1, "'id' -1; expected 0 or more"), ("size", -1, "'size' -1; expected 0 or more"),
    ("id", True, "bool 'id'; expected int"), ("size", False, "bool 'size'; expected int"),
    ("id", 7.0, "float 'id'; expected int"), ("name", None, "nothing 'name'; expected str"),
    ("name", 5, "int 'name'; expected str"), ("digest", 5, "int 'digest'; expected str"),
    ("digest", ["ab"], "list 'digest'; expected str"),
    ("created_at", "soon", "'created_at' that is not an ISO 8601 time"),
    ("published_at", "soon", "'published_at' that is not an ISO 8601 time"),
])
def test_an_asset_record_one_member_off_the_stores_own_is_refused_saying_which(tmp_path, pristine, member,
                                                                               value, words):
    """A record one member away from what the store writes is refused by the member-by-member
    check's line, never passed by the quick one."""
    from release.publish.local_records import BadRecord, release_record

    folder = tmp_path / str(pristine["id"])
    folder.mkdir()
    (folder / "release.json").write_text(json.dumps({**pristine, "assets": [_PLAIN_ASSET, {
        **_PLAIN_ASSET, member: value}]}))
    with pytest.raises(BadRecord, match=f"an asset record has {words}"):
        release_record(folder / "release.json")


@pytest.mark.parametrize("folder", ["store", "a store", "é%20#?", "x+y~z"])
def test_a_listed_release_and_its_assets_link_where_their_files_are(tmp_path, folder):
    """The URLs a listing gives (made as text, not a Path per release and asset) are the file
    URIs of the release's directory and each asset's file, wherever the store is."""
    store = LocalStore(tmp_path / folder)
    release = store.create_draft(TAG, name=TAG, body="notes", prerelease=True)
    for name in ("x-1.0-py3-none-any.whl", "a+b~c%d é.whl.jsonl"):
        (tmp_path / name).write_bytes(b"x")
        store.upload_asset(release, tmp_path / name, name)
    store.publish(release, prerelease=True, make_latest=False)
    [listed] = store.list_releases()
    where = store.directory / str(release.id)
    assert listed.html_url == where.as_uri()
    assert {a.url for a in store.list_assets(listed)} == {(where / "assets" / n).as_uri() for n in (
        "x-1.0-py3-none-any.whl", "a+b~c%d é.whl.jsonl")}


@pytest.mark.parametrize("record", [{}, {"digest": None}])
def test_an_asset_record_without_a_digest_lists_an_asset_of_unknown_digest(tmp_path, pristine, record):
    """``digest`` is optional in an asset record (the checks pass one without it, as an older or
    hand-made record may be): it lists with no digest, never a traceback."""
    store, path = _store(tmp_path)
    data = json.loads(path.read_text())
    data["assets"][0].pop("digest")
    data["assets"][0].update(record)
    path.write_text(json.dumps(data))
    fresh = LocalStore(store.directory)
    [asset] = fresh.list_assets(fresh.list_releases()[0])
    assert asset.digest is None and asset.name == pristine["assets"][0]["name"]
