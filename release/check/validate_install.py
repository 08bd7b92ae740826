"""validate's install step: every (ROCm major, Python) cell of the draft, each in fresh venvs.

A draft of a line that builds ROCm 7 and ROCm 10 holds two pairs (``jax-rocm7-plugin`` with
``jax-rocm7-pjrt``, ``jax-rocm10-plugin`` with ``jax-rocm10-pjrt``), each with a plugin wheel
per Python; a user of one major never installs the other's, so each cell is installed on its
own: the line's install lines of that major's plugin (``resolver.line_requirements``) against
the draft's index merged with the public one, then both packages' ``__version__`` and
``commit_info`` imported, then the install as users install (``release.check.user_install``:
jax with the extra jax documents for that major, jaxlib, the plugin pinned; pip and uv), then the
line of users without a system ROCm resolved, metadata only (``release.check.with_rocm_path``). Results
are keyed by the cell, never by Python alone (one major's verdict would overwrite the other's).
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from packaging.utils import canonicalize_name
from packaging.version import Version

from release.check import interpreters, resolver, user_install, with_rocm_path
from release.core import cells, naming
from release.core.checksums import sha256_file

if TYPE_CHECKING:
    from release.check.validation import Validation
    from release.core.cells import Cell
    from release.core.output import Say
    from release.core.revisions import RevisionMap

# Runs inside the fresh venv: load version.py and commit_info.py of an installed package by
# path, so the package's __init__ (which may import jax) does not run.
_PROBE = r"""
import importlib.util, json, sys, sysconfig
from pathlib import Path
out = {}
for key, package in json.loads(sys.argv[1]).items():
    found = {}
    for lib in {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}:
        base = Path(lib, package)
        if base.is_dir():
            for name in ("version", "commit_info"):
                spec = importlib.util.spec_from_file_location(f"_probe_{key}_{name}", base / f"{name}.py")
                module = importlib.util.module_from_spec(spec)
                spec.loader.exec_module(module)
                found[name] = module
    out[key] = {"installed": bool(found),
                "version": getattr(found.get("version"), "__version__", None),
                "commits": getattr(found.get("commit_info"), "commits", None)}
