"""The README's two commands and CI stay in sync with what the repository has."""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def readme_commands() -> list[str]:
    text = (REPO / "README.md").read_text()
    block = re.search(r"```(?:sh|bash|console)?\n(.*?)```", text, re.S)
    assert block, "README must open with a code block of commands"
    return [line for line in block.group(1).splitlines() if line.strip()]


def test_readme_starts_with_exactly_two_commands():
    commands = readme_commands()
    assert len(commands) == 2
    assert "release nightly --dry-run" in commands[0]
    assert "scripts/test" in commands[1]


def test_ci_runs_the_readme_test_command_verbatim():
    test_command = readme_commands()[1].lstrip("$ ")
    ci = (REPO / ".ci" / "run").read_text()
    assert test_command in ci


def test_top_level_is_the_designed_one():
    for name in ("version_info.json", "deps.yaml", "release", "jax_rocm_plugin", "scripts",
                 ".github/workflows", "tests", "pyproject.toml", "README.md", ".ci/run"):
        assert (REPO / name).exists(), name


# The stages, lowest first: a module imports its own stage or a lower one, never a higher one.
LAYERS = ("core", "sources", "build", "publish", "check", "jobs", "commands")


def layer_of(module: str) -> int:
    """The rank of ``release.<stage>...``; the package root and ``cli`` sit above every stage."""
    parts = module.split(".")
    return LAYERS.index(parts[1]) if len(parts) > 2 and parts[1] in LAYERS else len(LAYERS)


def upward_imports(graph: dict[str, set[str]]) -> list[str]:
    return sorted(f"{a} -> {b}" for a, targets in graph.items() for b in targets
                  if b != "release" and layer_of(b) > layer_of(a))


def test_imports_point_down_the_stages():
    graph = import_graph(REPO / "release")
    assert {m.split(".")[1] for m in graph if m.count(".") >= 2} >= set(LAYERS)   # every stage exists
    assert upward_imports(graph) == []


def test_an_upward_import_is_named():
    graph = {"release.core.naming": {"release.publish.stores"}, "release.publish.stores": {"release.core.naming"},
             "release.cli": {"release.jobs.nightly"}, "release.jobs.nightly": set()}
    assert upward_imports(graph) == ["release.core.naming -> release.publish.stores"]


def parsed(path: Path) -> ast.Module:
    """``path``'s syntax tree, parsed once per content in this process (three rules read all of
    release/, about a CPU-second a parse); the trees are shared, so only read them."""
    text = path.read_text(encoding="utf-8")
    return _parse(text, str(path))


@functools.lru_cache(maxsize=512)
def _parse(text: str, filename: str) -> ast.Module:
    return ast.parse(text, filename)


def _is_environment(node) -> bool:
    """``env``, ``environ``, ``os.environ``, or ``(os.environ if ... else env)``."""
    import ast
    if isinstance(node, ast.IfExp):
        return _is_environment(node.body) or _is_environment(node.orelse)
    return (isinstance(node, ast.Name) and node.id in ("env", "environ")) or \
        (isinstance(node, ast.Attribute) and node.attr == "environ")


def _module_constants(tree) -> dict[str, set[str]]:
    """A module's top-level ``NAME = "..."`` (or a tuple of strings): what another module that
    imports NAME reads when it reads the environment with it."""
    import ast
    found: dict[str, set[str]] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            values = [node.value] if isinstance(node.value, ast.Constant) else getattr(node.value, "elts", [])
            strings = {v.value for v in values if isinstance(v, ast.Constant) and isinstance(v.value, str)}
            if strings:
                found[node.targets[0].id] = strings
    return found


def _names_read(tree, package_constants: dict[str, dict[str, set[str]]] | None = None) -> set[str]:
    """The variable names one module reads from the environment (``package_constants``: each
    package module's constants, by dotted name, for the names this module imports)."""
    import ast
    nodes = list(ast.walk(tree))  # walked once; each pass below reads them in the same order
    bound: dict[str, set[str]] = {}  # module constants and loop variables -> the strings they hold
    for node in nodes:
        if isinstance(node, ast.ImportFrom) and node.module and package_constants is not None:
            for alias in node.names:
                held = package_constants.get(node.module, {}).get(alias.name)
                if held:
                    bound.setdefault(alias.asname or alias.name, set()).update(held)

    def strings(node) -> set[str]:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return {node.value}
        if isinstance(node, (ast.Tuple, ast.List)):
            return set().union(*(strings(e) for e in node.elts))
        if isinstance(node, ast.Name):
            return bound.get(node.id, set())
        if isinstance(node, ast.Subscript):  # ENV_PATHS[:2]
            return strings(node.value)
        return set()

    for node in nodes:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                and not isinstance(node.value, ast.Name):
            bound.setdefault(node.targets[0].id, set()).update(strings(node.value))
    for node in nodes:
        if isinstance(node, (ast.For, ast.comprehension)) and isinstance(node.target, ast.Name):
            bound.setdefault(node.target.id, set()).update(strings(node.iter))
    read: set[str] = set()
    for node in nodes:
        if isinstance(node, ast.Call) and node.args and isinstance(node.func, ast.Attribute) and (
                (node.func.attr == "get" and _is_environment(node.func.value)) or node.func.attr == "getenv"):
            read |= strings(node.args[0])
        elif isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load) and _is_environment(node.value):
            read |= strings(node.slice)
        elif isinstance(node, ast.Compare) and any(isinstance(op, ast.In) for op in node.ops) \
                and any(_is_environment(c) for c in node.comparators):
            read |= strings(node.left)
    return {name for name in read if re.fullmatch(r"[A-Z][A-Z0-9_]+", name)}


