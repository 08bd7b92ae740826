"""jsonschema's IRI checks in the tests: the RFC 3987 grammar compiled when a check first asks.

jsonschema imports rfc3987-syntax at its own import (where installed) for the ``iri`` and
``iri-reference`` formats, and that import compiles an Earley parser from the RFC 3987 grammar:
about 2 CPU-s in every process of the suite that imports jsonschema (each xdist worker, through
the GitHub stand-in's openapi-core), though no schema the suite checks names either format
(GitHub's description, the --json schemas and the in-toto one do not). ``install()``, called by
tests/conftest.py before anything imports jsonschema, puts a stand-in module in its place whose
``is_valid_syntax`` (all jsonschema takes of it) imports the real module on its first call and
answers with it: a check that names an IRI format gets the real grammar's verdict, only later.
The product refuses the module outright (release/__main__.py); tests/test_deferred_iri.py holds
both halves of this one: nothing compiled at import, the real verdict when asked.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import types

from tests.support.deferred_settings import real

NAME = "rfc3987_syntax"


def _real() -> types.ModuleType:
    return real(NAME)  # the one way a stand-in gives way to its module (tests/support/deferred_settings.py)


def is_valid_syntax(term: str, value: str) -> bool:
    """The real ``rfc3987_syntax.is_valid_syntax(term, value)``, its grammar compiled on first use."""
    return _real().is_valid_syntax(term, value)


def _attribute(name: str) -> object:
    """Any other name of the real module, which is imported for it; not a dunder: ``from ... import``
    asks for ``__path__`` (is it a package?), and the answer must stay no, at no cost."""
    if name.startswith("__"):
        raise AttributeError(name)
    return getattr(_real(), name)


def install() -> None:
    """Put the stand-in in place unless the module is imported already or not installed."""
    if NAME in sys.modules or importlib.util.find_spec(NAME) is None:
        return
    stand_in = types.ModuleType(NAME, "rfc3987_syntax, imported when first used (tests/support/deferred_iri.py)")
    stand_in._deferred = True  # type: ignore[attr-defined]
    stand_in.is_valid_syntax = is_valid_syntax  # type: ignore[attr-defined]
    stand_in.__getattr__ = _attribute  # type: ignore[method-assign]
    sys.modules[NAME] = stand_in
