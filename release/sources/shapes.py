"""The shape of every GitHub object the tool reads, checked once, where the answer enters.

A reader takes an object from an answer through ``check(data, SHAPE, what)`` and then reads
the members the shape names without checking them again: an answer that is not what GitHub
documents (an issue whose ``user`` is a string, a pull request whose ``head.label`` is null
where a reader splits it, a check run with a string ``id``, a time past the year 9999) is one
``MalformedAnswer`` line, exit 3, never a traceback. Members a shape does not name are not
read, so they are not checked (GitHub adds members over time). ``fields(data, what, name=type)``
is the same check for a flat object read in one place.

A shape maps member names to a spec: a type or a tuple of types (``int`` never admits a
bool), a nested shape (an object), ``Maybe(spec)`` (null or absent), ``ListOf(spec)``,
``OneOf(spec, ...)``, or ``TIME``: an ISO 8601 time that is a moment a datetime holds in UTC
(``9999-12-31T23:59:59-14:00`` is not: it falls in the year 10000).
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Mapping
from typing import Any, Union

from release.core import sanitize
from release.sources.github_errors import MalformedAnswer


class Maybe:
    def __init__(self, spec: Spec):
        self.spec = spec


class ListOf:
    def __init__(self, spec: Spec):
        self.spec = spec


class OneOf:
    def __init__(self, *specs: Spec):
        self.specs = specs


class _Time:
    pass


TIME = _Time()
LAST_YEAR = 9998  # a later time leaves no room for the day or week the tool adds to one
Spec = Union[type, tuple, Mapping[str, Any], Maybe, ListOf, OneOf, _Time]


def parse_time(text: object) -> _dt.datetime | None:
    """An answer's ISO 8601 time as an aware UTC datetime (one without a zone is UTC, as
    GitHub's are); None when it is not a time, or not one a datetime holds once in UTC with
    room to add to it (after ``LAST_YEAR``)."""
    if not isinstance(text, str) or len(text) > 40:
        return None
    try:
        when = _dt.datetime.fromisoformat(text.replace("Z", "+00:00").replace("z", "+00:00"))
        when = when.replace(tzinfo=_dt.timezone.utc) if when.tzinfo is None else when.astimezone(_dt.timezone.utc)
    except (ValueError, OverflowError):
        return None
    return when if when.year <= LAST_YEAR else None


def _kind(spec: Spec) -> str:
    if isinstance(spec, type):
        return {"str": "a string", "int": "an integer", "bool": "true or false", "dict": "an object",
                "list": "a list"}.get(spec.__name__, spec.__name__)
    if isinstance(spec, tuple):
        return " or ".join(_kind(s) for s in spec)
    if isinstance(spec, Mapping):
        return "an object"
    if isinstance(spec, Maybe):
        return _kind(spec.spec) + " or null"
    if isinstance(spec, ListOf):
        return "a list"
    if isinstance(spec, OneOf):
        return " or ".join(_kind(s) for s in spec.specs)
    return "an ISO 8601 time"


def _bad(value: object, where: str, spec: Spec) -> str:
    """``7 for 'head.label', expected a string or null``: one line, the value cut and made safe."""
    if value is None:
        shown = "nothing"
    elif isinstance(value, (dict, list)):
        shown = f"a JSON {'object' if isinstance(value, dict) else 'list'}"
    else:
        shown = repr(sanitize.line(value) if isinstance(value, str) else value)[:60]
    if isinstance(spec, _Time) and isinstance(value, str):
        try:
            _dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
            what = f"is a time outside the years 1 to {LAST_YEAR} in UTC"
        except ValueError:
            what = "is not an ISO 8601 time"
        return f"{where} {sanitize.line(value[:40])!r} {what}"
    return f"{shown}{f' for {where!r}' if where else ''}, expected {_kind(spec)}"


def _problem(value: Any, spec: Spec, where: str) -> str | None:
    """What is wrong with ``value`` as ``spec`` (naming the member), or None. Iterative over
    lists, recursive only over a shape's own (fixed, shallow) nesting."""
    if isinstance(spec, Maybe):
        return None if value is None else _problem(value, spec.spec, where)
    if isinstance(spec, OneOf):
        if any(_problem(value, s, where) is None for s in spec.specs):
            return None
        return _bad(value, where, spec)
    if isinstance(spec, _Time):
        return None if parse_time(value) is not None else _bad(value, where, spec)
    if isinstance(spec, ListOf):
        if not isinstance(value, list):
            return _bad(value, where, spec)
        for index, item in enumerate(value):
            found = _problem(item, spec.spec, f"{where}[{index}]")
            if found:
                return found
        return None
    if isinstance(spec, Mapping):
        if not isinstance(value, dict):
            return _bad(value, where, spec)
        for name, inner in spec.items():
            found = _problem(value.get(name), inner, f"{where}.{name}" if where else name)
            if found:
                return found
        return None
    kinds = spec if isinstance(spec, tuple) else (spec,)
    if isinstance(value, kinds) and not (isinstance(value, bool) and bool not in kinds):
        return None
    return _bad(value, where, spec)


