"""Publishing's decisions as pure functions: the next asset action toward the wanted set, the
previous release of the same kind, notes compared as a host may normalise them, and the
changelog between two revision maps. Fast, so each rule is pinned case by case (the
end-to-end behaviour is in test_publish.py)."""

from __future__ import annotations

import dataclasses
import datetime as dt
import zlib
from pathlib import Path

import pytest

from release.core.revisions import Revision, RevisionMap
from release.publish import notes
from release.publish.drafts import (
    TEMP_SUFFIX,
    LocalAsset,
    changelog_markdown,
    next_action,
    previous_release,
)
from release.publish.stores import Asset, Release

REL = Release(1, "rocm-jax-v0.9.1", "n", "", True, False, None, None)


def stable_id(name: str) -> int:
    """An id that is the same in every process (``hash`` of a str is salted per process)."""
    return zlib.crc32(name.encode()) % 100_000 + 1


def local(name, digest="1" * 64, size=10) -> LocalAsset:
    return LocalAsset(name, Path("/nonexistent") / name, size, digest)


def remote(name, digest="1" * 64, size=10, state="uploaded", ident=None) -> Asset:
    return Asset(ident or stable_id(name), name, size, digest, state, f"u/{name}")


def act(assets, wanted, prune=True):
    action = next_action(None, REL, list(assets), tuple(wanted), prune)
    if action is None:
        return None
    verb, subject, detail = action
    return verb, subject.name, detail if isinstance(detail, str) and verb != "delete" else None


def test_nothing_to_do_when_remote_matches():
    assert act([remote("a"), remote("b")], [local("a"), local("b")]) is None


def test_missing_asset_is_uploaded_under_its_name():
    assert act([remote("a")], [local("a"), local("b")]) == ("upload", "b", "b")


def test_different_bytes_go_up_under_the_temporary_name_first():
    assert act([remote("a", digest="2" * 64)], [local("a")]) == ("upload", "a", "a" + TEMP_SUFFIX)
    assert act([remote("a", size=11)], [local("a")]) == ("upload", "a", "a" + TEMP_SUFFIX)


def test_staged_new_bytes_replace_the_old_then_get_renamed():
    old, staged = remote("a", digest="2" * 64), remote("a" + TEMP_SUFFIX)
    assert act([old, staged], [local("a")]) == ("delete", "a", None)
    assert act([staged], [local("a")]) == ("rename", "a" + TEMP_SUFFIX, "a")


def test_leftover_copy_beside_a_finished_replacement_is_deleted():
    assert act([remote("a"), remote("a" + TEMP_SUFFIX)], [local("a")]) == (
        "delete", "a" + TEMP_SUFFIX, None)


def test_staged_copy_with_wrong_bytes_is_deleted_not_renamed():
    assert act([remote("a" + TEMP_SUFFIX, digest="3" * 64)], [local("a")]) == (
        "delete", "a" + TEMP_SUFFIX, None)


@pytest.mark.parametrize("state", ["starter", "new"])
def test_interrupted_uploads_are_deleted_first(state):
    assets = [remote("z"), remote("a", state=state)]
    assert act(assets, [local("a"), local("z")]) == ("delete", "a", None)


def test_strangers_are_pruned_only_when_pruning():
    assets = [remote("a"), remote("other.whl"), remote("other.whl" + TEMP_SUFFIX)]
    assert act(assets, [local("a")]) == ("delete", "other.whl", None)
    assert act(assets, [local("a")], prune=False) is None
    starter = [remote("a"), remote("other.whl", state="starter")]
    assert act(starter, [local("a")], prune=False) is None  # another cell's upload in flight


def test_partial_run_still_cleans_its_own_names():
    assert act([remote("a", state="starter")], [local("a")], prune=False) == ("delete", "a", None)
    assert act([remote("a"), remote("a" + TEMP_SUFFIX)], [local("a")], prune=False) == (
        "delete", "a" + TEMP_SUFFIX, None)


