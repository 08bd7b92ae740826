"""Whether tonight's nightly builds, and the one line that says why (``release.jobs.nightly``), at
unit level: a local store with published nightlies and a stand-in for the plugin's history (the
paths two plugin commits differ in). The real plugin history through the mirror is
``test_nightly_skip.py``'s; the nightly's whole run is ``test_jobs.py``'s."""

from __future__ import annotations

import dataclasses
import datetime as dt

import pytest
from packaging.version import Version

from release.build.plan import make_plan
from release.core import versions
from release.core.config import load_project
from release.core.output import Output
from release.jobs import nightly
from release.jobs.runner import JobRequest, Planned
from release.publish.stores import LocalStore
from tests.support.project import copy_config
from tests.test_jobs import _publish

DAY = dt.date(2026, 11, 22)
A, B, C = "a" * 40, "b" * 40, "c" * 40


@pytest.fixture
def line(tmp_path):
    return load_project(copy_config(tmp_path)), LocalStore(tmp_path / "store")


def at(project, **pins):
    return dataclasses.replace(project, deps=project.deps.with_pins({n: {"commit": s} for n, s in pins.items()}))


def plan(project, release_commit="r1", day=1):
    return make_plan(project, "nightly", date=DAY + dt.timedelta(days=day), pythons=("3.12",),
                     release_commit=release_commit)


def published(store, project, day=0, release_commit="r1"):
    """Last night's nightly of ``project`` as it is pinned now."""
    version = f"0.9.1.dev{(DAY + dt.timedelta(days=day)):%Y%m%d}"
    return _publish(store, project, version, release_commit=release_commit)


def paths(found):
    """The plugin history stand-in: every pair of commits differs in ``found`` (None: unreadable)."""
    asked = []

    def differ(old, new):
        asked.append((old, new))
        return None if found is None else set(found)
    differ.asked = asked
    return differ


def test_the_first_nightly_of_a_line_builds(line):
    project, store = line
    got = nightly.decide_nightly(store, plan(project))
    assert got == nightly.NightlyDecision(True, "building: first nightly", None)


def test_nothing_moved_builds_nothing_and_names_the_last_nightly(line):
    project, store = line
    last = published(store, project)
    got = nightly.decide_nightly(store, plan(project), paths(["jax_rocm_plugin/BUILD"]))
    assert got == nightly.NightlyDecision(
        False, f"no build: nothing changed since {last.tag} (same pins, same release commit)", last.tag)


def test_moved_pins_build_and_are_named_in_the_order_of_deps_yaml(line):
    project, store = line
    old = at(project, plugin=A, jax=A, xla=A)
    last = published(store, old)
    got = nightly.decide_nightly(store, plan(at(project, plugin=A, jax=B, xla=C)))
    assert got == nightly.NightlyDecision(
        True, f"building: pins moved since {last.tag}: jax aaaaaaa..bbbbbbb, xla aaaaaaa..ccccccc", last.tag)


@pytest.mark.parametrize("before, now, shown", [("r1" + "0" * 38, "r2" + "0" * 38, "r100000..r200000"),
                                                ("r1", "r2", "r1..r2"), (None, "r2", "?..r2"), ("r1", None, "r1..?")])
def test_only_this_repository_moving_builds_and_says_its_commits(line, before, now, shown):
    project, store = line
    last = published(store, project, release_commit=before)
    got = nightly.decide_nightly(store, plan(project, release_commit=now))
    assert got == nightly.NightlyDecision(
        True, f"building: only this repository changed since {last.tag} (release commit {shown})", last.tag)


def test_a_last_nightly_without_its_revisions_builds_and_says_so(line):
    project, store = line
    draft = store.create_draft("rocm-jax-v0.9.1.dev20261122", name="0.9.1.dev20261122", body="x", prerelease=True)
    last = store.publish(draft, prerelease=True, make_latest=False)      # without its revisions.json
    got = nightly.decide_nightly(store, plan(project), paths([]))
    assert got == nightly.NightlyDecision(
        True, f"building: {last.tag} has no readable revisions.json to compare with", last.tag)


def test_the_last_nightly_is_this_lines_own(line):
    """Another maintained line's later nightly is not what tonight's sources are compared with."""
    project, store = line
    mine = published(store, project, day=-1)
    newer_line = at(project, xla=C)
    _publish(store, newer_line, "0.10.0.dev20261122", release_commit="r1")
    _publish(store, newer_line, "0.9.0.dev20261122", release_commit="r1")
    got = nightly.decide_nightly(store, plan(project))
    assert (got.build, got.last) == (False, mine.tag)


