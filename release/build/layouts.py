"""What a line builds: its layout's Bazel targets and configs, its ROCm majors, its Pythons.

A line is data (docs/lines.md): deps.yaml says where the plugin lives, so which layout builds
it, and version_info.json which ROCm versions (one a major: ``jax-rocmN-*`` per major) and
which Pythons. Two layouts:

- ``rocm-jax`` (up to jax 0.9): rocm-jax's Bazel workspace with this repository's configs
  (``jax_rocm_plugin/.bazelrc``: ``rocm_build`` and one ``python3NN`` per Python) and the
  targets of ``jax_rocm_plugin/wheels.json``; the tool packs the wheels. Its configs link one
  ROCm, so a line of it builds one major.
- ``jax-tree`` (jax 0.10 on: a dep rolled ``{same: plugin}``, the plugin is jax's own tree):
  jax's own wheel targets, run in the jax checkout with jax's ``build/rocm/rocm.bazelrc`` and
  ``--config=rocm_release_wheel``; Bazel writes and stamps the wheels; the Python is a repo_env.

``line_build(project, pythons=None) -> LineBuild`` is the one reader; every problem is one line.
"""

from __future__ import annotations

import dataclasses
from typing import Iterable

from release.build import bazel
from release.build.wheel_specs import load_specs
from release.core import naming
from release.core.config import Project, RollSame
from release.core.errors import ConfigError, UserError

ROCM_JAX = "rocm-jax"
JAX_TREE = "jax-tree"
# jax's own wheel targets (jaxlib/tools/BUILD.bazel), its ROCm configs and the config its ROCm CI
# builds release wheels with (ci/build_rocm_artifacts.sh).
JAX_TREE_TARGETS = (("pjrt", ("//jaxlib/tools:jax_rocm_pjrt_wheel",)),
                    ("plugin", ("//jaxlib/tools:jax_rocm_plugin_wheel",)))
JAX_TREE_BAZELRC = "build/rocm/rocm.bazelrc"
JAX_TREE_CONFIGS = ("rocm_release_wheel",)
JAX_TREE_PLATFORM = "manylinux_2_27_x86_64"  # jaxlib/jax.bzl's PLATFORM_TAGS_DICT for Linux x86_64
# The first jax line that needs a newer Python than the one before (jax 0.11 dropped 3.11).
MIN_PYTHON = (((0, 11), "3.12"),)


@dataclasses.dataclass(frozen=True)
class Layout:
    """Where Bazel runs and what it is asked for. ``workspace`` is relative to a fetched
    workspace directory (``release fetch-sources``); ``bazelrc`` is this repository's file
    (rocm-jax) or the path inside jax's tree (jax-tree)."""

    name: str
    workspace: str
    bazelrc: str
    configs: tuple[str, ...]                         # --config=... of every build (a Python's apart)
    targets: tuple[tuple[str, tuple[str, ...]], ...]  # (wheel kind, Bazel targets)
    platform: str = naming.PLATFORM                  # the wheels' platform tag

    def targets_of(self, kind: str) -> tuple[str, ...]:
        return dict(self.targets)[kind]

    def to_json(self) -> dict:
        return {"name": self.name, "workspace": self.workspace, "bazelrc": self.bazelrc,
                "configs": list(self.configs), "targets": {k: list(t) for k, t in self.targets},
                "platform": self.platform}


@dataclasses.dataclass(frozen=True)
class LineBuild:
    """Every (ROCm major, Python) cell a line builds, and with which layout."""

    layout: Layout
    rocm_versions: tuple[str, ...]  # one a major, version_info.json's rocm_version first
    pythons: tuple[str, ...]

    @property
    def majors(self) -> tuple[int, ...]:
        return tuple(int(v.split(".")[0]) for v in self.rocm_versions)

    @property
    def cells(self) -> tuple[tuple[int, str], ...]:
        return tuple((m, p) for m in self.majors for p in self.pythons)

    def to_json(self) -> dict:
        return {"layout": self.layout.to_json(), "rocm_versions": list(self.rocm_versions),
                "pythons": list(self.pythons)}


def is_jax_tree(project: Project) -> bool:
    """The plugin is jax's own tree: a dep rolled ``{same: plugin}`` (jax, from 0.10)."""
    return any(isinstance(d.roll, RollSame) and d.roll.same == "plugin" for d in project.deps)


