"""The pages of one channel of a pip index: each project's PEP 503 HTML and PEP 691 JSON page
(PEP 658 metadata, PEP 700 sizes and upload times, PEP 740 provenance, PEP 792 status) and the
root page, from the entries listed. The site's channels (``release.publish.index``) and each
jax line's (``release.publish.line_channels``) are written by it.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import functools
import html
import json
from typing import TYPE_CHECKING, Any, Iterable
from urllib.parse import quote

from packaging.version import Version

from release.core.filled import filled
from release.publish.staging import Tree, write_json

if TYPE_CHECKING:
    from release.publish.project_status import Status

API_VERSION = "1.4"  # PEP 700 (1.1): versions, size, upload-time; PEP 740 (1.3): provenance; PEP 792 (1.4): status
JSON_TYPE = "application/vnd.pypi.simple.v1+json"
HTML_TYPE = "application/vnd.pypi.simple.v1+html"


class _Once:
    """``IndexEntry.rows``: ``_rows`` of the entry, made on first use and kept in the entry (its
    ``__dict__``, which a later lookup finds first). ``functools.cached_property`` does the same
    behind a lock taken at each first use: 4 us a file, a season's 2,985 files."""

    def __get__(self, entry: IndexEntry | None, owner: type | None = None) -> Any:
        if entry is None:  # asked of the class
            return self
        rows = entry.__dict__["rows"] = _rows(entry)
        return rows


@dataclasses.dataclass(frozen=True)
class IndexEntry:
    """One listed file as both page formats render it.

    ``url``: the link (a file name beside the page, or an absolute URL); ``metadata_sha256``:
    set only when a PEP 658 metadata file is at ``url`` + ``.metadata``; ``yanked``: the PEP 592
    reason ("" for none given), None when not yanked.
    """

    filename: str
    project: str
    version: Version
    sha256: str
    size: int | None  # None: not known (a public file whose index gave none), left out of the JSON
    requires_python: str | None
    metadata_sha256: str | None
    upload_time: _dt.datetime | None
    url: str = ""
    yanked: str | None = None
    provenance: str | None = None  # PEP 740: where its provenance object is (beside the page)

    @classmethod
    def made(cls, filename: str, project: str, version: Version, sha256: str, size: int | None,
             requires_python: str | None, metadata_sha256: str | None, upload_time: _dt.datetime | None,
             url: str = "", yanked: str | None = None, provenance: str | None = None) -> IndexEntry:
        """The same entry as ``IndexEntry(...)``, made without the frozen ``__init__``'s call to
        ``object.__setattr__`` per field (the index makes one per listed wheel, thousands a season)."""
        return filled(cls, {"filename": filename, "project": project, "version": version, "sha256": sha256,
                            "size": size, "requires_python": requires_python, "metadata_sha256": metadata_sha256,
                            "upload_time": upload_time, "url": url, "yanked": yanked, "provenance": provenance})

    @property
    def href(self) -> str:
        return self.url or quote(self.filename)

    rows = _Once()  # its encoded rows (``_rows``), made once: a file listed in two channels is encoded once


