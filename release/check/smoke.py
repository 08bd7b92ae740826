"""The plugin registers on a ROCm machine: the gate between validate and publish.

Wheels that install can still fail at run time ("Backend 'rocm' is not in the list of known
backends", "rocm_plugin_extension not found": ROCm/TheRock#5369, #3627). ``smoke`` installs the
draft's plugin and pjrt with jax and jaxlib of their line (one resolve, as users install) into
a fresh venv and runs a probe there, for every (ROCm major, Python) cell of the draft, each in a
venv of its own (a line of ROCm 7 and ROCm 10 ships two pairs; a user installs one; ``Verdict``):
``jax.devices()`` must list ROCm devices, and a small jitted computation must match NumPy. jax
loads plugins quietly (a plugin whose ``initialize()`` fails is logged and skipped), so the probe
also says which plugins jax could not load and why (the reason is only in the log record's
exception). A probe that dies (a truncated library's SIGBUS) is named
by its signal, what the signal means and where it died. It needs a GPU, so CI runs it on the ROCm
runners; here it is tested against stand-in jax packages.

The no-GPU gate (``no_gpu``, ``release smoke --no-gpu``) is its mirror on a machine without an AMD
GPU (every laptop and CI runner that installs the plugin by accident, or before its GPU works):
``import jax``, ``jax.devices("cpu")``, ``jax.devices()`` and a jitted computation on the CPU must
work, and the plugin's failure to find a device must be at most one warning, never a crash (users
file "the plugin breaks jax": rocm-jax#143, #360). It runs here, against the real public wheels in
a ``network`` test.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

from release.check import interpreters, resolver, user_install, with_rocm_path
from release.core import cells, naming, versions
from release.core.errors import UserError
from release.core.safe_names import file_name_problem
from release.publish import notes

if TYPE_CHECKING:
    from release.core.output import Say
    from release.publish.stores import Store

FROM_ENV = "from-env"  # public_index default: $RELEASE_PUBLIC_INDEX, else pip's own index

TIMEOUT = 900.0  # seconds for the install, and again for the probe (a first jit compiles)

# Runs in the fresh venv. Prints one JSON object: devices, what the jitted function gave and what
# NumPy gives (plain Python when NumPy is missing, which the real jax never allows), errors, the
# step an error came from and JAX_PLATFORMS. jax logs a plugin whose initialize() raised with the
# reason only in the record's exception, so the log keeps the exception's text too. Each step is
# said on stderr first, and faulthandler dumps the stack on a fatal signal: a probe that dies (a
# truncated library's SIGBUS) leaves where it was.
_KEEP_LOG = r"""
import faulthandler, json, logging, os, sys
faulthandler.enable()
log = []
class Keep(logging.Handler):
    def emit(self, record):
        if record.levelno >= logging.WARNING:
            said = record.getMessage()
            exc = record.exc_info[1] if record.exc_info else None
            if exc is not None:
                said += f": {type(exc).__name__}: {exc}"
            log.append(said)
logging.getLogger().addHandler(Keep())
"""
PROBE = _KEEP_LOG + r"""
out = {"devices": [], "error": None, "log": log, "step": "import jax",
       "jax_platforms": os.environ.get("JAX_PLATFORMS")}
def step(name):
    out["step"] = name
    print(f"probe: {name}", file=sys.stderr, flush=True)
try:
    step("import jax")
    import jax
    import jax.numpy as jnp
    step("jax.devices()")
    devices = jax.devices()
    out["devices"] = [{"name": str(d), "repr": repr(d), "platform": str(getattr(d, "platform", "")),
                       "version": str(getattr(getattr(d, "client", None), "platform_version", ""))}
                      for d in devices]
    step("the jitted a * b + a")
    xs = [float(i) for i in range(8)]
    ys = [float(8 - i) for i in range(8)]
    f = jax.jit(lambda a, b: a * b + a)
    out["jit"] = [float(v) for v in jnp.asarray(f(jnp.asarray(xs), jnp.asarray(ys))).tolist()]
    try:
        import numpy as np
        out["reference"] = [float(v) for v in (np.asarray(xs) * np.asarray(ys) + np.asarray(xs)).tolist()]
        out["reference_by"] = "numpy"
    except ImportError:
        out["reference"] = [a * b + a for a, b in zip(xs, ys)]
        out["reference_by"] = "python"
