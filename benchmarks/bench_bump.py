"""Bytes and time of ``release bump`` (cold and warm cache) against a full ``git clone``.

Generates three upstreams locally with ``git fast-import`` (xla with 12,000 commits of
source-like edits over 300 files, jax with 3,000, the plugin with 600 whose
``workspace.bzl`` files pin the other two), serves them over smart HTTP on 127.0.0.1
through a byte-counting ``git http-backend`` server, and in the same run measures:

- ``git clone`` (full, as a clone-based bump would need) of each upstream;
- ``release bump`` with an empty cache: plugin moves 25 commits, jax 150, xla 300;
- the same bump again with a warm cache (pins reset to the old ones);
- a no-op bump (pins current) with a warm cache;
- ``release fetch-sources`` cold, against cloning the three.

Run from the repository root: ``python benchmarks/bench_bump.py [--xla-commits N]``.
Goals (issue 3): cold bump >= 20x fewer bytes than the clones; warm no-op bump < 2 s.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.support.gitrepos import GitHttpServer  # noqa: E402

JAX_BZL = "jax_rocm_plugin/third_party/jax/workspace.bzl"
XLA_BZL = "jax_rocm_plugin/third_party/xla/workspace.bzl"
BRANCH = "rocm-jaxlib-v0.9.1"
WORDS = ("buffer", "kernel", "stream", "device", "layout", "shape", "fusion", "thunk", "launch",
         "module", "tensor", "reduce", "scatter", "gather", "rocm", "hip", "pass", "emit")


def _line(rng: random.Random) -> str:
    name = "_".join(rng.choice(WORDS) for _ in range(3))
    return f"  absl::Status {name}_{rng.randrange(10**6)}(int64_t n) {{ return Run(n * {rng.randrange(97)}); }}"


def generate(path: Path, commits: int, *, files: int, seed: int, branch: str = BRANCH,
             extra=None) -> list[str]:
    """A bare repo with ``commits`` commits of small edits to ``files`` source files. Returns SHAs."""
    subprocess.run(["git", "init", "--quiet", "--bare", str(path)], check=True)
    for key, value in (("uploadpack.allowFilter", "true"), ("uploadpack.allowAnySHA1InWant", "true")):
        subprocess.run(["git", "config", key, value], cwd=path, check=True)
    rng = random.Random(seed)
    tree = {f"src/d{i % 30:02d}/file_{i:03d}.cc": [_line(rng) for _ in range(rng.randrange(40, 120))]
            for i in range(files)}
    marks = path / "marks"
    proc = subprocess.Popen(["git", "fast-import", "--quiet", f"--export-marks={marks}"], cwd=path,
                            stdin=subprocess.PIPE)
    write = proc.stdin.write
    when = 1_700_000_000
    for n in range(1, commits + 1):
        when += 97
        author = f"Dev {rng.randrange(40)} <dev{rng.randrange(40)}@example.com>"
        msg = f"[{rng.choice(WORDS)}] {' '.join(rng.choice(WORDS) for _ in range(6))} (#{n})\n".encode()
        write(f"commit refs/heads/{branch}\nmark :{n}\nauthor {author} {when} +0000\n"
              f"committer {author} {when} +0000\ndata {len(msg)}\n".encode() + msg)
        changed = sorted(tree) if n == 1 else rng.sample(sorted(tree), 1)
        if n > 1 and rng.random() < 0.5:
            changed.append(rng.choice(sorted(tree)))
        for name in changed:
            lines = tree[name]
            for _ in range(rng.randrange(1, 4)):
                lines[rng.randrange(len(lines))] = _line(rng)
            if rng.random() < 0.3:
                lines.insert(rng.randrange(len(lines)), _line(rng))
            data = ("\n".join(lines) + "\n").encode()
            write(f"M 100644 inline {name}\ndata {len(data)}\n".encode() + data + b"\n")
        for name, text in (extra(n) if extra else {}).items():
            data = text.encode()
            write(f"M 100644 inline {name}\ndata {len(data)}\n".encode() + data + b"\n")
        write(b"\n")
    proc.stdin.close()
    if proc.wait() != 0:
        raise SystemExit("git fast-import failed")
    shas = dict(line.split() for line in marks.read_text().splitlines())
    marks.unlink()
    subprocess.run(["git", "repack", "-a", "-d", "-q"], cwd=path, check=True)  # as a hosted repo is
    return [shas[f":{n}"] for n in range(1, commits + 1)]


def bzl(var: str, sha: str) -> str:
    return f'{var} = "{sha}"\n'


def measure(server: GitHttpServer, argv: list[str], cwd: Path, env: dict | None = None) -> tuple[int, float]:
    server.reset_counts()
    start = time.perf_counter()
    proc = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed:\n{proc.stdout}\n{proc.stderr}")
    return server.bytes_in + server.bytes_out, elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--xla-commits", type=int, default=12_000)
    parser.add_argument("--keep", action="store_true", help="keep the temp directory")
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="bench-bump-"))
    try:
        return run(tmp, args.xla_commits)
    finally:
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)


def run(tmp: Path, xla_commits: int) -> int:
    remotes = tmp / "remotes"
    remotes.mkdir()
    t0 = time.perf_counter()
    xla = generate(remotes / "xla.git", xla_commits, files=300, seed=1)
    jax = generate(remotes / "jax.git", 3_000, files=200, seed=2)
    plugin_n = 600
    # The plugin rolls jax and xla at its last 25 commits; before that it pinned older commits.
    x_old, j_old = xla[-301], jax[-151]

    def pins(n):
        late = n > plugin_n - 25
        return {XLA_BZL: bzl("XLA_COMMIT", xla[-1] if late else x_old),
                JAX_BZL: bzl("JAX_COMMIT", jax[-1] if late else j_old)}

    plugin = generate(remotes / "plugin.git", plugin_n, files=60, seed=3, branch="master", extra=pins)
    print(f"generated xla {len(xla)} commits, jax {len(jax)}, plugin {len(plugin)} "
          f"in {time.perf_counter() - t0:.1f}s")

    server = GitHttpServer(remotes).start()
    try:
        proj = tmp / "proj"
        proj.mkdir()
        shutil.copy(REPO / "version_info.json", proj / "version_info.json")
        old = {"plugin": plugin[-26], "jax": j_old, "xla": x_old}
        deps_text = ["deps:"]
        for name, branch, roll in (("plugin", "master", "head"),
                                   ("jax", BRANCH, f"{{via: plugin, file: {JAX_BZL}, var: JAX_COMMIT}}"),
                                   ("xla", BRANCH, f"{{via: plugin, file: {XLA_BZL}, var: XLA_COMMIT}}")):
            deps_text += [f"  {name}:", f"    url: {server.url(name + '.git')}", f"    branch: {branch}",
                          f"    commit: {old[name]}", f"    roll: {roll}"]
        old_deps = "\n".join(deps_text) + "\n"
        (proj / "deps.yaml").write_text(old_deps)
        env = {**os.environ, "JAX_ROCM_RELEASE_CACHE": str(tmp / "cache")}
        bump = [sys.executable, "-m", "release", "bump", "--root", str(proj)]

        clones = {}
        for name in ("xla", "jax", "plugin"):
            clones[name] = measure(server, ["git", "clone", "--quiet", server.url(name + ".git"),
                                            str(tmp / "clones" / name)], tmp)
        clone_bytes = sum(b for b, _ in clones.values())
        clone_time = sum(t for _, t in clones.values())

        cold = measure(server, bump, proj, env)
        assert "xla" in (proj / "deps.yaml").read_text() and (proj / "deps.yaml").read_text() != old_deps
        noop = measure(server, bump, proj, env)
        (proj / "deps.yaml").write_text(old_deps)
        warm = measure(server, bump, proj, env)
        shutil.rmtree(tmp / "cache")
        sources = measure(server, [sys.executable, "-m", "release", "fetch-sources", "--root", str(proj),
                                   "--workspace", str(tmp / "ws")], proj, env)
    finally:
        server.stop()

    def row(label, bytes_, secs):
        print(f"{label:44} {bytes_ / 1e6:10.3f} MB {secs:8.2f} s")

    print()
    for name, (b, t) in clones.items():
        row(f"git clone {name}", b, t)
    row("git clone, all three", clone_bytes, clone_time)
    row("release bump, cold cache (moves 25/150/300)", *cold)
    row("release bump, warm cache (same move)", *warm)
    row("release bump, warm cache, pins current", *noop)
    row("release fetch-sources, cold cache", *sources)
    print()
    ratio_cold = clone_bytes / max(cold[0], 1)
    print(f"bytes: clone / cold bump      = {ratio_cold:8.1f}x   (goal >= 20x: "
          f"{'met' if ratio_cold >= 20 else 'NOT met'})")
    print(f"bytes: clone xla / cold bump  = {clones['xla'][0] / max(cold[0], 1):8.1f}x")
    print(f"bytes: clone / warm bump      = {clone_bytes / max(warm[0], 1):8.1f}x")
    print(f"time:  clone / cold bump      = {clone_time / cold[1]:8.1f}x")
    print(f"time:  warm no-op bump        = {noop[1]:8.2f} s   (goal < 2 s: {'met' if noop[1] < 2 else 'NOT met'})")
    print(f"bytes: clone / fetch-sources  = {clone_bytes / max(sources[0], 1):8.1f}x")
    return 0 if ratio_cold >= 20 and noop[1] < 2 else 1


if __name__ == "__main__":
    raise SystemExit(main())
