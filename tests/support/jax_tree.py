"""Upstreams shaped like the jax-tree layout (jax 0.10 on): the plugin is ROCm/jax's own tree.

``jax`` (ROCm/jax) has a working branch ``rocm-jaxlib-v0.11.x`` whose commits carry
``jax/version.py``, ``jax_plugins/rocm/``, ``third_party/xla/revision.bzl`` (``XLA_COMMIT``,
``XLA_SHA256``) and ``MODULE.bazel`` (``archive_override`` of xla with the same commit and the
digest as SRI base64), as jax-ml/jax writes them; ``xla`` (ROCm/xla) has ``main`` and the
release branches ``rocm-jaxlib-v0.10.0`` / ``v0.11.0``. Named commits (``JT.c``) include a roll
of xla, one whose MODULE.bazel digest disagrees with revision.bzl, and one moving jax back to
the released line 0.10.0.
"""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import shutil
from pathlib import Path

from tests.support.gitrepos import RepoBuilder

PLUGIN_BRANCH = "rocm-jaxlib-v0.11.x"
REVISION = "third_party/xla/revision.bzl"
MODULE = "MODULE.bazel"
XLA_BRANCHES = "rocm-jaxlib-v*"


def digest(commit: str) -> str:
    """A stand-in for the archive's sha256 (a function of the commit, as the real one is)."""
    return hashlib.sha256(f"xla-{commit}.tar.gz".encode()).hexdigest()


def sri(hex_digest: str) -> str:
    return "sha256-" + base64.b64encode(bytes.fromhex(hex_digest)).decode()


def revision_bzl(commit: str, sha256: str) -> str:
    return ('# Copyright 2025 The JAX Authors.\n\n# buildifier: disable=module-docstring\n\n'
            '# To update XLA to a new revision,\n# a) update XLA_COMMIT to the new git commit hash\n'
            f'XLA_COMMIT = "{commit}"\nXLA_SHA256 = "{sha256}"\n')


def module_bazel(commit: str, sha256: str, *, url: str = "https://github.com/openxla/xla") -> str:
    other = "b11745590f513ec55b32e2d126073576fde18c71"
    return (
        'module(name = "jax")\n\nbazel_dep(name = "rules_ml_toolchain")\narchive_override(\n'
        '    module_name = "rules_ml_toolchain",\n'
        f'    integrity = "{sri(digest(other))}",\n    strip_prefix = "rules_ml_toolchain-{other}",\n'
        f'    urls = ["https://github.com/google-ml-infra/rules_ml_toolchain/archive/{other}.tar.gz"],\n)\n\n'
        '# TODO: use a released version when available\nbazel_dep(name = "xla")\narchive_override(\n'
        '    module_name = "xla",\n'
        f'    integrity = "{sri(sha256)}",\n    strip_prefix = "xla-{commit}",\n'
        f'    urls = ["{url}/archive/{commit}.tar.gz"],\n)\n')


def tree(line: str, xla: str, *, module_sha256: str | None = None, module_commit: str | None = None) -> dict[str, str]:
    """The files of one jax commit: its line, and xla pinned in both places (agreeing unless told)."""
    return {"jax/version.py": f'_version: str = "{line}"\n',
            "jax_plugins/rocm/plugin_setup.py": "# the ROCm plugin's setup\n",
            REVISION: revision_bzl(xla, digest(xla)),
            MODULE: module_bazel(module_commit or xla, module_sha256 or digest(xla))}


