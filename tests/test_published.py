"""``Published.latest``: the newest published release of the kinds asked for, strictly below a
version when one is given, on a line when one is given; drafts and other tags never count.

Answered from versions parsed once (a season asks it once per release), so it is checked
against the rule written out as a scan, on generated listings: versions of every kind and of
different lengths, equal versions spelled two ways, drafts, listings in any order."""

from __future__ import annotations

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
