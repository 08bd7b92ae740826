"""PyPI as a budget: before anything is uploaded, every file of the release must fit both of
the index's limits, the per-file limit and the per-project limit on the total of every file a
project holds; what would not fit is said in one line and nothing goes up.

PyPI's defaults: "The current default limits are 100.0 MB for individual files and 10.0 GB for
the entire project", each raised per project on request, and "Yanking a release or file does
not free up storage space" (docs.pypi.org/project-management/storage-limits/). Warehouse
enforces them as ``MAX_FILESIZE = 100 * ONE_MIB`` and ``MAX_PROJECT_SIZE = 10 * ONE_GIB``
(pypi/warehouse:warehouse/constants.py), hence 100 MiB and 10 GiB here. A project's limit is
given per project (the ROCm projects have asked PyPI to raise theirs, pypi/support#9672).

Today's total of a project comes from the index's JSON API for it: the simple API's project
page as PEP 691 JSON with each file's ``size`` (PEP 700), summed over every file, yanked ones
included. A project the index does not know (404) holds nothing. A page without sizes (PEP 503
HTML, JSON before PEP 700) cannot give the total: that is the index's failure (exit 3) unless
the project limit is ``none`` (an index without one, such as a private pypiserver). A file of
the release the index already lists is in today's total, not counted again.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Mapping
from typing import Callable, Protocol

import requests
from packaging.utils import canonicalize_name

from release.core.deadline import DeadlineExceeded, wall_clock_limit
from release.core.errors import RemoteError, UserError
from release.core.redact import display_url

MIB = 1 << 20
GIB = 1 << 30
DEFAULT_FILE_LIMIT = 100 * MIB      # PyPI's default per-file limit (module docstring)
DEFAULT_PROJECT_LIMIT = 10 * GIB    # PyPI's default per-project limit (module docstring)
PROJECT_LIMIT_ENV = "RELEASE_PYPI_PROJECT_LIMIT"
JSON_ACCEPT = "application/vnd.pypi.simple.v1+json"
CONNECT_TIMEOUT, READ_TIMEOUT = 10.0, 30.0
PAGE_DEADLINE = 90.0                # a whole project page (PyPI's largest are a few MB)
_SIZE = re.compile(r"(\d+)\s*(|B|KiB|MiB|GiB|KB|MB|GB)", re.I)
_UNITS = {"": 1, "b": 1, "kib": 1 << 10, "mib": MIB, "gib": GIB, "kb": 10**3, "mb": 10**6, "gb": 10**9}


class SizesUnknown(RemoteError):
    """The index cannot say a project's total (no answer, no sizes): exit 3."""


def parse_size(text: str, where: str = "--file-limit") -> int:
    """``104857600``, ``100MiB``, ``10GiB`` (or ``MB``/``GB``, powers of ten) as bytes; > 0."""
    m = _SIZE.fullmatch(text.strip())
    if not m or int(m.group(1)) <= 0:
        raise UserError(f"{where} {text!r}: expected a size such as 100MiB, 10GiB or a number of bytes")
    return int(m.group(1)) * _UNITS[m.group(2).lower()]


def show_size(size: int) -> str:
    return f"{size:,} bytes ({size / MIB:.1f} MiB)" if size < 10 * GIB else f"{size:,} bytes ({size / GIB:.2f} GiB)"


@dataclasses.dataclass(frozen=True)
class ProjectLimits:
    """The per-project limit: ``default`` for every project, ``each`` for named ones (canonical
    names); None is no limit."""

    default: int | None = DEFAULT_PROJECT_LIMIT
    each: tuple[tuple[str, int | None], ...] = ()

    def of(self, project: str) -> int | None:
        return dict(self.each).get(canonicalize_name(project), self.default)


def parse_project_limits(text: str, where: str = "--project-limit") -> ProjectLimits:
    """``10GiB``, ``none``, ``jax-rocm7-pjrt=20GiB`` or several of them, comma-separated (the
    last word for a project wins); a project not named gets the unnamed one, else PyPI's 10 GiB."""
    default: int | None = DEFAULT_PROJECT_LIMIT
    each: dict[str, int | None] = {}
    parts = [p.strip() for p in text.split(",")]
    if not any(parts):
        raise UserError(f"{where} {text!r}: expected SIZE, none or PROJECT=SIZE, such as 10GiB or "
                        "jax-rocm7-pjrt=20GiB")
    for part in parts:
        name, _, value = (p.strip() for p in part.rpartition("="))
        if not value:
            raise UserError(f"{where} {text!r}: an empty entry; expected SIZE, none or PROJECT=SIZE")
        limit = None if value.lower() == "none" else parse_size(value, f"{where} {part!r}:")
        if not name:
            default = limit
        elif re.fullmatch(r"[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?", name):
            each[canonicalize_name(name)] = limit
        else:
            raise UserError(f"{where} {part!r}: {name!r} is no project name")
    return ProjectLimits(default, tuple(sorted(each.items())))


def project_limits_default(env: Mapping[str, str] | None = None) -> ProjectLimits:
    """``$RELEASE_PYPI_PROJECT_LIMIT`` when set, else PyPI's default for every project."""
    import os
    text = (os.environ if env is None else env).get(PROJECT_LIMIT_ENV, "").strip()
    return parse_project_limits(text, f"${PROJECT_LIMIT_ENV}") if text else ProjectLimits()


class File(Protocol):
    """A file of the release as the budget sees it (``pypi.Wheel`` is one)."""

    @property
    def name(self) -> str: ...
    @property
    def project(self) -> str: ...
    @property
    def size(self) -> int | None: ...


