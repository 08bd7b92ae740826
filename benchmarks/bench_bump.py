"""Bytes and time of ``release bump`` (cold and warm cache) against clones of the upstreams.

Generates three upstreams locally with ``git fast-import`` (xla with 12,000 commits of
source-like edits over 1,500 files four directories deep, like xla's, on main plus two
release branches forked 2,000 and 300 commits back; jax with 3,000; the plugin with 600
whose ``workspace.bzl`` files pin the other two; a commit every ~58 minutes, xla's density,
since branch searches are bounded by date), serves them over smart HTTP on 127.0.0.1 through
a byte-counting ``git http-backend`` server, and measures, interleaved and repeated (medians):

- bare clones of the three: full, ``--filter=blob:none`` and ``--filter=tree:0`` (the
  strongest fair alternatives: a bump needs history, not file contents);
- ``release bump`` with an empty cache: plugin moves 25 commits, jax 150, xla 30;
- a cold bump across a branch switch (xla ``rocm-jaxlib-v0.8.0`` -> ``v0.9.1``, sideways,
  1,750 commits since the merge-base);
- the forward bump again with a warm cache, and a no-op bump (pins current);
- ``release fetch-sources`` cold;
- the anchor of a cold day: one single-branch ``--filter=tree:0`` clone of each dep's branch
  (with xla's new branch for the switch), against which the cold bumps' wall is held (1.5x).

``--real ROCM_JAX_GIT XLA_GIT`` instead rolls plugin + xla across the real 2026-04 switch
(xla 24c5f10 -> b32df5f) on bare copies of ROCm/rocm-jax and ROCm/xla, and prints git
rev-list's counts beside what the bump found.

``--delay-ms N`` makes the server wait N ms before answering each request: a network's round
trip, which a server on 127.0.0.1 hides, so a bump's round trips (HTTP requests, each git
process its own connection) show in its wall time beside the clones'. With ``--real`` the
anchor for that is the two clones a cold roll of plugin + xla stands for (single-branch
``--filter=tree:0`` of the plugin's master and xla's release branch, one after the other), and
the git processes a cold bump starts are counted (git's trace2, one file per process, in a
separate run). Goal (issue 36): a cold bump's wall time within 1.5x of the two clones' at 50 ms.
Each cold bump's requests are also named, by repository: the server logs each (a git process's
ref advertisement ``info/refs``, then its protocol v2 commands, ``ls-refs`` or ``fetch``).
``--real ... --warm-only [--baseline CHECKOUT]`` times only the warm no-change bump (one cold bump
fills the cache; no clones), interleaved with the same bump from another checkout; on the generated
run, ``--baseline CHECKOUT`` times the two cold bumps from it too, in the same rounds.

Run from the repository root: ``python benchmarks/bench_bump.py [--xla-commits N] [--delay-ms 50]``.
The generated run and the ``--real`` one each keep their own section of RESULTS.md's latest runs.
Ratios are printed as bump / anchor, CPU first: the anchor that matters is a single-branch
``--filter=tree:0`` clone (one branch's commits: what a bump's questions need; issue 20).
Goals: a cold day's CPU at most that clone's (issue 19); a branch-switch bump moves <= 1/10 of a
blob-filtered clone of xla (issue 11); warm no-op bump < 1 s (issue 19).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import statistics
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
# Seconds between generated commits: ROCm/xla's main gets ~25 commits a day (49,000 in its
# life); history searches bounded by date depend on this density, so keep it realistic.
SPACING = 3_456
WORDS = ("buffer", "kernel", "stream", "device", "layout", "shape", "fusion", "thunk", "launch",
         "module", "tensor", "reduce", "scatter", "gather", "rocm", "hip", "pass", "emit")


def _line(rng: random.Random) -> str:
    name = "_".join(rng.choice(WORDS) for _ in range(3))
    return f"  absl::Status {name}_{rng.randrange(10**6)}(int64_t n) {{ return Run(n * {rng.randrange(97)}); }}"


def generate(path: Path, commits: int, *, files: int, seed: int, branch: str = BRANCH,
             extra=None, forks: tuple[tuple[str, int, int], ...] = (), deep: bool = False) -> list[str]:
    """A bare repo with ``commits`` commits of small edits to ``files`` source files on ``branch``,
    then for each ``(name, at, n)`` in ``forks`` a branch of ``n`` commits forked at commit
    number ``at`` (1-based). Returns the SHAs: main's, then each fork's, in order."""
    subprocess.run(["git", "init", "--quiet", "--bare", str(path)], check=True)
    for key, value in (("uploadpack.allowFilter", "true"), ("uploadpack.allowAnySHA1InWant", "true")):
        subprocess.run(["git", "config", key, value], cwd=path, check=True)
    rng = random.Random(seed)
    # deep: xla's shape (xla/service/gpu/transforms/x.cc): a change rewrites every tree above it.
    name_of = ((lambda i: f"xla/m{i % 6}/s{i % 9}/t{i % 13}/file_{i:04d}.cc") if deep
               else (lambda i: f"src/d{i % 30:02d}/file_{i:03d}.cc"))
    tree = {name_of(i): [_line(rng) for _ in range(rng.randrange(20, 80) if deep else rng.randrange(40, 120))]
            for i in range(files)}
    marks = path / "marks"
    proc = subprocess.Popen(["git", "fast-import", "--quiet", f"--export-marks={marks}"], cwd=path,
                            stdin=subprocess.PIPE)
    write = proc.stdin.write
    when = 1_700_000_000
    plan = [(branch, None)] * commits
    for name, at, n in forks:
        plan += [(name, at if i == 0 else None) for i in range(n)]
    for n, (ref, fork_at) in enumerate(plan, start=1):
        when += SPACING
        author = f"Dev {rng.randrange(40)} <dev{rng.randrange(40)}@example.com>"
        msg = f"[{rng.choice(WORDS)}] {' '.join(rng.choice(WORDS) for _ in range(6))} (#{n})\n".encode()
        write(f"commit refs/heads/{ref}\nmark :{n}\nauthor {author} {when} +0000\n"
              f"committer {author} {when} +0000\ndata {len(msg)}\n".encode() + msg)
        if fork_at:
            write(f"from :{fork_at}\n".encode())
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
    return [shas[f":{n}"] for n in range(1, len(plan) + 1)]


def bzl(var: str, sha: str) -> str:
    return f'{var} = "{sha}"\n'


def measure(server: GitHttpServer, argv: list[str], cwd: Path,
            env: dict | None = None) -> tuple[int, float, float, int]:
    """(bytes over the wire, wall seconds, CPU seconds of all child processes: git on both ends,
    HTTP requests served)."""
    server.reset_counts()
    cpu0 = _child_cpu()
    start = time.perf_counter()
    proc = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed:\n{proc.stdout}\n{proc.stderr}")
    return server.bytes_in + server.bytes_out, elapsed, _child_cpu() - cpu0, server.requests


def _child_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


CLONES = {"full": [], "blob:none": ["--filter=blob:none"], "tree:0": ["--filter=tree:0"],
          # The anchor issue 20 asks for: what a bump needs is one branch's history, commits only.
          "tree:0 single-branch": ["--filter=tree:0", "--single-branch", "--branch", BRANCH]}


def clone_anchors(server: GitHttpServer, names, tmp: Path, kinds=tuple(CLONES)) -> dict:
    """``{kind: (bytes, wall, cpu, requests)}`` for bare clones of all ``names``, one kind after another."""
    out = {}
    for kind in kinds:
        total = [0, 0.0, 0.0, 0]
        for name in names:
            dest = tmp / "clones" / f"{name}-{kind.replace(':', '').replace(' ', '-')}"
            shutil.rmtree(dest, ignore_errors=True)
            got = measure(server, ["git", "clone", "--quiet", "--bare", *CLONES[kind], server.url(name + ".git"),
                                   str(dest)], tmp)
            total = [t + g for t, g in zip(total, got)]
            shutil.rmtree(dest, ignore_errors=True)
        out[kind] = tuple(total)
    return out


def deps_yaml(server: GitHttpServer, pins: dict[str, str], branches: dict[str, str]) -> str:
    lines = ["deps:"]
    for name, roll in (("plugin", "head"), ("jax", f"{{via: plugin, file: {JAX_BZL}}}"),
                       ("xla", f"{{via: plugin, file: {XLA_BZL}}}")):
        lines += [f"  {name}:", f"    url: {server.url(name + '.git')}", f"    branch: {branches[name]}",
                  f"    commit: {pins[name]}", f"    roll: {roll}"]
    return "\n".join(lines) + "\n"


def cold_bump(server, proj: Path, tmp: Path, deps_text: str, extra=(), checkout: Path | None = None
              ) -> tuple[int, float, float]:
    """A bump with an empty cache (``checkout``: the tool from another checkout, on ``PYTHONPATH``)."""
    (proj / "deps.yaml").write_text(deps_text)
    shutil.rmtree(tmp / "cache", ignore_errors=True)
    env = {**os.environ, "JAX_ROCM_RELEASE_CACHE": str(tmp / "cache")}
    if checkout is not None:
        env["PYTHONPATH"] = str(checkout.resolve())
    got = measure(server, [sys.executable, "-m", "release", "bump", "--root", str(proj), *extra], proj, env)
    if (proj / "deps.yaml").read_text() == deps_text:
        raise SystemExit("the bump moved nothing")
    return got


def asked(log) -> str:
    """What a run's requests asked, by repository: ``plugin 2 ls-refs 1 fetch 3`` (each git
    process makes one ref advertisement request, ``info/refs``, then its commands)."""
    by_repo: dict[str, dict[str, int]] = {}
    for _, path, what in log:
        repo = path.strip("/").split("/")[0].removesuffix(".git")
        counts = by_repo.setdefault(repo, {})
        counts[what] = counts.get(what, 0) + 1
    return "; ".join(f"{repo}: " + ", ".join(f"{n} {what}" for what, n in sorted(counts.items()))
                     for repo, counts in sorted(by_repo.items()))


def median(rows):
    return tuple(statistics.median(col) for col in zip(*rows))


def row(label, got):
    bytes_, wall, cpu, requests = got
    print(f"{label:52} {cpu:8.2f} s cpu {wall:8.2f} s wall {bytes_ / 1e6:10.3f} MB {requests:5.0f} requests")


def ratios(label, anchor, got):
    """How many times the anchor's cost the measured one is: CPU first (the goal is <= 1x)."""
    print(f"  {label:50} cpu {got[2] / max(anchor[2], 1e-9):6.2f}x  wall {got[1] / max(anchor[1], 1e-9):6.2f}x"
          f"  bytes {got[0] / max(anchor[0], 1):6.2f}x  requests {got[3] / max(anchor[3], 1):6.1f}x")