def environment_reads() -> dict[str, set[str]]:
    """Every environment variable ``release/`` reads, found in its syntax: ``env.get(NAME)``,
    ``os.environ[NAME]``, ``NAME in env``, ``os.getenv(NAME)`` on any mapping called ``env`` or
    ``environ``, where NAME is a string, a module constant naming one (its own, or one it imports
    from another module of the package), or a loop variable over a tuple of them. Returns {name: modules reading it}."""
    trees = {path: parsed(path) for path in sorted((REPO / "release").rglob("*.py"))}
    constants = {".".join(path.relative_to(REPO).with_suffix("").parts): _module_constants(tree)
                 for path, tree in trees.items()}
    found: dict[str, set[str]] = {}
    for path, tree in trees.items():
        for name in _names_read(tree, constants):
            found.setdefault(name, set()).add(str(path.relative_to(REPO)))
    return found


def test_every_environment_variable_the_tool_reads_is_in_the_reference_table():
    """A setting read from the environment is a person's input: it is in the reference's table
    (docs/reference/environment.md), and the table names nothing the code no longer reads."""
    text = (REPO / "docs" / "reference" / "environment.md").read_text()
    table = text.split("Every environment variable the tool reads", 1)[1].split("\n\n", 2)[1]
    documented = {name for row in table.splitlines() if row.startswith("| `")
                  for name in re.findall(r"`([A-Z][A-Z0-9_]+)`", row.split(" | ")[0])}
    read = environment_reads()
    assert {"GITHUB_TOKEN", "RELEASE_NOW", "RELEASE_GITHUB_WRITE_INTERVAL", "RELEASE_PUBLIC_INDEX",
            "GITHUB_RUN_ID", "GITHUB_OUTPUT"} <= set(read)  # the scan sees each way of reading
    missing = {name: sorted(where) for name, where in read.items() if name not in documented}
    assert not missing, f"read from the environment but not in the reference's table: {missing}"
    assert not documented - set(read), f"in the reference's table but read nowhere: {documented - set(read)}"


def import_graph(package: Path) -> dict[str, set[str]]:
    """``{module: modules of the package it imports}``, read from the source with ``ast``.

    Every import counts, function-local ones included: a function-local import that dodges
    a cycle at import time is still a cycle in the design.
    """
    modules = {}
    for path in package.rglob("*.py"):
        parts = list(path.relative_to(package.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        modules[".".join(parts)] = path
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        here = name if path.name == "__init__.py" else name.rpartition(".")[0]
        found = set()
        for node in ast.walk(parsed(path)):
            if isinstance(node, ast.Import):
                found |= {alias.name for alias in node.names}
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = here.split(".")[: len(here.split(".")) - node.level + 1]
                    base = ".".join(up + ([base] if base else []))
                # "from release import bazel" names a module; "from release.build.bazel import x" its module
                found |= {f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base
                          for alias in node.names}
        graph[name] = {m for m in found if m in modules and m != name}
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle as ``[a, b, ..., a]``, or None when the imports point one way."""
    state: dict[str, str] = {}   # "open" while on the path, "done" after
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = "open"
        path.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == "open":
                return path[path.index(nxt):] + [nxt]
            if nxt not in state and (cycle := visit(nxt)):
                return cycle
        path.pop()
        state[node] = "done"
        return None

    for start in sorted(graph):
        if start not in state and (cycle := visit(start)):
            return cycle
    return None


def test_the_package_has_no_import_cycles():
    graph = import_graph(REPO / "release")
    assert "release.jobs.shared" in graph and "release.commands.cut" in graph   # the whole package was read
    cycle = find_cycle(graph)
    assert cycle is None, f"import cycle in the release package: {' -> '.join(cycle or [])}"


def test_a_planted_cycle_is_found_and_named(tmp_path):
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "sub" / "__init__.py").write_text("")
    (package / "low.py").write_text("import os\n")
    (package / "a.py").write_text("from pkg import low\n")
    (package / "sub" / "b.py").write_text("from pkg.a import thing\n")
    assert find_cycle(import_graph(package)) is None
    # a function-local import closing the loop, written relative: still a cycle
    (package / "a.py").write_text("from pkg import low\n\ndef f():\n    from .sub import b\n")
    assert find_cycle(import_graph(package)) == ["pkg.a", "pkg.sub.b", "pkg.a"]


# docs/jobs.md: a command parses flags, calls one jobs function and prints; no module is a
# whole subsystem. Counted as `wc -l` counts (newlines).
COMMAND_LINES, MODULE_LINES = 100, 600


def too_long(package: Path) -> list[str]:
    """``path: N lines`` for each commands/*.py of ``COMMAND_LINES`` lines or more, and each
    other module over ``MODULE_LINES``."""
    found = []
    for path in sorted(package.rglob("*.py")):
        lines = path.read_bytes().count(b"\n")
        if lines > (COMMAND_LINES - 1 if path.parent.name == "commands" else MODULE_LINES):
            found.append(f"{path.relative_to(package.parent)}: {lines} lines")
    return found


def test_every_command_module_is_under_100_lines_and_no_module_over_600():
    assert too_long(REPO / "release") == []


def test_a_long_command_or_module_is_named(tmp_path):
    package = tmp_path / "release"
    (package / "commands").mkdir(parents=True)
    (package / "jobs").mkdir()
    (package / "commands" / "ok.py").write_text("x = 1\n" * 99)
    (package / "commands" / "long.py").write_text("x = 1\n" * 100)
    (package / "jobs" / "ok.py").write_text("x = 1\n" * 600)
    (package / "jobs" / "long.py").write_text("x = 1\n" * 601)
    assert too_long(package) == ["release/commands/long.py: 100 lines", "release/jobs/long.py: 601 lines"]
