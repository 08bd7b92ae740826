"""State a hostile neighbour or an older version left: a symbolic link swapped in for ``--out``
or a store's release directory, links where the index's staging directories and locks go, and
drafts gc keeps that can never be published. Each is one line or recovered, never a traceback,
a followed link or a lasting mess."""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
from pathlib import Path
from typing import Iterator

import pytest
from packaging.version import Version

from release.core.errors import UserError
from release.publish.index import write_index
from release.publish.stores import LocalStore
from tests.support.site_scans import each_scan_reads_its_tree_once  # noqa: F401  (autouse: every test here)

VERSION = "0.9.1.dev20261122"



def files_of(root: Path) -> dict[str, str]:
    """Every file under ``root`` (links not followed) with its sha256."""
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file() and not p.is_symlink()}


@pytest.fixture
def wheels(make_dist) -> list[Path]:
    return sorted(make_dist(VERSION).glob("*.whl"))


@pytest.fixture
def precious(tmp_path) -> Path:
    """Someone's directory a link may point at: nothing of it may change."""
    folder = tmp_path / "someones"
    (folder / "deep").mkdir(parents=True)
    (folder / "notes.txt").write_text("keep me\n")
    (folder / "deep" / "index.html").write_text("<p>theirs</p>\n")
    return folder


def swapped(wheels: list[Path], site: Path, replace) -> Iterator[Path]:
    """The wheels, with SITE replaced (by ``replace(site)``) after the first one is read: the
    swap happens while the index is being written, after ``--out`` was checked."""
    for n, wheel in enumerate(wheels):
        if n == 1:
            replace(site)
        yield wheel


def _to_link(target: Path):
    def replace(site: Path) -> None:
        import shutil
        shutil.rmtree(site)
        site.symlink_to(target)
    return replace


def _to_file(site: Path) -> None:
    import shutil
    shutil.rmtree(site)
    site.write_text("a file now\n")


@pytest.mark.parametrize("into", ["link to a directory", "dangling link", "file"])
def test_out_swapped_mid_run_is_one_line_and_nothing_is_followed(tmp_path, wheels, precious, into):
    site = tmp_path / "site"
    write_index(site, wheels[:1])
    before = files_of(precious)
    replace = {"link to a directory": _to_link(precious), "dangling link": _to_link(tmp_path / "gone"),
               "file": _to_file}[into]
    with pytest.raises(UserError) as caught:
        write_index(site, swapped(wheels, site, replace))
    assert "\n" not in str(caught.value) and "while the index was written" in str(caught.value)
    assert "nothing was changed" in str(caught.value)
    assert files_of(precious) == before  # never written through, never removed
    assert site.is_symlink() == (into != "file")  # what was put there is left for its owner
    assert not [p.name for p in tmp_path.iterdir() if p.name in (".site.new", ".site.old")]
    # the operator puts the directory back: the next run writes the site
    site.unlink()
    result = write_index(site, wheels)
    assert result["changed"] and sorted(f for fs in result["projects"].values() for f in fs if f.endswith(".whl")) \
        == sorted(w.name for w in wheels)


@pytest.mark.parametrize("names", [(".site.new",), (".site.old",), (".site.lock",),
                                   (".site.new", ".site.old", ".site.lock")])
@pytest.mark.parametrize("dangling", [False, True])
def test_links_where_staging_goes_are_removed_never_followed(tmp_path, wheels, precious, names, dangling):
    """What an older version left after a swap (``.site.new`` a link, every later run a
    traceback), or links a neighbour planted: the next run removes the links themselves."""
    site = tmp_path / "site"
    first = write_index(site, wheels[:1])
    before = files_of(precious)
    for name in names:
        (tmp_path / name).unlink(missing_ok=True)  # the lock file the first run left
        target = precious / "notes.txt" if name.endswith(".lock") else precious
        (tmp_path / name).symlink_to(tmp_path / "gone" if dangling else target)
    result = write_index(site, wheels)
    assert result["changed"] and result != first
    assert files_of(precious) == before
    assert not [n for n in names if (tmp_path / n).is_symlink()]
    assert json.loads((site / "index.json").read_text())["projects"]
    assert write_index(site, wheels)["changed"] is False  # and the run after is a no-op


