"""The README's two commands and CI stay in sync with what the repository has."""

from __future__ import annotations

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


def test_every_command_is_in_the_readme():
    from release.cli import COMMANDS
    text = (REPO / "README.md").read_text()
    for name in COMMANDS:
        assert f"release {name}" in text, name


def test_readme_maps_every_module_of_the_package():
    text = (REPO / "README.md").read_text()
    modules = sorted(p.stem for p in (REPO / "release").glob("*.py") if not p.stem.startswith("__"))
    missing = [m for m in modules if f"| `{m}` |" not in text]
    assert not missing, f"README's module map lacks {missing}"
