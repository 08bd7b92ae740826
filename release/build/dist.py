"""Build the wheels of one version into ``dist/<version>/``, resumably.

Either Bazel builds the shared objects (``workspace``: one ``bazel build`` per wheel,
outputs copied to ``dist/<version>/artifacts/``) or they come prebuilt
(``artifacts``: a directory in the layout ``release.build.wheels.artifact_files`` reads).
Then the PJRT wheel is packed once and the plugin wheel once per Python, and
each wheel's PEP 658 core metadata file (``<wheel>.metadata``, ``release.core.core_metadata``),
``revisions.json`` and ``SHA256SUMS`` are written next to them. Every Bazel build
and every wheel is a step in ``manifest.json`` with a fingerprint of its inputs, so
a re-run skips what is done and redoes only what changed or is missing (an input .so
counts as changed when its path, size or mtime did).

Step names: ``bazel_pjrt``, ``bazel_plugin_cp312``, ``wheel_pjrt``, ``wheel_plugin_cp312``;
each wheel step records ``{"wheel": Path}`` (sha256 and size in the manifest).
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Iterator

from release import __version__ as TOOL_VERSION
from release.build import bazel, provenance
from release.build.layouts import JAX_TREE, provenance_parameters
from release.build.plan import BuildPlan
from release.build.wheel_specs import KINDS, WheelSpec, load_specs
from release.build.wheels import artifact_files, build_wheel
from release.core import checksums, core_metadata, naming, output, rocm_runtime
from release.core.atomic import atomic_write
from release.core.checksums import sha256_file
from release.core.elffacts import shared_object_problem
from release.core.errors import UserError
from release.core.lines import line_key
from release.core.manifest import Manifest, fingerprint
from release.core.wheelfile import source_date_epoch

if TYPE_CHECKING:
    from rich.console import Console

ARTIFACTS = "artifacts"
LOGS = "logs"


@dataclasses.dataclass
class BuildResult:
    version: str
    directory: Path
    wheels: dict[str, Path]
    steps: list[tuple[str, str]]   # (step, "ran" | "skipped")
    revisions: Path
    sums: Path
    provenance: Path | None = None

    def to_json(self) -> dict:
        return {
            "version": self.version,
            "directory": str(self.directory),
            "wheels": {name: str(path) for name, path in self.wheels.items()},
            "steps": [{"step": s, "status": status} for s, status in self.steps],
            "revisions": str(self.revisions),
            "sha256sums": str(self.sums),
            "provenance": str(self.provenance) if self.provenance else None,
        }


def step_name(prefix: str, kind: str, python: str | None) -> str:
    return f"{prefix}_{kind}" if python is None else f"{prefix}_{kind}_{naming.python_tag(python)}"


def check_inputs(plan: BuildPlan, *, root: Path | None = None, workspace: Path | None = None,
                 artifacts: Path | None = None,
                 kinds: tuple[str, ...] = KINDS) -> dict[str, WheelSpec]:
    """Every input of a build, checked before anything is written; the wheel specs.

    Refused with one line: both or neither of workspace and artifacts, an unknown wheel
    kind, a Python the Bazel configs do not build, a workspace that is not the plugin's
    Bazel workspace or whose plugin, jax and xla checkouts are not at the plan's pins, a
    ROCm major whose plugin name the pinned jaxlib does not know (``jaxlib_plugins``),
    a missing prebuilt object, or one that is not an ELF shared object.
    """
    if (workspace is None) == (artifacts is None):
        raise UserError("give exactly one of --workspace DIR (build with Bazel) or --artifacts DIR "
                        "(package prebuilt .so files)")
    for kind in kinds:
        if kind not in KINDS:
            raise UserError(f"wheel {kind!r} is not one of {', '.join(KINDS)}")
    # What only a jax-tree line or a Bazel workspace needs is imported when it is (a build of
    # prebuilt .so files starts without it: start-up is part of pack's cost, issue 36).
    if plan.layout == JAX_TREE:  # jax's own targets (release.build.jax_tree_build)
        from release.build.jax_tree_build import check_jax_tree_inputs
        check_jax_tree_inputs(plan, workspace, artifacts, kinds)
        if workspace is not None:
            from release.sources.jaxlib_plugins import check_majors
            check_majors(Path(workspace) / "jax", plan.revisions.commits["jax"], [g.major for g in plan.majors],
                         line=_line_of(plan.version))
        return {}
    bazel.check_pythons(plan.pythons, root)
    specs = load_specs(root)
    if workspace is not None:
        from release.sources.checkout import check_workspace
        from release.sources.jaxlib_plugins import check_majors
        bazel.check_workspace(workspace)
        check_workspace(workspace, plan.revisions.commits)
        if "jax" in plan.revisions.commits:  # each major's plugin name, one the pinned jaxlib knows
            check_majors(Path(workspace) / "jax", plan.revisions.commits["jax"], [plan.rocm_major],
                         line=_line_of(plan.version))
    elif artifacts is not None:   # exactly one of the two, as checked above
        if not Path(artifacts).is_dir():
            raise UserError(f"--artifacts {artifacts}: no such directory; expected the prebuilt "
                            "xla_rocm_plugin.so and kernel .so files")
        for kind, python in _wheel_jobs(plan, kinds, specs):
            check_shared_objects(artifact_files(artifacts, specs[kind], python or plan.pythons[0]))
    return specs


def _line_of(version: str) -> str | None:
    key = line_key(version)
    return f"{key[0]}.{key[1]}" if key else None


def check_shared_objects(so_files: dict[str, Path]) -> None:
    """Refuse anything that is not an ELF shared object, before it is packed."""
    for name, path in sorted(so_files.items()):
        problem = shared_object_problem(path)
        if problem:
            raise UserError(f"{path}: {problem}; expected the ELF shared object {name}")


def _wheel_jobs(plan: BuildPlan, kinds: tuple[str, ...],
                specs: dict[str, WheelSpec]) -> list[tuple[str, str | None]]:
    return [(kind, python) for kind in kinds
            for python in (plan.pythons if specs[kind].per_python else (None,))]


def build_release(plan: BuildPlan, dist_root: Path, *, root: Path | None = None,
                  workspace: Path | None = None, artifacts: Path | None = None,
                  kinds: tuple[str, ...] = KINDS, console: Console | None = None,
                  bazel_exe: str = "bazel") -> BuildResult:
    """Build the wheels of ``plan`` into ``dist_root/<version>/``; see the module docstring.

    Inputs are checked first (``check_inputs``): a refusal creates nothing.
    """
    specs = check_inputs(plan, root=root, workspace=workspace, artifacts=artifacts, kinds=kinds)
    directory = Path(dist_root) / plan.version
    directory.mkdir(parents=True, exist_ok=True)
    manifest = Manifest.load(directory)
    if console is None and sys.stderr.isatty():  # else no bar draws, and rich is not imported
        from rich.console import Console
        console = Console(stderr=True)
    steps: list[tuple[str, str]] = []
    if plan.layout == JAX_TREE:
        from release.build.jax_tree_build import build_jax_tree
        built = build_jax_tree(plan, directory, manifest, steps, workspace=workspace, artifacts=artifacts,
                               kinds=kinds, bazel_exe=bazel_exe, root=root)
        return _finish(plan, directory, manifest, built, steps)

    # Bazel's outputs are copied to dist/<version>/artifacts/ (check_inputs: exactly one of the two)
    so_dir = Path(artifacts) if artifacts is not None else directory / ARTIFACTS
    if workspace is not None:
        rc_text = bazel.bazelrc_path(root).read_bytes()
        for step in bazel.build_steps(workspace, plan.pythons, root=root, kinds=kinds, bazel=bazel_exe):
            name = step_name("bazel", step.kind, step.python if step.kind == "plugin" else None)
            fp = fingerprint({"argv": step.argv(), "commits": plan.revisions.commits,
                              "bazelrc": hashlib.sha256(rc_text).hexdigest(), "tool": TOOL_VERSION})
            dest = so_dir / step.python if step.kind == "plugin" else so_dir
            if not manifest.done(name, fp):
                log = directory / LOGS / f"{name}.log"
                with _spinner(console, f"bazel build: {step.kind} wheel, Python {step.python}") as show:
                    bazel.run_build(step, log, on_progress=show)
                copies = bazel.collect(bazel.locate_outputs(step), dest)
                manifest.record(name, fp, copies)
                steps.append((name, "ran"))
            else:
                steps.append((name, "skipped"))

    epoch = source_date_epoch()
    requires_python = bazel.requires_python(root)
    sonames = sha256_file(rocm_runtime.data_path(root))  # the SBOM lists by the line's: another list repacks
    wheels: dict[str, Path] = {}
    jobs = [(kind, python, artifact_files(so_dir, specs[kind], python or plan.pythons[0]))
            for kind, python in _wheel_jobs(plan, kinds, specs)]
    for _kind, _python, so_files in jobs:  # what Bazel built, checked before any wheel is written
        check_shared_objects(so_files)
    for kind, python, so_files in jobs:
        name = step_name("wheel", kind, python)
        fp = fingerprint({
            "kind": kind, "python": python, "version": plan.version,
            "rocm_version": plan.rocm_version, "revisions": plan.revisions.to_json(),
            "epoch": epoch, "tool": TOOL_VERSION,
            "so": {n: _stat_key(p) for n, p in sorted(so_files.items())},
            "python_files": {dest: sha256_file(src) for src, dest in specs[kind].python_files},
            "spec": repr(specs[kind]), "requires_python": requires_python,
            "sonames": sonames,
        })
        if not manifest.done(name, fp):
            total = sum(p.stat().st_size for p in so_files.values())
            digests: dict[str, str] = {}
            with _bar(console, f"packing {kind}" + (f" {python}" if python else ""), total) as advance:
                path = build_wheel(kind, directory, so_files, version=plan.version,
                                   rocm_version=plan.rocm_version, revisions=plan.revisions,
                                   requires_python=requires_python, python=python, specs=specs,
                                   epoch=epoch, on_bytes=advance, digests=digests, root=root)
            manifest.record(name, fp, {"wheel": path}, hashes={"wheel": digests[path.name]})
            steps.append((name, "ran"))
        else:
            steps.append((name, "skipped"))
        path = (manifest.outputs(name) or {})["wheel"]   # recorded by this run or an earlier one
        wheels[path.name] = path
    return _finish(plan, directory, manifest, wheels, steps)


def _finish(plan: BuildPlan, directory: Path, manifest: Manifest, wheels: dict[str, Path],
            steps: list[tuple[str, str]]) -> BuildResult:
    """revisions.json, the provenance and SHA256SUMS beside the wheels."""
    revisions = directory / naming.REVISIONS_ASSET
    atomic_write(revisions, plan.revisions.dumps())
    sums = _write_sums(directory, manifest, revisions, plan)
    return BuildResult(plan.version, directory, wheels, steps, revisions, sums,
                       directory / naming.PROVENANCE_ASSET)


def _stat_key(path: Path) -> list:
    """What identifies an input .so for skipping: path, size and mtime, as make does.

    Hashing 500 MB would cost a third of the packing time; the wheel's RECORD (and
    the manifest's sha256 of the wheel) still pin the exact bytes that went in.
    """
    st = path.stat()
    return [str(path.resolve()), st.st_size, st.st_mtime_ns]


def _write_sums(directory: Path, manifest: Manifest, revisions: Path, plan: BuildPlan) -> Path:
    """``SHA256SUMS`` over every wheel built into this directory so far, its core metadata
    file, revisions.json and the provenance of those wheels (``release.build.provenance``)."""
    rows = {revisions.name: sha256_file(revisions)}
    for step in sorted(manifest.steps):
        if not step.startswith("wheel_"):
            continue
        outputs = manifest.outputs(step) or {}
        hashes = manifest.file_hashes(step)
        wheel = outputs.get("wheel")
        if isinstance(wheel, Path) and wheel.is_file():
            rows[wheel.name] = hashes["wheel"]
            sidecar = core_metadata.write_beside(wheel)
            rows[sidecar.name] = sha256_file(sidecar)
    extra = provenance_parameters(plan.layout, plan.rocm_versions)
    prov = provenance.write_dist(directory, {n: d for n, d in rows.items() if core_metadata.is_wheel(n)},
                                 plan.revisions, pythons=plan.pythons, rocm_version=plan.rocm_version,
                                 extra_parameters=extra)
    rows[prov.name] = sha256_file(prov)
    return checksums.write(directory, rows)


@contextlib.contextmanager
def _spinner(console: Console | None, title: str) -> Iterator:
    """Bazel's action counter as a progress bar, with its latest line (None: no terminal)."""
    if console is None or not console.is_terminal:
        yield lambda _done, _total, _line: None
        return
    from rich.progress import BarColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn
    progress = Progress(SpinnerColumn(), TextColumn("{task.description}"), BarColumn(),
                        TextColumn("{task.completed}/{task.total} actions"), TimeElapsedColumn(),
                        TextColumn("{task.fields[line]}"), console=console, transient=True,
                        disable=not console.is_terminal)
    with progress:
        task = progress.add_task(title, total=None, line="")

        def show(done: int, total: int, line: str) -> None:
            progress.update(task, completed=done, total=total or None, line=line[-60:])

        yield show


@contextlib.contextmanager
def _bar(console: Console | None, title: str, total: int) -> Iterator:
    """Bytes packed as a progress bar, on a terminal only (elsewhere nothing: no display is made)."""
    if console is None or not console.is_terminal:
        yield lambda _n: None
        return
    from rich.progress import BarColumn, DownloadColumn, TextColumn, TransferSpeedColumn
    progress = output.progress(console, TextColumn("{task.description}"), BarColumn(),
                               DownloadColumn(), TransferSpeedColumn())
    with progress:
        task = progress.add_task(title, total=total)
        yield lambda n: progress.advance(task, n)
