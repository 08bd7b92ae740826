"""The version line is jax's, and a released line keeps publishing: the rules, over generated
versions (lines of different lengths of digits, posts, rcs, nightlies of both schemes), with the
order checked against ``packaging`` (what pip sorts by)."""

from __future__ import annotations

import dataclasses
import datetime as dt

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from packaging.specifiers import SpecifierSet
from packaging.version import Version

from release.build.plan import candidate_versions, make_plan, next_versions
from release.core import versions
from release.core.config import load_project
from release.core.versions import VersionError
from tests.support.project import copy_config

SETTINGS = settings(derandomize=True, max_examples=150, deadline=None)

numbers = st.integers(min_value=0, max_value=2000)
lines = st.tuples(numbers, numbers, numbers).map(lambda t: "%d.%d.%d" % t)
posts = st.integers(min_value=1, max_value=120)
dates = st.dates(min_value=dt.date(2000, 1, 1), max_value=dt.date(2099, 12, 31))
builds = st.one_of(st.none(), st.integers(min_value=0, max_value=999))


@st.composite
def published_of(draw, line: str) -> list[str]:
    """What a line may have published: nightlies, rcs, the release, posts, in any mix."""
    out = []
    for _ in range(draw(st.integers(0, 8))):
        kind = draw(st.sampled_from(["nightly", "rc", "release", "post"]))
        if kind == "nightly":
            base = draw(st.sampled_from([line, f"{line}.post{draw(posts)}"]))
            out.append(versions.nightly(base, draw(dates)))
        elif kind == "rc":
            out.append(versions.rc(line, draw(posts)))
        elif kind == "release":
            out.append(line)
        else:
            out.append(versions.post(line, draw(posts)))
    return out


@SETTINGS
@given(lines, st.data())
def test_after_any_publication_the_next_versions_nightly_sorts_above_everything_final_of_its_line(
        line, data):
    """The maintenance rule: a nightly of the next version sorts above every release and post
    release its line published, and below the release it leads to."""
    published = data.draw(published_of(line))
    finals = [Version(v) for v in published if versions.kind_of(v) in ("release", "post")]
    nxt = versions.next_after(str(max(finals))) if finals else line
    day, build = data.draw(dates), data.draw(builds)
    nightly = Version(versions.nightly(nxt, day, build))
    assert all(nightly > f for f in finals)
    assert nightly < Version(versions.release(nxt))
    assert versions.blocking_version(str(nightly), published) in (None, str(nightly))
    assert versions.base_of(str(nightly)) == line and versions.kind_of(str(nightly)) == "nightly"
    # what the pinned install line of the line matches, pip's way
    assert SpecifierSet(f"=={line}.*").contains(nightly, prereleases=True)


@SETTINGS
@given(lines, st.one_of(st.just(0), posts), dates, builds)
def test_every_string_is_canonical_and_orders_as_packaging_says(line, post, day, build):
    nxt = f"{line}.post{post}" if post else line
    made = [versions.nightly(nxt, day, build), versions.release(nxt), versions.post(nxt)]
    if not post:
        made.insert(1, versions.rc(nxt, 1))
    for text in made:
        assert str(Version(text)) == text
    assert sorted(made, key=Version) == made
    assert versions.parse_next(nxt) == (line, post)
    assert versions.line_of(nxt) == line


@SETTINGS
@given(lines, posts, posts)
def test_next_after_moves_one_post_on_and_stays_on_the_line(line, a, b):
    assert versions.next_after(line) == f"{line}.post1"
    nxt = versions.next_after(f"{line}.post{a}")
    assert Version(nxt) > Version(f"{line}.post{a}") and versions.line_of(nxt) == line
    # the order of post numbers is numeric (post10 after post9), as pip's
    assert (Version(f"{line}.post{a}") < Version(f"{line}.post{b}")) == (a < b)


