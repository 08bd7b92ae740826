"""The shapes of GitHub's answers (``release.sources.shapes``), unit by unit: every well-formed
answer passes as it is, and every other one is one line saying what was found, where, and what
was expected (tests/test_answer_shapes.py fuzzes the readers and commands that use them)."""

from __future__ import annotations

import datetime as _dt

import pytest

from release.sources import shapes
from release.sources.github_errors import MalformedAnswer
from tests.support.zones import local_zone

UTC = _dt.timezone.utc
WELL_FORMED = {
    "pull": ({"number": 4, "state": "open", "title": "Bump", "body": None, "html_url": "u", "merged_at": None,
              "head": {"ref": "bump/x", "label": "o:bump/x"}, "base": {"ref": "main"}, "extra": [1]}, shapes.PULL),
    "merged pull": ({"number": 4, "title": "Bump", "html_url": "u", "merged_at": "2026-11-20T03:00:00Z",
                     "head": {"ref": "bump/x"}}, shapes.PULL),
    "issue": ({"number": 1, "title": "t", "html_url": "u", "user": {"login": "octocat"},
               "labels": ["roller", {"name": "bug"}, {"name": None}, {}]}, shapes.ISSUE),
    "issue, no labels": ({"number": 1, "title": "t", "html_url": "u", "user": None, "labels": []}, shapes.ISSUE),
    "status": ({"id": 3, "context": "ci/lint", "state": "failure"}, shapes.STATUS),
    "check run": ({"id": 12, "name": "build", "status": "completed", "conclusion": None}, shapes.CHECK_RUN),
    "workflow run": ({"id": 1, "run_number": 2, "created_at": "2026-11-20T03:00:00+05:30", "html_url": "u",
                      "head_sha": "s"}, shapes.WORKFLOW_RUN),
    "release": ({"id": 9, "tag_name": "v", "draft": False, "prerelease": True, "created_at": "2026-11-20T03:00:00z",
                 "published_at": None}, shapes.RELEASE),
    "asset": ({"id": 5, "name": "a.whl", "size": 0, "browser_download_url": "u", "url": "u", "digest": "sha256:ab"},
              shapes.ASSET),
    "a tuple of types": ({"x": True, "y": 3}, {"x": (int, bool), "y": (int, bool)}),
}


@pytest.mark.parametrize("name", list(WELL_FORMED))
def test_a_well_formed_answer_passes_as_it_is(name):
    data, shape = WELL_FORMED[name]
    assert shapes.check(data, shape, "the answer") is data


M = shapes.Maybe
CASES = [  # (data, shape, what the one line says after "malformed answer: ")
    ({"x": None}, {"x": str}, "nothing for 'x', expected a string"),
    ({"x": 7}, {"x": str}, "7 for 'x', expected a string"),
    ({"x": "7"}, {"x": int}, "'7' for 'x', expected an integer"),
    ({"x": True}, {"x": int}, "True for 'x', expected an integer"),
    ({"x": 1.5}, {"x": bool}, "1.5 for 'x', expected true or false"),
    ({"x": []}, {"x": dict}, "a JSON list for 'x', expected an object"),
    ({"x": {}}, {"x": list}, "a JSON object for 'x', expected a list"),
    ({"x": "a"}, {"x": (int, bool)}, "'a' for 'x', expected an integer or true or false"),
    ({"x": "2.5"}, {"x": float}, "'2.5' for 'x', expected float"),  # a type without a JSON name: its own
    ({"x": 3}, {"x": {"y": str}}, "3 for 'x', expected an object"),
    ({"x": 3}, {"x": M(str)}, "3 for 'x', expected a string"),
    ({"x": 1.5}, {"x": shapes.OneOf(M(int), str)}, "1.5 for 'x', expected an integer or null or a string"),
    ({"x": {"a": 1}}, {"x": shapes.ListOf(str)}, "a JSON object for 'x', expected a list"),
    ({"x": ["a", 2]}, {"x": shapes.ListOf(str)}, "2 for 'x[1]', expected a string"),
    ({"x": [[1]]}, {"x": shapes.OneOf(shapes.ListOf(int), str)}, "a JSON list for 'x', expected a list or a string"),
    ({"x": ["a", {"name": 5}]}, {"x": shapes.ListOf(shapes.OneOf(str, {"name": M(str)}))},
     "a JSON object for 'x[1]', expected a string or an object"),
    ({"x": 5}, {"x": shapes.OneOf(str, {"name": M(str)})}, "5 for 'x', expected a string or an object"),
    ({"x": "soon"}, {"x": shapes.TIME}, "x 'soon' is not an ISO 8601 time"),
    ({"x": "9999-12-31T23:59:59-14:00"}, {"x": shapes.TIME},
     "x '9999-12-31T23:59:59-14:00' is a time outside the years 1 to 9998 in UTC"),
    ({"x": "9999-12-31T23:59:59Z"}, {"x": shapes.TIME},
     "x '9999-12-31T23:59:59Z' is a time outside the years 1 to 9998 in UTC"),
    ({"x": "soon" * 20}, {"x": shapes.TIME}, "x '" + "soon" * 10 + "' is not an ISO 8601 time"),  # cut
    ({"x": 5}, {"x": shapes.TIME}, "5 for 'x', expected an ISO 8601 time"),
    ({"x": "5"}, {"x": shapes.OneOf(shapes.TIME, M(int))},
     "'5' for 'x', expected an ISO 8601 time or an integer or null"),
    ({"x": "\x1b[31m" + "r" * 100}, {"x": int}, "'" + "r" * 59 + " for 'x', expected an integer"),
    ({"x": {"y": {"z": None}}}, {"x": {"y": {"z": int}}}, "nothing for 'x.y.z', expected an integer"),
    ({"x": 2 ** 70}, {"x": str}, "1180591620717411303424 for 'x', expected a string"),
    ([], {"x": int}, "a JSON list, expected an object"),
    ("text", {"x": int}, "'text', expected an object"),
]