def parse_page(content_type: str, body: bytes, shown: str) -> dict[str, int] | None:
    """``{file name: size}`` of a simple API project page (``release.publish.simple_page``);
    None when it lists files without sizes (HTML, JSON before PEP 700). ``SizesUnknown`` for an
    answer that is no project page, or whose sizes are no non-negative integers."""
    from release.publish import simple_page
    try:
        files = simple_page.read(content_type, body)
    except simple_page.PageError:
        files = None
    if files is not None and "json" not in content_type:
        return {} if not files else None
    if files is None or any("size" in f.invalid for f in files):
        raise SizesUnknown(f"{shown}: not a PEP 691 project page (a JSON object whose files each "
                           "have a filename and a size)")
    if any(f.size is None for f in files):
        return None
    return {f.filename: f.size for f in files if f.size is not None}


def project_files(index_url: str, project: str, *, session: requests.Session | None = None,
                  deadline: float = PAGE_DEADLINE) -> dict[str, int] | None:
    """What ``project`` holds on the index, ``{file name: size}`` (``{}``: a project it does not
    know); None when the index lists files but gives no sizes. The whole page within
    ``deadline`` seconds, else ``SizesUnknown``."""
    session = session or requests.Session()
    from release.publish.pypi_index import project_page_url
    url = project_page_url(index_url, project)
    shown = display_url(url)
    try:
        with wall_clock_limit(deadline):
            answer = session.get(url, headers={"Accept": JSON_ACCEPT, "Cache-Control": "no-cache"},
                                 timeout=(CONNECT_TIMEOUT, READ_TIMEOUT), allow_redirects=True)
            body = answer.content
    except requests.RequestException as exc:
        raise SizesUnknown(f"{shown}: no answer ({type(exc).__name__}); nothing was uploaded") from None
    except DeadlineExceeded:
        raise SizesUnknown(f"{shown}: no complete answer within {deadline:g} s; nothing was uploaded") from None
    if answer.status_code == 404:
        return {}
    if answer.status_code != 200:
        raise SizesUnknown(f"{shown} answered {answer.status_code}; nothing was uploaded")
    return parse_page(answer.headers.get("Content-Type", ""), body, shown)


@dataclasses.dataclass(frozen=True)
class ProjectUse:
    """One project's budget: what it holds today, what the release adds, its limit."""

    project: str
    held: int | None          # None: not asked (no limit)
    new: int
    limit: int | None

    @property
    def fits(self) -> bool:
        return self.limit is None or self.held is None or self.held + self.new <= self.limit

    def to_json(self) -> dict[str, object]:
        return {"project": self.project, "held": self.held, "new": self.new, "limit": self.limit,
                "fits": self.fits}


def shortfalls(files: Iterable[File], uses: Iterable[ProjectUse], file_limit: int) -> list[str]:
    """What would not fit, one phrase each: every file over ``file_limit`` (file, size, limit),
    then every project over its limit (project, today's total + new, limit)."""
    out = [f"{f.name} is {show_size(f.size or 0)}, over the per-file limit of {show_size(file_limit)}"
           for f in files if (f.size or 0) > file_limit]
    for use in uses:
        if not use.fits:
            assert use.held is not None and use.limit is not None
            out.append(f"{use.project} holds {show_size(use.held)} + {show_size(use.new)} new = "
                       f"{show_size(use.held + use.new)}, over the project limit of {show_size(use.limit)}")
    return out


def project_uses(files: Iterable[File], limits: ProjectLimits,
                 read: Callable[[str], dict[str, int] | None], index_shown: str) -> list[ProjectUse]:
    """Each project of ``files`` (sorted): today's total by ``read(project)`` and the sizes of
    the files it does not list yet. A project without a limit is not asked."""
    by_project: dict[str, list[File]] = {}
    for f in files:
        by_project.setdefault(canonicalize_name(f.project), []).append(f)
    uses = []
    for project, members in sorted(by_project.items()):
        limit = limits.of(project)
        if limit is None:
            uses.append(ProjectUse(project, None, sum(f.size or 0 for f in members), None))
            continue
        held = read(project)
        if held is None:
            raise SizesUnknown(f"{index_shown} lists files of {project} without their sizes (PEP 700), so "
                               f"its total against the project limit of {show_size(limit)} is unknown; "
                               f"nothing was uploaded (for an index without a project limit: "
                               f"--project-limit {project}=none)")
        new = sum(f.size or 0 for f in members if f.name not in held)
        uses.append(ProjectUse(project, sum(held.values()), new, limit))
    return uses


def check(files: Iterable[File], index_url: str, file_limit: int, limits: ProjectLimits, *,
          session: requests.Session | None = None) -> list[ProjectUse]:
    """Both limits for every file (module docstring): the projects' budgets when everything
    fits; else ``UserError`` naming what would not fit (nothing was uploaded). The index is
    asked only about projects with a limit, and only when every file fits its own limit."""
    files = list(files)
    over = shortfalls(files, (), file_limit)
    if not over:
        session = session or requests.Session()
        uses = project_uses(files, limits, lambda p: project_files(index_url, p, session=session),
                            display_url(index_url))
        over = shortfalls((), uses, file_limit)
        if not over:
            return uses
    raise UserError("; ".join(over) + " (--file-limit, --project-limit or $RELEASE_PYPI_FILE_LIMIT, "
                    f"${PROJECT_LIMIT_ENV}; PyPI raises a project's limits on request); nothing was uploaded")