except Exception as exc:
    out["error"] = f"{type(exc).__name__}: {exc}"
print(json.dumps(out))
"""

# The no-GPU gate's probe (``--no-gpu``): on a machine without an AMD GPU the plugin must leave
# jax working on the CPU. Python warnings are kept beside the log records: a plugin may say so either way.
NO_GPU_PROBE = _KEEP_LOG + r"""
import warnings
warnings.simplefilter("always")
warnings.showwarning = lambda message, category, *rest: log.append(f"{category.__name__}: {message}")
out = {"cpu": [], "devices": [], "errors": {}, "log": log}
def step(name):
    out["step"] = name
    print(f"probe: {name}", file=sys.stderr, flush=True)
def attempt(name, run):
    step(name)
    try:
        return run()
    except Exception as exc:
        out["errors"][name] = f"{type(exc).__name__}: {exc}"
jax = attempt("import jax", lambda: __import__("jax"))
if jax is not None:
    describe = lambda ds: [{"name": str(d), "repr": repr(d), "platform": str(getattr(d, "platform", ""))} for d in ds]
    out["cpu"] = attempt('jax.devices("cpu")', lambda: describe(jax.devices("cpu"))) or []
    out["devices"] = attempt("jax.devices()", lambda: describe(jax.devices())) or []
    xs, ys = [float(i) for i in range(8)], [float(8 - i) for i in range(8)]
    def jitted():  # on the default device: with no GPU, the CPU
        import jax.numpy as jnp
        f = jax.jit(lambda a, b: a * b + a)
        return [float(v) for v in jnp.asarray(f(jnp.asarray(xs), jnp.asarray(ys))).tolist()]
    out["jit"] = attempt("the jitted a * b + a", jitted)
    out["reference"] = [a * b + a for a, b in zip(xs, ys)]
