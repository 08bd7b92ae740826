"""The quick reading of a JSON Schema (``release.core.schema_subset``) accepts only what jsonschema
accepts: a provenance verdict never depends on which of the two read the statement, and a
statement that conforms is checked without importing jsonschema."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import jsonschema
import pytest
from hypothesis import given
from hypothesis import strategies as st

from release.build import provenance
from release.build.provenance_schema import SCHEMA
from release.core import naming
from release.core.config import load_deps
from release.core.revisions import RevisionMap
from release.core.schema_subset import conforms
from tests.test_startup import modules_after

REPO = Path(__file__).resolve().parents[1]
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)


def statement(version: str = "0.9.1.dev20261121", wheels: int = 2) -> dict:
    revisions = RevisionMap.from_deps(load_deps(REPO / "deps.yaml"), version, "d" * 40)
    return provenance.statement(version=version, wheels={f"w{i}.whl": f"{i:x}" * 64 for i in range(wheels)},
                                revisions=revisions, pythons=["3.12"],
                                invocation=provenance.Invocation.from_env({}, host="h"))


def accepted(value: object) -> bool:
    return not any(True for _ in VALIDATOR.iter_errors(value))


def paths(value: object, at: tuple = ()) -> list[tuple]:
    """Every place in a JSON value: dict keys and list indexes from the top."""
    found = [at]
    if isinstance(value, dict):
        for key, item in value.items():
            found += paths(item, (*at, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += paths(item, (*at, index))
    return found


# Values near a rule's edge: hex with a final newline (``$`` matches before one), upper case, other
# digits for \d, an empty string, the wrong JSON type, an empty container.
TRICKY = st.sampled_from(["e" * 64 + "\n", "E" * 64, "e" * 63, "a" * 40, "b" * 64, "", "x",
                          "https://in-toto.io/Statement/v1", "https://slsa.dev/provenance/v1",
                          "https://in-toto.io/Statement/v1\n", "urn:a:b", "a b:c", "git+https://x y",
                          "2026-11-23T03:04:05Z", "2026-11-23T03:04:05Z\n", "٢٠٢٦-11-23T03:04:05Z",
                          "2026-11-23T03:04:05.5+01:00", "2026-11-23 03:04:05Z", "bm90IGJhc2U2NA==", "not*base64"])
JSON = st.recursive(st.none() | st.booleans() | st.integers(-2, 2) | st.floats(allow_nan=False) | TRICKY
                    | st.text(max_size=4),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
                        st.sampled_from(["sha256", "gitCommit", "uri", "digest", "content", "name", "id",
                                         "x_extra"]), inner, max_size=3), max_leaves=6)
EDIT = st.tuples(st.sampled_from(["set", "delete", "add"]), st.integers(0, 10_000), JSON,
                 st.sampled_from(["sha256", "sha1", "gitTree", "dirHash", "uri", "digest", "content",
                                  "id", "builder", "acme_x", "_type"]))


def edited(stmt: dict, edits: list[tuple]) -> object:
    """``stmt`` with each edit applied at a place chosen among its places (the top one too)."""
    value: object = copy.deepcopy(stmt)
    for action, pick, new, key in edits:
        places = paths(value)
        where = places[pick % len(places)]
        if not where:
            value = new if action == "set" else value
            continue
        parent = value
        for step in where[:-1]:
            parent = parent[step]  # type: ignore[index]
        last = where[-1]
        if action == "set":
            parent[last] = new  # type: ignore[index]
        elif action == "delete":
            del parent[last]  # type: ignore[union-attr, arg-type]
        elif isinstance(parent[last], dict):  # type: ignore[index]
            parent[last][key] = new  # type: ignore[index]
        elif isinstance(parent[last], list):  # type: ignore[index]
            parent[last].append(new)  # type: ignore[index]
    return value


@given(st.lists(EDIT, min_size=1, max_size=3), st.integers(1, 3))
def test_the_quick_reading_accepts_exactly_what_jsonschema_accepts(edits, wheels):
    value = edited(statement(wheels=wheels), edits)
    assert conforms(value, SCHEMA) == accepted(value), json.dumps(value)[:400]


@given(JSON)
def test_any_json_value_gets_jsonschemas_verdict(value):
    assert conforms(value, SCHEMA) == accepted(value)


@pytest.mark.parametrize("version", ["0.9.1.dev20261121", "0.9.1rc2", "0.9.1", "0.9.1.post3"])
def test_every_statement_the_writer_makes_is_accepted_quickly(version):
    stmt = statement(version, wheels=3)
    assert conforms(stmt, SCHEMA) and accepted(stmt)
    assert provenance.schema_problems(stmt) == []


# Keywords, references and constants it does not read: it says "cannot tell" (False), never yes.
UNREAD = {
    "a keyword it does not read": ({"type": "string", "maxLength": 1}, "abc"),
    "a format": ({"type": "string", "format": "date"}, "x"),
    "patternProperties beside additionalProperties": (
        {"type": "object", "patternProperties": {"^a": {"type": "string"}},
         "additionalProperties": {"type": "string"}}, {"a": 1}),
    "a reference into another document": ({"$ref": "https://example.com/s#/$defs/A"}, 1),
    "a reference with a pointer escape": ({"$defs": {"a~1b": {}}, "$ref": "#/$defs/a~1b"}, 1),
    "a reference through two keys": ({"$defs": {"a/b": {}}, "$ref": "#/$defs/a/b"}, 1),
    "a reference with a percent escape": ({"$defs": {"a%20b": {}}, "$ref": "#/$defs/a%20b"}, 1),
    "a reference that is not into $defs": ({"$defs": {"A": {}, "": {}}, "$ref": "urn:x:yyA"}, 1),
    "a reference without $defs": ({"$ref": "#/$defs/A"}, 1),
    "additionalProperties false": ({"additionalProperties": False}, {}),
    "a reference to nowhere (jsonschema raises)": ({"$defs": {}, "$ref": "#/$defs/A"}, "x"),
    "an $id": ({"$id": "https://example.com/s", "type": "string"}, "x"),
    "a const that is not a string": ({"const": 1}, 1),
    "a type list": ({"type": ["string", "null"]}, "x"),
    "a type it does not read": ({"type": "integer"}, 1),
    "prefixItems beside items": ({"prefixItems": [{"type": "string"}], "items": {"type": "string"}}, ["x"]),
}


@pytest.mark.parametrize("case", UNREAD)
def test_what_it_does_not_read_is_left_to_jsonschema(case):
    schema, value = UNREAD[case]
    assert not conforms(value, schema)


@pytest.mark.parametrize("schema, value, expected", [
    ({"$defs": {"A": {"type": "string"}}, "$ref": "#/$defs/A"}, "x", True),
    ({"$defs": {"A": {"type": "string"}}, "$ref": "#/$defs/A"}, 1, False),
    ({"properties": {"a": {"type": "string"}}, "additionalProperties": {"type": "object"}}, {"a": "x", "b": {}}, True),
    ({"properties": {"a": {"type": "string"}}, "additionalProperties": {"type": "object"}}, {"a": "x", "b": 1}, False),
    ({"anyOf": [{"required": ["a"]}, {"required": ["b"]}]}, {"b": 1}, True),
    ({"anyOf": [{"required": ["a"]}, {"required": ["b"]}]}, {"c": 1}, False),
    ({"allOf": [{"minProperties": 1}, {"required": ["b"]}]}, {"a": 1}, False),
    ({"pattern": "^[0-9a-f]{2}$"}, "ab\n", True),   # re.search's $, as jsonschema reads it
    ({"minItems": 2}, "not an array", True),
    ({"minItems": 2}, [1], False),
    ({"minItems": 2}, [1, 2], True),
    ({"minLength": 2}, "a", False),
    ({"minLength": 2}, "ab", True),
    ({"minLength": 2}, 5, True),
    ({"pattern": "^a"}, "b", False),
    ({"pattern": "^a"}, 1, True),
    ({"const": "a"}, 1, False),
    ({"const": "a"}, "a", True),
    ({"additionalProperties": False}, {"a": 1}, False),
    ({"additionalProperties": {"type": "string"}}, {"a": "x"}, True),
    ({"additionalProperties": {"type": "string"}}, {"a": 1}, False),
    ({"$defs": {"A": {"type": "string"}}, "additionalProperties": {"$ref": "#/$defs/A"}}, {"a": "x"}, True),
    ({"$defs": {"A": {"type": "string"}}, "properties": {"p": {"anyOf": [{"$ref": "#/$defs/A"}]}}}, {"p": "x"}, True),
    ({"$defs": {"A": {"type": "string"}}, "items": {"allOf": [{"$ref": "#/$defs/A"}]}}, ["x", "y"], True),
    ({"items": {"type": "string"}}, ["x", 1], False),
])
def test_each_keyword_reads_as_jsonschema_reads_it(schema, value, expected):
    assert conforms(value, schema) == expected
    assert jsonschema.Draft202012Validator(schema).is_valid(value) == expected


def test_verify_of_a_conforming_statement_does_not_import_jsonschema(make_dist, tmp_path):
    dist = make_dist("0.9.1.dev20261121")
    modules = modules_after("verify", *sorted(map(str, dist.glob("*.whl"))), "--provenance",
                            str(dist / naming.PROVENANCE_ASSET), cwd=tmp_path)
    assert "release.build.provenance" in modules
    assert not {m for m in modules if m.split(".")[0] in ("jsonschema", "referencing", "rpds", "attrs")}
