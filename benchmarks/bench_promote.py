"""Promote a 150 MB wheel: ``release promote`` vs ``wheel unpack`` + edit + ``wheel pack`` (how
re-spins are done by hand today). Goal: at least 20x less CPU at equal output size.

Both sides produce the rc1 wheel of a nightly: dist-info renamed, METADATA Version, version.py
``_release_version`` (and commit_info.py ``version`` when the wheel has one) edited, RECORD
rewritten; both outputs pass ``release verify``'s record, names, version and zip checks, and hold
the same ``.so`` bytes (CRC and size). ``wheel pack`` re-deflates everything, so it runs at the zlib
level whose output is closest in size to the input's (a ``sitecustomize`` sets zipfile's default
level); its default level 6 is measured too, as the cost people pay today.

Each side is one child process tree (the anchor's children are the two ``wheel`` commands),
measured with ``wait4``: CPU (user + sys, children included), wall and peak RSS. The sides run
interleaved ``--runs`` times and medians are compared; quote the CPU ratio (wall moves with load).

    python benchmarks/bench_promote.py [--runs 3] [--wheel jax_rocm7_pjrt-....whl]

``--wheel`` promotes a given wheel (e.g. the published jax-rocm7-pjrt 0.10.2) instead of a
generated one of the same size.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import zipfile
import zlib
from pathlib import Path

from _bigwheel import REPO, big_wheel, measure, same_level_hook

from release.check.verify import verify_wheel
from release.core.naming import Identity

ANCHOR = r"""
import re, subprocess, sys
from pathlib import Path
wheel, work, old, new = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3], sys.argv[4]
unpacked, out = work / "unpacked", work / "out"
subprocess.run([sys.executable, "-m", "wheel", "unpack", "-d", str(unpacked), str(wheel)], check=True)
tree = next(unpacked.iterdir())
dist_info = next(tree.glob("*.dist-info"))
new_dist_info = dist_info.with_name(dist_info.name.replace(old, new))
dist_info.rename(new_dist_info)
meta = new_dist_info / "METADATA"
meta.write_text(meta.read_text().replace(f"Version: {old}", f"Version: {new}"))
for name, var in (("version.py", "_release_version"), ("commit_info.py", "version")):
    for path in tree.rglob(name):
        path.write_text(re.sub(rf"^{var}\b.*$", f"{var} = {new!r}", path.read_text(), flags=re.M))
