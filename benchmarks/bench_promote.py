"""Promote a 150 MB wheel vs ``wheel unpack`` + edit + ``wheel pack`` (how re-spins are done by
hand today). Goal: ``release promote`` at least 20x faster.

Both produce the rc1 wheel of a nightly: dist-info renamed, METADATA Version, version.py
``_release_version`` and commit_info.py ``version`` edited, RECORD rewritten. Both outputs
are checked with ``release verify`` (RECORD, names, version) so the race is fair. The promote
time is the whole ``python -m release promote`` process, as the anchor's are.

    python benchmarks/bench_promote.py
"""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _bigwheel import REPO, VERSION, big_wheel

from release.check.verify import verify_wheel

TARGET = "0.9.1rc1"
RUNS = 3


def timed_run(argv, **kw) -> float:
    start = time.perf_counter()
    subprocess.run(argv, check=True, capture_output=True, **kw)
    return time.perf_counter() - start


def anchor(wheel: Path, work: Path) -> tuple[float, Path]:
    """wheel unpack + edit + wheel pack; returns (seconds, output wheel)."""
    unpacked, out = work / "unpacked", work / "out"
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "wheel", "unpack", "-d", str(unpacked), str(wheel)],
                   check=True, capture_output=True)
    tree = next(unpacked.iterdir())
    dist_info = next(tree.glob("*.dist-info"))
    new_dist_info = dist_info.with_name(dist_info.name.replace(VERSION, TARGET))
    dist_info.rename(new_dist_info)
    meta = new_dist_info / "METADATA"
    meta.write_text(meta.read_text().replace(f"Version: {VERSION}", f"Version: {TARGET}"))
    for name, var in (("version.py", "_release_version"), ("commit_info.py", "version")):
        path = next(tree.rglob(name))
        path.write_text(re.sub(rf"^{var}\b.*$", f"{var} = {TARGET!r}", path.read_text(), flags=re.M))
    out.mkdir()
    subprocess.run([sys.executable, "-m", "wheel", "pack", "-d", str(out), str(tree)],
                   check=True, capture_output=True)
    elapsed = time.perf_counter() - start
    return elapsed, next(out.glob("*.whl"))


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="bench-promote-") as tmp:
        tmp = Path(tmp)
        wheel = big_wheel(tmp / "src")
        print(f"wheel {wheel.name}: {wheel.stat().st_size / 1e6:.1f} MB")
        t_anchor, anchor_out = anchor(wheel, tmp / "anchor")
        promote_times = [timed_run([sys.executable, "-m", "release", "promote", str(wheel), "--to",
                                    "rc1", "--out", str(tmp / f"promoted{i}")], cwd=REPO)
                         for i in range(RUNS)]
        t_promote = min(promote_times)
        promoted = next((tmp / "promoted0").glob("*.whl"))
        for out in (anchor_out, promoted):
            report = verify_wheel(out)
            bad = [f for f in report.findings if f.check in ("record", "names", "version", "zip")]
            assert not bad, (out.name, bad)
        print(f"anchor wheel unpack + edit + pack   {t_anchor:6.2f} s  ({anchor_out.stat().st_size / 1e6:.1f} MB)")
        print(f"release promote --to rc1 (process)  {t_promote:6.2f} s  ({promoted.stat().st_size / 1e6:.1f} MB)")
        print(f"speed-up                            {t_anchor / t_promote:6.1f}x  (goal >= 20x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