def test_an_old_site_moved_aside_as_a_link_never_becomes_the_site(tmp_path, wheels, precious):
    """A crash between the fallback's two renames leaves ``.site.old``; when that is a link,
    it is removed, not renamed into SITE (SITE would then point at someone's directory)."""
    from release.publish.staging import Staging
    site = tmp_path / "site"
    (tmp_path / ".site.old").symlink_to(precious)
    with Staging(site):
        pass
    assert not site.exists() and not (tmp_path / ".site.old").is_symlink()
    assert write_index(site, wheels)["changed"] and not site.is_symlink()


# ------------------------------------------------------------------ a store's release directories


def _store(tmp_path, count: int = 3) -> LocalStore:
    store = LocalStore(tmp_path / "store")
    for day in range(20, 20 + count):
        release = store.create_draft(f"rocm-jax-v0.9.1.dev202611{day}", name="n", body="", prerelease=True)
        store.publish(release, prerelease=True, make_latest=False)
    return store


@pytest.mark.parametrize("linked", [1, 2])
def test_gc_over_a_linked_release_directory_is_one_line_and_deletes_nothing(tmp_path, run_cli, linked):
    import shutil
    store = _store(tmp_path)
    outside = tmp_path / "outside"
    shutil.move(store.directory / str(linked), outside)
    (store.directory / str(linked)).symlink_to(outside)
    before, listing = files_of(outside), sorted(p.name for p in store.directory.iterdir())
    for args in (("gc", "--keep", "1"), ("gc", "--keep", "1", "--dry-run"),
                 ("index", "--out", tmp_path / "site")):
        code, out, err = run_cli(*args, "--store", "local", "--store-dir", store.directory)
        assert code == 2, (args, err)
        assert err.count("\n") == 1 and "symbolic link" in err and f"directory {linked} " in err
        assert files_of(outside) == before and sorted(p.name for p in store.directory.iterdir()) == listing
    assert not (tmp_path / "site").exists()


def test_a_release_directory_linked_after_the_listing_is_not_deleted_through(tmp_path, precious):
    store = _store(tmp_path, 2)
    release = store.list_releases()[-1]
    import shutil
    shutil.rmtree(store.directory / str(release.id))
    (store.directory / str(release.id)).symlink_to(precious)
    before = files_of(precious)
    with pytest.raises(UserError, match="symbolic link"):
        store.delete_release(release)
    assert files_of(precious) == before and (store.directory / str(release.id)).is_symlink()
    assert not list(store.directory.glob(".deleted-*"))


@pytest.mark.parametrize("leftovers", [(".deleted-1",), (".deleted-1", ".deleted-12")])
def test_linked_leftovers_of_a_delete_are_removed_not_followed(tmp_path, precious, leftovers):
    """An older gc renamed a linked release directory to ``.deleted-N`` and then failed: the
    next change to the store removes the links, and what they point to stays."""
    store = _store(tmp_path, 2)
    before = files_of(precious)
    for name in leftovers:
        (store.directory / name).symlink_to(precious)
    (store.directory / ".lock").unlink()
    (store.directory / ".lock").symlink_to(precious / "notes.txt")
    store = LocalStore(store.directory)  # a later run
    store.delete_release(store.list_releases()[-1])
    assert not list(store.directory.glob(".deleted-*")) and not (store.directory / ".lock").is_symlink()
    assert files_of(precious) == before
    assert [r.tag for r in store.list_releases()] == ["rocm-jax-v0.9.1.dev20261121"]


NOW = _dt.datetime(2026, 11, 28, 12, tzinfo=_dt.timezone.utc)


def _rel(tag: str, *, draft: bool, day: int, rid: int, ours: bool = True):
    from release.publish.notes import MARKER
    from release.publish.records import Release
    when = _dt.datetime(2026, 11, day, 4, tzinfo=_dt.timezone.utc)
    return Release(id=rid, tag=tag, name=tag, body=MARKER if ours else "", draft=draft, prerelease=True,
                   created_at=when, published_at=None if draft else when)


