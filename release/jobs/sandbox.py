"""A local sandbox of the whole release flow, for a first day: nothing leaves this machine.

``walk(directory)`` makes three small upstream repositories (plugin, jax, xla) served from
``directory/upstream`` over file://, a project checkout pinning them, and stand-in shared
objects compiled with the RUNPATH the Bazel config sets (Bazel and ROCm are the only things
stood in for). Then it runs the tool as a person would, one ``python -m release`` per step:
bump, a nightly, the pip index and page, an rc, the release, a post release, and the index
again, with a local store and no public index. Each step is printed as the shell line that
runs it (the environment it sets first), so the transcript pasted into a shell does the same.
It ends by saying what to look at: the page, and the pip and uv commands that install
tonight's nightly.
"""

from __future__ import annotations

import dataclasses
import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Callable

from release.build.bazel import configured_runpath
from release.core.errors import UserError

BRANCH = "rocm-jaxlib-v0.9.1"
LINE = "0.9.1"
JAX_BZL = "jax_rocm_plugin/third_party/jax/workspace.bzl"
XLA_BZL = "jax_rocm_plugin/third_party/xla/workspace.bzl"
SHARED_OBJECTS = ("xla_rocm_plugin.so", "_linalg.so", "_prng.so", "_solver.so", "_sparse.so", "_hybrid.so",
                  "_rnn.so", "_triton.so", "rocm_plugin_extension.so")
