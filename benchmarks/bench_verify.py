"""Whole-process ``release verify`` vs a bare isal inflate + sha256 pass over the same wheel.

Both sides are fresh processes, imports included, as a user or CI runs them:

- anchor: ``python -c <inflate every member with isal, sha256 it>``, the least work any
  verifier must do (each member inflated once and hashed once), written as fast as we know
  how: isal's ``IgzipDecompressor`` inflating at most 1 MiB at a time from one reused read
  buffer. The naive form (``fp.read`` of fresh blocks, ``decompressobj().decompress`` of
  whole blocks) takes a page fault for every 4 KiB it inflates, about a third more CPU on the
  503 MB object; it is timed too (``naive anchor``), for reference, and not the goal;
- ``python -m release verify WHEEL --json``: the same pass plus CRC-32, the ELF reads, RECORD
  and the named checks, and the CLI's own imports.

Runs are interleaved (anchor, verify, anchor, verify, ...) and repeated, on a warm page cache.
CPU time (user + sys of the child) is printed next to wall time: on a shared machine wall time
depends on how many cores are idle, CPU time much less. Goal: verify within 1.1x of the anchor.

    python benchmarks/bench_verify.py [--wheel PATH] [--runs N]

Without ``--wheel`` it generates a PJRT wheel the size of the real one (``_bigwheel.py``).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

from _bigwheel import REPO, big_wheel

# Both anchors: every member's compressed bytes, found from its local header; stored members
# are hashed as they are read. Each anchor appends its own inflate loop (the body of the loop).
_EACH_MEMBER = """
import hashlib, struct, sys, zipfile
from isal import igzip_lib, isal_zlib
CHUNK = 1 << 20
buffer = memoryview(bytearray(CHUNK))
with zipfile.ZipFile(sys.argv[1]) as zf, open(sys.argv[1], "rb") as fp:
    for info in zf.infolist():
        fp.seek(info.header_offset)
        header = fp.read(30)
        name_len, extra_len = struct.unpack("<HH", header[26:30])
        fp.seek(info.header_offset + 30 + name_len + extra_len)
        digest, left = hashlib.sha256(), info.compress_size
        if info.compress_type == zipfile.ZIP_STORED:
            while left:
                block = fp.read(min(left, CHUNK))
                left -= len(block)
                digest.update(block)
            continue
"""

ANCHOR = _EACH_MEMBER + """\
        inflate = igzip_lib.IgzipDecompressor()
        while not inflate.eof:
            data = b""
            if inflate.needs_input:
                got = fp.readinto(buffer[:min(left, CHUNK)])
                left -= got
                data = buffer[:got]
            digest.update(inflate.decompress(data, CHUNK))
"""

NAIVE_ANCHOR = _EACH_MEMBER + """\
        inflate = isal_zlib.decompressobj(-15)
        while left:
            block = fp.read(min(left, CHUNK))
            left -= len(block)
            digest.update(inflate.decompress(block))
        digest.update(inflate.flush())
"""


def timed(argv: list[str]) -> tuple[float, float, int]:
    """(wall s, CPU s of the child, exit status) of one process."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=REPO)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    return wall, usage.ru_utime + usage.ru_stime, proc.returncode


def peak_rss_mib(wheel: Path) -> float:
    proc = subprocess.Popen([sys.executable, "-m", "release", "verify", str(wheel), "--json"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=REPO)
    _, _, usage = os.wait4(proc.pid, 0)
    return usage.ru_maxrss / 1024


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--wheel", type=Path, help="a wheel to verify (default: generate one)")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-verify-") as tmp:
        wheel = args.wheel.resolve() if args.wheel else big_wheel(Path(tmp))
        with zipfile.ZipFile(wheel) as zf:
            unpacked = sum(i.file_size for i in zf.infolist())
        # Byte-compile the package as pip does on install, so neither side compiles source at
        # start-up (PYTHONDONTWRITEBYTECODE would otherwise make verify do it on every run).
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(REPO / "release")],
                       check=True)
        print(f"wheel {wheel.name}: {wheel.stat().st_size / 1e6:.1f} MB, "
              f"{unpacked / 1e6:.1f} MB unpacked; {os.cpu_count()} cores, "
              f"load average {os.getloadavg()[0]:.1f}")
        sides = {
            "anchor": [sys.executable, "-c", ANCHOR, str(wheel)],
            "verify": [sys.executable, "-m", "release", "verify", str(wheel), "--json"],
            "naive": [sys.executable, "-c", NAIVE_ANCHOR, str(wheel)],
        }
        runs: dict[str, list[tuple[float, float]]] = {k: [] for k in sides}
        codes = set()
        for argv in sides.values():  # one untimed run each: warm the page cache
            timed(argv)
        for _ in range(args.runs):
            for side, argv in sides.items():
                wall, cpu, code = timed(argv)
                runs[side].append((wall, cpu))
                if side == "verify":
                    codes.add(code)
        rss = peak_rss_mib(wheel)
        # Start-up alone (interpreter, imports, argument parsing): verify of a file that is not
        # a zip exits at once with status 2; the anchor's imports without the pass.
        not_a_wheel = Path(tmp) / "not-a-wheel.whl"
        not_a_wheel.write_bytes(b"not a zip")
        startup = {"anchor": [sys.executable, "-c", "import hashlib, struct, sys, zipfile\n"
                              "from isal import igzip_lib"],
                   "verify": [sys.executable, "-m", "release", "verify", str(not_a_wheel),
                              "--json"]}
        boot = {side: statistics.median(timed(argv)[1] for _ in range(args.runs))
                for side, argv in startup.items()}
        print(f"{'':28}{'CPU median':>11}{'CPU min':>9}{'wall median':>13}{'wall min':>10}")
        for side in sides:
            walls = [w for w, _ in runs[side]]
            cpus = [c for _, c in runs[side]]
            label = {"anchor": "anchor: isal inflate+sha256", "verify": "python -m release verify",
                     "naive": "naive anchor (reference)"}
            print(f"{label[side]:28}{statistics.median(cpus):10.2f}s{min(cpus):8.2f}s"
                  f"{statistics.median(walls):12.2f}s{min(walls):9.2f}s")
        cpu_ratio = (statistics.median(c for _, c in runs["verify"])
                     / statistics.median(c for _, c in runs["anchor"]))
        wall_ratio = (statistics.median(w for w, _ in runs["verify"])
                      / statistics.median(w for w, _ in runs["anchor"]))
        print(f"ratio verify / anchor: CPU {cpu_ratio:.2f}x, wall {wall_ratio:.2f}x "
              f"(goal <= 1.1x); verify exit {sorted(codes)}, peak RSS {rss:.0f} MiB")
        cpu = {side: statistics.median(c for _, c in runs[side]) for side in sides}
        print(f"start-up CPU (imports, no pass): anchor {boot['anchor']:.2f} s, verify "
              f"{boot['verify']:.2f} s; the pass alone: verify / anchor "
              f"{(cpu['verify'] - boot['verify']) / (cpu['anchor'] - boot['anchor']):.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
