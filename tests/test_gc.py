"""``release gc``: old nightlies and their tags go; releases, rcs, drafts and the newest N stay."""

from __future__ import annotations

import datetime as _dt
import json

import pytest
from packaging.version import Version

from release.core.errors import UserError
from release.publish.gc import plan_gc
from release.publish.retention import Retention
from release.publish.stores import LocalStore

NOW = _dt.datetime(2026, 11, 22, 12, tzinfo=_dt.timezone.utc)


def seed(fake):
    """Nightlies of ten days, an rc, a release, a post release and a draft nightly."""
    day = _dt.timedelta(days=1)
    for i in range(10):
        date = (NOW - (10 - i) * day).strftime("%Y%m%d")
        fake.seed_release(f"rocm-jax-v0.9.1.dev{date}", prerelease=True,
                          published_at=NOW - (10 - i) * day, assets={"a.whl": b"x"})
    fake.seed_release("rocm-jax-v0.9.1rc1", prerelease=True, published_at=NOW - 30 * day)
    fake.seed_release("rocm-jax-v0.9.0", published_at=NOW - 60 * day)
    fake.seed_release("rocm-jax-v0.9.0.post1", published_at=NOW - 50 * day)
    fake.seed_release("rocm-jax-v0.9.1.dev20261001", draft=True, prerelease=True,
                      published_at=NOW - 52 * day)


def tags(fake):
    return sorted(r["tag_name"] for r in fake.releases())


def test_gc_keeps_newest_n_and_every_non_nightly(run_cli, github_env, monkeypatch):
    seed(github_env)
    before = tags(github_env)
    code, out, err = run_cli("gc", "--keep", "3", "--dry-run")
    assert code == 0, err
    assert out.count("would delete rocm-jax") == 7 and tags(github_env) == before
    code, out, err = run_cli("gc", "--keep", "3", "--json")
    assert code == 0, err
    result = json.loads(out)
    assert len(result["deleted"]) == 7
    left = tags(github_env)
    assert left == sorted(["rocm-jax-v0.9.1.dev20261119", "rocm-jax-v0.9.1.dev20261120",
                           "rocm-jax-v0.9.1.dev20261121", "rocm-jax-v0.9.1rc1", "rocm-jax-v0.9.0",
                           "rocm-jax-v0.9.0.post1", "rocm-jax-v0.9.1.dev20261001"])
    gone = set(result["deleted"])
    assert not gone & set(github_env.tags())  # their git tags went too
    assert "rocm-jax-v0.9.0" in github_env.tags()
    assert github_env.token not in out + err
    code, out, _ = run_cli("gc", "--keep", "3", "--json")  # nothing left to do
    assert json.loads(out)["deleted"] == []


def test_older_than_counts_from_the_runs_clock(run_cli, github_env, monkeypatch):
    """``--older-than`` ages each nightly from ``$RELEASE_NOW`` (the run's clock, as every
    command reads it), not the machine's: the same store and clock give the same deletions on
    any day."""
    seed(github_env)
    monkeypatch.setenv("RELEASE_NOW", NOW.isoformat())
    code, out, err = run_cli("gc", "--keep", "2", "--older-than", "5.5", "--dry-run", "--json")
    assert code == 0, err
    assert sorted(json.loads(out)["deleted"]) == [f"rocm-jax-v0.9.1.dev202611{d}" for d in (12, 13, 14, 15, 16)]
    monkeypatch.setenv("RELEASE_NOW", (NOW + _dt.timedelta(days=2)).isoformat())  # two days on
    code, out, err = run_cli("gc", "--keep", "2", "--older-than", "5.5", "--dry-run", "--json")
    assert code == 0, err
    assert sorted(json.loads(out)["deleted"]) == [f"rocm-jax-v0.9.1.dev202611{d}" for d in range(12, 19)]