def test_the_newest_of_the_lines_nightlies_is_compared_with(line):
    project, store = line
    published(store, at(project, xla=A), day=-2)
    last = published(store, project, day=-1)
    assert nightly.decide_nightly(store, plan(project)) == nightly.NightlyDecision(
        False, f"no build: nothing changed since {last.tag} (same pins, same release commit)", last.tag)


def test_the_listing_handed_in_is_the_one_decided_from(line):
    """The plan stage reads the store's listing once; the decision does not ask again."""
    project, store = line
    last = published(store, project)
    listing = store.published()

    class Quiet(LocalStore):
        def published(self):
            raise AssertionError("the store's listing was asked for again")
    got = nightly.decide_nightly(Quiet(store.directory), plan(project), published=listing)
    assert (got.build, got.last) == (False, last.tag)
    empty = type(listing).of([])
    assert nightly.decide_nightly(store, plan(project), published=empty).reason == "building: first nightly"


def test_a_mixed_scheme_on_one_line_is_refused(line):
    project, store = line
    published(store, project)
    info = dataclasses.replace(project.version_info, nightly_scheme="date-build")
    with pytest.raises(versions.VersionError, match="uses the 'date-build' scheme"):
        nightly.decide_nightly(store, plan(dataclasses.replace(project, version_info=info)))


# ---------------------------------------------------------------- the plugin moved only outside the build tree


@pytest.mark.parametrize("found, message", [
    (["README.md"], "(README.md)"),
    ([".github/ci.yml", "docs/a.md", "docker/Dockerfile"], "(.github/ci.yml, docker/Dockerfile, docs/a.md)"),
    (["e", "d", "c", "b", "a"], "(a, b, c and 2 more)"),
    (["d", "c", "b", "a"], "(a, b, c and 1 more)"),
    ([], "(no file)"),
])
def test_a_plugin_moved_only_outside_the_build_tree_builds_nothing(line, found, message):
    project, store = line
    last = published(store, at(project, plugin=A))
    history = paths(found)
    got = nightly.decide_nightly(store, plan(at(project, plugin=B)), history)
    assert history.asked == [(A, B)]
    assert got == nightly.NightlyDecision(
        False, f"no build: only plugin moved since {last.tag} (aaaaaaa..bbbbbbb), and only outside "
               f"jax_rocm_plugin/ {message}; the build reads nothing that changed", last.tag)


@pytest.mark.parametrize("found", [["jax_rocm_plugin/BUILD"], ["README.md", "jax_rocm_plugin/x/y.cc"], None])
def test_a_plugin_move_inside_the_build_tree_or_unreadable_builds(line, found):
    project, store = line
    last = published(store, at(project, plugin=A))
    got = nightly.decide_nightly(store, plan(at(project, plugin=B)), paths(found))
    assert got == nightly.NightlyDecision(
        True, f"building: pins moved since {last.tag}: plugin aaaaaaa..bbbbbbb", last.tag)


@pytest.mark.parametrize("now", [{"plugin": B, "xla": B}, {"jax": B}])
def test_another_pin_moving_builds_whatever_the_plugin_did(line, now):
    project, store = line
    published(store, at(project, plugin=A, xla=A, jax=A))
    history = paths(["README.md"])
    got = nightly.decide_nightly(store, plan(at(project, **{"plugin": A, "xla": A, "jax": A, **now})), history)
    assert got.build and got.reason.startswith("building: pins moved since")


def test_a_pin_added_or_dropped_builds(line):
    project, store = line
    published(store, at(project, plugin=A))
    before = plan(at(project, plugin=B))
    dropped = dataclasses.replace(before.revisions, revisions=tuple(
        (name, rev) for name, rev in before.revisions.revisions if name != "xla"))
    history = paths(["README.md"])
    got = nightly.decide_nightly(store, dataclasses.replace(before, revisions=dropped), history)
    assert got.build and history.asked == []


def test_without_a_plugin_history_a_plugin_move_builds(line):
    project, store = line
    published(store, at(project, plugin=A))
    assert nightly.decide_nightly(store, plan(at(project, plugin=B))).build


# ---------------------------------------------------------------- the plan steps


def request(project, **kw):
    return JobRequest(project, Output(), project.root / "dist", **kw)


