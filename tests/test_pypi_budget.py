"""PyPI as a budget: before any upload, every file fits the per-file limit and each project's
total (what the index's JSON says it holds today, plus the release's files it does not list
yet) fits the per-project limit; what would not fit is named (file, size, limit; project,
total + new, limit) and nothing is uploaded. The index's answers are generated (they come from
outside) and served over HTTP on 127.0.0.1."""

from __future__ import annotations

import dataclasses
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from release.core.errors import RemoteError, UserError
from release.publish import pypi_budget
from release.publish.pypi_budget import ProjectLimits, SizesUnknown, check, parse_project_limits
from tests.support.hostile_server import HostileServer, answer

PJRT, PLUGIN = "jax-rocm7-pjrt", "jax-rocm7-plugin"
JSON_TYPE = {"Content-Type": "application/vnd.pypi.simple.v1+json"}


@dataclasses.dataclass(frozen=True)
class F:
    name: str
    project: str
    size: int | None


@pytest.fixture(scope="module")
def index():
    server = HostileServer()
    yield server
    server.close()


def page(sizes: dict[str, int], **extra) -> dict:
    """A PEP 691 project page with PEP 700 sizes, as PyPI answers it."""
    return {"meta": {"api-version": "1.3"}, "name": "x", "versions": [],
            "files": [{"filename": n, "url": f"https://files.example/{n}", "hashes": {"sha256": "0" * 64},
                       "size": s, **extra} for n, s in sizes.items()]}


def serve(index: HostileServer, pages: dict[str, object], status: int = 200, headers=JSON_TYPE) -> str:
    """Each project's page under a fresh prefix; the simple API root URL."""
    root = f"/simple{len(index.routes)}"
    for project, body in pages.items():
        index.route(f"{root}/{project}/", answer(body, status, headers))
    return index.url + root + "/"


def wheel(project: str, version: str, python: str) -> str:
    return f"{project.replace('-', '_')}-{version}-{python}-{python}-manylinux_2_28_x86_64.whl"


sizes_held = st.dictionaries(st.sampled_from([wheel(p, f"0.{m}.{n}", py) for p in (PJRT, PLUGIN)
                                              for m in (9, 10) for n in range(3)
                                              for py in ("cp312", "cp313")]),
                             st.integers(0, 200 << 20), max_size=12)
GIB = 1 << 30


@given(held=sizes_held, new=st.lists(st.integers(1, 160 << 20), min_size=2, max_size=4),
       limit=st.integers(1, 3 * GIB), already=st.booleans())
def test_a_project_fits_when_todays_total_plus_what_it_lacks_is_within_its_limit(index, held, new, limit,
                                                                                    already):
    files = [F(wheel(PJRT, "0.11.1", "py3") if i == 0 else wheel(PLUGIN, "0.11.1", f"cp31{i}"),
               PJRT if i == 0 else PLUGIN, size) for i, size in enumerate(new)]
    on_index = {p: {n: s for n, s in held.items() if n.startswith(p.replace("-", "_"))} for p in (PJRT, PLUGIN)}
    if already:  # a re-run: the pjrt went up before; it is in today's total, not new again
        on_index[PJRT][files[0].name] = files[0].size
    url = serve(index, {p: page(s) for p, s in on_index.items()})
    total = {p: sum(s.values()) for p, s in on_index.items()}
    adds = {p: sum(f.size for f in files if f.project == p and f.name not in on_index[p]) for p in (PJRT, PLUGIN)}
    over = [p for p in (PJRT, PLUGIN) if total[p] + adds[p] > limit]
    if over:
        with pytest.raises(UserError) as caught:
            check(files, url, 1 << 40, ProjectLimits(limit))
        said = str(caught.value)
        for p in over:
            assert f"{p} holds {total[p]:,} bytes" in said and f"+ {adds[p]:,} bytes" in said
            assert f"= {total[p] + adds[p]:,} bytes" in said
        assert f"project limit of {limit:,} bytes" in said and said.endswith("nothing was uploaded")
        assert all(p in said for p in over) and not any(f"{p} holds" in said for p in {PJRT, PLUGIN} - set(over))
    else:
        uses = {u.project: u for u in check(files, url, 1 << 40, ProjectLimits(limit))}
        assert {p: (u.held, u.new, u.limit) for p, u in uses.items()} == {
            p: (total[p], adds[p], limit) for p in (PJRT, PLUGIN)}


def test_each_project_has_its_own_limit_by_its_canonical_name(index):
    files = [F(wheel(PJRT, "0.11.1", "py3"), PJRT, 101), F(wheel(PLUGIN, "0.11.1", "cp312"), PLUGIN, 101)]
    url = serve(index, {PJRT: page({"a.whl": 900}), PLUGIN: page({"b.whl": 900})})
    raised = parse_project_limits("1000, JAX_rocm7.PJRT=2000")
    with pytest.raises(UserError, match=f"^{PLUGIN} holds 900 bytes .*over the project limit of 1,000 bytes") as caught:
        check(files, url, 1 << 30, raised)
    assert PJRT not in str(caught.value)
    uses = check(files, url, 1 << 30, parse_project_limits("1000,jax-rocm7-plugin=none,jax-rocm7-pjrt=1001"))
    assert [(u.project, u.held, u.new, u.limit, u.fits) for u in uses] == [
        (PJRT, 900, 101, 1001, True), (PLUGIN, None, 101, None, True)]


