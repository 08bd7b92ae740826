"""The one reader of a simple-API project page (``release.publish.simple_page``): a generated page,
PEP 691 JSON or PEP 503 HTML written every way an index may write it (attribute order, quotes,
case, relative or absolute URLs), reads back as the files it lists with every field; our own
index's pages read back as written; a malformed page is one ``PageError`` line, never another
exception; and the three callers keep their own checks on top of the same entries."""

from __future__ import annotations

import contextlib
import html
import json
import urllib.parse

import pytest
from hypothesis import given
from hypothesis import strategies as st
from packaging.version import Version

from release.check import public_set
from release.publish import pypi_budget, simple_page
from release.publish.channel_pages import IndexEntry, project_pages
from release.publish.pypi_index import parse_simple_page
from release.publish.simple_page import PageError, PageFile

PAGE = "https://pypi.example/simple/jax/"
JSON = "application/vnd.pypi.simple.v1+json"
HEX = st.text("0123456789abcdef", min_size=64, max_size=64)
TEXT = st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), max_size=12)

names = st.builds(lambda v, py: f"jax-0.{v}.0-{py}-none-any.whl", st.integers(0, 99), st.sampled_from(["py3", "cp312"]))
urls = st.sampled_from(["../../files/{}", "https://files.example/p/{}", "/packages/{}", "{}"])
files = st.fixed_dictionaries({
    "filename": names, "url": urls, "sha256": st.none() | HEX, "blake2b_256": st.none() | HEX,
    "requires_python": st.none() | st.sampled_from([">=3.11", ">=3.11, <3.15", "!=3.12.0"]),
    "yanked": st.none() | st.just("") | TEXT.filter(bool), "metadata": st.none() | st.just(True) | HEX,
    "size": st.integers(0, 10**12), "upload_time": st.none() | st.just("2026-11-27T03:04:05.123456Z"),
    "provenance": st.none() | st.sampled_from(["{}.provenance", "https://p.example/{}.provenance"])})
pages = st.lists(files, max_size=5, unique_by=lambda f: f["filename"])


def expected(f: dict, *, json_page: bool) -> PageFile:
    hashes = tuple(sorted((k, f[k]) for k in ("blake2b_256", "sha256") if f[k] is not None))
    meta = f["metadata"]
    return PageFile(
        filename=f["filename"], url=urllib.parse.urljoin(PAGE, f["url"].format(f["filename"])),
        hashes=hashes if json_page else tuple(p for p in hashes if p[0] == "sha256"),
        requires_python=f["requires_python"], yanked=f["yanked"], has_metadata=meta is not None,
        metadata_sha256=meta if isinstance(meta, str) else None, size=f["size"] if json_page else None,
        upload_time=f["upload_time"] if json_page else None,
        provenance=urllib.parse.urljoin(PAGE, f["provenance"].format(f["filename"])) if f["provenance"] else None)


def as_json(page: list[dict], meta_key: str) -> str:
    out = []
    for f in page:
        item: dict = {"filename": f["filename"], "url": f["url"].format(f["filename"]), "size": f["size"],
                      "hashes": {k: f[k] for k in ("sha256", "blake2b_256") if f[k] is not None},
                      "yanked": f["yanked"] if f["yanked"] else f["yanked"] == ""}
        for key, value in (("requires-python", f["requires_python"]), ("upload-time", f["upload_time"])):
            if value is not None:
                item[key] = value
        if f["metadata"] is not None:
            item[meta_key] = True if f["metadata"] is True else {"sha256": f["metadata"]}
        if f["provenance"]:
            item["provenance"] = f["provenance"].format(f["filename"])
        out.append(item)
    return json.dumps({"meta": {"api-version": "1.4"}, "name": "jax", "files": out})


def as_html(page: list[dict], quote: str, upper: bool, reverse: bool, meta_key: str) -> str:
    def attr(key: str, value: str) -> str:
        return f"{key.upper() if upper else key}={quote}{html.escape(value, quote=True)}{quote}"

    rows = []
    for f in page:
        href = f["url"].format(f["filename"]) + (f"#sha256={f['sha256'].upper() if upper else f['sha256']}"
                                                 if f["sha256"] else "")
        attrs = [attr("href", href)]
        if f["requires_python"] is not None:
            attrs.append(attr("data-requires-python", f["requires_python"]))
        if f["yanked"] is not None:
            attrs.append(attr("data-yanked", f["yanked"]))
        if f["metadata"] is not None:
            attrs.append(attr(meta_key, "true" if f["metadata"] is True else f"sha256={f['metadata']}"))
        if f["provenance"]:
            attrs.append(attr("data-provenance", f["provenance"].format(f["filename"])))
        rows.append(f"<{'A' if upper else 'a'} {'  '.join(reversed(attrs) if reverse else attrs)}>"
                    f"{html.escape(f['filename'])}</{'A' if upper else 'a'}><br/>")
    return "<!DOCTYPE html><html><body><h1>Links for jax</h1>\n" + "\n".join(rows) + "\n</body></html>"


