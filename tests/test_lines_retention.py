"""A retired line's nightlies go: gc and the index (one rule, ``retention.decide``) keep the newest
``keep`` nightlies only of the lines the default branch's ``.github/lines.json`` maintains (each
``release/X.Y`` it lists and the default branch's own line); a line taken off the list keeps none,
but its releases, rcs and posts stay, and so do its protected nightlies and one published as a
full release. Without the list there is one line and nothing changes. The list is read at the
default branch's tip on origin (gc runs on any line's commit, whose copy may be stale)."""

from __future__ import annotations

import datetime as dt
import json
import subprocess

import pytest
from packaging.version import Version

from release.core import naming
from release.jobs.lines import kept_lines, maintained
from release.publish.gc import plan_gc
from release.publish.notes import MARKER
from release.publish.retention import Retention, decide, decide_drafts
from release.publish.stores import Release

NOW = dt.datetime(2026, 12, 10, 12, tzinfo=dt.timezone.utc)
LINES = {"0.12": "0.12.0.dev202612{:02d}", "0.11": "0.11.1.dev202612{:02d}",
         "0.10": "0.10.2.post1.dev202612{:02d}", "0.9": "0.9.1.post7.dev202612{:02d}"}


def _rel(version, *, days_ago, draft=False, prerelease=True, n=0):
    tag = naming.release_tag(version)
    when = NOW - dt.timedelta(days=days_ago)
    return Release(1000 * n + days_ago * 10 + len(version), tag, tag, MARKER, draft, prerelease, when,
                   None if draft else when)


def _store(lines, nights=5):
    """``nights`` nightlies of each line (day 1 .. nights), plus the release of 0.9.1 and an rc of 0.10."""
    rels = [_rel(LINES[x].format(d), days_ago=10 - d, n=i) for i, x in enumerate(lines) for d in range(1, nights + 1)]
    return rels + [_rel("0.9.1", days_ago=20, prerelease=False), _rel("0.10.2rc1", days_ago=15)]


@pytest.mark.parametrize("maintained_, retired", [
    (("0.11", "0.10"), ("0.9",)),              # two lines kept, 0.9 taken off the list
    (("0.12", "0.11", "0.10"), ("0.9",)),      # three lines kept
    (("0.12",), ("0.11", "0.10", "0.9")),     # one kept, three retired
])
@pytest.mark.parametrize("keep", [1, 2])
def test_a_retired_line_keeps_no_nightly_and_every_maintained_line_its_newest(maintained_, retired, keep):
    rels = _store((*maintained_, *retired))
    keys = frozenset(tuple(int(p) for p in x.split(".")) for x in maintained_)
    decision = decide(rels, Retention(keep=keep, lines=keys), NOW)
    kept = sorted(str(k.version) for k in decision.kept)
    assert kept == sorted(LINES[x].format(d) for x in maintained_ for d in range(5, 5 - keep, -1))
    gone = {naming.version_from_tag(r.tag) for r in decision.expired}
    assert {LINES[x].format(d) for x in retired for d in range(1, 6)} <= gone
    assert not {"0.9.1", "0.10.2rc1"} & gone  # a release and an rc are never nightlies here
    assert [r.tag for r in plan_gc(rels, Retention(keep=keep, lines=keys), NOW)[0]] == [r.tag for r in decision.expired]


def test_without_the_list_every_line_keeps_its_newest():
    rels = _store(("0.11", "0.10", "0.9"))
    for rule in (Retention(keep=2), Retention(keep=2, lines=None)):
        kept = {str(k.version) for k in decide(rels, rule, NOW).kept}
        assert kept == {LINES[x].format(d) for x in ("0.11", "0.10", "0.9") for d in (5, 4)}


