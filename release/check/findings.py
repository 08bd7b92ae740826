"""One finding of a check over wheels (what is wrong or worth a look, where, how bad), and the
options every check takes."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from release.core.revisions import RevisionMap

ERROR, WARNING, NOTE = "error", "warning", "note"  # a note: what a check could not say; no status


@dataclasses.dataclass(frozen=True)
class Finding:
    """One problem (or note) a check found in a wheel."""

    check: str
    severity: str  # "error" | "warning" | "note"
    message: str
    member: str | None = None
    # The class of the finding when its message names one instance (one RUNPATH entry),
    # so a person reads "16 build-tree entries in 9 .so files" instead of 144 lines.
    group: str | None = None

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@dataclasses.dataclass(frozen=True)
class Options:
    """What the checks hold a wheel to beyond its own contents."""

    runpath: tuple[str, ...] = ()  # entries every .so must carry
    revisions: RevisionMap | None = None  # the revision map the wheel must embed
    rocm_version: str | None = None  # the ROCm runtime NEEDED resolves in (default: the Summary's)
    rocm_root: Path | None = None  # whose jax_rocm_plugin/rocm_runtime.json (default: the shipped)
    sbom_required: bool = False  # the layout writes a CycloneDX SBOM into every wheel
    line_rocms: tuple[str, ...] = ()  # the ROCm releases of the line (--root), one a major
