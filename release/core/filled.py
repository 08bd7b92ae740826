"""A frozen dataclass's instance made from known-good values without its ``__init__``.

A frozen dataclass's ``__init__`` sets each field through ``object.__setattr__`` (its own
``__setattr__`` refuses). For records the index makes by the thousand from values it has
already checked (assets, wheel names, notes rows, page entries, matrix cells) that call per
field was a measurable part of a run. ``filled`` puts the fields in the instance's ``__dict__``
at once: the same instance (equal, hashed, shown and frozen as the dataclass's own), with no
field defaulted, so the caller passes every one.
"""

from __future__ import annotations

from typing import Iterable, Mapping, TypeVar

T = TypeVar("T")


def filled(cls: type[T], fields: Mapping[str, object] | Iterable[tuple[str, object]]) -> T:
    made = object.__new__(cls)
    made.__dict__.update(fields)
    return made