@dataclasses.dataclass
class JaxTree:
    root: Path
    jax: RepoBuilder
    xla: RepoBuilder
    c: dict[str, str]

    def copy(self, root: Path) -> JaxTree:
        """The same repositories, files copied to ``root`` (not there yet), for a test that moves
        their refs: what ``build_jax_tree(root)`` gives, without its git processes."""
        shutil.copytree(self.root, root, symlinks=True)
        moved = {}
        for name in ("jax", "xla"):
            repo = getattr(self, name)
            moved[name] = builder = RepoBuilder.__new__(RepoBuilder)
            builder.path, builder.time = Path(root) / repo.path.relative_to(self.root), repo.time
        return JaxTree(Path(root), moved["jax"], moved["xla"], dict(self.c))

    def deps_yaml(self, plugin: str | None = None, *, urls: dict[str, str] | None = None,
                  line: str = "0.11.0", xla: str = "X0") -> str:
        """deps.yaml of the jax-tree layout at jax commit ``plugin`` (default J0)."""
        sha = self.c[plugin or "J0"]
        u = {"jax": self.jax.url, "xla": self.xla.url} | (urls or {})
        return (
            "# the jax-tree layout (this comment must survive every bump)\n"
            "deps:\n"
            f"  plugin:\n    url: {u['jax']}\n    branch: {PLUGIN_BRANCH}\n    commit: {sha}\n    roll: head\n"
            f"  jax:\n    url: {u['jax']}\n    branch: {PLUGIN_BRANCH}\n    commit: {sha}\n"
            f'    line: "{line}"\n    roll: {{same: plugin}}\n'
            f"  xla:\n    url: {u['xla']}\n    branch: rocm-jaxlib-v{line}\n    commit: {self.c[xla]}\n"
            f'    archive_sha256: "{digest(self.c[xla])}"\n'
            f"    roll: {{via: jax, file: {REVISION}, var: XLA_COMMIT, branches: \"{XLA_BRANCHES}\"}}\n")


def build_jax_tree(root: Path) -> JaxTree:
    """jax's ROCm branch J0..J2 rolling xla X0 -> X2; JBAD (a child of J2 on ``bad``) whose
    MODULE.bazel digest disagrees; JOLD (on ``back``) moving jax back to the released 0.10.0."""
    root.mkdir(parents=True, exist_ok=True)
    c: dict[str, str] = {}
    xla = RepoBuilder(root / "xla.git")
    c["X_BASE"] = xla.commit("main", "Initial xla", {"xla/BUILD": "# xla\n"})
    c["X10"] = xla.commit("rocm-jaxlib-v0.10.0", "Release 0.10.0", {"xla/r.txt": "0.10.0\n"},
                          parents=(c["X_BASE"],))
    c["X0"] = xla.commit("main", "GPU work", {"xla/gpu.cc": "int g0;\n"})
    c["X1"] = xla.commit("main", "More GPU work", {"xla/gpu.cc": "int g1;\n"})
    c["X2"] = xla.commit("main", "Even more GPU work", {"xla/gpu.cc": "int g2;\n"})
    xla.set_ref("refs/heads/rocm-jaxlib-v0.11.0", c["X2"])

    jax = RepoBuilder(root / "jax.git")
    c["J0"] = jax.commit(PLUGIN_BRANCH, "jax 0.11.0 with the ROCm plugin", tree("0.11.0", c["X0"]))
    c["J1"] = jax.commit(PLUGIN_BRANCH, "Fix the plugin's setup", {
        "jax_plugins/rocm/plugin_setup.py": "# the ROCm plugin's setup, fixed\n"})
    c["J2"] = jax.commit(PLUGIN_BRANCH, f"Update XLA dependency to use revision {c['X2']}",
                         tree("0.11.0", c["X2"]))
    c["JBAD"] = jax.commit("bad", "Update XLA: MODULE.bazel digest not updated",
                           tree("0.11.0", c["X1"], module_sha256=digest(c["X0"])), parents=(c["J2"],))
    c["JCOMMIT"] = jax.commit("badcommit", "Update XLA: MODULE.bazel still on the old commit",
                              tree("0.11.0", c["X1"], module_commit=c["X0"]), parents=(c["J2"],))
    c["JOLD"] = jax.commit("back", "Revert to jax 0.10.0", tree("0.10.0", c["X10"]), parents=(c["J2"],))
    return JaxTree(root, jax, xla, c)
