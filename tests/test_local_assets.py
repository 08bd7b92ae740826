"""A local store's asset files, vouched for or read by the index through one scan and one open
directory a release (``LocalStore.vouch_asset``, ``read_asset_range``): whatever is asked first,
in whatever order, a link, a FIFO or a directory where an asset's file goes is refused in one
line naming the asset, as each file's own check refused it; a change made before a listing (or
before the store's own write) is seen; the store holds at most one directory open."""

from __future__ import annotations

import gc
import os
import shutil
from pathlib import Path

import pytest

from release.core.errors import UserError
from release.publish.stores import LocalStore

TAGS = ("rocm-jax-v0.9.1.dev20261121", "rocm-jax-v0.9.1.dev20261122")
NAMES = ("jax_rocm7_pjrt-{v}-py3-none-manylinux_2_28_x86_64.whl",
         "jax_rocm7_plugin-{v}-cp312-cp312-manylinux_2_28_x86_64.whl")
KINDS = ("link", "fifo", "directory")


def _store(tmp_path: Path) -> LocalStore:
    """Two published releases of two wheels each (22 bytes: an empty zip's end record)."""
    store = LocalStore(tmp_path / "store")
    for tag in TAGS:
        release = store.create_draft(tag, name=tag, body="notes", prerelease=True)
        for name in NAMES:
            path = tmp_path / name.format(v=tag.rsplit("-v", 1)[1])
            path.write_bytes(b"PK\x05\x06" + bytes(18))
            store.upload_asset(release, path, path.name)
        store.publish(release, prerelease=True, make_latest=False)
    return store


def _spoil(store: LocalStore, release, name: str, kind: str, outside: Path) -> None:
    """Put a ``kind`` where the asset ``name`` of ``release`` is (a link to its own bytes, moved out)."""
    path = store.directory / str(release.id) / "assets" / name
    if kind == "link":
        outside.mkdir(exist_ok=True)
        shutil.move(path, outside / name)
        path.symlink_to(outside / name)
        return
    path.unlink()
    os.mkfifo(path) if kind == "fifo" else path.mkdir()


def _refused(ask, name: str, kind: str) -> None:
    with pytest.raises(UserError) as caught:
        ask()
    said = str(caught.value)
    assert name in said and "\n" not in said
    assert ("symbolic link" in said) == (kind == "link")


def _ask(store: LocalStore, how: str, release, asset):
    return (lambda: store.vouch_asset(release, asset)) if how == "vouch" else \
        (lambda: store.read_asset_range(release, asset, 0, 22))


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("how", ["vouch", "read"])
@pytest.mark.parametrize("before", ["nothing", "its sibling", "the other release"])
def test_an_asset_that_is_no_regular_file_is_refused_whatever_was_asked_before(tmp_path, kind, how, before):
    store = _store(tmp_path)
    first, second = store.list_releases()
    _spoil(store, first, NAMES[1].format(v=first.tag.rsplit("-v", 1)[1]), kind, tmp_path / "outside")
    assets = {r.id: store.list_assets(r) for r in (first, second)}
    if before == "its sibling":
        store.vouch_asset(first, assets[first.id][0])
        assert store.read_asset_range(first, assets[first.id][0], 0, 4) == b"PK\x05\x06"
    elif before == "the other release":
        for asset in assets[second.id]:
            store.vouch_asset(second, asset)
    spoilt = assets[first.id][1]
    _refused(_ask(store, how, first, spoilt), spoilt.name, kind)
    _refused(_ask(store, "read" if how == "vouch" else "vouch", first, spoilt), spoilt.name, kind)
    for asset in assets[second.id]:  # the other release's wheels are as they were
        store.vouch_asset(second, asset)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("how", ["vouch", "read"])
@pytest.mark.parametrize("then", ["a new listing", "a write to the store"])
def test_a_change_after_a_vouch_is_seen_after_the_next_listing_or_write(tmp_path, kind, how, then):
    """What the index does on its next run (it lists again), and what any writer's change
    brings: the scan a vouch answered from is not used past either."""
    store = _store(tmp_path)
    first, second = store.list_releases()
    asset = store.list_assets(first)[0]
    store.vouch_asset(first, asset)
    store.read_asset_range(first, asset, 0, 4)
    _spoil(store, first, asset.name, kind, tmp_path / "outside")
    if then == "a new listing":
        asset = store.list_assets(first)[0]
    else:
        draft = store.create_draft("rocm-jax-v0.9.1.dev20261123", name="n", body="notes", prerelease=True)
        store.delete_release(draft)
    _refused(_ask(store, how, first, asset), asset.name, kind)


@pytest.mark.parametrize("how", ["vouch", "read"])
def test_a_linked_assets_directory_is_refused_for_every_asset(tmp_path, how):
    store = _store(tmp_path)
    first, _ = store.list_releases()
    folder = store.directory / str(first.id) / "assets"
    shutil.move(folder, tmp_path / "outside")
    folder.symlink_to(tmp_path / "outside")
    for asset in store.list_assets(first):
        with pytest.raises(UserError, match=rf"{first.id}/assets is a symbolic link"):
            _ask(store, how, first, asset)()


def _open_fds(under: Path) -> int:
    """This process's descriptors open on ``under`` or below (what other tests of the same worker
    left for the garbage collector is not the store's)."""
    count = 0
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:  # the listing's own descriptor, closed by now
            continue
        count += target == str(under) or target.startswith(f"{under}/")
    return count


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="counts descriptors in /proc")
def test_the_store_holds_at_most_one_directory_open_and_none_once_gone(tmp_path):
    store = _store(tmp_path)
    assert _open_fds(tmp_path) == 0
    releases = store.list_releases()
    for _ in range(3):
        for release in releases:
            for asset in store.list_assets(release):
                store.vouch_asset(release, asset)
                store.read_asset_range(release, asset, 0, 4)
                assert _open_fds(tmp_path) <= 1
    del store
    gc.collect()
    assert _open_fds(tmp_path) == 0