@pytest.mark.parametrize("date, version", [(None, "0.9.1.dev20261122"), (dt.date(2026, 11, 21), "0.9.1.dev20261121")])
def test_tonights_plan_is_of_the_runs_date_unless_one_is_given(line, date, version):
    project, _ = line
    now = dt.datetime(2026, 11, 22, 23, 0, tzinfo=dt.timezone.utc)
    got = nightly.nightly_version(request(project, date=date, now=now, pythons=("3.12",)), None, Planned())
    assert (got.version, got.kind, got.plan.version) == (version, "nightly", version)
    assert got.revisions == got.plan.revisions and got.plan.pythons == ("3.12",)


def test_tonights_plan_takes_the_build_number_and_force(line):
    project, _ = line
    info = dataclasses.replace(project.version_info, nightly_scheme="date-build")
    scheme = dataclasses.replace(project, version_info=info)
    now = dt.datetime(2026, 11, 22, tzinfo=dt.timezone.utc)
    got = nightly.nightly_version(request(scheme, now=now, build_number=7, pythons=("3.12",)), None, Planned())
    assert got.version == "0.9.1.dev20261122007"
    far = dt.date(2026, 11, 1)
    with pytest.raises(Exception, match="--force"):
        nightly.nightly_version(request(project, now=now, date=far, pythons=("3.12",)), None, Planned())
    forced = nightly.nightly_version(request(project, now=now, date=far, force=True, pythons=("3.12",)), None,
                                     Planned())
    assert forced.version == "0.9.1.dev20261101"


def test_a_released_lines_nightly_sorts_above_what_it_published_wherever(line):
    project, store = line
    now = dt.datetime(2026, 11, 22, tzinfo=dt.timezone.utc)
    alone = nightly.nightly_version(request(project, now=now, pythons=("3.12",)), None, Planned())
    public = nightly.nightly_version(request(project, now=now, pythons=("3.12",)), None,
                                     Planned(public=("0.9.1",)))
    _publish(store, project, "0.9.1")
    stored = nightly.nightly_version(request(project, now=now, pythons=("3.12",)), None,
                                     Planned(listing=store.published()))
    assert alone.version == "0.9.1.dev20261122"
    assert Version(public.version) > Version("0.9.1")
    assert stored.version == public.version


def test_a_nightly_is_planned_on_the_runs_clock(line):
    project, _ = line
    with pytest.raises(ValueError, match="^a nightly is planned on the run's clock$"):
        nightly.nightly_version(request(project), None, Planned())


def test_the_decision_is_the_plan_steps_and_a_night_without_a_build_is_done(line):
    project, store = line
    last = published(store, project)
    quiet = nightly.changed(request(project), None, Planned(store=store, listing=store.published(),
                                                            plan=plan(project)))
    assert (quiet.changed, quiet.last, quiet.done) == (False, last.tag, quiet.reason)
    assert quiet.reason.startswith("no build: nothing changed")
    moved = nightly.changed(request(project), None, Planned(store=store, listing=store.published(),
                                                            plan=plan(project, release_commit="r2")))
    assert (moved.changed, moved.last, moved.done) == (True, last.tag, None)
    assert moved.reason.startswith("building: only this repository changed")


def test_the_plan_step_decides_from_the_listing_the_plan_read(line):
    project, store = line
    published(store, project)

    class Quiet(LocalStore):
        def published(self):
            raise AssertionError("the store's listing was asked for again")
    got = nightly.changed(request(project), None, Planned(store=Quiet(store.directory), listing=store.published(),
                                                          plan=plan(project)))
    assert got.changed is False


def test_tonights_plan_is_made_at_the_commit_of_the_checkout_holding_the_project(tmp_path):
    import subprocess
    run = ["git", "-C", str(tmp_path), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*run, "init", "-q"], check=True)
    (tmp_path / "line").mkdir()
    project = load_project(copy_config(tmp_path / "line"))         # a project below the checkout's top
    subprocess.run([*run, "add", "-A"], check=True)
    subprocess.run([*run, "commit", "-q", "-m", "line"], check=True)
    head = subprocess.run([*run, "rev-parse", "HEAD"], check=True, capture_output=True, text=True).stdout.strip()
    now = dt.datetime(2026, 11, 22, tzinfo=dt.timezone.utc)
    got = nightly.nightly_version(request(project, now=now, pythons=("3.12",)), None, Planned())
    assert got.plan.revisions.release_commit == head == got.revisions.release_commit


@pytest.mark.parametrize("planned", [Planned(), Planned(store=object())])
def test_the_decision_needs_the_plan_and_the_store(line, planned):
    project, store = line
    if planned.store is None:
        planned = Planned(plan=plan(project))
    with pytest.raises(ValueError, match="^a nightly decides from its plan and the store$"):
        nightly.changed(request(project), None, planned)
