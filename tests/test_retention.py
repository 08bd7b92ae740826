"""One retention rule (``release.publish.retention``) for ``release gc`` and ``release index``: for the
same store and flags, the index lists exactly the nightlies gc keeps, and a protected nightly
survives gc whatever its age."""

from __future__ import annotations

import datetime as _dt
import itertools
import json

import pytest

from release.core.errors import UserError
from release.publish.retention import Retention, decide, retention
from release.publish.stores import Release

NOW = _dt.datetime(2026, 11, 23, 4, tzinfo=_dt.timezone.utc)
DAY = _dt.timedelta(days=1)
NIGHTLIES = [f"0.9.1.dev202611{d}" for d in range(16, 23)]  # published 7 .. 1 days before NOW


def listed_nightlies(site) -> set[str]:
    """The nightly versions the site's nightly/ channel lists (read from its PEP 691 pages)."""
    versions = set()
    for page in (site / "nightly").glob("*/index.json"):
        versions |= set(json.loads(page.read_text())["versions"])
    return versions


@pytest.fixture
def store(github_env, make_dist, monkeypatch):
    """Seven nightlies published a day apart, an rc and a release, each with its real wheels,
    on the GitHub stand-in."""
    ages = [len(NIGHTLIES) - i for i in range(len(NIGHTLIES))] + [40, 30]
    for version, age in zip(NIGHTLIES + ["0.9.1rc1", "0.9.0"], ages):
        wheels = {p.name: p.read_bytes() for p in make_dist(version).glob("*.whl")}
        github_env.seed_release(f"rocm-jax-v{version}", prerelease=version != "0.9.0",
                                published_at=NOW - age * DAY, assets=wheels)
    monkeypatch.setenv("RELEASE_NOW", NOW.isoformat())
    return github_env


def gc_kept(run_cli, *flags) -> dict:
    code, out, err = run_cli("gc", "--dry-run", "--json", *flags)
    assert code == 0, err
    return json.loads(out)


def tags_of(versions) -> set[str]:
    return {f"rocm-jax-v{v}" for v in versions}


@pytest.mark.parametrize("flags, expected", [
    (["--keep", "2"], NIGHTLIES[-2:]),
    # a tag or a version protects; beyond the newest 2, the 2 published 3 days ago or less stay too
    (["--keep", "2", "--protect", "rocm-jax-v0.9.1.dev20261117", "--older-than", "3"],
     ["0.9.1.dev20261117", "0.9.1.dev20261120", "0.9.1.dev20261121", "0.9.1.dev20261122"]),
    (["--keep", "1", "--protect", "0.9.1.dev20261116", "0.9.1.dev20261119"],
     ["0.9.1.dev20261116", "0.9.1.dev20261119", "0.9.1.dev20261122"]),
])
def test_gc_and_index_keep_the_same_nightlies_for_the_same_flags(store, run_cli, tmp_path, flags, expected):
    site = tmp_path / "site"
    code, _, err = run_cli("index", "--out", site, *flags)
    assert code == 0, err
    result = gc_kept(run_cli, *flags)
    assert set(result["kept"]) == tags_of(expected)
    assert listed_nightlies(site) == set(expected)  # the index lists what gc keeps, no more, no less
    assert set(result["deleted"]) == tags_of(NIGHTLIES) - tags_of(expected)

    code, out, err = run_cli("gc", "--json", *flags)  # now for real; then the index again
    assert code == 0, err
    left = {r["tag_name"] for r in store.releases() if "dev" in r["tag_name"]}
    assert left == tags_of(expected)
    code, _, err = run_cli("index", "--out", site, *flags)
    assert code == 0, err
    assert listed_nightlies(site) == set(expected)
    # and a second gc finds nothing more to delete
    assert gc_kept(run_cli, *flags)["deleted"] == []


def test_a_protected_nightly_survives_gc_and_stays_installable_from_the_index(store, run_cli, tmp_path):
    protect = tmp_path / "protect.txt"
    protect.write_text("# pinned by a downstream\nrocm-jax-v0.9.1.dev20261116  # its CI\n")
    code, out, err = run_cli("gc", "--keep", "1", "--protect-file", protect, "--json")
    assert code == 0, err
    result = json.loads(out)
    assert result["protected"] == ["rocm-jax-v0.9.1.dev20261116"]
    assert "rocm-jax-v0.9.1.dev20261116" in {r["tag_name"] for r in store.releases()}
    assert "rocm-jax-v0.9.1.dev20261116" in store.tags()  # its git tag too
    assert "rocm-jax-v0.9.1.dev20261117" not in {r["tag_name"] for r in store.releases()}
    site = tmp_path / "site"
    code, _, err = run_cli("index", "--out", site, "--keep", "1", "--protect-file", protect)
    assert code == 0, err
    assert listed_nightlies(site) == {"0.9.1.dev20261116", "0.9.1.dev20261122"}