@pytest.mark.parametrize("data, shape, line", CASES)
def test_an_answer_of_another_shape_is_one_line_saying_what_where_and_what_was_expected(data, shape, line):
    with pytest.raises(MalformedAnswer) as caught:
        shapes.check(data, shape, "release 12")
    assert str(caught.value) == f"GitHub API release 12: malformed answer: {line}"
    assert caught.value.exit_code == 3


@pytest.mark.parametrize("data, line", [
    ([], "a JSON list, expected an object"),
    ({"id": "5", "name": "a"}, "str for 'id', expected int"),
    ({"name": "a"}, "nothing for 'id', expected int"),
    ({"id": True, "name": "a"}, "bool for 'id', expected int"),
    ({"id": 5, "name": 7}, "int for 'name', expected str or bytes"),
])
def test_a_flat_object_read_in_one_place_is_checked_the_same_way(data, line):
    with pytest.raises(MalformedAnswer) as caught:
        shapes.fields(data, "asset 5", id=int, name=(str, bytes))
    assert str(caught.value) == f"GitHub API asset 5: malformed answer: {line}"


def test_a_flat_object_of_the_named_types_passes_as_it_is():
    data = {"id": 5, "name": b"a", "more": None}
    assert shapes.fields(data, "asset 5", id=int, name=(str, bytes)) is data
    assert shapes.time_of({"at": "2026-11-20T03:00:00Z"}, "at") == _dt.datetime(2026, 11, 20, 3, tzinfo=UTC)
    assert shapes.time_of({}, "at") is None


# ---------------------------------------------------------------------------------- times


@pytest.mark.parametrize("text, moment", [
    ("2026-11-20T03:00:00Z", (2026, 11, 20, 3, 0)),
    ("2026-11-20T03:00:00z", (2026, 11, 20, 3, 0)),
    ("2026-11-20T03:00:00", (2026, 11, 20, 3, 0)),  # no zone: UTC, as GitHub's are
    ("2026-11-20T03:00:00+05:30", (2026, 11, 19, 21, 30)),
    ("2026-11-20T03:00:00-14:00", (2026, 11, 20, 17, 0)),
    ("9998-12-31T23:59:00Z", (9998, 12, 31, 23, 59)),
])
@pytest.mark.parametrize("zone", ["UTC0", "<+14>-14", "<-0330>+3:30"])
def test_a_time_is_the_same_utc_moment_whatever_the_machines_zone(text, moment, zone):
    with local_zone(zone):
        when = shapes.parse_time(text)
    assert when == _dt.datetime(*moment, tzinfo=UTC) and when.tzinfo == UTC


def test_a_time_of_at_most_40_characters_is_read_and_a_longer_text_is_not():
    forty = "2026-11-20T03:00:00.123456+05:30:00.1234"
    longer = "2026-11-20T03:00:00.123456+05:30:00.12345"  # a time Python reads, past the bound
    assert len(forty) == 40 and shapes.parse_time(forty) is not None
    assert len(longer) == 41 and shapes.parse_time(longer) is None


def test_specs_made_at_run_time_check_as_those_made_at_import():
    """Maybe, ListOf and OneOf keep the spec they are given (the module's shapes are built once,
    at import; a reader may build its own)."""
    shape = {"x": shapes.ListOf(shapes.Maybe(int)), "y": shapes.OneOf(str, shapes.ListOf(str))}
    data = {"x": [None, 1], "y": ["a"]}
    assert shapes.check(data, shape, "the answer") is data
    for bad, line in (({"x": ["1"], "y": "a"}, "'1' for 'x[0]', expected an integer"),
                      ({"x": [], "y": 2}, "2 for 'y', expected a string or a list")):
        with pytest.raises(MalformedAnswer) as caught:
            shapes.check(bad, shape, "the answer")
        assert str(caught.value) == f"GitHub API the answer: malformed answer: {line}"
