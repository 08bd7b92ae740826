"""A channel's project pages (``release.publish.channel_pages``): the PEP 691 JSON page is its
entries' document in ``write_json``'s form (compact, keys sorted: the site stays byte-identical
however the rows are put together), each file row only its own fields; a line channel's page
(``provenance_at``) is the page of the same entries with each provenance URL under that directory,
whichever channel is written first (the rows are encoded once and shared)."""

from __future__ import annotations

import dataclasses
import datetime as _dt
import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from packaging.version import Version

from release.publish.channel_pages import API_VERSION, IndexEntry, ordered, project_pages, write_channel
from release.publish.project_status import Status
from release.publish.staging import Tree, write_json

HEX = st.text("0123456789abcdef", min_size=64, max_size=64)
TEXT = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=8)  # quotes, <, é, 🙂

entries = st.builds(
    lambda v, tag, sha, size, py, meta, when, url, yanked, prov: IndexEntry(
        filename=f"jax-0.{v}.0{tag}-py3-none-any.whl", project="jax", version=Version(f"0.{v}.0{tag}"), sha256=sha,
        size=size, requires_python=py, metadata_sha256=meta, upload_time=when, url=url, yanked=yanked,
        provenance=None if prov is None else f"jax-0.{v}.0{tag}-py3-none-any.whl{prov}"),
    st.integers(0, 30), st.sampled_from(["", "rc1", ".post1", ".dev20261127"]), HEX, st.none() | st.integers(0, 10**12),
    st.none() | st.sampled_from([">=3.11", ">=3.11,<3.15"]), st.none() | HEX,
    st.none() | st.datetimes(timezones=st.just(_dt.timezone.utc)), st.sampled_from(["", "https://h.example/a b.whl"]),
    st.none() | TEXT, st.none() | st.sampled_from([".provenance", ".prov\u00e9<\"&"]))
statuses = st.none() | st.builds(Status, st.sampled_from(["archived", "deprecated"]), TEXT)


def document(listed: list[IndexEntry], status: Status | None, at: str | None) -> dict:
    """PEP 691 (1.1 sizes and upload times, PEP 740 provenance, PEP 792 status), from the PEPs."""
    files = []
    for e in sorted(listed, key=lambda e: (e.version, e.filename)):
        row: dict = {"filename": e.filename, "url": e.url or e.filename,
                     "hashes": {"sha256": e.sha256}, "yanked": False if e.yanked is None else (e.yanked or True)}
        if e.size is not None:
            row["size"] = e.size
        if e.metadata_sha256:
            row["core-metadata"] = row["dist-info-metadata"] = {"sha256": e.metadata_sha256}
        if e.requires_python:
            row["requires-python"] = e.requires_python
        if e.upload_time is not None:
            row["upload-time"] = e.upload_time.strftime("%Y-%m-%dT%H:%M:%SZ")
        if e.provenance is not None:
            row["provenance"] = e.provenance if at is None else f"{at}{e.project}/{e.provenance}"
        files.append(row)
    data = {"meta": {"api-version": API_VERSION}, "name": "jax", "files": files,
            "versions": [str(v) for v in sorted({e.version for e in listed})]}
    if status is not None:
        data["project-status"] = {"status": status.status, **({"reason": status.reason} if status.reason else {})}
    return data


@given(st.lists(entries, max_size=5, unique_by=lambda e: e.filename), statuses, st.booleans())
def test_a_line_page_is_the_site_page_with_provenance_under_its_directory(listed, status, line_first):
    at = "../../../nightly/"
    order = [at, None] if line_first else [None, at]
    pages = {where: project_pages("jax", listed, status, provenance_at=where) for where in order}
    for where, (_page, data) in pages.items():
        assert data == write_json(document(listed, status, where))
        assert json.loads(data)["files"] == document(listed, status, where)["files"]
    moved = [e if e.provenance is None else dataclasses.replace(e, provenance=f"{at}{e.project}/{e.provenance}")
             for e in listed]
    assert pages[at] == project_pages("jax", moved, status)


@given(st.lists(st.tuples(st.integers(0, 3), st.sampled_from(["0.{}", "0.{}.0", "0.{}.0.0", "0.{}rc1", "0.{}.0rc1",
                                                             "0.{}.post1", "1!0.{}"]), st.sampled_from("ab")),
                max_size=12, unique=True))
def test_files_go_by_version_then_name_and_each_version_is_named_once(made):
    """Equal versions written apart (0.1, 0.1.0) sort together, by file name, and the page names
    the version once, as the first of its files in that order writes it."""
    listed = [IndexEntry(filename=f"jax-{shape.format(v)}-{x}.whl", project="jax", version=Version(shape.format(v)),
                         sha256="0" * 64, size=1, requires_python=None, metadata_sha256=None, upload_time=None)
              for v, shape, x in made]
    model = sorted(listed, key=lambda e: (e.version, e.filename))
    assert ordered(listed) == model and ordered(reversed(listed)) == model
    data = json.loads(project_pages("jax", listed)[1])
    assert [f["filename"] for f in data["files"]] == [e.filename for e in model]
    assert data["versions"] == [str(v) for v in dict.fromkeys(e.version for e in model)]


