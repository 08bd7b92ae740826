"""Parsing text that comes from outside (config files, store records, remote answers) within
bounds, so a hostile or broken text costs one clear error, never a hang, a memory blow-up or
a traceback.

YAML: plain data only. No anchors or aliases (a 1.4 KB alias bomb expands to gigabytes), no
tags beyond YAML's own core ones, keys that are scalars, each key once, nesting at most
``MAX_DEPTH`` deep; checked on the parser's event stream (no recursion) before anything is
composed. JSON: nesting at most ``MAX_DEPTH`` deep (checked before parsing, in one linear
scan), and integers within Python's digit limit. Every refusal is an ``Unparseable`` whose
text is one line; callers turn it into their own error (a config file's, a store's, a remote's).
Python and Starlark from upstream (``version.py``, ``workspace.bzl``): size-bounded, and a
parse that runs out of recursion or memory is refused the same way.
"""

from __future__ import annotations

import ast
import functools
import json
import re
from typing import TYPE_CHECKING, Any, Callable

if TYPE_CHECKING:
    import yaml

MAX_DEPTH = 64  # no file or answer this tool reads nests deeper than a dozen levels
_CORE_TAGS = {f"tag:yaml.org,2002:{t}" for t in ("str", "int", "float", "bool", "null", "seq", "map")}
# a JSON string, unrolled ("[^"\\]*" runs between escapes): one alternation per character cost
# ten times json.loads on a release record with its notes
_JSON_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_JSON_BRACKETS = re.compile(r"[\[\]{}]")


class Unparseable(ValueError):
    """Text refused: ``reason`` is one line; ``line``/``column`` (1-based) say where when known."""

    def __init__(self, reason: str, line: int | None = None, column: int | None = None):
        self.reason, self.line, self.column = " ".join(reason.split()), line, column
        super().__init__(self.reason)

    @property
    def where(self) -> str | None:
        return f"line {self.line}, column {self.column}" if self.line is not None else None


def _at(mark: Any) -> tuple[int | None, int | None]:
    return (mark.line + 1, mark.column + 1) if mark is not None else (None, None)


def yaml_compose(text: str) -> yaml.Node | None:
    """The node tree of one YAML document of plain data, or ``Unparseable``. One parse: each
    event is checked as the composer takes it, before any node is made of it."""
    import yaml  # here: the commands that read no YAML (the index: JSON records) do not load it

    try:
        node = yaml.compose(text, Loader=_checking_loader())
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        problem = getattr(exc, "problem", None) or (str(exc).splitlines() or ["invalid YAML"])[0]
        raise Unparseable(f"invalid YAML ({problem})", *_at(mark)) from None
    _check_keys(node)
    return node


@functools.cache  # the class is made once, at the first YAML read
def _checking_loader() -> type:
    """PyYAML's safe loader refusing anchors and aliases, tags beyond the core ones and nesting
    deeper than ``MAX_DEPTH`` on the events themselves: the composer looks at an event's anchor
    (``peek_event``) and takes it (``get_event``) before it makes a node of it or recurses."""
    import yaml

    def refuse(event: Any) -> Any:
        if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None):
            raise Unparseable("an anchor or alias (&name, *name); write the value out", *_at(event.start_mark))
        tag = getattr(event, "tag", None)
        if tag not in (None, "!") and tag not in _CORE_TAGS:
            raise Unparseable(f"the tag {tag[:60]!r}; only plain values, lists and mappings",
                              *_at(event.start_mark))
        return event

    class Checked(yaml.SafeLoader):
        depth = 0

        def peek_event(self) -> Any:
            return refuse(super().peek_event())

        def get_event(self) -> Any:
            event = refuse(super().get_event())
            if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
                self.depth += 1
                if self.depth > MAX_DEPTH:
                    raise Unparseable(f"nesting deeper than {MAX_DEPTH} levels", *_at(event.start_mark))
            elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
                self.depth -= 1
            return event

    return Checked


