"""Both stores keep GitHub's release semantics: the same test runs on each."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from hypothesis import assume, example, given
from hypothesis import strategies as st

from release.core.errors import UserError
from release.core.file_lock import Busy, held
from release.publish.notes import MARKER
from release.publish.stores import (
    AssetExists,
    GitHubStore,
    ImmutableRelease,
    LocalStore,
    StoreError,
    TagTaken,
    open_store,
)
from release.sources.github import MalformedAnswer

TAG = "rocm-jax-v0.9.1.dev20261122"


@pytest.fixture(params=["local", "github"])
def store(request, tmp_path):
    if request.param == "local":
        return LocalStore(tmp_path / "store")
    fake = request.getfixturevalue("fake_github")
    client = request.getfixturevalue("github_client")
    return GitHubStore(client, *fake.repo.split("/"))


@pytest.fixture
def files(tmp_path):
    a = tmp_path / "a.whl"
    a.write_bytes(b"A" * 1000)
    b = tmp_path / "b.whl"
    b.write_bytes(b"B" * 10)
    return a, b


def test_drafts_are_found_by_listing_and_may_share_a_tag(store):
    one = store.create_draft(TAG, name="n", body=MARKER, prerelease=True)
    two = store.create_draft(TAG, name="n", body=MARKER, prerelease=True)
    assert [d.id for d in store.drafts_for(TAG)] == [one.id, two.id]
    assert store.published_for(TAG) is None
    assert all(r.draft and r.prerelease for r in store.list_releases())


def test_our_drafts_leave_a_hand_made_draft_out(store):
    """The drafts publish, validate and undraft may touch: a person's draft is never one."""
    theirs = store.create_draft(TAG, name="n", body="made by hand", prerelease=True)
    ours = store.create_draft(TAG, name="n", body=MARKER, prerelease=True)
    store.create_draft("rocm-jax-v0.9.1rc1", name="n", body=MARKER, prerelease=True)
    assert [d.id for d in store.drafts_for(TAG)] == [theirs.id, ours.id]
    assert [d.id for d in store.our_drafts(TAG)] == [ours.id]


def test_assets_unique_names_rename_delete_download(store, files, tmp_path):
    a, b = files
    draft = store.create_draft(TAG, name="n", body=MARKER, prerelease=True)
    up = store.upload_asset(draft, a, "a.whl")
    assert (up.name, up.size, up.state) == ("a.whl", 1000, "uploaded")
    with pytest.raises(AssetExists):
        store.upload_asset(draft, b, "a.whl")
    tmp = store.upload_asset(draft, b, "b.whl.new")
    with pytest.raises(AssetExists):
        store.rename_asset(draft, tmp, "a.whl")
    store.rename_asset(draft, tmp, "b.whl")
    got = {x.name: x for x in store.list_assets(draft)}
    assert sorted(got) == ["a.whl", "b.whl"]
    assert got["b.whl"].digest == hashlib.sha256(b"B" * 10).hexdigest()
    back = store.download_asset(draft, got["a.whl"], tmp_path / "back")
    assert back.read_bytes() == a.read_bytes()
    store.delete_asset(draft, got["a.whl"])
    assert [x.name for x in store.list_assets(draft)] == ["b.whl"]


def test_published_releases_are_immutable_and_one_per_tag(store, files):
    a, b = files
    draft = store.create_draft(TAG, name="n", body=MARKER, prerelease=True)
    asset = store.upload_asset(draft, a, "a.whl")
    second = store.create_draft(TAG, name="n", body=MARKER, prerelease=True)
    published = store.publish(draft, prerelease=True, make_latest=False)
    assert not published.draft and published.published_at is not None
    assert store.published_for(TAG).id == draft.id
    with pytest.raises(ImmutableRelease):
        store.upload_asset(published, b, "b.whl")
    with pytest.raises(ImmutableRelease):
        store.delete_asset(published, asset)
    with pytest.raises(ImmutableRelease):
        store.rename_asset(published, asset, "c.whl")
    with pytest.raises(TagTaken):
        store.publish(second, prerelease=True, make_latest=False)


