"""A year of upstream pin history, replayed on real git repositories.

Reproduces what rocm-jax's master did to its jax and xla pins (REFERENCE section 9), in
small: release branches forked off each repository's main line (``rocm-jaxlib-v0.6.x`` ..
``v0.10.0``), pins that switch branch with each JAX version (a sideways move), a pin
moved back, the jax file changing from an ``http_archive`` of jax-ml/jax (``COMMIT``/``SHA``,
``patch_file``) to a ``git_repository`` of the ROCm fork (``JAX_COMMIT``, ``patches``), a
branch created upstream mid-history, and a commit only on a pull-request ref that must be
refused. ``History.steps`` are the plugin's master commits in order; ``History.apply(i)``
moves master (and creates the upstream branches that exist by then), as time would. jax's
release branches carry ``jax/version.py`` with their line; xla has the real one's traps: a
working branch (``-upstream-sync``) and a branch far ahead that merged an old release line.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from pathlib import Path

from release.sources.pins import read_pin
from tests.support.gitrepos import JAX_BZL, XLA_BZL, RepoBuilder, git

DAY = 86400
JAXML = "https://github.com/jax-ml/jax"


@dataclasses.dataclass(frozen=True)
class Step:
    plugin: str  # the plugin commit of this step
    jax: str
    xla: str
    jax_branch: str
    xla_branch: str
    subject: str
    refs: tuple[tuple[str, str, str], ...] = ()  # (repo, branch, sha) created upstream at this step
    refused: str = ""  # a step the bump must refuse: a fragment of the one-line error


@dataclasses.dataclass
class History:
    root: Path
    plugin: RepoBuilder
    jax: RepoBuilder
    xla: RepoBuilder
    c: dict[str, str]
    steps: list[Step]

    def apply(self, i: int) -> Step:
        step = self.steps[i]
        for repo, branch, sha in step.refs:
            getattr(self, repo).set_ref(branch, sha)
        self.plugin.set_ref("master", step.plugin)
        return step

    def pin(self, i: int, name: str):
        """What step ``i``'s plugin file pins for ``name``, read as the tool reads it."""
        path = JAX_BZL if name == "jax" else XLA_BZL
        return read_pin(git("show", f"{self.steps[i].plugin}:{path}", cwd=self.plugin.path), name=name, where=path)

    def deps_yaml(self, step: int = 0) -> str:
        """deps.yaml as a person wrote it at ``step`` (pins, branches, sha256 and patches of then)."""
        s = self.steps[step]

        def extras(name: str) -> str:
            pin = self.pin(step, name)
            return (f'    archive_sha256: "{pin.sha256}"\n' if pin.sha256 else "") + (
                f"    patches: {json.dumps(list(pin.patches))}\n" if pin.patches else "")
        return (
            "# pins replayed from a generated history (this comment must survive every bump)\n"
            "deps:\n"
            f"  plugin:\n    url: {self.plugin.url}\n    branch: master\n    commit: {s.plugin}\n"
            "    roll: head\n"
            f"  jax:\n    url: {self.jax.url}\n    branch: {s.jax_branch}\n    commit: {s.jax}\n" + extras("jax") +
            f"    roll: {{via: plugin, file: {JAX_BZL}}}\n"
            f"  xla:\n    url: {self.xla.url}\n    branch: {s.xla_branch}\n    commit: {s.xla}\n" + extras("xla") +
            f"    roll: {{via: plugin, file: {XLA_BZL}}}\n")


def jax_archive(commit: str, sha256: str, patches: list[str]) -> str:
    """The jax file before 2026-02: an http_archive of jax-ml/jax built from COMMIT."""
    listed = "".join(f'            "//third_party/jax:{p}",\n' for p in patches)
    return (f'load("//third_party:repo.bzl", "amd_http_archive")\n\n'
            f'COMMIT = "{commit}"\nSHA = "{sha256}"\n\n'
            "def repo():\n    amd_http_archive(\n        name = \"jax\",\n        sha256 = SHA,\n"
            '        strip_prefix = "jax-{commit}".format(commit = COMMIT),\n'
            f'        urls = ["{JAXML}/archive/{{commit}}.tar.gz".format(commit = COMMIT)],\n'
            f"        patch_file = [\n{listed}        ],\n    )\n")


