"""``release index`` over seasons of nightlies: is a run linear in the releases, and how far is it
from a plain static index generator that is handed every fact?

For 365, 1,000 and 3,650 published nightlies (a year, about three, ten) in a local store, with
the lines' rcs, releases and posts and, from half way, a second ROCm major
(``benchmarks/_season_store.py``), each race run interleaved and repeated:

- ``release index`` from an empty SITE (what the nightly workflow does on a cache miss): list
  the store, take each wheel's Requires-Python and METADATA sha256 from its release's notes
  (recorded by publish: ``release.publish.wheel_record``), copy each wheel's PEP 740 provenance
  object publish stored beside its bundle (``release.publish.stored_provenance``), write both
  channels, each jax line's own channels (``X.Y/nightly/``, ``X.Y/stable/``: pages, and the
  provenance files hard-linked) and the page;
- the same over the same season published before the notes recorded those facts (older
  releases): each wheel's end is read with a range read instead, and each bundle read and
  converted;
- ``release index`` again over the same SITE (facts from its state: no wheel is read);
- the anchor, ``benchmarks/_plain_index.py``: a plain PEP 503 + PEP 691 generator given a list
  that already holds every file's channel, project, URL, sha256, Requires-Python, METADATA
  sha256, upload time and PEP 740 provenance object, and the public files the releases were
  validated with (issue 32). It reads no store and no wheel, so it is the cost of writing the
  same pages (and provenance files) alone. Both list the same files (checked on every size
  before timing).

Times are whole processes, CPU (user + sys of the children) first, then wall; the last lines
give CPU per release at each size, which stays flat when a run is linear. The goal (issue 36):
under 1 s at 365, within 2x of the anchor at every size.

    python benchmarks/bench_index.py [--sizes 365,1000,3650] [--runs 3]
"""

from __future__ import annotations

import argparse
import hashlib
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


def package_list(store: Path, out: Path) -> tuple[Path, int]:
    """The anchor's input: one JSON line per listed file with every fact it prints (not timed):
    the store's wheels (with the PEP 740 provenance object of each one's bundle) and the public
    files each release's notes record (once per channel)."""
    from packaging.utils import canonicalize_name
    from packaging.version import Version

    from release.core.naming import Identity
    from release.core.versions import kind_of
    from release.publish import index_provenance, notes, public_files
    from release.publish.index import requires_python, wheel_metadata
    from release.publish.stores import LocalStore

    local = LocalStore(store)
    rows = []
    public: dict[tuple[str, str], dict] = {}
    releases = local.list_releases()
    for rel in sorted(releases, key=lambda r: Version(r.tag.rsplit("-v", 1)[1]), reverse=True):
        assets = local.list_assets(rel)
        names = {a.name for a in assets}
        channel = "nightly" if kind_of(rel.tag.rsplit("-v", 1)[1]) == "nightly" else "stable"
        for asset in (a for a in assets if a.name.endswith(".whl")):
            path = store / str(rel.id) / "assets" / asset.name
            ident = Identity.of(asset.name)
            meta = wheel_metadata(path)
            prov = None
            if asset.name + ".jsonl" in names:
                prov = index_provenance.provenance((path.parent / (asset.name + ".jsonl")).read_text(),
                                                   asset.name, str(asset.digest))
            rows.append({
                "channel": channel, "project": canonicalize_name(str(ident.dist)), "version": str(ident.version),
                "filename": asset.name, "url": asset.url, "sha256": asset.digest, "size": asset.size,
                "requires_python": requires_python(meta), "metadata_sha256": hashlib.sha256(meta).hexdigest(),
                "upload_time": rel.published_at.strftime("%Y-%m-%dT%H:%M:%SZ") if rel.published_at else None,
                "provenance": prov})
        for f in public_files.from_text(notes.of(rel).validated_with or ""):
            public.setdefault((channel, f.filename), {
                "channel": channel, "project": f.project, "version": str(f.version), "filename": f.filename,
                "url": f.url, "sha256": f.sha256, "size": f.size, "requires_python": f.requires_python,
                "metadata_sha256": f.metadata_sha256, "upload_time": None, "provenance": None})
    rows += public.values()
    order = {v: i for i, v in enumerate(sorted({r["version"] for r in rows}, key=Version))}
    for row in rows:
        row["order"] = order[row["version"]]
    out.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return out, len(releases)


def listed(site: Path) -> set[str]:
    """Every file the site channels' per-project JSON pages list (``nightly/<project>/``,
    ``stable/<project>/``; not the per-line channels ``X.Y/<channel>/``, which list the same
    files again and which the anchor does not write)."""
    return {f["filename"] for channel in ("nightly", "stable") for page in site.glob(f"{channel}/*/index.json")
            for f in json.loads(page.read_text())["files"]}


def timed(argv: list[str], **kw) -> tuple[float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(argv, check=True, capture_output=True, **kw)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), wall