def _check_keys(root: yaml.Node | None) -> None:
    """Every mapping key is a scalar and appears once (walked without recursion; aliases are
    already refused, so each node is visited once)."""
    import yaml

    stack: list[tuple[yaml.Node | None, str]] = [(root, "")]
    while stack:
        node, prefix = stack.pop()
        if isinstance(node, yaml.MappingNode):
            seen: set[str] = set()
            for key_node, value_node in node.value:
                if not isinstance(key_node, yaml.ScalarNode):
                    raise Unparseable(f"a {key_node.id} used as a key{' in ' + prefix if prefix else ''}; "
                                      "keys are plain words", *_at(key_node.start_mark))
                dotted = f"{prefix}.{key_node.value}" if prefix else str(key_node.value)
                if key_node.value in seen:
                    raise DuplicateKey(dotted, *_at(key_node.start_mark))
                seen.add(key_node.value)
                stack.append((value_node, dotted))
        elif isinstance(node, yaml.SequenceNode):
            stack.extend((item, prefix) for item in node.value)


class DuplicateKey(Unparseable):
    """A mapping names one key twice; ``key`` is its dotted path."""

    def __init__(self, key: str, line: int | None = None, column: int | None = None):
        self.key = key
        super().__init__(f"{key} given twice", line, column)


def yaml_data(node: yaml.Node | None) -> Any:
    """The Python data of a node tree ``yaml_compose`` accepted (an integer too long for
    Python is ``Unparseable``)."""
    import yaml

    if node is None:
        return None
    loader = yaml.SafeLoader("")
    try:
        return loader.construct_document(node)
    except (yaml.YAMLError, ValueError, TypeError) as exc:
        mark = getattr(exc, "problem_mark", None)
        raise Unparseable(f"a value that cannot be read ({_first_line(exc)})", *_at(mark)) from None
    finally:
        loader.dispose()


def json_loads(text: str | bytes, *, object_pairs_hook: Callable[[list[tuple[str, Any]]], Any] | None = None,
               max_depth: int = MAX_DEPTH) -> Any:
    """``json.loads`` for outside text: nesting deeper than ``max_depth`` and integers beyond
    Python's digit limit are ``Unparseable``, as is anything that is not JSON."""
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError:
            raise Unparseable("not UTF-8 text") from None
    depth = deepest = 0
    # no more opening brackets in the whole text (strings too) than the limit: it cannot nest deeper
    shallow = text.count("[") + text.count("{") <= max_depth
    for bracket in () if shallow else _JSON_BRACKETS.findall(_JSON_STRING.sub("", text)):
        depth += 1 if bracket in "[{" else -1
        if depth > deepest:
            deepest = depth
            if deepest > max_depth:
                raise Unparseable(f"JSON nested deeper than {max_depth} levels")
    try:
        return json.loads(text, object_pairs_hook=object_pairs_hook)
    except json.JSONDecodeError as exc:
        raise Unparseable(f"invalid JSON ({exc.msg})", exc.lineno, exc.colno) from None
    except (ValueError, RecursionError) as exc:  # an integer past the digit limit
        raise Unparseable(f"JSON that cannot be read ({_first_line(exc)})") from None


MAX_SOURCE = 1 << 20  # an upstream version.py or workspace.bzl is a few kB


def python_module(text: str, max_bytes: int = MAX_SOURCE) -> ast.Module:
    """``ast.parse`` for upstream Python or Starlark, never executed: a file over ``max_bytes``,
    nesting the parser cannot hold (RecursionError), one that exhausts memory, or a NUL byte
    is ``Unparseable``, as is a syntax error (with its line)."""
    if len(text) > max_bytes:
        raise Unparseable(f"{len(text):,} characters, more than the {max_bytes:,} such a file may hold")
    try:
        return ast.parse(text)
    except SyntaxError as exc:
        raise Unparseable(f"line {exc.lineno}: {exc.msg}", exc.lineno, exc.offset) from None
    except (RecursionError, MemoryError):
        raise Unparseable("expressions nested too deeply to read") from None
    except ValueError as exc:  # a NUL byte in the source
        raise Unparseable(_first_line(exc)) from None


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0][:160] if text else type(exc).__name__