print(json.dumps(out))
"""

# What the plugin may say on a machine without its GPU: one warning, as any absent backend.
_PLUGIN_WORDS = re.compile(r"rocm|\bhip|amdgpu|plugin|gpu", re.I)
# jax's own notices of another vendor's hardware (xla_bridge's _suggest_missing_backends), which it
# logs after any plugin failed, about the NVIDIA GPU or TPU it saw: not the plugin speaking. Seen on
# an NVIDIA machine with its GPU hidden, beside the real plugin's one warning (scripts/device-probe).
_OTHER_HARDWARE = re.compile(r"^(An NVIDIA GPU may be present on this machine|A Google TPU may be "
                             r"present on this machine|CUDA backend failed to initialize)")


def judge_no_gpu(python: str, seen: dict[str, Any]) -> Smoke:
    """The no-GPU gate's verdict: ``import jax``, ``jax.devices("cpu")``, ``jax.devices()`` and a
    jitted computation on the CPU all work, and what the plugin said about the GPU it did not find
    is at most one warning (pure, like ``judge``)."""
    cpu = [d for d in seen.get("cpu") or [] if isinstance(d, dict)]
    devices = [d for d in seen.get("devices") or [] if isinstance(d, dict)]
    result = Smoke(python, devices=[str(d.get("name", "?"))[:100] for d in devices],
                   log=[str(line)[:600] for line in seen.get("log") or []][:20])
    result.rocm_devices = [str(d.get("name", "?"))[:100] for d in devices if is_rocm(d)]
    errors = seen.get("errors")
    errors = errors if isinstance(errors, dict) else {}
    for step, error in errors.items():
        result.problems.append(f"{str(step)[:60]} failed without a GPU: {str(error)[:400]}")
    if not cpu and not errors:
        result.problems.append('jax.devices("cpu") lists no device')
    got, want = seen.get("jit"), seen.get("reference")
    result.jit_matches = isinstance(got, list) and isinstance(want, list) and len(got) == len(want) and all(
        isinstance(a, (int, float)) and abs(a - b) <= 1e-5 * max(1.0, abs(b)) for a, b in zip(got, want))
    if not result.jit_matches and got is not None:
        result.problems.append(f"the jitted a * b + a gave {str(got)[:200]} without a GPU; expected {want!r}")
    said = [line for line in result.log if _PLUGIN_WORDS.search(line) and not _OTHER_HARDWARE.match(line)]
    result.warnings += [f"jax noticed other hardware (not the plugin): {line[:300]}"
                        for line in result.log if _OTHER_HARDWARE.match(line)][:1]
    if len(said) > 1:
        result.problems.append(f"without a GPU the plugin said {len(said)} warnings, expected at most one: "
                               + "; ".join(line[:200] for line in said[:3]))
    elif said:
        result.warnings.append(f"without a GPU jax said (as expected): {said[0][:300]}")
    if result.rocm_devices:
        result.warnings.append(f"this machine has ROCm devices ({', '.join(result.rocm_devices)}): the "
                               "no-GPU gate says nothing about a machine without one here")
    return result


# What a signal that kills the probe most likely means, for the engineer reading the verdict.
SIGNALS = {
    "SIGBUS": "a bus error: a mapped file could not be read, as a truncated or half-written shared "
              "library (the PJRT plugin's .so or a ROCm library it loads)",
    "SIGSEGV": "a segmentation fault in native code (the PJRT plugin or a ROCm library it loads)",
    "SIGABRT": "native code aborted (a failed assertion or an uncaught C++ exception)",
    "SIGILL": "an illegal instruction: native code built for another CPU",
    "SIGKILL": "killed from outside, as by the out-of-memory killer",
    "SIGFPE": "an arithmetic fault in native code",
}

_FRAME = re.compile(r'File "([^"]+)", line \d+ in (\S+)')


def _died(returncode: int, stderr: str) -> str:
    """Why a probe that printed no answer ended: the signal that killed it and what it means,
    the step it was at and the innermost Python frame faulthandler dumped; else its exit
    status and the last line it wrote."""
    lines = stderr.strip().splitlines()
    steps = [line[len("probe: "):] for line in lines if line.startswith("probe: ")]
    at = f" during {steps[-1]}" if steps else ""
    if returncode < 0:
        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            name = f"signal {-returncode}"
        meaning = SIGNALS.get(name, "a fatal signal")
        # faulthandler lists the innermost call first; the installed packages' frames say where
        # (the standard library's ctypes says nothing), and a plugin's own frame says which one.
        frames = [(path.split("site-packages/", 1)[1][-120:], func)
                  for path, func in _FRAME.findall(stderr) if "site-packages/" in path]
        where = f", in {frames[0][1]} ({frames[0][0]})" if frames else ""
        plugin = next((f for f in frames if f[0].startswith("jax_plugins/")), None)
        if plugin is not None and plugin != frames[0]:
            where += f" called from {plugin[1]} ({plugin[0]})"
        return f"the probe was killed by {name}{at}{where}: {meaning}"
    tail = next((line for line in reversed(lines) if not line.startswith("probe: ")), "no output")
    return f"the probe exited {returncode}{at} without its answer: {tail[:300]}"


@dataclasses.dataclass
class Smoke:
    """What the probe saw; ``ok`` when ROCm devices are listed and the jit matched."""

    python: str
    devices: list[str] = dataclasses.field(default_factory=list)
    rocm_devices: list[str] = dataclasses.field(default_factory=list)
    jit_matches: bool = False
    problems: list[str] = dataclasses.field(default_factory=list)
    log: list[str] = dataclasses.field(default_factory=list)
    warnings: list[str] = dataclasses.field(default_factory=list)  # said, never failing the gate
    rocm_major: int | None = None  # the cell's major (None: a verdict of before cells, the line's only one)

    @property
    def ok(self) -> bool:
        return not self.problems

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self) | {"ok": self.ok}

    @property
    def label(self) -> str:
        return cells.label((self.rocm_major, self.python)) if self.rocm_major is not None else f"Python {self.python}"

    def markdown(self, version: str) -> str:
        """The section the draft's notes get: the gate's verdict, for people and the page."""
        ran = bool(self.devices or self.problems or not self.warnings)
        head = (f"**ROCm smoke test** ({version}, {self.label}): "
                + ("FAILED" if not self.ok else "passed" if ran else "not run"))
        lines = [head, ""]
        if ran:
            lines += [f"- `jax.devices()`: {', '.join(self.devices) or 'none'}",
                      f"- jitted `a * b + a` matches NumPy: {'yes' if self.jit_matches else 'no'}"]
        lines += [f"- {p}" for p in self.problems] + [f"- warning: {w}" for w in self.warnings]
        return "\n".join(lines)


@dataclasses.dataclass
class Verdict:
    """The gate over every (ROCm major, Python) cell it ran: it passes only when every cell
    passed (a cell with no interpreter here is a warning, "not run")."""

    cells: list[Smoke]

    @property
    def ok(self) -> bool:
        return bool(self.cells) and all(c.ok for c in self.cells)

    @property
    def problems(self) -> list[str]:
        return [f"{c.label}: {p}" for c in self.cells for p in c.problems]

    @property
    def warnings(self) -> list[str]:
        return [f"{c.label}: {w}" for c in self.cells for w in c.warnings]

    @property
    def rocm_devices(self) -> list[str]:
        return list(dict.fromkeys(d for c in self.cells for d in c.rocm_devices))

    def to_json(self) -> dict[str, Any]:
        return {"ok": self.ok, "cells": [c.to_json() for c in self.cells], "problems": self.problems,
                "warnings": self.warnings, "rocm_devices": self.rocm_devices,
                "devices": list(dict.fromkeys(d for c in self.cells for d in c.devices)),
                "jit_matches": bool(self.cells) and all(c.jit_matches for c in self.cells)}

    def markdown(self, version: str) -> str:
        """One head line for the whole gate (what undraft reads), then each cell's section
        (what the matrix reads per cell)."""
        ran = [c for c in self.cells if c.devices or c.problems or not c.warnings]
        head = (f"**ROCm smoke test** ({version}): " + ("FAILED" if not self.ok else "passed" if ran else "not run")
                + f", {len(ran)} of {len(self.cells)} cells run")
        return "\n\n".join([head, *(c.markdown(version) for c in self.cells)])


def is_rocm(device: dict[str, Any]) -> bool:
    """A device of jax's ROCm backend: ``rocm`` in its platform, name or repr (``rocm:0``,
    ``RocmDevice(id=0)``), or a ``gpu`` device whose client's platform version names ROCm."""
    said = " ".join(str(device.get(k, "")) for k in ("platform", "name", "repr")).lower()
    return "rocm" in said or (str(device.get("platform")) == "gpu"
                              and "rocm" in str(device.get("version", "")).lower())


