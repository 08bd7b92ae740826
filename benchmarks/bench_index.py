"""``release index`` over a local store of big wheels, against copying and hashing them by hand.

The store holds RELEASES published releases, each with a 150 MB PJRT wheel (random bytes, stored,
so nothing compresses) and a small plugin wheel. Two races, each run interleaved and repeated:

- first run: ``release index --out SITE`` from nothing, vs the anchor ``cp`` + ``sha256sum`` of
  every wheel of the store into a directory (the least any correct static index must do: have
  the bytes and their digests);
- re-run with no change: ``release index`` again, vs ``sha256sum`` of the site's wheels (what
  a tool must do that checks the site against the store's digests by reading it, as this
  command's previous version did on every run).

Times are whole processes (``python -m release``), CPU from the children's rusage.

    python benchmarks/bench_index.py
"""

from __future__ import annotations

import hashlib
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

RELEASES = 4
BIG = 150 << 20
RUNS = 3


def make_store(root: Path) -> Path:
    from release.build import provenance
    from release.core.revisions import RevisionMap
    from release.publish.stores import LocalStore
    from tests.support.publish_dist import build_dist, release_dist

    store = LocalStore(root / "store")
    block = os.urandom(1 << 20)
    for i in range(RELEASES):
        dist = build_dist(root / "dists", f"0.9.1.dev202611{20 + i}")
        pjrt = next(dist.glob("jax_rocm7_pjrt-*.whl"))
        with zipfile.ZipFile(pjrt, "a", zipfile.ZIP_STORED) as zf:
            with zf.open("jax_plugins/xla_rocm7/payload.bin", "w") as out:
                for _ in range(BIG >> 20):
                    out.write(block)
        wheels = sorted(dist.glob("*.whl"))
        provenance.write_dist(dist, {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in wheels},
                              RevisionMap.loads((dist / "revisions.json").read_text()),
                              invocation=provenance.Invocation.from_env({}, host="bench"))
        files = sorted(p for p in dist.iterdir() if p.name != "SHA256SUMS")
        (dist / "SHA256SUMS").write_text("".join(
            f"{hashlib.sha256(p.read_bytes()).hexdigest()}  {p.name}\n" for p in files))
        release_dist(store, dist)
        shutil.rmtree(dist)
    return store.directory


def timed(argv: list[str], **kw) -> tuple[float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(argv, check=True, capture_output=True, **kw)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), wall


def release_index(store: Path, site: Path) -> tuple[float, float]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
    return timed([sys.executable, "-m", "release", "index", "--out", str(site), "--store", "local",
                  "--store-dir", str(store)], cwd=REPO, env=env)


def anchor_copy_and_hash(store: Path, out: Path) -> tuple[float, float]:
    wheels = sorted(store.glob("*/assets/*.whl"))
    return timed(["sh", "-c", 'mkdir -p "$0" && cp "$@" "$0" && sha256sum "$0"/*.whl', str(out),
                  *map(str, wheels)])


def anchor_hash(site: Path) -> tuple[float, float]:
    return timed(["sh", "-c", 'sha256sum "$@"', "sh", *map(str, sorted(site.rglob("*.whl")))])


def median(rows):
    return sorted(rows)[len(rows) // 2]


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        store = make_store(root)
        first = {"index": [], "cp+sha256sum": []}
        again = {"index": [], "sha256sum": []}
        for run in range(RUNS):
            site, plain = root / f"site{run}", root / f"plain{run}"
            first["index"].append(release_index(store, site))
            first["cp+sha256sum"].append(anchor_copy_and_hash(store, plain))
            again["index"].append(release_index(store, site))
            again["sha256sum"].append(anchor_hash(site))
            shutil.rmtree(plain)
        size = sum(p.stat().st_size for p in store.glob("*/assets/*.whl")) / 1e6
        print(f"store: {RELEASES} releases, {size:.0f} MB of wheels; median of {RUNS} interleaved runs")
        for title, race in (("first run", first), ("re-run, nothing changed", again)):
            (a, ours), (b, theirs) = race.items()
            cpu, wall = median([c for c, _ in ours]), median([w for _, w in ours])
            acpu, awall = median([c for c, _ in theirs]), median([w for _, w in theirs])
            print(f"{title}: release index cpu {cpu:.2f}s wall {wall:.2f}s | {b} cpu {acpu:.2f}s "
                  f"wall {awall:.2f}s | ratio {b}/index cpu {acpu / cpu:.2f} wall {awall / wall:.2f}")


if __name__ == "__main__":
    main()