print(json.dumps(out))
"""


@dataclasses.dataclass(frozen=True)
class InstallOptions:
    """How the install step finds interpreters and which public index it resolves against."""

    interpreters: tuple[interpreters.Interpreter, ...] = ()  # given with --python
    public_index: str | None = resolver.PIP_DEFAULT  # a URL, "none", or pip's own index
    require_all_pythons: bool = False
    search_path: str | None = None  # where python3.X is looked for (default $PATH)
    rocm_index: str | None = None  # where TheRock's runtime wheels come from, beside the public index


def carried_cells(wheels: Sequence[Path]) -> dict[Cell, tuple[Path, Path]]:
    """(major, ``"3.X"``) -> (its plugin wheel, its major's pjrt wheel), for every cell the
    draft holds a plugin wheel and a PJRT wheel of (``step_check_files`` reported the rest)."""
    by_name = {w.name: w for w in wheels}
    return {cell: (by_name[plugin], by_name[pjrt]) for cell, (plugin, pjrt) in cells.of_wheels(by_name).items()
            if pjrt is not None}


def step_install(wheels: list[Path], version: str, revisions: RevisionMap | None, work: Path,
                 result: Validation, say: Say, options: InstallOptions = InstallOptions()) -> None:
    """Resolve, install and import every cell the draft carries, as users do, each cell in
    venvs of its own; a Python with no interpreter here leaves its cells untested."""
    carried = carried_cells(wheels)
    pythons = sorted({py for _, py in carried}, key=lambda p: int(p.split(".")[1]))
    for interp in options.interpreters:
        if interp.version not in pythons:
            result.problems.append(f"--python {interp.path} is Python {interp.version}; the draft "
                                   f"carries plugin wheels for {', '.join(pythons)} only")
    public = options.public_index
    label = ("pip's configured index" if public is resolver.PIP_DEFAULT else
             "nowhere else" if public == resolver.NO_PUBLIC_INDEX else public)
    picked: list[resolver.Pick] = []  # what pip took from the public index, every cell
    found_for: dict[str, interpreters.Interpreter | None] = {}
    with resolver.staged_index(wheels, work / "index") as draft_index:
        indexes = resolver.index_args(draft_index, public)
        for major in sorted({m for m, _ in carried}):
            # WHICH version must win: the line pinned always; unpinned only for the newest line, where the
            # public page does not already settle it (resolver.unpinned_settled).
            newer = resolver.newer_line(version, (naming.plugin_dist(major), naming.pjrt_dist(major)), public)
            requirements = resolver.line_requirements(naming.plugin_dist(major), version, newer, public)
            if newer is not None:
                say(f"ROCm {major}: line {Version(version).base_version} is a maintenance line ({label} "
                    f"has line {newer}): resolved with the line pinned only")
            elif len(requirements) > 1 and resolver.unpinned_settled(requirements[1], version, public):
                requirements = requirements[:1]  # pip's unpinned run could only repeat the pinned one
                say(f"ROCm {major}: {label} lists nothing of {naming.plugin_dist(major)} above line "
                    f"{Version(version).base_version}: the unpinned line can only take what the pinned one "
                    f"takes (not run)")
            for cell in [c for c in carried if c[0] == major]:
                py = cell[1]
                if py not in found_for:
                    found_for[py] = interpreters.find(py, explicit=options.interpreters,
                                                      search_path=options.search_path)
                found = found_for[py]
                if found is None:
                    result.cells[cell] = {"tested": False, "interpreter": None,
                                          "reason": f"no Python {py} interpreter found (--python, "
                                                    f"python{py} on PATH, pyenv, uv)"}
                    continue
                result.cells[cell] = {"tested": False, "interpreter": found.path}
                plugin, pjrt = carried[cell]
                cell_work = work / f"rocm{major}-py{py}"
                wanted: dict[str, tuple[str, str]] = {
                    canonicalize_name(naming.plugin_dist(major)): (version, sha256_file(plugin)),
                    canonicalize_name(naming.pjrt_dist(major)): (version, sha256_file(pjrt))}
                problems = _install_one(found, requirements, wanted, draft_index, indexes, label, cell_work, say)
                if not problems:
                    problems = step_import(cell_work / "venv" / "bin" / "python", major, version, revisions)
                if not problems and public != resolver.NO_PUBLIC_INDEX:
                    problems = step_as_users(found, cell, version, plugin, pjrt, draft_index, public,
                                             cell_work, result, say, picked)
                if not problems and public != resolver.NO_PUBLIC_INDEX:
                    problems = step_with_rocm(found.path, cell, version, plugin,
                                              draft_index, public, options.rocm_index, cell_work, result, say)
                result.problems.extend(f"{cells.label(cell)}: {p}" for p in problems)
                result.cells[cell]["tested"] = not problems
    untested = [f"{cells.label(c)} ({result.cells[c]['reason']})" for c in result.untested_cells
                if result.cells[c].get("reason")]
    if untested:
        line = "untested cells: " + "; ".join(untested)
        if options.require_all_pythons:
            result.problems.append(line + "; every Python must be tested (--require-all-pythons)")
        else:
            result.warnings.append(line)
    if picked:
        record_public_files(picked, public, result, say)
    if any(info.get("tested") for info in result.cells.values()):
        result.checked.extend(["resolve", "install", "import"])
    if any(info.get("as_users") for info in result.cells.values()):
        result.checked.append("as-users")
    if any("ok" in (info.get("with_rocm") or {}).values() for info in result.cells.values()):
        result.checked.append("with-rocm-resolves")


def step_with_rocm(interpreter: str, cell: Cell, version: str, plugin: Path, draft_index: str, public: str | None,
                   rocm_index: str | None, work: Path, result: Validation, say: Say) -> list[str]:
    """The line users without a system ROCm type (``jax[rocmN]``, the plugin's ``with-rocm`` extra),
    resolved from metadata alone with pip and uv (``release.check.with_rocm_path``) and kept in the
    cell's ``with_rocm``; its problems."""
    record = with_rocm_path.check_cell(interpreter, cell[0], version, plugin, draft_index, public, rocm_index,
                                       work / "with-rocm", say)
    result.cells[cell]["with_rocm"] = record.to_json()
    if record.reason:
        say(f"{cells.label(cell)}: the {with_rocm_path.EXTRA} path is not resolved: {record.reason}")
    result.warnings.extend(f"{cells.label(cell)}: {w}" for w in record.warnings)
    return record.problems


def step_as_users(interp: interpreters.Interpreter, cell: Cell, version: str, plugin: Path, pjrt: Path,
                  draft_index: str, public: str | None, work: Path, result: Validation, say: Say,
                  picked: list[resolver.Pick] | None = None) -> list[str]:
    """jax (with the extra jax documents for the cell's major), jaxlib and the cell's pair in one
    resolve, with pip and uv (``user_install``); its problems, while its warnings (a jax line not
    yet public, no uv here) are said. What pip took from the public index is added to ``picked``."""
    major, py = cell
    draft: dict[str, tuple[str, Path]] = {canonicalize_name(naming.plugin_dist(major)): (version, plugin),
             canonicalize_name(naming.pjrt_dist(major)): (version, pjrt)}
    outcomes = user_install.install_as_users(interp.path, py, major, version, draft, draft_index, public,
                                             work, say)
    if picked is not None and not any(o.problems for o in outcomes):
        picked += [p for o in outcomes for p in o.public]
    info = result.cells[cell]
    info["as_users"] = {o.installer: "ok" if o.tested else "failed" if o.problems else "not tried"
                        for o in outcomes}
    for outcome in outcomes:
        if outcome.report is not None:
            result.reports[cell] = outcome.report
            info["jax_extra"] = user_install.extra_provided(outcome.report, user_install.user_extra(major))
    if "jax_extra" in info and info["jax_extra"] is None:
        say(f"{cells.label(cell)}: jax {user_install.line_of(version)} on the public index has no "
            f"[{user_install.user_extra(major)}] extra: installed beside jaxlib and the plugin, all pinned")
    result.warnings.extend(f"{cells.label(cell)}, {o.installer}: {w}" for o in outcomes for w in o.warnings)
    return [f"{o.installer}: {p}" for o in outcomes for p in o.problems]


def record_public_files(picked: list[resolver.Pick], public: str | None, result: Validation, say: Say) -> None:
    """The public index's files of ``picked`` (every cell's) as that index names them
    (``public_set``), kept in ``result`` for the notes; a file it cannot describe is a warning and
    left out."""
    from release.check import public_set
    index = public if public is not resolver.PIP_DEFAULT else resolver.pip_configured_index()
    if index is None:
        result.warnings.append("no public index to describe the set's public files by: none recorded")
        return
    say(f"describe {len({p.url for p in picked})} public files of the set from {index}")
    result.public_files, warnings = public_set.describe(picked, index)
    result.warnings.extend(warnings)
    result.checked.append("public-files")


def _install_one(interp: interpreters.Interpreter, requirements: list[str],
                 wanted: dict[str, tuple[str, str]], draft_index: str, indexes: list[str],
                 label: str, work: Path, say: Say) -> list[str]:
    """A fresh venv of ``interp``; the first install line (the line pinned, as its users
    install) installed for real, the others resolved as a dry run, each resolved once and its
    report checked. pip reports before it installs, so a run that fails is "cannot resolve"
    without a report and "failed to install" with one."""
    work.mkdir(parents=True)
    env_dir = work / "venv"
    say(f"Python {interp.version}: fresh venv with {interp.path}")
    made = subprocess.run([interp.path, "-m", "venv", "--without-pip", str(env_dir)],
                          capture_output=True, text=True)
    if made.returncode != 0:
        return [f"{interp.path} -m venv failed: "
                f"{(made.stderr.strip().splitlines() or ['?'])[-1]}"]
    python = env_dir / "bin" / "python"
    for n, requirement in enumerate(requirements):
        dry_run = n > 0
        say(f"Python {interp.version}: pip install --pre {requirement}"
            + (" (dry run)" if dry_run else ""))
        resolution = resolver.pip_install(python, requirement, indexes, work, dry_run=dry_run,
                                          fresh=dry_run)
        wrong = resolver.wrong_picks(resolution, wanted, draft_index, label) if resolution.resolved else None
        if wrong:  # what pip took is the finding, even where installing it failed too
            return [f"`pip install --pre {requirement}`: {wrong}"]
        if not resolution.ok:
            verb = "failed to install" if resolution.resolved else "cannot resolve"
            return [f"pip {verb} {requirement} from the draft's index and {label}: "
                    f"{resolution.error}"]
    return []


IMPORT_DEADLINE = 300.0  # seconds for importing both packages in the fresh venv


def step_import(python: Path, major: int, version: str, revisions: RevisionMap | None) -> list[str]:
    """``__version__`` and ``commit_info.commits`` of both installed packages, read in the venv
    of ``python``, against the tag's version and revisions.json."""
    packages = {"pjrt": naming.pjrt_package(major), "plugin": naming.plugin_package(major)}
    try:
        probe = subprocess.run([str(python), "-c", _PROBE, json.dumps(packages)],
                               capture_output=True, text=True, timeout=IMPORT_DEADLINE)
    except subprocess.TimeoutExpired:  # a wheel whose import never returns fails validation
        return [f"importing the installed wheels did not finish within {IMPORT_DEADLINE:g} s"]
    if probe.returncode != 0:
        tail = (probe.stderr.strip().splitlines() or ["?"])[-1]
        return [f"importing the installed wheels failed: {tail}"]
    problems = []
    for key, info in json.loads(probe.stdout).items():
        if not info["installed"]:
            problems.append(f"{key}: {packages[key]} is not installed")
            continue
        if info["version"] != version:
            problems.append(f"{key}: __version__ is {info['version']!r}, expected {version}")
        if revisions is not None and info["commits"] != revisions.legacy_commits():
            problems.append(f"{key}: commit_info.commits {info['commits']!r} differs from "
                            f"{naming.REVISIONS_ASSET}")
    return problems

