"""How the job commands show their results to people (``--json`` prints the data itself)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console

    from release.build.plan import BuildPlan
    from release.core.plain import PlainConsole


def untested_note(result: Mapping[str, Any]) -> str:
    """``"; untested: ROCm 7, Python 3.14"`` when a job's validate step left cells untested
    (validate's warning said why), else ``""``: the job's last line never hides it."""
    from release.core import cells
    said = []
    for step in result.get("steps", []):
        outputs = step.get("outputs") or {} if step.get("step") == "validate" else {}
        if "untested_cells" in outputs:
            said += [cells.label(c) for c in cells.from_record(outputs, None)]
        else:  # a record of before cells: its Pythons, of the line's only major
            said += [f"Python {py}" for py in outputs.get("untested_pythons", [])]
    return f"; untested: {'; '.join(said)}" if said else ""


def print_plan(console: Console | PlainConsole, plan: BuildPlan) -> None:
    """A build plan as a dry run shows it: version, revisions, assets, Bazel commands."""
    from release.core.plain import new_table
    console.print(f"[bold]{plan.kind}[/bold] {plan.version}  tag {plan.tag}  "
                  f"ROCm {', '.join(plan.rocm_versions)}  Python {', '.join(plan.pythons)}  "
                  f"({plan.layout} layout)")
    table = new_table(console, "revisions", title_justify="center")
    for col in ("dep", "branch", "commit"):
        table.add_column(col)
    for name, rev in plan.revisions.revisions:
        table.add_row(name, rev.branch, rev.commit)
    console.print(table)
    if plan.revisions.release_commit:
        console.print(f"release repository commit {plan.revisions.release_commit}")
    console.print("[bold]assets[/bold]")
    for asset in plan.assets:
        console.print(f"  {asset}")
    if plan.bazel_commands:
        console.print("[bold]bazel[/bold]")
        for argv in plan.bazel_commands:
            console.print("  " + " ".join(argv), markup=False)


def print_public_index(console: Console | PlainConsole, check: dict) -> None:
    """The version-line warnings, or what was compared, or why nothing could be."""
    for warning in check["warnings"]:
        console.print(f"warning: {warning}", markup=False, style="bold yellow")
    if check.get("note"):
        console.print(check["note"], markup=False)
    elif not check["warnings"]:
        newest = ", ".join(f"{p} {v}" for p, v in check["newest"].items()) or "nothing published"
        newer = sorted({n for line in check.get("lines", {}).values()
                        if (n := line.get("newer_line"))})
        said = (f"; a maintenance line (newer line {newer[-1]} there): its users pin it, and "
                "the next versions sort above everything of the line" if newer else
                "; the next versions sort above it")
        console.print(f"public index {check['index']}: {newest}{said}", markup=False)