@given(entries, st.booleans())
def test_an_entry_made_by_the_index_is_the_entry_its_fields_make(entry, rows_first):
    """The index makes its entries without the frozen __init__ (``IndexEntry.made``): each is the
    entry of the same fields, equal, hashed and shown alike, as frozen, and with the same rows,
    whichever is asked for them first; a field added to IndexEntry must be added there too."""
    values = {f.name: getattr(entry, f.name) for f in dataclasses.fields(IndexEntry)}
    assert "__post_init__" not in vars(IndexEntry)
    made = IndexEntry.made(**values)
    if rows_first:
        assert made.rows == entry.rows
    assert (made, hash(made), repr(made)) == (entry, hash(entry), repr(entry))
    assert made.rows == entry.rows and {k: v for k, v in vars(made).items() if k != "rows"} == values
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.filename = "b.whl"  # type: ignore[misc]


def _entry(project: str, version: str, tag: str = "linux_x86_64") -> IndexEntry:
    name = f"{project.replace('-', '_')}-{version}-cp312-cp312-{tag}.whl"
    return IndexEntry(filename=name, project=project, version=Version(version), sha256="ab" * 32, size=len(name),
                      requires_python=None, metadata_sha256="cd" * 32, upload_time=None,
                      provenance=f"{name}.provenance")


def _written(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_a_channel_is_each_projects_pages_its_metadata_and_a_root_naming_every_project(tmp_path):
    """Under its prefix, a channel holds each project's two pages as ``project_pages`` makes them
    from that project's files alone (in any order listed), with its status only, each listed file's
    metadata beside it when given (no other metadata file), and root pages naming each project once,
    sorted; it answers each project's files in page order, projects sorted."""
    listed = [_entry("jax-rocm7-plugin", "0.10.0"), _entry("jax-rocm7-pjrt", "0.9.1", "manylinux_2_28_x86_64"),
              _entry("jax-rocm7-plugin", "0.9.1"), _entry("jax-rocm7-pjrt", "0.9.1"),
              _entry("jax-rocm7-plugin", "0.10.0rc1")]
    metadata = {listed[0].filename: b"Metadata-Version: 2.1\n", listed[3].filename: b"Name: jax-rocm7-pjrt\n",
                "not-listed.whl": b"x"}
    retired = Status("deprecated", "use jax-rocm8")
    for prefix in ("", "nightly/2026-11-27/"):
        root = tmp_path / (prefix or "top")
        tree = Tree(root)
        files = write_channel(tree, prefix, list(reversed(listed)), metadata,
                              statuses={"jax-rocm7-pjrt": retired}, provenance_at="../../")
        tree.close()
        by_project = {p: [e for e in listed if e.project == p] for p in ("jax-rocm7-pjrt", "jax-rocm7-plugin")}
        assert files == {p: [e.filename for e in ordered(es)] for p, es in by_project.items()}
        assert list(files) == ["jax-rocm7-pjrt", "jax-rocm7-plugin"]
        expected = {f"{prefix}{listed[0].project}/{listed[0].filename}.metadata": b"Metadata-Version: 2.1\n",
                    f"{prefix}{listed[3].project}/{listed[3].filename}.metadata": b"Name: jax-rocm7-pjrt\n"}
        for project, entries in by_project.items():
            page, data = project_pages(project, entries, retired if project == "jax-rocm7-pjrt" else None, "../../")
            expected[f"{prefix}{project}/index.html"], expected[f"{prefix}{project}/index.json"] = page, data
        root_json = write_json({"meta": {"api-version": API_VERSION},
                                "projects": [{"name": "jax-rocm7-pjrt"}, {"name": "jax-rocm7-plugin"}]})
        written = _written(root)
        assert written.pop(f"{prefix}index.json") == root_json
        html_page = written.pop(f"{prefix}index.html").decode()
        assert written == expected
        links = [line.strip() for line in html_page.splitlines() if "<a " in line]
        assert links == ['<a href="jax-rocm7-pjrt/">jax-rocm7-pjrt</a><br/>',
                         '<a href="jax-rocm7-plugin/">jax-rocm7-plugin</a><br/>']
        assert "<title>Simple index</title>" in html_page and f'content="{API_VERSION}"' in html_page


def test_the_html_page_links_each_file_in_order_under_the_repository_version_and_status():
    """PEP 503's page: the repository version (PEP 629), a retired project's status and its reason
    (PEP 792, escaped), the title, then one link per file in page order, each on its own line."""
    entries = [_entry("jax-rocm7-pjrt", "0.9.1"), _entry("jax-rocm7-pjrt", "0.9.0")]
    rows = [f'<a href="{e.filename}#sha256={"ab" * 32}" data-dist-info-metadata="sha256={"cd" * 32}" '
            f'data-core-metadata="sha256={"cd" * 32}">{e.filename}</a>' for e in reversed(entries)]
    head = ('<!DOCTYPE html>\n<html>\n  <head>\n    <meta name="pypi:repository-version" content="'
            + API_VERSION + '">\n{}'
            '    <title>Links for jax-rocm7-pjrt</title>\n  </head>\n  <body>\n    <h1>Links for jax-rocm7-pjrt</h1>\n')
    body = "".join(f"    {row}<br/>\n" for row in rows) + "  </body>\n</html>\n"
    plain = [dataclasses.replace(e, provenance=None) for e in entries]
    assert project_pages("jax-rocm7-pjrt", plain)[0].decode() == head.format("") + body
    status = '    <meta name="pypi:project-status" content="archived">\n'
    assert project_pages("jax-rocm7-pjrt", plain, Status("archived"))[0].decode() == head.format(status) + body
    reason = '    <meta name="pypi:project-status-reason" content="moved to &quot;jax-rocm8&quot; &amp; on">\n'
    assert (project_pages("jax-rocm7-pjrt", plain, Status("archived", 'moved to "jax-rocm8" & on'))[0].decode()
            == head.format(status + reason) + body)
