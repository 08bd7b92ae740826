"""The post job's plan stage (``release.jobs.post``), at unit level against a local store: which
published release a ``cut --post N`` re-spins, the ``X.Y.Z.postN`` it becomes, what that post is
made of, and the one-line refusals when there is nothing (readable) to re-spin."""

from __future__ import annotations

import dataclasses
import types

import pytest

from release.core.config import load_project
from release.core.errors import UserError
from release.jobs.post import post_release, post_source
from release.jobs.runner import Planned
from release.publish.stores import LocalStore
from tests.support.project import copy_config
from tests.test_jobs import _publish


@pytest.fixture
def line(tmp_path):
    project = load_project(copy_config(tmp_path))
    return project, LocalStore(tmp_path / "store")


@pytest.mark.parametrize("published, base, number, tag, version", [
    (["0.9.0", "0.9.1"], "0.9.0", 3, "rocm-jax-v0.9.0", "0.9.0.post3"),    # --from: that one, not the newest
    (["0.9.1", "0.9.0"], None, 1, "rocm-jax-v0.9.1", "0.9.1.post1"),       # none: the newest, whatever the order
    (["0.9.1", "0.9.1.post1"], "0.9.1", 2, "rocm-jax-v0.9.1", "0.9.1.post2"),
])
def test_a_post_re_spins_the_release_asked_for_as_its_post_n(line, published, base, number, tag, version):
    project, store = line
    for v in published:
        _publish(store, project, v, release_commit=f"c-{v}")
    source, got, revisions = post_source(store, number, base)
    assert (source.tag, got) == (tag, version)
    assert revisions.version == version                      # re-versioned ...
    assert revisions.release_commit == f"c-{tag.removeprefix('rocm-jax-v')}"  # ... from the source's own sources


@pytest.mark.parametrize("published, base, message", [
    ([], None, "no published release to re-spin; pass --from X.Y.Z"),
    (["0.9.1rc1"], None, "no published release to re-spin; pass --from X.Y.Z"),                   # an rc is no release
    (["0.9.1"], "0.9.2", "rocm-jax-v0.9.2 is not a published release"),
    (["0.9.1", "0.10.0"], "line 0.9.2", "no published release of line 0.9.2 to re-spin; pass --from X.Y.Z"),
    (["0.9.1", "0.9.1rc1"], "0.9.1rc1", "rocm-jax-v0.9.1rc1 is not a published release"),  # published, not a release
])
def test_nothing_to_re_spin_is_one_line_naming_the_store(line, published, base, message):
    project, store = line
    for v in published:
        _publish(store, project, v)
    line_, base = (base.split()[1], None) if base and base.startswith("line ") else (None, base)
    with pytest.raises(UserError) as err:
        post_source(store, 1, base, line_)
    assert str(err.value) == f"{store.where}: {message}"
    assert "\n" not in str(err.value)


def test_a_release_without_readable_revisions_is_refused_naming_it(line):
    project, store = line
    draft = store.create_draft("rocm-jax-v0.9.1", name="0.9.1", body="x", prerelease=False)
    store.publish(draft, prerelease=False, make_latest=False)      # no revisions.json
    with pytest.raises(UserError, match=r"^rocm-jax-v0\.9\.1 has no readable revisions\.json to re-spin$"):
        post_source(store, 1, None)


def test_the_listing_read_once_is_the_one_asked(line):
    """A plan passes the store's listing it already read: no second read decides the source."""
    project, store = line
    _publish(store, project, "0.9.0")
    listing = store.published()
    _publish(store, project, "0.9.1")              # after the listing was read
    assert post_source(store, 1, None, published=listing)[0].tag == "rocm-jax-v0.9.0"


def _request(project, **kw):
    return types.SimpleNamespace(**({"project": project, "number": 1, "base": None, "tag": None} | kw))


@pytest.mark.parametrize("kw, tag, version", [
    ({"number": 2}, "rocm-jax-v0.9.1", "0.9.1.post2"),                               # the line's newest
    ({"tag": "rocm-jax-v0.9.0"}, "rocm-jax-v0.9.0", "0.9.0.post1"),                  # --tag's release
    ({"tag": "rocm-jax-v0.9.0", "base": "0.9.1"}, "rocm-jax-v0.9.1", "0.9.1.post1"),  # --from wins over --tag
])
def test_the_plan_step_sets_the_source_the_post_and_what_it_is_made_of(line, kw, tag, version):
    project, store = line
    for v in ("0.9.0", "0.9.1", "0.10.0"):
        _publish(store, project, v)
    project = dataclasses.replace(project, version_info=dataclasses.replace(project.version_info, version="0.9.1"))
    planned = post_release(_request(project, **kw), None, Planned(store=store, listing=store.published()))
    assert (planned.source.tag, planned.kind, planned.version, planned.revisions.version) == (
        tag, "post", version, version)


@pytest.mark.parametrize("store, number", [(False, 1), (True, None)])
def test_a_post_without_a_store_or_a_number_is_a_programming_error(line, store, number):
    project, local = line
    with pytest.raises(ValueError, match="^a post re-spins from the store, as post N$"):
        post_release(_request(project, number=number), None, Planned(store=local if store else None))


def test_the_plan_step_decides_on_the_listing_the_plan_read(line):
    """The plan's one read of the store decides the source: a release published after it is not
    the newest of the line (what publishable checked is what is re-spun)."""
    project, store = line
    _publish(store, project, "0.9.0")
    listing = store.published()
    _publish(store, project, "0.9.1")
    project = dataclasses.replace(project, version_info=dataclasses.replace(project.version_info, version="0.9.1"))
    with pytest.raises(UserError, match="no published release of line 0.9.1 to re-spin"):
        post_release(_request(project), None, Planned(store=store, listing=listing))


def test_a_tag_of_no_release_is_refused_naming_the_tags_a_post_takes(line):
    project, store = line
    for v in ("0.9.1", "0.9.1rc1"):
        _publish(store, project, v)
    with pytest.raises(UserError, match=r"^--tag rocm-jax-v0\.9\.1rc1: expected a release tag rocm-jax-vX\.Y\.Z$"):
        post_release(_request(project, tag="rocm-jax-v0.9.1rc1"), None, Planned(store=store, listing=store.published()))