def test_protecting_what_no_nightly_has_warns_in_both(store, run_cli, tmp_path):
    code, out, err = run_cli("gc", "--keep", "3", "--protect", "0.9.1.dev20990101", "--dry-run")
    assert code == 0 and "--protect 0.9.1.dev20990101: no published nightly has it" in out + err
    code, out, err = run_cli("index", "--out", tmp_path / "site", "--keep", "3", "--protect", "0.9.1.dev20990101")
    assert code == 0 and "--protect 0.9.1.dev20990101: no published nightly has it" in out + err


@pytest.mark.parametrize("command", ["gc", "index", "nightly"])
def test_a_protect_that_is_not_a_version_is_one_line_and_changes_nothing(store, run_cli, tmp_path, command):
    before = sorted(r["tag_name"] for r in store.releases())
    argv = {"gc": ["gc", "--keep", "1"], "index": ["index", "--out", tmp_path / "site"],
            "nightly": ["nightly", "--dry-run"]}[command]
    code, out, err = run_cli(*argv, "--protect", "rocm-jax-vlatest", "--json")
    assert code == 2
    assert json.loads(out)["error"].endswith("--protect rocm-jax-vlatest: not a version or release tag "
                                             "(expected e.g. 0.9.1.dev20261122 or rocm-jax-v0.9.1.dev20261122)")
    assert sorted(r["tag_name"] for r in store.releases()) == before and not (tmp_path / "site").exists()


IDS = itertools.count(1)


def release(tag, *, days_ago, prerelease=True, draft=False) -> Release:
    when = NOW - days_ago * DAY
    return Release(next(IDS), tag, tag, "", draft, prerelease, when, None if draft else when)


def test_the_rule_is_pure_and_keeps_what_it_must():
    rels = [release(f"rocm-jax-v0.9.1.dev202611{d}", days_ago=23 - d) for d in range(10, 23)]
    rels += [release("rocm-jax-v0.9.1rc1", days_ago=90), release("rocm-jax-v0.9.0", days_ago=99, prerelease=False),
             release("rocm-jax-v0.9.1.dev20261001", days_ago=60, draft=True),
             release("rocm-jax-v0.9.1.dev20261009", days_ago=45, prerelease=False),  # made a release by hand
             release("someone-elses-tag", days_ago=99)]
    rule = retention(2, 5.5, ["0.9.1.dev20261111"])
    decision = decide(rels, rule, NOW)
    reasons = {k.release.tag.removeprefix("rocm-jax-v"): k.reason for k in decision.kept}
    assert reasons == {"0.9.1.dev20261122": "newest", "0.9.1.dev20261121": "newest",
                       "0.9.1.dev20261120": "too young", "0.9.1.dev20261119": "too young",
                       "0.9.1.dev20261118": "too young", "0.9.1.dev20261111": "protected",
                       "0.9.1.dev20261009": "not a prerelease"}
    assert [r.tag for r in decision.expired] == [f"rocm-jax-v0.9.1.dev202611{d}" for d in (17, 16, 15, 14, 13, 12, 10)]
    assert decide(rels, rule, NOW) == decision  # same input, same answer
    # without --older-than the time is not needed at all
    assert len(decide(rels, Retention(keep=3), None).kept) == 4
    with pytest.raises(UserError):
        Retention(keep=0)
    with pytest.raises(UserError):
        Retention(keep=1, older_than_days=-1)


# ---------------------------------------------------------------- the rule, over generated stores

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from packaging.version import Version  # noqa: E402

# Lines of different lengths and shapes: a one-digit minor, a two-digit one, a maintenance line's
# post nightlies (X.Y.Z.postN.devD), so string order and PEP 440 order disagree.
LINES = ["0.9.1", "0.9.2", "0.10.0", "0.10.12", "1.0.0", "0.9.1.post1", "0.9.1.post10", "0.10.0.post2"]
nightly = st.builds(lambda line, day: f"{line}.dev2026{day // 31 + 1:02d}{day % 31 + 1:02d}",
                    st.sampled_from(LINES), st.integers(0, 300))


@settings(derandomize=True, max_examples=300, deadline=None)
@given(st.lists(st.tuples(nightly, st.integers(0, 400)), min_size=1, max_size=25,
                unique_by=lambda pair: pair[0]),
       st.integers(1, 8), st.none() | st.floats(0, 400))
