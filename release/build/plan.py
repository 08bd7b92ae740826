"""What a build of one kind will produce, computed from the config alone (no I/O).

``release nightly --dry-run`` prints this; the pipeline follows it.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
from pathlib import Path

from packaging.version import Version

from release.build import bazel
from release.core import naming, rocm_runtime, versions
from release.core.config import Project
from release.core.revisions import RevisionMap


@dataclasses.dataclass(frozen=True)
class BuildPlan:
    kind: str
    version: str
    tag: str
    rocm_version: str
    pythons: tuple[str, ...]
    revisions: RevisionMap
    pjrt_wheel: str
    plugin_wheels: tuple[tuple[str, str], ...]  # (python, file name)
    bazel_commands: tuple[tuple[str, ...], ...] = ()

    @property
    def rocm_major(self) -> int:
        return int(self.rocm_version.split(".")[0])

    @property
    def prerelease(self) -> bool:
        return versions.is_prerelease(self.kind)

    @property
    def wheels(self) -> tuple[str, ...]:
        return (self.pjrt_wheel, *(name for _, name in self.plugin_wheels))

    @property
    def assets(self) -> tuple[str, ...]:
        return (*self.wheels, naming.REVISIONS_ASSET, naming.CHECKSUMS_ASSET)

    def to_json(self) -> dict:
        return {
            "kind": self.kind,
            "version": self.version,
            "tag": self.tag,
            "prerelease": self.prerelease,
            "rocm_version": self.rocm_version,
            "pythons": list(self.pythons),
            "wheels": {"pjrt": self.pjrt_wheel, "plugin": dict(self.plugin_wheels)},
            "assets": list(self.assets),
            "revisions": self.revisions.to_json(),
            "bazel_commands": [list(c) for c in self.bazel_commands],
        }


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
              today: _dt.date | None = None, force: bool = False) -> BuildPlan:
    """The plan for a build of ``kind`` from the project's pins and version.

    ``pythons`` must be Pythons the Bazel configs build (default: all of them; repeats
    are dropped). With ``today`` (the run's UTC date, an input: nothing here reads a
    clock) a nightly's ``date`` must be within a day of it unless ``force``.
    ``bazel_commands`` are the builds ``release build --workspace`` runs (default
    workspace: ``<root>/workspace``, as ``release fetch-sources`` makes it).
    """
    info = project.version_info
    build_number = versions.build_request(kind, info.nightly_scheme, number=number,
                                          build_number=build_number)
    if kind == "nightly" and date is not None and today is not None:
        check_nightly_date(date, today, force)
    version = versions.for_kind(kind, info.version, date=date, number=number,
                                build_number=build_number)
    pythons = bazel.check_pythons(pythons, project.root)
    rocm_runtime.load(info.rocm_version, project.root)  # no soname list: nothing to verify against
    major = info.rocm_major
    return BuildPlan(
        kind=kind,
        version=version,
        tag=naming.release_tag(version),
        rocm_version=info.rocm_version,
        pythons=pythons,
        revisions=RevisionMap.from_deps(project.deps, version, release_commit),
        pjrt_wheel=naming.pjrt_wheel(major, version),
        plugin_wheels=tuple((py, naming.plugin_wheel(major, version, py)) for py in pythons),
        bazel_commands=tuple(tuple(step.argv()) for step in bazel.build_steps(
            workspace or project.root / "workspace", pythons, root=project.root)),
    )


def cut_from_tag(tag: str, line: str) -> tuple[str, int | None]:
    """(kind, rc number) of a pushed release tag a cut builds: an rc or a final release of
    ``line``, the version version_info.json is heading for."""
    version = naming.version_of_tag(tag, ("rc", "release"))
    if versions.base_of(version) != line:
        raise versions.VersionError(f"--tag {tag}: version_info.json says the next version is {line}; "
                                    "tag that version, or move version_info.json first")
    kind, pre = versions.kind_of(version), Version(version).pre
    return kind, (pre[1] if kind == "rc" and pre is not None else None)


def next_versions(project: Project, published: list[str], date: _dt.date,
                  build_number: int | None = None) -> dict[str, dict]:
    """What each kind of build would publish next, given what is published (``Store.published``).

    ``{kind: {"version": str | None, "why": str}}``: the next rc is one above the newest
    published rc of the line; the next post re-spins the newest published release; a kind
    whose version is blocked (``versions.blocking_version``) gets None and the reason.
    """
    base = project.version_info.version
    line = [Version(v) for v in published if versions.base_of(v) == base]
    rc_numbers = [v.pre[1] for v in line if v.pre is not None and v.pre[0] == "rc"]
    candidates = {
        "nightly": versions.nightly(base, date, versions.build_request(
            "nightly", project.version_info.nightly_scheme, build_number=build_number)),
        "rc": versions.rc(base, max(rc_numbers, default=0) + 1),
        "release": versions.release(base),
    }
    releases = [Version(v) for v in published if versions.kind_of(v) == "release"]
    if releases:
        newest = str(max(releases))
        posts = [post for v in published if versions.kind_of(v) == "post"
                 and versions.base_of(v) == newest and (post := Version(v).post) is not None]
        candidates["post"] = versions.post(newest, max(posts, default=0) + 1)
    result: dict[str, dict] = {}
    for kind, version in candidates.items():
        blocker = versions.blocking_version(version, published)
        if blocker is None:
            result[kind] = {"version": version, "why": ""}
        elif blocker == version:
            result[kind] = {"version": None, "why": f"{version} is already published"}
        else:
            result[kind] = {"version": None, "why": f"{version} would sort below the published "
                                                    f"{blocker}; move version_info.json on"}
    return result