out.mkdir()
subprocess.run([sys.executable, "-m", "wheel", "pack", "-d", str(out), str(tree)], check=True)
"""


def closest_level(wheel: Path, samples: int = 16, piece: int = 2 << 20) -> int:
    """The zlib level whose output is closest to the size the biggest member has in the input
    wheel (what promote keeps, byte for byte), measured on evenly spread samples of it (a
    sample's mix of code, data and GPU blobs differs from the whole file's; spread samples
    approach the whole)."""
    with zipfile.ZipFile(wheel) as zf:
        big = max(zf.infolist(), key=lambda i: i.file_size)
        every = max(1, big.file_size // (samples * piece))
        chunks = []
        with zf.open(big) as fh:
            for i in range(big.file_size // piece + 1):
                block = fh.read(piece)
                if i % every == 0 and block:
                    chunks.append(block)
    ratio = big.compress_size / big.file_size
    total = sum(len(c) for c in chunks)
    sizes = {level: sum(len(zlib.compress(c, level)) for c in chunks) / total for level in range(1, 10)}
    return min(sizes, key=lambda level: abs(sizes[level] - ratio))


def so_crc(wheel: Path) -> tuple[int, int]:
    with zipfile.ZipFile(wheel) as zf:
        big = max(zf.infolist(), key=lambda i: i.file_size)
        return big.CRC, big.file_size


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="interleaved runs of each side")
    parser.add_argument("--wheel", type=Path, help="promote this wheel instead of a generated one")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-promote-") as tmp:
        base = Path(tmp)
        wheel = args.wheel.resolve() if args.wheel else big_wheel(base / "src")
        version = str(Identity.of(wheel).version)
        base_version = version.split(".dev")[0].split(".post")[0]
        # a nightly moves forward to an rc, a release (the published wheels) to a post release
        to, target = ("rc1", base_version + "rc1") if ".dev" in version else ("post1", base_version + ".post1")
        level = closest_level(wheel)
        print(f"wheel {wheel.name}: {wheel.stat().st_size / 1e6:.1f} MB; wheel pack at zlib {level} "
              "matches its size")
        env = {**os.environ, "SOURCE_DATE_EPOCH": "1767225600", "PYTHONPATH": str(REPO)}
        outs = {name: base / name for name in ("promote", "same", "default")}

        def promote():
            shutil.rmtree(outs["promote"], ignore_errors=True)
            return measure([sys.executable, "-m", "release", "promote", str(wheel), "--to", to,
                            "--out", str(outs["promote"])], REPO, env)

        def anchor(name, side_env):
            def run():
                shutil.rmtree(outs[name], ignore_errors=True)
                outs[name].mkdir()
                return measure([sys.executable, "-c", ANCHOR, str(wheel), str(outs[name]),
                                version, target], base, side_env)
            return run

        sides = {"promote": promote, "same": anchor("same", same_level_hook(base, env, level)),
                 "default": anchor("default", env)}
        runs: dict[str, list[tuple[float, int, float]]] = {name: [] for name in sides}
        for _ in range(args.runs):  # interleaved: a busy spell slows every side alike
            for name, side in sides.items():
                runs[name].append(side())
        wheels = {name: next(outs[name].rglob("*.whl")) for name in sides}
        for name, out in wheels.items():
            report = verify_wheel(out)
            bad = [f for f in report.findings if f.check in ("record", "names", "version", "zip")]
            assert not bad, (name, bad)
            assert so_crc(out) == so_crc(wheel), name
        med = {name: (statistics.median(r[0] for r in rs), max(r[1] for r in rs),
                      statistics.median(r[2] for r in rs)) for name, rs in runs.items()}
        labels = {"promote": f"release promote --to {to}", "same": f"wheel unpack+pack, zlib {level}",
                  "default": "wheel unpack+pack, zlib 6"}
        print(f"{args.runs} interleaved runs each, medians; {os.cpu_count()} cores, "
              f"load average {os.getloadavg()[0]:.1f}")
        print(f"{'':34}{'CPU':>8}{'wall':>8}{'size MB':>9}{'peak RSS':>10}")
        for name in sides:
            wall, rss, cpu = med[name]
            print(f"{labels[name]:34}{cpu:7.2f}s{wall:7.2f}s{wheels[name].stat().st_size / 1e6:9.1f}"
                  f"{rss / 2**20:7.0f} MiB")
        p_wall, _, p_cpu = med["promote"]
        for name in ("same", "default"):
            wall, _, cpu = med[name]
            print(f"{labels[name]} / promote: CPU {cpu / p_cpu:6.1f}x   wall {wall / p_wall:6.1f}x   "
                  f"size promote/anchor {wheels['promote'].stat().st_size / wheels[name].stat().st_size:.3f}")
        # the level picked on samples is an estimate: the row whose output is nearest the input's
        # size is the equal-size comparison (on a wheel setuptools wrote, that is zlib 6 itself)
        size = {name: wheels[name].stat().st_size for name in sides}
        fair = min(("same", "default"), key=lambda n: abs(size["promote"] / size[n] - 1))
        ratio = med[fair][2] / p_cpu
        ok = ratio >= 20
        print(f"at equal size ({labels[fair]}, size ratio {size['promote'] / size[fair]:.3f}): "
              f"{ratio:.1f}x less CPU; goal (>= 20x) {'met' if ok else 'NOT met'}")
        return 0 if ok else 1


if __name__ == "__main__":
    from _results import record_run
    sys.exit(record_run(main))
