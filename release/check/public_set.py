"""Which files of the public index a validated set was installed with, as the index names them.

validate's install as users (``release.check.user_install``) asks pip for a ``--report``: every
file pip took, with its URL and sha256. The ones that are not the draft's (jax, jaxlib, their
dependencies) are the set's other half. The channel indexes link exactly those files, so each is
described as the public index describes it: its size, ``Requires-Python`` and the sha256 of its
PEP 658 metadata file when the index serves one (read from the project's page, PEP 691 JSON or
PEP 503 HTML; the size from a HEAD request when the page gives none). The result is recorded in
the release's notes (``release.publish.public_files``).
"""

from __future__ import annotations

import json
import urllib.parse
from pathlib import Path
from typing import Iterable

import requests
from packaging.utils import canonicalize_name

from release.check.resolver import Pick
from release.core.deadline import DeadlineExceeded, wall_clock_limit
from release.publish import simple_page
from release.publish.public_files import PublicFile, RecordError
from release.publish.pypi_index import CONNECT_TIMEOUT, READ_TIMEOUT, SIMPLE_ACCEPT, project_page_url

PAGE_DEADLINE = 3 * READ_TIMEOUT  # a whole project page, however slowly it drips in


def from_report(report: Path, draft_index: str) -> list[Pick]:
    """The wheels of pip's ``--report`` that did not come from the draft's index."""
    data = json.loads(report.read_text(encoding="utf-8"))
    base = draft_index.rsplit("/simple/", 1)[0] + "/"
    picks = []
    for item in data.get("install", []):
        meta = item.get("metadata") or {}
        info = item.get("download_info") or {}
        url = str(info.get("url", ""))
        sha256 = ((info.get("archive_info") or {}).get("hashes") or {}).get("sha256")
        if url.startswith(base) or not url.startswith(("http://", "https://")):
            continue
        picks.append(Pick(canonicalize_name(str(meta.get("name", ""))), str(meta.get("version")), url, sha256))
    return picks


def page_entries(content_type: str, text: str, page_url: str) -> dict[str, dict]:
    """``{file name: {"url", "sha256", "size", "requires_python", "metadata_sha256"}}`` of a
    project page, PEP 691 JSON or PEP 503 HTML (``release.publish.simple_page``, the one
    reader; relative URLs made absolute); a field the page gives but not as the PEPs say is None."""
    return {f.filename: {"url": f.url or page_url, "sha256": f.sha256, "size": f.size,
                         "requires_python": f.requires_python, "metadata_sha256": f.metadata_sha256}
            for f in simple_page.read(content_type, text, page_url)}


def _page(session: requests.Session, index_url: str, project: str) -> dict[str, dict]:
    url = project_page_url(index_url, project)
    with wall_clock_limit(PAGE_DEADLINE):
        answer = session.get(url, headers={"Accept": SIMPLE_ACCEPT}, timeout=(CONNECT_TIMEOUT, READ_TIMEOUT))
    answer.raise_for_status()
    return page_entries(answer.headers.get("Content-Type", ""), answer.text, answer.url or url)


def _size(session: requests.Session, url: str) -> int | None:
    with wall_clock_limit(PAGE_DEADLINE):
        answer = session.head(url, allow_redirects=True, timeout=(CONNECT_TIMEOUT, READ_TIMEOUT))
    length = answer.headers.get("Content-Length", "")
    return int(length) if answer.status_code == 200 and length.isdigit() else None


def describe(picks: Iterable[Pick], index_url: str,
             session: requests.Session | None = None) -> tuple[list[PublicFile], list[str]]:
    """Each picked wheel as the public index at ``index_url`` names it, and a warning for each
    one that cannot be (not on the page, another sha256, not a wheel, the index unreachable):
    such a file is left out of the record, so no index links a file nobody validated."""
    session = session or requests.Session()
    pages: dict[str, dict[str, dict] | str] = {}
    files: dict[str, PublicFile] = {}
    warnings: list[str] = []
    for pick in picks:
        name = urllib.parse.unquote(pick.url.rsplit("/", 1)[-1].split("#")[0])
        if name in files:
            continue
        if pick.name not in pages:
            try:
                pages[pick.name] = _page(session, index_url, pick.name)
            except (requests.RequestException, DeadlineExceeded, ValueError, KeyError, TypeError) as exc:
                pages[pick.name] = f"its page could not be read ({type(exc).__name__})"
        page = pages[pick.name]
        entry = page.get(name) if isinstance(page, dict) else None
        if entry is None or pick.sha256 is None or entry["sha256"] not in (None, pick.sha256):
            why = page if isinstance(page, str) else (
                "not on its page" if entry is None else "no sha256 in pip's report" if pick.sha256 is None
                else f"the page names sha256 {entry['sha256']}, pip took {pick.sha256}")
            warnings.append(f"{name} of the public index is not recorded for the channel indexes: {why}")
            continue
        size = entry["size"]
        if size is None:
            try:
                size = _size(session, pick.url)
            except (requests.RequestException, DeadlineExceeded):
                size = None
        try:
            files[name] = PublicFile(name, pick.url, pick.sha256, size, entry["requires_python"],
                                     entry["metadata_sha256"])
        except RecordError as exc:
            warnings.append(f"{name} of the public index is not recorded for the channel indexes: {exc}")
    return sorted(files.values(), key=lambda f: f.filename), warnings
