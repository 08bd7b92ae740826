"""Findings that read the same across members folded into the few lines a person reads."""

from __future__ import annotations

import dataclasses
from typing import Iterable

from release.check.findings import Finding


@dataclasses.dataclass(frozen=True)
class Fold:
    """Findings that read the same across members: one line for a person."""

    check: str
    severity: str
    what: str                   # the group, or the message when the findings are identical
    messages: tuple[str, ...]   # distinct messages, in order
    members: tuple[str, ...]    # distinct members, in order ("" for the wheel as a whole)

    def line(self, shown: int = 3) -> str:
        names = [m.rsplit("/", 1)[-1] for m in self.members if m]
        where = ""
        if names:
            listed = ", ".join(names[:shown]) + (f" and {len(names) - shown} more"
                                                 if len(names) > shown else "")
            where = f" in {len(names)} files ({listed})" if len(names) > 1 else f" ({listed})"
        if len(self.messages) == 1:
            return f"{self.check} {self.severity}: {self.messages[0]}{where}"
        return (f"{self.check} {self.severity}: {len(self.messages)} x {self.what}{where}; "
                f"first: {self.messages[0]}")


def fold(findings: Iterable[Finding]) -> list[Fold]:
    """Group findings by check, severity and group (or identical message), in first-seen order,
    so the 95-entry RUNPATH of 9 shared objects reads as a handful of lines."""
    groups: dict[tuple[str, str, str], tuple[dict[str, None], dict[str, None]]] = {}
    for f in findings:
        key = (f.check, f.severity, f.group or f.message)
        messages, members = groups.setdefault(key, ({}, {}))
        messages[f.message] = None
        members[f.member or ""] = None
    return [Fold(check, severity, what, tuple(messages), tuple(members))
            for (check, severity, what), (messages, members) in groups.items()]

