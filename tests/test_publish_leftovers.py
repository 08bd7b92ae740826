"""Temporary ``NAME.new`` assets a replacement leaves behind when a run dies: a re-run removes
them and nothing else, on GitHub and in the local store, for full and partial (one cell) runs."""

from __future__ import annotations

import pytest

from release.publish.drafts import TEMP_SUFFIX, publish_draft, publish_partial, read_dist
from release.publish.stores import LocalStore
from tests.support.publish_dist import gh_store

NIGHTLY = "0.9.1.dev20261122"


def assets_of(store, dist) -> dict[str, tuple[int, str]]:
    """name -> (size, sha256) of the draft's assets, hashed from their bytes."""
    import hashlib
    import tempfile
    from pathlib import Path
    draft = store.find_draft(dist.tag) if hasattr(store, "find_draft") else None
    if draft is None:
        draft = next(r for r in store.list_releases() if r.draft and r.tag == dist.tag)
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        for asset in store.list_assets(draft):
            data = store.download_asset(draft, asset, Path(tmp) / asset.name).read_bytes()
            out[asset.name] = (len(data), hashlib.sha256(data).hexdigest())
    return out


def wanted(dist) -> dict[str, tuple[int, str]]:
    return {a.name: (a.size, a.digest) for a in dist.assets}


@pytest.fixture(params=["github", "local"])
def store(request, fake_github, tmp_path):
    return gh_store(fake_github) if request.param == "github" else LocalStore(tmp_path / "releases")


def leave_behind(store, dist, name: str, source) -> None:
    """What a run that died after uploading ``name`` + ``.new`` leaves: the temporary copy."""
    draft = next(r for r in store.list_releases() if r.draft and r.tag == dist.tag)
    store.upload_asset(draft, source, name + TEMP_SUFFIX)


def test_leftover_of_a_finished_replacement_is_removed(store, make_dist):
    """NAME already holds the right bytes and NAME.new is a copy of them: delete NAME.new only."""
    dist = read_dist(make_dist(NIGHTLY))
    publish_draft(store, dist)
    target = next(a for a in dist.assets if a.name == "revisions.json")
    leave_behind(store, dist, target.name, target.path)
    result = publish_draft(store, dist)
    assert [(a["action"], a["asset"]) for a in result["actions"]] == [
        ("delete", "revisions.json" + TEMP_SUFFIX)]
    assert assets_of(store, dist) == wanted(dist)


def test_leftover_with_new_bytes_replaces_the_old_asset(store, make_dist):
    """The run died after uploading the new bytes under NAME.new: the re-run keeps those bytes
    (deletes the old NAME, renames NAME.new) and does not upload them again."""
    old = read_dist(make_dist(NIGHTLY))
    publish_draft(store, old)
    new = read_dist(make_dist(NIGHTLY, commits={"jax": "3" * 40}))
    target = next(a for a in new.assets if a.name == "revisions.json")
    leave_behind(store, new, target.name, target.path)
    result = publish_draft(store, new)
    steps = [(a["action"], a["asset"]) for a in result["actions"]]
    mine = [s for s in steps if s[1].startswith("revisions.json")]
    assert mine == [("delete", "revisions.json"), ("rename", "revisions.json" + TEMP_SUFFIX)]
    assert assets_of(store, new) == wanted(new)


def test_partial_run_removes_its_own_leftover_and_keeps_other_cells(store, make_dist, tmp_path):
    """A cell (prune off) still removes the NAME.new of a name it owns."""
    full = read_dist(make_dist(NIGHTLY))
    publish_draft(store, full)
    wheel = next(a for a in full.assets if a.name.startswith("jax_rocm7_pjrt"))
    leave_behind(store, full, wheel.name, wheel.path)
    cell_dir = tmp_path / "cell" / NIGHTLY
    cell_dir.mkdir(parents=True)
    import shutil
    share = (wheel.name, wheel.name + ".metadata", "revisions.json")  # a cell's wheel with its PEP 658 file
    for a in full.assets:
        if a.name in share:
            shutil.copy(a.path, cell_dir / a.name)
    (cell_dir / "SHA256SUMS").write_text("".join(
        f"{a.digest}  {a.name}\n" for a in full.assets if a.name in share))
    cell = read_dist(cell_dir, partial=True)
    result = publish_partial(store, cell)
    assert [(a["action"], a["asset"]) for a in result["actions"]] == [
        ("delete", wheel.name + TEMP_SUFFIX)]
    assert assets_of(store, full) == wanted(full)
