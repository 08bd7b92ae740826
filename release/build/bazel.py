"""Bazel: the exact commands for each wheel, running them, and finding what they built.

Everything comes from ``jax_rocm_plugin/``: the ``.bazelrc`` configs (passed with
``--bazelrc``, on top of the plugin workspace's own) and ``wheels.json`` (which
targets each wheel needs, read by ``release.build.wheel_specs``). One ``bazel build`` per wheel: the PJRT wheel
once, the plugin wheel once per Python, each in the plugin workspace with xla and jax
overridden to the pinned checkouts. Outputs are found with ``bazel cquery
--output=files`` under the same flags and copied out at once, since the next
Python's build writes the same paths.

Workspace layout (what ``release fetch-sources`` makes): ``<ws>/plugin`` (rocm-jax,
whose Bazel workspace is ``<ws>/plugin/jax_rocm_plugin``), ``<ws>/jax``, ``<ws>/xla``.

The RUNPATH the config links in has one source, the ``-rpath`` linkopts of
``rocm_build``: ``configured_runpath(root=None) -> list[str]``.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import re
import shlex
import shutil
import subprocess
import time
from pathlib import Path
from typing import Callable, Iterable, Mapping, Protocol

from release.build.wheel_specs import BAZELRC, Output, load_specs, plugin_dir
from release.core.errors import UserError
from release.core.redact import redact, register_secret

BUILD_CONFIG = "rocm_build"
REMOTE_CACHE_CONFIG = "remote_cache"
WORKSPACE_SUBDIR = "plugin/jax_rocm_plugin"   # the Bazel workspace inside a fetched workspace
OVERRIDES = ("xla", "jax")                     # deps overridden with --override_repository
RPATH_ENV = "ROCM_WHEEL_RPATH"
_PROGRESS = re.compile(r"\[([\d,]+) / ([\d,]+)\]")


def bazelrc_path(root: Path | None = None) -> Path:
    return plugin_dir(root) / BAZELRC


# ---------------------------------------------------------------------------- the configs


def parse_bazelrc(text: str, where: str = BAZELRC) -> dict[str, list[str]]:
    """``{"build:rocm_build": [options...], "build": [...]}`` in file order (no imports)."""
    configs: dict[str, list[str]] = {}
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        try:
            words = shlex.split(stripped, comments=False, posix=True)
        except ValueError as exc:
            raise UserError(f"{where}:{number}: cannot split {stripped!r} ({exc})") from None
        if words[0] in ("import", "try-import"):
            continue
        configs.setdefault(words[0], []).extend(words[1:])
    return configs


def expand_config(configs: dict[str, list[str]], name: str, command: str = "build",
                  _seen: tuple[str, ...] = ()) -> list[str]:
    """The options ``--config=name`` stands for, with nested configs of this file expanded.

    Configs this file does not define (``rocm_base``, ``rocm``: the workspace's) stay as
    ``--config=...`` for Bazel to expand.
    """
    if name in _seen:
        raise UserError(f"{BAZELRC}: config {name} includes itself ({' -> '.join(_seen + (name,))})")
    key = f"{command}:{name}"
    if key not in configs:
        raise UserError(f"{BAZELRC}: no '{key}' lines; expected the config to be defined")
    result: list[str] = []
    for option in configs[key]:
        nested = option[len("--config="):] if option.startswith("--config=") else None
        if nested is not None and f"{command}:{nested}" in configs:
            result.extend(expand_config(configs, nested, command, _seen + (name,)))
        else:
            result.append(option)
    return result


def read_configs(root: Path | None = None) -> dict[str, list[str]]:
    """The configs of the root's ``.bazelrc``, read each time (the file may change) but split
    once per text: a build asks three times (Pythons, RUNPATH, Requires-Python)."""
    path = bazelrc_path(root)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise UserError(f"{path}: cannot read the Bazel configs ({exc.strerror})") from None
    return {key: list(options) for key, options in _parsed(text, str(path)).items()}


@functools.lru_cache(maxsize=8)
def _parsed(text: str, where: str) -> dict[str, tuple[str, ...]]:
    return {key: tuple(options) for key, options in parse_bazelrc(text, where).items()}


def configured_linkopts(root: Path | None = None) -> list[str]:
    """The ``--linkopt`` values ``rocm_build`` passes to every link, in order."""
    return [o[len("--linkopt="):] for o in expand_config(read_configs(root), BUILD_CONFIG)
            if o.startswith("--linkopt=")]


def configured_runpath(root: Path | None = None) -> list[str]:
    """The RUNPATH entries ``rocm_build`` links into every shared object, in order.

    Read from the ``-Wl,-rpath,...`` linkopts; the config must also pass
    ``-Wl,--enable-new-dtags`` (else the linker may write DT_RPATH) and its
    ``ROCM_WHEEL_RPATH`` must list the same entries.
    """
    options = expand_config(read_configs(root), BUILD_CONFIG)
    linkopts = [o[len("--linkopt="):] for o in options if o.startswith("--linkopt=")]
    entries: list[str] = []
    for opt in linkopts:
        if opt.startswith("-Wl,-rpath,"):
            entries.extend(p for p in opt[len("-Wl,-rpath,"):].split(":") if p)
        elif opt.startswith("-Wl,-rpath="):
            entries.extend(p for p in opt[len("-Wl,-rpath="):].split(":") if p)
    where = f"{bazelrc_path(root)}: build:{BUILD_CONFIG}"
    if not entries:
        raise UserError(f"{where}: no --linkopt=-Wl,-rpath,... lines; expected the wheel RUNPATH")
    if "-Wl,--enable-new-dtags" not in linkopts:
        raise UserError(f"{where}: no --linkopt=-Wl,--enable-new-dtags; expected it so the linker "
                        "writes DT_RUNPATH, not DT_RPATH")
    env = [o.split("=", 2)[2] for o in options if o.startswith(f"--repo_env={RPATH_ENV}=")]
    if env and [p for p in env[-1].split(":") if p] != entries:
        raise UserError(f"{where}: {RPATH_ENV}={env[-1]} disagrees with the -rpath linkopts "
                        f"({':'.join(entries)}); expected the same entries in the same order")
    for entry in entries:
        if "$$" in entry:
            raise UserError(f"{where}: RUNPATH entry {entry!r} has '$$'; command-line linkopts "
                            "are not Make-expanded, so write $ORIGIN")
    return entries


def python_config(python: str) -> str:
    return "python" + python.replace(".", "")


_PYTHON_CONFIG = re.compile(r"^build:python3(\d+)\Z", re.ASCII)


def supported_pythons(root: Path | None = None) -> tuple[str, ...]:
    """The Pythons a plugin wheel can be built for: one ``build:python3NN`` config each.

    The one place that says which Pythons are supported: ``--python`` is checked against
    it, the default is all of them, and ``Requires-Python`` is its lowest.
    """
    found = sorted({int(m.group(1)) for key in read_configs(root)
                    if (m := _PYTHON_CONFIG.match(key))})
    if not found:
        raise UserError(f"{bazelrc_path(root)}: no build:python3NN configs; expected one per "
                        "Python the plugin wheel is built for")
    return tuple(f"3.{n}" for n in found)


def check_pythons(pythons: Iterable[str] | None, root: Path | None = None) -> tuple[str, ...]:
    """``pythons`` without repeats, each one the Bazel configs build (default: all of them)."""
    supported = supported_pythons(root)
    chosen = tuple(dict.fromkeys(pythons or ())) or supported
    for python in chosen:
        if python not in supported:
            raise UserError(f"--python {python}: the Bazel configs build {', '.join(supported)} "
                            f"(the build:python3NN lines of {bazelrc_path(root)}); expected one of those")
    return chosen


def requires_python(root: Path | None = None) -> str:
    """``Requires-Python`` of both wheels: from the lowest Python the configs build."""
    return f">={supported_pythons(root)[0]}"


# ---------------------------------------------------------------------------- commands


@dataclasses.dataclass(frozen=True)
class BazelStep:
    """One ``bazel build`` for one wheel (``kind`` pjrt or plugin) and how to find its outputs."""

    kind: str
    python: str
    workspace: Path
    bazelrc: Path
    outputs: tuple[Output, ...]
    bazel: str = "bazel"

    @property
    def flags(self) -> list[str]:
        return [f"--config={BUILD_CONFIG}", f"--config={python_config(self.python)}"]

    @property
    def overrides(self) -> list[str]:
        return [f"--override_repository={name}={self.workspace / name}" for name in OVERRIDES]

    @property
    def startup(self) -> list[str]:
        return [self.bazel, f"--bazelrc={self.bazelrc}"]

    @property
    def targets(self) -> list[str]:
        return [o.target for o in self.outputs]

    @property
    def bazel_workspace(self) -> Path:
        return self.workspace / WORKSPACE_SUBDIR

    def argv(self) -> list[str]:
        return [*self.startup, "build", *self.flags, *self.targets, *self.overrides]

    def cquery_argv(self) -> list[str]:
        expr = f"set({' '.join(self.targets)})"
        return [*self.startup, "cquery", *self.flags, expr, *self.overrides, "--output=files"]

    def info_argv(self) -> list[str]:
        return [*self.startup, "info", *self.flags, *self.overrides, "execution_root"]

    def cwd(self) -> Path:
        return check_workspace(self.workspace)


class Step(Protocol):
    """What running a build needs of a step: this layout's ``BazelStep`` or the jax-tree
    layout's (``release.build.jax_tree.JaxTreeStep``)."""

    @property
    def kind(self) -> str: ...
    @property
    def python(self) -> str: ...
    @property
    def bazel(self) -> str: ...

    def argv(self) -> list[str]: ...
    def cquery_argv(self) -> list[str]: ...
    def info_argv(self) -> list[str]: ...
    def cwd(self) -> Path: ...


def build_steps(workspace: Path, pythons: Iterable[str], *, root: Path | None = None,
                kinds: Iterable[str] = ("pjrt", "plugin"), bazel: str = "bazel") -> list[BazelStep]:
    """The builds a release needs: PJRT once (with the first Python), plugin once per Python."""
    pythons = list(pythons)
    if not pythons:
        raise UserError("no Python versions to build for; expected at least one --python 3.X")
    specs = load_specs(root)
    rc = bazelrc_path(root)
    workspace = Path(workspace).resolve()
    steps = []
    for kind in kinds:
        spec = specs[kind]
        for python in (pythons if spec.per_python else pythons[:1]):
            steps.append(BazelStep(kind, python, workspace, rc, spec.outputs, bazel))
    return steps


# ---------------------------------------------------------------------------- running


def remote_cache_flags(env: Mapping[str, str] | None = None) -> list[str]:
    """``--config=remote_cache`` flags from ``BAZEL_REMOTE_CACHE`` / ``BAZEL_REMOTE_HEADER``
    (``BAZEL_REMOTE_READ_ONLY=true``: read the cache, upload nothing to it).

    Added when Bazel runs, never to ``BazelStep.argv()``: that stays the reproducible command
    (fingerprints, ``nightly --dry-run``). The header usually carries a token, so it is
    registered as a secret and redacted from every line we print or log.
    """
    env = os.environ if env is None else env
    url, header = env.get("BAZEL_REMOTE_CACHE", "").strip(), env.get("BAZEL_REMOTE_HEADER", "").strip()
    if not url:
        return []
    flags = [f"--config={REMOTE_CACHE_CONFIG}", f"--remote_cache={url}"]
    if header:
        if "=" not in header:
            raise UserError("BAZEL_REMOTE_HEADER: expected NAME=VALUE, such as "
                            "Authorization=Bearer <token>")
        register_secret(header.split("=", 1)[1].strip())
        register_secret(header)
        flags.append(f"--remote_header={header}")
    if env.get("BAZEL_REMOTE_READ_ONLY", "").strip().lower() in ("1", "true", "yes"):
        # CI's build cells run upstream code: they may read the cache, never poison it.
        flags.append("--noremote_upload_local_results")
    return flags


# Bazel runs upstream code (build rules, repository rules, genrules): it gets no credential of
# the job that starts it (a bisect probe's job holds a GITHUB_TOKEN to read the releases; an
# OIDC request token would let it mint one). The remote cache header goes as a flag, not env.
_CREDENTIAL_WORDS = ("TOKEN", "PASSWORD", "SECRET", "PRIVATE_KEY", "CREDENTIAL")
_CREDENTIAL_NAMES = frozenset({"BAZEL_REMOTE_HEADER", "ACTIONS_ID_TOKEN_REQUEST_URL", "ACTIONS_RUNTIME_URL",
                               "ACTIONS_RESULTS_URL", "ACTIONS_CACHE_URL", "NETRC"})


def upstream_env(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """``environ`` (default the process's) without any credential: what Bazel is given."""
    environ = os.environ if environ is None else environ
    return {k: v for k, v in environ.items()
            if k.upper() not in _CREDENTIAL_NAMES and not any(w in k.upper() for w in _CREDENTIAL_WORDS)}


def run_build(step: Step, log_path: Path,
              on_progress: Callable[[int, int, str], None] | None = None) -> None:
    """Run ``step``'s build in the plugin workspace, streaming its log to ``log_path``.

    ``on_progress(done, total, line)`` is called for every line (done/total from Bazel's
    ``[n / m]`` action counter, 0/0 until Bazel prints one).
    """
    cwd = _workspace(step)
    log_path.parent.mkdir(parents=True, exist_ok=True)
    done = total = 0
    last = ""
    with open(log_path, "ab") as log:
        argv = step.argv() + remote_cache_flags()
        log.write(f"$ {redact(shlex.join(argv))}\n".encode())
        log.flush()
        try:
            proc = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.PIPE, env=upstream_env(),
                                    stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        except FileNotFoundError:
            raise UserError(f"{step.bazel}: not found on PATH; expected Bazel (or bazelisk) to "
                            "build the wheels, or use --artifacts DIR") from None
        assert proc.stdout is not None
        for raw in proc.stdout:
            log.write(redact(raw.decode("utf-8", "replace")).encode())
            line = raw.decode("utf-8", "replace").rstrip()
            if line:
                last = line
            m = _PROGRESS.search(line)
            if m:
                done, total = (int(g.replace(",", "")) for g in m.groups())
            if on_progress:
                on_progress(done, total, line)
        code = proc.wait()
        log.write(f"# exit {code}\n".encode())
    if code != 0:
        raise UserError(f"bazel build for the {step.kind} wheel (Python {step.python}) failed with "
                        f"exit {code}: {last[:200]}; full log in {log_path}")


def locate_outputs(step: BazelStep) -> dict[str, Path]:
    """``{file name in the wheel: path of the Bazel output}`` via ``cquery --output=files``."""
    cwd = _workspace(step)
    listed = _capture(step.cquery_argv(), cwd, "cquery").splitlines()
    exec_root = Path(_capture(step.info_argv(), cwd, "info").strip())
    by_name: dict[str, list[str]] = {}
    for line in listed:
        line = line.strip()
        if line:
            by_name.setdefault(Path(line).name, []).append(line)
    found: dict[str, Path] = {}
    for out in step.outputs:
        paths = by_name.get(out.output, [])
        if len(paths) != 1:
            raise UserError(f"bazel cquery for {out.target} listed {len(paths)} files named "
                            f"{out.output}; expected exactly one (wheels.json 'output')")
        path = Path(paths[0])
        path = path if path.is_absolute() else exec_root / path
        if not path.is_file():
            raise UserError(f"{path}: listed by bazel cquery for {out.target} but not built")
        found[out.file] = path
    return found


def locate_wheel(step: Step) -> Path:
    """The one wheel a wheel target built (``cquery --output=files``), named as Bazel named it."""
    cwd = step.cwd()
    listed = [line.strip() for line in _capture(step.cquery_argv(), cwd, "cquery").splitlines()
              if line.strip().endswith(".whl")]
    if len(listed) != 1:
        raise UserError(f"bazel cquery for the {step.kind} wheel (Python {step.python}) listed {len(listed)} "
                        "wheel files; expected exactly one")
    path = Path(listed[0])
    if not path.is_absolute():
        path = Path(_capture(step.info_argv(), cwd, "info").strip()) / path
    if not path.is_file():
        raise UserError(f"{path}: listed by bazel cquery for the {step.kind} wheel but not built")
    return path


def collect(found: dict[str, Path], dest: Path) -> dict[str, Path]:
    """Copy the outputs into ``dest`` (bytes untouched, made 0o755); returns the copies."""
    dest.mkdir(parents=True, exist_ok=True)
    copies = {}
    for name, src in found.items():
        target = dest / name
        part = target.with_name(target.name + ".part")
        shutil.copyfile(src, part)
        os.chmod(part, 0o755)
        os.replace(part, target)
        copies[name] = target
    return copies


def _workspace(step: Step) -> Path:
    return step.cwd()


def check_workspace(workspace: Path, subdir: str = WORKSPACE_SUBDIR, beside: Iterable[str] = OVERRIDES,
                    checkout: str = "plugin") -> Path:
    """The Bazel workspace ``subdir`` of a fetched ``workspace`` (the ``checkout`` Bazel runs in),
    with each pinned checkout of ``beside`` next to it; one line naming what is missing."""
    workspace = Path(workspace).resolve()
    cwd = workspace / subdir
    if not any((cwd / name).is_file() for name in ("WORKSPACE", "MODULE.bazel", "WORKSPACE.bazel")):
        raise UserError(f"{cwd}: not a Bazel workspace (no WORKSPACE or MODULE.bazel); expected "
                        f"the {checkout} checkout from 'release fetch-sources --workspace "
                        f"{workspace}'")
    for name in beside:
        if not (workspace / name).is_dir():
            raise UserError(f"{workspace / name}: missing; expected the pinned {name} checkout "
                            "from 'release fetch-sources'")
    return cwd


def _capture(argv: list[str], cwd: Path, what: str) -> str:
    started = time.monotonic()
    try:
        proc = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, env=upstream_env(),
                              stdin=subprocess.DEVNULL)
    except FileNotFoundError:
        raise UserError(f"{argv[0]}: not found on PATH; expected Bazel") from None
    if proc.returncode != 0:
        tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        raise UserError(f"bazel {what} failed with exit {proc.returncode} after "
                        f"{time.monotonic() - started:.0f}s: {tail[:200]}")
    return proc.stdout
