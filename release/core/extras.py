"""An extra's requirements as a wheel's METADATA declares them: the ``Requires-Dist`` lines whose
marker holds for that extra and not without it. verify's with-rocm check (the wheel's own
METADATA) and validate's with-rocm resolution (the METADATA a plugin wheel carries) read the
plugin's ``with-rocm`` extra through this one reading."""

from __future__ import annotations

from typing import Iterable, Protocol

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

WITH_ROCM = "with-rocm"  # the plugin's extra that pulls TheRock's ROCm runtime wheels


class MetadataHeaders(Protocol):
    def get_all(self, name: str) -> Iterable[str] | None: ...


def requirements(meta: MetadataHeaders, extra: str = WITH_ROCM) -> list[Requirement] | None:
    """What ``extra`` adds (however METADATA spells its name); None when the wheel declares no
    such extra. A requirement that does not parse is left out: verify's requires check names it."""
    spelled = next((e.strip() for e in meta.get_all("Provides-Extra") or ()
                    if canonicalize_name(e.strip()) == canonicalize_name(extra)), None)
    if spelled is None:
        return None
    found = []
    for line in meta.get_all("Requires-Dist") or ():
        try:
            req = Requirement(line)
        except InvalidRequirement:
            continue
        if req.marker is not None and req.marker.evaluate({"extra": spelled}) \
                and not req.marker.evaluate({"extra": ""}):
            found.append(req)
    return found