def test_older_than_narrows_and_plan_is_pure(fake_github):
    seed(fake_github)
    from tests.support.publish_dist import gh_store
    releases = gh_store(fake_github).list_releases()
    delete, kept = plan_gc(releases, Retention(keep=2, older_than_days=5.5), NOW)
    assert sorted(r.tag for r in delete) == [f"rocm-jax-v0.9.1.dev202611{d}" for d in (12, 13, 14, 15, 16)]
    assert {r.tag for r in kept} >= {"rocm-jax-v0.9.1.dev20261121", "rocm-jax-v0.9.1.dev20261117"}
    with pytest.raises(UserError):
        plan_gc(releases, Retention(keep=0), NOW)


def test_gc_on_the_local_store(tmp_path, make_dist):
    from tests.support.publish_dist import release_dist
    store = LocalStore(tmp_path / "s")
    for d in ("20261120", "20261121", "20261122"):
        release_dist(store, make_dist(f"0.9.1.dev{d}"))
    release_dist(store, make_dist("0.9.1rc1"))
    from release.publish.gc import collect
    result = collect(store, Retention(keep=1), dry_run=False, now=NOW)
    assert sorted(result["deleted"]) == ["rocm-jax-v0.9.1.dev20261120", "rocm-jax-v0.9.1.dev20261121"]
    assert sorted(r.tag for r in store.list_releases()) == ["rocm-jax-v0.9.1.dev20261122",
                                                           "rocm-jax-v0.9.1rc1"]


def test_gc_of_a_mistyped_local_store_says_so_and_creates_nothing(run_cli, tmp_path, make_dist, monkeypatch):
    from tests.support.publish_dist import release_dist
    monkeypatch.delenv("GITHUB_REPOSITORY", raising=False)
    release_dist(LocalStore(tmp_path / "store"), make_dist("0.9.1.dev20261120"))
    code, out, err = run_cli("gc", "--keep", "1", "--store-dir", tmp_path / "stroe")
    assert code == 2 and "did you mean" in err and str(tmp_path / "store") in err
    assert not (tmp_path / "stroe").exists()


# ------------------------------------------------------------------ stale drafts (issue 26)

MARK = "notes\n\n<!-- jax-rocm-release draft -->\n"


def draft_seed(fake):
    """This tool's nightly drafts of ten red nights (the 12th to the 21st), today's (the 22nd),
    and drafts it must never touch: a hand-made nightly draft, its own rc draft, another tag."""
    day = _dt.timedelta(days=1)
    for i in range(11):
        when = NOW - (10 - i) * day
        fake.seed_release(f"rocm-jax-v0.9.1.dev{when:%Y%m%d}", draft=True, prerelease=True, body=MARK,
                          published_at=when, assets={"a.whl": b"x"})
    fake.seed_release("rocm-jax-v0.9.1.dev20261101", draft=True, prerelease=True, body="by hand",
                      published_at=NOW - 21 * day)
    fake.seed_release("rocm-jax-v0.9.1rc1", draft=True, prerelease=True, body=MARK, published_at=NOW - 30 * day)
    fake.seed_release("v0.9.1-nightly-20261101", draft=True, prerelease=True, body=MARK,
                      published_at=NOW - 21 * day)
    fake.seed_release("rocm-jax-v0.9.1.dev20261110", prerelease=True, published_at=NOW - 12 * day)


def test_gc_collects_stale_drafts_of_its_own_nightlies_only(run_cli, github_env, monkeypatch):
    draft_seed(github_env)
    monkeypatch.setenv("RELEASE_NOW", NOW.isoformat())
    before = tags(github_env)
    code, out, err = run_cli("gc", "--keep", "2", "--dry-run", "--json")
    assert code == 0, err
    assert tags(github_env) == before  # a dry run deletes nothing
    code, out, err = run_cli("gc", "--keep", "2", "--json")
    assert code == 0, err
    result = json.loads(out)
    # the newest two drafts (today's 22nd and yesterday's 21st, which would stay anyway) stay
    assert sorted(result["kept_drafts"]) == [f"rocm-jax-v0.9.1.dev202611{d}" for d in (21, 22)]
    assert sorted(result["deleted_drafts"]) == [f"rocm-jax-v0.9.1.dev202611{d}" for d in range(12, 21)]
    left = tags(github_env)
    for untouched in ("rocm-jax-v0.9.1.dev20261101", "rocm-jax-v0.9.1rc1", "v0.9.1-nightly-20261101",
                      "rocm-jax-v0.9.1.dev20261110"):
        assert untouched in left
    assert result["deleted"] == []  # the one published nightly is within --keep 2
    code, out, _ = run_cli("gc", "--keep", "2", "--json")
    assert json.loads(out)["deleted_drafts"] == []  # a re-run has nothing left to do


