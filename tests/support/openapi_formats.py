"""openapi-core's schema checks with the format checker copied once, not once per check.

For every schema it checks (each request and each answer of the GitHub stand-in), openapi-core
makes a validator with a deep copy of jsonschema's format checker: about a sixth of the CPU the
stand-in spent in a publish test. The copy exists so that extra format validators can be added to
it; the stand-in adds none, and jsonschema only reads a checker while checking, so one copy per
kind of check (a request's "write" schemas, an answer's "read" ones) serves every thread. With
extra validators the factory's own way is kept. The checks themselves are the library's, unchanged.
"""

from __future__ import annotations

import copy
from typing import Any


def formats_once(validator_cls: type) -> type:
    """``validator_cls`` (an openapi-core request or response validator class) whose schema
    validators share one copy of the default format checker."""
    factory = validator_cls.schema_validators_factory
    shared = factory.get_format_checker()
    once = copy.copy(factory)

    def get_format_checker(format_validators: Any = None, extra_format_validators: Any = None) -> Any:
        if format_validators is None and extra_format_validators is None:
            return shared
        return factory.get_format_checker(format_validators, extra_format_validators)

    once.get_format_checker = get_format_checker
    return type(validator_cls.__name__, (validator_cls,), {"schema_validators_factory": once})
