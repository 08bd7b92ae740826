"""What a build of one kind will produce, computed from the config alone (no I/O).

``release nightly --dry-run`` prints this; the pipeline follows it.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
from pathlib import Path
from typing import Iterable

from packaging.version import Version

from release.build import bazel, layouts
from release.build.next_version import (  # noqa: F401 (re-exported: the versions a plan is made at)
    candidate_versions,
    move_on,
    next_versions,
)
from release.core import core_metadata, naming, rocm_runtime, versions
from release.core.config import Project
from release.core.revisions import RevisionMap


@dataclasses.dataclass(frozen=True)
class MajorWheels:
    """One ROCm major's wheels of a plan: its PJRT wheel and its plugin wheel per Python.
    Published together or not at all (``release.core.pairing``)."""

    rocm_version: str
    pjrt_wheel: str
    plugin_wheels: tuple[tuple[str, str], ...]  # (python, file name)

    @property
    def major(self) -> int:
        return int(self.rocm_version.split(".")[0])

    @property
    def wheels(self) -> tuple[str, ...]:
        return (self.pjrt_wheel, *(name for _, name in self.plugin_wheels))

    def to_json(self) -> dict:
        return {"major": self.major, "rocm_version": self.rocm_version,
                "pjrt": self.pjrt_wheel, "plugin": dict(self.plugin_wheels)}


@dataclasses.dataclass(frozen=True)
class BuildPlan:
    """One version's build: a ``MajorWheels`` group per ROCm major the line builds (its
    ``rocm_versions`` order, version_info.json's ``rocm_version`` first), each with the plan's
    Pythons. ``rocm_version``, ``pjrt_wheel`` and ``plugin_wheels`` are the first group's (all
    of a one-major line's)."""

    kind: str
    version: str
    tag: str
    pythons: tuple[str, ...]
    revisions: RevisionMap
    majors: tuple[MajorWheels, ...]
    bazel_commands: tuple[tuple[str, ...], ...] = ()
    layout: str = "rocm-jax"

    @property
    def rocm_version(self) -> str:
        return self.majors[0].rocm_version

    @property
    def rocm_versions(self) -> tuple[str, ...]:
        return tuple(g.rocm_version for g in self.majors)

    @property
    def rocm_major(self) -> int:
        return self.majors[0].major

    @property
    def pjrt_wheel(self) -> str:
        return self.majors[0].pjrt_wheel

    @property
    def plugin_wheels(self) -> tuple[tuple[str, str], ...]:
        return self.majors[0].plugin_wheels

    @property
    def cells(self) -> tuple[tuple[int, str], ...]:
        """Every (ROCm major, Python) the plan builds a plugin wheel for."""
        return tuple((g.major, py) for g in self.majors for py, _ in g.plugin_wheels)

    def group(self, major: int) -> MajorWheels:
        for g in self.majors:
            if g.major == major:
                return g
        raise KeyError(major)

    @property
    def prerelease(self) -> bool:
        return versions.is_prerelease(self.kind)

    @property
    def wheels(self) -> tuple[str, ...]:
        """Every wheel, major by major: its PJRT wheel, then its plugin wheels."""
        return tuple(name for g in self.majors for name in g.wheels)

    @property
    def assets(self) -> tuple[str, ...]:
        return (*self.wheels, naming.REVISIONS_ASSET, naming.PROVENANCE_ASSET,
                naming.CHECKSUMS_ASSET, *map(core_metadata.file_name, self.wheels))

    def to_json(self) -> dict:
        """``rocm_version`` and ``wheels`` are the first major's (a one-major line's keys, kept);
        ``majors`` has every major's group."""
        return {
            "kind": self.kind,
            "version": self.version,
            "tag": self.tag,
            "prerelease": self.prerelease,
            "rocm_version": self.rocm_version,
            "rocm_versions": list(self.rocm_versions),
            "layout": self.layout,
            "pythons": list(self.pythons),
            "wheels": {"pjrt": self.pjrt_wheel, "plugin": dict(self.plugin_wheels)},
            "majors": [g.to_json() for g in self.majors],
            "assets": list(self.assets),
            "revisions": self.revisions.to_json(),
            "bazel_commands": [list(c) for c in self.bazel_commands],
        }


def major_wheels(rocm_version: str, version: str, pythons: Iterable[str],
                 platform: str = naming.PLATFORM) -> MajorWheels:
    """The wheel names of one ROCm major at ``version``."""
    major = int(rocm_version.split(".")[0])
    return MajorWheels(rocm_version, naming.pjrt_wheel(major, version, platform),
                       tuple((py, naming.plugin_wheel(major, version, py, platform)) for py in pythons))


