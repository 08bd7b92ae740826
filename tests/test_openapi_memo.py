"""The GitHub stand-in's remembered verdicts (tests/support/openapi_memo.py) are openapi-core's: a
request or an answer that differs in anything openapi-core reads gets a verdict of its own, in any
order, and a remembered violation is reported again in the same words."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from release.sources.github import GitHubError
from tests.support import openapi_memo
from tests.support.fake_github import _answer_problem, _request_problem, schema_instance

REL = "/repos/rocm/jax-rocm-release/releases"
HEADERS = {"accept": "application/vnd.github+json", "content-type": "application/json"}


def test_a_nonconforming_request_after_a_conforming_one_is_caught_each_time(github_client, fake_github):
    github_client.request("POST", REL, json={"tag_name": "rocm-jax-v0.9.1", "draft": True})
    assert fake_github.violations == []
    for _ in range(2):  # the second time from what was remembered, in the same words
        with pytest.raises(GitHubError) as err:
            github_client.request("POST", REL, json={"tag_name": 5, "draft": True})
        assert err.value.status == 400
    first, second = fake_github.violations
    assert first == second and "5 is not of type 'string'" in first
    fake_github.violations.clear()  # proven; do not fail this test at teardown


# Bodies of POST .../releases: conforming ones and ones with a field of the wrong type or a
# required field missing; several share everything but one field.
FIELD = st.sampled_from([("tag_name", "rocm-jax-v0.9.1"), ("tag_name", 5), ("tag_name", None),
                         ("draft", True), ("draft", "yes"), ("name", "x"), ("name", ["x"]),
                         ("prerelease", False), ("prerelease", 0)])
BODY = st.lists(FIELD, max_size=4).map(dict)


@given(bodies=st.lists(BODY, min_size=1, max_size=4),
       queries=st.lists(st.sampled_from([[], [("per_page", "50")], [("per_page", "many")]]),
                        min_size=1, max_size=2))
def test_remembered_request_verdicts_are_openapi_cores_in_any_order(github_openapi, bodies, queries):
    for body, query in zip(bodies * len(queries), queries * len(bodies)):
        data = json.dumps(body).encode()
        fresh = _request_problem(github_openapi, "api", "POST", REL, [], HEADERS, data)
        assert openapi_memo.request_problem(
            github_openapi, "api", "POST", REL, [], HEADERS, data,
            lambda d=data: _request_problem(github_openapi, "api", "POST", REL, [], HEADERS, d)) == fresh
        listed = _request_problem(github_openapi, "api", "GET", REL, query, HEADERS, b"")
        assert openapi_memo.request_problem(
            github_openapi, "api", "GET", REL, query, HEADERS, b"",
            lambda q=query: _request_problem(github_openapi, "api", "GET", REL, q, HEADERS, b"")) == listed


@given(answers=st.lists(st.tuples(st.sampled_from([{}, {"id": "seven"}, {"draft": "no"}, {"assets": [1]},
                                                  {"tag_name": None}]),
                                 st.sampled_from([200, 201])), min_size=1, max_size=6))
def test_remembered_answer_verdicts_are_openapi_cores_in_any_order(github_openapi, answers):
    for change, status in answers:  # GET .../releases/{id} documents 200 only
        answer = {**schema_instance("release"), **change}
        text = json.dumps(answer)
        fresh = _answer_problem(github_openapi, "api", "GET", f"{REL}/1", [], HEADERS, b"", status, text)
        assert (fresh is None) == (change == {} and status == 200)
        assert openapi_memo.answer_problem(
            github_openapi, "api", "GET", f"{REL}/1", [], status, text,
            lambda t=text, s=status: _answer_problem(github_openapi, "api", "GET", f"{REL}/1", [], HEADERS,
                                                     b"", s, t)) == fresh


def tiny_description(header_param: dict) -> dict:
    return {"openapi": "3.0.3", "info": {"title": "t", "version": "1"},
            "components": {"parameters": {"shared": {"name": "X-Shared", "in": "header",
                                                     "schema": {"type": "string", "enum": ["a"]}}}},
            "paths": {"/thing": {"get": {"parameters": [header_param, {"$ref": "#/components/parameters/shared"}],
                                         "responses": {"200": {"description": "ok"}}}},
                      "/other": {"parameters": [{"name": "q", "in": "query", "schema": {"type": "string"}}],
                                 "get": {"responses": {"200": {"description": "ok"}}}}}}


def test_a_header_the_description_declares_is_part_of_what_is_remembered():
    from jsonschema_path import SchemaPath
    from openapi_core import Config, OpenAPI

    description = tiny_description({"name": "X-Mode", "in": "header", "required": True,
                                    "schema": {"type": "string", "enum": ["fast"]}})
    assert openapi_memo.declared_headers(description) == ("x-mode", "x-shared")
    openapi = OpenAPI(SchemaPath.from_dict(description), config=Config(spec_validator_cls=None))
    verdicts = []
    for mode in ("fast", "slow", "fast", "slow"):
        headers = {**HEADERS, "x-mode": mode, "x-shared": "a"}
        verdicts.append(openapi_memo.request_problem(
            openapi, "api", "GET", "/thing", [], headers, b"",
            lambda h=headers: _request_problem(openapi, "api", "GET", "/thing", [], h, b"")))
    assert verdicts[0] is None and verdicts[2] is None
    assert verdicts[1] and verdicts[3] == verdicts[1]  # "slow" is no value of X-Mode
