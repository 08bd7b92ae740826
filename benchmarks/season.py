"""Replay a real season of the plugin day by day: the scheduled bump, then the invariants.

Takes bare copies of ROCm/rocm-jax, ROCm/jax and ROCm/xla (the fetched snapshots; not CI),
serves them over smart HTTP on 127.0.0.1 through a byte-counting ``git http-backend``, and for
every day of rocm-jax master's first-parent history in ``--since .. --until``:

1. moves the served plugin's ``master`` to that day's last commit (upstream branches of jax and
   xla are as the snapshots have them);
2. runs ``python -m release bump --json`` as the scheduled workflow does (its cache kept
   between days, or emptied each day with ``--cold``), then commits what it wrote (the merge);
3. checks the invariants: deps.yaml pins what the plugin pins; the recorded line is jax's
   ``_version`` at the jax pin and version_info.json is on it; each recorded branch holds its
   pin, and is the line's release branch whenever that branch holds it.

A failed bump or a broken invariant is an intervention: the replay writes the right pins by
hand, as a person would, and goes on. It prints a row per day and a summary: days,
interventions, bytes, CPU, the slowest warm no-change day and each cold day's CPU against a
single-branch ``--filter=tree:0`` clone of xla (issue 19's anchor).

    python benchmarks/season.py ROCM_JAX_GIT JAX_GIT XLA_GIT [--since 2025-11-01] [--until 2026-01-31]
"""

from __future__ import annotations

import argparse
import datetime
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

from release.core import config  # noqa: E402
from release.sources import branches  # noqa: E402
from release.sources.line import parse_version_py  # noqa: E402
from release.sources.pins import read_pin  # noqa: E402
from tests.support.gitrepos import GitHttpServer  # noqa: E402

FILES = {"jax": "jax_rocm_plugin/third_party/jax/workspace.bzl", "xla": "jax_rocm_plugin/third_party/xla/workspace.bzl"}
PREFIX = "rocm-jaxlib-v"


def git(repo: Path, *args: str, check: bool = True) -> str:
    proc = subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True)
    if check and proc.returncode != 0:
        raise SystemExit(f"git {' '.join(args)} in {repo}: {proc.stderr.strip()}")
    return proc.stdout.strip() if proc.returncode == 0 else ""


def serve_copy(src: Path, dest: Path) -> None:
    """A bare repository sharing ``src``'s objects, with its refs: its branches can move freely."""
    git(dest.parent, "init", "--quiet", "--bare", str(dest))
    (dest / "objects" / "info" / "alternates").write_text(str(src.resolve() / "objects") + "\n")
    packed = src / "packed-refs"
    if packed.is_file():
        shutil.copy(packed, dest / "packed-refs")
    for key in ("uploadpack.allowFilter", "uploadpack.allowAnySHA1InWant"):
        git(dest, "config", key, "true")


def child_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def days_of(plugin: Path, since: str, until: str) -> list[tuple[str, str]]:
    """``[(day, master's last first-parent commit that day)]`` for every day in the window."""
    out = git(plugin, "log", "--first-parent", "--reverse", "--format=%H %cs", f"--until={until} 23:59:59", "master")
    by_day: dict[str, str] = {}
    for line in out.splitlines():
        sha, day = line.split()
        by_day[day] = sha
    start, end = datetime.date.fromisoformat(since), datetime.date.fromisoformat(until)
    tip = None
    for day in sorted(by_day):
        if day < since:
            tip = by_day[day]
    days = []
    d = start
    while d <= end:
        tip = by_day.get(d.isoformat(), tip)
        if tip:
            days.append((d.isoformat(), tip))
        d += datetime.timedelta(days=1)
    return days


class Truth:
    """What the snapshots say: pins at a plugin commit, jax's line, branch containment."""

    def __init__(self, plugin: Path, jax: Path, xla: Path):
        self.repos = {"plugin": plugin, "jax": jax, "xla": xla}

    def pins(self, sha: str) -> dict:
        return {name: read_pin(git(self.repos["plugin"], "show", f"{sha}:{path}"), name=name, where=path)
                for name, path in FILES.items()}

    def line(self, jax_sha: str) -> str | None:
        text = git(self.repos["jax"], "show", f"{jax_sha}:jax/version.py", check=False)
        return parse_version_py(text, "jax/version.py") if text else None

    def holds(self, name: str, branch: str, sha: str) -> bool:
        repo = self.repos[name]
        return subprocess.run(["git", "merge-base", "--is-ancestor", sha, f"refs/heads/{branch}"], cwd=repo,
                              capture_output=True).returncode == 0

    def branch_of(self, name: str, sha: str, line: str | None) -> str:
        """The branch a person would record: the best release branch holding the pin."""
        out = git(self.repos[name], "for-each-ref", "--contains", sha, "--format=%(refname:short)",
                  f"refs/heads/{PREFIX}*", check=False).split()
        return min(out, key=branches.preference(line)) if out else "master"

    def exists(self, name: str, sha: str) -> bool:
        return bool(git(self.repos[name], "cat-file", "-t", sha, check=False))