def test_a_draft_published_after_the_listing_is_not_deleted(fake_github):
    from release.publish.gc import collect
    from tests.support.publish_dist import gh_store
    draft_seed(fake_github)
    store = gh_store(fake_github)
    original = store.list_releases
    calls = []

    def publish_one_between_listings():
        calls.append(1)
        if len(calls) == 2:  # gc's second look: meanwhile a job published the 12th's draft
            rel = next(r for r in original() if r.tag == "rocm-jax-v0.9.1.dev20261112")
            store.publish(rel, prerelease=True, make_latest=False)
        return original()
    store.list_releases = publish_one_between_listings
    result = collect(store, Retention(keep=2), dry_run=False, now=NOW)
    assert "rocm-jax-v0.9.1.dev20261112" not in result["deleted_drafts"]
    assert store.published_for("rocm-jax-v0.9.1.dev20261112") is not None
    assert len(result["deleted_drafts"]) == 8


def _release(tag, *, draft, ours, created, rid):
    from release.publish.notes import MARKER
    from release.publish.stores import Release
    return Release(id=rid, tag=tag, name=tag, body=MARKER if ours else "", draft=draft, prerelease=True,
                   created_at=created, published_at=None if draft else created)


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

drafts_strategy = st.lists(st.tuples(
    st.integers(-40, 3),  # days from NOW of the nightly's date (future: a clock behind the build)
    st.sampled_from(["dev", "dev-build", "rc", "release", "post", "foreign"]),
    st.booleans(),  # ours
    st.booleans(),  # still a draft
    st.integers(0, 30),  # created this many days before NOW
), max_size=25)


@settings(max_examples=150, derandomize=True, deadline=None)
@given(items=drafts_strategy, keep=st.integers(1, 6), older=st.one_of(st.none(), st.floats(0, 20)),
       protect_pick=st.integers(0, 24))
def test_draft_retention_never_touches_what_it_must_not(items, keep, older, protect_pick):
    """For any mix of drafts: only this tool's nightly drafts older than yesterday are ever stale;
    the newest `keep` of them, protected ones and young ones stay; the published nightlies'
    decision is the same with or without the drafts."""
    from release.publish.retention import decide, decide_drafts, draft_version, nightly_date
    releases = []
    for i, (offset, kind, ours, draft, age) in enumerate(items):
        day = (NOW + _dt.timedelta(days=offset)).strftime("%Y%m%d")
        tag = {"dev": f"rocm-jax-v0.9.1.dev{day}", "dev-build": f"rocm-jax-v0.9.1.dev{day}00{i % 10}",
               "rc": f"rocm-jax-v0.9.1rc{i + 1}", "release": f"rocm-jax-v0.9.{i}", "post": f"rocm-jax-v0.9.1.post{i}",
               "foreign": f"nightly-{day}"}[kind]
        releases.append(_release(tag, draft=draft, ours=ours, created=NOW - _dt.timedelta(days=age), rid=i + 1))
    candidates = [r for r in releases if draft_version(r) is not None]
    protect = frozenset({draft_version(candidates[protect_pick % len(candidates)])} if candidates else ())
    rule = Retention(keep=keep, older_than_days=older, protect=protect)
    decision = decide_drafts(releases, rule, NOW)
    stale = {r.id for r in decision.stale}
    assert stale | {k.release.id for k in decision.kept} == {r.id for r in candidates}
    newest = sorted(candidates, key=lambda r: (draft_version(r), r.id), reverse=True)
    datable = [r for r in newest if nightly_date(draft_version(r)) < (NOW.date() - _dt.timedelta(days=1))]
    public = [Version(r.tag.removeprefix("rocm-jax-v")) for r in releases if not r.draft and r.tag.startswith("rocm")]

    def dead(r) -> bool:
        """No rule lets it publish: a published nightly above it, its line's release/post, or its tag."""
        v = draft_version(r)
        return any(p >= v and (p.dev is not None or p.release == v.release or p == v) for p in public
                   if p.pre is None or p == v)
    live = [r for r in newest if not dead(r)]
    for r in releases:
        if r.id not in stale:
            continue
        v = draft_version(r)
        assert r.draft and r.ours and v.dev is not None  # only this tool's nightly drafts
        assert nightly_date(v) < NOW.date() - _dt.timedelta(days=1)  # never today's or yesterday's
        assert v not in protect
        assert dead(r) or live.index(r) >= keep
        assert older is None or NOW - r.created_at > _dt.timedelta(days=older)
    if older is None and not protect:
        # everything beyond the newest `keep` publishable ones that is not current goes
        assert stale == {r.id for r in datable if dead(r) or live.index(r) >= keep}
    published = [r for r in releases if not r.draft]
    assert decide(releases, rule, NOW).expired == decide(published, rule, NOW).expired