def test_a_retired_lines_protected_young_or_full_release_nightlies_still_stay():
    rels = _store(("0.11", "0.9"))
    full = _rel(LINES["0.9"].format(7), days_ago=1, prerelease=False, n=9)
    rule = Retention(keep=1, lines=frozenset({(0, 11)}), protect=frozenset({Version(LINES["0.9"].format(2))}),
                     older_than_days=6.5)
    kept = decide([*rels, full], rule, NOW).kept
    reasons = {str(k.version): k.reason for k in kept if str(k.version).startswith("0.9")}
    assert reasons == {LINES["0.9"].format(7): "not a prerelease", LINES["0.9"].format(2): "protected",
                       LINES["0.9"].format(5): "too young", LINES["0.9"].format(4): "too young"}


def test_a_retired_lines_old_draft_is_stale():
    """Drafts follow the same rule: a retired line's draft two nights back is not one of the newest
    (today's and yesterday's drafts still stay, whatever their line)."""
    rels = [_rel("0.9.1.post7.dev20261205", days_ago=5, draft=True),
            _rel("0.9.1.post7.dev20261210", days_ago=0, draft=True), _rel("0.11.1.dev20261206", days_ago=4, draft=True)]
    got = decide_drafts(rels, Retention(keep=2, lines=frozenset({(0, 11)})), NOW)
    assert {str(k.version): k.reason for k in got.kept} == {"0.9.1.post7.dev20261210": "current",
                                                            "0.11.1.dev20261206": "newest"}
    assert [r.tag for r in got.stale] == ["rocm-jax-v0.9.1.post7.dev20261205"]


@pytest.mark.parametrize("lines, version, want", [
    (["main", "release/0.10"], "0.11.1", {(0, 11), (0, 10)}),
    (["main", "release/0.10", "release/0.9"], "0.11.1.post2", {(0, 11), (0, 10), (0, 9)}),
    (["trunk", "release/1.2", "release/0.10"], "1.3.0", {(1, 3), (1, 2), (0, 10)}),
    (["main"], "0.12.0", {(0, 12)}),
])
def test_the_kept_lines_are_the_listed_release_lines_and_the_default_branchs(lines, version, want):
    assert kept_lines(tuple(lines), version) == want


def git(*args, cwd):
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout


def _commit(root, files, message):
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    git("add", "-A", cwd=root)
    git("-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", message, cwd=root)


def test_the_lines_are_read_at_the_default_branchs_tip_not_from_a_lines_stale_copy(tmp_path):
    """The checkout is release/0.10's commit, whose list (copied from main when the line started)
    names main alone; main on origin lists both lines and is on 0.11: both are kept. Without the
    list in the checkout, or without origin, every line keeps its newest (None)."""
    origin, work = tmp_path / "origin.git", tmp_path / "work"
    git("init", "-q", "--bare", "-b", "main", str(origin), cwd=tmp_path)
    git("clone", "-q", str(origin), str(work), cwd=tmp_path)
    git("checkout", "-q", "-b", "main", cwd=work)
    info = {"rocm_version": "7.2.0", "nightly_scheme": "date"}
    _commit(work, {".github/lines.json": json.dumps(["main"]),
                   "version_info.json": json.dumps({"version": "0.10.2", **info})}, "start")
    git("push", "-q", "origin", "main", cwd=work)
    git("checkout", "-q", "-b", "release/0.10", cwd=work)
    git("push", "-q", "origin", "release/0.10", cwd=work)
    stale = git("rev-parse", "HEAD", cwd=work).strip()
    git("checkout", "-q", "main", cwd=work)
    _commit(work, {".github/lines.json": json.dumps(["main", "release/0.10"]),
                   "version_info.json": json.dumps({"version": "0.11.1", **info})}, "0.11 on main")
    git("push", "-q", "origin", "main", cwd=work)
    git("checkout", "-q", stale, cwd=work)  # detached at the line's commit, as the finish job is
    assert maintained(work) == {(0, 11), (0, 10)}
    from argparse import Namespace

    from release.commands._project_reads import retention_from_args  # what gc and the index are given
    args = Namespace(root=work, keep=1, older_than=None, protect=[], protect_file=None)
    assert retention_from_args(args).lines == {(0, 11), (0, 10)}
    git("remote", "remove", "origin", cwd=work)
    assert maintained(work) is None
    (work / ".github" / "lines.json").unlink()
    assert maintained(work) is None and maintained(None) is None
