"""The stand-in's format checks (tests/support/openapi_formats.py, one copy of the format checker
for every check) give openapi-core's own verdicts: a value a format refuses is refused the same
way, each time, whichever came first, in requests ("write" schemas) and answers ("read" ones)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st
from jsonschema_path import SchemaPath
from openapi_core import Config, OpenAPI
from openapi_core.testing import MockRequest, MockResponse
from openapi_core.validation.request import V30RequestValidator
from openapi_core.validation.response import V30ResponseValidator

from tests.support.openapi_formats import formats_once

THING = {"type": "object", "properties": {
    "count": {"type": "integer", "format": "int32"},
    "size": {"type": "integer", "format": "int64"},
    "ratio": {"type": "number", "format": "float"},
    "mail": {"type": "string", "format": "email"},
    "blob": {"type": "string", "format": "byte"},
    "pair": {"type": "integer", "format": "even"}}}  # a format only an extra validator knows
DESCRIPTION = {
    "openapi": "3.0.3", "info": {"title": "t", "version": "1"},
    "servers": [{"url": "http://h"}],
    "paths": {"/things": {"post": {
        "requestBody": {"content": {"application/json": {"schema": THING}}},
        "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": THING}}}}}}}}


def _apps(**extra):
    spec = SchemaPath.from_dict(DESCRIPTION)
    return (OpenAPI(spec, config=Config(spec_validator_cls=None, **extra)),
            OpenAPI(spec, config=Config(spec_validator_cls=None,
                                        request_validator_cls=formats_once(V30RequestValidator),
                                        response_validator_cls=formats_once(V30ResponseValidator),
                                        **extra)))


LIBRARY, ONCE = _apps()
EVEN = {"even": lambda value: value % 2 == 0}
LIBRARY_EXTRA, ONCE_EXTRA = _apps(extra_format_validators=EVEN)

VALUE = st.one_of(
    st.tuples(st.just("count"), st.sampled_from([0, 7, 2**31 - 1, 2**31, -2**31 - 1])),
    st.tuples(st.just("size"), st.sampled_from([1, 2**63 - 1, 2**63])),
    st.tuples(st.just("ratio"), st.sampled_from([0.5, 1, 3.4e38, 1e300])),
    st.tuples(st.just("mail"), st.sampled_from(["a@b.example", "nobody", ""])),
    st.tuples(st.just("blob"), st.sampled_from(["aGk=", "not base64!", "YQ"])),
    st.tuples(st.just("pair"), st.sampled_from([2, 3])))
BODIES = st.lists(st.lists(VALUE, max_size=3).map(dict), min_size=1, max_size=6)


def _verdict(check) -> str | None:
    try:
        check()
    except Exception as exc:  # openapi-core's own error: its type and words are the verdict
        return f"{type(exc).__name__}: {exc} {getattr(exc, '__cause__', None)!r}"
    return None


def _verdicts(app, body: dict) -> tuple:
    data = json.dumps(body).encode()
    request = MockRequest("http://h", "post", "/things", data=data, content_type="application/json")
    response = MockResponse(data, status_code=200, content_type="application/json")
    return (_verdict(lambda: app.validate_request(request)),
            _verdict(lambda: app.validate_response(request, response)))


@given(BODIES)
def test_every_format_verdict_is_the_librarys_in_any_order(bodies):
    for body in bodies:
        assert _verdicts(ONCE, body) == _verdicts(LIBRARY, body), body
        assert _verdicts(ONCE_EXTRA, body) == _verdicts(LIBRARY_EXTRA, body), body


def test_an_extra_format_validator_is_applied_as_the_library_applies_it():
    assert _verdicts(ONCE_EXTRA, {"pair": 2}) == (None, None)
    assert all(_verdicts(ONCE_EXTRA, {"pair": 3}))
    assert _verdicts(ONCE, {"pair": 3}) == (None, None)  # without it, an unknown format passes


@pytest.mark.parametrize("field,bad", [("count", 2**31), ("mail", "nobody"), ("size", 2**63)])
def test_a_value_its_format_refuses_is_refused_after_good_ones(field, bad):
    assert _verdicts(ONCE, {field: 1 if field != "mail" else "a@b.example"}) == (None, None)
    request_verdict, answer_verdict = _verdicts(ONCE, {field: bad})
    assert request_verdict and answer_verdict