@pytest.mark.parametrize("hour", [0, 12, 23])
def test_yesterdays_draft_stays_for_a_rerun_and_the_day_before_goes(hour):
    """Beyond --keep 1 a draft dated yesterday stays whatever the hour (a re-run of yesterday's red
    nightly may be working on it); the one of the day before goes. Build-number versions alike."""
    from release.publish.retention import decide_drafts
    now = NOW.replace(hour=hour)
    day = _dt.timedelta(days=1)
    releases = [_release(f"rocm-jax-v0.9.1.dev{now - n * day:%Y%m%d}{suffix}", draft=True, ours=True,
                         created=now - n * day, rid=10 * n + i)
                for n in (0, 1, 2) for i, suffix in enumerate(("", ))]
    releases += [_release(f"rocm-jax-v0.9.2.dev{now - n * day:%Y%m%d}002", draft=True, ours=True,
                          created=now - n * day, rid=100 + n) for n in (1, 2)]
    decision = decide_drafts(releases, Retention(keep=1), now)
    assert sorted(r.tag for r in decision.stale) == [f"rocm-jax-v0.9.1.dev{now - 2 * day:%Y%m%d}",
                                                      f"rocm-jax-v0.9.2.dev{now - 2 * day:%Y%m%d}002"]
    protected = Retention(keep=1, protect=frozenset({Version(f"0.9.1.dev{now - 2 * day:%Y%m%d}")}))
    assert [r.tag for r in decide_drafts(releases, protected, now).stale] == [
        f"rocm-jax-v0.9.2.dev{now - 2 * day:%Y%m%d}002"]
    young = Retention(keep=1, older_than_days=2.5)  # both drafts of the day before are 2 days old
    assert decide_drafts(releases, young, now).stale == ()


@pytest.mark.parametrize("zone", ["<+14>-14", "<-12>+12", "<+0530>-5:30", "<-0330>+3:30"])
def test_which_drafts_are_current_is_the_utc_date_whatever_the_machines_zone(zone):
    """Today and yesterday are UTC dates (the nightly's version carries its UTC build date): a
    runner whose local zone is a day ahead or behind keeps and drops exactly what a UTC one does,
    at every hour of the run."""
    from release.publish.retention import decide_drafts
    from tests.support.zones import local_zone
    day = _dt.timedelta(days=1)
    for hour in range(24):
        now = NOW.replace(hour=hour)
        releases = [_release(f"rocm-jax-v0.9.1.dev{now - n * day:%Y%m%d}", draft=True, ours=True,
                             created=now - n * day, rid=n + 1) for n in (0, 1, 2)]
        with local_zone(zone):
            decision = decide_drafts(releases, Retention(keep=1), now)
        assert [(k.release.tag[-8:], k.reason) for k in decision.kept] == [
            (f"{now:%Y%m%d}", "current"), (f"{now - day:%Y%m%d}", "current")], hour
        assert [r.tag[-8:] for r in decision.stale] == [f"{now - 2 * day:%Y%m%d}"], hour