def jax_git(commit: str, remote: str, patches: list[str]) -> str:
    """The jax file since 2026-02: a git_repository of the ROCm fork with JAX_COMMIT."""
    listed = ", ".join(f'"//third_party/jax:{p}"' for p in patches)
    return (f'load("@bazel_tools//tools/build_defs/repo:git.bzl", "git_repository")\n\n\n'
            f'JAX_COMMIT = "{commit}"\n\n'
            "def repo():\n    git_repository(\n        name = \"jax\",\n"
            f'        remote = "{remote}.git",\n        commit = JAX_COMMIT,\n'
            f'        patch_tool = "patch",\n        patches = [{listed}],\n    )\n')


def xla_archive(commit: str, sha256: str, remote: str) -> str:
    return ('load("//third_party:repo.bzl", "amd_http_archive")\n\n\n'
            f'XLA_COMMIT = "{commit}"\nXLA_SHA256 = "{sha256}"\n\n'
            "def repo():\n    amd_http_archive(\n        name = \"xla\",\n        sha256 = XLA_SHA256,\n"
            '        strip_prefix = "xla-{commit}".format(commit = XLA_COMMIT),\n'
            f'        urls = ["{remote}/archive/{{commit}}.tar.gz".format(commit = XLA_COMMIT)],\n'
            "        patch_file = [],\n    )\n")


def xla_git(commit: str, remote: str) -> str:
    return ('load("@bazel_tools//tools/build_defs/repo:git.bzl", "git_repository")\n\n\n'
            f'XLA_COMMIT = "{commit}"\n\n'
            "def repo():\n    git_repository(\n        name = \"xla\",\n"
            f'        remote = "{remote}.git",\n        commit = XLA_COMMIT,\n    )\n')


def _line(repo: RepoBuilder, c: dict, name: str, branch: str, n: int, start: str | None, path: str,
          days: int = 1, version: str | None = None) -> None:
    """``n`` commits ``name1..nameN`` on ``branch`` (forked at ``start``), a day or so apart;
    the first sets jax's ``_version`` when ``version`` is given (a jax release branch)."""
    for i in range(1, n + 1):
        repo.time += days * DAY
        parents = (c[start],) if i == 1 and start else None
        files = {path: f"{name} {i}\n"}
        if version and i == 1:
            files["jax/version.py"] = f'_version = "{version}"\n'
        c[f"{name}{i}"] = repo.commit(branch, f"{name}: change {i}", files, parents=parents)