DATE_SLACK_DAYS = 1  # a nightly's date may differ from the run's UTC date by this much


def check_nightly_date(date: _dt.date, today: _dt.date, force: bool = False) -> None:
    """A nightly is dated the UTC day it is built: a run near midnight, or a re-run the next
    day, is within ``DATE_SLACK_DAYS``; anything further (a typo, a date two days ahead that
    would sort above tomorrow's nightly) needs ``force``."""
    off = (date - today).days
    if abs(off) > DATE_SLACK_DAYS and not force:
        when = f"{off} days ahead of" if off > 0 else f"{-off} days before"
        raise versions.VersionError(
            f"--date {date.isoformat()} is {when} today ({today.isoformat()} UTC); a nightly is "
            f"dated the day it is built (within {DATE_SLACK_DAYS} day): pass --force to build "
            "for another day")


def make_plan(project: Project, kind: str, *, date: _dt.date | None = None, number: int | None = None,
              build_number: int | None = None, pythons: tuple[str, ...] | None = None,
              release_commit: str | None = None, workspace: Path | None = None,
              today: _dt.date | None = None, force: bool = False, published: Iterable[str] = ()) -> BuildPlan:
    """The plan for a build of ``kind`` from the project's pins and version.

    ``pythons`` must be Pythons the Bazel configs build (default: all of them; repeats
    are dropped). With ``today`` (the run's UTC date, an input: nothing here reads a
    clock) a nightly's ``date`` must be within a day of it unless ``force``.
    ``bazel_commands`` are the builds ``release build --workspace`` runs (default
    workspace: ``<root>/workspace``, as ``release fetch-sources`` makes it). ``published``: what
    the store and the public index hold; a released line's next ``.postN`` is counted from it
    (``versions.next_official``), never only from version_info.json.
    """
    info = project.version_info
    problem = project.line_problem()
    if problem is not None:
        raise versions.VersionError(problem)
    build_number = versions.build_request(kind, info.nightly_scheme, number=number,
                                          build_number=build_number)
    if kind == "nightly" and date is not None and today is not None:
        check_nightly_date(date, today, force)
    version = versions.for_kind(kind, versions.next_official(info.version, published), date=date, number=number,
                                build_number=build_number)
    line = layouts.line_build(project, pythons)
    for rocm in line.rocm_versions:  # no soname list: nothing to verify against
        rocm_runtime.load(rocm, project.root)
    return BuildPlan(
        kind=kind,
        version=version,
        tag=naming.release_tag(version),
        pythons=line.pythons,
        revisions=RevisionMap.from_deps(project.deps, version, release_commit),
        majors=tuple(major_wheels(rocm, version, line.pythons, line.layout.platform)
                     for rocm in line.rocm_versions),
        bazel_commands=_bazel_commands(project, line, version, workspace or project.root / "workspace"),
        layout=line.layout.name,
    )


def _bazel_commands(project: Project, line: layouts.LineBuild, version: str,
                    workspace: Path) -> tuple[tuple[str, ...], ...]:
    """The builds of the line's layout: this repository's configs over rocm-jax's workspace,
    or jax's own wheel targets stamped with ``version`` (``release.build.jax_tree``)."""
    if line.layout.name == layouts.JAX_TREE:
        from release.build import jax_tree  # jax's own build: only a jax-tree line's plan
        flags = jax_tree.stamp(version, project.version_info.line, project.deps["jax"].commit)
        return tuple(tuple(s.argv()) for s in jax_tree.build_steps(
            workspace, line.rocm_versions, line.pythons, flags, rocm_paths=jax_tree.rocm_paths(line.rocm_versions)))
    return tuple(tuple(step.argv()) for step in bazel.build_steps(workspace, line.pythons, root=project.root))


def cut_from_tag(tag: str, next_version: str) -> tuple[str, int | None]:
    """(kind, rc number) of a pushed release tag a cut builds: an rc of the line, or the next
    official release ``next_version`` (version_info.json's: ``X.Y.Z`` or ``X.Y.Z.postN``)."""
    version = naming.version_of_tag(tag, ("rc", "release", "post"))
    kind, pre = versions.kind_of(version), Version(version).pre
    line, post_number = versions.parse_next(next_version)
    if kind == "rc" and versions.base_of(version) == line and not post_number:
        return kind, (pre[1] if pre is not None else None)
    if kind != "rc" and version == versions.release(next_version):
        return "release", None
    raise versions.VersionError(f"--tag {tag}: version_info.json says the next version is "
                                f"{next_version}; tag that version, or move version_info.json first")
