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