@SETTINGS
@given(lines, lines)
def test_line_problem_only_when_the_lines_differ(ours, jax):
    problem = versions.line_problem(ours, jax, "7f75782ad5ea6cd97e6346dcae9317ac31babef8")
    assert (problem is None) == (ours == jax)
    if problem:
        assert f"jax {jax}" in problem and "7f75782" in problem and "release bump" in problem
    assert versions.line_problem(f"{ours}.post3", ours) is None
    assert versions.line_problem(ours, None) is None  # nothing recorded: nothing to check


@pytest.mark.parametrize("text", ["0.9", "0.9.1.post0", "0.9.1.post", "0.9.1rc1", "0.9.1.dev1",
                                  "v0.9.1", "0.09.1", "0.9.1.post01", "0.9.1+rocm7", 91, None])
def test_a_next_version_is_x_y_z_or_its_post(text):
    with pytest.raises(VersionError):
        versions.parse_next(text)


# ---------------------------------------------------------------- the plan and status


@pytest.fixture
def project(tmp_path):
    return load_project(copy_config(tmp_path))


def at(project, version: str, jax_line: str | None = "0.9.1"):
    info = dataclasses.replace(project.version_info, version=version)
    return dataclasses.replace(project, version_info=info,
                               deps=project.deps.with_pins({"jax": {"line": jax_line}}))


DAY = dt.date(2026, 11, 25)


def test_the_plan_refuses_a_version_off_the_jax_pins_line(project):
    for kind in ("nightly", "rc", "release", "post"):
        with pytest.raises(VersionError, match=r"is on line 0.10.0, but the jax pin 7f75782 is jax "
                                               r"0.9.1 .*run `release bump`"):
            make_plan(at(project, "0.10.0"), kind, date=DAY, pythons=("3.12",))
    plan = make_plan(at(project, "0.10.0", "0.10.0"), "nightly", date=DAY, pythons=("3.12",))
    assert plan.version == "0.10.0.dev20261125"
    # no recorded line (a deps.yaml bump has not written yet): not checked
    assert make_plan(at(project, "0.10.0", None), "release", pythons=("3.12",)).version == "0.10.0"


def test_a_released_lines_nightly_is_its_next_post_dev(project):
    plan = make_plan(at(project, "0.9.1.post7"), "nightly", date=DAY, pythons=("3.12",))
    assert plan.version == "0.9.1.post7.dev20261125" and plan.tag == "rocm-jax-v0.9.1.post7.dev20261125"
    assert make_plan(at(project, "0.9.1.post7"), "release", pythons=("3.12",)).version == "0.9.1.post7"
    with pytest.raises(VersionError, match="release candidates exist only before a line's first release"):
        make_plan(at(project, "0.9.1.post7"), "rc", number=1, pythons=("3.12",))


@pytest.mark.parametrize("published, released", [
    ((), None),                                            # a fresh store: nothing of the line
    (("0.9.1.dev20261120", "0.9.1rc1"), None),             # only nightlies and an rc of it
    (("0.10.0", "0.9.0.post1"), None),                     # other lines' releases are not this one's
    (("0.9.1",), "0.9.1"),
    (("0.9.1.post3", "0.9.1", "0.9.1.post12"), "0.9.1.post12"),   # the newest, not the last listed
])
def test_the_notes_agree_on_whether_the_line_is_released(project, published, released):
    """Issue 33: "line 0.9.1 is released" stood beside "nothing of line 0.9.1 is published"."""
    nxt = next_versions(at(project, "0.9.1.post13"), list(published), DAY)
    rc, post = nxt["rc"]["why"], nxt["post"]["why"]
    assert "rcs come before a line's first release" in rc
    if released is None:
        assert "is released" not in rc and "version_info.json names 0.9.1.post13" in rc
        assert "nothing of line 0.9.1 is published" in post
    else:
        assert rc.startswith("line 0.9.1 is released (") and rc.endswith(f"({released} is published)")
        assert "nothing" not in post


REAL_LINE = ["0.9.1", *(f"0.9.1.post{n}" for n in range(1, 7)), "0.9.2", "0.10.0", "0.12.0"]