def plugin_errors(log: Sequence[str]) -> list[str]:
    """What jax logged about the plugins it could not load (its "Jax plugin configuration
    error" records, the exception's text kept), else the first warning, if any."""
    said = [line for line in log if "plugin" in line.lower()]
    return said[:2] or list(log[:1])


def judge(python: str, seen: dict[str, Any]) -> Smoke:
    """The verdict from the probe's JSON (pure, so every answer a probe can give is testable)."""
    devices = [d for d in seen.get("devices") or [] if isinstance(d, dict)]
    result = Smoke(python, devices=[str(d.get("name", "?"))[:100] for d in devices],
                   log=[str(line)[:600] for line in seen.get("log") or []][:20])
    result.rocm_devices = [str(d.get("name", "?"))[:100] for d in devices if is_rocm(d)]
    logged = plugin_errors(result.log)
    said = f" (jax logged: {'; '.join(logged)})" if logged else ""
    if seen.get("error"):
        error = str(seen["error"])[:400]
        platforms = seen.get("jax_platforms")
        if seen.get("step") == "jax.devices()":
            given = f" with JAX_PLATFORMS={str(platforms)[:40]} set" if platforms else ""
            result.problems.append(f"jax.devices() failed{given}: {error}{said}")
        else:
            at = f" at {seen['step']}" if isinstance(seen.get("step"), str) and seen["step"] else ""
            result.problems.append(f"the probe failed{at}: {error}")
    if not result.rocm_devices and (result.devices or not seen.get("error")):
        result.problems.append(f"jax.devices() lists no ROCm device: "
                               f"{', '.join(result.devices) or 'nothing'}{said}")
    got, want = seen.get("jit"), seen.get("reference")
    if isinstance(got, list) and isinstance(want, list) and len(got) == len(want) and all(
            isinstance(a, (int, float)) and isinstance(b, (int, float)) and abs(a - b) <= 1e-5 * max(1.0, abs(b))
            for a, b in zip(got, want)):
        result.jit_matches = True
    elif not seen.get("error"):
        result.problems.append(f"the jitted a * b + a gave {got!r}; {seen.get('reference_by', 'numpy')} "
                               f"gives {want!r}")
    return result


