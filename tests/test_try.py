"""``release try``: a newcomer's whole release flow in one command, on this machine only. The
commands it prints install tonight's nightly with pip and with uv, as printed."""

from __future__ import annotations

import html
import json
import os
import re
import shlex
import subprocess
import sys
import urllib.parse
import venv
from pathlib import Path

from release.check.resolver import pip_argv
from tests.support import warm_start
from tests.support.installs import installed, uv_bin
from tests.support.json_schemas import check

REPO = Path(__file__).resolve().parents[1]


def test_one_command_walks_the_flow_and_its_install_lines_work(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "RELEASE_", "PIP_"))}
    env["RELEASE_NOW"] = "2026-11-24T09:00:00Z"
    env["GITHUB_REPOSITORY"] = "someone/else"  # a caller's repository must not send a step to GitHub
    box, elsewhere = tmp_path / "sandbox", tmp_path / "not-a-checkout"
    elsewhere.mkdir()
    # run outside any checkout: the sandbox copies the checkout the package runs from
    proc = subprocess.run([warm_start.python(), "-m", "release", "try", "--dir", str(box), "--json"], cwd=elsewhere,
                          env=env, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    result = check(json.loads(proc.stdout))  # the try shape (tests/support/json_schemas.py)
    assert (result["nightly"], result["rc"], result["release"], result["post"]) == (
        "0.9.1.dev20261124", "0.9.1rc1", "0.9.1", "0.9.1.post1")
    said = proc.stderr
    printed = [line[2:] for line in said.splitlines() if line.startswith("$ ")]
    assert printed == result["preamble"] + [step["command"] for step in result["steps"]]
    for step in ("-m release bump --json", "-m release nightly --date", "-m release index --out",
                 "-m release cut --rc 1", "-m release cut --post 1"):
        assert any(step in line for line in printed), step
    page = Path(result["page"]).read_text()
    assert "0.9.1.dev20261124" in page and "0.9.1.post1" in page
    shown = " ".join(re.sub(r"<[^>]+>", "", page).split())  # the page's text, as a reader copies it
    assert "SITE_URL" not in shown and f"--index-url {Path(result['site']).as_uri()}/nightly/" in shown
    assert not list(Path(result["site"]).rglob("*.whl"))
    # every line the page shows names only projects its index holds (validated without a public
    # index, the sandbox's channels hold no jax and jaxlib: its lines name the plugin alone)
    lines = [html.unescape(re.sub(r"<[^>]+>", "", pre)).split()
             for pre in re.findall(r'<pre class="install">(.*?)</pre>', page)]
    assert lines
    for words in lines:
        index = Path(urllib.parse.urlsplit(words[words.index("--index-url") + 1]).path)
        held = {p["name"] for p in json.loads((index / "index.json").read_text())["projects"]}
        named = {w.split("==")[0] for w in words[words.index("install") + 1:words.index("--index-url")]
                 if not w.startswith("--") and w != "allow"}
        assert named and named <= held, (words, held)
    recipe = html.unescape(re.search(r'<pre class="recipe">(.*?)</pre>', page, re.S).group(1))
    sourced = set(re.findall(r'^(\S+) = \{ index = "jax-rocm-nightly" \}$', recipe, re.M))
    nightly = Path(result["site"]) / "nightly" / "index.json"
    assert sourced and sourced <= {p["name"] for p in json.loads(nightly.read_text())["projects"]}, recipe
    # nothing reached GitHub or a public index: every release is in the sandbox's local store
    assert Path(result["store"]).is_relative_to(box) and (Path(result["store"]) / "store.json").is_file()

    # the transcript reproduces: its set-up lines and the last index step, pasted into a shell with
    # none of the tool's environment, write the page again (and ask no public index: none is reachable)
    Path(result["page"]).unlink()
    bare = {k: v for k, v in env.items() if k not in ("RELEASE_NOW",)}
    replay = subprocess.run(["bash", "-ec", "\n".join(result["preamble"] + [result["steps"][-1]["command"]])],
                            cwd=tmp_path, env=bare, capture_output=True, text=True, timeout=300)
    assert replay.returncode == 0, replay.stderr[-2000:]
    assert "0.9.1.post1" in Path(result["page"]).read_text()

    # the printed commands, run as printed (pip and uv from a fresh venv each)
    for tool, command in result["install"].items():
        target = tmp_path / f"venv-{tool}"
        venv.EnvBuilder(with_pip=False).create(target)
        py = target / "bin" / "python"
        argv = shlex.split(command)
        if tool == "pip":
            # this pip run in the venv's interpreter, as `pip --python` runs it after a first pip start
            run = [*pip_argv(py), *argv[1:], "--no-cache-dir", "--disable-pip-version-check"]
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


def test_the_default_directory_is_a_new_one_on_every_run_of_a_day(tmp_path):
    from release.jobs.sandbox import fresh_directory
    base = tmp_path / "sandbox"
    assert fresh_directory(base, "2026-11-24") == base / "2026-11-24"   # nothing there yet
    (base / "2026-11-24").mkdir(parents=True)
    assert fresh_directory(base, "2026-11-24") == base / "2026-11-24"   # empty: reused
    (base / "2026-11-24" / "project").mkdir()
    (base / "2026-11-25").mkdir()
    (base / "2026-11-25" / "x").write_text("")
    assert fresh_directory(base, "2026-11-24") == base / "2026-11-24-2"
    (base / "2026-11-24-2").mkdir()
    (base / "2026-11-24-2" / "store").mkdir()
    (base / "2026-11-24-3").write_text("a file, not a sandbox\n")
    assert fresh_directory(base, "2026-11-24") == base / "2026-11-24-4"
    assert fresh_directory(base, "2026-11-25") == base / "2026-11-25-2"


def test_outside_a_checkout_the_packages_own_checkout_is_copied(tmp_path):
    from release.jobs.sandbox import tool_checkout
    assert tool_checkout(None, tmp_path) == REPO       # this suite runs from a checkout
    assert tool_checkout(None, REPO / "release" / "jobs") == REPO
    fork = tmp_path / "fork"                           # a checkout around the directory wins
    (fork / "sub").mkdir(parents=True)
    for name in ("deps.yaml", "version_info.json"):
        (fork / name).write_text((REPO / name).read_text())
    assert tool_checkout(None, fork / "sub") == fork
    mine = tmp_path / "mine"
    assert tool_checkout(mine, fork) == mine           # --root wins


def test_the_printed_lines_are_the_ones_run(tmp_path, monkeypatch):
    """What a step sees (its directory, its whole environment) is what its printed lines, pasted
    into a shell that has none of the tool's settings, give it; a caller's GitHub settings are
    unset there and never printed."""
    from release.jobs.sandbox import Sandbox
    project = tmp_path / "a project"
    project.mkdir()
    box = Sandbox(tmp_path, project, tmp_path / "store", tmp_path / "site", tmp_path / "art", "3.11")
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_not_printed")
    monkeypatch.setenv("RELEASE_PUBLIC_INDEX", "https://index.invalid/simple")
    shell_own = ("PWD", "OLDPWD", "SHLVL", "_")
    show = [sys.executable, "-c", "import os, json; print(json.dumps([os.getcwd(), {k: v for k, v in "
            f"os.environ.items() if k not in {shell_own!r}}}]))"]
    said = [f"$ {line}" for line in box.preamble(dict(os.environ))]
    ran = json.loads(box.shell(show, said.append, now="2026-11-24T03:00:00Z"))
    assert ran[0] == str(project) and "GITHUB_TOKEN" not in ran[1]
    assert {k: ran[1].get(k) for k in ("RELEASE_PUBLIC_INDEX", "JAX_ROCM_RELEASE_CACHE", "RELEASE_NOW")} == {
        "RELEASE_PUBLIC_INDEX": "none", "JAX_ROCM_RELEASE_CACHE": str(tmp_path / "git-cache"),
        "RELEASE_NOW": "2026-11-24T03:00:00Z"}
    assert all(line.startswith("$ ") for line in said) and "ghp_not_printed" not in "\n".join(said)
    env = {k: v for k, v in os.environ.items() if not k.startswith("RELEASE_")}
    replay = subprocess.run(["bash", "-ec", "\n".join(line[2:] for line in said)], cwd=tmp_path, env=env,
                            capture_output=True, text=True, timeout=60)
    assert replay.returncode == 0, replay.stderr
    assert json.loads(replay.stdout) == ran
