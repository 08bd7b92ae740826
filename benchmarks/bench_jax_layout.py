"""Bytes and CPU of ``release bump`` on the jax-tree layout (issue 30), cold and warm, against a
single-branch ``--filter=tree:0`` clone of the same branches.

The jax-tree layout: the plugin is ROCm/jax's own tree (``jax: roll: {same: plugin}``), and xla
follows ``third_party/xla/revision.bzl`` (``XLA_COMMIT``, ``XLA_SHA256``) with ``MODULE.bazel``'s
``archive_override`` checked against it. Generated locally with ``git fast-import`` (jax's branch
``rocm-jaxlib-v0.11.x`` with ``--jax-commits`` commits, xla's ``main`` with ``--xla-commits`` commits
four directories deep and its release branch ``rocm-jaxlib-v0.11.0``; jax moves XLA about daily, as
jax-ml/jax's automated commit does), served over smart HTTP by a byte-counting ``git http-backend``.

Measured, interleaved and repeated (medians):

- the anchor: bare ``--filter=tree:0 --single-branch`` clones of jax's branch and xla's release
  branch (a bump needs those branches' history, not file contents);
- ``release bump`` with an empty cache (the plugin and jax move 50 commits, xla two of jax's daily
  pins);
- the next day's bump with the mirrors of the day before (jax 25 commits, xla one pin), and a warm
  no-op (pins current).

Run from the repository root: ``python benchmarks/bench_jax_layout.py [--xla-commits N]``.
Goal (issue 30): a cold bump's CPU and bytes at or below the anchor's.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_bump import generate, measure, median, ratios, row  # noqa: E402

from tests.support.gitrepos import GitHttpServer  # noqa: E402

BRANCH = "rocm-jaxlib-v0.11.x"
XLA_RELEASE = "rocm-jaxlib-v0.11.0"
REVISION = "third_party/xla/revision.bzl"


def digest(commit: str) -> str:
    return hashlib.sha256(f"xla-{commit}.tar.gz".encode()).hexdigest()


def pinned(xla: str) -> dict[str, str]:
    sri = "sha256-" + base64.b64encode(bytes.fromhex(digest(xla))).decode()
    return {REVISION: f'XLA_COMMIT = "{xla}"\nXLA_SHA256 = "{digest(xla)}"\n',
            "MODULE.bazel": (f'module(name = "jax")\nbazel_dep(name = "xla")\narchive_override(\n'
                             f'    module_name = "xla",\n    integrity = "{sri}",\n'
                             f'    strip_prefix = "xla-{xla}",\n'
                             f'    urls = ["https://github.com/openxla/xla/archive/{xla}.tar.gz"],\n)\n'),
            "jax/version.py": '_version: str = "0.11.0"\n'}


def deps_yaml(server: GitHttpServer, plugin: str, xla: str) -> str:
    jax_url, xla_url = server.url("jax.git"), server.url("xla.git")
    return ("deps:\n"
            f"  plugin:\n    url: {jax_url}\n    branch: {BRANCH}\n    commit: {plugin}\n    roll: head\n"
            f"  jax:\n    url: {jax_url}\n    branch: {BRANCH}\n    commit: {plugin}\n    line: \"0.11.0\"\n"
            "    roll: {same: plugin}\n"
            f"  xla:\n    url: {xla_url}\n    branch: {XLA_RELEASE}\n    commit: {xla}\n"
            f"    archive_sha256: \"{digest(xla)}\"\n"
            f"    roll: {{via: jax, file: {REVISION}, var: XLA_COMMIT}}\n")


def bump(server: GitHttpServer, proj: Path, cache: Path, text: str) -> tuple:
    (proj / "deps.yaml").write_text(text)
    env = {**os.environ, "JAX_ROCM_RELEASE_CACHE": str(cache)}
    if os.environ.get("BENCH_TRACE"):
        env["GIT_TRACE"] = os.environ["BENCH_TRACE"] + f".{time.monotonic_ns()}"
    return measure(server, [sys.executable, "-m", "release", "bump", "--root", str(proj)], proj, env)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--xla-commits", type=int, default=6_000)
    parser.add_argument("--jax-commits", type=int, default=1_500)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="bench-jax-layout-"))
    try:
        return run(tmp, args.xla_commits, args.jax_commits, args.repeat)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def run(tmp: Path, xla_commits: int, jax_commits: int, repeat: int) -> int:
    remotes = tmp / "remotes"
    remotes.mkdir()
    t0 = time.perf_counter()
    xla = generate(remotes / "xla.git", xla_commits, files=1_500, seed=1, branch="main", deep=True)
    subprocess.run(["git", "update-ref", f"refs/heads/{XLA_RELEASE}", xla[-1]], cwd=remotes / "xla.git", check=True)
    # jax pins one xla commit a day (every 25th of its commits), the newest of xla's main last.
    days = jax_commits // 25
    daily = xla[-(days + 1):]

    def extra(n: int) -> dict[str, str]:
        return pinned(daily[n // 25]) if n % 25 == 0 or n == 1 else {}
    jax = generate(remotes / "jax.git", jax_commits, files=300, seed=2, branch=BRANCH, extra=extra)
    print(f"generated in {time.perf_counter() - t0:.0f} s: xla {xla_commits} commits, jax {jax_commits}")

    def pin_at(i: int) -> str:
        text = subprocess.run(["git", "show", f"{jax[i]}:{REVISION}"], cwd=remotes / "jax.git", check=True,
                              capture_output=True, text=True).stdout
        return text.split('"')[1]
    old, yesterday = len(jax) - 51, len(jax) - 26  # two days and one day behind (xla: two pins, one)

    def set_tip(sha: str) -> None:
        subprocess.run(["git", "update-ref", f"refs/heads/{BRANCH}", sha], cwd=remotes / "jax.git", check=True)
    server = GitHttpServer(remotes).start()
    proj = tmp / "proj"
    proj.mkdir()
    shutil.copy(Path(__file__).resolve().parents[1] / "version_info.json", proj / "version_info.json")
    (proj / "version_info.json").write_text((proj / "version_info.json").read_text()
                                            .replace('"0.9.1.post7"', '"0.11.0"'))
    rows: dict[str, list] = {"anchor": [], "cold": [], "warm": [], "noop": []}
    try:
        for _ in range(repeat):
            total = [0, 0.0, 0.0, 0]
            for name, branch in (("jax", BRANCH), ("xla", XLA_RELEASE)):
                dest = tmp / f"clone-{name}"
                shutil.rmtree(dest, ignore_errors=True)
                got = measure(server, ["git", "clone", "--quiet", "--bare", "--filter=tree:0", "--single-branch",
                                       "--branch", branch, server.url(f"{name}.git"), str(dest)], tmp)
                total = [t + g for t, g in zip(total, got)]
                shutil.rmtree(dest, ignore_errors=True)
            rows["anchor"].append(tuple(total))
            cache = tmp / "cache"
            shutil.rmtree(cache, ignore_errors=True)
            rows["cold"].append(bump(server, proj, cache, deps_yaml(server, jax[old], pin_at(old))))
            shutil.rmtree(cache, ignore_errors=True)  # the day before: the branch was at `yesterday`
            set_tip(jax[yesterday])
            bump(server, proj, cache, deps_yaml(server, jax[old], pin_at(old)))
            set_tip(jax[-1])
            rows["warm"].append(bump(server, proj, cache, deps_yaml(server, jax[yesterday], pin_at(yesterday))))
            rows["noop"].append(bump(server, proj, cache, deps_yaml(server, jax[-1], pin_at(len(jax) - 1))))
    finally:
        server.stop()
    anchor = median(rows["anchor"])
    row("anchor: tree:0 single-branch clones (jax, xla)", anchor)
    for key, label in (("cold", "bump, empty cache (50 jax commits)"), ("warm", "bump, warm cache (25 jax commits)"),
                       ("noop", "bump, warm, pins current")):
        row(label, median(rows[key]))
        ratios(f"{label} / anchor", anchor, median(rows[key]))
    return 0


if __name__ == "__main__":
    from _results import record_run
    raise SystemExit(record_run(main))
