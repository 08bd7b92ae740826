"""openapi-core's path finder with GitHub's paths read once, not once per request.

To check a request or a response, openapi-core finds the description's path that matches the
URL by walking every path of the description, making a schema object for each (GitHub's has
about a thousand): that walk was most of the CPU the GitHub stand-in spent, and the stand-in
checks every request and every answer. ``IndexedPathFinder`` lists the paths of a description
once and matches a URL against that list by the same rule: paths the URL ends with first, in
the description's order, then templated paths that match it, fewer variables first.
A path's matcher (a regular expression: ~0.15 ms each to compile, ~0.1 CPU-s for GitHub's paths
in every worker) is compiled the first time a URL could match it: one that holds each of the
path's literal parts and ends with its last, which every URL its expression finds does.
``tests/test_openapi_paths.py`` holds it to openapi-core's own finder.
"""

from __future__ import annotations

import re
import threading
from typing import Iterator

from openapi_core.templating.datatypes import TemplateResult
from openapi_core.templating.paths.datatypes import Path
from openapi_core.templating.paths.exceptions import PathsNotFound
from openapi_core.templating.paths.finders import APICallPathFinder
from openapi_core.templating.paths.parsers import PathParser

_VARIABLE = re.compile(r"\{[^}]*\}")


class _Listed:
    """One path of the description: its pattern, its schema path, its matcher once compiled."""

    def __init__(self, pattern: str, path: object):
        self.pattern = pattern
        self.path = path
        parts = _VARIABLE.split(pattern)
        self._tail = parts[-1]
        self._parts = [part for part in parts if part]
        self._parser: PathParser | None = None

    def may_match(self, name: str) -> bool:
        """False only where the matcher cannot find the path in ``name`` (its literal parts, each
        kept as written, must all be there, the last one at the end, where ``$`` also allows one
        newline after it)."""
        return ((name.endswith(self._tail) or name.endswith(self._tail + "\n"))
                and all(part in name for part in self._parts))

    def parser(self) -> PathParser:
        if self._parser is None:  # two threads may both compile it: the same matcher either way
            self._parser = PathParser(self.pattern, post_expression="$")
        return self._parser


class IndexedPathsIterator:
    """Called as openapi-core calls its paths iterator: ``(url, spec, base_url)`` -> matches."""

    def __init__(self, part: str = "paths"):
        self.part = part
        self._lock = threading.Lock()  # the stand-in answers from several threads
        # id(spec) -> (spec, [_Listed]); the spec is kept so that its id is never reused by
        # another description while listed here
        self._listed: dict[int, tuple[object, list[_Listed]]] = {}

    def _paths(self, spec) -> list[_Listed]:
        with self._lock:
            listed = self._listed.get(id(spec))
            if listed is None:
                paths = spec / self.part
                if not paths.exists():
                    raise PathsNotFound(paths.as_uri())
                listed = (spec, [_Listed(pattern, path) for pattern, path in paths.str_items()])
                self._listed[id(spec)] = listed
            return listed[1]

    def __call__(self, name: str, spec, base_url: str | None = None) -> Iterator[Path]:
        exact, templated = [], []
        for listed in self._paths(spec):
            pattern, path = listed.pattern, listed.path
            if name.endswith(pattern):
                exact.append(Path(path, TemplateResult(pattern, {})))
                continue
            if not listed.may_match(name):
                continue
            found = listed.parser().search(name)
            if found:
                templated.append(Path(path, TemplateResult(pattern, found.named)))
        templated.sort(key=lambda p: len(p.path_result.variables))  # stable: ties keep their order
        return iter(exact + templated)


class IndexedPathFinder(APICallPathFinder):
    paths_iterator = IndexedPathsIterator()