def test_delete_release_removes_its_tag_and_the_tag_is_never_reused(store, files, request):
    draft = store.create_draft(TAG, name="n", body=MARKER, prerelease=True)
    published = store.publish(draft, prerelease=True, make_latest=False)
    if isinstance(store, GitHubStore):
        assert TAG in request.getfixturevalue("fake_github").tags()
    store.delete_release(published)
    assert store.list_releases() == []
    if isinstance(store, GitHubStore):
        assert TAG not in request.getfixturevalue("fake_github").tags()
    with pytest.raises(UserError):
        store.create_draft(TAG, name="n", body=MARKER, prerelease=True)


def test_find_or_create_collapses_duplicates_to_the_oldest(store):
    first = store.find_or_create_draft(TAG, name="n", body="notes", prerelease=True)
    assert MARKER in first.body
    store.create_draft(TAG, name="n", body=first.body, prerelease=True)
    store.create_draft(TAG, name="n", body=first.body, prerelease=True)
    again = store.find_or_create_draft(TAG, name="n", body="notes", prerelease=True)
    assert again.id == first.id
    assert [d.id for d in store.drafts_for(TAG)] == [first.id]


def test_someone_elses_draft_stops_the_run(store):
    store.create_draft(TAG, name="by hand", body="made in the web UI", prerelease=True)
    with pytest.raises(StoreError) as err:
        store.find_or_create_draft(TAG, name="n", body="notes", prerelease=True)
    assert "not made by this tool" in str(err.value)
    assert len(store.drafts_for(TAG)) == 1


def test_create_that_got_a_5xx_after_success_is_not_duplicated(fake_github, github_client):
    store = GitHubStore(github_client, *fake_github.repo.split("/"))
    fake_github.fail("POST", r"/releases$", 502, when="after")
    draft = store.find_or_create_draft(TAG, name="n", body="notes", prerelease=True)
    assert [r["id"] for r in fake_github.releases()] == [draft.id]


def test_a_release_without_an_upload_url_is_a_malformed_answer(fake_github, github_client, tmp_path):
    """GitHub's release answer carries the uploads URL; one without it is GitHub's fault (exit 3),
    said in one line, never an AttributeError on None."""
    store = GitHubStore(github_client, *fake_github.repo.split("/"))
    draft = store.create_draft(TAG, name="n", body="notes", prerelease=True)
    answer = {k: v for k, v in fake_github.releases()[0].items() if k != "assets"} | {"upload_url": None}
    fake_github.fail("GET", rf"/releases/{draft.id}$", 200, when="malformed", body=json.dumps(answer).encode())
    wheel = tmp_path / "a.whl"
    wheel.write_bytes(b"wheel")
    with pytest.raises(MalformedAnswer) as err:
        store.upload_asset(dataclasses.replace(draft, upload_url=None), wheel, "a.whl")
    assert err.value.exit_code == 3 and "no upload_url" in str(err.value)
    assert fake_github.releases()[0]["assets"] == []


def test_open_store_chooses(tmp_path, fake_github):
    local = open_store(None, None, None, tmp_path, env={})
    assert isinstance(local, LocalStore) and local.directory == tmp_path / ".cache" / "releases"
    env = {"GITHUB_REPOSITORY": "o/r", "GITHUB_TOKEN": fake_github.token,
           "GITHUB_API_URL": fake_github.api_url}
    gh = open_store(None, None, None, tmp_path, env=env)
    assert isinstance(gh, GitHubStore) and gh.where == "o/r"
    assert isinstance(open_store("local", None, None, tmp_path, env=env), LocalStore)
    with pytest.raises(UserError):
        open_store("github", None, None, tmp_path, env={})
    with pytest.raises(UserError):
        open_store("github", "not-a-repo", None, tmp_path, env=env)
    with pytest.raises(UserError) as err:
        open_store("github", "o/r", None, tmp_path, env={})
    assert "GITHUB_TOKEN" in str(err.value)


