"""Whole-process ``release verify`` vs a bare isal inflate + sha256 + CRC-32 pass over the same wheel.

Both sides are fresh processes, imports included, as a user or CI runs them:

- anchor: ``python -c <inflate every member with isal, sha256 it, check its CRC-32>``, the
  least work any verifier must do that checks what pip checks on install (each member inflated
  once, hashed once, its zip CRC compared), written as fast as we know how: isal's
  ``IgzipDecompressor`` inflating at most 1 MiB at a time from one reused read buffer, isal's
  crc32. Two more are timed for reference, not as the goal: the same pass without the CRC (what
  this benchmark used to compare with; verify computes the CRC, so that anchor did less work),
  and the naive form (``fp.read`` of fresh blocks, ``decompressobj().decompress`` of whole
  blocks), which takes a page fault for every 4 KiB it inflates;
- ``python -m release verify WHEEL --json``: the same pass plus the ELF reads, RECORD and the
  named checks, and the CLI's own imports.

Runs are interleaved (anchor, verify, anchor, verify, ...) and repeated, on a warm page cache.
CPU time (user + sys of the child) is printed next to wall time: on a shared machine wall time
depends on how many cores are idle, CPU time much less. Goal: verify within 1.1x of the anchor.

    python benchmarks/bench_verify.py [--wheel PATH] [--runs N]

Without ``--wheel`` it verifies the published jax-rocm7-pjrt 0.10.2 wheel, downloaded once with
pip into ``.cache/bench/`` (2 minutes at most), and when the package registry cannot be reached a
generated PJRT wheel the size of the real one (``_bigwheel.py``); it says which.
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
        digest, left, crc = hashlib.sha256(), info.compress_size, 0
        if info.compress_type == zipfile.ZIP_STORED:
            while left:
                block = fp.read(min(left, CHUNK))
                left -= len(block)
                digest.update(block)
                crc = isal_zlib.crc32(block, crc)
            assert crc == info.CRC, info.filename
            continue
"""

_FAST_INFLATE = """\
        inflate = igzip_lib.IgzipDecompressor()
        while not inflate.eof:
            data = b""
            if inflate.needs_input:
                got = fp.readinto(buffer[:min(left, CHUNK)])
                left -= got
                data = buffer[:got]
            out = inflate.decompress(data, CHUNK)
            digest.update(out)
"""

ANCHOR = _EACH_MEMBER + _FAST_INFLATE.replace("            digest.update(out)\n", """\
            digest.update(out)
            crc = isal_zlib.crc32(out, crc)
""") + """\
        assert crc == info.CRC, info.filename
"""

NO_CRC_ANCHOR = _EACH_MEMBER + _FAST_INFLATE

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


REAL = "jax-rocm7-pjrt==0.10.2"


def default_wheel(tmp: Path) -> Path:
    """The published pjrt wheel (downloaded once into .cache/bench/), else a generated one."""
    cache = REPO / ".cache" / "bench"
    found = sorted(cache.glob("jax_rocm7_pjrt-0.10.2-*.whl"))
    if not found:
        try:
            subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
                            "--only-binary=:all:", "--dest", str(cache), REAL],
                           check=True, timeout=120, capture_output=True)
            found = sorted(cache.glob("jax_rocm7_pjrt-0.10.2-*.whl"))
        except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as exc:
            print(f"the package registry did not give {REAL} ({type(exc).__name__}): "
                  "verifying a generated wheel of the same size instead")
    return found[0] if found else big_wheel(tmp)


def peak_rss_mib(wheel: Path) -> float:
    proc = subprocess.Popen([sys.executable, "-m", "release", "verify", str(wheel), "--json"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=REPO)
    _, _, usage = os.wait4(proc.pid, 0)
    return usage.ru_maxrss / 1024


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--wheel", type=Path,
                        help=f"a wheel to verify (default: the published {REAL}, else a generated one)")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-verify-") as tmp:
        wheel = args.wheel.resolve() if args.wheel else default_wheel(Path(tmp))
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
            "no-crc": [sys.executable, "-c", NO_CRC_ANCHOR, str(wheel)],
            "naive": [sys.executable, "-c", NAIVE_ANCHOR, str(wheel)],
        }
        runs: dict[str, list[tuple[float, float]]] = {k: [] for k in sides}
        codes = set()
        for side, argv in sides.items():  # one untimed run each: warm the page cache, and check
            if timed(argv)[2] != 0 and side != "verify":  # the anchors' CRCs agree with the zip
                sys.exit(f"{side} failed on {wheel}")
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
            label = {"anchor": "anchor: inflate+sha256+CRC", "verify": "python -m release verify",
                     "no-crc": "the same without CRC (ref.)", "naive": "naive anchor (reference)"}
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
    from _results import record_run
    sys.exit(record_run(main))
