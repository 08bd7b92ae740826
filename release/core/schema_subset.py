"""Whether a JSON value plainly conforms to a JSON Schema (draft 2020-12) written in a small set of
keywords, without importing jsonschema (about 1.4x ``python -c pass`` of CPU to import: its
``referencing``, ``rpds``, ``attrs`` and the metaschemas it reads from disk).

The answer is one-sided: True only when jsonschema's ``Draft202012Validator`` (no format checker)
finds no error; False when the value breaks the schema *or* the schema uses a keyword, a ``$ref``
or a ``const`` this module does not read. A caller asks jsonschema itself on False, for the verdict
and its words, so a verdict never depends on this module, only the cost of a conforming value.
Each keyword is read as jsonschema reads it (``pattern`` by ``re.search``, a type by Python's
JSON types, ``additionalProperties`` over the keys ``properties`` does not name).
"""

from __future__ import annotations

import re
from typing import Any, Mapping

# Keywords that assert nothing for this reading (annotations; ``$defs`` is read through ``$ref``).
_ANNOTATIONS = frozenset({"$schema", "$defs", "title", "description", "contentEncoding"})
_TYPES: dict[str, type] = {"object": dict, "array": list, "string": str}


def conforms(value: Any, schema: Mapping[str, Any], root: Mapping[str, Any] | None = None) -> bool:
    """True when ``value`` surely conforms to ``schema`` (``root``: the document ``$ref`` reads,
    ``schema`` itself by default); False when it does not or this module cannot tell."""
    root = schema if root is None else root
    return all(key in _ANNOTATIONS or _holds(key, arg, value, schema, root) for key, arg in schema.items())


def _holds(key: str, arg: Any, value: Any, schema: Mapping, root: Mapping) -> bool:
    """Whether keyword ``key`` (with ``arg``) of ``schema`` holds for ``value``; False for a keyword
    or an argument not read here."""
    if key == "type":
        kind = _TYPES.get(arg) if isinstance(arg, str) else None
        return kind is not None and isinstance(value, kind)
    if key == "const":
        return isinstance(arg, str) and isinstance(value, str) and value == arg
    if key == "$ref":
        return _ref(arg, value, root)
    if key == "allOf":
        return all(conforms(value, sub, root) for sub in arg)
    if key == "anyOf":
        return any(conforms(value, sub, root) for sub in arg)
    if key == "pattern":
        return isinstance(arg, str) and (not isinstance(value, str) or re.search(arg, value) is not None)
    if key == "minLength":
        return not isinstance(value, str) or len(value) >= arg
    if key == "minItems":
        return not isinstance(value, list) or len(value) >= arg
    if key == "items":
        return not isinstance(value, list) or isinstance(arg, dict) and all(  # (prefixItems is not read)
            conforms(item, arg, root) for item in value)
    if key in _OBJECT_KEYWORDS:
        return not isinstance(value, dict) or _object_holds(key, arg, value, schema, root)
    return False


_OBJECT_KEYWORDS = frozenset({"minProperties", "required", "properties", "additionalProperties"})


def _object_holds(key: str, arg: Any, value: dict, schema: Mapping, root: Mapping) -> bool:
    if key == "minProperties":
        return len(value) >= arg
    if key == "required":
        return all(name in value for name in arg)
    if key == "properties":
        return all(conforms(value[name], sub, root) for name, sub in arg.items() if name in value)
    if not isinstance(arg, dict):  # additionalProperties (patternProperties is not read)
        return False  # a boolean schema: jsonschema decides
    named = schema.get("properties", {})
    return all(conforms(item, arg, root) for name, item in value.items() if name not in named)


def _ref(arg: Any, value: Any, root: Mapping) -> bool:
    prefix = "#/$defs/"
    name = arg[len(prefix):] if isinstance(arg, str) and arg.startswith(prefix) else ""
    if not name or "/" in name or "~" in name or "%" in name:
        return False  # another document, or a pointer with escapes: jsonschema resolves it
    target = root.get("$defs", {}).get(name)
    return isinstance(target, dict) and conforms(value, target, root)
