"""Functions named by their module and attribute, imported when first called.

A table of functions (``release.jobs.catalog``: every job's plan steps and steps) that
imported each function's module would load every job's whole stack to answer ``--help`` or
a dry run that runs two of them. ``LazyModule("release.jobs.steps").fetch`` is a ``Ref``: it
reads like the function, is called like it, and imports ``release.jobs.steps`` at its first
call. A misspelt name fails when called, so a table of them is checked by resolving each one
(``Ref.resolve``) in a test.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any


class Ref:
    """``module.name``, imported and looked up at each call (so a monkeypatched attribute is
    the one called, as it would be through the module). A plain class: a dataclass costs a
    millisecond to define, at every start."""

    __slots__ = ("module", "name")

    def __init__(self, module: str, name: str):
        if not name.isidentifier() or not all(p.isidentifier() for p in module.split(".")):
            raise ValueError(f"{module}.{name} is not a module and an attribute name")
        self.module, self.name = module, name

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Ref) and (self.module, self.name) == (other.module, other.name)

    def __hash__(self) -> int:
        return hash((self.module, self.name))

    def __repr__(self) -> str:
        return f"Ref({self.module!r}, {self.name!r})"

    def resolve(self) -> Callable[..., Any]:
        """The function itself (raises ImportError or AttributeError when there is none)."""
        found = getattr(importlib.import_module(self.module), self.name)
        if not callable(found):
            raise TypeError(f"{self} is not a function")
        return found

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.resolve()(*args, **kwargs)

    def __str__(self) -> str:
        return f"{self.module}.{self.name}"


class LazyModule:
    """A module not yet imported: each attribute read is a ``Ref`` into it."""

    def __init__(self, module: str):
        self._module = module

    def __getattr__(self, name: str) -> Ref:
        if name.startswith("_"):
            raise AttributeError(name)
        return Ref(self._module, name)

    def __repr__(self) -> str:
        return f"LazyModule({self._module!r})"