@given(pages, st.sampled_from(["core-metadata", "dist-info-metadata"]))
def test_a_json_page_reads_back_as_every_file_with_every_field(page, meta_key):
    assert simple_page.read(JSON, as_json(page, meta_key), PAGE) == [expected(f, json_page=True) for f in page]


@given(pages, st.sampled_from(['"', "'"]), st.booleans(), st.booleans(),
       st.sampled_from(["data-core-metadata", "data-dist-info-metadata"]), st.sampled_from(["text/html", "", "x"]))
def test_an_html_page_reads_back_as_every_file_written_any_way(page, quote, upper, reverse, meta_key, ctype):
    text = as_html(page, quote, upper, reverse, meta_key)
    assert simple_page.read(ctype, text, PAGE) == [expected(f, json_page=False) for f in page]
    assert simple_page.read(ctype, text.encode(), PAGE) == simple_page.read(ctype, text, PAGE)


@given(pages)
def test_the_callers_see_the_same_entries_each_with_its_own_question(page):
    text = as_json(page, "core-metadata")
    files = [expected(f, json_page=True) for f in page]
    assert parse_simple_page(JSON, text) == {f.filename: f.sha256 for f in files}
    assert pypi_budget.parse_page(JSON, text.encode(), "x") == {f.filename: f.size for f in files}
    assert public_set.page_entries(JSON, text, PAGE) == {f.filename: {
        "url": f.url, "sha256": f.sha256, "size": f.size, "requires_python": f.requires_python,
        "metadata_sha256": f.metadata_sha256} for f in files}
    # HTML gives no sizes: the budget cannot count it, and says so (None), unless it lists nothing
    assert pypi_budget.parse_page("text/html", as_html(page, '"', False, False, "data-core-metadata").encode(),
                                  "x") == ({} if not page else None)


@given(st.lists(st.tuples(st.integers(0, 99), HEX, st.none() | HEX, st.none() | st.integers(0, 10**9),
                          st.none() | st.just("")), max_size=4, unique_by=lambda t: t[0]))
def test_our_own_index_pages_read_back_as_written(rows):
    entries = [IndexEntry(filename=f"jax-0.{v}.0-py3-none-any.whl", project="jax", version=Version(f"0.{v}.0"),
                          sha256=sha, size=size, requires_python=">=3.11", metadata_sha256=meta, upload_time=None,
                          yanked=yanked) for v, sha, meta, size, yanked in rows]
    page_html, page_json = project_pages("jax", entries)
    for ctype, text in (("text/html", page_html), (JSON, page_json)):
        got = {f.filename: f for f in simple_page.read(ctype, text, PAGE)}
        for e in entries:
            f = got[e.filename]
            assert (f.sha256, f.metadata_sha256, f.yanked, f.requires_python, f.url) == (
                e.sha256, e.metadata_sha256, e.yanked, ">=3.11", PAGE + e.filename)
            assert f.size == (e.size if ctype == JSON else None) and not f.invalid


json_values = st.recursive(st.none() | st.booleans() | st.integers(-5, 10**15) | TEXT,
                           lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
                               st.sampled_from(["files", "filename", "url", "hashes", "sha256", "size", "yanked",
                                                "core-metadata", "requires-python", "provenance", "x"]),
                               inner, max_size=4), max_leaves=12)


@given(json_values)
def test_a_malformed_json_page_is_one_line_never_another_exception(data):
    text = json.dumps(data)
    try:
        found = simple_page.read(JSON, text, PAGE)
    except PageError as exc:
        assert str(exc).startswith("not a PEP 691 project page: ") and "\n" not in str(exc)
    else:
        assert all(isinstance(f.filename, str) and f.filename for f in found)
        for f in found:  # a field present but unreadable reads as None, and is named
            assert f.size is None or (type(f.size) is int and f.size >= 0)
            assert f.url is None or isinstance(f.url, str)
    # the callers: their own error classes, each one line
    try:
        pypi_budget.parse_page(JSON, text.encode(), "https://x/simple/p/")
    except pypi_budget.SizesUnknown as exc:
        assert str(exc).startswith("https://x/simple/p/: not a PEP 691 project page") and "\n" not in str(exc)


@pytest.mark.parametrize("text", ["[" * 100_000, "{", '{"files": {}}', '{"files": [{"filename": 5}]}', "[]",
                                  '{"files": [{"url": "x"}]}', '{"files": [{"filename": ""}]}'])
def test_pages_of_another_shape_are_refused_in_one_line(text):
    with pytest.raises(PageError) as caught:
        simple_page.read(JSON, text)
    assert "\n" not in str(caught.value)
    with pytest.raises(ValueError):  # what the upload's index check turns into "not a simple API answer"
        parse_simple_page(JSON, text)


@given(st.text(max_size=200))
def test_any_html_text_reads_without_an_exception(text):
    for f in simple_page.read("text/html", "<a href='x'>" + text + "</a>" + text, PAGE):
        assert f.url is not None and f.size is None


@pytest.mark.parametrize(("field", "value"), [("size", -1), ("size", True), ("size", "7"), ("yanked", 3),
                                              ("core-metadata", "yes"), ("hashes", {"sha256": 7}), ("url", 5)])