def test_a_file_over_the_per_file_limit_is_named_with_its_size_and_the_index_is_not_asked(index):
    files = [F("p.whl", PJRT, 150 << 20), F("q.whl", PLUGIN, 90 << 20), F("r.whl", PLUGIN, (100 << 20) + 1)]
    before = len(index.seen)
    with pytest.raises(UserError) as caught:
        check(files, index.url + "/never/", 100 << 20, ProjectLimits())
    said = str(caught.value)
    assert "p.whl is 157,286,400 bytes (150.0 MiB), over the per-file limit of 104,857,600 bytes" in said
    assert "r.whl is 104,857,601 bytes" in said and "q.whl" not in said
    assert len(index.seen) == before


def test_a_project_the_index_does_not_know_holds_nothing(index):
    url = serve(index, {})  # every project page 404s
    uses = check([F("p.whl", PJRT, 10), F("q.whl", PLUGIN, 20)], url, 100, ProjectLimits(30))
    assert [(u.held, u.new) for u in uses] == [(0, 10), (0, 20)]
    with pytest.raises(UserError, match="holds 0 bytes .* \\+ 20 bytes .*new = 20 bytes"):
        check([F("p.whl", PJRT, 10), F("q.whl", PLUGIN, 20)], url, 100, ProjectLimits(19))


def test_yanked_files_count_since_yanking_frees_no_storage(index):
    url = serve(index, {PJRT: page({"old.whl": 600}, yanked="broken")})
    with pytest.raises(UserError, match="holds 600 bytes"):
        check([F("p.whl", PJRT, 500)], url, 1000, ProjectLimits(1000))


@pytest.mark.parametrize("body,headers,status", [
    (b'<a href="x.whl#sha256=00">x.whl</a>', {"Content-Type": "text/html"}, 200),  # PEP 503: no sizes
    (page({"x.whl": 1}) | {"files": [{"filename": "x.whl", "url": "u", "hashes": {}}]}, JSON_TYPE, 200),
])
def test_a_page_that_lists_files_without_sizes_cannot_say_the_total(index, body, headers, status):
    url = serve(index, {PJRT: body}, status, headers)
    with pytest.raises(SizesUnknown, match=f"lists files of {PJRT} without their sizes.*nothing was uploaded"):
        check([F("p.whl", PJRT, 5)], url, 100, ProjectLimits())
    before = len(index.seen)  # with no limit for the project, the index is not asked
    assert check([F("p.whl", PJRT, 5)], url, 100, parse_project_limits(f"{PJRT}=none"))[0].held is None
    assert len(index.seen) == before


@given(body=st.one_of(
    st.just(b"not json"), st.just(b"[]"), st.just(b'{"files": {}}'),
    st.builds(lambda s: json.dumps(page({"x.whl": 0}) | {"files": [{"filename": "x.whl", "size": s}]}).encode(),
              st.one_of(st.integers(max_value=-1), st.booleans(), st.floats(allow_nan=False), st.text(max_size=3))),
    st.builds(lambda n: json.dumps({"files": [{"filename": n, "size": 1}]}).encode(),
              st.one_of(st.integers(), st.none(), st.lists(st.text(max_size=2), max_size=2)))))
def test_an_answer_that_is_no_project_page_is_the_index_s_failure(index, body):
    url = serve(index, {PJRT: body})
    with pytest.raises(SizesUnknown) as caught:
        check([F("p.whl", PJRT, 5)], url, 100, ProjectLimits())
    assert isinstance(caught.value, RemoteError) and "\n" not in str(caught.value)


@pytest.mark.parametrize("status", [500, 503, 403])
def test_an_index_that_does_not_answer_200_or_404_is_exit_3(index, status):
    url = serve(index, {PJRT: page({})}, status)
    with pytest.raises(SizesUnknown, match=f"answered {status}; nothing was uploaded"):
        check([F("p.whl", PJRT, 5)], url, 100, ProjectLimits())


def test_no_answer_at_all_is_exit_3():
    with pytest.raises(SizesUnknown, match="no answer"):
        check([F("p.whl", PJRT, 5)], "http://127.0.0.1:9/simple/", 100, ProjectLimits())


@pytest.mark.parametrize("text,expected", [
    ("10GiB", ProjectLimits(10 << 30)),
    ("none", ProjectLimits(None)),
    ("jax-rocm7-pjrt=20GiB", ProjectLimits(10 << 30, (("jax-rocm7-pjrt", 20 << 30),))),
    ("5GB, Jax_Rocm10.Plugin=none", ProjectLimits(5 * 10**9, (("jax-rocm10-plugin", None),))),
    ("a=1,a=2", ProjectLimits(10 << 30, (("a", 2),))),
])
def test_project_limits_read_as_written(text, expected):
    assert parse_project_limits(text) == expected


@pytest.mark.parametrize("text", ["", ",", "10 TB", "x=", "-a=5", "a=0", "a b=5", "5GiB,,"])
def test_a_bad_project_limit_is_one_line(text):
    with pytest.raises(UserError) as caught:
        parse_project_limits(text)
    assert "\n" not in str(caught.value) and str(caught.value).startswith("--project-limit")


def test_the_defaults_are_pypis_documented_ones():
    assert pypi_budget.DEFAULT_FILE_LIMIT == 100 * 1024 * 1024
    assert pypi_budget.DEFAULT_PROJECT_LIMIT == 10 * 1024 ** 3
    assert pypi_budget.project_limits_default({}) == ProjectLimits()
    assert pypi_budget.project_limits_default({pypi_budget.PROJECT_LIMIT_ENV: "none"}) == ProjectLimits(None)
