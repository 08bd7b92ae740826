"""How much a command costs before its own work: whole processes of the commands that do little,
against ``python -c pass`` (the floor any Python CLI pays), interleaved and repeated.

- ``release --help``, ``release status --offline`` (``--json`` too), ``release nightly --dry-run
  --public-index none`` and ``release version``: each asks nothing remote, so what it costs
  beyond the floor is importing, parsing deps.yaml/version_info.json and printing;
- ``release verify`` (with ``--revisions`` and ``--provenance``) and ``release promote`` of a
  small dist (a PJRT and a plugin wheel of a few KB, made by the tests' ``build_dist``): their
  own work is a few ms, so what they cost is almost all start-up (issue 36: the fixed 0.1 s was
  most of verify's cost on the 8 MB plugin wheel, and of promote's);
- with ``--baseline CHECKOUT``, the same commands from another checkout (an older commit).

Each command runs as a log or a pipe sees it (stdout and stderr to /dev/null) and, for those that
print tables or lines for people, on a terminal too (a pseudo-terminal of 120 x 40, rows marked
``[tty]``): in a pipe their people output is plain text, on a terminal it is boxed and coloured
(``release.core.boxes``), so both are what users see.

CPU (user + sys of the child) first, then wall, and the modules each run left loaded (in a pipe or
on the terminal, as the row ran). The
goal (issue 36): every command at most 6x ``python -c pass``.

    python benchmarks/bench_startup.py [--runs 15] [--baseline CHECKOUT]
"""

from __future__ import annotations

import argparse
import fcntl
import json
import os
import pty
import resource
import struct
import subprocess
import sys
import tempfile
import termios
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
COMMANDS = (("--help",), ("status", "--offline"), ("status", "--offline", "--json"),
            ("nightly", "--dry-run", "--public-index", "none"), ("version",))
COUNT = """
import sys, runpy
sys.argv = ["release", *sys.argv[1:]]
try:
    runpy.run_module("release", run_name="__main__")
except SystemExit:
    pass
print(sum(m is not None for m in sys.modules.values()), file=sys.__stderr__)  # (a refused import: None)
"""


# What people run on a terminal as well as in a pipe: the commands whose output is tables or lines.
ON_A_TERMINAL = ("status", "nightly", "verify", "promote")


def timed(argv: list[str], cwd: Path, env: dict, tty: bool = False) -> tuple[float, float]:
    """CPU (user + sys) and wall of one run, stdout and stderr to /dev/null or, with ``tty``, to a
    pseudo-terminal whose output is read as a terminal would (and dropped)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    if tty:
        on_a_terminal(argv, cwd, env)
    else:
        subprocess.run(argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), wall


def on_a_terminal(argv: list[str], cwd: Path, env: dict, stderr: int | None = None) -> str:
    """Run ``argv`` with stdout (and stderr, unless given) on a pseudo-terminal of 120 x 40, read as
    a terminal would; what it wrote to a ``stderr`` pipe."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    proc = subprocess.Popen(argv, cwd=cwd, env={**env, "TERM": "xterm-256color"}, stdin=subprocess.DEVNULL,
                            stdout=slave, stderr=slave if stderr is None else stderr, text=True)
    os.close(slave)
    while True:
        try:
            if not os.read(master, 1 << 16):
                break
        except OSError:  # EIO: the child closed the terminal
            break
    said = proc.stderr.read() if proc.stderr else ""
    proc.wait()
    os.close(master)
    return said


def modules(argv: tuple[str, ...], checkout: Path, env: dict, tty: bool = False) -> int:
    """The modules a run leaves loaded, in a pipe or (``tty``) on a terminal."""
    if tty:
        said = on_a_terminal([sys.executable, "-c", COUNT, *argv], checkout, env, stderr=subprocess.PIPE)
    else:
        said = subprocess.run([sys.executable, "-c", COUNT, *argv], cwd=checkout, env=env,
                              capture_output=True, text=True).stderr
    return int(said.strip().splitlines()[-1])


def median(rows: list[float]) -> float:
    return sorted(rows)[len(rows) // 2]


def dist_commands(scratch: Path) -> tuple[tuple[str, ...], ...]:
    """verify and promote of a small rc dist made in ``scratch`` (promote writes into it too)."""
    sys.path.insert(0, str(REPO))
    from tests.support.publish_dist import build_dist
    dist = build_dist(scratch / "dist", "0.9.1rc1")
    wheels = tuple(sorted(str(w) for w in dist.glob("*.whl")))
    return (("verify", *wheels, "--revisions", str(dist / "revisions.json"),
             "--provenance", str(dist / "provenance.intoto.json")),
            ("promote", *wheels, "--to", "release", "--out", str(scratch / "promoted")))


def shown(argv: tuple[str, ...]) -> str:
    """A command as the table names it: a wheel or file by its kind, not its path."""
    return " ".join("WHEEL" if a.endswith(".whl") else Path(a).name if os.sep in a else a for a in argv)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--baseline", type=Path, metavar="CHECKOUT")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        measure(args, (*COMMANDS, *dist_commands(Path(scratch))))


def measure(args: argparse.Namespace, commands: tuple[tuple[str, ...], ...]) -> None:
    checkouts = {"this": REPO, **({"baseline": args.baseline.resolve()} if args.baseline else {})}
    envs = {name: {**{k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "RELEASE_"))},
                   "PYTHONPATH": str(path)} for name, path in checkouts.items()}
    for path in checkouts.values():  # as an installed package is: bytecode compiled (PYTHONDONTWRITEBYTECODE
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(path / "release")], check=True)  # or not)
    floor: list[tuple[float, float]] = []
    rows: dict[tuple[str, tuple[str, ...], bool], list[tuple[float, float]]] = {}
    for _ in range(args.runs):
        floor.append(timed([sys.executable, "-c", "pass"], REPO, envs["this"]))
        for name, path in checkouts.items():
            for argv in commands:
                for tty in (False, True) if argv[0] in ON_A_TERMINAL and "--json" not in argv else (False,):
                    rows.setdefault((name, argv, tty), []).append(
                        timed([sys.executable, "-m", "release", *argv], path, envs[name], tty))
    fc, fw = median([c for c, _ in floor]), median([w for _, w in floor])
    print(f"median of {args.runs} interleaved runs; load {os.getloadavg()[0]:.1f}; "
          f"python -c pass: {fc * 1000:.0f} ms cpu, {fw * 1000:.0f} ms wall")
    print(f"{'checkout':>8} {'command':<52} {'cpu ms':>7} {'x floor':>7} {'wall ms':>8} {'modules':>7}")
    for (name, argv, tty), runs in rows.items():
        c, w = median([c for c, _ in runs]), median([w for _, w in runs])
        label = ("[tty] " if tty else "") + shown(argv)
        count = f"{modules(argv, checkouts[name], envs[name], tty):7d}"
        print(f"{name:>8} {label[:52]:<52} {c * 1000:7.0f} {c / fc:7.1f} {w * 1000:8.0f} {count}".rstrip())
    print(json.dumps({"floor_cpu_s": fc}), file=sys.stderr)


if __name__ == "__main__":
    from _results import record_run
    raise SystemExit(record_run(main))
