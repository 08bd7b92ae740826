"""``release nightly``: tonight's prerelease, from pins to published wheels."""

from __future__ import annotations

from rich.table import Table

from release.commands._common import add_date_options, add_python_option, project, today_utc
from release.errors import UserError
from release.naming import PYTHONS
from release.plan import make_plan

HELP = "build, verify and publish tonight's nightly prerelease (--dry-run shows the plan)"


def add_arguments(parser) -> None:
    add_date_options(parser)
    add_python_option(parser)
    parser.add_argument("--dry-run", action="store_true",
                        help="print the plan (version, revisions, wheels, tag, assets, Bazel "
                             "commands) without network or changes")


def run(args, out) -> int:
    proj = project(args)
    plan = make_plan(proj, "nightly", date=args.date or today_utc(),
                     build_number=args.build_number,
                     pythons=tuple(args.pythons or PYTHONS))
    if not args.dry_run:
        raise UserError("only --dry-run is available so far")
    out.result(plan.to_json(), lambda console: print_plan(console, plan))
    return 0


def print_plan(console, plan) -> None:
    console.print(f"[bold]{plan.kind}[/bold] {plan.version}  tag {plan.tag}  "
                  f"ROCm {plan.rocm_version}")
    table = Table(title="revisions")
    for col in ("dep", "branch", "commit"):
        table.add_column(col)
    for name, rev in plan.revisions.revisions:
        table.add_row(name, rev.branch, rev.commit)
    console.print(table)
    console.print("[bold]assets[/bold]")
    for asset in plan.assets:
        console.print(f"  {asset}")
    if plan.bazel_commands:
        console.print("[bold]bazel[/bold]")
        for argv in plan.bazel_commands:
            console.print("  " + " ".join(argv), markup=False)
