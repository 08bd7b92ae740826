"""The version each kind of build would get next (``release version``, ``status``, the plan),
from version_info.json and what is published. Apart from the plan (``release.build.plan``),
which also names the wheels and the builds: asking the next versions loads none of that."""

from __future__ import annotations

import dataclasses
import datetime as _dt
from typing import TYPE_CHECKING, Iterable

from packaging.version import Version

from release.core import versions

if TYPE_CHECKING:
    from release.core.config import Project


def candidate_versions(project: Project, published: Iterable[str], date: _dt.date,
                       build_number: int | None = None, number: int | None = None) -> dict[str, str | None]:
    """The one rule for the version each kind of build gets (``release version`` and ``status``
    both ask here): from version_info.json's next version; without ``number`` an rc is one
    above the newest rc of the line in ``published`` and a post the next post release
    version_info.json names, or one above the line's newest published post when that is
    higher (``release version`` reads no store: ``published`` is empty there). None for an rc of a released line
    (``X.Y.Z.postN``: PEP 440 has no candidates of a post release)."""
    published = list(published)
    info = dataclasses.replace(project.version_info,
                               version=versions.next_official(project.version_info.version, published))
    line = info.line
    rcs = [pre[1] for v in published if versions.base_of(v) == line
           and (pre := Version(v).pre) is not None and pre[0] == "rc"]
    posts = [Version(v).post or 0 for v in published if versions.base_of(v) == line
             and versions.kind_of(v) == "post"]
    scheme = info.nightly_scheme
    result: dict[str, str | None] = {
        "nightly": versions.nightly(info.version, date, versions.build_request(
            "nightly", scheme, build_number=build_number)),
        "rc": None,
        "release": versions.release(info.version),
        "post": versions.post(info.version, number or max(
            [versions.parse_next(info.version)[1], *(p + 1 for p in posts)]) or None),
    }
    if not versions.parse_next(info.version)[1]:
        result["rc"] = versions.rc(info.version, number or max(rcs, default=0) + 1)
    return result


def next_versions(project: Project, published: list[str], date: _dt.date,
                  build_number: int | None = None) -> dict[str, dict]:
    """What each kind of build would publish next, given what is published (``Store.published``,
    and the public index's versions when known).

    ``{kind: {"version": str | None, "why": str}}`` for every kind: ``candidate_versions``, and a
    kind whose version is blocked (``versions.blocking_version``), or has nothing to build from,
    gets None and the reason.
    """
    published = list(published)
    info = dataclasses.replace(project.version_info,
                               version=versions.next_official(project.version_info.version, published))
    line, post_number = versions.parse_next(info.version)
    released = [v for v in published if versions.base_of(v) == line
                and versions.kind_of(v) in ("release", "post")]
    result: dict[str, dict] = {}
    for kind, version in candidate_versions(project, published, date, build_number).items():
        if version is None:  # version_info.json names a post release; the store may know better
            why = (f"line {line} is released ({info.version} is its next post release): rcs come before a "
                   f"line's first release ({_newest_final(released, line)} is published)" if released
                   else f"version_info.json names {info.version}, a post release: rcs come before a line's "
                   "first release")
            result[kind] = {"version": None, "why": why}
            continue
        if kind == "post" and not released:
            result[kind] = {"version": None, "why": f"nothing of line {line} is published: a post "
                                                    "re-spins a published release"}
            continue
        blocker = versions.blocking_version(version, published)
        if blocker is None:
            result[kind] = {"version": version, "why": ""}
        elif blocker == version:
            result[kind] = {"version": None, "why": f"{version} is already published"}
        else:
            result[kind] = {"version": None, "why": f"{version} would sort below the published "
                                                    f"{blocker}; {move_on(blocker, published)}"}
    return result


def move_on(blocker: str, published: Iterable[str]) -> str:
    """What to do about a version blocked by ``blocker``: a published release or post release
    moves the next version to the line's next post release; an rc needs a higher number."""
    if versions.kind_of(blocker) in ("release", "post"):
        return (f"move version_info.json's version to "
                f"{versions.next_after(_newest_final(published, versions.base_of(blocker)))}")
    return f"cut a higher number than {blocker}"


def _newest_final(published: Iterable[str], line: str) -> str:
    """The newest release or post release of ``line`` in ``published`` (the line's head)."""
    finals = [Version(v) for v in published if versions.base_of(v) == line
              and versions.kind_of(v) in ("release", "post")]
    return str(max(finals)) if finals else line
