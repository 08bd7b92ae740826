"""Replay real history through ``release bump`` on the jax-tree layout (issue 30, item 5).

Two replays, each over smart HTTP (``git http-backend`` serving ``--shared`` bare copies of the
real repositories), the first day from an empty cache (``--cold``: every day):

- ``main``: jax-ml/jax's ``main`` day by day (``--since`` .. ``--until``) as the plugin's branch
  (jax ``{same: plugin}``), xla (ROCm/xla) following ``third_party/xla/revision.bzl``. Each day
  the branch moves to that day's last first-parent commit and the scheduled bump runs; deps.yaml
  must then pin that commit for plugin and jax, xla at its ``XLA_COMMIT`` on a ROCm/xla branch
  that holds it, ``archive_sha256`` its ``XLA_SHA256``, and jax's line its ``_version``. A
  refusal is counted as expected only when the tree explains it (MODULE.bazel pinning another
  xla commit or digest, or an xla commit ROCm/xla does not have); anything else is a
  disagreement.
- ``branches``: ROCm/xla's ``rocm-jaxlib-v0.10.*`` / ``v0.11.*`` release branches, day by day
  over each branch's first-parent history: a plugin commit on jax's own tag of that line
  (``jax-vX.Y.Z``: its real tree) pins the branch's tip in both files, as ROCm/jax's
  ``rocm-jaxlib-vX.Y.x`` does (the digest is a stand-in: GitHub's archive bytes are not at hand).
  The bump must pin it, record the digest, keep the line, and name the ROCm/xla branch of that
  line (several branches hold the same commits: v0.10.1 and v0.10.2 share their base).

Run: ``python benchmarks/replay_jax_tree.py JAX_GIT XLA_GIT [main|branches] [--since D]
[--until D] [--cold]``. Prints one row a day and the totals (``main`` also the anchor of issue
30 at real scale: single-branch ``--filter=tree:0`` clones of jax's and xla's ``main``, against
the mean cold bump a day, CPU and bytes); exit 1 on any disagreement.
"""

from __future__ import annotations

import argparse
import base64
import datetime as _dt
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from tests.support.gitrepos import GitHttpServer  # noqa: E402

REVISION = "third_party/xla/revision.bzl"
MODULE = "MODULE.bazel"
VERSION_PY = "jax/version.py"
XLA_LINES = re.compile(r"^rocm-jaxlib-v(0\.1[01]\.\d+)$")


def git(repo: Path, *args: str, check: bool = True, env: dict | None = None) -> str:
    proc = subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True,
                          env={**os.environ, **(env or {})})
    if check and proc.returncode != 0:
        raise SystemExit(f"git {' '.join(args)} in {repo}: {proc.stderr.strip()}")
    return proc.stdout if proc.returncode == 0 else ""


def var(text: str, name: str) -> str | None:
    m = re.search(rf'^{name}\s*=\s*"([^"]*)"', text, re.M)
    return m.group(1) if m else None


def module_xla(text: str) -> tuple[str | None, str | None]:
    """(commit, hex digest) of MODULE.bazel's archive_override of xla, read independently of the tool."""
    m = re.search(r'archive_override\(\s*module_name\s*=\s*"xla"(.*?)\)', text, re.S)
    if not m:
        return None, None
    body = m.group(1)
    commit = re.search(r"([0-9a-f]{40})\.tar\.gz", body)
    integrity = re.search(r'integrity\s*=\s*"sha256-([^"]+)"', body)
    return (commit.group(1) if commit else None,
            base64.b64decode(integrity.group(1)).hex() if integrity else None)


def days(repo: Path, branch: str, since: str, until: str) -> list[tuple[str, str]]:
    """``[(day, sha)]``: the branch's last first-parent commit of each day (committer time, UTC)."""
    out = git(repo, "log", "--first-parent", "--format=%H %ct", f"--until={until}T23:59:59Z", branch)
    commits = [(sha, _dt.datetime.fromtimestamp(int(t), _dt.timezone.utc).date()) for sha, t in
               (line.split() for line in out.splitlines())]
    start, end = _dt.date.fromisoformat(since), _dt.date.fromisoformat(until)
    result, day = [], start
    while day <= end:
        tip = next((sha for sha, d in commits if d <= day), None)
        if tip is not None:
            result.append((day.isoformat(), tip))
        day += _dt.timedelta(days=1)
    return result


