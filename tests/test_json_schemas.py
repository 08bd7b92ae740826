"""Every command's ``--json`` output names its shape (``"schema": "jax-rocm-release/<command>/<N>"``,
first, added in one place) and has a JSON Schema, ``release/schemas/<command>.json``, with that
``const`` and every top-level key described; a failure's object is the ``error`` shape. The
outputs themselves are checked against these schemas in every test that runs a command
(``tests/support/json_schemas.py``)."""

from __future__ import annotations

import io
import json

import jsonschema
import pytest

from release.cli import COMMANDS
from release.core.output import SCHEMA_VERSIONS, Output, schema_id
from release.docs_reference import SCHEMAS, SHAPES, json_page, schema
from tests.support.json_schemas import check


def test_every_command_and_a_failure_have_a_json_schema_named_by_the_schema_key():
    assert set(SHAPES) == {*COMMANDS, "error"}
    missing = [name for name in SHAPES if not (SCHEMAS / f"{name}.json").is_file()]
    assert not missing, f"no JSON Schema for {missing} (release/schemas/<command>.json)"
    for name in SHAPES:
        shape = schema(name)
        jsonschema.Draft202012Validator.check_schema(shape)
        assert shape["$schema"] == "https://json-schema.org/draft/2020-12/schema", name
        assert shape["type"] == "object" and "schema" in shape["required"], name
        assert shape["properties"]["schema"] == {"const": schema_id(name)}, name
        assert shape.get("description"), name
        undescribed = [k for k, p in shape["properties"].items() if k != "schema" and not p.get("description")]
        assert not undescribed, f"{name}.json: keys without a description: {undescribed}"


def test_no_schema_is_left_for_a_command_that_is_gone():
    assert sorted(p.stem for p in SCHEMAS.glob("*.json")) == sorted(SHAPES)
    assert set(SCHEMA_VERSIONS) <= set(SHAPES)


YANK = {"tag": "rocm-jax-v0.9.1", "yanked": True, "reason": "broken", "was": None, "changed": True,
        "store": "github", "where": "o/n"}


@pytest.mark.parametrize("command,data", [("version", {"kind": "rc", "version": "0.9.1rc2"}), ("yank", YANK)])
def test_the_schema_key_comes_first_and_the_rest_is_the_commands(command, data):
    stream = io.StringIO()
    Output(as_json=True, stream=stream, command=command).result(dict(data))
    printed = json.loads(stream.getvalue())
    assert list(printed) == ["schema", *data]
    assert printed == {"schema": f"jax-rocm-release/{command}/1", **data}


def test_a_version_moved_for_one_command_names_only_that_one(monkeypatch):
    monkeypatch.setitem(SCHEMA_VERSIONS, "gc", 2)
    assert schema_id("gc") == "jax-rocm-release/gc/2"
    assert schema_id("yank") == "jax-rocm-release/yank/1"


def test_an_unnamed_output_and_human_output_are_as_they_were():
    """A nested run's Output (no command) prints its data as given; people's output gets no key."""
    stream = io.StringIO()
    Output(as_json=True, stream=stream).result({"a": 1})
    assert json.loads(stream.getvalue()) == {"a": 1}
    said = io.StringIO()
    Output(stream=said, command="gc").result({"a": 1}, lambda console: console.print("done"))
    assert said.getvalue() == "done\n"


def test_a_failure_with_json_is_the_error_shape(run_cli):
    code, out, err = run_cli("gc", "--keep", "-1", "--json")
    assert code == 2 and "--keep" in err
    data = check(json.loads(out))
    assert data["schema"] == "jax-rocm-release/error/1" and data["exit"] == 2


def test_an_output_that_breaks_its_schema_is_caught():
    good = {"schema": "jax-rocm-release/yank/1", **YANK}
    check(good)
    for bad in ({k: v for k, v in good.items() if k != "changed"},   # a key dropped
                good | {"surprise": 1},                                # a key not in the schema
                good | {"changed": "yes"},                             # a key retyped
                good | {"schema": "jax-rocm-release/yank/9"}):         # another version
        with pytest.raises(AssertionError):
            check(bad)


def test_the_reference_lists_every_shape_and_links_its_schema():
    page = json_page()
    for name in SHAPES:
        assert f"`{schema_id(name)}`" in page and f"(schemas/{name}.json)" in page, name
    assert "## release verify" in page and "\n- `ok` (boolean, always): " in page
