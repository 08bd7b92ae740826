"""The cut job's own rules, called directly: a release tag is made once and never moves."""

from __future__ import annotations

import subprocess

import pytest

from release.core.errors import UserError
from release.jobs import cut


def git(cwd, *args) -> str:
    return subprocess.run(["git", "-C", str(cwd), "-c", "user.name=t", "-c", "user.email=t@t", *args],
                          check=True, capture_output=True, text=True).stdout.strip()


def test_a_release_tag_is_made_once_and_never_moves(tmp_path):
    git(tmp_path, "init", "-q")
    git(tmp_path, "commit", "-q", "--allow-empty", "-m", "one")
    first = git(tmp_path, "rev-parse", "HEAD")
    git(tmp_path, "commit", "-q", "--allow-empty", "-m", "two")
    second = git(tmp_path, "rev-parse", "HEAD")
    tag = "rocm-jax-v0.9.1rc1"
    assert cut.tag_release(tmp_path, tag, first, push=False) == {"tag": tag, "commit": first, "pushed": False}
    assert cut.tag_release(tmp_path, tag, first, push=False)["commit"] == first  # a re-run
    with pytest.raises(UserError, match="a release tag never moves"):
        cut.tag_release(tmp_path, tag, second, push=False)
    assert git(tmp_path, "rev-parse", f"{tag}^{{commit}}") == first


@pytest.mark.parametrize("branch, flag, cut_from", [
    ("main", None, True), ("rel", "rel", True), ("rel", None, False), ("main", "rel", False)])
def test_a_cut_is_planned_from_the_head_of_the_release_branch_the_flag_names(tmp_path, branch, flag,
                                                                             cut_from):
    """`--release-branch B` reaches the plan's checkout step: a cut is made from B's clean head
    (default main), and from any other branch it is refused naming the one it expects."""
    import types

    from release.commands._job_flags import job_options
    from release.jobs import catalog
    from release.jobs.runner import JobRequest, Planned, run_plan
    git(tmp_path, "init", "-q", "-b", branch)
    git(tmp_path, "commit", "-q", "--allow-empty", "-m", "one")
    args = types.SimpleNamespace(_job_flags=("release_branch",), release_branch=flag or "main")
    checkout = [d for d in catalog.JOBS["cut"].plan if d.name == "checkout"]
    request = JobRequest(types.SimpleNamespace(root=tmp_path), None, tmp_path / "dist", kind="rc")
    if cut_from:
        planned = run_plan(checkout, request, job_options(args, tmp_path))
        assert planned == Planned(commit=git(tmp_path, "rev-parse", "HEAD"))
    else:
        with pytest.raises(UserError, match=f"on branch {branch}; a release is cut from {flag or 'main'}"):
            run_plan(checkout, request, job_options(args, tmp_path))