def test_gc_never_lets_go_of_the_newest_n_in_pep440_order(published, keep, older_than):
    """Whatever the versions (lines of any length, post-line nightlies), the order they were
    published in and their ages: the ``keep`` newest by PEP 440 of each line (X.Y: 0.9, 0.10 and
    1.0 publish side by side) are kept as "newest", and nothing the rule lets go is newer than
    any of its line's."""
    rels = [release(f"rocm-jax-v{v}", days_ago=age) for v, age in published]
    decision = decide(rels, Retention(keep=keep, older_than_days=older_than), NOW)
    xy = lambda v: v.release[:2]  # noqa: E731
    newest = {k.version for k in decision.kept if k.reason == "newest"}
    for line in {xy(Version(v)) for v, _ in published}:
        by_pep440 = sorted((Version(v) for v, _ in published if xy(Version(v)) == line), reverse=True)
        assert {v for v in newest if xy(v) == line} == set(by_pep440[:keep])
        assert all(Version(r.tag.removeprefix("rocm-jax-v")) < min(by_pep440[:keep]) for r in decision.expired
                   if xy(Version(r.tag.removeprefix("rocm-jax-v"))) == line)
    assert {k.release.id for k in decision.kept} | {r.id for r in decision.expired} == {r.id for r in rels}


def test_the_rule_never_reads_a_clock(monkeypatch):
    """``now`` is an input: with every clock the module could read made to fail, the rule still
    decides, and the same ``now`` gives the same answer."""
    import types

    from release.publish import retention as module

    class NoClock(_dt.datetime):
        @classmethod
        def now(cls, tz=None):
            raise AssertionError("the retention rule read the wall clock")

        @classmethod
        def utcnow(cls):
            raise AssertionError("the retention rule read the wall clock")

        @classmethod
        def today(cls):
            raise AssertionError("the retention rule read the wall clock")

    monkeypatch.setattr(module, "_dt", types.SimpleNamespace(datetime=NoClock, timedelta=_dt.timedelta,
                                                            timezone=_dt.timezone, date=_dt.date))
    monkeypatch.setattr("time.time", lambda: (_ for _ in ()).throw(AssertionError("time.time read")))
    rels = [release(f"rocm-jax-v0.9.1.dev202611{d}", days_ago=23 - d) for d in range(10, 23)]
    decision = decide(rels, retention(2, 5.5), NOW)
    assert [k.release.tag for k in decision.kept][:2] == ["rocm-jax-v0.9.1.dev20261122",
                                                         "rocm-jax-v0.9.1.dev20261121"]


def test_a_nightly_is_aged_from_when_it_was_published_not_created():
    """A draft made 10 days ago and published yesterday is a day old: --older-than 5 keeps it."""
    created, published = NOW - 10 * DAY, NOW - 1 * DAY
    late = Release(next(IDS), "rocm-jax-v0.9.1.dev20261113", "late", "", False, True, created, published)
    newest = release("rocm-jax-v0.9.1.dev20261122", days_ago=1)
    decision = decide([late, newest], Retention(keep=1, older_than_days=5), NOW)
    assert {k.release.tag: k.reason for k in decision.kept}["rocm-jax-v0.9.1.dev20261113"] == "too young"
    assert decision.expired == ()


@pytest.mark.parametrize("draft", [True, False])
@pytest.mark.parametrize("ours", [True, False])
@pytest.mark.parametrize("tag", ["rocm-jax-v0.9.1.dev20261122", "rocm-jax-v0.9.1rc1", "rocm-jax-v0.9.1",
                                 "someone-elses-tag"])
def test_only_this_tools_nightly_drafts_are_candidates_for_draft_gc(draft, ours, tag):
    from release.publish.notes import MARKER
    from release.publish.retention import draft_version
    rel = Release(next(IDS), tag, tag, MARKER if ours else "notes", draft, True, NOW, None)
    expected = Version(tag.removeprefix("rocm-jax-v")) if draft and ours and ".dev" in tag else None
    assert draft_version(rel) == expected


def test_protect_flags_and_a_protect_file_add_up(tmp_path):
    listed = tmp_path / "protect.txt"
    listed.write_text("rocm-jax-v0.9.1.dev20261116  # a pinned downstream\n")
    rule = retention(1, None, ["0.9.1.dev20261118"], listed)
    assert rule.protect == {Version("0.9.1.dev20261116"), Version("0.9.1.dev20261118")}


def _draft(tag, *, days_ago=None, created=...):
    from release.publish.notes import MARKER
    when = NOW - days_ago * DAY if created is ... else created
    return Release(next(IDS), tag, tag, MARKER, True, True, when, None)