def deps_yaml(jax_url: str, branch: str, plugin: str, line: str, xla_url: str, xla_branch: str,
              xla: str, sha256: str) -> str:
    return ("deps:\n"
            f"  plugin:\n    url: {jax_url}\n    branch: {branch}\n    commit: {plugin}\n    roll: head\n"
            f"  jax:\n    url: {jax_url}\n    branch: {branch}\n    commit: {plugin}\n    line: \"{line}\"\n"
            "    roll: {same: plugin}\n"
            f"  xla:\n    url: {xla_url}\n    branch: {xla_branch}\n    commit: {xla}\n"
            f"    archive_sha256: \"{sha256}\"\n"
            f"    roll: {{via: jax, file: {REVISION}, var: XLA_COMMIT}}\n")


class Replay:
    def __init__(self, tmp: Path, jax_src: Path, xla_src: Path, cold: bool):
        self.tmp, self.cold = tmp, cold
        self.remotes = tmp / "remotes"
        self.remotes.mkdir()
        for name, src in (("jax.git", jax_src), ("xla.git", xla_src)):
            git(tmp, "clone", "--quiet", "--bare", "--shared", str(src), str(self.remotes / name))
            # as GitHub serves: filters honoured (the mirrors are partial: a filtered fetch needs
            # no blob they lack), any reachable commit asked for by its id
            for key in ("uploadpack.allowFilter", "uploadpack.allowAnySHA1InWant"):
                git(self.remotes / name, "config", key, "true")
        self.jax, self.xla = self.remotes / "jax.git", self.remotes / "xla.git"
        self.server = GitHttpServer(self.remotes).start()
        self.proj = tmp / "proj"
        self.proj.mkdir()
        self.cache = tmp / "cache"
        self.rows = {"days": 0, "moved": 0, "agree": 0, "refused_explained": 0, "disagree": 0}
        self.cpu = 0.0
        self.bytes = 0
        self.anchor: tuple[float, int] | None = None

    def stop(self) -> None:
        self.server.stop()

    def at(self, sha: str, path: str) -> str:
        return git(self.jax, "show", f"{sha}:{path}", check=False)

    def bump(self) -> tuple[int, str]:
        if self.cold:
            shutil.rmtree(self.cache, ignore_errors=True)
        env = {**os.environ, "JAX_ROCM_RELEASE_CACHE": str(self.cache), "RELEASE_PUBLIC_INDEX": "none",
               "GITHUB_TOKEN": "", "GITHUB_OUTPUT": "", "GITHUB_STEP_SUMMARY": ""}
        self.server.reset_counts()
        before = os.times()
        proc = subprocess.run([sys.executable, "-m", "release", "bump", "--root", str(self.proj)],
                              env=env, capture_output=True, text=True, cwd=self.proj)
        after = os.times()
        self.cpu += (after.children_user - before.children_user) + (after.children_system - before.children_system)
        self.bytes += self.server.bytes_in + self.server.bytes_out
        return proc.returncode, (proc.stderr.strip().splitlines() or [""])[-1]

    def expect(self, sha: str) -> dict:
        rev, module = self.at(sha, REVISION), self.at(sha, MODULE)
        return {"xla": var(rev, "XLA_COMMIT"), "sha256": var(rev, "XLA_SHA256"),
                "line": var(self.at(sha, VERSION_PY), "_version"), "module": module_xla(module)}

    def pinned(self) -> dict:
        import yaml
        raw = yaml.safe_load((self.proj / "deps.yaml").read_text())["deps"]
        return {"plugin": raw["plugin"]["commit"], "jax": raw["jax"]["commit"], "line": raw["jax"]["line"],
                "xla": raw["xla"]["commit"], "sha256": raw["xla"]["archive_sha256"], "xla_branch": raw["xla"]["branch"]}

    def judge(self, sha: str, status: int, said: str, want_branch: str | None = None) -> str:
        """One row: ``agree``, ``refused_explained`` or ``disagree`` (with why)."""
        want = self.expect(sha)
        if status != 0:
            mod_commit, mod_digest = want["module"]
            has = subprocess.run(["git", "cat-file", "-e", f"{want['xla']}^{{commit}}"], cwd=self.xla,
                                 capture_output=True).returncode == 0
            explained = ((mod_commit not in (None, want["xla"]) or mod_digest not in (None, want["sha256"]))
                         and MODULE in said) or (not has and "xla" in said)
            return "refused_explained" if explained and status == 2 else f"disagree (exit {status}: {said})"
        got = self.pinned()
        wrong = [f"{k} {got[k]} != {v}" for k, v in (("plugin", sha), ("jax", sha), ("xla", want["xla"]),
                                                      ("sha256", want["sha256"]), ("line", want["line"]))
                 if got[k] != v]
        on_branch = subprocess.run(["git", "merge-base", "--is-ancestor", got["xla"],
                                    f"refs/heads/{got['xla_branch']}"], cwd=self.xla).returncode == 0
        if not on_branch:
            wrong.append(f"xla {got['xla'][:12]} is not on {got['xla_branch']}")
        if want_branch is not None and got["xla_branch"] != want_branch:
            wrong.append(f"xla branch {got['xla_branch']} != {want_branch}")
        return "agree" if not wrong else "disagree (" + "; ".join(wrong) + ")"

    def record(self, day: str, sha: str, verdict: str) -> None:
        self.rows["days"] += 1
        key = verdict.split(" ")[0]
        self.rows[key] += 1
        print(f"{day} {sha[:12]} {verdict}", flush=True)


