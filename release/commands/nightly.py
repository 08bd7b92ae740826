"""``release nightly``: tonight's prerelease, from pins to published wheels.

With no ``--stage`` the whole job runs here (Bazel and ROCm needed, or ``--artifacts``).
CI splits it: ``--stage plan`` decides and opens the draft, the build matrix uploads into
it (``release build`` + ``release publish --partial``), ``--stage finish`` completes it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from release.commands._common import (
    add_date_options,
    add_python_option,
    add_store_options,
    job_run,
    now_utc,
    open_store_from_args,
    project,
    retention_from_args,
    transfer_progress,
    untested_note,
)
from release.commands._job_flags import add_job_flags, job_options
from release.core import output

if TYPE_CHECKING:
    import argparse

    from rich.console import Console

    from release.build.plan import BuildPlan
    from release.core.output import Output

HELP = "build, verify and publish tonight's nightly prerelease (--dry-run shows the plan)"
JOBS = ("nightly", "nightly-finish")  # release.jobs.catalog: the jobs this command runs


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from release.jobs.pipeline import add_lock_timeout_option
    add_date_options(parser, force=True)
    add_python_option(parser)
    parser.add_argument("--dry-run", action="store_true",
                        help="print the plan (version, revisions, wheels, tag, assets, Bazel "
                             "commands) without changes; the public index is asked only for "
                             "its newest versions")
    parser.add_argument("--stage", choices=("plan", "finish"),
                        help="run one stage of a split CI run (default: the whole job)")
    add_job_flags(parser, JOBS)
    add_store_options(parser)
    add_lock_timeout_option(parser)


def run(args: argparse.Namespace, out: Output) -> int:
    from release.build.plan import make_plan
    from release.check import resolver
    from release.commands.status import print_public_index
    from release.jobs import catalog, nightly, shared
    from release.sources.git import head_of
    proj = project(args)
    retention_from_args(args)  # a bad --protect is refused before anything, even a dry run
    now = now_utc()
    date = args.date or now.date()
    index = resolver.public_index_from_args(args)

    def plan_over(published: tuple[str, ...]) -> BuildPlan:
        # a released line's nightlies sort above what it published, wherever it was published
        return make_plan(proj, "nightly", date=date, build_number=args.build_number,
                         pythons=args.pythons, release_commit=head_of(proj.root, enclosing=True),
                         today=now.date(), force=args.force, published=published)
    listed = resolver.index_versions(proj.version_info.rocm_major, index)
    plan = plan_over(listed)  # a bad date or Python is refused before the store is opened
    store = None if args.dry_run else open_store_from_args(args, out)
    if store is not None:
        plan = plan_over((*store.published().versions(), *listed))
    # Before building: a version the public index beats on its own line would never be
    # installed by the line's users, so validate would fail: the plan stops here.
    check: dict = {"warnings": []}
    if args.dry_run or args.stage != "finish":
        check = resolver.refuse_losing_versions({"nightly": plan.version}, plan.rocm_major, index)
    # ``now``: the plan's clock, which CI hands every later job as $RELEASE_NOW, so a job
    # re-run on a later day still builds and publishes the plan's nightly.
    keys = {"date": date.isoformat(), "now": now.isoformat(timespec="seconds").replace("+00:00", "Z"),
            "version": plan.version, "tag": plan.tag}
    if args.dry_run:
        def human(console: Console) -> None:
            print_plan(console, plan)
            print_public_index(console, check)
        output.github_output(keys)
        output.step_summary(f"### nightly {plan.version} (dry run)\n\n`{plan.tag}`: "
                            + ", ".join(f"`{a}`" for a in plan.assets))
        out.result(plan.to_json() | {"public_index": check}, human)
        return 0
    if store is None:  # opened above for every run but a dry run
        raise AssertionError("no store for a nightly that publishes")
    options = job_options(args, proj.root)
    with transfer_progress(out) as progress:
        run_of = job_run(args, proj, plan.version, store, out, plan=plan, now=now, progress=progress)
        if args.stage == "plan":
            decision = nightly.decide_nightly(store, plan, nightly.mirror_paths(proj))
            if decision.build:
                shared.open_draft(store, plan, out.line)
            out.line(decision.reason)
            result: dict = {"stage": "plan", "changed": decision.build, "reason": decision.reason} | keys
            output.github_output({"changed": str(decision.build).lower(), **keys})
        elif args.stage == "finish":
            steps = catalog.run("nightly-finish", run_of, options, lock_timeout=args.lock_timeout)
            result = {"version": plan.version, "tag": plan.tag, "stage": "finish",
                      "steps": [s.to_json() for s in steps]}
            output.github_output({"published": "true", **keys})
        else:
            result = nightly.run_nightly(run_of, options, lock_timeout=args.lock_timeout)
            output.github_output({"changed": str(result["built"]).lower(), **keys})
    output.step_summary(f"### nightly {plan.version}\n\n" + result.get("reason", "published"))

    def published(console: Console) -> None:
        """People read the reason line already printed; a build ends with what it published."""
        if result.get("steps"):
            console.print(f"nightly {plan.version}: published {plan.tag}" + untested_note(result),
                          markup=False)
    out.result(result, published)
    return 0


def print_plan(console: Console, plan: BuildPlan) -> None:
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
