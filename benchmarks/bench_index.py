"""``release index`` over a season of nightlies: is a run linear in the wheels, and how far is it
from a static index generator that is handed every fact?

For 10, 100 and 365 published nightlies (five wheels each: the PJRT wheel and plugins for four
Pythons) in a local store, each race run interleaved and repeated:

- ``release index`` from an empty SITE (what the nightly workflow does): list the store, read
  each wheel's Requires-Python with a range read, write both channels and the page;
- ``release index`` again over the same SITE (facts from its state: no wheel is read);
- the anchor, ``dumb-pypi`` (a static PEP 503 index generator, not this project's code) given a
  package list that already holds every file's name, sha256, Requires-Python and upload time:
  it reads no store and no wheel, so it is the cost of writing the pages alone.

Times are whole processes, CPU (user + sys of the children) first, then wall; the last lines
give CPU per wheel at each size, which stays flat when a run is linear.

    pip install dumb-pypi && python benchmarks/bench_index.py [--sizes 10,100,365] [--runs 3]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

PYTHONS = ("3.11", "3.12", "3.13", "3.14")


def make_store(root: Path, nightlies: int) -> Path:
    import datetime as _dt

    from release.publish.stores import LocalStore
    from tests.support.publish_dist import build_dist, release_dist

    start = _dt.datetime(2025, 11, 1, 4, tzinfo=_dt.timezone.utc)
    ticks = iter(range(1 << 30))
    store = LocalStore(root / f"store-{nightlies}",
                       clock=lambda: start + _dt.timedelta(minutes=10 * next(ticks)))
    for i in range(nightlies):
        version = f"0.9.1.dev{(start.date() + _dt.timedelta(days=i)):%Y%m%d}"
        dist = build_dist(root / "dists", version, pythons=PYTHONS)
        release_dist(store, dist)
        shutil.rmtree(dist)
    return store.directory


def package_list(store: Path, out: Path) -> Path:
    """The anchor's input: one JSON line per wheel with every fact it prints (not timed)."""
    from release.publish.index import requires_python, wheel_metadata
    from release.publish.stores import LocalStore

    local = LocalStore(store)
    lines = []
    for rel in local.list_releases():
        for asset in (a for a in local.list_assets(rel) if a.name.endswith(".whl")):
            path = store / str(rel.id) / "assets" / asset.name
            lines.append(json.dumps({
                "filename": asset.name, "hash": f"sha256={asset.digest}",
                "requires_python": requires_python(wheel_metadata(path)),
                "upload_timestamp": int(rel.published_at.timestamp()) if rel.published_at else None,
                "uploaded_by": "bench"}))
    out.write_text("\n".join(lines) + "\n")
    return out


def timed(argv: list[str], **kw) -> tuple[float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(argv, check=True, capture_output=True, **kw)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), wall


def release_index(store: Path, site: Path, keep: int) -> tuple[float, float]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
    return timed([sys.executable, "-m", "release", "index", "--out", str(site), "--store", "local",
                  "--store-dir", str(store), "--keep", str(keep)], cwd=REPO, env=env)


def dumb_pypi(packages: Path, out: Path) -> tuple[float, float]:
    exe = shutil.which("dumb-pypi") or str(Path(sys.executable).with_name("dumb-pypi"))
    return timed([exe, "--package-list-json", str(packages), "--output-dir", str(out),
                  "--packages-url", "https://example.invalid/assets/", "--no-generate-timestamp",
                  "--no-per-release-json"])


def median(rows: list[float]) -> float:
    return sorted(rows)[len(rows) // 2]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="10,100,365")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    sizes = [int(x) for x in args.sizes.split(",")]
    if not (shutil.which("dumb-pypi") or Path(sys.executable).with_name("dumb-pypi").exists()):
        sys.exit("the anchor is dumb-pypi: pip install dumb-pypi")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        rows = []
        for n in sizes:
            store = make_store(root, n)
            packages = package_list(store, root / f"packages-{n}.json")
            wheels = len(packages.read_text().splitlines())
            first, again, anchor = [], [], []
            for run in range(args.runs):
                site = root / f"site-{n}-{run}"
                first.append(release_index(store, site, n))
                anchor.append(dumb_pypi(packages, root / f"dumb-{n}-{run}"))
                again.append(release_index(store, site, n))
                shutil.rmtree(site)
                shutil.rmtree(root / f"dumb-{n}-{run}")
            rows.append((n, wheels, first, again, anchor))
            shutil.rmtree(store)
        print(f"median of {args.runs} interleaved runs; CPU first, then wall (seconds)")
        print(f"{'nightlies':>9} {'wheels':>6} | {'index from empty':>18} | {'index re-run':>14} | "
              f"{'dumb-pypi':>14} | anchor/index CPU (empty, re-run)")
        for n, wheels, first, again, anchor in rows:
            c1, w1 = median([c for c, _ in first]), median([w for _, w in first])
            c2, w2 = median([c for c, _ in again]), median([w for _, w in again])
            ca, wa = median([c for c, _ in anchor]), median([w for _, w in anchor])
            print(f"{n:>9} {wheels:>6} | {c1:7.2f} cpu {w1:6.2f} | {c2:5.2f} cpu {w2:5.2f} | "
                  f"{ca:5.2f} cpu {wa:5.2f} | {ca / c1:.2f}, {ca / c2:.2f}")
        print("CPU per wheel (ms), index from empty / re-run / dumb-pypi:")
        for n, wheels, first, again, anchor in rows:
            print(f"{n:>9} nightlies: {1000 * median([c for c, _ in first]) / wheels:6.2f} / "
                  f"{1000 * median([c for c, _ in again]) / wheels:6.2f} / "
                  f"{1000 * median([c for c, _ in anchor]) / wheels:6.2f}")


if __name__ == "__main__":
    main()
