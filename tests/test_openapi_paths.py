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
