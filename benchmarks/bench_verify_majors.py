"""verify of a line's draft as its ROCm majors grow: a two-major, four-Python line (jax-rocm7-*
and jax-rocm10-*: 2 pjrt + 8 plugin wheels, 8 (major, Python) cells) against the one-major line
(1 pjrt + 4 plugin wheels, 4 cells), the same wheels a nightly packs (real ELF objects, the
pjrt one carrying a data blob, linked with the configured RUNPATH and against a HIP stand-in of
each major), verified in one call as the verify step does (each wheel in its own major's ROCm
runtime; ROCm 10's list is a stand-in, as the shipped data has none yet).

Both sides run in this process, interleaved (one, two, one, two, ...), on a warm page cache;
CPU time (this process's user + sys) next to wall. Goal (issue 31): cost linear in cells, the
two-major line within 1.8x-2.2x of the one-major line.

    python benchmarks/bench_verify_majors.py [--pjrt-mib N] [--runs N]
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _bigwheel import REPO, _block, big_so, link_so

VERSION = "0.11.1"
PYTHONS = ("3.11", "3.12", "3.13", "3.14")
RUNTIMES = {7: "7.2.0", 10: "10.0.0"}
KERNELS = ("_linalg.so", "_prng.so", "_solver.so", "_sparse.so", "_hybrid.so", "_rnn.so", "_triton.so")


def _so(out: Path, runpath: list[str], links: tuple[Path, ...] = (), soname: str | None = None) -> Path:
    out.parent.mkdir(parents=True, exist_ok=True)
    src = out.with_suffix(".c")
    src.write_text(f'const char *artifact_name(void) {{ return "{out.name}"; }}\n')
    argv = ["cc", "-shared", "-fPIC", "-O1", "-o", str(out), str(src), "-Wl,--enable-new-dtags"]
    if runpath:
        argv.append("-Wl,-rpath," + ":".join(runpath))
    if soname:
        argv.append(f"-Wl,-soname,{soname}")
    if links:
        argv += ["-Wl,--no-as-needed", *(a for lib in links for a in (f"-L{lib.parent}", f"-l:{lib.name}"))]
    subprocess.run(argv, check=True, capture_output=True)
    src.unlink()
    return out


def runtime_root(work: Path) -> Path:
    """The shipped runtime data plus a ROCm 10 stand-in (HIP .so.10 in the same places)."""
    data = json.loads((REPO / "jax_rocm_plugin" / "rocm_runtime.json").read_text())
    seven = data["releases"]["7.2.0"]["locations"]
    data["releases"]["10.0.0"] = {"sources": ["benchmark stand-in"], "locations": {
        d: ([n.replace("libamdhip64.so.7", "libamdhip64.so.10") for n in v] if isinstance(v, list) else v)
        for d, v in seven.items()}}
    root = work / "runtime"
    (root / "jax_rocm_plugin").mkdir(parents=True)
    (root / "jax_rocm_plugin" / "rocm_runtime.json").write_text(json.dumps(data))
    return root


def line_wheels(work: Path, majors: tuple[int, ...], pjrt_mib: int) -> list[Path]:
    """Every wheel of a line's draft: per major one pjrt wheel and a plugin wheel per Python."""
    from release.build.bazel import configured_runpath, requires_python
    from release.build.wheel_specs import load_specs
    from release.build.wheels import build_wheel
    from release.core.config import load_deps
    from release.core.revisions import RevisionMap
    runpath = configured_runpath(REPO)
    pjrt = big_so(work / "pjrt", pjrt_mib << 20)
    ext_dir = work / "ext"
    ext_dir.mkdir(parents=True, exist_ok=True)
    (ext_dir / "blob.bin").write_bytes(_block()[:6 << 20])  # 6 MiB of code-like data, as the real one
    extension = link_so(ext_dir / "blob.bin", ext_dir / "rocm_plugin_extension.so")
    specs, wheels = load_specs(REPO), []
    revisions = RevisionMap.from_deps(load_deps(REPO / "deps.yaml"), VERSION)
    for major in majors:
        hip = _so(work / f"hip{major}" / f"libamdhip64.so.{major}", [], soname=f"libamdhip64.so.{major}")
        kernels = {k: _so(work / f"k{major}" / k, runpath, (hip,)) for k in KERNELS}
        common = dict(version=VERSION, rocm_version=RUNTIMES[major], revisions=revisions, specs=specs,
                      requires_python=requires_python(REPO))
        dest = work / "dist" / str(major)
        dest.mkdir(parents=True, exist_ok=True)
        wheels.append(build_wheel("pjrt", dest, {"xla_rocm_plugin.so": pjrt}, **common))
        for python in PYTHONS:
            wheels.append(build_wheel("plugin", dest, {**kernels, "rocm_plugin_extension.so": extension},
                                      python=python, **common))
    return wheels


def verify_once(wheels: list[Path], root: Path) -> tuple[float, float, int]:
    from release.build.bazel import configured_runpath
    from release.check.verify import Options, verify_wheels
    opts = Options(runpath=tuple(configured_runpath(REPO)), rocm_version="7.2.0", rocm_root=root)
    cpu, wall = time.process_time(), time.perf_counter()
    reports = verify_wheels(wheels, opts)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    errors = [f for r in reports for f in r.errors]
    assert not errors, f"{errors[0].check}: {errors[0].message}"  # the same clean draft each time
    return cpu, wall, len(reports)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pjrt-mib", type=int, default=64, help="xla_rocm_plugin.so's size (default 64)")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    sys.path.insert(0, str(REPO))
    work = Path(tempfile.mkdtemp(prefix="bench-verify-majors-"))
    try:
        root = runtime_root(work)
        lines = {"one major (rocm7)": line_wheels(work / "one", (7,), args.pjrt_mib),
                 "two majors (rocm7, rocm10)": line_wheels(work / "two", (7, 10), args.pjrt_mib)}
        cells = {name: sum("_plugin-" in w.name for w in wheels) for name, wheels in lines.items()}
        for wheels in lines.values():  # warm the page cache and the imports
            verify_once(wheels, root)
        cpu: dict[str, list[float]] = {n: [] for n in lines}
        wall: dict[str, list[float]] = {n: [] for n in lines}
        for _ in range(args.runs):
            for name, wheels in lines.items():
                c, w, _count = verify_once(wheels, root)
                cpu[name].append(c)
                wall[name].append(w)
        print(f"pjrt object {args.pjrt_mib} MiB, {len(PYTHONS)} Pythons, {args.runs} interleaved runs, medians")
        for name, wheels in lines.items():
            size = sum(w.stat().st_size for w in wheels) / (1 << 20)
            c, w = statistics.median(cpu[name]), statistics.median(wall[name])
            print(f"  {name}: {len(wheels)} wheels ({size:.1f} MiB), {cells[name]} cells: "
                  f"{c:.3f} s CPU, {w:.3f} s wall, {c / cells[name] * 1000:.1f} ms CPU a cell")
        one, two = (statistics.median(cpu[n]) for n in lines)
        ratio = two / one
        print(f"two majors / one major: {ratio:.2f}x CPU for {2.0:.1f}x the cells "
              f"(wall {statistics.median(wall[list(lines)[1]]) / statistics.median(wall[list(lines)[0]]):.2f}x); "
              "goal 1.8x-2.2x (linear in cells)")
        return 0 if 1.8 <= ratio <= 2.2 else 1
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    from _results import record_run
    sys.exit(record_run(main))
