"""A recorded stand-in for Bazel, a plugin workspace for it, and a venv to install wheels into.

Bazel and ROCm cannot run here, so ``bazel`` on PATH is a small script that
behaves like the parts of Bazel the release tool uses: it reads the workspace's
``.bazelrc`` and every ``--bazelrc``, expands ``--config=`` (failing on an
undefined one as Bazel does), checks ``--override_repository`` paths, and records
each call (argv, cwd) as a JSON line. ``build`` compiles a real ELF shared object
for each target under ``<output base>/execroot/__main__/bazel-out/k8-opt/bin/``
with the system C compiler, passing the expanded ``--linkopt`` values straight to
the linker (no shell, as Bazel does); the object embeds its target and the
``HERMETIC_PYTHON_VERSION`` it was built for. ``cquery --output=files`` prints the
outputs relative to the execution root; ``info execution_root`` prints that root.
``FAKE_BAZEL_FAIL=1`` makes ``build`` fail after printing a few lines, and so does a file
named ``BREAKS_ROCM_BUILD`` at the top of the workspace or of an ``--override_repository``
directory: a commit of a generated upstream that adds it breaks every build from it on.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import venv
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

FAKE_BAZEL = r'''#!__PYTHON__
import json, os, shlex, subprocess, sys
from pathlib import Path

sys.path.insert(0, __REPO__)
from tests.support.elf import cc

SOURCE = """
const char *built_target(void) { return "%s"; }
const char *built_python(void) { return "%s"; }
int artifact_answer(void) { return 42; }
"""


def rc_lines(path):
    out = {}
    for line in Path(path).read_text().splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        words = shlex.split(line)
        out.setdefault(words[0], []).extend(words[1:])
    return out


def expand(options, rcs, command, seen=()):
    result = []
    for opt in options:
        if opt.startswith("--config="):
            name = opt.split("=", 1)[1]
            defined = [rc.get(f"build:{name}", []) + (rc.get(f"{command}:{name}", [])
                       if command != "build" else []) for rc in rcs if f"build:{name}" in rc
                       or f"{command}:{name}" in rc]
            if not defined:
                sys.stderr.write(f"ERROR: Config value '{name}' is not defined in any .rc file\n")
                sys.exit(2)
            if name in seen:
                sys.stderr.write(f"ERROR: config cycle at {name}\n")
                sys.exit(2)
            for opts in defined:
                result.extend(expand(opts, rcs, command, seen + (name,)))
        else:
            result.append(opt)
    return result


def output_of(label):
    repo = ""
    if label.startswith("@"):
        repo, label = label[1:].split("//", 1)
        label = "//" + label
    package, name = label[2:].split(":", 1)
    base = Path("bazel-out/k8-opt/bin")
    if repo:
        base = base / "external" / repo
    return base / package / name


def main(argv):
    log = os.environ.get("FAKE_BAZEL_LOG")
    if log:
        with open(log, "a") as handle:
            handle.write(json.dumps({"argv": argv, "cwd": os.getcwd(), "env": sorted(os.environ)}) + "\n")
    startup, i = [], 0
    while i < len(argv) and argv[i].startswith("--"):
        startup.append(argv[i])
        i += 1
    command, rest = argv[i], argv[i + 1:]
    if not Path("WORKSPACE").exists():
        sys.stderr.write("ERROR: not invoked from within a workspace\n")
        return 2
    rcs = [rc_lines(".bazelrc")] if Path(".bazelrc").exists() else []
    rcs += [rc_lines(s.split("=", 1)[1]) for s in startup if s.startswith("--bazelrc=")]
    options = expand([a for a in rest if a.startswith("--")], rcs, command)
    args = [a for a in rest if not a.startswith("--")]
    exec_root = Path(os.environ["FAKE_BAZEL_OUTPUT_BASE"]) / "execroot" / "__main__"
    for opt in options:
        if opt.startswith("--override_repository="):
            path = opt.split("=", 2)[2]
            if not Path(path).is_dir():
                sys.stderr.write(f"ERROR: override_repository path {path} does not exist\n")
                return 2
    if command == "info":
        print(exec_root)
        return 0
    if command == "cquery":
        expr = " ".join(args)
        if not (expr.startswith("set(") and expr.endswith(")")):
            sys.stderr.write(f"ERROR: unsupported query {expr}\n")
            return 2
        assert "--output=files" in options
        for label in expr[4:-1].split():
            print(output_of(label))
        return 0
    if command != "build":
        sys.stderr.write(f"ERROR: fake bazel does not know {command}\n")
        return 2
    python = "none"
    for opt in options:
        if opt.startswith("--repo_env=HERMETIC_PYTHON_VERSION="):
            python = opt.split("=", 2)[2]
    linkopts = [o.split("=", 1)[1] for o in options if o.startswith("--linkopt=")]
    print("INFO: Analyzed %d targets" % len(args), flush=True)
    broken = [str(d) for d in [Path.cwd()] + [Path(o.split("=", 2)[2]) for o in options
              if o.startswith("--override_repository=")] if (d / "BREAKS_ROCM_BUILD").exists()]
    if broken:
        print(f"ERROR: {broken[0]}: hipcc: error: no matching function for call", flush=True)
        return 1
    if os.environ.get("FAKE_BAZEL_FAIL"):
        print("ERROR: rocm toolchain: hipcc exited 1", flush=True)
        return 1
    for n, label in enumerate(args, 1):
        out = exec_root / output_of(label)
        out.parent.mkdir(parents=True, exist_ok=True)
        src = out.with_suffix(".c")
        src.write_text(SOURCE % (label, python))
        part = out.with_name(out.name + ".tmp")
        subprocess.run([cc(), "-shared", "-fPIC", "-O1", "-o", str(part), str(src), *linkopts],
                       check=True)
        src.unlink()
        os.replace(part, out)
        print(f"[{n} / {len(args)}] Linking {label}", flush=True)
    print("INFO: Build completed successfully", flush=True)
    return 0


sys.exit(main(sys.argv[1:]))
'''

WORKSPACE_BAZELRC = """\
# The plugin workspace's own configs, which rocm_build builds on.
build:rocm_base --copt=-Wno-unused
build:rocm --action_env=TF_NEED_ROCM=1
"""


class FakeBazel:
    """The stand-in on PATH; ``calls()`` is what it was asked, in order."""

    def __init__(self, bindir: Path, log: Path, output_base: Path):
        self.bindir, self.log, self.output_base = bindir, log, output_base

    def calls(self) -> list[dict]:
        if not self.log.exists():
            return []
        return [json.loads(line) for line in self.log.read_text().splitlines()]

    def clear(self) -> None:
        self.log.unlink(missing_ok=True)


@pytest.fixture
def fake_bazel(tmp_path, monkeypatch) -> FakeBazel:
    bindir = tmp_path / "bin"
    bindir.mkdir()
    script = bindir / "bazel"
    script.write_text(FAKE_BAZEL.replace("__PYTHON__", sys.executable).replace("__REPO__", repr(str(REPO))))
    script.chmod(0o755)
    fake = FakeBazel(bindir, tmp_path / "bazel-calls.jsonl", tmp_path / "output_base")
    monkeypatch.setenv("PATH", f"{bindir}{os.pathsep}{os.environ.get('PATH', '')}")
    monkeypatch.setenv("FAKE_BAZEL_LOG", str(fake.log))
    monkeypatch.setenv("FAKE_BAZEL_OUTPUT_BASE", str(fake.output_base))
    return fake


@pytest.fixture
def plugin_workspace(tmp_path, project_dir) -> Path:
    """What ``release fetch-sources`` leaves: plugin (with its Bazel workspace), jax, xla,
    each a git checkout whose HEAD ``project_dir``'s deps.yaml pins."""
    from release.core.config import load_deps, save_deps
    from tests.support.gitrepos import git

    ws = tmp_path / "workspace"
    bazel_ws = ws / "plugin" / "jax_rocm_plugin"
    bazel_ws.mkdir(parents=True)
    (bazel_ws / "WORKSPACE").write_text('workspace(name = "jax_rocm_plugin")\n')
    (bazel_ws / ".bazelrc").write_text(WORKSPACE_BAZELRC)
    for name in ("jax", "xla"):
        (ws / name).mkdir()
        (ws / name / "WORKSPACE").write_text(f'workspace(name = "{name}")\n')
    # jax's own files the build reads at the pin: its line, and the plugin names jaxlib knows
    (ws / "jax" / "jax").mkdir()
    (ws / "jax" / "jax" / "version.py").write_text('_version = "0.9.1"\n')  # deps.yaml's jax line
    (ws / "jax" / "jaxlib").mkdir()
    (ws / "jax" / "jaxlib" / "plugin_support.py").write_text(
        '_PLUGIN_MODULE_NAMES = {"cuda": ["jax_cuda12_plugin"], "rocm": ["jax_rocm7_plugin", "jax_rocm60_plugin"]}\n')
    heads = {}
    for name in ("plugin", "jax", "xla"):
        git("init", "--quiet", "-b", "main", cwd=ws / name)
        git("add", "-A", cwd=ws / name)
        git("-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "--quiet", "-m",
            name, cwd=ws / name)
        heads[name] = git("rev-parse", "HEAD", cwd=ws / name).strip()
    save_deps(load_deps(project_dir / "deps.yaml").with_commits(heads))
    return ws


class WheelVenvs:
    """Fresh venvs (no pip inside: the test's pip installs into them with ``--python``)."""

    def __init__(self, root: Path):
        self.root = root
        self._n = 0

    def install(self, find_links: Path, *requirements: str) -> Path:
        """A new venv with ``requirements`` installed from ``find_links`` only; its python."""
        self._n += 1
        env_dir = self.root / f"venv{self._n}"
        venv.EnvBuilder(with_pip=False).create(env_dir)
        python = env_dir / "bin" / "python"
        proc = subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install",
                               "--quiet", "--no-index", "--no-cache-dir", "--find-links",
                               str(find_links), *requirements], capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr
        return python


def run_python(python: Path, code: str) -> str:
    proc = subprocess.run([str(python), "-c", code], capture_output=True, text=True,
                          env={**os.environ, "PYTHONNOUSERSITE": "1"}, cwd=python.parent)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


@pytest.fixture(scope="session")
def wheel_venvs(tmp_path_factory) -> WheelVenvs:
    return WheelVenvs(tmp_path_factory.mktemp("wheel-venvs"))
