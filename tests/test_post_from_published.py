""".postN from what is published: a released line's next post number is counted, never typed.

Rules: the next official version of a line is version_info.json's, moved past what the store and
the public index hold of that line (the highest .postN plus one; .post1 after the release alone;
the file's own number when higher); nightlies of a released line then sort above everything
final it published; a line released by hand (nothing written to version_info.json) moves on so;
pre-releases, nightlies and other lines never move it.
"""

from __future__ import annotations

import datetime as dt
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from packaging.version import Version

from release.build.plan import make_plan, next_versions
from release.core import versions
from release.core.config import load_project
from tests.support.project import copy_config

SETTINGS = settings(derandomize=True, max_examples=150, deadline=None)
numbers = st.integers(min_value=0, max_value=300)
lines = st.tuples(numbers, numbers, numbers).map(lambda t: "%d.%d.%d" % t)
posts = st.integers(min_value=1, max_value=40)
dates = st.dates(min_value=dt.date(2020, 1, 1), max_value=dt.date(2040, 12, 31))
DAY = dt.date(2026, 11, 25)


@st.composite
def held(draw, line: str) -> list[str]:
    """What the store and the public index may hold: this line's nightlies, rcs, release, posts
    (local labels too: counted as their public part), and other lines' finals, in any order."""
    out = []
    for _ in range(draw(st.integers(0, 8))):
        kind = draw(st.sampled_from(["nightly", "rc", "release", "post", "local", "other"]))
        if kind == "nightly":
            out.append(versions.nightly(draw(st.sampled_from([line, f"{line}.post{draw(posts)}"])), draw(dates)))
        elif kind == "rc":
            out.append(versions.rc(line, draw(posts)))
        elif kind == "release":
            out.append(line)
        elif kind == "post":
            out.append(versions.post(line, draw(posts)))
        elif kind == "local":
            out.append(versions.with_local(versions.post(line, draw(posts)), "7.2.0"))
        else:
            major, minor, patch = (int(x) for x in line.split("."))
            others = [f"{major}.{minor}.{patch + 1}", f"{major}.{minor + 1}.0.post{draw(posts)}"]
            out.append(draw(st.sampled_from(others)))
    return out


@SETTINGS
@given(lines, st.one_of(st.just(0), posts), st.data())
def test_the_next_version_sorts_above_every_final_its_line_published(line, own, data):
    published = data.draw(held(line))
    given_next = versions.post(line, own) if own else line
    nxt = versions.next_official(given_next, published)
    finals = [Version(v) for v in published if Version(v).base_version == line and not Version(v).is_prerelease]
    if not finals:
        assert nxt == given_next  # nothing final of the line: the file's own version
    else:
        number = versions.parse_next(nxt)[1]
        assert number == max(own, max(f.post or 0 for f in finals) + 1)  # counted, one above the top
    assert versions.line_of(nxt) == line
    assert versions.next_official(nxt, published) == nxt  # asking again changes nothing
    assert versions.blocking_version(versions.release(nxt), published) is None
    nightly = Version(versions.nightly(nxt, data.draw(dates)))
    assert all(nightly > f for f in finals)


def test_a_line_released_by_hand_moves_on_without_an_edit(tmp_path):
    """version_info.json still says 0.9.1, but 0.9.1 and 0.9.1.post2 were published by hand."""
    proj = load_project(copy_config(tmp_path, "0.9.1"))
    by_hand = ["0.9.1", "0.9.1.post2", "0.9.1rc3", "0.9.1.post3.dev20261120", "0.10.0"]
    plan = make_plan(proj, "nightly", date=DAY, pythons=("3.12",), published=by_hand)
    assert plan.version == "0.9.1.post3.dev20261125"
    assert make_plan(proj, "release", pythons=("3.12",), published=by_hand).version == "0.9.1.post3"
    nxt = next_versions(proj, by_hand, DAY)
    assert nxt["release"]["version"] == "0.9.1.post3" and nxt["nightly"]["version"] == "0.9.1.post3.dev20261125"
    assert nxt["rc"]["version"] is None  # a released line has no more candidates
    # nothing published: the file's version
    assert make_plan(proj, "nightly", date=DAY, pythons=("3.12",)).version == "0.9.1.dev20261125"


def test_nightly_and_status_count_what_the_public_index_holds(run_cli, tmp_path, published, monkeypatch):
    root = copy_config(tmp_path, "0.9.1")
    index = published("0.9.1", "0.9.1.post1")
    monkeypatch.setenv("RELEASE_PUBLIC_INDEX", index.url)
    code, out, err = run_cli("nightly", "--dry-run", "--json", "--date", "2026-11-22", "--python", "3.12",
                             "--root", root)
    assert code == 0, err
    assert json.loads(out)["version"] == "0.9.1.post2.dev20261122"
    code, out, err = run_cli("status", "--json", "--root", root, "--store", "local", "--store-dir", tmp_path / "s")
    assert code == 0, err
    assert json.loads(out)["next"]["release"] == "0.9.1.post2"
    assert json.loads((root / "version_info.json").read_text())["version"] == "0.9.1"  # nothing written


@pytest.fixture
def published(make_dist, local_index):
    def make(*vs):
        return local_index([w for v in vs for w in sorted(make_dist(v).glob("*.whl"))])
    return make