def release_index(store: Path, site: Path, keep: int, checkout: Path = REPO) -> tuple[float, float]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
    env["PYTHONPATH"] = str(checkout)
    return timed([sys.executable, "-m", "release", "index", "--out", str(site), "--store", "local",
                  "--store-dir", str(store), "--keep", str(keep)], cwd=checkout, env=env)


def plain(packages: Path, out: Path) -> tuple[float, float]:
    return timed([sys.executable, str(REPO / "benchmarks" / "_plain_index.py"), str(packages), str(out)])


def median(rows: list[float]) -> float:
    return sorted(rows)[len(rows) // 2]


def main() -> None:
    from benchmarks._season_store import make_store

    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="365,1000,3650")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--tmp", type=Path, help="where the stores and sites are written (default: the system's temp)")
    parser.add_argument("--baseline", type=Path, metavar="CHECKOUT",
                        help="also time `release index` (from empty) of another checkout (an older commit)")
    args = parser.parse_args()
    sizes = [int(x) for x in args.sizes.split(",")]
    for checkout in (REPO, *([args.baseline] if args.baseline else [])):  # as installed: bytecode compiled
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(Path(checkout) / "release")], check=True)
    with tempfile.TemporaryDirectory(dir=args.tmp.resolve() if args.tmp else None) as tmp:
        root = Path(tmp)
        rows = []
        for n in sizes:
            store = make_store(root, n)
            older = make_store(root, n, facts=False)
            packages, releases = package_list(store, root / f"packages-{n}.jsonl")
            wheels = len(packages.read_text().splitlines())
            release_index(store, root / "check-site", n)
            plain(packages, root / "check-plain")
            if listed(root / "check-site") != listed(root / "check-plain") or not listed(root / "check-plain"):
                sys.exit(f"{n} nightlies: the index and the anchor list different files")
            shutil.rmtree(root / "check-site")
            shutil.rmtree(root / "check-plain")
            first, again, anchor, base, old = [], [], [], [], []
            for run in range(args.runs):
                site = root / f"site-{n}-{run}"
                if args.baseline:
                    base.append(release_index(store, root / "base-site", n, args.baseline))
                    shutil.rmtree(root / "base-site")
                old.append(release_index(older, root / "old-site", n))
                shutil.rmtree(root / "old-site")
                first.append(release_index(store, site, n))
                anchor.append(plain(packages, root / f"plain-{n}-{run}"))
                again.append(release_index(store, site, n))
                shutil.rmtree(site)
                shutil.rmtree(root / f"plain-{n}-{run}")
            rows.append((n, releases, wheels, first, again, anchor, old))
            print(f"{n} nightlies: index from empty {median([c for c, _ in first]):.2f} cpu (older records "
                  f"{median([c for c, _ in old]):.2f}), re-run "
                  f"{median([c for c, _ in again]):.2f} cpu, plain generator {median([c for c, _ in anchor]):.2f} cpu; "
                  f"load {os.getloadavg()[0]:.1f}", flush=True)
            if base:
                print(f"{n} nightlies: baseline {args.baseline} from empty: {median([c for c, _ in base]):.2f} cpu "
                      f"{median([w for _, w in base]):.2f} wall", flush=True)
            shutil.rmtree(store)
            shutil.rmtree(older)
        print(f"median of {args.runs} interleaved runs; CPU first, then wall (seconds); load {os.getloadavg()[0]:.1f}")
        print(f"{'nightlies':>9} {'releases':>8} {'wheels':>6} | {'index from empty':>18} | {'older records':>16} | "
              f"{'index re-run':>16} | {'plain generator':>16} | index/anchor CPU (empty, older, re-run)")
        for n, releases, wheels, first, again, anchor, old in rows:
            c1, w1 = median([c for c, _ in first]), median([w for _, w in first])
            c2, w2 = median([c for c, _ in again]), median([w for _, w in again])
            ca, wa = median([c for c, _ in anchor]), median([w for _, w in anchor])
            co, wo = median([c for c, _ in old]), median([w for _, w in old])
            print(f"{n:>9} {releases:>8} {wheels:>6} | {c1:7.2f} cpu {w1:6.2f} | {co:6.2f} cpu {wo:5.2f} | "
                  f"{c2:6.2f} cpu {w2:5.2f} | {ca:6.2f} cpu {wa:5.2f} | {c1 / ca:.2f}x, {co / ca:.2f}x, {c2 / ca:.2f}x")
        print("CPU per release (ms), index from empty / re-run / plain generator:")
        for n, releases, _wheels, first, again, anchor, _old in rows:
            print(f"{n:>9} nightlies: {1000 * median([c for c, _ in first]) / releases:6.2f} / "
                  f"{1000 * median([c for c, _ in again]) / releases:6.2f} / "
                  f"{1000 * median([c for c, _ in anchor]) / releases:6.2f}")


if __name__ == "__main__":
    from _results import record_run
    raise SystemExit(record_run(main))