def run_smoke(wheels: Sequence[Path], interp: interpreters.Interpreter, public_index: str | None,
              work: Path, say: Say, probe: str = PROBE, *, no_gpu: bool = False, major: int | None = None,
              with_rocm: bool = False, rocm_index: str | None = None) -> Smoke:
    """Install the draft's pair of ROCm ``major`` (default: the first major with a plugin for
    ``interp``'s Python) for ``interp``'s Python with jax and jaxlib of the line into a fresh venv
    under ``work``, then run ``probe`` there (``no_gpu``: the no-GPU gate's probe and verdict,
    ``NO_GPU_PROBE`` and ``judge_no_gpu``). ``with_rocm``: as users without a system ROCm install
    (``jax[rocmN]``, the plugin's ``with-rocm`` extra: TheRock's runtime wheels, from ``rocm_index``
    beside the public index), instead of ``jax[rocmN-local]``."""
    if no_gpu and probe == PROBE:
        probe = NO_GPU_PROBE
    plugins = [w for w in wheels if (i := naming.Identity.of(w)).kind == "plugin"
               and interp.version in i.pythons and major in (None, i.rocm_major)]
    major = naming.Identity.of(plugins[0]).rocm_major if plugins else major
    pjrt = [w for w in wheels if (i := naming.Identity.of(w)).kind == "pjrt" and i.rocm_major == major]
    if not plugins or len(pjrt) != 1:
        of = f" of ROCm {major}" if major is not None else ""
        return Smoke(interp.version, problems=[f"no plugin wheel for Python {interp.version} and "
                                               f"one pjrt wheel{of} among the wheels given"], rocm_major=major)
    ident = naming.Identity.of(plugins[0])
    version = ident.version
    assert major is not None and version is not None  # a plugin's kind implies them
    reqs = (with_rocm_path.requirements if with_rocm else user_install.requirements)(major, version)
    extra = ["--extra-index-url", rocm_index] if with_rocm and rocm_index else []
    result = dataclasses.replace(_install_and_probe(plugins[0], pjrt[0], reqs, extra, version, interp, public_index,
                                                    work, say, probe, no_gpu), rocm_major=major)
    missing = sorted({m for p in result.problems for m in _NOT_FOUND.findall(p)})
    if missing and not with_rocm and not no_gpu:  # the machine's ROCm lacks it: say what users without one install
        result.warnings.append(f"{', '.join(missing)} is not on this machine: users without a system ROCm "
                               f"install jax[{with_rocm_path.jax_extra(major)}] (the plugin's with-rocm extra, "
                               "TheRock's runtime wheels); `release smoke --with-rocm` tries that")
    return result


_NOT_FOUND = re.compile(r"([\w.+-]+\.so(?:\.\d+)*): cannot open shared object file")


