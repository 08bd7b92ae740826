"""What ``release status`` shows: the pins, what the store holds, the next version of each kind,
the public index and PyPI, and the roller report (``release.jobs.report``, as the dashboard
issue shows it).

Reads the store (``StatusOptions.offline`` skips it, and the public index, PyPI and GitHub): the
last published nightly (tag, date and the pins it was built from), the drafts, the latest rc,
release and post release, and so what the next versions are given those: an rc number already
published is not offered again, and a version line whose release is out offers no rc or
release until version_info.json moves on. The next ``.postN`` counts what the public index
holds too (a release published by hand).
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
from typing import TYPE_CHECKING, Any, Mapping

from release.core.redact import display_url
from release.jobs.report import OnGitHub, ReportOptions, gather_report

if TYPE_CHECKING:
    from release.core.config import Project
    from release.core.roller_report import Report
    from release.publish.stores import Store


@dataclasses.dataclass(frozen=True)
class StatusOptions:
    """What ``release status`` is asked: the day, the report's options, what it may read."""

    date: _dt.date                     # the day nightly versions are dated
    report: ReportOptions              # the roller report's (read from the git cache only)
    build_number: int | None = None
    offline: bool = False              # the two files only: no store, index, PyPI or GitHub
    public_index: str | None = None    # resolver's: a URL, NO_PUBLIC_INDEX, or PIP_DEFAULT (None)
    upload_url: str = ""               # $TWINE_REPOSITORY_URL: where uploads go (else the public index)


@dataclasses.dataclass(frozen=True)
class StatusResult:
    """``to_json`` is ``release status --json`` (release/schemas/status.json) less its schema."""

    root: str
    version: str
    line: dict[str, Any]
    rocm_version: str
    nightly_scheme: str
    builds: dict[str, Any]             # what the line builds (layouts.LineBuild), or its problem
    pins: dict[str, dict[str, str]]
    next: dict[str, str | None]
    next_notes: dict[str, str]
    store: dict[str, Any] | None       # None: not read (offline)
    public_index: dict[str, Any]
    pypi: dict[str, Any]
    roller: Report

    def to_json(self) -> dict[str, Any]:
        data = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)
                if f.name not in ("store", "public_index", "pypi", "roller")}
        if self.store is not None:
            data["store"] = self.store
        return data | {"public_index": self.public_index, "pypi": self.pypi, "roller": self.roller.to_json()}

    @property
    def last_nightly(self) -> dict[str, Any] | None:
        return (self.store or {}).get("latest", {}).get("nightly")

    def outputs(self) -> dict[str, str]:
        """The ``$GITHUB_OUTPUT`` keys."""
        return {"version": self.version, "next-release": self.next["release"] or "",
                "next-rc": self.next["rc"] or "", "next-nightly": self.next["nightly"] or "",
                "last-nightly": (self.last_nightly or {}).get("tag", "")}


def asked_github(offline: bool, repo: str | None, env: Mapping[str, str]) -> tuple[str, str] | None:
    """(owner, name) when status asks GitHub for the roller report: not offline, a token, and
    the repository (``--repo``, else ``$GITHUB_REPOSITORY``) as ``owner/name``."""
    full = repo or env.get("GITHUB_REPOSITORY", "")
    if offline or not env.get("GITHUB_TOKEN") or full.count("/") != 1:
        return None
    owner, name = full.split("/")
    return owner, name


def status(project: Project, options: StatusOptions, store: Store | None,
           github: OnGitHub | None) -> StatusResult:
    """Everything status shows (see the module doc); ``store`` None with ``offline``."""
    info = project.version_info
    view = None if store is None else store_view(store, line_cells(project))
    if not options.offline:  # the resolver is loaded only to ask the public index
        from release.check import resolver
    listed = () if options.offline else resolver.index_versions(info.rocm_majors, options.public_index)
    nxt = next_versions(project, options.date, options.build_number, view, listed)
    next_ = {kind: v for kind, (v, _) in nxt.items()}
    # pip --pre takes the newest version on any index: a line at or below what is public
    # would never be installed (asked of the public index; unreachable = not checked)
    public = ({"index": None, "checked": False, "newest": {}, "warnings": [],
               "note": "public index not checked (--offline)"} if options.offline else
              resolver.check_planned_versions({k: v for k, v in next_.items() if v}, info.rocm_majors,
                                              options.public_index))
    return StatusResult(
        root=str(project.root), version=info.version,
        # the release line is jax's: deps.yaml records the jax pin's line, bump moves both
        line={"line": info.line, "jax_line": project.jax_line, "ok": project.line_problem() is None,
              "problem": project.line_problem()},
        rocm_version=info.rocm_version, nightly_scheme=info.nightly_scheme, builds=builds_view(project),
        pins={d.name: {"url": display_url(d.url), "branch": d.branch, "commit": d.commit,
                       "roll": str(d.roll)} for d in project.deps},
        next=next_, next_notes={kind: note for kind, (_, note) in nxt.items() if note},
        store=view, public_index=public,
        pypi=pypi_view(options, info.rocm_majors, view),
        roller=gather_report(project, options.report, github, store))