@functools.lru_cache(maxsize=4096)  # a release's wheels share its upload time
def _time_text(when: _dt.datetime) -> str:
    return when.astimezone(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _html(title: str, lines: list[str], status: Status | None = None, body: str | None = None) -> bytes:
    """The page of ``lines`` (or of ``body``: its lines already each ``    <line><br/>\\n``)."""
    if body is None:
        body = "".join(f"    {line}<br/>\n" for line in lines)
    meta = ""
    if status is not None:  # PEP 792
        meta = f'    <meta name="pypi:project-status" content="{status.status}">\n'
        if status.reason:
            meta += f'    <meta name="pypi:project-status-reason" content="{html.escape(status.reason)}">\n'
    return (f'<!DOCTYPE html>\n<html>\n  <head>\n    <meta name="pypi:repository-version" '
            f'content="{API_VERSION}">\n{meta}    <title>{html.escape(title)}</title>\n  </head>\n'
            f"  <body>\n    <h1>{html.escape(title)}</h1>\n{body}  </body>\n</html>\n").encode()


_ENCODE = json.JSONEncoder(sort_keys=True, separators=(",", ":")).encode  # write_json's form, made once
_TEXT = json.encoder.encode_basestring_ascii  # a JSON string as write_json writes it (C)


def _inner(data: dict) -> str:
    """``write_json``'s text of ``data`` without its braces: a fragment of a bigger object."""
    return _ENCODE(data)[1:-1]


def _rows(e: IndexEntry) -> tuple[str, str, str, str, str, str]:
    """An entry's HTML link before and after its provenance attribute, its JSON object's keys
    before and after ``provenance``, in ``write_json``'s form (compact, keys sorted: the others
    fall on either side), each value encoded by json's own C string encoder, and its provenance
    file's name as an attribute's text and as a JSON string's inside ("" without one: both
    escapes go character by character, so a line channel's URL is its directory's text and this).
    Made once, though the site's channel and its line's channel both list it (a tenth of a run),
    and put together by hand: a dict per file encoded with sorted keys cost three times as much."""
    attrs = f'<a href="{html.escape(e.href)}#sha256={e.sha256}"'
    if e.requires_python:
        attrs += f' data-requires-python="{html.escape(e.requires_python)}"'
    if e.metadata_sha256:
        attrs += (f' data-dist-info-metadata="sha256={e.metadata_sha256}"'
                  f' data-core-metadata="sha256={e.metadata_sha256}"')
    if e.yanked is not None:
        attrs += f' data-yanked="{html.escape(e.yanked)}"'
    head = ""
    if e.metadata_sha256:
        meta = f'{{"sha256":{_TEXT(e.metadata_sha256)}}}'
        head = f'"core-metadata":{meta},"dist-info-metadata":{meta},'
    head += f'"filename":{_TEXT(e.filename)},"hashes":{{"sha256":{_TEXT(e.sha256)}}}'
    tail = f'"requires-python":{_TEXT(e.requires_python)},' if e.requires_python else ""
    if e.size is not None:
        tail += f'"size":{int(e.size)!r},'
    if e.upload_time is not None:
        tail += f'"upload-time":{_TEXT(_time_text(e.upload_time))},'
    yanked = "false" if e.yanked is None else _TEXT(e.yanked) if e.yanked else "true"
    tail += f'"url":{_TEXT(e.href)},"yanked":{yanked}'
    prov = e.provenance
    return (attrs, f">{html.escape(e.filename)}</a>", head, tail, "" if prov is None else html.escape(prov),
            "" if prov is None else _TEXT(prov)[1:-1])


def ordered(entries: Iterable[IndexEntry]) -> list[IndexEntry]:
    """``entries`` sorted by version, then file name. Each distinct version is compared once and
    the files sorted by its rank: packaging compares versions in Python, and a channel lists
    thousands of files of a few hundred versions."""
    entries = list(entries)
    rank = {v: i for i, v in enumerate(sorted({e.version for e in entries}))}
    return sorted(entries, key=lambda e: (rank[e.version], e.filename))


def project_pages(project: str, entries: list[IndexEntry], status: Status | None = None,
                  provenance_at: str | None = None) -> tuple[bytes, bytes]:
    """PEP 503 HTML and PEP 691 JSON of one project (files sorted by version, then name), with
    its PEP 792 status when it is retired (``release.publish.project_status``). A provenance file
    is beside the page, or under ``provenance_at`` + ``<project>/`` (a line channel's link to its
    site channel's file)."""
    return _pages(project, ordered(entries), status, provenance_at)


def _pages(project: str, entries: list[IndexEntry], status: Status | None,
           provenance_at: str | None) -> tuple[bytes, bytes]:
    """``project_pages`` of entries already ``ordered``."""
    links, files = [], []
    under: dict[str, tuple[str, str]] = {}  # project -> its provenance directory's texts (``_rows``)
    for e in entries:
        link, close, head, tail, prov_html, prov_json = e.rows
        if e.provenance is None:
            links.append(f"    {link}{close}<br/>\n")
            files.append(f"{{{head},{tail}}}")
            continue
        if provenance_at is not None:
            at = under.get(e.project)
            if at is None:
                where = f"{provenance_at}{e.project}/"
                at = under[e.project] = (html.escape(where), _TEXT(where)[1:-1])
            prov_html, prov_json = at[0] + prov_html, at[1] + prov_json
        links.append(f'    {link} data-provenance="{prov_html}"{close}<br/>\n')
        files.append(f'{{{head},"provenance":"{prov_json}",{tail}}}')
    listed = [v for i, v in enumerate(e.version for e in entries) if i == 0 or v != entries[i - 1].version]
    data: dict = {"meta": {"api-version": API_VERSION}, "name": project, "versions": [str(v) for v in listed]}
    if status is not None:
        data["project-status"] = {"status": status.status, **({"reason": status.reason} if status.reason else {})}
    # write_json's bytes: "files" sorts before every other key
    return (_html(f"Links for {project}", [], status, "".join(links)),
            f'{{"files":[{",".join(files)}],{_inner(data)}}}\n'.encode())


def root_pages(projects: Iterable[str]) -> tuple[bytes, bytes]:
    names = sorted(projects)
    page = _html("Simple index", [f'<a href="{html.escape(p)}/">{html.escape(p)}</a>' for p in names])
    return page, write_json({"meta": {"api-version": API_VERSION}, "projects": [{"name": p} for p in names]})


def write_channel(tree: Tree, prefix: str, listed: list[IndexEntry], metadata: dict[str, bytes] | None = None,
                  statuses: dict[str, Status] | None = None, provenance_at: str | None = None) -> dict[str, list[str]]:
    """Pages of one channel (``prefix`` "" is the tree's root), and the metadata files given;
    a project of ``statuses`` carries its PEP 792 status (``provenance_at``: ``project_pages``)."""
    by_project: dict[str, list[IndexEntry]] = {}
    for entry in listed:
        by_project.setdefault(entry.project, []).append(entry)
        if metadata and entry.filename in metadata:
            tree.write(f"{prefix}{entry.project}/{entry.filename}.metadata", metadata[entry.filename])
    files: dict[str, list[str]] = {}
    for project, entries in by_project.items():
        entries = ordered(entries)
        page, data = _pages(project, entries, (statuses or {}).get(project), provenance_at)
        tree.write(f"{prefix}{project}/index.html", page)
        tree.write(f"{prefix}{project}/index.json", data)
        files[project] = [e.filename for e in entries]
    page, data = root_pages(by_project)
    tree.write(f"{prefix}index.html", page)
    tree.write(f"{prefix}index.json", data)
    return {p: files[p] for p in sorted(files)}