def test_status_and_version_agree_on_every_kind(project, run_cli):
    """Issue 23: `version --kind post` said 0.10.0.post1 while status said 0.9.1.post2."""
    proj = at(project, "0.9.1.post7")
    got = candidate_versions(proj, (), DAY)
    assert got == {"nightly": "0.9.1.post7.dev20261125", "rc": None, "release": "0.9.1.post7",
                   "post": "0.9.1.post7"}
    nxt = next_versions(proj, REAL_LINE, DAY)
    assert {k: v["version"] for k, v in nxt.items()} == got | {"rc": None}
    assert "rcs come before a line's first release" in nxt["rc"]["why"]
    # a newer line published elsewhere never blocks a maintenance line
    assert all(v["why"] == "" for k, v in nxt.items() if k != "rc")
    root = proj.root
    (root / "version_info.json").write_text((root / "version_info.json").read_text()
                                            .replace('"0.9.1"', '"0.9.1.post7"'))
    for kind in ("nightly", "release", "post"):
        code, out, err = run_cli("version", "--kind", kind, "--date", "2026-11-25", "--root", root)
        assert code == 0, err
        assert out.strip() == got[kind]
    code, _, err = run_cli("version", "--kind", "rc", "--root", root)
    assert code == 2 and "rcs come before a line's first release" in err


def test_a_stale_line_is_refused_by_version_and_warned_by_status(project, run_cli):
    root = project.root
    (root / "version_info.json").write_text((root / "version_info.json").read_text()
                                            .replace('"0.9.1"', '"0.10.0"'))
    code, _, err = run_cli("version", "--kind", "nightly", "--root", root)
    assert code == 2 and len(err.strip().splitlines()) == 1 and "jax 0.9.1" in err
    code, out, err = run_cli("status", "--offline", "--json", "--root", root)
    assert code == 0, err
    import json
    line = json.loads(out)["line"]
    assert line["ok"] is False and line["jax_line"] == "0.9.1" and "0.10.0" in line["problem"]


def test_a_post_of_a_line_behind_the_store_is_one_above_the_store(project):
    proj = at(project, "0.9.1")
    assert candidate_versions(proj, ["0.9.1", "0.9.1.post3"], DAY)["post"] == "0.9.1.post4"
    assert candidate_versions(proj, ["0.9.1", "0.9.2.post8"], DAY)["post"] == "0.9.1.post1"
    assert candidate_versions(at(project, "0.9.1.post9"), ["0.9.1.post3"], DAY)["post"] == "0.9.1.post9"
    assert candidate_versions(proj, [], DAY, number=5)["post"] == "0.9.1.post5"
    assert candidate_versions(proj, ["0.9.1rc2", "0.9.2rc7"], DAY)["rc"] == "0.9.1rc3"


# ---------------------------------------------------------------- the two files


def test_deps_records_the_jax_line_only_on_jax_and_saves_it_in_place(tmp_path):
    from release.core import config
    from release.core.errors import ConfigError
    root = copy_config(tmp_path)
    deps = config.load_deps(root / "deps.yaml")
    assert deps["jax"].line == "0.9.1" and deps["xla"].line is None
    text = (root / "deps.yaml").read_text()
    moved = deps.with_pins({"jax": {"line": "0.10.0", "commit": "a" * 40}})
    assert config.save_deps(moved)
    new = (root / "deps.yaml").read_text()
    assert config.load_deps(root / "deps.yaml") == moved
    assert new.count("\n") == text.count("\n") and 'line: "0.10.0"' in new  # quoted, in place
    for bad, where in ((text.replace('    line: "0.9.1"\n', '    line: 0.9\n'), "deps.jax.line"),
                       (text.replace('    line: "0.9.1"\n', '    line: "0.9.1.post1"\n'), "deps.jax.line"),
                       (text.replace("    roll: head\n", '    roll: head\n    line: "0.9.1"\n', 1),
                        "deps.plugin.line")):
        with pytest.raises(ConfigError, match=where):
            config.parse_deps(root / "deps.yaml", bad)