def _install_and_probe(plugin: Path, pjrt: Path, reqs: list[str], extra_index: list[str], version: str,
                       interp: interpreters.Interpreter, public_index: str | None, work: Path, say: Say,
                       probe: str, no_gpu: bool) -> Smoke:
    env_dir = work / "smoke-venv"
    made = subprocess.run([interp.path, "-m", "venv", "--without-pip", str(env_dir)],
                          capture_output=True, text=True)
    if made.returncode != 0:
        return Smoke(interp.version, problems=[f"{interp.path} -m venv failed"])
    python = env_dir / "bin" / "python"
    with resolver.staged_index([plugin, pjrt], work / "index") as draft_index:
        say(f"smoke: pip install {' '.join(reqs)}")
        argv = user_install.install_argv("pip", python, reqs, draft_index, public_index)
        argv[-len(reqs):-len(reqs)] = extra_index
        try:
            done = subprocess.run(argv, capture_output=True, text=True, timeout=TIMEOUT,
                                  env=dict(os.environ, PIP_DISABLE_PIP_VERSION_CHECK="1"))
        except subprocess.TimeoutExpired:
            return Smoke(interp.version, problems=[f"the install did not finish within {TIMEOUT:.0f} s"])
    if done.returncode != 0:
        line, kind = user_install.line_of(version), versions.kind_of(version)
        if kind in ("nightly", "rc") and user_install.missing_line(done.stderr, line):
            # as validate: users cannot install it with jax either until jax releases the line
            return Smoke(interp.version, warnings=[f"jax {line} is not on the public index yet, so this "
                                                   f"{kind} could not be installed with jax to smoke-test it"])
        return Smoke(interp.version, problems=[f"pip cannot install {' '.join(reqs)}: "
                                               f"{resolver.pip_error_line(done.stderr)}"])
    say("smoke: " + ('jax.devices("cpu"), jax.devices() and a jitted computation, without a GPU' if no_gpu
                     else "jax.devices() and a jitted computation"))
    try:
        ran = subprocess.run([str(python), "-c", probe], capture_output=True, text=True, timeout=TIMEOUT,
                             cwd=work)
    except subprocess.TimeoutExpired:
        return Smoke(interp.version, problems=[f"the probe did not finish within {TIMEOUT:.0f} s"])
    try:
        seen = json.loads(ran.stdout.strip().splitlines()[-1])
        if not isinstance(seen, dict):
            raise ValueError("not an object")
    except (ValueError, IndexError):
        return Smoke(interp.version, problems=[_died(ran.returncode, ran.stderr)])
    return (judge_no_gpu if no_gpu else judge)(interp.version, seen)


def run_cells(wheels: Sequence[Path], public_index: str | None, work: Path, say: Say, *,
              python: str | None = None, no_gpu: bool = False, with_rocm: bool = False,
              rocm_index: str | None = None) -> Verdict:
    """The gate over every (ROCm major, Python) cell of ``wheels``, each in a venv of its own:
    ``python`` (its Python must be one the wheels carry) runs its Python's cells only; else every
    cell whose Python has an interpreter here runs, and the others are "not run" (a warning).
    ``UserError`` when no cell can run here."""
    held = cells.of_wheels(wheels)
    carried = sorted({py for _, py in held}, key=lambda v: int(v.split(".")[1]))
    found: dict[str, interpreters.Interpreter | None]
    if python is not None:
        [interp] = interpreters.given([python])
        if interp.version not in carried:
            raise UserError(f"--python {python} is Python {interp.version}; the wheels carry "
                            f"{', '.join(carried) or 'no plugin wheel'}")
        found = {interp.version: interp}
    else:
        found = {py: interpreters.find(py) for py in carried}
    if not any(found.values()):
        raise UserError(f"no interpreter here for any Python the wheels carry "
                        f"({', '.join(carried) or 'no plugin wheel'}); pass --python PATH")
    results = []
    for major, py in (cell for cell in held if cell[1] in found):
        here = found[py]
        if here is None:
            results.append(Smoke(py, warnings=[f"no Python {py} interpreter here: not run"], rocm_major=major))
            continue
        say(f"smoke: {cells.label((major, py))}")
        cell_work = work / f"rocm{major}-py{py}"
        cell_work.mkdir(parents=True, exist_ok=True)
        results.append(run_smoke(wheels, here, public_index, cell_work, say, no_gpu=no_gpu, major=major,
                                 with_rocm=with_rocm, rocm_index=rocm_index))
    return Verdict(results)