def anchor(r: Replay, branches: tuple[tuple[str, str], ...]) -> tuple[float, int]:
    """(CPU seconds, bytes) of bare ``--filter=tree:0 --single-branch`` clones of ``branches``
    (``(repo, branch)``) over the same server: what a bump's history reads would cost as clones."""
    from bench_bump import measure
    cpu, moved = 0.0, 0
    for repo, branch in branches:
        dest = r.tmp / f"anchor-{repo}"
        got = measure(r.server, ["git", "clone", "--quiet", "--bare", "--filter=tree:0", "--single-branch",
                                 "--branch", branch, r.server.url(f"{repo}.git"), str(dest)], r.tmp)
        shutil.rmtree(dest, ignore_errors=True)
        moved, cpu = moved + got[0], cpu + got[2]
    return cpu, moved


def replay_main(r: Replay, since: str, until: str) -> None:
    branch = "main"
    r.anchor = anchor(r, (("jax", branch), ("xla", "main")))
    plan = days(r.jax, branch, since, until)
    first = git(r.jax, "rev-parse", f"{plan[0][1]}^").strip()
    want = r.expect(first)
    (r.proj / "version_info.json").write_text(json.dumps({"version": want["line"], "rocm_version": "7.2.0",
                                                          "nightly_scheme": "date"}) + "\n")
    (r.proj / "deps.yaml").write_text(deps_yaml(r.server.url("jax.git"), branch, first, want["line"],
                                                r.server.url("xla.git"), "main", want["xla"], want["sha256"]))
    last = first
    for day, sha in plan:
        git(r.jax, "update-ref", f"refs/heads/{branch}", sha)
        status, said = r.bump()
        r.rows["moved"] += sha != last
        last = sha if status == 0 else last
        r.record(day, sha, r.judge(sha, status, said))


def plugin_commit(r: Replay, base: str, xla: str, day: str, parent: str) -> str:
    """A commit on ``parent`` (a jax tree) pinning ``xla`` in revision.bzl and MODULE.bazel."""
    sha256 = hashlib.sha256(f"ROCm/xla/archive/{xla}.tar.gz".encode()).hexdigest()
    sri = "sha256-" + base64.b64encode(bytes.fromhex(sha256)).decode()
    rev = re.sub(r'XLA_COMMIT = "[0-9a-f]+"', f'XLA_COMMIT = "{xla}"', r.at(base, REVISION))
    rev = re.sub(r'XLA_SHA256 = "[0-9a-f]+"', f'XLA_SHA256 = "{sha256}"', rev)
    module = r.at(base, MODULE)
    m = re.search(r'archive_override\(\s*module_name\s*=\s*"xla".*?\)', module, re.S)
    if m:
        old = m.group(0)
        new = re.sub(r"[0-9a-f]{40}", xla, old)
        new = re.sub(r'integrity\s*=\s*"[^"]*"', f'integrity = "{sri}"', new)
        module = module.replace(old, new)
    index = r.tmp / "index"
    env = {"GIT_INDEX_FILE": str(index), "GIT_AUTHOR_NAME": "replay", "GIT_AUTHOR_EMAIL": "r@example.com",
           "GIT_COMMITTER_NAME": "replay", "GIT_COMMITTER_EMAIL": "r@example.com",
           "GIT_AUTHOR_DATE": f"{day}T12:00:00Z", "GIT_COMMITTER_DATE": f"{day}T12:00:00Z"}
    git(r.jax, "read-tree", parent, env=env)
    for path, text in ((REVISION, rev), (MODULE, module)):
        blob = subprocess.run(["git", "hash-object", "-w", "--stdin"], cwd=r.jax, input=text, text=True,
                              capture_output=True, check=True).stdout.strip()
        git(r.jax, "update-index", "--add", "--cacheinfo", f"100644,{blob},{path}", env=env)
    tree = git(r.jax, "write-tree", env=env).strip()
    index.unlink()
    return git(r.jax, "commit-tree", tree, "-p", parent, "-m", f"pin xla {xla[:12]}", env=env).strip()