@pytest.mark.parametrize("version, ok", [("0.9.1", True), ("0.9.1.post7", True), ("10.20.30.post100", True),
                                         ("0.9.1.post0", False), ("0.9.1rc1", False), ("0.9", False)])
def test_version_info_takes_a_line_or_its_next_post(tmp_path, version, ok):
    from release.core import config
    from release.core.errors import ConfigError
    text = '{"version": "%s", "rocm_version": "7.2.0", "nightly_scheme": "date"}' % version
    if ok:
        info = config.parse_version_info(tmp_path / "v.json", text)
        assert info.line == version.split(".post")[0]
    else:
        with pytest.raises(ConfigError, match="X.Y.Z, or X.Y.Z.postN once the line is released"):
            config.parse_version_info(tmp_path / "v.json", text)


def test_the_shipped_files_are_on_the_real_line():
    """Issue 19/23: the shipped version_info.json agrees with its own jax pin, and sorts above
    what the real line published (0.9.1 .. 0.9.1.post6 on PyPI)."""
    from tests.support.project import REPO
    proj = load_project(REPO)
    assert proj.line_problem() is None and proj.jax_line == "0.9.1"
    nightly = versions.nightly(proj.version_info.version, DAY)
    assert versions.blocking_version(nightly, REAL_LINE) is None


def test_a_post_re_spins_a_release_of_its_own_line_never_a_newer_ones(project, tmp_path):
    """`cut --post N` without --from: the newest release of version_info.json's line, though a
    newer line was released since (a maintenance line's re-spin)."""
    from release.jobs.post import post_source
    from release.publish.stores import LocalStore
    from tests.test_jobs import _publish
    store = LocalStore(tmp_path / "store")
    for version in ("0.9.0", "0.9.1", "0.10.0"):
        _publish(store, project, version)
    source, version, _ = post_source(store, 2, None, "0.9.1")
    assert (source.tag, version) == ("rocm-jax-v0.9.1", "0.9.1.post2")
    assert post_source(store, 1, None)[1] == "0.10.0.post1"  # no line given: the newest release
    from release.core.errors import UserError
    with pytest.raises(UserError, match="no published release of line 0.9.2 to re-spin"):
        post_source(store, 1, None, "0.9.2")


@st.composite
def a_version_of(draw, line: str) -> str:
    kind = draw(st.sampled_from(["nightly", "rc", "release", "post", "post-nightly"]))
    if kind == "nightly":
        return versions.nightly(line, draw(dates))
    if kind == "post-nightly":
        return versions.nightly(f"{line}.post{draw(posts)}", draw(dates))
    if kind == "rc":
        return versions.rc(line, draw(posts))
    return line if kind == "release" else versions.post(line, draw(posts))


@SETTINGS
@given(st.data())
def test_blocking_version_is_the_newest_published_of_the_line_the_new_one_must_sort_above(data):
    """MUST_SORT_ABOVE over generated lines: a version is blocked by exactly the newest
    published version of its own line that equals it or that it must sort above and does
    not; other lines and unparsable strings never block."""
    line, other = data.draw(lines), data.draw(lines)
    new = data.draw(a_version_of(line))
    published = data.draw(st.lists(st.one_of(a_version_of(line), a_version_of(other),
                                             st.sampled_from(["junk", "", "1.0-final-x"])),
                                   max_size=10))
    mine, kind = Version(new), versions.kind_of(new)
    blocking = [Version(p) for p in published if p not in ("junk", "", "1.0-final-x")
                and Version(p).base_version == line
                and (Version(p) == mine or (versions.kind_of(p) in versions.MUST_SORT_ABOVE[kind]
                                            and Version(p) > mine))]
    got = versions.blocking_version(new, published)
    assert (got is None) == (not blocking)
    if got is not None:
        assert Version(got) == max(blocking) and got in published
