"""``release gc``: old nightlies and their tags go; releases, rcs, drafts and the newest N stay."""

from __future__ import annotations

import datetime as _dt
import json

import pytest

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
