"""Job steps on their own: the fetch step of a nightly built with Bazel (not --artifacts)."""

from __future__ import annotations

import datetime as dt

from release import jobs
from release.config import load_project
from release.manifest import Manifest
from release.output import Output
from release.pipeline import run_steps
from release.plan import make_plan


def test_fetch_step_checks_out_the_pins_and_is_skipped_when_they_have_not_moved(
        bump_project, git_remotes, tmp_path):
    c = git_remotes.c
    root = bump_project()
    project = load_project(root)
    plan = make_plan(project, "nightly", date=dt.date(2026, 11, 22), pythons=("3.11",))
    settings = jobs.JobSettings(dist_root=tmp_path / "dist",
                                inputs=jobs.BuildInputs(workspace=tmp_path / "ws",
                                                        cache=tmp_path / "cache"))
    steps = jobs.build_steps(project, plan, settings, store=None, say=lambda t: None,
                             progress=None, console=None)
    assert [s.name for s in steps][:2] == ["fetch", "build"]
    manifest = Manifest.load(tmp_path / "dist" / plan.version)
    [first] = run_steps(steps[:1], manifest, Output())
    assert first.ran and dict(first.outputs) == {"plugin": c["P0"], "jax": c["J1"], "xla": c["X1"]}
    [again] = run_steps(steps[:1], Manifest.load(tmp_path / "dist" / plan.version), Output())
    assert not again.ran

    # A moved pin is a new input: the step runs again and checks out the new commit.
    moved = load_project(bump_project(commits={"jax": c["J4"]}))
    steps = jobs.build_steps(moved, plan, settings, store=None, say=lambda t: None,
                             progress=None, console=None)
    [third] = run_steps(steps[:1], Manifest.load(tmp_path / "dist" / plan.version), Output())
    assert third.ran and third.outputs["jax"] == c["J4"]