def byte_compile(*others: Path) -> None:
    """Byte-compile the tool as ``pip install .`` does in CI, so no run pays for compiling its
    modules (with PYTHONDONTWRITEBYTECODE set and an editable install, every run would)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    for checkout in (REPO, *others):
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(checkout / "release")], env=env, check=True,
                       stdout=subprocess.DEVNULL)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--xla-commits", type=int, default=12_000)
    parser.add_argument("--repeat", type=int, default=3, help="interleaved rounds; medians are printed")
    parser.add_argument("--real", nargs=2, metavar=("ROCM_JAX_GIT", "XLA_GIT"), type=Path,
                        help="instead: roll plugin + xla across the 2026-04 branch switch on real bare repos")
    parser.add_argument("--keep", action="store_true", help="keep the temp directory")
    parser.add_argument("--delay-ms", type=float, default=0.0,
                        help="the server waits this long before answering each request (a network's "
                             "round trip, which 127.0.0.1 hides)")
    parser.add_argument("--warm-only", action="store_true",
                        help="with --real: only the warm no-change bump (one cold bump fills the cache), "
                             "--repeat times; no clones")
    parser.add_argument("--baseline", type=Path, metavar="CHECKOUT",
                        help="the same bumps from another checkout, interleaved: the cold forward and "
                             "switch bumps (generated run), or the warm one (--real --warm-only)")
    args = parser.parse_args()
    byte_compile(*([args.baseline] if args.baseline else []))
    tmp = Path(tempfile.mkdtemp(prefix="bench-bump-"))
    try:
        if args.real and args.warm_only:
            return run_warm(tmp, *args.real, repeat=args.repeat, delay=args.delay_ms / 1000, baseline=args.baseline)
        if args.real:
            return run_real(tmp, *args.real, repeat=args.repeat, delay=args.delay_ms / 1000)
        return run(tmp, args.xla_commits, args.repeat, delay=args.delay_ms / 1000, baseline=args.baseline)
    finally:
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)


def run(tmp: Path, xla_commits: int, repeat: int, delay: float = 0.0, baseline: Path | None = None) -> int:
    remotes = tmp / "remotes"
    remotes.mkdir()
    t0 = time.perf_counter()
    # xla: the main line, an old release branch forked 2,000 commits back and a new one 300 back.
    old_fork, new_fork = xla_commits - 2_000, xla_commits - 300
    xla = generate(remotes / "xla.git", xla_commits, files=1_500, seed=1, branch="main", deep=True,
                   forks=(("rocm-jaxlib-v0.8.0", old_fork, 60), ("rocm-jaxlib-v0.9.1", new_fork, 50)))
    main_, v080, v091 = xla[:xla_commits], xla[xla_commits:xla_commits + 60], xla[xla_commits + 60:]
    jax = generate(remotes / "jax.git", 3_000, files=200, seed=2)
    plugin_n = 600
    # The plugin rolls jax and xla at its last 25 commits (xla forward 30 on v0.8.0); at its
    # very last commit it switches xla to v0.9.1, 8 behind that branch's tip.
    x_old, x_fwd, x_switch, j_old = v080[-31], v080[-1], v091[-9], jax[-151]

    def pins(n):
        late = n > plugin_n - 25
        x = x_switch if n == plugin_n else x_fwd if late else x_old
        return {XLA_BZL: bzl("XLA_COMMIT", x), JAX_BZL: bzl("JAX_COMMIT", jax[-1] if late else j_old)}

    plugin = generate(remotes / "plugin.git", plugin_n, files=60, seed=3, branch="master", extra=pins)
    print(f"generated xla {len(main_)} commits on main + branches of {len(v080)} and {len(v091)}, "
          f"jax {len(jax)}, plugin {len(plugin)} in {time.perf_counter() - t0:.1f}s")

    server = GitHttpServer(remotes, delay=delay).start()
    try:
        proj = tmp / "proj"
        proj.mkdir()
        shutil.copy(REPO / "version_info.json", proj / "version_info.json")
        branches = {"plugin": "master", "jax": BRANCH, "xla": "rocm-jaxlib-v0.8.0"}
        forward = deps_yaml(server, {"plugin": plugin[-26], "jax": j_old, "xla": x_old}, branches)
        # Same pins, but the plugin one commit before its switch: the bump is the switch alone.
        switch = deps_yaml(server, {"plugin": plugin[-2], "jax": jax[-1], "xla": x_fwd}, branches)
        env = {**os.environ, "JAX_ROCM_RELEASE_CACHE": str(tmp / "cache")}
        bump = [sys.executable, "-m", "release", "bump", "--root", str(proj)]
        rounds = {k: [] for k in ("clones", "cold", "switch", "warm", "noop", "day", "switch_day",
                                  "base_cold", "base_switch")}
        for _ in range(repeat):  # interleaved: each round measures every contender once
            rounds["clones"].append(clone_anchors(server, ("xla", "jax", "plugin"), tmp,
                                                  kinds=("full", "blob:none", "tree:0")))
            # What a cold day's bump stands for: one single-branch tree:0 clone of each dep's branch.
            rounds["day"].append(pair_clones(server, tmp, branches))
            rounds["switch_day"].append(pair_clones(server, tmp, {**branches, "xla": "rocm-jaxlib-v0.9.1"}))
            rounds["cold"].append(cold_bump(server, proj, tmp, forward))
            forward_log = list(server.log)
            rounds["noop"].append(measure(server, bump, proj, env))
            (proj / "deps.yaml").write_text(forward)  # the same move again, cache warm
            rounds["warm"].append(measure(server, bump, proj, env))
            rounds["switch"].append(cold_bump(server, proj, tmp, switch))
            switch_log = list(server.log)
            if baseline is not None:  # the same two cold bumps from the other checkout, this round
                rounds["base_cold"].append(cold_bump(server, proj, tmp, forward, checkout=baseline))
                rounds["base_switch"].append(cold_bump(server, proj, tmp, switch, checkout=baseline))
            assert "rocm-jaxlib-v0.9.1" in (proj / "deps.yaml").read_text().split("xla:")[1]
        shutil.rmtree(tmp / "cache")
        sources = measure(server, [sys.executable, "-m", "release", "fetch-sources", "--root", str(proj),
                                   "--workspace", str(tmp / "ws")], proj, env)
        xla_only = clone_anchors(server, ("xla",), tmp)
    finally:
        server.stop()

    clones = {k: median([r[k] for r in rounds["clones"]]) for k in rounds["clones"][0]}
    cold, switch_, warm, noop = (median(rounds[k]) for k in ("cold", "switch", "warm", "noop"))
    day, switch_day = median(rounds["day"]), median(rounds["switch_day"])
    print(f"\nmedians of {repeat} interleaved rounds (cpu: git on both ends)")
    for kind, got in clones.items():
        row(f"git clone --bare {'--filter=' + kind if kind != 'full' else '(full)'}, all three", got)
    for kind, got in xla_only.items():
        row(f"git clone --bare {'--filter=' + kind if kind != 'full' else '(full)'}, xla", got)
    if delay:
        print(f"each request answered after {delay * 1000:.0f} ms (a network's round trip)")
    row("three clones: tree:0 single-branch of each dep's branch", day)
    row("three clones, xla's branch rocm-jaxlib-v0.9.1", switch_day)
    row("release bump, cold: forward 25/150/30", cold)
    print(f"  its requests: {asked(forward_log)}")
    row("release bump, cold: xla switches v0.8.0 -> v0.9.1", switch_)
    print(f"  its requests: {asked(switch_log)}")
    if baseline is not None:
        for key, label in (("base_cold", "forward 25/150/30"), ("base_switch", "xla switches v0.8.0 -> v0.9.1")):
            got = median(rounds[key])
            row(f"baseline bump, cold: {label}", got)
            ours = rounds["cold" if key == "base_cold" else "switch"]
            print(f"  wall of each round: {', '.join(f'{r[1]:.2f}' for r in rounds[key])} s "
                  f"(this checkout: {', '.join(f'{r[1]:.2f}' for r in ours)} s)")
    row("release bump, warm: forward 25/150/30", warm)
    row("release bump, warm: pins current", noop)
    row("release fetch-sources, cold", sources)
    print()
    for kind in clones:  # the three-repository anchors (a single-branch clone is xla's alone)
        ratios(f"cold forward bump / clone {kind} (three)", clones[kind], cold)
        ratios(f"cold switch bump / clone {kind} (three)", clones[kind], switch_)
    ratios("cold switch bump / clone blob:none (xla)", xla_only["blob:none"], switch_)
    ratios("cold forward bump / the three single-branch clones", day, cold)
    ratios("cold switch bump / the three single-branch clones", switch_day, switch_)
    for label, anchor, got in (("forward", day, cold), ("switch", switch_day, switch_)):
        print(f"cold {label} bump wall <= 1.5x the single-branch clones': "
              f"{'met' if got[1] <= 1.5 * anchor[1] else 'NOT met'} ({got[1] / max(anchor[1], 1e-9):.2f}x)")
    ratios("cold switch bump / clone tree:0 single-branch (xla)", xla_only["tree:0 single-branch"], switch_)
    tenth = switch_[0] <= xla_only["blob:none"][0] / 10
    print(f"switch bump <= 1/10 of a blob-filtered xla clone: {'met' if tenth else 'NOT met'}")
    print(f"warm no-op bump < 2 s: {'met' if noop[1] < 2 else 'NOT met'} ({noop[1]:.2f} s)")
    return 0 if tenth and noop[1] < 2 else 1


def git_processes(argv: list[str], cwd: Path, env: dict, trace: Path) -> int:
    """How many git processes ``argv`` starts (client side): git's trace2 writes one file per
    process into a directory. A separate run, so tracing costs no measured run anything."""
    shutil.rmtree(trace, ignore_errors=True)
    trace.mkdir(parents=True)
    subprocess.run(argv, cwd=cwd, env={**env, "GIT_TRACE2_EVENT": str(trace)}, check=True,
                   capture_output=True)
    return sum(1 for _ in trace.iterdir())


def pair_clones(server: GitHttpServer, tmp: Path, branches: dict[str, str]) -> tuple[int, float, float, int]:
    """The anchor for a cold roll of the deps in ``branches`` (plugin + xla; or all three): one
    single-branch ``--filter=tree:0`` bare clone of each, one after the other (bytes, wall, CPU,
    requests summed)."""
    total = [0, 0.0, 0.0, 0]
    for name, branch in branches.items():
        dest = tmp / "clones" / f"{name}-pair"
        shutil.rmtree(dest, ignore_errors=True)
        got = measure(server, ["git", "clone", "--quiet", "--bare", "--filter=tree:0", "--single-branch",
                               "--branch", branch, server.url(name + ".git"), str(dest)], tmp)
        total = [t + g for t, g in zip(total, got)]
        shutil.rmtree(dest, ignore_errors=True)
    return total[0], total[1], total[2], total[3]


XLA_OLD = "24c5f10ae8fc24aefd20b43c501ade7f66fd0cfd"


def real_project(tmp: Path, rocm_jax: Path, xla_git: Path, delay: float) -> tuple[GitHttpServer, Path, str, str]:
    """The real roll's starting point: the bare repositories served over smart HTTP (filters and
    fetching by SHA allowed per request, as a snapshot's upload-pack may not), a project with
    this checkout's version_info.json, and the deps.yaml text pinning rocm-jax 4fec910's parent
    and xla 24c5f10 (jax never contacted: its recorded line names the release branch xla's pin
    belongs to, as the shipped deps.yaml records it). Returns (started server, project, deps
    text, the plugin's start commit); the caller stops the server."""
    remotes = tmp / "remotes"
    remotes.mkdir()
    for name, repo in (("plugin", rocm_jax), ("xla", xla_git), ("jax", rocm_jax)):
        (remotes / f"{name}.git").symlink_to(repo.resolve())
    start = subprocess.run(["git", "rev-parse", "4fec910b6^1"], cwd=rocm_jax, check=True, capture_output=True,
                           text=True).stdout.strip()
    server = GitHttpServer(remotes, config={"uploadpack.allowFilter": "true",
                                            "uploadpack.allowAnySHA1InWant": "true"}, delay=delay).start()
    proj = tmp / "proj"
    proj.mkdir()
    shutil.copy(REPO / "version_info.json", proj / "version_info.json")
    text = deps_yaml(server, {"plugin": start, "jax": "f" * 40, "xla": XLA_OLD},
                     {"plugin": "master", "jax": BRANCH, "xla": "rocm-jaxlib-v0.8.0"})
    text = text.replace(f"    commit: {'f' * 40}\n", f"    commit: {'f' * 40}\n    line: \"0.9.1\"\n")
    return server, proj, text, start


def run_real(tmp: Path, rocm_jax: Path, xla_git: Path, repeat: int, delay: float = 0.0) -> int:
    """Roll plugin + xla from rocm-jax 4fec910's parent (xla 24c5f10 on rocm-jaxlib-v0.8.x) to
    master's tip (xla b32df5f on rocm-jaxlib-v0.9.1) against real bare repositories."""
    def git_out(repo, *args):
        return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True).stdout.strip()

    tip = git_out(rocm_jax, "rev-parse", "refs/heads/master")
    xla_old, xla_new = XLA_OLD, "b32df5f07315567cc1940388ef766b87c6e8b9e3"
    server, proj, text, start = real_project(tmp, rocm_jax, xla_git, delay)
    try:
        bumps, anchors, noops, pairs = [], [], [], []
        env = {**os.environ, "JAX_ROCM_RELEASE_CACHE": str(tmp / "cache")}
        pair = {"plugin": "master", "xla": "rocm-jaxlib-v0.9.1"}
        for _ in range(repeat):  # interleaved: each round measures every contender once
            anchors.append(clone_anchors(server, ("xla",), tmp, kinds=("tree:0 single-branch", "blob:none", "tree:0")))
            pairs.append(pair_clones(server, tmp, pair))
            bumps.append(cold_bump(server, proj, tmp, text, extra=("--dep", "plugin", "--dep", "xla", "--json")))
            cold_log = list(server.log)
            # The next day: nothing moved upstream, the cache as that bump left it.
            noops.append(measure(server, [sys.executable, "-m", "release", "bump", "--root", str(proj), "--json",
                                          "--dep", "plugin", "--dep", "xla"], proj, env))
        deps = (proj / "deps.yaml").read_text()
        (proj / "deps.yaml").write_text(text)  # once more cold, counting git processes
        shutil.rmtree(tmp / "cache", ignore_errors=True)
        bump_argv = [sys.executable, "-m", "release", "bump", "--root", str(proj), "--dep", "plugin",
                     "--dep", "xla", "--json"]
        processes = git_processes(bump_argv, proj, env, tmp / "trace")
        # The same roll again from the old pins with the cache warm, to read what it says.
        (proj / "deps.yaml").write_text(text)
        server.reset_counts()
        proc = subprocess.run([sys.executable, "-m", "release", "bump", "--root", str(proj), "--dry-run",
                               "--json", "--dep", "plugin", "--dep", "xla"], cwd=proj, env=env,
                              capture_output=True, text=True, check=True)
        warm = server.bytes_in + server.bytes_out
    finally:
        server.stop()
    said = json.loads(proc.stdout)["deps"]["xla"]
    print(f"plugin {start[:7]} -> {tip[:7]}; xla {xla_old[:7]} -> {xla_new[:7]}")
    print("deps.yaml xla:", " ".join(line.strip() for line in deps.split("xla:")[1].splitlines()[1:4]))
    since = git_out(xla_git, "rev-list", "--count", f"{xla_old}..{xla_new}")
    behind = git_out(xla_git, "rev-list", "--count", f"{xla_new}..refs/heads/rocm-jaxlib-v0.9.1")
    base = git_out(xla_git, "merge-base", xla_old, xla_new)
    print(f"git rev-list: {since} commits {xla_old[:7]}..{xla_new[:7]}, merge-base {base[:7]}, "
          f"{behind} behind rocm-jaxlib-v0.9.1")
    bump, anchor = median(bumps), {k: median([a[k] for a in anchors]) for k in anchors[0]}
    two = median(pairs)
    if delay:
        print(f"each request answered after {delay * 1000:.0f} ms (a network's round trip)")
    for kind, got in anchor.items():
        row(f"git clone --bare --filter={kind}, xla", got)
    row("two clones: tree:0 single-branch plugin + xla", two)
    row("release bump --dep plugin --dep xla, cold", bump)
    print(f"  git processes of the cold bump: {processes}; its requests: {asked(cold_log)}")
    noop = median(noops)
    row("release bump, warm, nothing moved upstream", noop)
    for kind, got in anchor.items():
        ratios(f"cold switch bump / clone {kind}", got, bump)
    ratios("cold switch bump / the two clones", two, bump)
    cold_goal = bump[2] <= anchor["tree:0 single-branch"][2]
    print(f"cold switch bump CPU <= a single-branch tree:0 clone's: {'met' if cold_goal else 'NOT met'}")
    wall_goal = bump[1] <= 1.5 * two[1]
    print(f"cold switch bump wall <= 1.5x the two clones': {'met' if wall_goal else 'NOT met'} "
          f"({bump[1] / max(two[1], 1e-9):.2f}x)")
    print(f"warm no-change bump < 1 s wall: {'met' if noop[1] < 1 else 'NOT met'} ({noop[1]:.2f} s, "
          f"{noop[2]:.2f} s CPU)")
    print(f"the bump says: {said['summary']} ({said['count']} commits listed)")
    print(f"the same roll with the cache warm moved {warm / 1e3:.1f} KB")
    return 0 if bump[0] <= anchor["blob:none"][0] / 10 else 1


