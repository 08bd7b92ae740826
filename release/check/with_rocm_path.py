"""The install users type on a machine without a system ROCm, proven to resolve for every cell.

jax's ``rocmN`` extra is jaxlib and ``jax-rocmN-plugin[with-rocm]``; the plugin's ``with-rocm``
extra pulls TheRock's ROCm runtime wheels (``rocm[libraries]``: ``_rocm_sdk_core/lib``,
``_rocm_sdk_libraries*/lib`` in site-packages, which the plugin's RUNPATH reaches). Those wheels
are gigabytes, so validate resolves the path without installing it: per (ROCm major, Python)
cell, ``jax[rocmN]==X.Y.Z jaxlib==X.Y.Z jax-rocmN-plugin[with-rocm]==V`` against the draft's
index, the public one and the ROCm runtime's (``resolver.rocm_index_from_args``), with
``pip install --dry-run --ignore-installed --report`` and ``uv pip install --dry-run``; both read
each file's PEP 658 metadata where the index serves it, so no runtime wheel is downloaded.

An extra naming packages the runtime data does not record as TheRock's (the rocm-jax layout's
``amd_*_instinct``) is not resolved and says so, as verify's ``with-rocm`` check. A cell fails, in
one line naming it and the installer, when its line does not resolve (a runtime
wheel no index has, a pin no index serves), when it resolves a plugin that is not the draft's,
when a package the extra names is not in the resolution, or when a ROCm runtime package resolves to
a release of another major (``rocm>=7`` taking ROCm 10 for a rocm7 plugin). Whether what it
installs then loads is verify's ``with-rocm`` check and smoke's ``--with-rocm`` run.

    requirements(7, "0.9.1") -> ["jax[rocm7]==0.9.1", "jaxlib==0.9.1", "jax-rocm7-plugin[with-rocm]==0.9.1"]
    declared(plugin_wheel) -> [Requirement] | None     # None: no with-rocm extra
    check_cell(python, major, version, plugin, ...) -> Record
"""

from __future__ import annotations

import dataclasses
import json
import re
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING, Mapping, Sequence

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

from release.check import resolver, user_install
from release.core import core_metadata, extras, naming, rocm_runtime, rocm_sdk_wheels
from release.core.errors import UserError
from release.core.scan import Headers

if TYPE_CHECKING:
    from release.core.output import Say

EXTRA = extras.WITH_ROCM
INSTALLERS = ("pip", "uv")
DEADLINE = 600.0  # seconds for one metadata-only resolution


def jax_extra(major: int) -> str:
    """jax's extra for users of ROCm ``major`` without a system ROCm (jax's setup.py)."""
    return f"rocm{major}"


def requirements(major: int, version: str) -> list[str]:
    """The user's line: jax of the line with ``rocmN``, jaxlib of the line, and the plugin pinned
    with its ``with-rocm`` extra (named, so the extra is resolved even where the public jax of the
    line has no ``rocmN`` extra yet: pip and uv then install plain jax)."""
    line = Version(version).base_version
    return [f"jax[{jax_extra(major)}]=={line}", f"jaxlib=={line}",
            f"{naming.plugin_dist(major)}[{EXTRA}]=={version}"]


def declared(plugin: Path) -> list[Requirement] | None:
    """The requirements of the plugin wheel's ``with-rocm`` extra (however METADATA spells it);
    None when it declares no such extra or has no readable METADATA."""
    try:
        meta = Headers(core_metadata.read(plugin).decode("utf-8", "replace"))
    except (OSError, UserError):
        return None
    return extras.requirements(meta, EXTRA)


@dataclasses.dataclass
class Record:
    """How one cell's with-rocm line resolved: per installer ``ok``, ``failed`` or ``not tried``,
    the ROCm runtime packages pip resolved (``name==version``), and why it was not tried at all."""

    installers: dict[str, str] = dataclasses.field(default_factory=dict)
    runtime: list[str] = dataclasses.field(default_factory=list)
    reason: str | None = None
    problems: list[str] = dataclasses.field(default_factory=list)
    warnings: list[str] = dataclasses.field(default_factory=list)

    def to_json(self) -> dict:
        return {**self.installers, "runtime": self.runtime, "reason": self.reason}


def resolve_argv(installer: str, python: Path, reqs: Sequence[str], draft_index: str, public: str | None,
                 rocm_index: str | None, uv: str | None = None, report: Path | None = None) -> list[str]:
    """The user's install command made a metadata-only dry run, the ROCm runtime's index added
    after the draft's: uv takes a package from the first index that has it, so the draft's plugin
    is never shadowed by one TheRock's index serves (pip merges them all)."""
    rocm = ["--extra-index-url", rocm_index] if rocm_index else []
    if installer == "pip":
        return [*resolver.pip_argv(python), "install", "--pre", "--dry-run", "--ignore-installed",
                "--no-cache-dir", "--quiet", *(["--report", str(report)] if report else []),
                *resolver.index_args(draft_index, public), *rocm, *reqs]
    argv = user_install.install_argv("uv", python, (), draft_index, public, uv)
    return [*argv[:3], "--dry-run", *argv[3:], *rocm, *reqs]


_UV_LINE = re.compile(r"^\s*\+\s+([A-Za-z0-9._-]+)(?:\[[^\]]*\])?==(\S+)", re.M)


def resolved_by(installer: str, stdout: str, stderr: str, report: Path | None) -> dict[str, str] | None:
    """canonical name -> version of what the dry run would install; None when it said nothing
    readable (pip: its ``--report``; uv: its `` + name==version`` lines)."""
    if installer == "uv":
        found = {str(canonicalize_name(n)): v for n, v in _UV_LINE.findall(stdout + "\n" + stderr)}
        return found or None
    try:
        data = json.loads(report.read_text(encoding="utf-8")) if report else None
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or not isinstance(data.get("install"), list):
        return None
    return {str(canonicalize_name(str(m.get("name", "")))): str(m.get("version")) for item in data["install"]
            if isinstance(item, dict) and isinstance(m := item.get("metadata"), dict)}