# How long each thing the sandbox runs may take (seconds): a git command, one compile, one tool
# step (a nightly here builds and checks wheels in seconds; 900 leaves a slow machine room).
# One past its deadline ends the sandbox with one line naming it, never a hang or a traceback.
GIT_DEADLINE = 120
COMPILE_DEADLINE = 120
STEP_DEADLINE = 900
GIT_ENV = {"GIT_AUTHOR_NAME": "Sandbox", "GIT_AUTHOR_EMAIL": "sandbox@example.invalid",
           "GIT_COMMITTER_NAME": "Sandbox", "GIT_COMMITTER_EMAIL": "sandbox@example.invalid",
           "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}


def _git(*args: str | Path, cwd: Path, when: int = 1_760_000_000) -> str:
    env = {**os.environ, **GIT_ENV, "GIT_AUTHOR_DATE": f"{when} +0000", "GIT_COMMITTER_DATE": f"{when} +0000"}
    what = f"git {' '.join(map(str, args[:2]))} in {cwd}"
    try:
        proc = subprocess.run(["git", *map(str, args)], cwd=cwd, env=env, capture_output=True, text=True,
                              timeout=GIT_DEADLINE)
    except subprocess.TimeoutExpired:
        raise UserError(f"{what}: no answer in {GIT_DEADLINE} s") from None
    if proc.returncode:
        raise UserError(f"{what}: {proc.stderr.strip()[:300]}")
    return proc.stdout.strip()


class Upstream:
    """A bare repository under ``upstream/`` and a work tree that commits and pushes to it."""

    def __init__(self, root: Path, name: str, branch: str):
        self.bare, self.work, self.branch = root / f"{name}.git", root / f".{name}-work", branch
        self.time = 1_760_000_000
        _git("init", "--quiet", "--bare", "-b", branch, self.bare, cwd=root)
        _git("init", "--quiet", "-b", branch, self.work, cwd=root)

    def commit(self, subject: str, files: dict[str, str]) -> str:
        for name, text in files.items():
            path = self.work / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
        self.time += 3600
        _git("add", "-A", cwd=self.work)
        _git("commit", "--quiet", "-m", subject, cwd=self.work, when=self.time)
        _git("push", "--quiet", str(self.bare), f"HEAD:refs/heads/{self.branch}", cwd=self.work)
        return _git("rev-parse", "HEAD", cwd=self.work)

    @property
    def url(self) -> str:
        return self.bare.as_uri()


def _pin(var: str, sha: str) -> str:
    return f'"""Pinned by the plugin."""\n\n{var} = "{sha}"\n'


def make_upstreams(root: Path) -> dict[str, Upstream]:
    """plugin (master) pins jax and xla; its newer commit moves both pins, so a bump has work."""
    root.mkdir(parents=True, exist_ok=True)
    jax, xla, plugin = Upstream(root, "jax", BRANCH), Upstream(root, "xla", BRANCH), Upstream(root, "plugin", "master")
    j1 = jax.commit("Initial jax", {"jax/version.py": f'_version = "{LINE}"\n', "jaxlib/rocm/k.cc": "int k;\n"})
    j2 = jax.commit("ROCm kernels", {"jaxlib/rocm/k.cc": "int k = 2;\n"})
    x1 = xla.commit("Initial xla", {"xla/BUILD": "# xla\n"})
    x2 = xla.commit("GPU support", {"xla/gpu.cc": "int g;\n"})
    plugin.commit("Initial plugin", {JAX_BZL: _pin("JAX_COMMIT", j1), XLA_BZL: _pin("XLA_COMMIT", x1)})
    plugin.commit("Roll jax and xla", {JAX_BZL: _pin("JAX_COMMIT", j2), XLA_BZL: _pin("XLA_COMMIT", x2)})
    return {"jax": jax, "xla": xla, "plugin": plugin}


def make_project(root: Path, tool: Path, ups: dict[str, Upstream]) -> Path:
    """A checkout of this repository's shape pinning the first plugin commit (so bump moves it)."""
    first = _git("rev-list", "--max-parents=0", "HEAD", cwd=ups["plugin"].work)
    jax_pin = _git("rev-list", "--max-parents=0", "HEAD", cwd=ups["jax"].work)
    xla_pin = _git("rev-list", "--max-parents=0", "HEAD", cwd=ups["xla"].work)
    root.mkdir(parents=True)
    shutil.copytree(tool / "jax_rocm_plugin", root / "jax_rocm_plugin")
    info = json.loads((tool / "version_info.json").read_text(encoding="utf-8"))
    (root / "version_info.json").write_text(json.dumps(info | {"version": LINE}, indent=2) + "\n")
    deps = ["deps:"]
    for name, pin, roll, extra in (("plugin", first, "head", ""),
                                   ("jax", jax_pin, f"{{via: plugin, file: {JAX_BZL}}}", f'    line: "{LINE}"\n'),
                                   ("xla", xla_pin, f"{{via: plugin, file: {XLA_BZL}}}", "")):
        deps.append(f"  {name}:\n    url: {ups[name].url}\n    branch: {ups[name].branch}\n"
                    f"    commit: {pin}\n{extra}    roll: {roll}")
    (root / "deps.yaml").write_text("\n".join(deps) + "\n")
    (root / ".gitignore").write_text("/dist/\n/.cache/\n/workspace/\n")
    _git("init", "--quiet", "-b", "main", cwd=root)
    _git("add", "-A", cwd=root)
    _git("commit", "--quiet", "-m", "Sandbox project", cwd=root)
    return root


def compile_stand_ins(directory: Path, runpath: list[str]) -> Path:
    """The shared objects a ROCm build hands over, as tiny C libraries with the configured RUNPATH."""
    cc = next((c for c in ("cc", "gcc", "clang") if shutil.which(c)), None)
    if cc is None:
        raise UserError("release try: needs a C compiler (cc, gcc or clang) for the stand-in .so files; "
                        "install gcc (apt-get install gcc)")
    directory.mkdir(parents=True)
    for i, name in enumerate(SHARED_OBJECTS):
        src = directory / f"{name}.c"
        src.write_text(f'int artifact_answer(void) {{ return {i}; }}\nconst char *artifact_name(void) '
                       f'{{ return "{name}"; }}\n')
        argv = [cc, "-shared", "-fPIC", "-O1", "-o", str(directory / name), str(src),
                "-Wl,--enable-new-dtags", "-Wl,-rpath," + ":".join(runpath)]
        try:
            proc = subprocess.run(argv, capture_output=True, text=True, timeout=COMPILE_DEADLINE)
        except subprocess.TimeoutExpired:
            raise UserError(f"release try: {cc} did not compile {name} in {COMPILE_DEADLINE} s") from None
        if proc.returncode:
            raise UserError(f"release try: {cc} could not compile {name} (exit {proc.returncode}): "
                            f"{(proc.stderr.strip().splitlines() or ['no output'])[-1]}")
        src.unlink()
    return directory


IDENTITY = ("-c", "user.name=Sandbox", "-c", "user.email=sandbox@example.invalid")


@dataclasses.dataclass
class Sandbox:
    directory: Path
    project: Path
    store: Path
    site: Path
    artifacts: Path
    python: str
    steps: list[dict] = dataclasses.field(default_factory=list)

    @property
    def exports(self) -> dict[str, str]:
        """What every step's environment adds: no public index, the sandbox's own git cache."""
        return {"RELEASE_PUBLIC_INDEX": "none", "JAX_ROCM_RELEASE_CACHE": str(self.directory / "git-cache"),
                "RELEASE_GITHUB_WRITE_INTERVAL": "0"}

    def preamble(self, environ: dict[str, str]) -> list[str]:
        """The shell lines that make a terminal's environment the steps' one (cd, export, unset)."""
        lines = [f"cd {shlex.quote(str(self.project))}",
                 "export " + " ".join(f"{k}={shlex.quote(v)}" for k, v in self.exports.items())]
        dropped = sorted(k for k in environ if k.startswith("GITHUB_"))
        if dropped:  # a token or repository of the caller's would send steps to GitHub
            lines.append("unset " + " ".join(dropped))
        return lines

    def environment(self, environ: dict[str, str], now: str | None) -> dict[str, str]:
        env = {k: v for k, v in environ.items() if not k.startswith("GITHUB_")} | self.exports
        return env | ({"RELEASE_NOW": now} if now else {})

    def shell(self, argv: list[str], say: Callable[[str], None], now: str | None = None) -> str:
        """Run ``argv`` in the project as the printed line does; returns its standard output."""
        line = shlex.join(argv)
        line = f"RELEASE_NOW={shlex.quote(now)} {line}" if now else line
        say(f"$ {line}")
        try:
            proc = subprocess.run(argv, cwd=self.project, env=self.environment(dict(os.environ), now),
                                  capture_output=True, text=True, timeout=STEP_DEADLINE)
        except subprocess.TimeoutExpired:
            raise UserError(f"release try: `{line}` ran past its {STEP_DEADLINE} s") from None
        if proc.returncode:
            raise UserError(f"release try: `{line}` failed (exit {proc.returncode}): "
                            f"{(proc.stderr.strip().splitlines() or ['no output'])[-1]}")
        self.steps.append({"command": line, "exit": 0})
        return proc.stdout

    def release(self, *argv: str, say: Callable[[str], None], now: str | None = None) -> dict:
        """One ``python -m release ... --json`` in the project, printed as the line that runs it."""
        stdout = self.shell([sys.executable, "-m", "release", *argv, "--json"], say, now)
        return json.loads(stdout) if stdout.strip() else {}

    def store_flags(self) -> list[str]:
        return ["--store", "local", "--store-dir", str(self.store)]


def install_commands(site: Path, project: str) -> dict[str, str]:
    url = site.as_uri() + "/nightly/"
    return {"pip": f"pip install --pre {project} --index-url {url}",
            "uv": f"uv pip install --prerelease allow {project} --index-url {url}"}


def tool_checkout(root: Path | None, cwd: Path) -> Path:
    """Whose ``jax_rocm_plugin/`` and ``version_info.json`` the sandbox copies: ``--root``, else
    the checkout around ``cwd``, else the checkout this package runs from (so ``release try``
    works from any directory once the package is installed from a checkout)."""
    from release.core.project_root import find_root
    if root is not None:
        return Path(root)
    try:
        return find_root(cwd)
    except UserError:
        pass
    own = Path(__file__).resolve().parents[2]
    if (own / "jax_rocm_plugin").is_dir() and (own / "version_info.json").is_file():
        return own
    raise UserError("release try: no checkout of this repository around the current directory, and the "
                    "installed package is not one; pass --root DIR (a checkout: its jax_rocm_plugin/ and "
                    "version_info.json are copied into the sandbox)")


def fresh_directory(base: Path, day: str) -> Path:
    """``base/<day>``, or the first of ``base/<day>-2``, ``-3``, ... that is new or empty: a second
    try on one day gets a directory of its own and never meets the first one's world."""
    for n in range(1, 10_000):
        candidate = base / (day if n == 1 else f"{day}-{n}")
        if not candidate.exists() or (candidate.is_dir() and not any(candidate.iterdir())):
            return candidate
    raise UserError(f"{base}: 9,999 sandboxes of {day} already; remove some or pass --dir")


def walk(directory: Path, tool: Path, day: str, say: Callable[[str], None] = lambda _: None) -> dict:
    """Make the sandbox in ``directory`` (new or empty) and walk the release flow through it."""
    directory = Path(directory).absolute()
    if directory.exists() and any(directory.iterdir()):
        raise UserError(f"--dir {directory}: not empty; give a new directory (the sandbox writes a whole world there)")
    python = f"{sys.version_info.major}.{sys.version_info.minor}"
    say(f"sandbox in {directory}: upstream repositories, a project, stand-in .so files")
    ups = make_upstreams(directory / "upstream")
    project = make_project(directory / "project", tool, ups)
    box = Sandbox(directory, project, directory / "store", directory / "site",
                  compile_stand_ins(directory / "artifacts", configured_runpath(project)), python)
    store, art = box.store_flags(), str(box.artifacts)
    preamble = box.preamble(dict(os.environ))
    for line in preamble:
        say(f"$ {line}")
    night = f"{day}T03:00:00Z"
    box.release("bump", say=say, now=night)
    box.shell(["git", *IDENTITY, "commit", "--quiet", "-am", "Bump pins (the bump PR, merged)"], say)
    say("  (deps.yaml committed: the bump PR, merged)")
    nightly = box.release("nightly", "--date", day, "--artifacts", art, "--python", python, *store,
                          say=say, now=night)
    site = ["--out", str(box.site), "--url", box.site.as_uri()]  # its install lines work here, as printed
    box.release("index", *site, *store, say=say, now=night)
    later = f"{day}T15:00:00Z"
    rc = box.release("cut", "--rc", "1", "--artifacts", art, "--python", python, *store, say=say, now=later)
    final = box.release("cut", "--artifacts", art, "--python", python, *store, say=say, now=later)
    post = box.release("cut", "--post", "1", *store, say=say, now=later)
    box.release("index", *site, *store, say=say, now=later)
    plugin = "jax-rocm{}-plugin".format(json.loads((project / "version_info.json").read_text())
                                        ["rocm_version"].split(".")[0])
    commands = install_commands(box.site, plugin)
    return {"directory": str(directory), "project": str(project), "store": str(box.store),
            "page": str(box.site / "index.html"), "site": str(box.site),
            "nightly": nightly.get("version"), "rc": rc.get("version"), "release": final.get("version"),
            "post": post.get("version"), "install": commands, "preamble": preamble, "steps": box.steps}