def run_warm(tmp: Path, rocm_jax: Path, xla_git: Path, repeat: int, delay: float = 0.0,
             baseline: Path | None = None) -> int:
    """The warm no-change bump of ``run_real`` alone (issue 36: under 1 s wall): the same roll
    made once cold, then ``repeat`` bumps with nothing moved upstream, interleaved with the
    same bump from ``baseline`` (another checkout, on ``PYTHONPATH``) when given."""
    server, proj, text, _ = real_project(tmp, rocm_jax, xla_git, delay)
    try:
        extra = ("--dep", "plugin", "--dep", "xla", "--json")
        cold = cold_bump(server, proj, tmp, text, extra=extra)
        argv = [sys.executable, "-m", "release", "bump", "--root", str(proj), *extra]
        envs = {"this": {**os.environ, "JAX_ROCM_RELEASE_CACHE": str(tmp / "cache")}}
        if baseline is not None:
            envs["baseline"] = {**envs["this"], "PYTHONPATH": str(baseline.resolve())}
        runs: dict[str, list] = {name: [] for name in envs}
        for _ in range(repeat):
            for name, env in envs.items():
                runs[name].append(measure(server, argv, proj, env))
    finally:
        server.stop()
    if delay:
        print(f"each request answered after {delay * 1000:.0f} ms (a network's round trip)")
    row("release bump --dep plugin --dep xla, cold (fills the cache)", cold)
    for name, got in runs.items():
        walls = sorted(r[1] for r in got)
        row(f"release bump, warm, nothing moved upstream ({name})", median(got))
        print(f"  {name}: wall of each run {', '.join(f'{w:.2f}' for w in walls)} s; load {os.getloadavg()[0]:.1f}")
    warm = median(runs["this"])
    print(f"warm no-change bump < 1 s wall: {'met' if warm[1] < 1 else 'NOT met'} ({warm[1]:.2f} s, "
          f"{warm[2]:.2f} s CPU, median of {repeat})")
    return 0 if warm[1] < 1 else 1


if __name__ == "__main__":
    from _results import record_run
    # Each mode its own section: the real histories' run, the generated one's (issue 36 item 4)
    raise SystemExit(record_run(main, None if "--real" in sys.argv else "bench_bump generated"))
