"""What one validation of a draft found: its problems and warnings, how each (ROCm major, Python)
cell went, the public index's files the set was installed with, and the locks it wrote. The
steps of ``release.check.validate`` and ``release.check.validate_install`` fill it in."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from release.core import cells
from release.publish import public_files
from release.publish.public_files import PublicFile

if TYPE_CHECKING:
    from release.core.cells import Cell


@dataclasses.dataclass
class Validation:
    tag: str
    release_id: int | None
    problems: list[str] = dataclasses.field(default_factory=list)
    warnings: list[str] = dataclasses.field(default_factory=list)
    checked: list[str] = dataclasses.field(default_factory=list)
    cells: dict[Cell, dict] = dataclasses.field(default_factory=dict)  # (major, "3.X") -> how it went
    marked: bool = False
    # the public index's files the set was installed with (``release.publish.public_files``)
    public_files: list[PublicFile] = dataclasses.field(default_factory=list)
    locks: list[str] = dataclasses.field(default_factory=list)  # the pylock files the draft now carries
    reports: dict[Cell, dict] = dataclasses.field(default_factory=dict, repr=False)  # cell -> pip's report

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def untested_cells(self) -> list[Cell]:
        return sorted((c for c, info in self.cells.items() if not info.get("tested")), key=cells.sort_key)

    @property
    def untested(self) -> list[str]:
        """The Pythons of the untested cells (for outputs that name Pythons only)."""
        return sorted({py for _, py in self.untested_cells}, key=lambda p: int(p.split(".")[1]))

    def to_json(self) -> dict:
        out = dataclasses.asdict(self) | {"ok": self.ok, "untested_pythons": self.untested,
                                          "untested_cells": [cells.to_json(c) for c in self.untested_cells]}
        out["cells"] = [cells.to_json(c) | self.cells[c] for c in sorted(self.cells, key=cells.sort_key)]
        del out["reports"]
        return out

    @property
    def validated_with(self) -> str | None:
        """The notes' record of ``public_files`` (None when there is none)."""
        return public_files.to_text(self.public_files) if self.public_files else None

    @property
    def with_rocm(self) -> str | None:
        """The notes' record of each cell's with-rocm line (``release.publish.with_rocm_notes``;
        None when no cell was reached)."""
        from release.publish import with_rocm_notes
        return with_rocm_notes.to_text(self.cells) if self.cells else None
