"""``release verify``: named checks over wheels; exit 1 when any check reports an error."""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any, Iterator

from release.core import flags, output

if TYPE_CHECKING:   # rich is imported only when a bar or the human output needs it
    import argparse

    from rich.console import Console
    from rich.progress import Progress, TaskID

    from release.check.verify import Report
    from release.core.output import Output
    from release.core.revisions import RevisionMap

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


class _Bar:
    def __init__(self, progress: Progress | None, task: TaskID | None):
        self._progress, self._task = progress, task

    def advance(self, n: int) -> None:
        if self._progress is not None and self._task is not None:
            self._progress.advance(self._task, n)

    def describe(self, text: str) -> None:
        if self._progress is not None and self._task is not None:
            self._progress.update(self._task, description=text)


@contextlib.contextmanager
def byte_progress(out: Output, title: str, total: int) -> Iterator[_Bar]:
    """A bytes progress bar on a terminal (stderr with --json); silent when not a terminal
    (and then rich is not even imported: CI's verify pays only for its own work)."""
    if not out.draws_progress():
        yield _Bar(None, None)
        return
    from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TransferSpeedColumn
    console = out.progress_console()
    with Progress(TextColumn("{task.description}"), BarColumn(), DownloadColumn(),
                  TransferSpeedColumn(), console=console, transient=True) as progress:
        yield _Bar(progress, progress.add_task(title, total=total))


def run(args: argparse.Namespace, out: Output) -> int:
    from release.check.verify import Options, expected_revisions, required_runpath, summary_markdown, verify_wheels
    from release.core import rocm_runtime
    from release.core.scan import payload_size
    runpath, note = required_runpath(args.runpath, args.root)
    if note:
        out.line(f"warning: {note}; pass --runpath ENTRY to require entries")
    if args.rocm_version is not None:
        rocm_runtime.load(args.rocm_version, args.root)  # a version without a list: exit 2
    options = Options(runpath=runpath, revisions=expected_revisions(args.deps, args.revisions),
                      rocm_version=args.rocm_version, rocm_root=args.root)
    with byte_progress(out, "verifying", sum(payload_size(w) for w in args.wheels)) as bar:
        reports = verify_wheels(args.wheels, options, progress=bar.advance,
                                on_wheel=lambda w: bar.describe(f"verifying {w.name}"))
    prov = None if args.provenance is None else _check_provenance(args, options.revisions)
    errors = sum(len(r.errors) for r in reports) + len(prov["problems"] if prov else [])
    data = {"ok": errors == 0, "errors": errors, "runpath": list(options.runpath),
            "wheels": [r.to_json() for r in reports]}
    if note:
        data["runpath_note"] = note
    if prov is not None:
        data["provenance"] = prov

    def human(console: Console) -> None:
        _print(console, reports)
        if prov is not None:
            console.print(f"{prov['file']}: {'ok' if prov['ok'] else 'FAILED'}", markup=False)
            for problem in prov["problems"]:
                console.print(f"  - {problem}", markup=False)
    out.result(data, human)
    output.github_output({"verify-ok": str(errors == 0).lower(), "verify-errors": str(errors)})
    output.step_summary("## release verify\n\n" + summary_markdown(reports) + (
        "" if prov is None else f"\n\n**{prov['file']}**: " + ("ok" if prov["ok"] else "FAILED\n\n"
                                + "\n".join(f"- {p}" for p in prov["problems"]))))
    return 1 if errors else 0


def _check_provenance(args: argparse.Namespace, revisions: RevisionMap | None) -> dict[str, Any]:
    """The ``--provenance`` check (``release.build.provenance``): one problem line per mismatch."""
    from release.build import provenance
    from release.core.naming import Identity
    found = {Identity.of(wheel).version for wheel in args.wheels} - {None}
    problems = provenance.check_files(args.provenance, args.wheels,
                                      version=found.pop() if len(found) == 1 else None,
                                      revisions=revisions, exact=args.deps is None)
    return {"file": str(args.provenance), "ok": not problems, "problems": problems}


def _print(console: Console, reports: list[Report]) -> None:
    """One line per wheel; below a wheel with findings, one line per fold of them."""
    from rich.markup import escape

    from release.check.verify import ERROR, fold, summary_line
    for report in reports:
        style = "bold red" if not report.ok else ("yellow" if report.findings else "green")
        console.print(f"[{style}]{escape(summary_line(report))}[/]")
        for f in fold(report.findings):
            color = "red" if f.severity == ERROR else "yellow"
            console.print(f"  [{color}]{escape(f.line())}[/]")