def test_a_field_given_but_not_as_the_peps_say_reads_as_none_and_is_named(field, value):
    [f] = simple_page.read(JSON, json.dumps({"files": [{"filename": "a.whl", "url": "a.whl", field: value}]}), PAGE)
    assert field in f.invalid
    with pytest.raises(pypi_budget.SizesUnknown) if field == "size" else contextlib.nullcontext():
        pypi_budget.parse_page(JSON, json.dumps({"files": [{"filename": "a.whl", "size": 1, field: value}]}).encode(),
                               "x")


def _one_json(entry: dict, page_url: str = PAGE) -> PageFile:
    [got] = simple_page.read(JSON, json.dumps({"files": [{"filename": "a-1-py3-none-any.whl", **entry}]}), page_url)
    return got


SHA = "ab" * 32


@pytest.mark.parametrize("entry, want", [
    # each field present but of the wrong type reads as None and is named in ``invalid``
    ({"requires-python": 3, "upload-time": 5, "provenance": 1, "hashes": []},
     {"requires_python": None, "upload_time": None, "provenance": None, "hashes": (),
      "invalid": {"requires-python", "upload-time", "provenance", "hashes"}}),
    ({"size": -1}, {"size": None, "invalid": {"size"}}),
    ({}, {"url": None, "invalid": set()}),                   # no url: none, never the page's own URL
    # PEP 658/714: served or not, its sha256 only when it is one, and what could not be read
    ({"core-metadata": {"md5": "x"}}, {"has_metadata": True, "metadata_sha256": None, "invalid": set()}),
    ({"core-metadata": {"sha256": 5}}, {"has_metadata": True, "metadata_sha256": None,
                                        "invalid": {"core-metadata"}}),
    ({"core-metadata": {"sha256": "zz"}}, {"has_metadata": True, "metadata_sha256": None,
                                           "invalid": {"core-metadata"}}),
    ({"core-metadata": {"sha256": SHA.upper()}}, {"has_metadata": True, "metadata_sha256": SHA, "invalid": set()}),
    ({"core-metadata": 5}, {"has_metadata": False, "metadata_sha256": None, "invalid": {"core-metadata"}}),
    ({"dist-info-metadata": "garbage"}, {"has_metadata": False, "invalid": {"dist-info-metadata"}}),
])
def test_each_json_field_reads_exactly_and_names_what_it_could_not(entry, want):
    got = _one_json(entry)
    for field, value in want.items():
        assert getattr(got, field) == (frozenset(value) if field == "invalid" else value), field


def _one_html(anchor: str) -> PageFile:
    [got] = simple_page.read("text/html", f"<html><body>{anchor}</body></html>", PAGE)
    return got


@pytest.mark.parametrize("meta, served, sha, valid", [
    (f"sha256={SHA}", True, SHA, True),
    ("sha256=zz", True, None, False),                      # not a sha256: unreadable, said so
    ("sha256=ab=cd", True, None, False),                   # the first '=' ends the algorithm
    ("md5=xyz", True, None, True),                         # another algorithm: served, no sha256
    ("true", True, None, True),
    ("nonsense", False, None, False),
])
def test_html_metadata_attributes_read_as_pep_658_says(meta, served, sha, valid):
    got = _one_html(f'<a href="a-1-py3-none-any.whl" data-core-metadata="{meta}">a-1-py3-none-any.whl</a>')
    assert (got.has_metadata, got.metadata_sha256) == (served, sha)
    assert got.invalid == (frozenset() if valid else frozenset({"data-core-metadata"}))


@pytest.mark.parametrize("href, hashes", [
    ("a.whl#sha256", ()), ("a.whl#=ab", ()), ("a.whl", ()),
    ("a.whl#SHA256=AB", (("sha256", "ab"),)), ("a.whl#sha256=ab=cd", (("sha256", "ab=cd"),)),
])
def test_an_html_hash_is_the_fragment_split_at_its_first_equals_sign(href, hashes):
    assert _one_html(f'<a href="{href}">a.whl</a>').hashes == hashes


def test_an_anchor_without_href_is_skipped_and_the_rest_still_read():
    text = '<a name="top">top</a><a href="a-1-py3-none-any.whl">a-1-py3-none-any.whl</a>'
    assert [f.filename for f in simple_page.read("text/html", text, PAGE)] == ["a-1-py3-none-any.whl"]


def test_without_a_page_url_links_stay_as_written_and_bytes_that_are_not_utf8_still_read():
    page = '<a href="../files/a.whl">a.whl</a>'.encode() + b"\xff"
    [got] = simple_page.read("text/html", page)
    assert got.url == "../files/a.whl"
    [got] = simple_page.read(JSON, b'{"files": [{"filename": "a.whl", "url": "../f/a.whl", "x": "\xff"}]}')
    assert got.url == "../f/a.whl"


def test_unreadable_json_is_one_line_saying_so():
    with pytest.raises(PageError, match=r"^not a PEP 691 project page: not JSON we can read \("):
        simple_page.read(JSON, "{nope")