def test_actions_converge():
    """Applying each action to the remote list ends with exactly the wanted assets."""
    assets = {a.name: a for a in [remote("a", digest="2" * 64), remote("b", state="starter"),
                                  remote("junk"), remote("c" + TEMP_SUFFIX)]}
    wanted = [local("a"), local("b"), local("c")]
    for _ in range(20):
        action = next_action(None, REL, list(assets.values()), tuple(wanted))
        if action is None:
            break
        verb, subject, detail = action
        if verb == "delete":
            del assets[subject.name]
        elif verb == "rename":
            assets[detail] = remote(detail, subject.digest, subject.size)
            del assets[subject.name]
        else:
            assets[detail] = remote(detail, subject.digest, subject.size)
    assert sorted(assets) == ["a", "b", "c"] and all(a.digest == "1" * 64 for a in assets.values())


def release(tag, draft=False) -> Release:
    return Release(stable_id(tag), tag, tag, "", draft, False, None,
                   None if draft else dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc))


@pytest.mark.parametrize("version, expected", [
    ("0.9.1.dev20261122", "rocm-jax-v0.9.1.dev20261121"),
    ("0.9.1.dev20261121", "rocm-jax-v0.9.1.dev20261120"),
    ("0.9.1.dev20261120", None),
    ("0.9.2rc1", "rocm-jax-v0.9.1rc2"),
    ("0.9.1rc2", "rocm-jax-v0.9.1rc1"),
    ("0.9.2", "rocm-jax-v0.9.1"),
    ("0.9.1", None),
    ("0.9.1.post2", "rocm-jax-v0.9.1.post1"),
])
def test_previous_release_is_the_newest_published_of_the_same_kind_below(version, expected):
    releases = [release(f"rocm-jax-v{v}") for v in (
        "0.9.1.dev20261120", "0.9.1.dev20261121", "0.9.1rc1", "0.9.1rc2", "0.9.1", "0.9.1.post1",
        "0.9.2.dev20261201")]
    releases += [release("rocm-jax-v0.9.1rc3", draft=True),  # drafts never count
                 release("other-v0.9.1"), release("rocm-jax-vnot.a.version")]
    found = previous_release(releases, version)
    assert (found.tag if found else None) == expected


def test_notes_compare_equal_up_to_the_validated_mark_and_host_whitespace():
    body = "## jax-rocm 0.9.1\n\nline  \nmore\n"
    marked = _validated(body, "a" * 64)
    assert notes.read(marked).validated == "a" * 64 and notes.read(body).validated is None
    assert notes.write(dataclasses.replace(notes.read(marked), validated=None)) == body.rstrip("\n")
    assert notes.same_text(marked.replace("\n", "\r\n"), body)
    assert notes.same_text("\n" + body + "\n\n", body)
    assert not notes.same_text(body.replace("more", "less"), body)
    assert _validated(marked, "b" * 64).count("validated") == 1


def _validated(body: str, digest: str) -> str:
    return notes.write(dataclasses.replace(notes.read(body), validated=digest))


def rmap(**commits) -> RevisionMap:
    return RevisionMap("v", tuple((n, Revision(u, "main", c)) for n, (u, c) in commits.items()))


def test_changelog_links_github_compares_and_says_what_did_not_move():
    a, b, c = "a" * 40, "b" * 40, "c" * 40
    before = rmap(xla=("https://github.com/ROCm/xla", a), plugin=("https://example.com/p", a))
    now = rmap(xla=("https://github.com/ROCm/xla", b), plugin=("https://example.com/p", c),
               jax=("https://github.com/ROCm/jax", c))
    url = "https://github.com/ROCm/rocm-jax/releases/tag/rocm-jax-v0.9.0"
    prev = dataclasses.replace(release("rocm-jax-v0.9.0"), html_url=url)
    text = changelog_markdown(prev, before, now)
    # a link that is not https (a store's record is data) is shown as plain text
    assert changelog_markdown(release("rocm-jax-v0.9.0"), before, now).startswith("Since rocm-jax-v0.9.0:\n")
    assert text.splitlines() == [
        f"Since [rocm-jax-v0.9.0]({url}):", "",
        f"- xla: [`{a[:12]}...{b[:12]}`](https://github.com/ROCm/xla/compare/{a}...{b})",
        f"- plugin: `{a[:12]}` -> `{c[:12]}`",
        f"- jax: `none` -> `{c[:12]}`"]
    same = changelog_markdown(prev, now, now)
    assert f"- xla: unchanged (`{b[:12]}`)" in same
    assert changelog_markdown(None, None, now).startswith("First release of its kind")
    assert "could not be read" in changelog_markdown(prev, None, now)