def replay_branches(r: Replay, since: str, until: str) -> None:
    heads = git(r.xla, "for-each-ref", "--format=%(refname:short)", "refs/heads/").split()
    lines = sorted((m.group(1), h) for h in heads if (m := XLA_LINES.match(h)))
    for line, xla_branch in lines:
        tag = f"jax-v{line}"
        if subprocess.run(["git", "rev-parse", "--verify", "--quiet", tag], cwd=r.jax,
                          capture_output=True).returncode != 0:
            print(f"{xla_branch}: jax has no tag {tag}; skipped", flush=True)
            continue
        plan = days(r.xla, xla_branch, since, until)
        if not plan:
            continue
        branch = f"rocm-jaxlib-v{line.rsplit('.', 1)[0]}.x-{line}"
        base = git(r.jax, "rev-parse", f"{tag}^{{commit}}").strip()
        first_xla = git(r.xla, "rev-parse", f"{plan[0][1]}^").strip() if len(plan) else plan[0][1]
        tip = plugin_commit(r, base, first_xla, plan[0][0], base)
        git(r.jax, "update-ref", f"refs/heads/{branch}", tip)
        want = r.expect(tip)
        (r.proj / "version_info.json").write_text(json.dumps({"version": line, "rocm_version": "7.2.0",
                                                              "nightly_scheme": "date"}) + "\n")
        (r.proj / "deps.yaml").write_text(deps_yaml(r.server.url("jax.git"), branch, tip, line,
                                                    r.server.url("xla.git"), xla_branch, want["xla"],
                                                    want["sha256"]))
        shutil.rmtree(r.cache, ignore_errors=True)  # each line from an empty cache
        last_xla = first_xla
        for day, xla in plan:
            if xla != last_xla:
                tip = plugin_commit(r, base, xla, day, tip)
                git(r.jax, "update-ref", f"refs/heads/{branch}", tip)
                last_xla = xla
                r.rows["moved"] += 1
            status, said = r.bump()
            r.record(f"{xla_branch} {day}", tip, r.judge(tip, status, said, want_branch=xla_branch))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("jax", type=Path, help="bare mirror of jax-ml/jax")
    parser.add_argument("xla", type=Path, help="bare mirror of ROCm/xla")
    parser.add_argument("mode", choices=("main", "branches"), nargs="?", default="main")
    parser.add_argument("--since", default="2026-07-01")
    parser.add_argument("--until", default="2026-08-08")
    parser.add_argument("--cold", action="store_true", help="empty the cache before every day")
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="replay-jax-tree-"))
    r = Replay(tmp, args.jax.resolve(), args.xla.resolve(), args.cold)
    start = time.perf_counter()
    try:
        (replay_main if args.mode == "main" else replay_branches)(r, args.since, args.until)
    finally:
        r.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    rows = r.rows
    print(f"{args.mode} {args.since}..{args.until} ({'every day cold' if args.cold else 'first day cold'}): "
          f"{rows['days']} days, {rows['moved']} moves, {rows['agree']} agree, "
          f"{rows['refused_explained']} refused as the tree explains, {rows['disagree']} disagree; "
          f"{r.cpu:.0f} s CPU, {r.bytes / 1e6:.1f} MB over HTTP, {time.perf_counter() - start:.0f} s wall")
    if r.anchor is not None and rows["days"]:
        cpu, moved = r.anchor
        per_cpu, per_bytes = r.cpu / rows["days"], r.bytes / rows["days"]
        print(f"anchor: tree:0 single-branch clones of jax main and xla main: {cpu:.2f} s CPU, "
              f"{moved / 1e6:.1f} MB; a bump a day: {per_cpu:.2f} s CPU ({per_cpu / cpu:.2f}x), "
              f"{per_bytes / 1e6:.2f} MB ({per_bytes / moved:.3f}x)")
    return 1 if rows["disagree"] else 0


if __name__ == "__main__":
    from _results import record_run
    raise SystemExit(record_run(main, "replay_jax_tree" + ("-branches" if "branches" in sys.argv else "")))
