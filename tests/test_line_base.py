"""A pushed tag's next-version PR goes to its own line (docs/lines.md): ``release line base``,
which release.yml's finish job hands to ``release.sh finish`` as RELEASE_BRANCH. Over a real
repository: main on 0.10, ``release/0.9`` branched from 0.9.1, a bare origin, a full clone."""

from __future__ import annotations

import json

import pytest

from release.jobs.lines import next_version_base
from release.sources.repo import ReleaseRepo
from tests.support.gitrepos import git


def commit(root, version: str) -> str:
    (root / "version_info.json").write_text(json.dumps({"version": version}) + "\n")
    git("add", "-A", cwd=root)
    git("commit", "--quiet", "-m", f"version {version}", cwd=root)
    return git("rev-parse", "HEAD", cwd=root).strip()


@pytest.fixture
def lines(tmp_path):
    """origin: main 0.9.1 -> 0.10.0 -> 0.10.1; release/0.9 from 0.9.1 on to 0.9.1.post2.
    Tags: 0.9.1 (both branches hold it), 0.9.1.post1 (only release/0.9), 0.10.0 (main),
    0.9.2 made on main (release/0.9 does not hold it), 0.11.0rc1 (main; no release/0.11)."""
    root, origin = tmp_path / "work", tmp_path / "origin.git"
    git("init", "--quiet", "--bare", "-b", "main", origin)
    root.mkdir()
    git("init", "--quiet", "-b", "main", cwd=root)
    git("config", "user.name", "Release Bot", cwd=root)
    git("config", "user.email", "bot@example.com", cwd=root)
    tags = {"0.9.1": commit(root, "0.9.1")}
    git("checkout", "--quiet", "-b", "release/0.9", cwd=root)
    tags["0.9.1.post1"] = commit(root, "0.9.1.post1")
    commit(root, "0.9.1.post2")
    git("checkout", "--quiet", "main", cwd=root)
    tags["0.10.0"] = commit(root, "0.10.0")
    tags["0.9.2"] = commit(root, "0.9.2")
    tags["0.11.0rc1"] = commit(root, "0.11.0rc1")
    for version, sha in tags.items():
        git("tag", f"rocm-jax-v{version}", sha, cwd=root)
    git("remote", "add", "origin", origin, cwd=root)
    git("push", "--quiet", "origin", "main", "release/0.9", "--tags", cwd=root)
    clone = tmp_path / "clone"
    git("clone", "--quiet", origin, clone)
    return clone


@pytest.mark.parametrize("version, base", [
    ("0.9.1.post1", "release/0.9"),   # the maintenance line's own post
    ("0.9.1", "release/0.9"),         # its release, held by release/0.9 too
    ("0.10.0", "main"),               # the newest line's release: no release/0.10 on origin
    ("0.9.2", "main"),                # release/0.9 exists but does not hold the tag's commit
    ("0.11.0rc1", "main"),
])
def test_a_tags_next_version_pr_goes_to_the_line_branch_that_holds_it(lines, version, base):
    assert next_version_base(ReleaseRepo(lines), f"rocm-jax-v{version}", "main") == base


def test_without_its_line_branch_the_base_is_the_default_branch_given(lines):
    assert next_version_base(ReleaseRepo(lines), "rocm-jax-v0.10.0", "trunk") == "trunk"
    assert next_version_base(ReleaseRepo(lines), "rocm-jax-v0.9.1.post1", "trunk") == "release/0.9"


def test_the_line_branch_is_read_on_origin_not_in_the_clone(lines, tmp_path):
    """A line branch pushed after the clone was made (its tip not fetched) still counts; one
    deleted on origin no longer does, whatever the clone remembers."""
    repo = ReleaseRepo(lines)
    origin = tmp_path / "origin.git"
    git("branch", "release/0.10", "rocm-jax-v0.10.0", cwd=origin)
    assert next_version_base(repo, "rocm-jax-v0.10.0", "main") == "release/0.10"
    git("branch", "-D", "release/0.9", cwd=origin)
    assert next_version_base(repo, "rocm-jax-v0.9.1.post1", "main") == "main"


def test_the_command_writes_the_base_for_the_finish_job(lines, run_cli, monkeypatch, tmp_path):
    out = tmp_path / "github_output"
    out.write_text("")
    monkeypatch.setenv("GITHUB_OUTPUT", str(out))
    code, stdout, err = run_cli("line", "base", "--tag", "rocm-jax-v0.9.1.post1", "--default", "", cwd=lines)
    assert code == 0, err
    assert stdout.strip() == "release/0.9" and "base=release/0.9" in out.read_text().splitlines()


@pytest.mark.parametrize("argv, said", [
    (["--tag", "rocm-jax-v0.9.1.dev20261120"], "expected a release tag"),   # a nightly moves no line
    (["--tag", "rocm-jax-v0.9.3"], "no such tag"),
    ([], "needs --tag"),
    (["--tag", "rocm-jax-v0.9.1", "--default", "a..b"], "expected a branch name"),
])
def test_a_bad_request_is_one_line_and_exit_2(lines, run_cli, argv, said):
    code, _, err = run_cli("line", "base", *argv, cwd=lines)
    assert code == 2 and said in err and len(err.strip().splitlines()) == 1
