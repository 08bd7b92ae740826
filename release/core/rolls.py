"""Roll policies in deps.yaml (``roll:``): parse and check them, one value a dep.

``head``, ``manual``, ``{head: true, require: ...}``, ``{via, file[, var, branches]}`` and
``{same: DEP}`` (the jax-tree layout: jax is the plugin's own tree). The graph of ``via`` and
``same`` edges is checked whole (names exist, no cycle), and a ``same`` dep must say what its
source says (url, branch, commit): one tree is never pinned at two places. Every problem is a
``ConfigError`` naming the file, the key, the value and what was expected.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from typing import Any, Iterable, Sequence

from release.core.errors import ConfigError

HEAD_KEYS = ("head", "require", "max_walk")
REQUIRE_GREEN = "green"
DEFAULT_MAX_WALK = 20
VIA_KEYS = ("via", "file")
VIA_OPTIONAL = ("var", "branches")
SAME_KEYS = ("same",)
DEFAULT_BRANCHES = "rocm-jaxlib-v*"
SAME_FIELDS = ("url", "branch", "commit")  # what a same dep must share with its source

_VAR = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*\Z", re.ASCII)
_GLOB = re.compile(r"^[A-Za-z0-9._/*?\[\]-]+\Z", re.ASCII)


@dataclasses.dataclass(frozen=True)
class RollHead:
    """Follow the tip of the tracked branch; with ``require``, its newest green commit instead
    (``"green"``: every check; a tuple: those check names), walking back at most ``max_walk``."""

    require: str | tuple[str, ...] | None = None
    max_walk: int = DEFAULT_MAX_WALK

    def __str__(self) -> str:
        if self.require is None:
            return "head"
        return "head (green)" if self.require == REQUIRE_GREEN else f"head (green: {', '.join(self.require)})"


@dataclasses.dataclass(frozen=True)
class RollManual:
    """Never moved automatically; only ``bump --to`` moves it."""

    def __str__(self) -> str:
        return "manual"


@dataclasses.dataclass(frozen=True)
class RollVia:
    """Take the commit that dep ``via`` pins in ``file`` (read structurally, or as
    ``var = "<sha>"`` when ``var`` is given); the branch is found among ``branches``."""

    via: str
    file: str
    var: str | None = None
    branches: str = DEFAULT_BRANCHES

    def __str__(self) -> str:
        return f"via {self.via}" + (f" ({self.var})" if self.var else "")


@dataclasses.dataclass(frozen=True)
class RollSame:
    """The dep is another dep's tree: its commit, url and branch are ``same``'s (from jax 0.10 the
    plugin is built from jax's own tree, so jax's commit is the plugin's)."""

    same: str

    def __str__(self) -> str:
        return f"same as {self.same}"


Roll = RollHead | RollManual | RollVia | RollSame


def exact_keys(path: Path, where: str, data: dict, required: Iterable[str],
               allowed: tuple[str, ...]) -> None:
    for key in data:
        if key not in allowed:
            raise ConfigError(path, f"{where}.{key}" if where else str(key), "an unknown key",
                              "only " + ", ".join(allowed))
    for key in required:
        if key not in data:
            raise ConfigError(path, f"{where}.{key}" if where else key, "nothing (missing)",
                              "this key to be present")




def parse_head(path: Path, where: str, raw: dict) -> RollHead:
    exact_keys(path, where, raw, ("head",), HEAD_KEYS)
    if raw["head"] is not True:
        raise ConfigError(path, f"{where}.head", raw["head"], "true")
    require = raw.get("require")
    if require is not None:
        names_ok = (isinstance(require, list) and require
                    and all(isinstance(n, str) and n.strip() for n in require))
        if require != REQUIRE_GREEN and not names_ok:
            raise ConfigError(path, f"{where}.require", require,
                              "'green' (every check) or a list of check names")
        if require != REQUIRE_GREEN:
            require = tuple(n.strip() for n in require)
    walk = raw.get("max_walk", DEFAULT_MAX_WALK)
    if isinstance(walk, bool) or not isinstance(walk, int) or walk < 1:
        raise ConfigError(path, f"{where}.max_walk", walk, "a whole number of commits, 1 or more")
    if "max_walk" in raw and require is None:
        raise ConfigError(path, f"{where}.max_walk", walk, "max_walk only together with require")
    return RollHead(require, walk)


def parse_roll(path: Path, where: str, raw: object) -> Roll:
    expected = ("'head', 'manual', a mapping {head: true, require: green|[names][, max_walk: N]}, "
                "a mapping {via, file[, var, branches]} or a mapping {same: DEP}")
    if raw == "head":
        return RollHead()
    if raw == "manual":
        return RollManual()
    if not isinstance(raw, dict):
        raise ConfigError(path, where, raw, expected)
    if "head" in raw:
        return parse_head(path, where, raw)
    if "same" in raw:
        exact_keys(path, where, raw, SAME_KEYS, SAME_KEYS)
        if not isinstance(raw["same"], str) or not raw["same"]:
            raise ConfigError(path, f"{where}.same", raw["same"], "the name of another dep")
        return RollSame(raw["same"])
    exact_keys(path, where, raw, VIA_KEYS, VIA_KEYS + VIA_OPTIONAL)
    for key in raw:
        if not isinstance(raw[key], str) or not raw[key]:
            raise ConfigError(path, f"{where}.{key}", raw[key], "a non-empty string")
    if raw["file"].startswith("/") or ".." in raw["file"].split("/"):
        raise ConfigError(path, f"{where}.file", raw["file"], "a path relative to the via repository")
    if "var" in raw and not _VAR.match(raw["var"]):
        raise ConfigError(path, f"{where}.var", raw["var"], "an identifier such as XLA_COMMIT")
    branches = raw.get("branches", DEFAULT_BRANCHES)
    if not _GLOB.match(branches) or ".." in branches:
        raise ConfigError(path, f"{where}.branches", branches, "a branch name pattern such as rocm-jaxlib-v*")
    return RollVia(raw["via"], raw["file"], raw.get("var"), branches)


def source_of(roll: Roll) -> str | None:
    """The dep a policy reads (``via``) or copies (``same``), or None."""
    if isinstance(roll, RollVia):
        return roll.via
    return roll.same if isinstance(roll, RollSame) else None


def check_graph(path: Path, items: Sequence[Any]) -> None:
    """Every ``via``/``same`` names another dep, no cycle, and a same dep shares its source's
    url, branch and commit (a same dep's source is not itself a same dep). ``items``: the
    ``config.Dep``s, in file order."""
    names = {d.name for d in items}
    graph = {d.name: (src, d.roll) for d in items if (src := source_of(d.roll)) is not None}
    for name, (src, roll) in graph.items():
        key = "via" if isinstance(roll, RollVia) else "same"
        if src not in names:
            raise ConfigError(path, f"deps.{name}.roll.{key}", src,
                              f"one of the other deps ({', '.join(sorted(names - {name}))})")
    for start in graph:
        seen, node = [start], graph[start][0]
        while node in graph:
            if node in seen:
                cycle = " -> ".join(seen[seen.index(node):] + [node])
                key = "via" if isinstance(graph[start][1], RollVia) else "same"
                raise ConfigError(path, f"deps.{start}.roll.{key}", graph[start][0],
                                  f"no cycle of via or same deps (found {cycle})")
            seen.append(node)
            node = graph[node][0]
    by_name = {d.name: d for d in items}
    for dep in items:
        if not isinstance(dep.roll, RollSame):
            continue
        source = by_name[dep.roll.same]
        if isinstance(source.roll, RollSame):
            raise ConfigError(path, f"deps.{dep.name}.roll.same", dep.roll.same,
                              f"a dep that is not itself 'same' ({source.name} is same as {source.roll.same})")
        for field in SAME_FIELDS:
            if getattr(dep, field) != getattr(source, field):
                raise ConfigError(path, f"deps.{dep.name}.{field}", getattr(dep, field),
                                  f"deps.{source.name}.{field} ({getattr(source, field)}): roll "
                                  f"{{same: {source.name}}} is one tree, pinned once")
