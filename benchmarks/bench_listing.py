"""Listing a local store again and again in one process (a season published through it, every
publish lists it several times): how far is ``LocalStore.list_releases`` from the floor of a
listing that is never stale?

Every listing must look at the store as it is now (another process may have written), so the
anchor is the least any such listing does: one ``os.scandir`` of the store and one ``os.stat`` of
each ``release.json``, returning the ids newest first and building nothing. The tool's listing
does that and reuses each release whose record is unchanged. The store is ``--sizes`` releases
made with the store's own ``create_draft`` in a temp dir; each listing after the first is timed
(CPU of this process), the two interleaved, ``--runs`` times, medians compared.

    python benchmarks/bench_listing.py [--sizes 365,1000] [--runs 5] [--repeat 20]

Goal: a later listing within 3x of the floor at every size, and CPU per release flat (linear).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import _results  # noqa: E402
from release.publish.local_store import LocalStore  # noqa: E402
from release.publish.notes import MARKER  # noqa: E402


def floor(directory: Path) -> list[int]:
    """The least a never-stale listing does: scan, stat each record, order by id."""
    ids = []
    with os.scandir(directory) as entries:
        for entry in entries:
            if entry.name.isdigit() and entry.is_dir():
                try:
                    os.stat(os.path.join(entry.path, "release.json"))
                except FileNotFoundError:
                    continue
                ids.append(int(entry.name))
    return sorted(ids, reverse=True)


def per_listing(listing, repeat: int) -> float:
    start = time.process_time()
    for _ in range(repeat):
        listing()
    return (time.process_time() - start) / repeat


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="365,1000")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args(argv)
    met = True
    per_release = []
    with tempfile.TemporaryDirectory() as tmp:
        for size in (int(s) for s in args.sizes.split(",")):
            directory = Path(tmp) / f"store-{size}"
            writer = LocalStore(directory)
            for i in range(size):
                writer.create_draft(f"v0.{i}", name="n", body=MARKER, prerelease=True)
            store = LocalStore(directory)
            assert [r.id for r in store.list_releases()] == floor(directory)  # the same answer
            tool, anchor = [], []
            for _ in range(args.runs):
                tool.append(per_listing(store.list_releases, args.repeat))
                anchor.append(per_listing(lambda d=directory: floor(d), args.repeat))
            t, a = statistics.median(tool), statistics.median(anchor)
            per_release.append(t / size)
            print(f"{size:6d} releases: list_releases {t * 1000:7.2f} ms CPU, floor {a * 1000:7.2f} ms CPU, "
                  f"{t / a:4.2f}x, {t / size * 1e6:5.1f} us per release")
            met &= t <= 3 * a
    flat = max(per_release) <= 2 * min(per_release)
    print(f"a later listing within 3x of the floor: {'met' if met else 'NOT met'}")
    print(f"CPU per release flat (largest within 2x of smallest): {'met' if flat else 'NOT met'}")
    return 0 if met and flat else 1


if __name__ == "__main__":
    sys.exit(_results.record_run(main))
