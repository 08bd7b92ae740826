"""Start-up a person does not notice: a command imports what it uses, when it runs.

Counted, not timed (a loaded machine times anything): the modules a run leaves in
``sys.modules``, in a fresh interpreter.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

PROBE = """
import json, sys
from release.cli import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
print(json.dumps(sorted(sys.modules)), file=sys.__stderr__)
"""
HEAVY = ("rich", "requests", "urllib3", "yaml", "git", "packaging", "http", "filelock")


def modules_after(*argv: str, cwd=None) -> set[str]:
    proc = subprocess.run([sys.executable, "-c", PROBE, *argv], capture_output=True, text=True,
                          cwd=cwd)
    return set(json.loads(proc.stderr.strip().splitlines()[-1]))


def bare_interpreter() -> set[str]:
    proc = subprocess.run([sys.executable, "-c", "import sys, json; print(json.dumps(list(sys.modules)))"],
                          capture_output=True, text=True, check=True)
    return set(json.loads(proc.stdout))


def heavy(modules: set[str]) -> list[str]:
    return sorted({m.split(".")[0] for m in modules} & set(HEAVY))


def test_help_lists_the_commands_without_importing_any_of_their_work():
    """514 modules (0.33 s) before: every command's flags and everything they import."""
    modules = modules_after("--help")
    assert not heavy(modules), heavy(modules)
    assert len(modules - bare_interpreter()) <= 80, len(modules - bare_interpreter())


@pytest.mark.parametrize("command", ["nightly", "cut", "status", "validate", "verify", "gc"])
def test_a_commands_help_loads_no_http_or_git_stack(command):
    modules = modules_after(command, "--help")
    assert not {"requests", "urllib3", "git", "rich"} & {m.split(".")[0] for m in modules}


def test_status_json_draws_no_table(project_dir):
    """status --json printed JSON but imported rich's tables."""
    modules = modules_after("status", "--offline", "--json", cwd=project_dir)
    assert "release.commands.status" in modules
    assert not {m for m in modules if m.split(".")[0] == "rich"}
