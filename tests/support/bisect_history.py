"""Upstream histories for the bisect and green-roll tests, shaped like rocm-jax's master.

The plugin's first-parent line moves its own code, rolls jax, rolls xla, merges a side
branch and rolls both at once, the way the real pins move (REFERENCE.md section 9). A jax
commit adds ``BREAKS_ROCM_BUILD``, which makes the Bazel stand-in fail (tests/support/build.py),
so a plugin commit that rolls jax onto it breaks every build from there on.

``History.c`` names the commits: ``P0..P8`` (plugin master, first parent), ``S1`` (the side
branch P5 merges), ``J0..J4``, ``X0..X2``;
``History.line`` is the plugin's first-parent line, oldest first.
"""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

from tests.support.gitrepos import BRANCH, JAX_BZL, XLA_BZL, RepoBuilder, copied_builders, workspace_bzl
from tests.support.project import write_version_info

REPO = Path(__file__).resolve().parents[2]
BREAKS = "BREAKS_ROCM_BUILD"
BAZEL_WORKSPACE = {"jax_rocm_plugin/WORKSPACE": 'workspace(name = "jax_rocm_plugin")\n',
                   "jax_rocm_plugin/.bazelrc": "build:rocm_base --copt=-Wno-unused\n"
                                               "build:rocm --action_env=TF_NEED_ROCM=1\n"}


@dataclasses.dataclass
class History:
    root: Path
    plugin: RepoBuilder
    jax: RepoBuilder
    xla: RepoBuilder
    c: dict[str, str]
    line: list[str]

    def deps_yaml(self, pins: dict[str, str] | None = None, *, urls: dict[str, str] | None = None,
                  plugin_roll: str = "head", extra: dict[str, str] | None = None) -> str:
        """deps.yaml over these remotes; ``extra`` adds lines to a dep (e.g. a hold)."""
        pins = {"plugin": self.c["P0"], "jax": self.c["J0"], "xla": self.c["X0"], **(pins or {})}
        urls = {"plugin": self.plugin.url, "jax": self.jax.url, "xla": self.xla.url, **(urls or {})}
        rolls = {"plugin": plugin_roll,
                 "jax": f"{{via: plugin, file: {JAX_BZL}, var: JAX_COMMIT}}",
                 "xla": f"{{via: plugin, file: {XLA_BZL}, var: XLA_COMMIT}}"}
        branches = {"plugin": "master", "jax": BRANCH, "xla": BRANCH}
        lines = ["# pins (a comment that must survive)", "deps:"]
        for name in ("plugin", "jax", "xla"):
            lines += [f"  {name}:", f"    url: {urls[name]}", f"    branch: {branches[name]}",
                      f"    commit: {pins[name]}", f"    roll: {rolls[name]}"]
            if extra and name in extra:
                lines.append(extra[name])
        return "\n".join(lines) + "\n"

    def copy(self, root: Path) -> History:
        """The same repositories, files copied to ``root`` (not there yet), for a test that commits
        into them: what ``build_history(root)`` gives, without its git processes."""
        moved = copied_builders(self, root)
        return History(Path(root), moved["plugin"], moved["jax"], moved["xla"], dict(self.c), list(self.line),
                       dict(self._pins))

    def pins_at(self, plugin: str) -> dict[str, str]:
        """The set a plugin commit pins (what the generator wrote)."""
        return {"plugin": plugin, **self._pins[plugin]}

    _pins: dict = dataclasses.field(default_factory=dict)


def build_history(root: Path) -> History:
    root.mkdir(parents=True, exist_ok=True)
    c: dict[str, str] = {}
    jax = RepoBuilder(root / "jax.git")
    c["J0"] = jax.commit(BRANCH, "jax: initial", {"jax/__init__.py": "v = 0\n"})
    c["J1"] = jax.commit(BRANCH, "jax: faster scan", {"jax/scan.py": "s = 1\n"})
    c["J2"] = jax.commit(BRANCH, "jax: docs", {"docs/index.md": "# jax\n"})
    c["J3"] = jax.commit(BRANCH, "jax: new FFI attribute API", {"jax/ffi.py": "api = 2\n", BREAKS: "x\n"})
    c["J4"] = jax.commit(BRANCH, "jax: typo", {"jax/ffi.py": "api = 2  # fixed\n"})
    xla = RepoBuilder(root / "xla.git")
    c["X0"] = xla.commit(BRANCH, "xla: initial", {"xla/BUILD": "# xla\n"})
    c["X1"] = xla.commit(BRANCH, "xla: gpu fusion", {"xla/gpu.cc": "int g;\n"})
    c["X2"] = xla.commit(BRANCH, "xla: rocm 7.2", {"xla/rocm.cc": "int r;\n"})

    plugin = RepoBuilder(root / "plugin.git")
    pins: dict[str, dict[str, str]] = {}

    def commit(name, subject, files=None, *, jax_pin=None, xla_pin=None, parents=None):
        before = pins[c[prev[0]]] if prev else {"jax": c["J0"], "xla": c["X0"]}
        now = {"jax": jax_pin or before["jax"], "xla": xla_pin or before["xla"]}
        files = dict(files or {})
        if jax_pin:
            files[JAX_BZL] = workspace_bzl("JAX_COMMIT", jax_pin)
        if xla_pin:
            files[XLA_BZL] = workspace_bzl("XLA_COMMIT", xla_pin)
        c[name] = plugin.commit("master", subject, files, parents=parents)
        pins[c[name]] = now
        prev[:] = [name]

    prev: list[str] = []
    commit("P0", "Initial plugin", {**BAZEL_WORKSPACE, "README.md": "plugin\n"},
           jax_pin=c["J0"], xla_pin=c["X0"])
    commit("P1", "plugin: tidy the build", {"jax_rocm_plugin/build.py": "b = 1\n"})
    commit("P2", "Roll jax", jax_pin=c["J1"])
    commit("P3", "plugin: new test", {"tests/t.py": "t = 1\n"})
    commit("P4", "Roll xla", xla_pin=c["X1"])
    side = plugin.commit("side", "side: ROCm 7.2 flags", {"jax_rocm_plugin/flags.txt": "7.2\n"},
                         parents=(c["P4"],))
    c["S1"] = side  # on a side branch: only reachable through the merge P5, never first-parent
    commit("P5", "Merge branch 'side'", {"jax_rocm_plugin/flags.txt": "7.2\n"},
           parents=(c["P4"], side))
    commit("P6", "Roll jax", jax_pin=c["J3"])
    commit("P7", "plugin: logging", {"jax_rocm_plugin/log.py": "l = 1\n"})
    commit("P8", "Roll jax and xla", jax_pin=c["J4"], xla_pin=c["X2"])
    line = [c[f"P{i}"] for i in range(9)]
    history = History(root, plugin, jax, xla, c, line)
    history._pins = pins
    return history


def make_project(root: Path, history: History, **deps_kwargs) -> Path:
    """A checkout of this repository's config (jax_rocm_plugin/, version_info.json) and deps.yaml."""
    root.mkdir(parents=True, exist_ok=True)
    shutil.copytree(REPO / "jax_rocm_plugin", root / "jax_rocm_plugin", dirs_exist_ok=True)
    write_version_info(root)
    (root / "deps.yaml").write_text(history.deps_yaml(**deps_kwargs))
    return root