def builds_view(project: Project) -> dict[str, Any]:
    """What the line builds: its layout, ROCm versions, Pythons and every (major, Python) cell;
    a line that cannot say (a jax-tree line without its pythons) shows the one-line problem."""
    from release.build.layouts import line_build
    from release.core.errors import UserError
    try:
        line = line_build(project)
    except UserError as exc:
        return {"problem": str(exc)}
    return line.to_json() | {"cells": [{"major": m, "python": p} for m, p in line.cells]}


def moved_pins(built: Mapping[str, str], pins: Mapping[str, Mapping[str, str]]) -> list[str]:
    """The deps a release was built from (``built``: name -> commit) whose deps.yaml pin
    (``pins``, ``StatusResult.pins``) is another commit now, in ``built``'s order; a dep
    deps.yaml no longer names has not moved (there is nothing it moved to)."""
    return [name for name, commit in built.items() if name in pins and pins[name]["commit"] != commit]


def pypi_view(options: StatusOptions, rocm_majors: int | tuple[int, ...], view: dict | None) -> dict:
    """Whether each published release and post release is on PyPI (the index uploads go to,
    ``upload_url``'s, else the public index), every major's projects; offline asks nothing and
    loads no PyPI client."""
    if view is None:
        return {"index": None, "checked": False, "versions": {}, "note": "PyPI not checked (--offline)"}
    from release.check import resolver
    from release.core import naming, versions
    from release.publish import pypi
    from release.publish.pypi_index import derive_index_url

    wanted = [v for v in view["published_versions"] if versions.kind_of(v) in pypi.KINDS_FOR_PYPI]
    upload_url = options.upload_url.strip()
    index = derive_index_url(upload_url) if upload_url else options.public_index
    if index is resolver.PIP_DEFAULT:
        index = resolver.pip_configured_index()
    if index == resolver.NO_PUBLIC_INDEX:
        return {"index": None, "checked": False, "versions": {},
                "note": f"PyPI not checked (the public index is {resolver.NO_PUBLIC_INDEX!r})"}
    if not wanted:
        return {"index": index, "checked": False, "versions": {}, "note": "no release or post release to look for"}
    majors = (rocm_majors,) if isinstance(rocm_majors, int) else rocm_majors
    return pypi.presence(index, tuple(p for m in majors for p in (naming.pjrt_dist(m), naming.plugin_dist(m))), wanted)


def line_cells(project: Project) -> tuple[tuple[int, str], ...]:
    """The (ROCm major, Python) cells the line builds; none where it cannot say (``builds_view``
    shows why)."""
    from release.build.layouts import line_build
    from release.core.errors import UserError
    try:
        return line_build(project).cells
    except UserError:
        return ()


def store_view(store: Store, cells: tuple[tuple[int, str], ...] = ()) -> dict:
    """What the store holds, as status shows it: latest of each kind, the drafts, the last
    nightly's pins (from its revisions.json), and every (major, Python) cell's gates of the
    newest release of each kind and the newest draft (``status_cells``; ``cells``: the line's)."""
    from release.core import versions
    from release.publish.drafts import previous_revisions
    from release.publish.stores import Published, release_version

    releases = store.list_releases()
    published = Published.of(releases)
    latest: dict[str, dict[str, Any]] = {}
    for kind in versions.KINDS:
        rel = published.latest((kind,))
        if rel is not None:
            latest[kind] = {"tag": rel.tag, "version": str(release_version(rel)),
                            "published": rel.published_at.isoformat() if rel.published_at else None,
                            "url": rel.html_url}
            if kind == "nightly":
                revisions = previous_revisions(store, rel)
                if revisions is not None:
                    latest[kind]["pins"] = {name: rev.commit for name, rev in revisions.revisions}
                    latest[kind]["release_commit"] = revisions.release_commit
    drafts = [{"tag": r.tag, "id": r.id, "ours": r.ours,
               "created": r.created_at.isoformat() if r.created_at else None}
              for r in releases if r.draft]
    from release.jobs.status_cells import cells_view
    return {"kind": store.kind, "where": store.where, "latest": latest, "drafts": drafts,
            "published_versions": sorted(published.versions()), "cells": cells_view(store, releases, cells)}


def next_versions(project: Project, date: _dt.date, build: int | None,
                  view: dict | None, listed: tuple[str, ...] = ()) -> dict[str, tuple[str | None, str]]:
    """``{kind: (version or None, note)}``: what a build of each kind would get now, from
    ``next_version.next_versions`` (the rule: ``versions.blocking_version``) over what is published."""
    from release.build.next_version import next_versions as planned
    published = [*(view or {}).get("published_versions", ()), *listed]
    return {kind: (n["version"], n["why"])
            for kind, n in planned(project, published, date, build).items()}
