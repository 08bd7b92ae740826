"""The build plan's cost in cells (issue 31): a two-major, four-Python line against a one-major line.

``make_plan`` (the pure plan ``nightly --dry-run`` prints and the pipeline follows), its
``to_json`` and ``assets``, for:

- the one-major line as shipped (rocm-jax layout, ROCm 7.2.0, the configs' four Pythons);
- a jax-tree line of one major and four Pythons (4 cells), two majors (8: ROCm 7 and 10, the
  real two-major line), and, to see the growth, 4 and 8 majors (16, 32 cells; stand-in majors).

Each is the median of ``--runs`` in-process plans, interleaved. Goal: the cost grows at most
linearly in cells: the two-major line at most 2x the one-major jax-tree line, and each doubling
of cells at most 2x (a fixed part, reading the two files and the configs, makes it less).

    python benchmarks/bench_plan_cells.py [--runs 200]
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from release.build.plan import make_plan  # noqa: E402
from release.core.config import load_project  # noqa: E402

SHA = "0123456789abcdef0123456789abcdef01234567"
DEPS = f"""deps:
  plugin: {{url: https://github.com/ROCm/jax, branch: rocm-jaxlib-v0.11.x, commit: {SHA}, roll: head}}
  jax: {{url: https://github.com/ROCm/jax, branch: rocm-jaxlib-v0.11.x, commit: {SHA}, line: "0.11.1",
        roll: {{same: plugin}}}}
  xla: {{url: https://github.com/ROCm/xla, branch: rocm-jaxlib-v0.11.1, commit: "{'7' * 40}",
        roll: {{via: jax, file: third_party/xla/revision.bzl, var: XLA_COMMIT}}}}
"""
PYTHONS = ["3.12", "3.13", "3.14", "3.15"]


def jax_tree_line(root: Path, majors: int) -> Path:
    """A jax-tree line of ``majors`` ROCm majors (7, 10, then stand-ins 11, 12, ...) and four Pythons."""
    root.mkdir(parents=True)
    (root / "deps.yaml").write_text(DEPS)
    rocms = ["7.2.0", "10.0.0", *(f"{n}.0.0" for n in range(11, 9 + majors))][:majors]
    (root / "version_info.json").write_text(json.dumps({
        "version": "0.11.1", "rocm_version": "7.2.0", "rocm_versions": rocms, "pythons": PYTHONS,
        "nightly_scheme": "date"}))
    shutil.copytree(REPO / "jax_rocm_plugin", root / "jax_rocm_plugin")
    runtime = root / "jax_rocm_plugin" / "rocm_runtime.json"
    data = json.loads(runtime.read_text())
    for rocm in rocms:
        data["releases"].setdefault(rocm, data["releases"]["7.2.0"])
    runtime.write_text(json.dumps(data))
    return root


def one_plan(root: Path) -> int:
    plan = make_plan(load_project(root), "nightly", date=dt.date(2026, 11, 27), workspace=Path("/ws"))
    plan.to_json()
    return len(plan.assets) and len(plan.cells)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        shipped = Path(tmp) / "shipped"
        shipped.mkdir()
        for name in ("deps.yaml", "version_info.json"):
            shutil.copy(REPO / name, shipped / name)
        lines = {"one major, rocm-jax (shipped)": shipped,
                 **{f"{m} major{'s' if m > 1 else ''}, jax-tree": jax_tree_line(Path(tmp) / f"m{m}", m)
                    for m in (1, 2, 4, 8)}}
        cells = {name: one_plan(root) for name, root in lines.items()}
        times: dict[str, list[float]] = {name: [] for name in lines}
        for _ in range(args.runs):
            for name, root in lines.items():
                start = time.process_time()
                one_plan(root)
                times[name].append(time.process_time() - start)
    median = {name: statistics.median(t) for name, t in times.items()}
    print(f"make_plan + to_json + assets, median CPU of {args.runs} interleaved runs")
    print(f"{'line':32} {'cells':>5} {'ms':>8} {'us/cell':>8}")
    for name in lines:
        print(f"{name:32} {cells[name]:5} {median[name] * 1e3:8.3f} {median[name] / cells[name] * 1e6:8.1f}")
    one, two = median["1 major, jax-tree"], median["2 majors, jax-tree"]
    ratios = [median["2 majors, jax-tree"] / one, median["4 majors, jax-tree"] / two,
              median["8 majors, jax-tree"] / median["4 majors, jax-tree"]]
    print(f"two-major / one-major jax-tree line: {two / one:.2f}x for 2x the cells; "
          f"two-major jax-tree / shipped one-major line: {two / median['one major, rocm-jax (shipped)']:.2f}x")
    print("each doubling of cells: " + ", ".join(f"{r:.2f}x" for r in ratios))
    ok = all(r <= 2.0 for r in ratios)
    print("goal (at most linear in cells): " + ("met" if ok else "NOT met"))
    return 0 if ok else 1


if __name__ == "__main__":
    from _results import record_run
    sys.exit(record_run(main))
