"""Replay a real season of the plugin day by day: bump, nightly, index, releases, gc, invariants.

Takes bare copies of ROCm/rocm-jax, ROCm/jax and ROCm/xla (the fetched snapshots; not CI),
serves them over smart HTTP on 127.0.0.1 through a byte-counting ``git http-backend``, and for
every day of a rocm-jax branch's first-parent history (``--plugin-branch``, default master) in
``--since .. --until`` runs what the workflows run, each step one ``python -m release ... --json``
with the day as its clock:

1. moves the served plugin's branch to that day's last commit (upstream branches of jax and
   xla are as the snapshots have them);
2. runs ``bump`` as the scheduled workflow does (its cache kept between days, or emptied each
   day with ``--cold``) and commits what it wrote (the merge);
3. ``--release-lead`` days before the plugin moves to a new jax line (the replay looks ahead),
   releases the line it leaves, once it has a nightly: ``cut --rc 1``, ``cut`` and the
   next-version PR merged (version_info.json moves to the line's next post release, so the
   line's last nightlies are ``X.Y.Z.post1.devN``); a switch that comes first releases it
   before the bump;
4. runs the ``nightly`` on stand-in ``.so`` files compiled once (``release try``'s, since Bazel
   and ROCm cannot run here) into a local store, with ``--keep`` (default 60, as PyTorch keeps);
   ``--post-after`` days after a release, ``cut --post 1 --from`` that line (a maintenance line
   publishing while master is on the next one); then ``gc`` and ``index`` (the site, built
   from empty each day as the nightly workflow does, its wheels linked at the store, which is
   served over HTTP as release assets are);
5. checks the invariants: deps.yaml pins what the plugin pins; the recorded line is jax's
   ``_version`` at the jax pin, version_info.json and tonight's nightly are on it; each recorded
   branch holds its pin, and is the line's release branch whenever that branch holds it; nothing
   published is lost (gone only by gc's rule) and each new version sorts above what its line
   published before; the site lists all of stable and the newest
   ``--keep`` nightlies, and stays under the Pages limit; and, on a day that publishes, pip
   (``install --dry-run --report``) and uv (``pip compile``) take from the site served on
   127.0.0.1 the newest of each channel and of each pinned line by ``packaging.version``, and
   tonight's nightly installs into fresh venvs with pip and with uv (``tests/support/season.py``
   holds these rules for the CI season too).

A release branch (``--plugin-branch rocm-jaxlib-v0.7.1``) is a maintenance line: its release
already exists, so the replay cuts it on the first day (no rc) and merges the next-version PR, its
nightlies are ``X.Y.Z.postN.devYYYYMMDD``, a post release follows ``--post-after`` days later, and
step 3 is skipped (the line does not switch).

A failed step or a broken invariant is an intervention: for the pins the replay writes the right
ones by hand, as a person would, and goes on. It prints a row per day and a summary: days,
interventions, what was published, bytes, CPU, the site's size, the slowest warm no-change
bump and each cold day's CPU against a single-branch ``--filter=tree:0`` clone of xla (issue
19's anchor).

    nice -n 10 python benchmarks/season.py ROCM_JAX_GIT JAX_GIT XLA_GIT [--since 2025-11-01] [--until 2026-01-18]
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

from packaging.version import Version

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from release.build.bazel import configured_runpath  # noqa: E402
from release.core import config  # noqa: E402
from release.jobs.sandbox import compile_stand_ins  # noqa: E402
from release.publish.stores import LocalStore  # noqa: E402
from release.sources import branches  # noqa: E402
from release.sources.line import parse_version_py  # noqa: E402
from release.sources.pins import read_pin  # noqa: E402
from tests.support import season  # noqa: E402
from tests.support.gitrepos import GitHttpServer  # noqa: E402
from tests.support.index_server import serve  # noqa: E402
from tests.support.installs import pip_install, uv_bin, uv_install  # noqa: E402

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


def days_of(plugin: Path, since: str, until: str, branch: str = "master") -> list[tuple[str, str]]:
    """``[(day, the branch's last first-parent commit that day)]`` for every day in the window.

    A day is the committer's own date (``%cs``), not git's ``--until`` (local time): a tip
    committed at 19:11 -0700 on the window's last day is that day's."""
    out = git(plugin, "log", "--first-parent", "--reverse", "--format=%H %cs", f"refs/heads/{branch}")
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


def deps_text(urls: dict, plugin: str, pins: dict, branches: dict, line: str | None,
              plugin_branch: str = "master") -> str:
    out = ["deps:", "  plugin:", f"    url: {urls['plugin']}", f"    branch: {plugin_branch}", f"    commit: {plugin}",
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


PY = f"{sys.version_info.major}.{sys.version_info.minor}"


class Publisher:
    """The publishing half of a day, as the nightly and release workflows run it: each step one
    ``python -m release ... --json`` in the project, on the day's clock, into a local store."""

    def __init__(self, tmp: Path, proj: Path, keep: int, post_after: int):
        self.tmp, self.proj, self.keep, self.post_after = tmp, proj, keep, post_after
        self.store, self.site = tmp / "store", tmp / "site"
        self.artifacts = compile_stand_ins(tmp / "artifacts", configured_runpath(proj))
        rocm = json.loads((proj / "version_info.json").read_text())["rocm_version"].split(".")[0]
        self.project = f"jax-rocm{rocm}-plugin"
        self.released: dict[str, str] = {}  # line -> day of its release
        self.posted: set[str] = set()
        self.ledger = season.Ledger()
        self.counts = {"nightly": 0, "rc": 0, "release": 0, "post": 0}
        self.cpu = 0.0  # the release commands' CPU
        self.check_cpu = 0.0  # pip's, uv's and the installs' CPU
        self.max_site = 0

    def run(self, day: str, *argv: str) -> tuple[bool, dict, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
        env.update(RELEASE_PUBLIC_INDEX="none", RELEASE_NOW=f"{day}T06:00:00Z",
                   JAX_ROCM_RELEASE_CACHE=str(self.tmp / "cache"))
        cpu0 = child_cpu()
        proc = subprocess.run([sys.executable, "-m", "release", *argv, "--json"], cwd=self.proj, env=env,
                              capture_output=True, text=True)
        self.cpu += child_cpu() - cpu0
        if proc.returncode:
            lines = proc.stderr.strip().splitlines()
            return False, {}, f"{argv[0]} failed: " + (lines[-1][:160] if lines else f"exit {proc.returncode}")
        return True, json.loads(proc.stdout or "{}"), ""

    def store_flags(self) -> list[str]:
        return ["--store", "local", "--store-dir", str(self.store)]

    def merge_next_version(self) -> None:
        """The next-version PR a release opens, merged: main moves to the line's next post."""
        for branch in git(self.proj, "for-each-ref", "--format=%(refname:short)", "refs/heads/release/next-*").split():
            git(self.proj, "merge", "--quiet", "--no-edit", branch)
            git(self.proj, "branch", "--quiet", "-D", branch)

    def published(self) -> dict:
        if not (self.store / "store.json").is_file():
            return {}
        return season.published_versions(r.tag for r in LocalStore(self.store).list_releases() if not r.draft)

    def due(self, line: str) -> bool:
        """A line is released once, and only after a nightly of it was published."""
        return line not in self.released and any(
            season.kind_of(v) == "nightly" and v.base_version == line for v in self.published().values())

    def release_line(self, day: str, line: str) -> tuple[list[str], list[str]]:
        """An rc and the release of ``line`` from main, before the bump moves on to the next line."""
        done, failed = [], []
        build = ["--artifacts", str(self.artifacts), "--python", PY, *self.store_flags()]
        for kind, argv in (("rc", ["cut", "--rc", "1", *build]), ("release", ["cut", *build])):
            ok, data, err = self.run(day, *argv)
            if not ok:
                failed.append(err)
                break
            self.counts[kind] += 1
            done.append(data.get("version", kind))
        self.merge_next_version()
        if not failed:
            self.released[line] = day
        return done, failed

    def existing_release(self, day: str, line: str) -> tuple[list[str], list[str]]:
        """A maintenance line's release, made before the replay's window: ``cut`` on its first day
        (no rc: PEP 440 puts rcs before the release), the next-version PR merged, so the line's
        nightlies are ``X.Y.Z.post1.devN`` and its post release comes ``--post-after`` days later."""
        ok, data, err = self.run(day, "cut", "--artifacts", str(self.artifacts), "--python", PY,
                                 *self.store_flags())
        if not ok:
            return [], [err]
        self.counts["release"] += 1
        self.merge_next_version()
        self.released[line] = day
        return [data.get("version", "release")], []

    def publish(self, day: str, line: str | None) -> tuple[list[str], list[str]]:
        """Tonight's nightly, a due post release, gc and the index; what was published, what failed."""
        done, failed = [], []
        ok, data, err = self.run(day, "nightly", "--date", day, "--artifacts", str(self.artifacts), "--python", PY,
                                 "--keep", str(self.keep), *self.store_flags())
        if not ok:
            failed.append(err)
        elif data.get("built"):
            self.counts["nightly"] += 1
            done.append(data["version"])
            if line and Version(data["version"]).base_version not in (line,):
                failed.append(f"nightly {data['version']} off the jax line {line}")
        for old, when in self.released.items():
            due = datetime.date.fromisoformat(when) + datetime.timedelta(days=self.post_after)
            if old not in self.posted and datetime.date.fromisoformat(day) >= due:
                ok, data, err = self.run(day, "cut", "--post", "1", "--from", old, *self.store_flags())
                self.posted.add(old)
                if ok:
                    self.counts["post"] += 1
                    done.append(data.get("version", "post"))
                    self.merge_next_version()
                else:
                    failed.append(err)
        if (self.store / "store.json").is_file():
            ok, _, err = self.run(day, "gc", "--keep", str(self.keep), *self.store_flags())
            if not ok:
                failed.append(err)
        return done, failed

    def index(self, day: str, assets_url: str) -> str:
        """The site from empty, as the nightly workflow builds it; an error line or ''."""
        if not self.published():
            return ""
        shutil.rmtree(self.site, ignore_errors=True)
        ok, _, err = self.run(day, "index", "--out", str(self.site), "--keep", str(self.keep), "--asset-url",
                              assets_url, *self.store_flags())
        return err

    def check(self, day: str, site_url: str, new: bool) -> list[str]:
        """The publishing invariants after a day (tests/support/season.py's rules)."""
        published = self.published()
        broken = self.ledger.sorts_below(published)
        broken += [f"lost {tag}" for tag in self.ledger.lost(published, self.keep)]
        if not self.site.is_dir():
            return broken
        size = season.site_bytes(self.site)
        self.max_site = max(self.max_site, size)
        if size >= season.PAGES_LIMIT:
            broken.append(f"site {size} bytes, over the Pages limit")
        listed = season.listed(self.site, self.project)
        broken += season.listing_problems(listed, published, self.keep)
        if new:
            cpu0 = child_cpu()
            broken += season.resolver_problems(site_url, self.project, season.expected_picks(listed), uv_bin(),
                                               self.tmp / "uv-cache")
            broken += self.installs(day, site_url, max(listed["nightly"], default=None))
            self.check_cpu += child_cpu() - cpu0
        return broken

    def installs(self, day: str, site_url: str, newest: Version | None) -> list[str]:
        """Tonight's newest nightly installs from the site into fresh venvs, with pip and with uv."""
        if newest is None:
            return []
        where = self.tmp / "installs" / day
        where.mkdir(parents=True)
        broken = []
        try:
            for who, install, flags in (("pip", pip_install, ["--pre"]), ("uv", uv_install, ["--prerelease", "allow"])):
                code, got, err = install(where, site_url + "/nightly/", *flags, self.project, name=who)
                pjrt = self.project.replace("plugin", "pjrt")
                if code or got.get(self.project) != str(newest) or got.get(pjrt) != str(newest):
                    tail = err.strip().splitlines()[-1:] if code else {k: got.get(k) for k in (self.project, pjrt)}
                    broken.append(f"{who} install of {newest}: {tail}")
        finally:
            shutil.rmtree(where, ignore_errors=True)
        return broken


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("rocm_jax", type=Path)
    parser.add_argument("jax", type=Path)
    parser.add_argument("xla", type=Path)
    parser.add_argument("--since", default="2025-11-01")
    parser.add_argument("--until", default="2026-01-18")
    parser.add_argument("--cold", action="store_true", help="empty the cache before every day")
    parser.add_argument("--anchor-branch", default=PREFIX + "0.8.0",
                        help="xla branch of the single-branch tree:0 clone anchor")
    parser.add_argument("--keep", type=int, default=60, help="nightlies gc keeps and the index lists (default 60)")
    parser.add_argument("--release-lead", type=int, default=3,
                        help="release a jax line this many days before the plugin moves to the next one, so the "
                             "maintenance line publishes nightlies (default 3)")
    parser.add_argument("--post-after", type=int, default=5, help="days from a release to its post release")
    parser.add_argument("--plugin-branch", default="master",
                        help="the rocm-jax branch the plugin dep follows (default master); another one, such as "
                             "rocm-jaxlib-v0.7.1, is replayed as a maintenance line: its release is cut on the "
                             "first day, a post release --post-after days later, and no release ahead of a switch")
    parser.add_argument("--bump-only", action="store_true", help="no nightly, releases, gc or index (the old replay)")
    parser.add_argument("--keep-dir", action="store_true", help="keep the replay's temp directory")
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="season-"))
    try:
        return replay(args, tmp)
    finally:
        if args.keep_dir:
            print(f"kept {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)


def start_project(tmp: Path, truth: Truth, urls: dict, first: str, plugin_branch: str = "master") -> Path:
    """This repository's shape pinning the day before the window, on ``main``."""
    proj = tmp / "proj"
    proj.mkdir()
    shutil.copy(REPO / "version_info.json", proj / "version_info.json")
    shutil.copytree(REPO / "jax_rocm_plugin", proj / "jax_rocm_plugin")
    (proj / ".gitignore").write_text("/dist/\n/.cache/\n/workspace/\n")
    start = git(truth.repos["plugin"], "rev-parse", f"{first}^1")
    pins = truth.pins(start)
    line = truth.line(pins["jax"].commit) if truth.exists("jax", pins["jax"].commit) else None
    first_branches = {n: truth.branch_of(n, pins[n].commit, line) for n in ("jax", "xla")}
    (proj / "deps.yaml").write_text(deps_text(urls, start, pins, first_branches, line, plugin_branch))
    if line:
        info = json.loads((proj / "version_info.json").read_text())
        info["version"] = line
        (proj / "version_info.json").write_text(json.dumps(info, indent=2) + "\n")
    git(proj, "init", "--quiet", "-b", "main")
    git(proj, "config", "user.name", "season")
    git(proj, "config", "user.email", "season@localhost")
    git(proj, "add", ".")
    git(proj, "commit", "--quiet", "-m", "start")
    return proj


def replay(args: argparse.Namespace, tmp: Path) -> int:
    remotes = tmp / "remotes"
    remotes.mkdir()
    for name, src in (("plugin", args.rocm_jax), ("jax", args.jax), ("xla", args.xla)):
        serve_copy(src, remotes / f"{name}.git")
    truth = Truth(args.rocm_jax, args.jax, args.xla)
    days = days_of(args.rocm_jax, args.since, args.until, args.plugin_branch)
    if not days:
        raise SystemExit(f"{args.plugin_branch} has no first-parent commit up to {args.until}")
    maintenance = args.plugin_branch != "master"
    server = GitHttpServer(remotes).start()
    served_site = served_store = None
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

        proj = start_project(tmp, truth, urls, days[0][1], args.plugin_branch)
        line_on = {day: truth.line(j) if truth.exists("jax", j := truth.pins(sha)["jax"].commit) else None
                   for day, sha in days}  # the jax line each day's plugin pins, to release ahead of a switch
        pub = Publisher(tmp, proj, args.keep, args.post_after)
        pub.store.mkdir()
        served_store = serve(pub.store, negotiate=False)  # the stand-in for the release-asset host
        pub.site.mkdir()
        served_site = serve(pub.site)  # Pages, negotiating PEP 691 as the README's nginx does
        env = {**os.environ, "JAX_ROCM_RELEASE_CACHE": str(tmp / "cache")}
        totals = {"cpu": 0.0, "bytes": 0, "interventions": 0, "moves": 0}
        worst_noop, cold_ratios, findings = 0.0, [], []
        print(f"{'day':10} {'plugin':7} {'moved':24} {'cpu s':>6} {'wall s':>6} {'MB':>7} {'req':>4} "
              f"{'pub s':>6} {'site KB':>7}  published / result")
        for n, (day, sha) in enumerate(days):
            git(remotes / "plugin.git", "update-ref", f"refs/heads/{args.plugin_branch}", sha)
            broken: list[str] = []
            done: list[str] = []
            pub_cpu0 = pub.cpu
            if not args.bump_only and not maintenance:  # the switch came before the line's release: release it first
                recorded = config.load_deps(proj / "deps.yaml")["jax"].line
                if recorded and line_on.get(day) not in (None, recorded) and pub.due(recorded):
                    cut, failed = pub.release_line(day, recorded)
                    done += cut
                    broken += failed
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
                pin_broken = check(truth, proj, sha)
            else:
                lines = proc.stderr.strip().splitlines()
                pin_broken = ["bump failed: " + (lines[-1][:160] if lines else f"exit {proc.returncode}")]
            if pin_broken:  # the intervention: pins written by hand as a person would
                pins = truth.pins(sha)
                jsha = pins["jax"].commit
                line = truth.line(jsha) if truth.exists("jax", jsha) else None
                deps = config.load_deps(proj / "deps.yaml")
                fixed = {n: truth.branch_of(n, pins[n].commit, line) if truth.exists(n, pins[n].commit)
                         else deps[n].branch for n in ("jax", "xla")}
                (proj / "deps.yaml").write_text(deps_text(urls, sha, pins, fixed, line, args.plugin_branch))
                if line:
                    info = json.loads((proj / "version_info.json").read_text())
                    if Version(info["version"]).base_version != line:
                        (proj / "version_info.json").write_text(json.dumps(info | {"version": line}, indent=2) + "\n")
            broken += pin_broken
            git(proj, "commit", "--quiet", "-a", "-m", f"day {day}", check=False)
            if not args.bump_only and maintenance:
                line = config.load_deps(proj / "deps.yaml")["jax"].line
                if n == 0 and line:  # the line's release exists before its maintenance starts
                    cut, failed = pub.existing_release(day, line)
                    done += cut
                    broken += failed
            if not args.bump_only:
                line = config.load_deps(proj / "deps.yaml")["jax"].line
                ahead = None if maintenance else line_on.get(days[min(n + args.release_lead, len(days) - 1)][0])
                if line and ahead not in (None, line) and pub.due(line):  # the line ends soon: release it
                    cut, failed = pub.release_line(day, line)
                    done += cut
                    broken += failed
                before = set(pub.published())
                got, failed = pub.publish(day, line)
                done += got
                broken += failed
                err = pub.index(day, served_store.url)
                if err:
                    broken.append(err)
                broken += pub.check(day, served_site.url, set(pub.published()) != before or bool(done))
            if broken:
                totals["interventions"] += 1
                findings.append((day, broken))
            result = ("ok" if not broken else "INTERVENTION: " + "; ".join(broken))
            shown = (" ".join(done) + "  " if done else "") + result
            site_kb = season.site_bytes(pub.site) / 1e3 if not args.bump_only and pub.site.is_dir() else 0.0
            print(f"{day:10} {sha[:7]:7} {moved[:24]:24} {cpu:6.2f} {wall:6.2f} {moved_bytes / 1e6:7.2f} "
                  f"{requests:4d} {pub.cpu - pub_cpu0 if not args.bump_only else 0.0:6.2f} {site_kb:7.1f}  {shown}",
                  flush=True)
    finally:
        server.stop()
        for served in (served_site, served_store):
            if served:
                served.close()
    print()
    print(f"days {len(days)} ({days[0][0]} .. {days[-1][0]}), bumps that moved pins {totals['moves']}, "
          f"interventions {totals['interventions']}")
    for day, broken in findings:
        print(f"  {day}: {'; '.join(broken)}")
    print(f"bump: {totals['cpu']:.1f} s cpu, {totals['bytes'] / 1e6:.1f} MB over the wire")
    print(f"slowest warm no-change day: {worst_noop:.2f} s wall (goal < 1 s)")
    if cold_ratios:
        print("cold days' CPU / single-branch tree:0 clone of xla: " + ", ".join(f"{r:.2f}x" for r in cold_ratios)
              + " (goal <= 1x)")
    if not args.bump_only:
        published = pub.published()
        store_bytes = sum(p.stat().st_size for p in pub.store.rglob("*") if p.is_file())
        print("published: " + ", ".join(f"{k} {v}" for k, v in pub.counts.items())
              + f"; collected by gc (the nightly's step or gc's) {len(pub.ledger.seen) - len(published)}"
              + f"; in the store now {len(published)} releases, {store_bytes / 1e6:.1f} MB")
        print(f"publishing: {pub.cpu:.1f} s cpu (nightly, cut, gc, index); checks (pip, uv, installs): "
              f"{pub.check_cpu:.1f} s cpu")
        print(f"site: at most {pub.max_site / 1e3:.1f} KB ({pub.max_site / season.PAGES_LIMIT:.4%} of the 1 GB "
              f"Pages limit)")
    return 0 if totals["interventions"] == 0 else 1


if __name__ == "__main__":
    from _results import record_run
    raise SystemExit(record_run(main))
