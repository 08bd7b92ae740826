"""A synthetic season, end to end: every day the scheduled bump (merged), the invariants after it,
and when the jax line moves on, the release and a post release of the old line (the nightly
itself is the jobs tests' business: tests/test_jobs_e2e.py).

Upstreams come from tests/support/history.py (three branch switches each, a move back, the
jax file changing shape, a fork's pin refused); this repository is a real checkout; releases go
to the GitHub stand-in. After every day: deps.yaml pins what the plugin pins, on a branch that
holds the pin; the recorded line is jax's ``_version`` at the jax pin and version_info.json is
on it; and everything published sorts, in PEP 440 order, as it was published within its line,
with nothing published ever lost. ``benchmarks/season.py`` replays the real histories.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from packaging.version import Version

from release.build import bazel
from release.core import config
from tests.support.elf import compile_artifacts
from tests.support.gitrepos import git, release_repo
from tests.support.history import build_history
from tests.support.project import write_version_info

REPO = Path(__file__).resolve().parents[1]
PY = "3.11"


def release(*argv, date: str | None = None, check: bool = True) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    if date:
        env["RELEASE_NOW"] = f"{date}T03:00:00Z"
    proc = subprocess.run([sys.executable, "-m", "release", *map(str, argv)], capture_output=True, text=True,
                          env=env)
    if check:
        assert proc.returncode == 0, proc.stderr[-3000:]
    return proc


def line_at(history, sha: str) -> str | None:
    text = subprocess.run(["git", "show", f"{sha}:jax/version.py"], cwd=history.jax.path, capture_output=True,
                          text=True).stdout
    return text.split('"')[1] if text else None


def holds(repo: Path, branch: str, sha: str) -> bool:
    return subprocess.run(["git", "merge-base", "--is-ancestor", sha, f"refs/heads/{branch}"], cwd=repo,
                          capture_output=True).returncode == 0


def test_a_season_of_bumps_a_release_and_a_post_needs_no_intervention(tmp_path, github_env, monkeypatch, run_cli):
    history = build_history(tmp_path / "upstream")
    artifacts = compile_artifacts(tmp_path / "artifacts", bazel.configured_runpath(REPO))
    root = release_repo(tmp_path / "release-repo")
    history.apply(0)
    first_line = line_at(history, history.steps[0].jax)
    write_version_info(root, first_line)
    (root / "deps.yaml").write_text(history.deps_yaml().replace(
        "    roll: {via: plugin, file: jax_rocm_plugin/third_party/jax/workspace.bzl}",
        f'    line: "{first_line}"\n    roll: {{via: plugin, file: jax_rocm_plugin/third_party/jax/workspace.bzl}}'))
    (root / ".gitignore").write_text("/dist/\n/.cache/\n/workspace/\n")
    git("add", "-A", cwd=root)
    git("commit", "--quiet", "-m", "Initial pins", cwd=root)
    monkeypatch.chdir(root)

    published: list[str] = []  # tags, in the order they were published

    def cut(*flags: str) -> None:
        got = json.loads(release("cut", *flags, "--artifacts", artifacts, "--python", PY, "--store", "github",
                                 "--json").stdout)
        published.append(got["tag"])

    interventions = []
    for i in range(1, len(history.steps)):
        step = history.steps[i]
        line_before = config.load_deps(root / "deps.yaml")["jax"].line
        if line_at(history, step.jax) != line_before and line_before == "0.7.1":
            # The line moves on tomorrow: release today's line first, and re-spin it once.
            cut()
            post = json.loads(release("cut", "--post", "1", "--store", "github", "--json").stdout)
            published.append(f"rocm-jax-v{post['version']}")
        history.apply(i)
        code, _, err = run_cli("bump", "--json")  # in-process: the same command, quicker
        if step.refused:
            assert code == 2 and step.refused in err
            continue
        if code != 0:
            interventions.append((i, err.strip()))
            continue
        if git("status", "--porcelain", cwd=root).strip():  # the bump PR, merged
            git("commit", "--quiet", "-am", f"Bump {i}", cwd=root)
        deps = config.load_deps(root / "deps.yaml")
        line = line_at(history, step.jax)
        version = json.loads((root / "version_info.json").read_text())["version"]
        broken = [what for what, ok in (
            ("pins", (deps["plugin"].commit, deps["jax"].commit, deps["xla"].commit) == (step.plugin, step.jax,
                                                                                        step.xla)),
            ("jax branch", holds(history.jax.path, deps["jax"].branch, step.jax)),
            ("xla branch", holds(history.xla.path, deps["xla"].branch, step.xla)),
            ("line", deps["jax"].line == line),
            ("version on the line", Version(version).base_version == line),
        ) if not ok]
        if broken:
            interventions.append((i, broken))
    assert interventions == []

    # Everything published is still there, and within each line sorts as it was published.
    tags = {r["tag_name"] for r in github_env.releases() if not r["draft"]}
    assert set(published) <= tags
    versions = [Version(t.removeprefix("rocm-jax-v")) for t in published]
    for a, b in zip(versions, versions[1:]):
        if a.base_version == b.base_version:
            assert a < b, (a, b)
    assert [str(v) for v in versions] == ["0.7.1", "0.7.1.post1"]
    # The line moved on with jax: tonight's version sorts above everything published.
    assert Version(json.loads((root / "version_info.json").read_text())["version"]) > max(versions)
