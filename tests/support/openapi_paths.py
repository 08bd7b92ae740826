"""openapi-core's path finder with GitHub's paths read once, not once per request.

To check a request or a response, openapi-core finds the description's path that matches the
URL by walking every path of the description, making a schema object for each (GitHub's has
about a thousand): that walk was most of the CPU the GitHub stand-in spent, and the stand-in
checks every request and every answer. ``IndexedPathFinder`` lists the paths of a description
once and matches a URL against that list by the same rule: paths the URL ends with first, in
the description's order, then templated paths that match it, fewer variables first.
``tests/test_openapi_paths.py`` holds it to openapi-core's own finder.
"""

from __future__ import annotations

import threading
from typing import Iterator

from openapi_core.templating.datatypes import TemplateResult
from openapi_core.templating.paths.datatypes import Path
from openapi_core.templating.paths.exceptions import PathsNotFound
from openapi_core.templating.paths.finders import APICallPathFinder
from openapi_core.templating.paths.parsers import PathParser


class IndexedPathsIterator:
    """Called as openapi-core calls its paths iterator: ``(url, spec, base_url)`` -> matches."""

    def __init__(self, part: str = "paths"):
        self.part = part
        self._lock = threading.Lock()  # the stand-in answers from several threads
        # id(spec) -> (spec, [(pattern, its schema path, its parser)]); the spec is kept so
        # that its id is never reused by another description while listed here
        self._listed: dict[int, tuple[object, list[tuple[str, object, PathParser]]]] = {}

    def _paths(self, spec) -> list[tuple[str, object, PathParser]]:
        with self._lock:
            listed = self._listed.get(id(spec))
            if listed is None:
                paths = spec / self.part
                if not paths.exists():
                    raise PathsNotFound(paths.as_uri())
                listed = (spec, [(pattern, path, PathParser(pattern, post_expression="$"))
                                 for pattern, path in paths.str_items()])
                self._listed[id(spec)] = listed
            return listed[1]

    def __call__(self, name: str, spec, base_url: str | None = None) -> Iterator[Path]:
        exact, templated = [], []
        for pattern, path, parser in self._paths(spec):
            if name.endswith(pattern):
                exact.append(Path(path, TemplateResult(pattern, {})))
                continue
            found = parser.search(name)
            if found:
                templated.append(Path(path, TemplateResult(pattern, found.named)))
        templated.sort(key=lambda p: len(p.path_result.variables))  # stable: ties keep their order
        return iter(exact + templated)


class IndexedPathFinder(APICallPathFinder):
    paths_iterator = IndexedPathsIterator()
