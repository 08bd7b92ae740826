"""Tags land on the commit that was built (issue 26, point 3).

A draft has no git tag; publishing it makes the tag at the release's ``target_commitish``, and
GitHub's default target is the default branch's head at publishing time, which has moved on
by the time a nightly is validated. Every draft this tool makes is aimed at the release
commit of its revision map, on both stores, and a draft left by an older run is re-aimed.
The GitHub stand-in tags as GitHub does (tests/support/fake_github.py).
"""

from __future__ import annotations

import hashlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from release.build.plan import BuildPlan, MajorWheels
from release.core.naming import release_tag
from release.core.revisions import RevisionMap
from release.jobs import shared
from release.publish.drafts import publish_draft, publish_partial, read_dist
from release.publish.notes import MARKER
from release.publish.stores import LocalStore
from tests.support.publish_dist import build_dist, gh_store, release_dist

NIGHTLY = "0.9.1.dev20261120"


def sha(text: str) -> str:
    return hashlib.sha1(text.encode()).hexdigest()


def test_a_published_nightly_is_tagged_at_its_release_commit_not_the_branch_head(fake_github, tmp_path):
    built = sha("built")
    fake_github.branches["main"] = sha("main moved on since the build")
    release_dist(gh_store(fake_github), build_dist(tmp_path, NIGHTLY, release_commit=built))
    assert fake_github.tags()[release_tag(NIGHTLY)] == built
    [rel] = fake_github.releases()
    assert rel["target_commitish"] == built


@settings(max_examples=5, derandomize=True, deadline=None)
@given(st.lists(st.sampled_from(["a", "b", "c"]), min_size=1, max_size=3))
def test_whichever_run_made_the_draft_the_tag_is_where_the_last_build_was(fake_github, tmp_path_factory,
                                                                          commits):
    """Re-runs from other commits re-aim the one draft; the published tag is the last build's."""
    store = gh_store(fake_github)
    version = f"0.9.1.dev2026112{len(fake_github.releases())}"
    out = tmp_path_factory.mktemp("dist")
    for name in commits:
        publish_draft(store, read_dist(build_dist(out, version, release_commit=sha(name))))
    [draft] = [r for r in fake_github.releases() if r["tag_name"] == release_tag(version)]
    assert draft["draft"] is True and draft["target_commitish"] == sha(commits[-1])
    release_dist(store, build_dist(out, version, release_commit=sha(commits[-1])))
    assert fake_github.tags()[release_tag(version)] == sha(commits[-1])


def test_the_plan_stage_aims_the_draft_at_the_commit_it_plans(fake_github):
    store = gh_store(fake_github)
    plan = BuildPlan(kind="nightly", version=NIGHTLY, tag=release_tag(NIGHTLY), pythons=(),
                     revisions=RevisionMap(NIGHTLY, (), sha("planned")),
                     majors=(MajorWheels("7.2.0", "", ()),))
    draft = shared.open_draft(store, plan, lambda _: None)
    assert draft.target == sha("planned")
    assert fake_github.releases()[0]["target_commitish"] == sha("planned")


def test_an_existing_tag_is_not_moved_by_publishing(fake_github, tmp_path):
    """`release cut` pushes the release tag itself; the release's target is then moot."""
    version = "0.9.1rc1"
    fake_github._tags.setdefault(fake_github.repo, {})[release_tag(version)] = sha("the tagged commit")
    release_dist(gh_store(fake_github), build_dist(tmp_path, version, release_commit=sha("other")))
    assert fake_github.tags()[release_tag(version)] == sha("the tagged commit")


def test_the_stand_in_refuses_a_target_github_would_refuse(fake_github):
    from release.sources.github import GitHubError
    store = gh_store(fake_github)
    with pytest.raises(GitHubError) as err:
        store.create_draft("rocm-jax-v0.9.1rc9", name="n", body="b", prerelease=True, target="no-such-branch")
    assert err.value.status == 422
    assert store.create_draft("rocm-jax-v0.9.1rc9", name="n", body="b", prerelease=True).target == "main"


def test_the_local_store_keeps_the_target_too(tmp_path):
    store = LocalStore(tmp_path / "store")
    release_dist(store, build_dist(tmp_path, NIGHTLY, release_commit=sha("built")))
    [rel] = store.list_releases()
    assert rel.target == sha("built") and not rel.draft


def test_a_build_cell_re_aims_a_draft_an_older_run_made_without_a_target(fake_github, tmp_path):
    store = gh_store(fake_github)
    store.create_draft(release_tag(NIGHTLY), name="n", body=MARKER,
                       prerelease=True)
    assert fake_github.releases()[0]["target_commitish"] == "main"
    publish_partial(store, read_dist(build_dist(tmp_path, NIGHTLY, release_commit=sha("cell")), partial=True))
    [draft] = fake_github.releases()
    assert draft["target_commitish"] == sha("cell")


def test_a_read_only_token_sees_no_draft_and_writes_nothing(fake_github, tmp_path):
    """As GitHub answers a job's GITHUB_TOKEN with contents: read: drafts are listed only to
    tokens with push access, and every write is 403."""
    from release.publish.stores import GitHubStore
    from release.sources.github import GitHubClient, GitHubError
    store = gh_store(fake_github)
    release_dist(store, build_dist(tmp_path, NIGHTLY))
    draft = store.create_draft("rocm-jax-v0.9.1rc1", name="n", body=MARKER, prerelease=True)
    reader = GitHubStore(GitHubClient(fake_github.read_token, fake_github.api_url, sleep=lambda _: None),
                         *fake_github.repo.split("/"))
    assert [r.tag for r in reader.list_releases()] == [release_tag(NIGHTLY)]
    with pytest.raises(GitHubError) as err:
        reader.create_draft("rocm-jax-v0.9.1rc2", name="n", body=MARKER, prerelease=True)
    assert err.value.status == 403
    with pytest.raises(GitHubError):
        reader.update_release(draft, body="x")
