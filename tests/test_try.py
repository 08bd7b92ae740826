"""``release try``: a newcomer's whole release flow in one command, on this machine only. The
commands it prints install tonight's nightly with pip and with uv, as printed."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import venv
from pathlib import Path

from tests.support.installs import installed, uv_bin

REPO = Path(__file__).resolve().parents[1]


def test_one_command_walks_the_flow_and_its_install_lines_work(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "RELEASE_", "PIP_"))}
    env["RELEASE_NOW"] = "2026-11-24T09:00:00Z"
    box = tmp_path / "sandbox"
    proc = subprocess.run([sys.executable, "-m", "release", "try", "--dir", str(box), "--json"], cwd=REPO,
                          env=env, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    result = json.loads(proc.stdout)
    assert (result["nightly"], result["rc"], result["release"], result["post"]) == (
        "0.9.1.dev20261124", "0.9.1rc1", "0.9.1", "0.9.1.post1")
    said = proc.stderr
    for step in ("$ release bump", "$ release nightly", "$ release index", "$ release cut --rc 1",
                 "$ release cut --post 1"):
        assert step in said, step
    page = Path(result["page"]).read_text()
    assert "0.9.1.dev20261124" in page and "0.9.1.post1" in page
    assert not list(Path(result["site"]).rglob("*.whl"))
    # nothing reached GitHub or a public index: every release is in the sandbox's local store
    assert Path(result["store"]).is_relative_to(box) and (Path(result["store"]) / "store.json").is_file()

    # the printed commands, run as printed (pip and uv from a fresh venv each)
    for tool, command in result["install"].items():
        target = tmp_path / f"venv-{tool}"
        venv.EnvBuilder(with_pip=False).create(target)
        py = target / "bin" / "python"
        argv = shlex.split(command)
        if tool == "pip":
            run = [sys.executable, "-m", "pip", "--python", str(py), *argv[1:], "--no-cache-dir",
                   "--disable-pip-version-check"]
            extra = {"PIP_CONFIG_FILE": os.devnull}
        else:
            run = [uv_bin(), *argv[1:3], "--python", str(py), *argv[3:]]
            extra = {"UV_NO_CONFIG": "1", "UV_CACHE_DIR": str(tmp_path / "uv-cache")}
        done = subprocess.run(run, env={**env, **extra}, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, (tool, done.stderr[-2000:])
        got = installed(py)
        assert got["jax-rocm7-plugin"] == got["jax-rocm7-pjrt"] == "0.9.1.dev20261124", tool

    # the README's `uv add` line: both wheels named, so both are sourced from our index (uv sources
    # only the packages named with --index, and a pjrt from the default index would not resolve)
    project = tmp_path / "app"
    project.mkdir()
    (project / "pyproject.toml").write_text('[project]\nname = "app"\nversion = "0.1.0"\n'
                                            'requires-python = ">=3.11"\ndependencies = []\n')
    site = Path(result["site"]).as_uri()
    uv_env = {**env, "UV_NO_CONFIG": "1", "UV_CACHE_DIR": str(tmp_path / "uv-cache"), "UV_PYTHON_DOWNLOADS": "never"}
    added = subprocess.run([uv_bin(), "add", "--prerelease", "allow", "--index", f"jax-rocm-nightly={site}/nightly/",
                            "jax-rocm7-plugin", "jax-rocm7-pjrt", "--python", sys.executable],
                           cwd=project, env=uv_env, capture_output=True, text=True, timeout=300)
    assert added.returncode == 0, added.stderr[-2000:]
    got = installed(project / ".venv" / "bin" / "python")
    assert got["jax-rocm7-plugin"] == got["jax-rocm7-pjrt"] == "0.9.1.dev20261124"


def test_a_directory_that_is_not_empty_is_refused(run_cli, tmp_path):
    (tmp_path / "mine.txt").write_text("keep me\n")
    code, out, err = run_cli("try", "--dir", tmp_path, "--root", REPO)
    assert code == 2 and len(err.strip().splitlines()) == 1 and "not empty" in err
    assert [p.name for p in tmp_path.iterdir()] == ["mine.txt"]
