"""What a benchmark measured goes into ``benchmarks/RESULTS.md`` by itself: ``record_run(main)``
runs the benchmark, shows its output as it comes, and when it returns writes (or replaces) that
benchmark's dated section of the file: its name, the day, the machine's load, its exit status
when not 0 (a goal not met), and what it printed. Everything else in the file, the written
analyses included, is kept as it was. ``--no-record`` (taken off the command line before the
benchmark's own parser sees it) leaves the file alone: a trial run, a run on a machine that is
not the one measured on; so does a run that crashes (nothing measured)."""

from __future__ import annotations

import datetime as _dt
import io
import os
import re
import sys
from pathlib import Path
from typing import Callable

RESULTS = Path(__file__).resolve().parent / "RESULTS.md"
HEADING = "## Latest runs"
INTRO = ("Written by the benchmarks themselves (`benchmarks/_results.py`): each run replaces its own "
         "section below; `--no-record` leaves this file alone.")
NO_RECORD = "--no-record"


def _markers(name: str) -> tuple[str, str]:
    return f"<!-- results: {name} -->", f"<!-- /results: {name} -->"


def load() -> str:
    """The machine's load as the section records it: 1-minute load average over the cores."""
    cores = os.cpu_count() or 1
    try:
        one = os.getloadavg()[0]
    except OSError:  # no load average on this system
        return f"load not known, {cores} cores"
    return f"load {one:.1f} on {cores} cores"


def _shown(arg: str) -> str:
    """An argument as the committed file shows it: an absolute path (alone or as ``--opt=PATH``)
    names a place on the measuring machine, which the file must not, so it reads ``PATH``."""
    flag, eq, value = arg.partition("=")
    if eq and flag.startswith("-") and os.path.isabs(value):
        return f"{flag}=PATH"
    return "PATH" if os.path.isabs(arg) else arg


def section(name: str, text: str, *, day: _dt.date, load_said: str, argv: list[str], status: int = 0,
            script: str | None = None) -> str:
    """The Markdown of one benchmark's run: heading, when and how loaded, the command, the output
    (``script``: the benchmark that ran, when ``name`` is one of its modes)."""
    fence = "```"
    while fence in text:  # output holding a fence gets a longer one
        fence += "`"
    command = " ".join(["python", f"benchmarks/{script or name}.py", *map(_shown, argv)])
    begin, end = _markers(name)
    ended = f", exit {status}" if status else ""
    return (f"{begin}\n### `{name}`: {day.isoformat()}, {load_said}{ended}\n\n`{command}`\n\n"
            f"{fence}text\n{text.rstrip()}\n{fence}\n{end}\n")


def write(name: str, text: str, *, path: Path = RESULTS, day: _dt.date | None = None,
          load_said: str | None = None, argv: list[str] | None = None, status: int = 0,
          script: str | None = None) -> None:
    """Put ``name``'s section in ``path``: replacing its last one, else at the end of the
    "Latest runs" part (made at the end of the file the first time). Written whole, then moved
    into place: a run stopped half way leaves the file as it was."""
    day = day or _dt.datetime.now(_dt.timezone.utc).date()
    new = section(name, text, day=day, load_said=load_said or load(), argv=argv or [], status=status,
                  script=script)
    old = path.read_text(encoding="utf-8") if path.exists() else "# Benchmark results\n"
    begin, end = _markers(name)
    found = re.search(re.escape(begin) + r".*?" + re.escape(end) + r"\n?", old, flags=re.S)
    if found:
        updated = old[:found.start()] + new + old[found.end():]
    else:
        if HEADING not in old:
            old = old.rstrip("\n") + f"\n\n{HEADING}\n\n{INTRO}\n"
        updated = old.rstrip("\n") + "\n\n" + new
    partial = path.with_name(path.name + ".partial")
    partial.write_text(updated, encoding="utf-8")
    partial.replace(path)


class _Tee(io.TextIOBase):
    """Writes go to the terminal as they come and are kept for the record."""

    def __init__(self, stream: io.TextIOBase) -> None:
        self.stream, self.kept = stream, io.StringIO()

    def write(self, text: str) -> int:
        self.kept.write(text)
        return self.stream.write(text)

    def flush(self) -> None:
        self.stream.flush()


def record_run(main: Callable[[], int | None], name: str | None = None, *, path: Path = RESULTS) -> int:
    """Run a benchmark's ``main`` (it parses ``sys.argv`` as usual) and record what it printed
    when it returns (a status other than 0 is recorded with it), unless ``--no-record`` was
    given; returns its exit status. An exception propagates and records nothing. ``name``: the
    section's, when a benchmark records each of its modes apart (default: the script's name)."""
    script = Path(sys.argv[0]).stem
    name = name or script
    argv = sys.argv[1:]
    record = NO_RECORD not in argv
    sys.argv = [sys.argv[0], *(a for a in argv if a != NO_RECORD)]
    if not record:
        return int(main() or 0)
    tee = _Tee(sys.stdout)  # type: ignore[arg-type]
    real, sys.stdout = sys.stdout, tee  # type: ignore[assignment]
    try:
        status = int(main() or 0)
    finally:
        sys.stdout = real
    write(name, tee.kept.getvalue(), path=path, argv=sys.argv[1:], status=status, script=script)
    print(f"recorded in {path.name} (--no-record: do not)", file=sys.stderr)
    return status
