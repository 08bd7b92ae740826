"""What GitHub's description says of a request or an answer, worked out once per run of the suite.

The GitHub stand-in checks every request it gets and every answer it gives against GitHub's
OpenAPI description, and openapi-core spends about 13 ms of CPU on each (most of the stand-in's
CPU, and so of many tests'). Its verdict is a function of what it reads and nothing else, and the
suite sends the same requests and answers thousands of times (each test's fresh stand-in sees the
same listings, the same uploads, the same drafts), so each verdict is remembered, per description
object, under a key made of exactly what openapi-core reads:

- a request: the host (API or uploads), method, path, query, ``Content-Type``, the body (its
  SHA-256), and the headers the description declares as parameters of any operation (none in
  GitHub's today; computed from the description, so a later version that declares one is keyed by
  it too). It declares no security scheme, so the token is not read.
- an answer: the request's host, method, path and query (they choose the operation), the status
  and the JSON text checked (its SHA-256); the answer's own headers are not passed to openapi-core.

A verdict is the problem text (``None``: it conforms), so a remembered one reports a violation in
the same words. ``tests/test_openapi_memo.py`` holds the remembered verdicts to openapi-core's.
"""

from __future__ import annotations

import hashlib
import threading
from typing import Callable

_LOCK = threading.Lock()
# id(openapi) -> (openapi, declared header names, verdicts); the object is kept so that its id is
# never reused by another description while its verdicts are here
_BY_DESCRIPTION: dict[int, tuple[object, tuple[str, ...], dict[tuple, str | None]]] = {}


def declared_headers(description: dict) -> tuple[str, ...]:
    """The lower-cased names of every ``in: header`` parameter of the description's paths."""
    shared = description.get("components", {}).get("parameters", {})
    names = set()
    for item in description.get("paths", {}).values():
        lists = [item.get("parameters", [])]
        lists += [op.get("parameters", []) for op in item.values() if isinstance(op, dict)]
        for params in lists:
            for param in params:
                if "$ref" in param:
                    param = shared.get(param["$ref"].rsplit("/", 1)[1], {})
                if param.get("in") == "header":
                    names.add(str(param["name"]).lower())
    return tuple(sorted(names))


def _entry(openapi) -> tuple[object, tuple[str, ...], dict[tuple, str | None]]:
    with _LOCK:
        entry = _BY_DESCRIPTION.get(id(openapi))
        if entry is None:
            with openapi.spec.open() as description:
                entry = (openapi, declared_headers(description), {})
            _BY_DESCRIPTION[id(openapi)] = entry
        return entry


def _once(openapi, key: tuple, check: Callable[[], str | None]) -> str | None:
    verdicts = _entry(openapi)[2]
    with _LOCK:
        if key in verdicts:
            return verdicts[key]
    found = check()
    with _LOCK:
        verdicts[key] = found
    return found


def request_problem(openapi, kind: str, method: str, path: str, query: list, headers: dict,
                    body: bytes, check: Callable[[], str | None]) -> str | None:
    """``check()``'s verdict on this request, worked out once for everything openapi-core reads."""
    read = _entry(openapi)[1]
    key = ("request", kind, method, path, tuple(query), headers.get("content-type", ""),
           hashlib.sha256(body or b"").digest(), tuple(headers.get(name) for name in read))
    return _once(openapi, key, check)


def answer_problem(openapi, kind: str, method: str, path: str, query: list, status: int, text: str,
                   check: Callable[[], str | None]) -> str | None:
    """``check()``'s verdict on this answer (``text``: the JSON checked), worked out once."""
    digest = hashlib.sha256(text.encode()).digest()  # a digest, not the text: a run keeps thousands
    return _once(openapi, ("answer", kind, method, path, tuple(query), status, digest), check)
