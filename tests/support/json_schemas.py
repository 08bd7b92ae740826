"""Every command's ``--json`` output, in every test that runs a command in process, is checked
against the command's JSON Schema (``release/schemas/<command>.json``, named by the output's
``schema`` key): a key added, dropped or retyped without its schema fails the test that saw it.
Output of a command run as a subprocess is checked with ``check`` where the test parses it.

``RELEASE_JSON_SAMPLES=DIR`` also appends every output checked to ``DIR/<command>.jsonl`` (and
lets a command without a schema pass): the samples to draft a new command's schema from."""

from __future__ import annotations

import functools
import io
import json
import os
from pathlib import Path
from typing import Any

import pytest

SCHEMAS = Path(__file__).resolve().parents[2] / "release" / "schemas"
PREFIX = "jax-rocm-release/"


def schema_path(command: str) -> Path:
    return SCHEMAS / f"{command}.json"


@functools.cache
def validator(command: str) -> Any:
    import jsonschema
    schema = json.loads(schema_path(command).read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def check(data: Any) -> Any:
    """``data`` (a command's parsed ``--json`` output) is what its ``schema`` key says it is; returns it."""
    assert isinstance(data, dict) and isinstance(data.get("schema"), str), f"no schema key: {str(data)[:200]}"
    assert data["schema"].startswith(PREFIX), data["schema"]
    command = data["schema"].removeprefix(PREFIX).rsplit("/", 1)[0]
    samples = os.environ.get("RELEASE_JSON_SAMPLES")
    if samples:
        with open(Path(samples) / f"{command}.jsonl", "a", encoding="utf-8") as handle:
            handle.write(json.dumps(data) + "\n")
        if not schema_path(command).exists():
            return data
    errors = sorted(validator(command).iter_errors(data), key=lambda e: list(e.absolute_path))
    assert not errors, f"release {command} --json does not match {schema_path(command).name}: " + "; ".join(
        f"at {'/'.join(map(str, e.absolute_path)) or 'top'}: {e.message[:300]}" for e in errors[:5])
    return data


@pytest.fixture(autouse=True)
def _json_output_matches_its_schema(monkeypatch):
    """What ``Output.result`` writes for a named command (the CLI's) is parsed back and checked."""
    from release.core.output import Output
    original = Output.result

    def result(self: Output, data: Any, human: Any = None) -> None:
        if not (self.as_json and self.command is not None):
            return original(self, data, human)
        inner, tee = self.stream.stream, io.StringIO()
        self.stream.stream = tee
        try:
            original(self, data, human)
        finally:
            self.stream.stream = inner
        inner.write(tee.getvalue())
        inner.flush()
        check(json.loads(tee.getvalue()))
    monkeypatch.setattr(Output, "result", result)