def layout_of(project: Project) -> Layout:
    if is_jax_tree(project):
        return Layout(JAX_TREE, "jax", JAX_TREE_BAZELRC, JAX_TREE_CONFIGS, JAX_TREE_TARGETS, JAX_TREE_PLATFORM)
    specs = load_specs(project.root)
    rc = bazel.bazelrc_path(project.root)
    shown = str(rc.relative_to(project.root)) if rc.is_relative_to(project.root) else str(rc)
    return Layout(ROCM_JAX, bazel.WORKSPACE_SUBDIR, shown, (bazel.BUILD_CONFIG,),
                  tuple((kind, tuple(o.target for o in spec.outputs)) for kind, spec in specs.items()))


def line_build(project: Project, pythons: Iterable[str] | None = None) -> LineBuild:
    """What ``project``'s line builds; ``pythons`` (``--python``) narrows its Pythons.

    Refused in one line: a rocm-jax line naming two majors (its configs link one ROCm), a
    Python its layout does not build (rocm-jax: the ``build:python3NN`` configs; version_info.json's
    ``pythons`` must be among them too), a jax-tree line without ``pythons`` (jax builds any
    Python it has a lock file for: the line says which), a Python the line's jax dropped, and
    a ``--python`` that is not one of the line's.
    """
    info = project.version_info
    layout = layout_of(project)
    if layout.name == ROCM_JAX:
        if len(info.rocms) > 1:
            raise ConfigError(info.path, "rocm_versions", list(info.rocms),
                              f"one ROCm version: the {ROCM_JAX} layout's configs ({layout.bazelrc}) link one "
                              "ROCm; a line building several majors is of the jax-tree layout")
        if info.pythons is None:  # the Bazel configs say, as before lines said anything
            chosen = bazel.check_pythons(pythons, project.root)
            _check_min_python(project, chosen)
            return LineBuild(layout, info.rocms, chosen)
        supported = bazel.supported_pythons(project.root)
        extra = [py for py in info.pythons if py not in supported]
        if extra:
            raise ConfigError(info.path, "pythons", list(info.pythons), f"Pythons the {ROCM_JAX} layout's "
                              f"configs build ({', '.join(supported)}: the build:python3NN lines of "
                              f"{layout.bazelrc}); {extra[0]} is not one")
        line_pythons = info.pythons
    elif info.pythons is None:
        raise ConfigError(info.path, "pythons", "nothing (missing)", 'the Pythons this jax-tree line builds, '
                          'such as ["3.12", "3.13", "3.14"] (jax builds any Python it has a lock file for)')
    else:
        line_pythons = info.pythons
    _check_min_python(project, line_pythons)
    chosen = tuple(dict.fromkeys(pythons or ())) or line_pythons
    for python in chosen:
        if python not in line_pythons:
            raise UserError(f"--python {python}: line {info.line} builds {', '.join(line_pythons)} "
                            f"({_pythons_source(project, layout)}); expected one of those")
    return LineBuild(layout, info.rocms, chosen)


def _pythons_source(project: Project, layout: Layout) -> str:
    if project.version_info.pythons is not None:
        return f"pythons of {project.version_info.path.name}"
    return f"the build:python3NN lines of {layout.bazelrc}"


def _check_min_python(project: Project, pythons: tuple[str, ...]) -> None:
    """A Python below what the line's jax needs (``MIN_PYTHON``) is refused: jax 0.11 dropped 3.11."""
    line = tuple(int(p) for p in project.version_info.line.split(".")[:2])
    needed = [py for since, py in MIN_PYTHON if line >= since]
    if not needed:
        return
    low = max(needed, key=lambda p: int(p.split(".")[1]))
    old = [p for p in pythons if int(p.split(".")[1]) < int(low.split(".")[1])]
    if old:
        info = project.version_info
        where = (ConfigError(info.path, "pythons", list(pythons), f"Pythons {low} and newer: jax {info.line} "
                             f"needs Python >= {low}") if info.pythons is not None else
                 UserError(f"{bazel.bazelrc_path(project.root)}: build:python{old[0].replace('.', '')} builds "
                           f"Python {old[0]}, which jax {info.line} does not support (it needs >= {low}); "
                           "expected version_info.json's pythons to name the line's Pythons"))
        raise where


def provenance_parameters(layout: str, rocm_versions: tuple[str, ...]) -> dict:
    """What the provenance adds for a jax-tree build (its layout, every ROCm version, jax's
    config); nothing for the rocm-jax layout, whose provenance is as it always was."""
    if layout != JAX_TREE:
        return {}
    return {"layout": layout, "rocmVersions": list(rocm_versions), "bazelConfigs": list(JAX_TREE_CONFIGS)}
