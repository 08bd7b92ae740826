"""Output a person relies on: what the nightly and publish say, in what order, and that every
command writes GitHub Actions' $GITHUB_OUTPUT and $GITHUB_STEP_SUMMARY."""

from __future__ import annotations

import json
import os
import subprocess

from release.core.revisions import Revision, RevisionMap
from tests.support import warm_start
from tests.test_jobs_e2e import PY, artifacts, commit_all, world  # noqa: F401 (fixtures)

NOW = {"RELEASE_NOW": "2026-11-20T03:00:00Z"}


def run(*argv, env=None, check=True):
    proc = subprocess.run([warm_start.python(), "-m", "release", *map(str, argv)], capture_output=True,
                          text=True, env={**os.environ, **NOW, **(env or {})})
    if check:
        assert proc.returncode == 0, proc.stderr[-3000:]
    return proc


def test_nightly_says_why_first_skips_in_one_line_and_every_command_writes_github_output_and_summary(
        world, artifacts, tmp_path, run_cli, monkeypatch):
    """One published nightly serves both rules (a second world and nightly would only repeat
    the build): what the nightly and publish say, then every command as a CI step."""
    first = run("nightly", "--date", "2026-11-20", "--artifacts", artifacts, "--python", PY)
    lines = first.stdout.splitlines()
    assert lines[0] == "building: first nightly", first.stdout[:300]  # no blank line before it
    assert lines[-1] == "nightly 0.9.1.dev20261120: published rocm-jax-v0.9.1.dev20261120"
    assert "" not in lines

    same = run("nightly", "--date", "2026-11-20", "--artifacts", artifacts, "--python", PY)
    assert same.stdout == ("no build: nothing changed since rocm-jax-v0.9.1.dev20261120 "
                           "(same pins, same release commit)\n") and same.stderr == ""

    again = run("publish", "dist/0.9.1.dev20261120")
    assert "nothing changed" in again.stdout.splitlines()[-2]
    undraft = run("publish", "--undraft", "rocm-jax-v0.9.1.dev20261120", "--json")
    assert json.loads(undraft.stdout)["changed"] is False
    assert "already published; nothing to do" in undraft.stderr

    (world.root / "README.md").write_text("only this repository moved\n")
    subprocess.run(["git", "add", "README.md"], cwd=world.root, check=True)
    head = commit_all(world.root, "Docs")
    # The reason is the plan's (the first nightly above shows it first in a whole run): the plan
    # stage alone says it, without a second build, validate and publish.
    tomorrow = run("nightly", "--stage", "plan", "--date", "2026-11-21", "--store", "github",
                   env={"RELEASE_NOW": "2026-11-21T03:00:00Z"})
    assert tomorrow.stdout.splitlines()[0] == (
        "building: only this repository changed since rocm-jax-v0.9.1.dev20261120 "
        f"(release commit {first_commit(world)[:7]}..{head[:7]})")

    every_command_writes_github_output_and_step_summary(world, artifacts, tmp_path, run_cli, monkeypatch)


def first_commit(world) -> str:
    """The release commit the first nightly was built from (from its revisions.json)."""
    rel = next(r for r in world.fake.releases() if r["tag_name"] == "rocm-jax-v0.9.1.dev20261120")
    asset = next(a for a in rel["assets"] if a["name"] == "revisions.json")
    return json.loads(world.fake.asset_bytes(asset["id"]))["release_commit"]


def test_the_reason_names_the_pins_that_moved():
    from release.jobs.nightly import _build_reason
    from release.publish.stores import Release

    def rmap(xla, commit="c" * 40):
        return RevisionMap("0.9.1.dev1", (("plugin", Revision("u", "m", "a" * 40)),
                                          ("xla", Revision("u", "m", xla))), commit)
    last = Release(1, "rocm-jax-v0.9.1.dev20261120", None, "", False, True, None, None)
    assert _build_reason(last, rmap("1" * 40), rmap("2" * 40)) == (
        "building: pins moved since rocm-jax-v0.9.1.dev20261120: xla 1111111..2222222")
    assert _build_reason(last, rmap("1" * 40), rmap("1" * 40, "d" * 40)).startswith(
        "building: only this repository changed since rocm-jax-v0.9.1.dev20261120 (release commit "
        "ccccccc..ddddddd)")
    assert _build_reason(None, None, rmap("1" * 40)) == "building: first nightly"


def every_command_writes_github_output_and_step_summary(world, artifacts, tmp_path, run_cli, monkeypatch):
    """Each command run as a CI step (in-process: the files are named by the step's environment,
    as in a subprocess): both files get something from every one of them. The nightly of
    2026-11-20 is published."""
    dist = world.root / "dist" / "0.9.1.dev20261120"
    wheel = next(dist.glob("jax_rocm7_pjrt-*.whl"))
    tag = "rocm-jax-v0.9.1.dev20261120"
    commands = {
        "status": ["status"],
        "version": ["version", "--kind", "rc"],
        "nightly": ["nightly", "--dry-run", "--date", "2026-11-21"],
        "cut": None,  # a whole release job: covered by tests/test_jobs_e2e.py
        "bisect": None,  # needs a red nightly to search from: tests/test_bisect.py
        "bump": ["bump", "--dry-run"],
        "line": ["line", "list"],  # line new opens a PR: tests/test_line_new.py on the stand-in
        "fetch-sources": ["fetch-sources", "--workspace", tmp_path / "ws"],
        "build": ["build", "--kind", "rc", "--artifacts", artifacts, "--python", PY,
                  "--dist", tmp_path / "dist"],
        "verify": ["verify", wheel],
        "promote": ["promote", wheel, "--to", "rc1", "--out", tmp_path / "promoted"],
        "publish": ["publish", dist],
        "validate": ["validate", tag],
        "gc": ["gc", "--keep", "3", "--dry-run"],
        "index": ["index", "--out", tmp_path / "site"],
        "yank": ["yank", tag, "--reason", "a bad nightly"],
        "pypi-upload": None,  # needs a package index: tests/test_pypi.py runs it against pypiserver
        "dashboard": None,  # reads and edits a GitHub issue: tests/test_dashboard.py on the stand-in
        "doctor": None,  # asks GitHub's settings endpoints: tests/test_doctor.py on the stand-in
        "smoke": ["smoke", dist],  # the stand-in-free run: no jax here, so a failed verdict (exit 1)
        "try": None,  # the whole flow, a minute: tests/test_try.py
    }
    from release.cli import COMMANDS
    assert set(commands) == set(COMMANDS)
    monkeypatch.setenv("RELEASE_NOW", NOW["RELEASE_NOW"])  # the nightly's night, as the subprocesses above
    for name, argv in commands.items():
        if argv is None:
            continue
        out, summary = tmp_path / f"{name}.out", tmp_path / f"{name}.md"
        monkeypatch.setenv("GITHUB_OUTPUT", str(out))
        monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
        code, _, err = run_cli(*argv)
        assert code in (0, 1), (name, err[-2000:])
        assert out.is_file() and "=" in out.read_text(), f"{name} wrote no $GITHUB_OUTPUT"
        assert summary.is_file() and summary.read_text().strip(), f"{name} wrote no step summary"
