"""Verify a 150 MB wheel vs a bare inflate + sha256 pass over the same members.

Goal: ``release verify`` within 1.5x of the bare pass. Two anchors, both run here:
``zipfile`` (what a plain Python script does: zlib inflate + sha256) and the same pass with
isal's inflate (what verify itself uses, so that ratio isolates the cost of the checks:
CRC, RECORD, the ELF tee to a temp file and the pyelftools reads). Best of five runs each, interleaved,
on a warm page cache. Peak memory of ``python -m release verify`` is printed too.

    python benchmarks/bench_verify.py
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

from _bigwheel import REPO, big_wheel

from release.bazel import configured_runpath
from release.verify import Options, data_offset, verify_wheel

RUNS = 5
# ``release verify WHEEL --json`` in a fresh process; prints its own peak RSS (KiB) to stderr.
_PEAK_RSS = """
import sys
from release.cli import main
code = main(["verify", sys.argv[1], "--json"])
# VmHWM, not ru_maxrss: ru_maxrss keeps the parent's RSS from before exec.
hwm = next(l for l in open("/proc/self/status") if l.startswith("VmHWM:"))
sys.stderr.write(hwm.split()[1] + "\\n")
sys.exit(code)
"""


def anchor_zipfile(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as zf:
        for info in zf.infolist():
            digest = hashlib.sha256()
            with zf.open(info) as handle:
                while block := handle.read(1 << 20):
                    digest.update(block)


def anchor_isal(wheel: Path) -> None:
    from isal import isal_zlib
    with zipfile.ZipFile(wheel) as zf, open(wheel, "rb") as fp:
        for info in zf.infolist():
            digest = hashlib.sha256()
            fp.seek(data_offset(fp, info))
            inflate = isal_zlib.decompressobj(-15)
            left = info.compress_size
            while left:
                block = fp.read(min(left, 1 << 20))
                left -= len(block)
                digest.update(inflate.decompress(block))
            digest.update(inflate.flush())


def timed(fn, *args) -> float:
    start = time.perf_counter()
    fn(*args)
    return time.perf_counter() - start


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="bench-verify-") as tmp:
        wheel = big_wheel(Path(tmp))
        with zipfile.ZipFile(wheel) as zf:
            unpacked = sum(i.file_size for i in zf.infolist())
        print(f"wheel {wheel.name}: {wheel.stat().st_size / 1e6:.1f} MB, "
              f"{unpacked / 1e6:.1f} MB unpacked")
        options = Options(runpath=tuple(configured_runpath(REPO)))
        report = verify_wheel(wheel, options)
        assert report.ok, report.findings
        runs = {"zip": [], "isal": [], "verify": []}
        for _ in range(RUNS):  # interleaved, so a busy machine slows all three alike
            runs["zip"].append(timed(anchor_zipfile, wheel))
            runs["isal"].append(timed(anchor_isal, wheel))
            runs["verify"].append(timed(verify_wheel, wheel, options))
        t_zip, t_isal, t_verify = (min(runs[k]) for k in ("zip", "isal", "verify"))
        proc = subprocess.run([sys.executable, "-c", _PEAK_RSS, str(wheel)], capture_output=True,
                              text=True, cwd=REPO)
        rss = int(proc.stderr.strip().splitlines()[-1]) / 1024
        print(f"anchor zipfile inflate + sha256   {t_zip:6.2f} s")
        print(f"anchor isal inflate + sha256      {t_isal:6.2f} s")
        print(f"release verify (all checks)       {t_verify:6.2f} s   exit {proc.returncode}, "
              f"peak RSS {rss:.0f} MB")
        print(f"ratio verify / zipfile anchor     {t_verify / t_zip:6.2f}x  (goal <= 1.5x)")
        print(f"ratio verify / isal anchor        {t_verify / t_isal:6.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
