"""A (ROCm major, Python) cell: the unit validate, smoke, status and the page report on.

A line may build ROCm 7 and ROCm 10 wheels, each for every Python of the line; each pair of a
major is its own install (``jax-rocm7-plugin`` never satisfies a ``jax[rocm10-...]`` user), so a
result keyed by Python alone lets one major's verdict overwrite the other's. Every record this
tool writes keys its results by both; records written before (keyed by Python only) are read
as the results of the line's only major.

    of_wheels(names) -> {(major, "3.X"): (plugin file, pjrt file or None)}
    label((7, "3.12")) -> "ROCm 7, Python 3.12"
    from_record(data, only_major) -> [(major, "3.X")]   # a record's untested cells, old or new
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Iterable, Mapping

from release.core.naming import Identity

Cell = tuple[int, str]


def sort_key(cell: Cell) -> tuple[int, int]:
    """Majors in order, then Pythons by minor (3.9 before 3.10)."""
    major, python = cell
    return major, int(python.split(".")[1])


def label(cell: Cell) -> str:
    return f"ROCm {cell[0]}, Python {cell[1]}"


def to_json(cell: Cell) -> dict:
    return {"rocm_major": cell[0], "python": cell[1]}


def of_wheels(names: Iterable[str | Path]) -> dict[Cell, tuple[str, str | None]]:
    """Every cell the jax-rocm wheel files ``names`` hold a plugin wheel for, with that plugin's
    file name and its major's PJRT file name (None when the set has no PJRT of that major)."""
    pjrt: dict[int, str] = {}
    plugins: dict[Cell, str] = {}
    for name in names:
        ident = Identity.of(name)
        if ident.rocm_major is None:  # not a jax-rocm wheel, or not a wheel name at all
            continue
        if ident.kind == "pjrt":
            pjrt[ident.rocm_major] = Path(name).name
        elif ident.kind == "plugin":
            for python in ident.pythons:
                plugins[(ident.rocm_major, python)] = Path(name).name
    return {cell: (plugins[cell], pjrt.get(cell[0])) for cell in sorted(plugins, key=sort_key)}


def missing(named: Iterable[Cell], held: Iterable[Cell]) -> list[Cell]:
    """The cells of ``named`` (what the line builds) that ``held`` (a draft's) lacks, in order."""
    have = set(held)
    return sorted((c for c in set(named) if c not in have), key=sort_key)


def from_record(data: Mapping, only_major: int | None) -> list[Cell]:
    """The untested cells of a validate record (``release validate --json``, or a job's validate
    step outputs): ``untested_cells`` when it has them; else the older ``untested_pythons``,
    which mean the line's only major (``only_major``; None: such a record cannot be placed, and
    its Pythons are left out)."""
    new = data.get("untested_cells")
    if isinstance(new, list):
        return sorted(((c["rocm_major"], c["python"]) for c in new if isinstance(c, Mapping)
                       and _is_major(c.get("rocm_major")) and _is_python(c.get("python"))), key=sort_key)
    old = data.get("untested_pythons")
    if isinstance(old, list) and only_major is not None:
        return sorted(((only_major, py) for py in old if _is_python(py)), key=sort_key)
    return []


def _is_major(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


def _is_python(value: object) -> bool:
    return isinstance(value, str) and re.fullmatch(r"3\.\d{1,3}", value) is not None
