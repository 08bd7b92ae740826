"""The suite's openapi-core loads pydantic-settings only when a setting is read
(tests/support/deferred_settings.py): the GitHub stand-in still refuses what GitHub's description
forbids without it, and a caller that reads a setting gets the real module's answer."""

from __future__ import annotations

import ast
import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import deferred_settings
from tests.support.fake_github import REPO_ROOT

PROBE = """
import json, sys, tests.conftest
from tests.support.fake_github import _answer_problem, schema_instance, load_openapi, find_openapi_description
api = load_openapi(find_openapi_description())
H = {"accept": "application/vnd.github+json", "content-type": "application/json"}
verdicts = [_answer_problem(api, "api", "GET", "/repos/o/r/releases/1", [], H, b"", 200,
                            json.dumps({**schema_instance("release"), **change}))
            for change in ({}, {"id": "seven"}, {"created_at": "yesterday"})]
print(json.dumps({"verdicts": verdicts,
                  "pydantic": sorted(m for m in sys.modules if m.split(".")[0].startswith("pydantic"))}))
"""


def test_the_stand_in_checks_answers_against_githubs_description_without_pydantic():
    proc = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, cwd=REPO_ROOT, check=True)
    seen = json.loads(proc.stdout)
    assert seen["pydantic"] == []
    fine, bad_id, bad_date = seen["verdicts"]
    assert fine is None
    assert "'seven' is not of type 'integer'" in bad_id
    assert "is not a 'date-time'" in bad_date


def _library_files():
    for package in ("openapi_core", "openapi_spec_validator", "openapi_schema_validator", "jsonschema_path"):
        spec = importlib.util.find_spec(package)
        if spec is None or not spec.submodule_search_locations:
            continue
        for location in spec.submodule_search_locations:
            yield from sorted(Path(location).rglob("*.py"))


def test_every_name_the_libraries_take_from_a_settings_module_is_forwarded_and_only_called():
    """A name the stand-in does not forward would import the real module at the library's import
    (the saving gone); one used otherwise than called (a base class, isinstance) would get the
    stand-in's function, not the class."""
    taken = []
    for path in _library_files():
        tree = ast.parse(path.read_bytes())
        names = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module in deferred_settings.MODULES:
                for alias in node.names:
                    assert alias.name in deferred_settings.MODULES[node.module], (path, alias.name)
                    names[alias.asname or alias.name] = node.module
                    taken.append(alias.name)
            if isinstance(node, ast.Import):
                assert not any(alias.name in deferred_settings.MODULES for alias in node.names), path
        called = {id(node.func) for node in ast.walk(tree) if isinstance(node, ast.Call)}
        for node in ast.walk(tree):
            if isinstance(node, ast.Name) and node.id in names and isinstance(node.ctx, ast.Load):
                assert id(node) in called, (path, node.lineno, node.id)
    assert taken or not any(importlib.util.find_spec(m.partition(".")[0]) for m in deferred_settings.MODULES)


@pytest.fixture
def settings_reread():
    """The schema validator's settings are read once (an lru_cache): read afresh in the test (the
    cache emptied if an earlier test read it: the stand-in left in place if none did) and after."""
    module = sys.modules["openapi_schema_validator.settings"]
    if not getattr(module, "_deferred", False):
        module.reset_settings_cache()
    yield
    sys.modules["openapi_schema_validator.settings"].reset_settings_cache()


def test_reading_a_setting_imports_the_real_module_and_gets_its_answer(settings_reread, monkeypatch):
    from openapi_schema_validator import _caches
    from openapi_spec_validator.schemas import backend
    from openapi_spec_validator.validation import validators

    monkeypatch.setenv("OPENAPI_SPEC_VALIDATOR_RESOLVED_CACHE_MAXSIZE", "7")
    monkeypatch.setenv("OPENAPI_SPEC_VALIDATOR_SCHEMA_VALIDATOR_BACKEND", " JSONSchema ")
    monkeypatch.setenv("OPENAPI_SCHEMA_VALIDATOR_COMPILED_VALIDATOR_CACHE_MAX_SIZE", "5")
    assert validators.OpenAPISpecValidatorSettings().resolved_cache_maxsize == 7  # the real module's answer
    spec_settings = sys.modules["openapi_spec_validator.settings"]
    assert not getattr(spec_settings, "_deferred", False)
    assert type(validators.OpenAPISpecValidatorSettings()) is spec_settings.OpenAPISpecValidatorSettings
    assert backend.get_validator_backend() == "jsonschema"
    monkeypatch.setenv("OPENAPI_SPEC_VALIDATOR_RESOLVED_CACHE_MAXSIZE", "-1")  # refused: the default
    assert validators.OpenAPISpecValidatorSettings().resolved_cache_maxsize == 128

    assert _caches.get_settings().compiled_validator_cache_max_size == 5
    assert not getattr(sys.modules["openapi_schema_validator.settings"], "_deferred", False)


@pytest.mark.parametrize("spec, valid", [
    ({"openapi": "3.1.0", "info": {"title": "t", "version": "1"}, "paths": {}}, True),
    ({"openapi": "3.1.0", "paths": {}}, False),                                     # no info
    ({"openapi": "3.0.3", "info": {"title": "t", "version": "1"}, "paths": {"x": {}}}, False),  # a path not under /
])
def test_a_spec_validation_through_the_stand_in_gets_the_validators_verdict(spec, valid):
    from openapi_spec_validator import validate
    from openapi_spec_validator.validation.exceptions import OpenAPIValidationError

    if valid:
        validate(spec)
    else:
        with pytest.raises(OpenAPIValidationError):
            validate(spec)
