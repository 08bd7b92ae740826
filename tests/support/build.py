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
jax's own wheel targets (``//jaxlib/tools:jax_rocm_pjrt_wheel``, ``:jax_rocm_plugin_wheel``,
run in a jax checkout) build a wheel as jax's rule does: named by the major (``jaxlib/rocm/
rocm_version.bzl``'s literal, else the N of the ``rocm-N.x.y`` ``ROCM_PATH`` points at), versioned
by jax's ``_version`` plus the ``ML_WHEEL_*`` suffix, holding ``jax_plugins/xla_rocmN`` (pjrt) or
``jax_rocmN_plugin`` (plugin) with a real ELF object, METADATA, WHEEL and RECORD.
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

from release.check.resolver import pip_argv
from tests.support.shared import run_dir

REPO = Path(__file__).resolve().parents[2]

FAKE_BAZEL = r'''#!__PYTHON__
import json, os, shlex, shutil, subprocess, sys
from pathlib import Path


def cc():
    """The system C compiler (as tests.support.elf finds it; importing that, and pytest with it,
    cost a third of a CPU-second on every one of the many Bazel calls a test makes)."""
    for name in ("cc", "gcc", "clang"):
        if shutil.which(name):
            return name
    sys.stderr.write("ERROR: no C compiler (cc, gcc, clang) on PATH\n")
    sys.exit(1)


def link(source, src, out, linkopts):
    """Compile ``source`` (written to ``src``) into the shared object ``out`` with ``linkopts``:
    once per source, options and the bytes of each file an option names, in the run's cache
    directory, then copied from there (the compiler's output is the same wherever it runs). A
    link with a library directory (``-L``, whose files the key cannot know) is never cached."""
    import hashlib
    cached = None
    if not any(o.startswith("-L") for o in linkopts):
        key = hashlib.sha256("\0".join([src.name, source, *linkopts]).encode())
        for opt in linkopts:
            if not opt.startswith("-") and Path(opt).is_file():
                key.update(Path(opt).read_bytes())
        cached = Path(CACHE) / (key.hexdigest() + ".so")
        if cached.is_file():
            shutil.copy(cached, out)
            return
    src.write_text(source)
    subprocess.run([cc(), "-shared", "-fPIC", "-O1", "-o", str(out), str(src), *linkopts], check=True)
    src.unlink()
    if cached is not None:
        cached.parent.mkdir(parents=True, exist_ok=True)
        part = cached.with_name(f"{cached.name}.{os.getpid()}")
        shutil.copy(out, part)
        os.replace(part, cached)


CACHE = "__CACHE__"


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


JAX_WHEELS = {"//jaxlib/tools:jax_rocm_pjrt_wheel": "pjrt", "//jaxlib/tools:jax_rocm_plugin_wheel": "plugin"}


def repo_env(options):
    return {o.split("=", 2)[1]: o.split("=", 2)[2] for o in options
            if o.startswith("--repo_env=") and o.count("=") >= 2}


def jax_rocm_major(env):
    """ROCM_MAJOR_VERSION as jaxlib/rocm/rocm_version.bzl gives it: a literal, or the major of
    the ROCm @local_config_rocm is pointed at (here: the N of .../rocm-N.x.y in ROCM_PATH)."""
    import re
    text = Path("jaxlib/rocm/rocm_version.bzl").read_text()
    literal = re.search(r'^ROCM_MAJOR_VERSION\s*=\s*"(\d+)"', text, re.M)
    if literal:
        return literal.group(1)
    found = re.search(r"rocm-(\d+)\.", env.get("ROCM_PATH", ""))
    if not found:
        sys.stderr.write("ERROR: @local_config_rocm: no ROCm found (ROCM_PATH)\n")
        sys.exit(1)
    return found.group(1)


def jax_wheel_version(env):
    """jax's _version plus xla's python_wheel_version_suffix_repository suffix."""
    import re
    line = re.search(r'^_version[^=]*=\s*"([^"]+)"', Path("jax/version.py").read_text(), re.M).group(1)
    kind = env.get("ML_WHEEL_TYPE", "snapshot")
    if kind == "nightly":
        return f"{line}.dev{env['ML_WHEEL_BUILD_DATE'].replace('-', '')}"
    if kind == "release":
        return line + env.get("ML_WHEEL_VERSION_SUFFIX", "").replace("-", "")
    return f"{line}.dev0+selfbuilt"


def jax_wheel_path(label, options):
    env = repo_env(options)
    kind, major, version = JAX_WHEELS[label], jax_rocm_major(env), jax_wheel_version(env)
    py = env.get("HERMETIC_PYTHON_VERSION", "3.12").replace(".", "")
    tags = "py3-none" if kind == "pjrt" else f"cp{py}-cp{py}"
    name = f"jax_rocm{major}_{kind}-{version}-{tags}-manylinux_2_27_x86_64.whl"
    return Path("bazel-out/k8-opt/bin/jaxlib/tools/dist") / name, kind, major, version, env


def write_jax_wheel(out, kind, major, version, env, so_path):
    """What jax's wheel tool writes: the package by the major, version.py stamped, METADATA,
    WHEEL, entry points (pjrt), RECORD."""
    import base64, hashlib, zipfile
    package = f"jax_plugins/xla_rocm{major}" if kind == "pjrt" else f"jax_rocm{major}_plugin"
    dist = f"jax_rocm{major}_{kind}"
    so = so_path.read_bytes()
    files = {f"{package}/__init__.py": b"# jax's ROCm %s package\n" % kind.encode(),
             f"{package}/version.py": f"_release_version: str = {version!r}\n".encode()}
    if kind == "pjrt":
        files[f"{package}/xla_rocm_plugin.so"] = so
    else:
        files[f"{package}/rocm_plugin_extension.so"] = so
        files[f"{package}/_linalg.so"] = so
    py = env.get("HERMETIC_PYTHON_VERSION", "3.12")
    cp = "cp" + py.replace(".", "")
    tag = ("py3-none" if kind == "pjrt" else f"{cp}-{cp}") + "-manylinux_2_27_x86_64"
    di = f"{dist}-{version}.dist-info"
    requires = "" if kind == "pjrt" else f"Requires-Dist: jax-rocm{major}-pjrt=={version}\n"
    files[f"{di}/METADATA"] = (f"Metadata-Version: 2.1\nName: jax-rocm{major}-{kind}\nVersion: {version}\n"
                               f"Requires-Python: >={py}\n{requires}").encode()
    files[f"{di}/WHEEL"] = f"Wheel-Version: 1.0\nGenerator: jax\nRoot-Is-Purelib: false\nTag: {tag}\n".encode()
    if kind == "pjrt":
        files[f"{di}/entry_points.txt"] = f"[jax_plugins]\nxla_rocm{major} = jax_plugins.xla_rocm{major}\n".encode()
    rows = []
    for name, data in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        rows.append(f"{name},sha256={digest},{len(data)}")
    rows.append(f"{di}/RECORD,,")
    files[f"{di}/RECORD"] = ("\n".join(rows) + "\n").encode()
    out.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in files.items():
            info = zipfile.ZipInfo(name, (1980, 1, 1, 0, 0, 0))
            info.external_attr = (0o755 if name.endswith(".so") else 0o644) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, data)


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
        if expr in JAX_WHEELS:
            expr = f"set({expr})"
        if not (expr.startswith("set(") and expr.endswith(")")):
            sys.stderr.write(f"ERROR: unsupported query {expr}\n")
            return 2
        assert "--output=files" in options
        for label in expr[4:-1].split():
            print(jax_wheel_path(label, options)[0] if label in JAX_WHEELS else output_of(label))
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
        if label in JAX_WHEELS:
            rel, kind, major, version, env = jax_wheel_path(label, options)
            out = exec_root / rel
            out.parent.mkdir(parents=True, exist_ok=True)
            so = out.with_suffix(".so")
            link(SOURCE % (label, python), out.with_suffix(".c"), so, linkopts)
            write_jax_wheel(out, kind, major, version, env, so)
            so.unlink()
            print(f"[{n} / {len(args)}] Building wheel {label}", flush=True)
            continue
        out = exec_root / output_of(label)
        out.parent.mkdir(parents=True, exist_ok=True)
        part = out.with_name(out.name + ".tmp")
        link(SOURCE % (label, python), out.with_suffix(".c"), part, linkopts)
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
def fake_bazel(tmp_path, tmp_path_factory, monkeypatch) -> FakeBazel:
    bindir = tmp_path / "bin"
    bindir.mkdir()
    script = bindir / "bazel"
    # The run's, which every xdist worker shares: one compile per object in the run (a worker writes
    # an object under a name of its own and renames it into place, so none reads half of one).
    cache = run_dir(tmp_path_factory) / "fake-bazel-objects"
    script.write_text(FAKE_BAZEL.replace("__PYTHON__", sys.executable).replace("__CACHE__", str(cache)))
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
        proc = subprocess.run([*pip_argv(python), "install",
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
