"""The revision map: JSON round trip, the commit_info.py the wheels ship (executed here as
Python), refusals of malformed maps, and GitHub links."""

from __future__ import annotations

import copy
import runpy

import pytest

from release.core.revisions import LEGACY_KEYS, Revision, RevisionMap, github_base, is_revision

A, B, C = "a" * 40, "b" * 40, "c" * 40


def sample(release_commit=None) -> RevisionMap:
    return RevisionMap("0.9.1.dev20261122", (
        ("xla", Revision("https://github.com/ROCm/xla", "main", A, "f" * 64, ("//p:fix.patch",))),
        ("jax", Revision("https://github.com/ROCm/jax.git", "rocm-jaxlib-v0.9.1", B)),
        ("plugin", Revision("https://gitlab.example.com/r/p", "master", C)),
    ), release_commit)


def test_json_round_trip_keeps_everything():
    for rmap in (sample(), sample("d" * 40)):
        again = RevisionMap.loads(rmap.dumps())
        assert again == rmap and again.dumps() == rmap.dumps()


def test_json_shape():
    assert sample().dumps().startswith('{\n  "schema": 1,\n  "version": "0.9.1.dev20261122",\n')
    data = sample().to_json()
    assert data["schema"] == 1 and data["version"] == "0.9.1.dev20261122"
    assert data["commits"] == {"ROCm/xla": A, "jax": B, "ROCm/rocm-jax": C}
    assert data["deps"]["xla"] == {"url": "https://github.com/ROCm/xla", "branch": "main",
                                   "commit": A, "archive_sha256": "f" * 64,
                                   "patches": ["//p:fix.patch"]}
    assert data["deps"]["jax"] == {"url": "https://github.com/ROCm/jax.git",
                                   "branch": "rocm-jaxlib-v0.9.1", "commit": B}
    assert list(data["deps"]) == ["xla", "jax", "plugin"]  # order kept


def test_a_dep_without_a_legacy_key_keeps_its_name():
    extra = RevisionMap("v", (*sample().revisions,
                              ("triton", Revision("https://github.com/ROCm/triton", "main", A))))
    assert extra.legacy_commits()["triton"] == A and None not in extra.legacy_commits()
    assert RevisionMap.loads(extra.dumps()) == extra


@pytest.mark.parametrize("change, message", [
    (lambda d: d.update(deps={}), "revision map has no deps"),
    (lambda d: d["commits"].update(jax=A), "revision map 'commits' disagrees with 'deps'"),
    (lambda d: d["deps"]["jax"].pop("url"), "revision map entry 'jax' is not {url, branch, commit"
                                            "[, archive_sha256, patches]}"),
])
def test_refusals_are_exact(change, message):
    with pytest.raises(ValueError) as err:
        RevisionMap.from_json(broken(change))
    assert str(err.value) == message


def test_commits_and_lookup():
    rmap = sample()
    assert rmap.commits == {"xla": A, "jax": B, "plugin": C}
    assert rmap.legacy_commits() == {LEGACY_KEYS["xla"]: A, "jax": B, LEGACY_KEYS["plugin"]: C}
    assert rmap["jax"].commit == B
    with pytest.raises(KeyError):
        rmap["nope"]


def test_commit_info_py_runs_and_says_the_same(tmp_path):
    rmap = sample("d" * 40)
    path = tmp_path / "commit_info.py"
    path.write_text(rmap.commit_info_py())
    module = runpy.run_path(str(path))
    assert module["version"] == rmap.version and module["release_commit"] == "d" * 40
    assert module["commits"] == rmap.legacy_commits()
    assert module["revisions"] == {n: r.to_json() for n, r in rmap.revisions}


def test_same_sources():
    assert sample().same_sources(sample())
    assert not sample().same_sources(sample("d" * 40))
    other = RevisionMap("other-version", sample().revisions)
    assert sample().same_sources(other)  # the version is not a source
    moved = RevisionMap(sample().version, (sample().revisions[0], ("jax", Revision(
        "https://github.com/ROCm/jax.git", "rocm-jaxlib-v0.9.1", A)), sample().revisions[2]))
    assert not sample().same_sources(moved)


def broken(change) -> dict:
    data = copy.deepcopy(sample().to_json())
    change(data)
    return data


@pytest.mark.parametrize("change, message", [
    (lambda d: d.update(schema=2), "not a schema-1 revision map"),
    (lambda d: d.update(deps={}), "no deps"),
    (lambda d: d["deps"]["jax"].pop("branch"), "'jax' is not {url, branch, commit"),
    (lambda d: d["deps"]["jax"].update(extra=1), "'jax' is not"),
    (lambda d: d["deps"]["xla"].update(patches="one.patch"), "'xla' is not"),
    (lambda d: d["deps"]["xla"].update(archive_sha256=5), "'xla' is not"),
    (lambda d: d["deps"]["jax"].update(commit="B" * 40), "'jax' has commit"),
    (lambda d: d["deps"]["jax"].update(commit=B[:39]), "'jax' has commit"),
    (lambda d: d["commits"].update(jax=A), "'commits' disagrees with 'deps'"),
])
def test_malformed_maps_are_refused(change, message):
    with pytest.raises(ValueError) as err:
        RevisionMap.from_json(broken(change))
    assert message in str(err.value)


def test_not_a_mapping_is_refused():
    with pytest.raises(ValueError):
        RevisionMap.from_json(["schema", 1])


@pytest.mark.parametrize("rev, ok", [
    ({"url": "u", "branch": "b", "commit": A}, True),
    ({"url": "u", "branch": "b", "commit": A, "archive_sha256": None, "patches": []}, True),
    ({"url": "u", "branch": "b"}, False),
    ({"url": "u", "branch": "b", "commit": A, "patches": ["x", 1]}, False),
    ("url branch commit", False),
])
def test_is_revision(rev, ok):
    assert is_revision(rev) is ok


@pytest.mark.parametrize("url, base", [
    ("https://github.com/ROCm/xla", "https://github.com/ROCm/xla"),
    ("https://github.com/ROCm/xla.git", "https://github.com/ROCm/xla"),
    ("https://github.com/ROCm/xla/", "https://github.com/ROCm/xla"),
    ("git@github.com:ROCm/jax.git", "https://github.com/ROCm/jax"),
    ("ssh://git@github.com/ROCm/jax", "https://github.com/ROCm/jax"),
    ("https://gitlab.example.com/ROCm/xla", None),
    ("https://github.com/ROCm", None),
    ("https://github.com.evil.example/ROCm/xla", None),
])
def test_github_base(url, base):
    assert github_base(url) == base


def test_markdown_links_github_commits_and_lists_pins():
    text = sample().markdown()
    lines = text.splitlines()
    assert lines[:2] == ["| repository | branch | commit | archive sha256, patches |",
                         "|---|---|---|---|"]
    assert lines[2] == (f"| xla (https://github.com/ROCm/xla) | `main` | "
                        f"[`{A[:12]}`](https://github.com/ROCm/xla/commit/{A}) | "
                        f"`{'f' * 12}`, `fix.patch` |")
    assert lines[4] == f"| plugin (https://gitlab.example.com/r/p) | `master` | `{C[:12]}` | - |"
    assert text.endswith("\n")


def test_markdown_names_patches_by_file_whatever_their_label():
    rev = Revision("https://github.com/ROCm/xla", "main", A, None,
                   ("fix.patch", "@xla//third_party:sub:two.patch"))
    row = RevisionMap("v", (("xla", rev),)).markdown().splitlines()[2]
    assert row.endswith("| `fix.patch`, `two.patch` |")
