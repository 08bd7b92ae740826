"""``release verify``: named checks over wheels; exit 1 when any check reports an error.

The work is ``release.jobs.verify.run_verify``; this module turns flags into its options and
prints its result."""

from __future__ import annotations

from typing import TYPE_CHECKING

from release.core import flags, output

if TYPE_CHECKING:   # rich is imported only when a bar draws
    import argparse

    from rich.console import Console

    from release.check.verify import Report
    from release.core.output import Output
    from release.core.plain import PlainConsole

HELP = ("check wheels: zip, RECORD, names, purelib, glibc tag, symbol versions, RUNPATH, every NEEDED "
        "resolves, version, revision map, pins")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("wheels", nargs="+", type=flags.existing_file, metavar="WHEEL", help="wheel files to check")
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--deps", type=flags.existing_file, metavar="deps.yaml",
                        help="the revision map in the wheels must pin these commits")
    source.add_argument("--revisions", type=flags.existing_file, metavar="revisions.json",
                        help="the revision map in the wheels must equal this one")
    parser.add_argument("--provenance", type=flags.existing_file, metavar="FILE",
                        help="provenance.intoto.json: its subjects must be exactly these wheels "
                             "with their sha256, its dependencies their revision maps (and "
                             "--revisions/--deps when given)")
    parser.add_argument("--rocm-version", metavar="A.B.C", default=None,
                        help="the ROCm release whose runtime the shared objects' NEEDED must resolve "
                             "in (default: the one each wheel's Summary names); it must have a list "
                             "in jax_rocm_plugin/rocm_runtime.json")
    parser.add_argument("--runpath", action="append", metavar="ENTRY", default=None,
                        help="a RUNPATH entry every .so must carry, repeatable (default: the "
                             "entries the rocm_build Bazel config sets, when it can be read)")


def run(args: argparse.Namespace, out: Output) -> int:
    from release.commands._progress import byte_progress
    from release.core.scan import payload_size
    from release.jobs.verify import VerifyOptions, required_runpath, run_verify
    options = VerifyOptions(tuple(args.wheels), args.deps, args.revisions, args.provenance,
                            args.rocm_version, tuple(args.runpath) if args.runpath is not None else None,
                            args.root)
    runpath = required_runpath(options)
    if runpath[1]:
        out.line(f"warning: {runpath[1]}; pass --runpath ENTRY to require entries")
    with byte_progress(out, "verifying", sum(payload_size(w) for w in args.wheels)) as bar:
        result = run_verify(options, bar, runpath)

    def human(console: Console | PlainConsole) -> None:
        _print(console, result.reports)
        prov = result.provenance
        if prov is not None:
            console.print(f"{prov['file']}: {'ok' if prov['ok'] else 'FAILED'}", markup=False)
            for problem in prov["problems"]:
                console.print(f"  - {problem}", markup=False)
    out.result_view(result.to_json(), human)
    output.github_output(result.outputs())
    output.step_summary(result.summary())
    return 1 if result.errors else 0


def _print(console: Console | PlainConsole, reports: list[Report]) -> None:
    """One line per wheel; below a wheel with findings, one line per fold of them (coloured on a
    terminal by how bad it is)."""
    from release.check.verify import ERROR, WARNING, fold, summary_line
    for report in reports:
        warned = any(f.severity == WARNING for f in report.findings)
        style = "bold red" if not report.ok else ("yellow" if warned else "green")
        console.print(summary_line(report), markup=False, style=style)
        for f in fold(report.findings):
            console.print(f"  {f.line()}", markup=False, style={ERROR: "red", WARNING: "yellow"}.get(f.severity, "dim"))
