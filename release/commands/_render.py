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
                  f"ROCm {plan.rocm_version}")
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