def _nightly(day: int, *, draft: bool, rid: int, line: str = "0.9.1"):
    return _rel(f"rocm-jax-v{line}.dev202611{day:02d}", draft=draft, day=day, rid=rid)


@pytest.mark.parametrize("keep", [2, 3])
@pytest.mark.parametrize("red", [(14,), (12, 14)])
def test_gc_never_keeps_a_draft_no_rule_lets_publish_among_the_newest(keep, red):
    """Red nights leave drafts; a newer nightly is published, so they sort below it and can
    never be published: they are not among the newest --keep N drafts (the newest publishable
    ones are), whatever N, however many red nights."""
    from release.publish.retention import Retention, decide_drafts
    releases = [_nightly(d, draft=True, rid=d) for d in red]
    releases += [_nightly(16, draft=False, rid=16), _nightly(20, draft=True, rid=20)]
    decision = decide_drafts(releases, Retention(keep=keep), NOW)
    stale = sorted(r.tag[-8:] for r in decision.stale)
    assert all(f"202611{d}" in stale for d in red)
    assert [k.release.tag[-8:] for k in decision.kept if k.reason == "newest"] == ["20261120"]
    # a protected one still stays, and so does a young one under --older-than
    for day in red:
        rule = Retention(keep=keep, protect=frozenset({Version(f"0.9.1.dev202611{day}")}))
        assert [k.reason for k in decide_drafts(releases, rule, NOW).kept if k.version.dev == 20261100 + day] \
            == ["protected"]
    young = decide_drafts(releases, Retention(keep=keep, older_than_days=30), NOW)
    assert young.stale == () and {k.reason for k in young.kept if k.version.dev - 20261100 in red} <= {"too young"}


@pytest.mark.parametrize("blocker", ["rocm-jax-v0.9.1", "rocm-jax-v0.9.1.post1", "rocm-jax-v0.9.1.dev20261119"])
def test_a_draft_its_line_release_or_its_own_published_tag_blocks_is_not_kept_as_newest(blocker):
    """A published release or post of its line (the nightly job refuses to publish below it), or
    its own tag already published, leaves a draft nothing will publish; drafts of the next line stay."""
    from release.publish.retention import Retention, decide_drafts
    releases = [_nightly(19, draft=True, rid=1), _rel(blocker, draft=False, day=15, rid=2),
                _nightly(17, draft=True, rid=3, line="0.9.2"), _nightly(18, draft=True, rid=4, line="0.9.2")]
    decision = decide_drafts(releases, Retention(keep=3), NOW)
    assert [r.tag for r in decision.stale] == ["rocm-jax-v0.9.1.dev20261119"]
    assert sorted(k.release.tag for k in decision.kept) == ["rocm-jax-v0.9.2.dev20261117",
                                                            "rocm-jax-v0.9.2.dev20261118"]


def test_gc_deletes_the_red_nights_draft_behind_a_newer_published_nightly(tmp_path, run_cli, monkeypatch):
    from release.publish.notes import MARKER
    store = LocalStore(tmp_path / "store")
    for day in (20, 21, 23, 24):
        draft = store.create_draft(f"rocm-jax-v0.9.1.dev202611{day}", name="n", body=MARKER, prerelease=True)
        if day in (21, 24):
            store.publish(draft, prerelease=True, make_latest=False)
    monkeypatch.setenv("RELEASE_NOW", NOW.isoformat())
    code, out, err = run_cli("gc", "--keep", "3", "--store", "local", "--store-dir", store.directory, "--json")
    assert code == 0, err
    result = json.loads(out)
    assert sorted(result["deleted_drafts"]) == ["rocm-jax-v0.9.1.dev20261120", "rocm-jax-v0.9.1.dev20261123"]
    assert result["deleted"] == [] and sorted(r.tag for r in store.list_releases()) == [
        "rocm-jax-v0.9.1.dev20261121", "rocm-jax-v0.9.1.dev20261124"]