def deps_text(urls: dict, plugin: str, pins: dict, branches: dict, line: str | None) -> str:
    out = ["deps:", "  plugin:", f"    url: {urls['plugin']}", "    branch: master", f"    commit: {plugin}",
           "    roll: head"]
    for name in ("jax", "xla"):
        pin = pins[name]
        out += [f"  {name}:", f"    url: {urls[name]}", f"    branch: {branches[name]}", f"    commit: {pin.commit}"]
        if pin.sha256:
            out.append(f'    archive_sha256: "{pin.sha256}"')
        if pin.patches:
            out.append(f"    patches: {json.dumps(list(pin.patches))}")
        if name == "jax" and line:
            out.append(f'    line: "{line}"')
        out.append(f"    roll: {{via: plugin, file: {FILES[name]}}}")
    return "\n".join(out) + "\n"


def check(truth: Truth, proj: Path, plugin_sha: str) -> list[str]:
    """The invariants after a day; each broken one as a short phrase."""
    deps = config.load_deps(proj / "deps.yaml")
    want = truth.pins(plugin_sha)
    broken = []
    if deps["plugin"].commit != plugin_sha:
        broken.append("plugin pin")
    for name in ("jax", "xla"):
        dep = deps[name]
        if (dep.commit, dep.patches, dep.archive_sha256) != (want[name].commit, want[name].patches,
                                                            want[name].sha256):
            broken.append(f"{name} pin")
            continue
        if not truth.holds(name, dep.branch, dep.commit):
            broken.append(f"{name} branch {dep.branch} lacks the pin")
    line = truth.line(deps["jax"].commit) if truth.exists("jax", deps["jax"].commit) else None
    if line:
        if deps["jax"].line != line:
            broken.append(f"line {deps['jax'].line} != jax's {line}")
        version = json.loads((proj / "version_info.json").read_text())["version"]
        if not version.startswith(line):
            broken.append(f"version {version} off line {line}")
        for name in ("jax", "xla"):
            release = PREFIX + line
            if deps[name].branch != release and truth.holds(name, release, deps[name].commit):
                broken.append(f"{name} on {deps[name].branch}, {release} holds it")
    return broken


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("rocm_jax", type=Path)
    parser.add_argument("jax", type=Path)
    parser.add_argument("xla", type=Path)
    parser.add_argument("--since", default="2025-11-01")
    parser.add_argument("--until", default="2026-01-31")
    parser.add_argument("--cold", action="store_true", help="empty the cache before every day")
    parser.add_argument("--anchor-branch", default=PREFIX + "0.8.0",
                        help="xla branch of the single-branch tree:0 clone anchor")
    parser.add_argument("--keep", action="store_true")
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="season-"))
    try:
        return replay(args, tmp)
    finally:
        if args.keep:
            print(f"kept {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)


def replay(args: argparse.Namespace, tmp: Path) -> int:
    remotes = tmp / "remotes"
    remotes.mkdir()
    for name, src in (("plugin", args.rocm_jax), ("jax", args.jax), ("xla", args.xla)):
        serve_copy(src, remotes / f"{name}.git")
    truth = Truth(args.rocm_jax, args.jax, args.xla)
    days = days_of(args.rocm_jax, args.since, args.until)
    server = GitHttpServer(remotes).start()
    try:
        urls = {n: server.url(f"{n}.git") for n in ("plugin", "jax", "xla")}
        # The anchor: one branch's commits, no trees, cold.
        cpu0, t0 = child_cpu(), time.perf_counter()
        server.reset_counts()
        subprocess.run(["git", "clone", "--quiet", "--bare", "--filter=tree:0", "--single-branch", "--branch",
                        args.anchor_branch, urls["xla"], str(tmp / "anchor.git")], check=True)
        anchor = (child_cpu() - cpu0, time.perf_counter() - t0, server.bytes_in + server.bytes_out)
        shutil.rmtree(tmp / "anchor.git")
        print(f"anchor: git clone --bare --filter=tree:0 --single-branch {args.anchor_branch} (xla): "
              f"{anchor[0]:.2f} s cpu, {anchor[1]:.2f} s wall, {anchor[2] / 1e6:.1f} MB")

        proj = tmp / "proj"
        proj.mkdir()
        shutil.copy(REPO / "version_info.json", proj / "version_info.json")
        first_day, first = days[0]
        start = git(args.rocm_jax, "rev-parse", f"{first}^1")
        pins = truth.pins(start)
        line = truth.line(pins["jax"].commit) if truth.exists("jax", pins["jax"].commit) else None
        first_branches = {n: truth.branch_of(n, pins[n].commit, line) for n in ("jax", "xla")}
        (proj / "deps.yaml").write_text(deps_text(urls, start, pins, first_branches, line))
        if line:
            info = json.loads((proj / "version_info.json").read_text())
            info["version"] = line
            (proj / "version_info.json").write_text(json.dumps(info, indent=2) + "\n")
        git(proj, "init", "--quiet")
        git(proj, "-c", "user.name=season", "-c", "user.email=season@localhost", "add", ".")
        git(proj, "-c", "user.name=season", "-c", "user.email=season@localhost", "commit", "--quiet", "-m", "start")
        env = {**os.environ, "JAX_ROCM_RELEASE_CACHE": str(tmp / "cache")}
        totals = {"cpu": 0.0, "bytes": 0, "interventions": 0, "moves": 0}
        worst_noop, cold_ratios = 0.0, []
        print(f"{'day':10} {'plugin':7} {'moved':24} {'cpu s':>6} {'wall s':>6} {'MB':>7} {'req':>4}  result")
        for day, sha in days:
            git(remotes / "plugin.git", "update-ref", "refs/heads/master", sha)
            if args.cold:
                shutil.rmtree(tmp / "cache", ignore_errors=True)
            cold = not (tmp / "cache").exists()
            server.reset_counts()
            cpu0, t0 = child_cpu(), time.perf_counter()
            proc = subprocess.run([sys.executable, "-m", "release", "bump", "--root", str(proj), "--json"],
                                  cwd=proj, env=env, capture_output=True, text=True)
            wall, cpu = time.perf_counter() - t0, child_cpu() - cpu0
            moved_bytes, requests = server.bytes_in + server.bytes_out, server.requests
            totals["cpu"] += cpu
            totals["bytes"] += moved_bytes
            moved = ""
            if proc.returncode == 0:
                data = json.loads(proc.stdout)
                moved = ",".join(f"{n}:{d['direction'][:4]}" for n, d in data["deps"].items())
                totals["moves"] += bool(data["changed"])
                if not data["changed"]:
                    worst_noop = max(worst_noop, wall)
                if cold and data["changed"]:
                    cold_ratios.append(cpu / max(anchor[0], 1e-9))
                broken = check(truth, proj, sha)
                result = "ok" if not broken else "INVARIANT: " + "; ".join(broken)
            else:
                lines = proc.stderr.strip().splitlines()
                broken = ["bump failed"]
                result = "BUMP FAILED: " + (lines[-1][:160] if lines else f"exit {proc.returncode}")
            if broken:  # the intervention: pins written by hand as a person would
                totals["interventions"] += 1
                pins = truth.pins(sha)
                jsha = pins["jax"].commit
                line = truth.line(jsha) if truth.exists("jax", jsha) else None
                deps = config.load_deps(proj / "deps.yaml")
                fixed = {n: truth.branch_of(n, pins[n].commit, line) if truth.exists(n, pins[n].commit)
                         else deps[n].branch for n in ("jax", "xla")}
                (proj / "deps.yaml").write_text(deps_text(urls, sha, pins, fixed, line))
            git(proj, "-c", "user.name=season", "-c", "user.email=season@localhost", "commit", "--quiet", "-a",
                "-m", f"day {day}", check=False)
            print(f"{day:10} {sha[:7]:7} {moved[:24]:24} {cpu:6.2f} {wall:6.2f} {moved_bytes / 1e6:7.2f} "
                  f"{requests:4d}  {result}", flush=True)
    finally:
        server.stop()
    print()
    print(f"days {len(days)} ({days[0][0]} .. {days[-1][0]}), bumps that moved pins {totals['moves']}, "
          f"interventions {totals['interventions']}")
    print(f"total: {totals['cpu']:.1f} s cpu, {totals['bytes'] / 1e6:.1f} MB over the wire")
    print(f"slowest warm no-change day: {worst_noop:.2f} s wall (goal < 1 s)")
    if cold_ratios:
        print("cold days' CPU / single-branch tree:0 clone of xla: " + ", ".join(f"{r:.2f}x" for r in cold_ratios)
              + " (goal <= 1x)")
    return 0 if totals["interventions"] == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