def record(store: Store, tag: str, result: Smoke | Verdict) -> bool:
    """Put the verdict into the notes of the draft of ``tag``; False when there is no draft."""
    drafts = store.our_drafts(tag)
    if not drafts:
        return False
    version = naming.version_of_tag(tag, flag="TAG")
    store.update_release(drafts[0], body=notes.changed(drafts[0], smoke=result.markdown(version)))
    return True


def from_json(data: object) -> Smoke | Verdict:
    """A verdict written by ``release smoke --json`` on the ROCm runner: every cell's
    (``Verdict``), or one Python's as written before cells (``UserError`` when it is neither)."""
    if isinstance(data, dict) and isinstance(data.get("cells"), list) and data["cells"]:
        return Verdict([_cell_from_json(c) for c in data["cells"]])
    return _cell_from_json(data)


def _cell_from_json(data: object) -> Smoke:
    fields = {f.name for f in dataclasses.fields(Smoke)} - {"warnings", "rocm_major"}  # older verdicts lack them
    if not isinstance(data, dict) or not fields <= set(data) or not isinstance(data["python"], str) or not all(
            isinstance(data[k], list) and all(isinstance(x, str) for x in data[k])
            for k in ("devices", "rocm_devices", "problems", "log")) or not (
            isinstance(data.get("warnings", []), list) and all(isinstance(x, str) for x in data.get("warnings", []))):
        raise UserError("not a verdict of `release smoke --json` (expected python, devices, "
                        "rocm_devices, jit_matches, problems, log)")
    major = data.get("rocm_major")
    major = major if isinstance(major, int) and not isinstance(major, bool) else None
    return Smoke(data["python"], list(data["devices"]), list(data["rocm_devices"]),
                 data["jit_matches"] is True, list(data["problems"]), list(data["log"]),
                 list(data.get("warnings", [])), major)


def smoke_draft(store: Store, tag: str, *, public_index: str | None = FROM_ENV,
                python: str | None = None, say: Say = lambda _: None, no_gpu: bool = False,
                with_rocm: bool = False, rocm_index: str | None = None) -> Verdict:
    """The gate over the draft (or published release) of ``tag``: its wheels downloaded, every
    cell smoke-tested (``run_cells``), the verdict recorded in the draft's notes (the ROCm gate's only: ``no_gpu``
    records nothing)."""
    from release.check.validate import find_target
    if public_index == FROM_ENV:
        public_index = resolver.public_index_default()
    release, _ = find_target(store, tag)
    work = Path(tempfile.mkdtemp(prefix="release-smoke-"))
    try:
        wheels = [store.download_asset(release, a, work / a.name) for a in store.list_assets(release)
                  if a.name.endswith(".whl") and file_name_problem(a.name) is None]
        result = run_cells(wheels, public_index, work, say, python=python, no_gpu=no_gpu, with_rocm=with_rocm,
                           rocm_index=rocm_index)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if release.draft and not no_gpu:
        record(store, tag, result)
    return result


def read_verdict(path: Path) -> Smoke | Verdict:
    """The verdict file ``release smoke DIR --json`` wrote on the ROCm runner (``--record``);
    ``UserError`` naming the file when it is missing, unreadable or not a verdict."""
    from release.core import regular
    try:
        data = json.loads(regular.read_text(path))
    except FileNotFoundError:
        raise UserError(f"--record {path}: no such file; expected the verdict "
                        "`release smoke DIR --json` wrote on the ROCm runner") from None
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise UserError(f"{path}: not readable JSON ({exc})") from None
    return from_json(data)