@pytest.mark.parametrize("linked", ["the wheel", "its assets directory"])
def test_an_asset_reached_through_a_link_is_refused_never_read(tmp_path, make_dist, run_cli, linked):
    """The link points at the very same bytes, elsewhere: index (range reads) and a download
    still refuse it, one line, since the store's files are only ever its own."""
    import shutil

    from tests.support.publish_dist import release_dist
    store = LocalStore(tmp_path / "store")
    dist = release_dist(store, make_dist(VERSION))
    release = store.published_for(dist.tag)
    wheel = next(a for a in store.list_assets(release) if a.name.endswith(".whl"))
    folder = store.directory / str(release.id) / "assets"
    outside = tmp_path / "outside"
    if linked == "the wheel":
        outside.mkdir()
        shutil.move(folder / wheel.name, outside / wheel.name)
        (folder / wheel.name).symlink_to(outside / wheel.name)
    else:
        shutil.move(folder, outside)
        folder.symlink_to(outside)
    code, out, err = run_cli("index", "--out", tmp_path / "site", "--store", "local", "--store-dir", store.directory)
    assert code == 2 and err.count("\n") == 1 and "symbolic link" in err, err
    assert not (tmp_path / "site").exists()
    with pytest.raises(UserError, match="symbolic link"):
        store.download_asset(release, wheel, tmp_path / "copy.whl")
    assert not (tmp_path / "copy.whl").exists() and not (tmp_path / "copy.whl.part").exists()


def test_a_wheel_made_a_link_after_an_index_run_is_refused_by_the_next_run_too(tmp_path, make_dist, run_cli):
    """The next run knows the wheel from the last run's state and the release's recorded facts, so
    it reads nothing of it; the link is refused all the same, and the site stays as it was."""
    import shutil

    from tests.support.publish_dist import release_dist
    store = LocalStore(tmp_path / "store")
    dist = release_dist(store, make_dist(VERSION))
    release = store.published_for(dist.tag)
    site = tmp_path / "site"
    code, _, err = run_cli("index", "--out", site, "--store", "local", "--store-dir", store.directory)
    assert code == 0, err
    before = sorted((p.relative_to(site), p.read_bytes()) for p in site.rglob("*") if p.is_file())
    wheel = next(a for a in store.list_assets(release) if a.name.endswith(".whl"))
    folder = store.directory / str(release.id) / "assets"
    (tmp_path / "outside").mkdir()
    shutil.move(folder / wheel.name, tmp_path / "outside" / wheel.name)
    (folder / wheel.name).symlink_to(tmp_path / "outside" / wheel.name)
    code, _, err = run_cli("index", "--out", site, "--store", "local", "--store-dir", store.directory)
    assert code == 2 and err.count("\n") == 1 and "symbolic link" in err, err
    assert sorted((p.relative_to(site), p.read_bytes()) for p in site.rglob("*") if p.is_file()) == before


@pytest.mark.parametrize("kind", ["fifo", "directory"])
@pytest.mark.parametrize("which", [0, -1])
def test_a_wheel_that_is_no_regular_file_is_refused_though_its_facts_are_recorded(tmp_path, make_dist, run_cli,
                                                                                  kind, which):
    """The release's notes record every wheel's facts, so the index reads none of them: a FIFO or a
    directory named like one (the first or the last of its release) is refused all the same, one
    line naming it, and no site is written."""
    import os

    from tests.support.publish_dist import release_dist
    store = LocalStore(tmp_path / "store")
    dist = release_dist(store, make_dist(VERSION))
    release = store.published_for(dist.tag)
    wheel = sorted(a.name for a in store.list_assets(release) if a.name.endswith(".whl"))[which]
    path = store.directory / str(release.id) / "assets" / wheel
    path.unlink()
    os.mkfifo(path) if kind == "fifo" else path.mkdir()
    code, out, err = run_cli("index", "--out", tmp_path / "site", "--store", "local", "--store-dir", store.directory)
    assert code == 2 and err.count("\n") == 1 and wheel in err, err
    assert not (tmp_path / "site").exists()