def judge(resolved: Mapping[str, str], major: int, version: str, extra: Sequence[Requirement],
          sdk: rocm_sdk_wheels.SdkWheels | None) -> list[str]:
    """What is wrong with a resolution of the cell's with-rocm line (pure)."""
    problems = []
    plugin = canonicalize_name(naming.plugin_dist(major))
    if resolved.get(plugin) != version:
        problems.append(f"it resolves {plugin} {resolved.get(plugin) or 'not at all'}, not the draft's {version}")
    missing = sorted({canonicalize_name(r.name) for r in extra} - set(resolved))
    if missing:
        problems.append(f"the {EXTRA} extra's {', '.join(missing)} not in what it resolves")
    others: dict[int, list[str]] = {}
    for name, got in sorted(resolved.items()):
        other = rocm_runtime.major_of(got) if sdk is not None and sdk.find(name) is not None else None
        if other is not None and other != major:
            others.setdefault(other, []).append(f"{name}=={got}")
    for other, found in sorted(others.items()):
        problems.append(f"the {EXTRA} extra resolves ROCm {other} runtime wheels ({', '.join(found)}) for a "
                        f"rocm{major} plugin")
    return problems


def runtime_of(resolved: Mapping[str, str], extra: Sequence[Requirement],
               sdk: rocm_sdk_wheels.SdkWheels | None) -> list[str]:
    """The ROCm runtime packages of a resolution: those the runtime data knows, else those the
    extra names."""
    named = {canonicalize_name(r.name) for r in extra}
    return [f"{n}=={v}" for n, v in sorted(resolved.items())
            if (sdk.find(n) is not None if sdk is not None else n in named)]


def check_cell(interpreter: str | Path, major: int, version: str, plugin: Path, draft_index: str, public: str | None,
               rocm_index: str | None, work: Path, say: Say,
               installers: Sequence[str] = INSTALLERS) -> Record:
    """The cell's with-rocm line resolved, metadata only, by each installer for a fresh venv of
    ``interpreter`` (nothing is installed there), and judged."""
    extra = declared(plugin)
    if extra is None:
        return Record({i: "n/a" for i in installers}, reason=f"{plugin.name} declares no {EXTRA} extra")
    try:
        sdk = rocm_sdk_wheels.load()
    except UserError as exc:
        sdk = None
        say(f"ROCm runtime wheels unknown ({exc}): no check of their major")
    unknown = sdk.layouts((r.name, r.extras) for r in extra).unknown if sdk is not None else ()
    if unknown:  # as verify's with-rocm check: not TheRock's runtime wheels, nothing to say about them
        return Record({i: "n/a" for i in installers}, reason=f"the {EXTRA} extra names {', '.join(unknown)}, "
                      f"which {rocm_runtime.DATA} does not record as ROCm runtime wheels")
    reqs = requirements(major, version)
    where = "the draft's index and " + ("pip's configured index" if public is resolver.PIP_DEFAULT else public) \
        + (f" and {rocm_index}" if rocm_index else "")
    record = Record()
    work.mkdir(parents=True, exist_ok=True)
    made = subprocess.run([str(interpreter), "-m", "venv", "--without-pip", str(work / "venv")],
                          capture_output=True, text=True)
    if made.returncode != 0:  # resolved as in an empty venv: uv lists only what it would add
        return Record({i: "failed" for i in installers}, problems=[f"{interpreter} -m venv failed"])
    python = work / "venv" / "bin" / "python"
    for installer in installers:
        uv = user_install.find_uv() if installer == "uv" else None
        if installer == "uv" and uv is None:
            record.installers[installer] = "not tried"
            record.warnings.append(f"{EXTRA} path: uv is not installed here: the uv resolution was not tried")
            continue
        report = work / f"with-rocm-{installer}.json" if installer == "pip" else None
        say(f"{installer} install --dry-run {' '.join(reqs)} (the {EXTRA} path, metadata only)")
        argv = resolve_argv(installer, python, reqs, draft_index, public, rocm_index, uv, report)
        try:
            done = subprocess.run(argv, capture_output=True, text=True, timeout=DEADLINE,
                                  env=user_install.installer_env())
        except subprocess.TimeoutExpired:
            problems = [f"did not resolve within {DEADLINE:.0f} s"]
        else:
            resolved = resolved_by(installer, done.stdout, done.stderr, report) if done.returncode == 0 else None
            if resolved is None:
                problems = [f"cannot resolve {' '.join(reqs)} from {where}: "
                            f"{_said(done.stderr) if done.returncode else 'it named nothing it would install'}"]
            else:
                problems = judge(resolved, major, version, extra, sdk)
                if installer == "pip":
                    record.runtime = runtime_of(resolved, extra, sdk)
        record.installers[installer] = "failed" if problems else "ok"
        record.problems += [f"{EXTRA} path, {installer}: {p}" for p in problems]
    return record


def _said(stderr: str) -> str:
    """The line of pip's or uv's output that says why it could not resolve: uv's first reason
    ("Because ..."), else the last error line."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    why = [_CAUSE.sub("", line) for line in lines if _CAUSE.match(line) or line.startswith("Because ")]
    errors = [line for line in lines if line.startswith(("ERROR:", "error:"))]
    return (why[:1] or errors[-1:] or lines[-1:] or ["failed without a message"])[0][:300]


_CAUSE = re.compile(r"^(?:cause:|╰─▶)\s*(?=Because )")
