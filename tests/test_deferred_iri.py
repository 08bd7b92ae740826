"""The suite's jsonschema compiles the RFC 3987 grammar only when a check asks for an IRI
(tests/support/deferred_iri.py), and that check still gets the grammar's verdict; the GitHub
stand-in's check of GitHub's description, which names no IRI format, refuses what it refused."""

from __future__ import annotations

import json
import subprocess
import sys

import jsonschema
import pytest

from tests.support.fake_github import REPO_ROOT, _answer_problem, schema_instance

REL = "/repos/rocm/jax-rocm-release/releases"
HEADERS = {"accept": "application/vnd.github+json", "content-type": "application/json"}


def test_a_process_of_the_suite_imports_jsonschema_without_compiling_the_grammar():
    probe = ("import sys, tests.conftest, jsonschema; "
             "print(sorted(m for m in sys.modules if m.split('.')[0] == 'lark' or m.startswith('rfc3987_syntax.')))")
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=REPO_ROOT, check=True)
    assert proc.stdout.strip() == "[]", proc.stdout


@pytest.mark.parametrize("form, value, valid", [
    ("iri", "https://例え.jp/パス?q=ü#frag", True),
    ("iri", "urn:isbn:0451450523", True),
    ("iri", "http://exa mple.com/", False),   # a space
    ("iri", "//example.com/relative", False),  # no scheme: a reference, not an IRI
    ("iri", "http://[::1/", False),           # an unclosed IP literal
    ("iri-reference", "//example.com/relative", True),
    ("iri-reference", "../a%zz", False),       # a broken percent-encoding
])
def test_an_iri_check_gets_the_grammars_verdict(form, value, valid):
    checker = jsonschema.Draft202012Validator({"format": form},
                                              format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)
    assert checker.is_valid(value) is valid


@pytest.mark.parametrize("change, words", [
    ({}, None),
    ({"html_url": "http://exa mple.com/"}, "is not a 'uri'"),
    ({"created_at": "yesterday"}, "is not a 'date-time'"),
    ({"id": "seven"}, "is not of type 'integer'"),
])
def test_the_stand_ins_answers_are_still_refused_where_githubs_description_forbids_them(
        github_openapi, change, words):
    text = json.dumps({**schema_instance("release"), **change})
    problem = _answer_problem(github_openapi, "api", "GET", f"{REL}/1", [], HEADERS, b"", 200, text)
    assert (problem is None) if words is None else (words in problem), problem
