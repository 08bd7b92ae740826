"""Build a jax-tree line's wheels into ``dist/<version>/``: jax's targets per major and Python.

``release.build.dist`` hands a plan of the jax-tree layout here. Either Bazel runs jax's own
targets in the jax checkout (``release.build.jax_tree``: one build per major for the PJRT
wheel, one per major and Python for the plugin wheel, each stamped with the plan's version),
the wheel each wrote copied to ``dist/<version>/artifacts/``; or the wheels come ready-made
(``--artifacts DIR``, as another machine's Bazel wrote them). Either way each is held to the
plan's name before anything else (a stamped version other than the plan's is refused:
``jax_tree_wheels.check_built``), then written into ``dist/<version>/`` with the revision map
and the SBOM inside (its major's ROCm release). Every build and every wheel is a manifest step
with a fingerprint, so a re-run skips what is done: ``bazel_pjrt_rocm7``,
``bazel_plugin_rocm7_cp312``, ``wheel_pjrt_rocm7``, ``wheel_plugin_rocm7_cp312``.
"""

from __future__ import annotations

from pathlib import Path

from release import __version__ as TOOL_VERSION
from release.build import bazel, jax_tree
from release.build.jax_tree_wheels import check_built, with_revisions
from release.build.plan import BuildPlan
from release.core import naming, rocm_runtime, versions
from release.core.checksums import sha256_file
from release.core.errors import UserError
from release.core.manifest import Manifest, fingerprint
from release.core.wheelfile import source_date_epoch
from release.sources.checkout import check_workspace

ARTIFACTS = "artifacts"
LOGS = "logs"


def cells(plan: BuildPlan, kinds: tuple[str, ...]) -> list[tuple[str, int, str | None, str]]:
    """(kind, major, python or None, the plan's wheel name) of every wheel to build, major by major."""
    out: list[tuple[str, int, str | None, str]] = []
    for group in plan.majors:
        if "pjrt" in kinds:
            out.append(("pjrt", group.major, None, group.pjrt_wheel))
        if "plugin" in kinds:
            out += [("plugin", group.major, py, name) for py, name in group.plugin_wheels]
    return out


def step_name(prefix: str, kind: str, major: int, python: str | None) -> str:
    base = f"{prefix}_{kind}_rocm{major}"
    return base if python is None else f"{base}_{naming.python_tag(python)}"


def check_jax_tree_inputs(plan: BuildPlan, workspace: Path | None, artifacts: Path | None,
                          kinds: tuple[str, ...]) -> None:
    """Before anything is built or written: the jax checkout (a Bazel workspace, every checkout
    at its pin) building every major the line names, or the ready-made wheels' directory."""
    if workspace is not None:
        jax_tree.check_workspace(workspace)
        check_workspace(workspace, plan.revisions.commits)
        jax_tree.check_tree_majors(Path(workspace) / jax_tree.WORKSPACE_SUBDIR, [g.major for g in plan.majors])
        jax_tree.check_rocm_paths(jax_tree.rocm_paths(plan.rocm_versions))
        return
    if artifacts is None or not Path(artifacts).is_dir():
        raise UserError(f"--artifacts {artifacts}: no such directory; expected the wheels jax's targets wrote")
    for _kind, _major, _python, name in cells(plan, kinds):
        _built(Path(artifacts), name, plan.version)


def _built(where: Path, name: str, version: str) -> Path:
    """The wheel of ``name``'s cell in ``where``: ``name`` itself, or refused naming what is there."""
    if (where / name).is_file():
        return where / name
    want = naming.Identity.of(name)
    others = [p for p in sorted(where.glob("*.whl"))
              if (i := naming.Identity.of(p.name)).dist == want.dist and i.tags == want.tags]
    if len(others) == 1:
        check_built(others[0].name, name, version)  # raises: another version stamped
    raise UserError(f"{where}: no {name}; expected the wheel jax's target writes for it")


def build_jax_tree(plan: BuildPlan, directory: Path, manifest: Manifest, steps: list[tuple[str, str]], *,
                   workspace: Path | None, artifacts: Path | None, kinds: tuple[str, ...],
                   bazel_exe: str = "bazel", root: Path | None = None) -> dict[str, Path]:
    """The plan's wheels, built (or taken from ``artifacts``), checked and with the revision map
    and SBOM, in ``directory``; ``steps`` gets each step and whether it ran; ``root``: the line's
    checkout, whose ROCm soname lists the SBOM reads. Returns ``{name: path}``."""
    built_dir = Path(artifacts) if artifacts is not None else directory / ARTIFACTS
    wanted = {(kind, major, python): name for kind, major, python, name in cells(plan, kinds)}
    if workspace is not None:
        flags = jax_tree.stamp(plan.version, versions.base_of(plan.version), plan.revisions.commits["jax"])
        for step in jax_tree.build_steps(workspace, plan.rocm_versions, plan.pythons, flags, bazel=bazel_exe,
                                         rocm_paths=jax_tree.rocm_paths(plan.rocm_versions)):
            python = step.python if step.kind == "plugin" else None
            if (step.kind, step.major, python) not in wanted:
                continue
            name = step_name("bazel", step.kind, step.major, python)
            fp = fingerprint({"argv": step.argv(), "commits": plan.revisions.commits, "tool": TOOL_VERSION})
            if manifest.done(name, fp):
                steps.append((name, "skipped"))
                continue
            bazel.run_build(step, directory / LOGS / f"{name}.log")
            found = bazel.locate_wheel(step)
            check_built(found.name, wanted[(step.kind, step.major, python)], plan.version)
            manifest.record(name, fp, bazel.collect({found.name: found}, built_dir))
            steps.append((name, "ran"))
    wheels: dict[str, Path] = {}
    rocm = {group.major: group.rocm_version for group in plan.majors}
    epoch = source_date_epoch()  # the members' timestamp: another one writes the wheels again
    sonames = sha256_file(rocm_runtime.data_path(root))  # the SBOM's lists: another one, too
    for (kind, major, python), want in wanted.items():
        source = _built(built_dir, want, plan.version)
        name = step_name("wheel", kind, major, python)
        st = source.stat()
        fp = fingerprint({"wheel": [str(source.resolve()), st.st_size, st.st_mtime_ns],
                          "revisions": plan.revisions.to_json(), "rocm": rocm[major], "epoch": epoch,
                          "sonames": sonames, "tool": TOOL_VERSION})
        if manifest.done(name, fp):
            steps.append((name, "skipped"))
        else:
            path, digest = with_revisions(source, directory, plan.revisions, rocm[major], root, epoch=epoch)
            manifest.record(name, fp, {"wheel": path}, hashes={"wheel": digest})
            steps.append((name, "ran"))
        path = (manifest.outputs(name) or {})["wheel"]
        wheels[path.name] = path
    return wheels