def test_draft_gc_names_why_each_draft_stays_and_ages_by_creation():
    """Today's and yesterday's drafts are current; then the newest by version; then protected
    ones; then, with --older-than, those created at most that many days ago (the boundary
    included, an unknown creation time counted young); every other one is stale. Two drafts of
    one tag (a retried create) are ranked without error."""
    from release.publish.retention import decide_drafts
    tag = "rocm-jax-v0.9.1.dev202611{:02d}".format
    rels = [_draft(tag(23), days_ago=0), _draft(tag(21), days_ago=2), _draft(tag(21), days_ago=2),
            _draft(tag(20), days_ago=5), _draft(tag(18), days_ago=7), _draft(tag(15), days_ago=8),
            _draft(tag(14), created=None), _draft(tag(12), days_ago=11)]
    rule = Retention(keep=3, older_than_days=8, protect=frozenset({Version("0.9.1.dev20261118")}))
    decision = decide_drafts(rels, rule, NOW)
    reasons = [(k.release.tag[-8:], k.reason, str(k.version)) for k in decision.kept]
    assert reasons == [("20261123", "current", "0.9.1.dev20261123"), ("20261121", "newest", "0.9.1.dev20261121"),
                       ("20261121", "newest", "0.9.1.dev20261121"), ("20261120", "too young", "0.9.1.dev20261120"),
                       ("20261118", "protected", "0.9.1.dev20261118"), ("20261115", "too young", "0.9.1.dev20261115"),
                       ("20261114", "too young", "0.9.1.dev20261114")]
    assert [r.tag[-8:] for r in decision.stale] == ["20261112"]


def test_a_protect_file_comment_starts_at_the_first_hash():
    import tempfile
    from pathlib import Path

    from release.publish.retention import read_protect_file
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "protect.txt"
        path.write_text("0.9.1.dev20261116#pinned # by team # b\n# a whole comment\n\n  0.9.1.dev20261118  \n")
        assert read_protect_file(path) == ["0.9.1.dev20261116", "0.9.1.dev20261118"]


@pytest.mark.parametrize("content, why", [
    (None, "No such file or directory"),
    (b"0.9.1.dev20261116\n\xff\xfe pinned\n", "can't decode byte 0xff"),
    ("fifo", "(FIFO); expected a regular file"),
])
def test_an_unreadable_protect_file_is_one_line_naming_it_once_and_why(tmp_path, content, why):
    """The line names the file once and the reason the system gave (not a repr of the error, not
    'None' where a reason has none of its own)."""
    import os

    from release.publish.retention import read_protect_file
    path = tmp_path / "protect.txt"
    if content == "fifo":
        os.mkfifo(path)
    elif content is not None:
        path.write_bytes(content)
    with pytest.raises(UserError) as err:
        read_protect_file(path)
    text = str(err.value)
    assert why in text and "\n" not in text and "None" not in text and "Errno" not in text
    assert text.count(str(path)) == 1


def test_a_whole_line_comment_holding_more_hashes_is_skipped(tmp_path):
    from release.publish.retention import read_protect_file
    path = tmp_path / "protect.txt"
    path.write_text("## pinned # by the perf team\n0.9.1.dev20261116 # a # b\n #x#y\n")
    assert read_protect_file(path) == ["0.9.1.dev20261116"]
    assert retention(1, None, (), path).protect == {Version("0.9.1.dev20261116")}


def _dead_draft_cases():
    """(what kills the 20261115 draft, the published releases): each leaves the 0.9.0 line's
    draft of the 14th the only one pip could ever get."""
    return {
        "a newer nightly is published": ["rocm-jax-v0.9.1.dev20261116"],
        "its line's release is published": ["rocm-jax-v0.9.1", "rocm-jax-v0.8.9.dev20261101"],
        "its line's post is published": ["rocm-jax-v0.9.1.post1"],
        "its own tag is published": ["rocm-jax-v0.9.1.dev20261115"],
    }


@pytest.mark.parametrize("why", list(_dead_draft_cases()))
@pytest.mark.parametrize("keep", [1, 2])
def test_a_draft_no_rule_lets_publish_never_holds_a_place_among_the_newest(why, keep):
    """A dead draft (a published nightly above it, its line's release or post published, its
    tag taken) is stale whatever --keep says; the newest publishable draft below it takes the
    place. A release of another line blocks nothing."""
    from release.publish.retention import decide_drafts
    rels = [release(tag, days_ago=3, prerelease="dev" in tag) for tag in _dead_draft_cases()[why]]
    dead, live = _draft("rocm-jax-v0.9.1.dev20261115", days_ago=8), _draft("rocm-jax-v0.9.0.dev20261114", days_ago=9)
    if why in ("a newer nightly is published", "its own tag is published"):  # all below it are dead
        live = _draft("rocm-jax-v0.9.2.dev20261114", days_ago=9)
    decision = decide_drafts([*rels, dead, live], Retention(keep=keep), NOW)
    assert [(k.release.tag, k.reason) for k in decision.kept] == [(live.tag, "newest")]
    assert [r.tag for r in decision.stale] == [dead.tag]
