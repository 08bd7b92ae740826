"""The with-rocm section validate leaves in a draft's notes: how each (ROCm major, Python) cell's
line for users without a system ROCm (``jax[rocmN]``, the plugin's ``with-rocm`` extra, TheRock's
runtime wheels) resolved (``release.check.with_rocm_path``), so status and the page, which read
the release and not the job that validated it, show it per cell beside the other gates.

One line a cell, read back by ``read``; a person reads it on GitHub::

    - ROCm 7, Python 3.12: passed (pip ok, uv ok; rocm-sdk-core==7.2.0)
    - ROCm 10, Python 3.12: n/a (the with-rocm extra names amd_x, which ... does not record ...)
    - ROCm 7, Python 3.13: not run

``passed``: every installer tried resolved it; ``n/a``: validate had nothing to resolve (the
plugin declares no such extra, or it names packages that are not TheRock's), with its reason;
``not run``: the cell was not installed (no interpreter, no public index). A failed resolution
fails validate, which then marks nothing, so a record saying ``failed`` is not one validate left.
"""

from __future__ import annotations

import re
from typing import Mapping

from release.core import cells
from release.core.cells import Cell

HEAD = "**with-rocm path** (`jax[rocmN]` with TheRock's runtime wheels, resolved by `release validate`):"
STATES = ("passed", "failed", "n/a", "not run")
_LINE = re.compile(r"^- ROCm (?P<major>\d{1,4}), Python (?P<python>3\.\d{1,3}): (?P<state>passed|failed|n/a|not run)"
                   r"(?: \((?P<said>.*)\))?[ \t]*\r?$", re.M)


def state(record: Mapping) -> tuple[str, str | None]:
    """A cell's ``with_rocm`` record (``with_rocm_path.Record.to_json``) as a state and its reason:
    ``passed`` when an installer resolved it and none failed, ``n/a`` when none could be tried for
    a reason, ``failed`` otherwise."""
    said = [v for k, v in record.items() if k not in ("runtime", "reason")]
    if "ok" in said and "failed" not in said:
        return "passed", None
    if said and all(v == "n/a" for v in said):
        return "n/a", _one_line(str(record.get("reason") or "no reason recorded"))
    return "failed", _one_line(str(record["reason"])) if record.get("reason") else None


def to_text(results: Mapping[Cell, Mapping]) -> str:
    """The section for validate's per-cell results (``Validation.cells``): every cell, in order."""
    lines = [HEAD]
    for cell in sorted(results, key=cells.sort_key):
        record = results[cell].get("with_rocm")
        head = f"- {cells.label(cell)}: "
        if not isinstance(record, Mapping):
            lines.append(head + "not run")
            continue
        got, reason = state(record)
        if got == "passed":
            tried = ", ".join(f"{k} {v}" for k, v in record.items() if k not in ("runtime", "reason"))
            runtime = ", ".join(str(r) for r in record.get("runtime") or ())
            lines.append(f"{head}passed ({tried}{'; ' + runtime if runtime else ''})")
        else:
            lines.append(f"{head}{got}" + (f" ({reason})" if reason else ""))
    return "\n".join(lines)


def read(section: str | None) -> dict[Cell, tuple[str, str | None]] | None:
    """Cell -> (state, reason for ``n/a``) of a section ``to_text`` wrote; None when the notes
    have none (validated before the section was kept, or not validated)."""
    if section is None:
        return None
    found: dict[Cell, tuple[str, str | None]] = {}
    for m in _LINE.finditer(section):
        said = m.group("said")
        found[(int(m.group("major")), m.group("python"))] = (
            m.group("state"), said.strip() if m.group("state") == "n/a" and said else None)
    return found


def _one_line(text: str) -> str:
    """A reason as one line that cannot close the section or open a record in it."""
    return " ".join(text.split()).replace("<!--", "<! --").replace("-->", "- ->")