def test_a_store_without_digests_is_compared_by_downloading_and_hashing(tmp_path):
    """Some stores list no sha256: the asset is downloaded and hashed to compare."""
    import dataclasses
    import hashlib

    from release.publish.drafts import _same
    from release.publish.stores import LocalStore
    store = LocalStore(tmp_path / "store")
    draft = store.create_draft("rocm-jax-v0.9.1", name="n", body="b", prerelease=False)
    src = tmp_path / "a.whl"
    src.write_bytes(b"wheel bytes")
    stored = dataclasses.replace(store.upload_asset(draft, src, "a.whl"), digest=None)
    good = LocalAsset("a.whl", src, 11, hashlib.sha256(b"wheel bytes").hexdigest())
    assert _same(store, draft, stored, good)
    assert not _same(store, draft, stored, dataclasses.replace(good, digest="0" * 64))
    assert not _same(store, draft, dataclasses.replace(stored, size=12), good)


def test_a_partial_run_leaves_a_stranger_whose_name_merely_starts_like_its_own():
    """Only NAME + '.new' is a temporary copy of NAME; 'pkg-extra' is another cell's file."""
    assets = [remote("pkg"), remote("pkgXtra", digest="9" * 64)]
    assert act(assets, [local("pkg")], prune=False) is None


def test_notes_ignore_trailing_but_not_leading_whitespace():
    assert notes.same_text("a\nb", "a  \nb")
    assert not notes.same_text("a\n  b", "a\nb")  # indentation is content


def test_the_validated_mark_goes_after_the_body_exactly():
    assert _validated("\nbody  \n\n", "c" * 64) == (
        "\nbody  \n<!-- validated: sha256=" + "c" * 64 + " -->\n")
    assert _validated("TAX\n", "c" * 64).startswith("TAX\n<!--")


def test_changelog_lists_every_unchanged_dep():
    a = "a" * 40
    same = rmap(xla=("https://github.com/ROCm/xla", a), jax=("https://github.com/ROCm/jax", a))
    assert changelog_markdown(release("rocm-jax-v0.9.0"), same, same).splitlines()[2:] == [
        f"- xla: unchanged (`{a[:12]}`)", f"- jax: unchanged (`{a[:12]}`)"]


def test_a_partial_run_never_renames_wrong_bytes_found_after_a_stranger():
    """Scanning goes on past another cell's asset: a wrong NAME.new is deleted, not renamed."""
    assets = [remote("another-cell.whl"), remote("a" + TEMP_SUFFIX, digest="9" * 64)]
    assert act(assets, [local("a")], prune=False) == ("delete", "a" + TEMP_SUFFIX, None)


def test_deletions_say_why():
    reasons = {}
    for assets, wanted in (([remote("x"), remote("a")], [local("a")]),
                           ([remote("a"), remote("a" + TEMP_SUFFIX)], [local("a")]),
                           ([remote("a", digest="2" * 64), remote("a" + TEMP_SUFFIX)], [local("a")])):
        verb, subject, reason = next_action(None, REL, assets, tuple(wanted))
        reasons[subject.name] = reason
    assert reasons == {"x": "not part of this release",
                       "a" + TEMP_SUFFIX: "leftover of a finished replacement",
                       "a": "replaced by new bytes"}


def test_next_action_on_a_store_without_digests(tmp_path):
    import dataclasses
    import hashlib

    from release.publish.stores import LocalStore
    store = LocalStore(tmp_path / "store")
    draft = store.create_draft("rocm-jax-v0.9.1", name="n", body="b", prerelease=False)
    src = tmp_path / "a"
    src.write_bytes(b"0123456789")
    good = LocalAsset("a", src, 10, hashlib.sha256(b"0123456789").hexdigest())
    up = [dataclasses.replace(store.upload_asset(draft, src, name), digest=None)
          for name in ("a", "a" + TEMP_SUFFIX)]
    assert next_action(store, draft, up[:1], (good,)) is None
    verb, subject, _ = next_action(store, draft, up, (good,))
    assert (verb, subject.name) == ("delete", "a" + TEMP_SUFFIX)