def check(data: Any, shape: Mapping[str, Any], what: str) -> dict:
    """``data`` when it is an object of ``shape``, else ``MalformedAnswer`` naming ``what`` and
    the first member that is not what GitHub documents."""
    found = _problem(data, shape, "")
    if found is not None:
        raise MalformedAnswer(what, found)
    return data


def fields(data: Any, what: str, **types: type | tuple[type, ...]) -> dict:
    """``data`` if it is an object whose members ``types`` names have those types, else
    ``MalformedAnswer``: a caller reads members from an answer only through this."""
    if not isinstance(data, dict):
        raise MalformedAnswer(what, f"a JSON {type(data).__name__}, expected an object")
    for name, kind in types.items():
        value = data.get(name)
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            shown = type(value).__name__ if name in data else "nothing"
            raise MalformedAnswer(what, f"{shown} for {name!r}, expected "
                                  + (" or ".join(k.__name__ for k in kind) if isinstance(kind, tuple)
                                     else kind.__name__))
    return data


def time_of(data: Mapping[str, Any], key: str) -> _dt.datetime | None:
    """A ``TIME`` member of an object ``check`` accepted (None: null or absent)."""
    return parse_time(data.get(key))


USER = {"login": str}
# GitHub documents a pull request's and an issue's title and html_url as strings, never null: the
# dashboard and status show them as such.
PULL = {"number": int, "state": Maybe(str), "title": str, "body": Maybe(str), "html_url": str,
        "merged_at": Maybe(TIME), "head": {"ref": str, "label": Maybe(str)}, "base": Maybe({"ref": str})}
ISSUE = {"number": int, "state": Maybe(str), "title": str, "body": Maybe(str), "html_url": str,
         "user": Maybe(USER), "labels": Maybe(ListOf(OneOf(str, {"name": Maybe(str)})))}
COMMENT = {"body": Maybe(str)}
STATUS = {"id": int, "context": str, "state": str}
CHECK_RUN = {"id": int, "name": str, "status": Maybe(str), "conclusion": Maybe(str)}
# event and head_branch are read as "unknown" and None when they are not strings: not checked.
WORKFLOW_RUN = {"id": int, "run_number": int, "status": Maybe(str), "conclusion": Maybe(str), "created_at": TIME,
                "html_url": str, "head_sha": str}
RELEASE = {"id": int, "tag_name": str, "draft": bool, "prerelease": bool, "name": Maybe(str), "body": Maybe(str),
           "created_at": Maybe(TIME), "published_at": Maybe(TIME), "html_url": Maybe(str),
           "upload_url": Maybe(str), "target_commitish": Maybe(str)}
ASSET = {"id": int, "name": str, "size": int, "browser_download_url": str, "url": str, "digest": Maybe(str),
         "state": Maybe(str)}