def build_history(root: Path) -> History:
    root.mkdir(parents=True, exist_ok=True)
    c: dict[str, str] = {}
    t0 = 1_735_000_000  # 2024-12
    jax = RepoBuilder(root / "jax.git", start=t0)
    xla = RepoBuilder(root / "xla.git", start=t0)
    plugin = RepoBuilder(root / "plugin.git", start=t0)

    # Main lines with release branches forked off them as the versions come.
    _line(jax, c, "jm", "main", 8, None, "jax/main.py", days=10, version="0.6.0")
    _line(jax, c, "j62_", "rocm-jaxlib-v0.6.2", 4, "jm2", "jax/rocm.py", version="0.6.2")
    _line(jax, c, "j71_", "rocm-jaxlib-v0.7.1", 4, "jm4", "jax/rocm.py", version="0.7.1")
    _line(jax, c, "j80_", "rocm-jaxlib-v0.8.0", 5, "jm6", "jax/rocm.py", version="0.8.0")
    _line(jax, c, "j91_", "rocm-jaxlib-v0.9.1", 4, "jm8", "jax/rocm.py", version="0.9.1")

    _line(xla, c, "xm", "main", 10, None, "xla/main.cc", days=10)
    _line(xla, c, "x60_", "rocm-jaxlib-v0.6.0", 4, "xm2", "xla/rocm.cc")
    _line(xla, c, "x80_", "rocm-jaxlib-v0.8.0", 6, "xm5", "xla/rocm.cc")
    _line(xla, c, "x91_", "rocm-jaxlib-v0.9.1", 5, "xm8", "xla/rocm.cc")
    # v0.10.0 forks off v0.9.1 at its third commit; the ref appears upstream only later.
    _line(xla, c, "x100_", "refs/staging/v0.10.0", 2, "x91_3", "xla/rocm.cc")
    # The traps of the real xla: a working branch off a release branch, and a branch far ahead
    # that merged an old release line (it holds old pins, thousands of commits behind its tip).
    _line(xla, c, "xsync", "rocm-jaxlib-v0.8.0-upstream-sync", 2, "x80_6", "xla/sync.cc")
    xla.time += DAY
    c["x111m"] = xla.commit("rocm-jaxlib-v0.11.1", "Merge 0.8.0 into the future", {"xla/rocm.cc": "x111\n"},
                             parents=(c["x91_5"], c["x80_6"]))
    _line(xla, c, "x111_", "rocm-jaxlib-v0.11.1", 3, None, "xla/future.cc")
    # A fork's commit, reachable only from a pull-request ref.
    xla.time += DAY
    c["xfork"] = xla.commit("refs/pull/9/head", "Fork-only change", {"xla/fork.cc": "f\n"}, parents=(c["x91_2"],))
    jax_url, xla_url = jax.url.removesuffix("/"), xla.url.removesuffix("/")

    def sums(commit: str) -> str:  # an archive's sha256 follows its commit, as GitHub's tarballs do
        return hashlib.sha256(commit.encode()).hexdigest()

    steps: list[Step] = []
    jax_file = xla_file = ""

    def step(subject, *, jax_pin=None, xla_pin=None, jb=None, xb=None, era="archive", patches=("0001-a.patch",),
             refs=(), refused=""):
        nonlocal jax_file, xla_file
        last = steps[-1] if steps else None
        jp, xp = jax_pin or last.jax, xla_pin or last.xla
        if era == "archive":
            jax_file = jax_archive(c.get(jp, jp), sums(c.get(jp, jp)), list(patches))
            xla_file = xla_archive(c.get(xp, xp), sums(c.get(xp, xp)), xla_url)
        else:
            jax_file = jax_git(c[jp] if jp in c else jp, jax_url, list(patches))
            xla_file = xla_git(c[xp] if xp in c else xp, xla_url)
        plugin.time += DAY
        sha = plugin.commit("refs/history", subject, {JAX_BZL: jax_file, XLA_BZL: xla_file})
        steps.append(Step(sha, c.get(jp, jp), c.get(xp, xp), jb or (last.jax_branch if last else ""),
                          xb or (last.xla_branch if last else ""), subject, tuple(refs), refused))

    v = "rocm-jaxlib-v"
    step("Initial plugin", jax_pin="j62_1", xla_pin="x60_1", jb=v + "0.6.2", xb=v + "0.6.0")
    step("Roll jax", jax_pin="j62_2")
    step("Roll xla", xla_pin="x60_3")
    step("Move jax to 0.7.1", jax_pin="j71_1", jb=v + "0.7.1")
    step("Move xla to 0.8.0", xla_pin="x80_2", xb=v + "0.8.0")
    step("Roll jax, add a patch", jax_pin="j71_3", patches=("0001-a.patch", "0002-b.patch"))
    step("Roll xla", xla_pin="x80_5", patches=("0001-a.patch", "0002-b.patch"))
    step("Revert the xla roll", xla_pin="x80_3", patches=("0001-a.patch", "0002-b.patch"))
    step("Move jax to 0.8.0", jax_pin="j80_2", jb=v + "0.8.0", patches=("0002-b.patch",))
    step("Roll xla", xla_pin="x80_6", patches=("0002-b.patch",))
    step("Use git_repository for jax and xla", jax_pin="j80_3", xla_pin="x91_1", xb=v + "0.9.1", era="git",
         patches=("0005-c.patch",))
    step("Restore patches", era="git", patches=("0005-c.patch", "0007-d.patch"))
    step("Roll jax", jax_pin="j80_5", era="git", patches=("0005-c.patch",))
    step("Move jax to 0.9.1", jax_pin="j91_2", jb=v + "0.9.1", era="git", patches=())
    step("Roll xla", xla_pin="x91_2", era="git", patches=())
    step("Roll xla", xla_pin="x91_5", era="git", patches=())
    step("Move xla to 0.10.0", xla_pin="x100_1", xb=v + "0.10.0", era="git", patches=(),
         refs=(("xla", v + "0.10.0", c["x100_2"]),))
    step("Try a fork's xla fix", xla_pin="xfork", era="git", patches=(), refused="is on no official branch")
    # A backport branch cut from v0.10.0 later: the pin is on both, and jax's line (0.9.1) has
    # no branch holding it; the nearest version at or above the line wins.
    step("Roll xla", xla_pin="x100_2", jax_pin="j91_4", xb=v + "0.9.2", era="git", patches=(),
         refs=(("xla", v + "0.9.2", c["x100_2"]),))
    steps[-2] = dataclasses.replace(steps[-2], xla=steps[-3].xla, xla_branch=steps[-3].xla_branch)
    return History(root, plugin, jax, xla, c, steps)
