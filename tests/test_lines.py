"""Several maintained lines at once (docs/lines.md): the one list of lines (``.github/lines.json``)
and two lines publishing into one store the same nights without colliding: their tags differ,
each line's nightly is decided against its own last nightly, and gc and the index keep each
line's newest nightlies and drafts whatever the other line published."""

from __future__ import annotations

import dataclasses
import datetime as dt
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from release.build.plan import make_plan
from release.core import naming
from release.core.config import load_project
from release.core.errors import UserError
from release.core.lines import LINES_FILE, line_key, parse_lines, parse_xy, read_lines, render_lines, with_line
from release.jobs import nightly
from release.jobs.shared import check_publishable
from release.publish.notes import MARKER
from release.publish.retention import Retention, decide, decide_drafts
from release.publish.stores import LocalStore, Release
from tests.test_jobs import _publish

DAY = dt.date(2026, 11, 27)
NOW = dt.datetime(2026, 12, 9, 4, tzinfo=dt.timezone.utc)


# ------------------------------------------------------------------ the list of lines


def test_without_a_list_the_branch_checked_out_is_the_one_line(tmp_path):
    assert read_lines(tmp_path, "main") == ("main",)
    assert read_lines(tmp_path, "release/0.10") == ("release/0.10",)


def test_the_list_is_read_in_its_order(tmp_path):
    (tmp_path / ".github").mkdir()
    (tmp_path / LINES_FILE).write_text('["main", "release/0.10", "release/0.9"]')
    assert read_lines(tmp_path, "anything") == ("main", "release/0.10", "release/0.9")


@pytest.mark.parametrize("text, said", [
    ("", "not JSON"),
    ('{"main": 1}', "got dict"),
    ("[]", "got []"),
    ('["main", 7]', "[1]: got 7"),
    ('["main", "main"]', "[1]: got main; expected each branch once"),
    ('["main", "release/0.10 "]', "[1]: got release/0.10 "),
    ('["-rf"]', "[0]: got -rf"),
    ('["release/../x"]', "[0]: got release/../x"),
    ('["main", "release/0.9/"]', "[1]: got release/0.9/"),
    ('["a.lock"]', "[0]: got a.lock"),
])
def test_a_bad_list_is_one_line_naming_the_file_and_entry(tmp_path, text, said):
    with pytest.raises(UserError) as err:
        parse_lines(tmp_path / LINES_FILE, text)
    line = str(err.value)
    assert "\n" not in line and str(tmp_path / LINES_FILE) in line and said in line


def test_a_list_that_is_no_regular_file_is_one_line(tmp_path):
    import os
    (tmp_path / ".github").mkdir()
    os.mkfifo(tmp_path / LINES_FILE)
    with pytest.raises(UserError, match="lines.json: got a file that"):
        read_lines(tmp_path, "main")


@pytest.mark.parametrize("text", ["0.10", "1.0", "0.9", "12.345"])
def test_a_line_is_major_dot_minor(text):
    assert parse_xy(text) == text


@pytest.mark.parametrize("text", ["0.10.1", "v0.10", "0.010", "0", "0.x", "", "0.10\n1", "٠.١"])
def test_anything_else_is_no_line(text):
    with pytest.raises(UserError, match="expected the line as MAJOR.MINOR"):
        parse_xy(text)


@settings(derandomize=True, max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 12), st.integers(0, 12)), unique=True, max_size=6),
       st.tuples(st.integers(0, 12), st.integers(0, 12)), st.booleans())
def test_a_new_line_goes_in_once_newest_first_after_the_default_branch(existing, new, with_main):
    lines = (("main",) if with_main else ()) + tuple(f"release/{x}.{y}" for x, y in existing)
    added = with_line(lines, f"release/{new[0]}.{new[1]}")
    assert set(added) == set(lines) | {f"release/{new[0]}.{new[1]}"} and len(added) == len(set(added))
    assert added[:1] == (("main",) if with_main else added[:1])
    released = [tuple(map(int, b.removeprefix("release/").split("."))) for b in added if b != "main"]
    assert released == sorted(released, reverse=True)  # 0.10 above 0.9: numbers, not text
    assert parse_lines("lines.json", render_lines(added)) == added  # the file round-trips


def test_the_file_is_one_branch_a_line():
    assert render_lines(("main", "release/0.10")) == '[\n  "main",\n  "release/0.10"\n]\n'


@pytest.mark.parametrize("version, key", [("0.11.1.dev20261127", (0, 11)), ("0.10.2.post1.dev20261127", (0, 10)),
                                          ("0.10.12rc1", (0, 10)), ("1.0", (1, 0)), ("2", (2, 0)),
                                          ("not a version", None)])
def test_a_versions_line_is_its_major_and_minor(version, key):
    assert line_key(version) == key


# ------------------------------------------------------------------ two lines, one store


