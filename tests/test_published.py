"""``Published.latest``: the newest published release of the kinds asked for, strictly below a
version when one is given, on a line when one is given; drafts and other tags never count.

Answered from versions parsed once (a season asks it once per release), so it is checked
against the rule written out as a scan, on generated listings: versions of every kind and of
different lengths, equal versions spelled two ways, drafts, listings in any order."""

from __future__ import annotations

import dataclasses

from hypothesis import given
from hypothesis import strategies as st
from packaging.version import Version

from release.core import naming
from release.core.versions import kind_of
from release.publish.records import Published, Release

KINDS = ("nightly", "rc", "release", "post")


@st.composite
def version(draw) -> str:
    base = draw(st.sampled_from(["0.9.1", "0.9.2", "0.10.0", "1.0"]))
    shape = draw(st.sampled_from(["", "rc{}", ".post{}", ".dev2026112{}", ".0"]))
    return base + shape.format(draw(st.integers(0, 3)))


@st.composite
def listing(draw) -> list[Release]:
    texts = draw(st.lists(version(), max_size=12))
    out = []
    for i, text in enumerate(texts):
        tag = naming.release_tag(text) if draw(st.booleans()) or i % 5 else "some-other-tag"
        out.append(Release(id=i + 1, tag=tag, name=None, body="", draft=draw(st.booleans()) and i % 3 == 0,
                           prerelease=False, created_at=None, published_at=None))
    return out


def by_scan(releases: list[Release], kinds: tuple[str, ...], below: str | None, line: str | None):
    """The rule as a scan: newest version first, the first release of the listing among equals."""
    found = [(Version(v), -n, r) for n, r in enumerate(releases) if not r.draft
             and (v := naming.version_from_tag(r.tag)) is not None]
    found.sort(key=lambda e: (e[0], e[1]), reverse=True)
    for v, _, rel in found:
        if kind_of(str(v)) in kinds and (below is None or v < Version(below)) and (
                line is None or v.base_version == line):
            return rel
    return None


@given(listing(), st.lists(st.sampled_from(KINDS), min_size=1, max_size=3, unique=True),
       st.one_of(st.none(), version()), st.one_of(st.none(), st.sampled_from(["0.9.1", "0.10.0", "1.0"])))
def test_latest_is_the_newest_of_the_kinds_below_the_version(releases, kinds, below, line):
    published = Published.of(releases)
    assert published.latest(tuple(kinds), below=below, line=line) == by_scan(releases, tuple(kinds), below, line)


def test_latest_below_each_release_of_a_season():
    """The page asks it once per release: each nightly's previous is the night before, each
    release's the release before, whatever the order of the listing."""
    texts = [f"0.9.1.dev202611{d:02d}" for d in range(1, 29)] + ["0.9.0", "0.9.1", "0.9.0.post1"]
    releases = [Release(id=i, tag=naming.release_tag(t), name=None, body="", draft=False, prerelease=False,
                        created_at=None, published_at=None) for i, t in enumerate(reversed(texts))]
    published = Published.of(releases)
    for day in range(2, 29):
        found = published.latest(("nightly",), below=f"0.9.1.dev202611{day:02d}")
        assert found is not None and found.tag.endswith(f"202611{day - 1:02d}")
    assert published.latest(("nightly",), below="0.9.1.dev20261101") is None
    assert published.latest(("release",), below="0.9.1").tag.endswith("v0.9.0")
    assert published.latest(("release", "post"), below="0.9.1").tag.endswith("0.9.0.post1")


def _listed(*tags: str) -> list[Release]:
    return [Release(id=i, tag=tag, name=None, body="", draft=False, prerelease=False, created_at=None,
                    published_at=None) for i, tag in enumerate(tags, 1)]


def test_on_a_line_latest_is_the_newest_of_the_kinds_strictly_below_the_version():
    """A line's newest of the kinds asked: a newer release of another kind on the line, one of the
    kind on another line, and the version itself never count; every other kind the line has is there."""
    texts = ["0.9.1.dev20261120", "0.9.1rc1", "0.9.1", "0.9.1.post1", "0.9.1.post2", "0.10.0", "0.9.0.post3"]
    published = Published.of(_listed(*(naming.release_tag(t) for t in texts)))
    tag = naming.release_tag
    assert published.latest(("release",), line="0.9.1").tag == tag("0.9.1")
    assert published.latest(("rc",), line="0.9.1").tag == tag("0.9.1rc1")
    assert published.latest(("release", "post"), line="0.9.1").tag == tag("0.9.1.post2")
    assert published.latest(("release", "post"), below="0.9.1.post2", line="0.9.1").tag == tag("0.9.1.post1")
    assert published.latest(("post",), below="0.9.1.post1", line="0.9.1") is None
    assert published.latest(("nightly", "rc"), below="0.9.1rc1", line="0.9.1").tag == tag("0.9.1.dev20261120")
    assert published.latest(("post",), line="0.10.0") is None



def test_a_version_is_found_however_it_is_spelled_and_versions_list_newest_first():
    """``find`` compares versions, not text (0.9.1 is 0.9.1.0), the first of equal ones listed;
    ``versions`` names each published one, newest first, drafts and other tags left out."""
    tags = [naming.release_tag(t) for t in ("0.9.1rc1", "0.10.0", "0.9.1", "0.9.1.0")] + ["some-other-tag"]
    releases = _listed(*tags)
    releases.append(dataclasses.replace(_listed(naming.release_tag("0.11.0"))[0], id=9, draft=True))
    published = Published.of(releases)
    assert published.versions() == ["0.10.0", "0.9.1", "0.9.1.0", "0.9.1rc1"]
    assert published.find("0.9.1.0").id == published.find("0.9.1").id == 3
    assert published.find("0.10").tag == naming.release_tag("0.10.0")
    assert published.find("0.9.2") is None and published.find("0.11.0") is None
