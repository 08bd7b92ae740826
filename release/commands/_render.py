"""How the job commands show their results to people (``--json`` prints the data itself)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console

    from release.build.plan import BuildPlan


def untested_note(result: Mapping[str, Any]) -> str:
    """``"; untested Pythons: 3.14"`` when a job's validate step left Pythons untested
    (validate's warning said why), else ``""``: the job's last line never hides it."""
    untested = [py for step in result.get("steps", []) if step.get("step") == "validate"
                for py in (step.get("outputs") or {}).get("untested_pythons", [])]
    return f"; untested Pythons: {', '.join(untested)}" if untested else ""


def print_plan(console: Console, plan: BuildPlan) -> None:
    """A build plan as a dry run shows it: version, revisions, assets, Bazel commands."""
    from rich.table import Table
    console.print(f"[bold]{plan.kind}[/bold] {plan.version}  tag {plan.tag}  "
                  f"ROCm {', '.join(plan.rocm_versions)}  Python {', '.join(plan.pythons)}  "
                  f"({plan.layout} layout)")
    table = Table(title="revisions")
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


def print_public_index(console: Console, check: dict) -> None:
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
