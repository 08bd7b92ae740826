"""A nightly whose only moved pin is the plugin, moved only outside ``jax_rocm_plugin/`` (CI,
docker, docs), builds nothing and says why; a change inside the build tree, another pin, or a
plugin history that cannot be read builds. The paths come from a real plugin repository through
the tool's own mirror."""

from __future__ import annotations

import dataclasses
import datetime as dt

import pytest

from release.build.plan import make_plan
from release.core.config import load_project
from release.jobs import nightly
from release.publish.stores import LocalStore
from tests.support.gitrepos import RepoBuilder
from tests.test_jobs import DAY, _publish


@pytest.fixture
def plugin(tmp_path):
    repo = RepoBuilder(tmp_path / "rocm-jax.git")
    c = {"A": repo.commit("master", "plugin", {"jax_rocm_plugin/BUILD": "a\n", "README.md": "r\n"})}
    c["CI"] = repo.commit("master", "CI and docs", {".github/workflows/ci.yml": "on: push\n",
                                                    "docs/a.md": "d\n", "docker/Dockerfile": "FROM x\n"})
    c["CODE"] = repo.commit("master", "plugin code", {"jax_rocm_plugin/BUILD": "b\n"})
    c["DOCS"] = repo.commit("master", "docs again", {"docs/a.md": "e\n"})
    return repo, c


@pytest.fixture
def line(tmp_path, project_dir, plugin, monkeypatch):
    repo, c = plugin
    deps = project_dir / "deps.yaml"
    deps.write_text(deps.read_text().replace("https://github.com/ROCm/rocm-jax", repo.path.as_uri(), 1))
    monkeypatch.setenv("JAX_ROCM_RELEASE_CACHE", str(tmp_path / "cache"))
    project = load_project(project_dir)
    return project, LocalStore(tmp_path / "store"), c


def at(project, **pins):
    return dataclasses.replace(project, deps=project.deps.with_pins({n: {"commit": s} for n, s in pins.items()}))


def decide(project, store, day=1):
    plan = make_plan(project, "nightly", date=DAY + dt.timedelta(days=day), pythons=("3.12",),
                     release_commit="r2")
    return nightly.decide_nightly(store, plan, nightly.mirror_paths(project))


@pytest.mark.parametrize("old, new, builds", [
    ("A", "CI", False),        # CI, docker, docs only
    ("CI", "DOCS", True),      # across a commit that changed the build tree
    ("CODE", "DOCS", False),
    ("A", "CODE", True),
], ids=["ci-docs-only", "across-code", "docs-after-code", "code"])
def test_only_the_build_tree_makes_a_plugin_move_build(line, old, new, builds):
    project, store, c = line
    base = at(project, plugin=c[old])
    _publish(store, base, make_plan(base, "nightly", date=DAY, pythons=("3.12",)).version, release_commit="r1")
    decision = decide(at(project, plugin=c[new]), store)
    assert decision.build is builds, decision.reason
    if not builds:
        assert decision.reason.startswith("no build: only plugin moved") and "jax_rocm_plugin/" in decision.reason
        assert c[old][:7] in decision.reason and "docs/a.md" in decision.reason


def test_another_pin_moving_builds_even_when_the_plugin_moved_outside(line):
    project, store, c = line
    base = at(project, plugin=c["A"])
    version = make_plan(base, "nightly", date=DAY, pythons=("3.12",)).version
    _publish(store, base, version, release_commit="r1")
    moved = at(project, plugin=c["CI"], xla="e" * 40)
    assert decide(moved, store).build


def test_an_unreadable_plugin_commit_builds(line):
    project, store, c = line
    base = at(project, plugin="0" * 40)
    _publish(store, base, make_plan(base, "nightly", date=DAY, pythons=("3.12",)).version, release_commit="r1")
    decision = decide(at(project, plugin=c["CI"]), store)
    assert decision.build and "pins moved" in decision.reason


def test_the_nightly_and_bisect_judge_changes_the_build_by_the_same_tree():
    """A nightly that skips a plugin move bisect would probe (or the reverse) would skip a culprit."""
    from release.build.bazel import WORKSPACE_SUBDIR
    from release.jobs import bisect
    assert (nightly.SOURCE, nightly.BUILD_TREE) == (bisect.SOURCE, "jax_rocm_plugin/") == ("plugin", "jax_rocm_plugin/")
    assert f"{nightly.SOURCE}/{nightly.BUILD_TREE}" == WORKSPACE_SUBDIR + "/"  # where Bazel runs is what both read


def test_the_plan_step_reads_the_plugins_history_in_the_projects_own_mirror(line, monkeypatch):
    """``changed`` (the nightly's plan step) asks the real history: a CI-only plugin move builds
    nothing; without $JAX_ROCM_RELEASE_CACHE the mirror is the project's ``.cache/git``."""
    from release.core.output import Output
    from release.jobs.runner import JobRequest, Planned
    project, store, c = line
    monkeypatch.delenv("JAX_ROCM_RELEASE_CACHE")
    base = at(project, plugin=c["A"])
    _publish(store, base, make_plan(base, "nightly", date=DAY, pythons=("3.12",)).version, release_commit="r2")
    moved = at(project, plugin=c["CI"])
    plan = make_plan(moved, "nightly", date=DAY + dt.timedelta(days=1), pythons=("3.12",), release_commit="r2")
    got = nightly.changed(JobRequest(moved, Output(), project.root / "dist"), None,
                          Planned(store=store, listing=store.published(), plan=plan))
    assert got.changed is False and got.done == got.reason and got.reason.startswith("no build: only plugin moved")
    assert (project.root / ".cache" / "git").is_dir()