@pytest.fixture
def two_lines(tmp_path, project_dir, monkeypatch):
    """Two maintained lines of one repository on one store: 0.11.1 (nothing published yet) and
    0.10.2, whose release is out (its nightlies are 0.10.2.post1.devD)."""
    monkeypatch.setenv("JAX_ROCM_RELEASE_CACHE", str(tmp_path / "cache"))
    base = load_project(project_dir)

    def line(version: str, plugin: str):
        return dataclasses.replace(
            base, version_info=dataclasses.replace(base.version_info, version=version),
            deps=base.deps.with_pins({"jax": {"line": version}, "plugin": {"commit": plugin * 40}}))
    store = LocalStore(tmp_path / "store")
    new, old = line("0.11.1", "a"), line("0.10.2", "b")
    _publish(store, old, "0.10.2")
    return store, new, old


def _plan(project, store, day):
    return make_plan(project, "nightly", date=DAY + dt.timedelta(days=day), pythons=("3.12",),
                     release_commit="r1", published=store.published().versions())


@pytest.mark.parametrize("first", ["new", "old"])
def test_two_lines_publish_the_same_nights_each_against_its_own(two_lines, first):
    """Both lines build and publish every night, whichever goes first: their versions and tags
    differ, neither blocks the other's publishing, and a night with no move on one line builds
    nothing there, decided against that line's own last nightly, not the other line's."""
    store, new, old = two_lines
    order = (new, old) if first == "new" else (old, new)
    for day in range(3):
        plans = [_plan(p, store, day) for p in order]
        assert len({p.tag for p in plans}) == 2
        for plan in plans:
            decision = nightly.decide_nightly(store, plan)
            assert decision.build, decision.reason
            check_publishable(store, plan.version, plan.revisions)
            _publish(store, order[plans.index(plan)], plan.version, release_commit="r1")
        # pins moved on each line for the next night... except on the last one
        if day < 2:
            order = tuple(dataclasses.replace(p, deps=p.deps.with_pins(
                {"plugin": {"commit": f"{day}{p.deps['plugin'].commit[1:]}"}})) for p in order)
    tags = sorted(r.tag for r in store.list_releases() if ".dev" in r.tag)
    assert {t.split(".dev")[0] for t in tags} == {"rocm-jax-v0.11.1", "rocm-jax-v0.10.2.post1"}
    assert len(tags) == 6
    for project in order:  # the fourth night, nothing moved on either line
        plan = _plan(project, store, 3)
        decision = nightly.decide_nightly(store, plan)
        own = _plan(project, store, 2).tag
        assert not decision.build and own in decision.reason, decision.reason


def _rel(version, *, days_ago, draft=False):
    tag = naming.release_tag(version)
    when = NOW - dt.timedelta(days=days_ago)
    return Release(days_ago * 10 + len(version), tag, tag, MARKER, draft, True, when, None if draft else when)


@pytest.mark.parametrize("keep", [1, 3])
def test_gc_and_the_index_keep_each_lines_newest(keep):
    """Ten nights of both lines: the newest ``keep`` nightlies of each line stay (the newer line
    sorts above every nightly of the older one, and must not push them out), the rest go."""
    nights = [f"0.11.1.dev202611{d}" for d in range(20, 30)] + [f"0.10.2.post1.dev202611{d}" for d in range(20, 30)]
    rels = [_rel(v, days_ago=30 - int(v[-2:])) for v in nights]
    decision = decide(rels, Retention(keep=keep), NOW)
    newest = sorted(str(k.version) for k in decision.kept)
    assert newest == sorted([f"0.11.1.dev202611{29 - i}" for i in range(keep)]
                            + [f"0.10.2.post1.dev202611{29 - i}" for i in range(keep)])
    assert len(decision.expired) == 20 - 2 * keep


def test_an_older_lines_draft_is_still_publishable_beside_the_newer_lines_nightlies():
    """An older line's draft two nights back (its publish failed) stays among the newest drafts
    while the newer line publishes every night: only its own line's published nightlies, release
    and posts can make it unpublishable."""
    rels = [_rel(f"0.11.1.dev202612{d:02d}", days_ago=9 - d) for d in range(1, 9)]
    rels += [_rel("0.10.2.post1.dev20261205", days_ago=4, draft=True),
             _rel("0.11.1.dev20261204", days_ago=5, draft=True)]
    decision = decide_drafts(rels, Retention(keep=1), NOW)
    reasons = {str(k.version): k.reason for k in decision.kept}
    assert reasons == {"0.10.2.post1.dev20261205": "newest"}
    assert [r.tag for r in decision.stale] == ["rocm-jax-v0.11.1.dev20261204"]  # its own line moved past it


def test_the_lines_json_written_is_the_file_the_workflows_read(tmp_path):
    (tmp_path / ".github").mkdir()
    (tmp_path / LINES_FILE).write_text(render_lines(with_line(("main",), "release/0.10")))
    assert json.loads((tmp_path / LINES_FILE).read_text()) == ["main", "release/0.10"]
