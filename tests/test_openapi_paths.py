"""The GitHub stand-in's path finder (paths listed once) finds what openapi-core's own finds:
for any URL, the same paths with the same variables in the same order, and the same operation."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from openapi_core.templating.paths.finders import APICallPathFinder
from openapi_core.templating.paths.iterators import TemplatePathsIterator

from tests.support.fake_github import _description, find_openapi_description
from tests.support.openapi_paths import IndexedPathFinder, IndexedPathsIterator


@pytest.fixture(scope="module")
def spec():
    from jsonschema_path import SchemaPath
    return SchemaPath.from_dict(_description(find_openapi_description()))


def patterns() -> list[str]:
    return sorted(_description(find_openapi_description())["paths"])


# Values a URL's variables take: plain ones, empty ones, ones with a slash (GitHub's tags/NAME),
# ones that look like a path's literal segments.
VALUE = st.one_of(st.from_regex(r"[a-z0-9._-]{1,8}", fullmatch=True), st.just(""),
                  st.sampled_from(["tags/v1", "releases", "assets", "heads/main", "1/assets"]))


def found(iterator, url, spec) -> list[tuple[str, dict]]:
    return [(p.path_result.resolved, dict(p.path_result.variables)) for p in iterator(url, spec)]


@settings(max_examples=15, derandomize=True)  # openapi-core's walk: ~0.1 s a URL
@given(data=st.data(), host=st.sampled_from(["http://127.0.0.1:41235", "http://localhost:8080/api/v3", ""]))
def test_every_url_finds_the_same_paths_in_the_same_order(spec, data, host):
    pattern = data.draw(st.sampled_from(patterns()))
    url = host + re.sub(r"\{[^}]+\}", lambda _: data.draw(VALUE), pattern)
    ours = found(IndexedPathsIterator(), url, spec)
    theirs = found(TemplatePathsIterator("paths"), url, spec)
    assert ours == theirs
    if "/" not in url.removeprefix(host).replace("/", "", pattern.count("/")):
        assert ours, url  # a URL made from a path finds at least that path's shape


@pytest.mark.parametrize("method, url", [
    ("get", "http://127.0.0.1:1/repos/rocm/jax-rocm-release/releases"),
    ("post", "http://127.0.0.1:1/repos/rocm/jax-rocm-release/releases/7/assets"),
    ("get", "http://127.0.0.1:1/repos/rocm/jax-rocm-release/git/ref/tags/rocm-jax-v0.9.1"),
    ("patch", "http://127.0.0.1:1/repos/o/r/releases/1"),
    ("delete", "http://127.0.0.1:1/repos/o/r/releases/assets/9"),
    ("get", "http://127.0.0.1:1/no/such/path/anywhere"),
    ("put", "http://127.0.0.1:1/repos/o/r/releases"),  # a path without that operation
])
def test_the_operation_found_is_openapi_cores(spec, method, url):
    def find(finder_cls):
        try:
            got = finder_cls(spec).find(method, url)
        except Exception as exc:  # noqa: BLE001 - the same refusal is the rule
            return type(exc).__name__
        return got.path_result.resolved, got.path_result.variables, got.operation.as_uri()
    assert find(IndexedPathFinder) == find(APICallPathFinder)


# Variables and endings a URL can have around a path's literal parts: the path's own literals
# again, nothing, a trailing newline (which the matcher's ``$`` lets through).
AROUND = st.sampled_from(["", "/", "x", "releases", "{", "}", "\n", "/repos/o/r"])


@settings(max_examples=200, derandomize=True)
@given(data=st.data(), variables=st.lists(VALUE | AROUND, min_size=12, max_size=12),
       before=AROUND, after=AROUND)
def test_a_matcher_is_skipped_only_where_it_cannot_find_the_path(data, variables, before, after):
    """The matchers compiled on first use are skipped only for URLs none of them would find."""
    from openapi_core.templating.paths.parsers import PathParser

    from tests.support.openapi_paths import _Listed

    pattern = data.draw(st.sampled_from(patterns()))
    values = iter(variables)
    url = before + re.sub(r"\{[^}]+\}", lambda _: next(values), pattern) + after
    other = data.draw(st.sampled_from(patterns()))  # a URL of one path tried on another
    for tried in (pattern, other):
        if PathParser(tried, post_expression="$").search(url):
            assert _Listed(tried, None).may_match(url), (tried, url)


def test_a_url_compiles_only_the_matchers_of_paths_it_could_match(spec):
    iterator = IndexedPathsIterator()
    found(iterator, "http://127.0.0.1:1/repos/o/r/releases/7/assets", spec)
    compiled = [listed.pattern for listed in iterator._paths(spec) if listed._parser is not None]
    assert "/repos/{owner}/{repo}/releases/{release_id}/assets" in compiled
    assert 0 < len(compiled) < 20, compiled