@pytest.mark.parametrize("digest, api_url", [(None, None), ("ab" * 32, "https://api.example/assets/3")])
def test_a_listed_asset_is_the_asset_its_fields_make(digest, api_url):
    """A local listing makes its Assets without the frozen __init__ (``Asset.listed``): each is
    the Asset of the same fields, equal, hashed and shown alike, and as frozen; a field added to
    Asset (or a check in __post_init__) must be added there too."""
    from release.publish.records import Asset
    values = {"id": 3, "name": "a b.whl", "size": 5, "digest": digest, "state": "uploaded", "url": "file:///x",
              "api_url": api_url}
    assert set(values) == {f.name for f in dataclasses.fields(Asset)} and "__post_init__" not in vars(Asset)
    made, model = Asset.listed(**values), Asset(**values)
    assert (made, hash(made), repr(made), vars(made)) == (model, hash(model), repr(model), vars(model))
    if api_url is None:  # a listing that has no API address leaves it out: the same default
        del values["api_url"]
        assert vars(Asset.listed(**values)) == vars(Asset(**values)) == vars(model)
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.name = "b.whl"  # type: ignore[misc]


@pytest.mark.parametrize("flags, env, github", [
    ({"store": None, "repo": None}, {"GITHUB_REPOSITORY": "o/r"}, True),
    ({"store": None, "repo": "o/r"}, {}, True),
    ({"store": "github", "repo": "o/r"}, {}, True),
    ({"store": None, "repo": None}, {"GITHUB_REPOSITORY": ""}, False),
    ({"store": "local", "repo": None}, {"GITHUB_REPOSITORY": "o/r"}, False),
])
def test_only_a_github_store_gets_the_console_its_client_prints_on(tmp_path, fake_github, monkeypatch,
                                                                   flags, env, github):
    """GitHub's client says its waits on the progress console; a local store prints nothing,
    so opening one makes no console (and a command that only writes lines never loads rich)."""
    import argparse
    import io

    from release.commands._common import open_store_from_args
    from release.core.output import Output

    for name in ("GITHUB_REPOSITORY", "GITHUB_TOKEN", "GITHUB_API_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("GITHUB_TOKEN", fake_github.token)
    monkeypatch.setenv("GITHUB_API_URL", fake_github.api_url)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    out = Output(stream=io.StringIO())
    store = open_store_from_args(argparse.Namespace(root=tmp_path, store_dir=tmp_path / "s", **flags), out,
                                 needs=("reading releases", "contents: read"))
    assert isinstance(store, GitHubStore) is github
    if github:
        assert store.client.console is out.progress_console()
    else:
        assert out._console is None and out._err is None


def test_a_local_listing_reads_each_record_once_and_a_changed_one_again(tmp_path, files, monkeypatch):
    """The index lists the store, then every release's assets: each release.json is read once for
    both; one another writer replaced since is read again, so its new asset is seen."""
    from release.publish import local_records

    a, b = files
    writer = LocalStore(tmp_path / "store")
    old = writer.create_draft(TAG, name="n", body=MARKER, prerelease=True)
    new = writer.create_draft("rocm-jax-v0.9.1rc1", name="n", body=MARKER, prerelease=True)
    writer.upload_asset(old, a, "a b%+é.whl")
    reads: list[str] = []
    real = local_records.release_record
    monkeypatch.setattr(local_records, "release_record", lambda path: reads.append(path.parent.name) or real(path))
    reader = LocalStore(tmp_path / "store")
    listed = {r.id: r for r in reader.list_releases()}
    assets = {i: reader.list_assets(r) for i, r in listed.items()}
    assert sorted(reads) == sorted([str(old.id), str(new.id)])
    (only,) = assets[old.id]
    assert only.url == (tmp_path / "store" / str(old.id) / "assets" / "a b%+é.whl").absolute().as_uri()
    writer.upload_asset(new, b, "b.whl")
    reads.clear()
    assert [x.name for x in reader.list_assets(listed[new.id])] == ["b.whl"]
    assert [x.name for x in reader.list_assets(listed[old.id])] == ["a b%+é.whl"]
    assert reads == [str(new.id)]


def test_a_local_listing_is_never_stale_after_a_write_here_or_elsewhere(tmp_path):
    """A listing reflects the store as it is now, whoever wrote since the last one: a release
    created, published, renamed or deleted (here or by another writer, which shares no memory
    with this one) shows in the next listing; the order stays newest first, by number."""
    here = LocalStore(tmp_path / "store")
    elsewhere = LocalStore(tmp_path / "store")

    def listing(store=here):
        return [(r.id, r.tag, r.draft, r.name) for r in store.list_releases()]

    assert listing() == []
    made = [here.create_draft(f"v0.{i}", name="n", body=MARKER, prerelease=True) for i in range(3)]
    assert listing() == [(r.id, r.tag, True, "n") for r in reversed(made)]
    # another writer: a new release (ids past 9 and 10, so numbers of two lengths), a publish
    # and a rename of ones this reader has listed
    more = [elsewhere.create_draft(f"v1.{i}", name="n", body=MARKER, prerelease=True) for i in range(9)]
    elsewhere.publish(made[0], prerelease=False, make_latest=True)
    elsewhere.update_release(made[1], name="renamed")
    got = listing()
    assert [i for i, *_ in got] == sorted((r.id for r in made + more), reverse=True)
    assert got[-1] == (made[0].id, "v0.0", False, "n") and got[-2] == (made[1].id, "v0.1", True, "renamed")
    # this writer's own publish and the other's delete
    here.publish(more[0], prerelease=True, make_latest=False)
    elsewhere.delete_release(more[-1])
    got = {i: rest for i, *rest in listing()}
    assert more[-1].id not in got and got[more[0].id][1] is False
    # a deleted release never comes back, however many listings are taken in between
    here.delete_release(made[2])
    assert made[2].id not in {r.id for r in here.list_releases()}
    assert listing(elsewhere) == listing()
    # notes edited elsewhere (a yank) without changing the record's size
    elsewhere.update_release(more[1], body=MARKER.upper() if MARKER.upper() != MARKER else MARKER + " ")
    assert {r.id: r.body for r in here.list_releases()}[more[1].id] != MARKER


HOLDER = """
import sys
from release.publish.stores import LocalStore
store = LocalStore(sys.argv[1])
with store._lock:
    print("held", flush=True)
    sys.stdin.readline()
    print(len(store.list_releases()), flush=True)
"""


def test_two_processes_writing_one_local_store_take_turns(tmp_path):
    """While another process holds the store's lock (``<dir>/.lock``, where an older release
    takes it too), a write here waits; it lands once that one lets go, never in between."""
    directory = tmp_path / "store"
    proc = subprocess.Popen([sys.executable, "-c", HOLDER, str(directory)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "held"
        with pytest.raises(Busy), held(directory / ".lock", timeout=0):
            pass
        store = LocalStore(directory)
        writer = threading.Thread(target=store.create_draft, args=(TAG,),
                                  kwargs={"name": "n", "body": MARKER, "prerelease": True})
        writer.start()
        writer.join(0.3)  # waiting for the other process (it cannot be early, only late)
        proc.stdin.write("done\n")
        proc.stdin.flush()
        assert proc.stdout.readline().strip() == "0"  # nothing landed while it held the lock
        assert proc.wait(timeout=60) == 0
        writer.join()
        assert [r.tag for r in store.list_releases()] == [TAG]
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()


@given(st.text(alphabet="aZ09_.~-+ %é#?", min_size=1, max_size=12))
@example("jax_rocm7_plugin-0.9.1+rocm7.1-cp312-cp312-manylinux_2_28_x86_64.whl")
@example("a b~c.whl")
def test_a_local_assets_url_is_its_path_quoted_as_urllib_quotes_it(name):
    """A listed asset's URL is the store's file URL of <id>/assets/<name>, the name quoted as
    ``quote`` quotes it (a name of only letters, digits and ``_.-~`` is its own path)."""
    import os
    from urllib.parse import quote_from_bytes

    from release.core.safe_names import file_name_problem
    assume(file_name_problem(name) is None)
    store = LocalStore(Path("/srv/store"))
    asset = store._asset(7, {"id": 1, "name": name, "size": 1, "digest": None})
    assert asset.url == f"{Path('/srv/store').as_uri()}/7/assets/{quote_from_bytes(os.fsencode(name))}"
