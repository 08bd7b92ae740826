"""``./scripts/test``'s steps, run against stand-in tools (the real ones take minutes): what
overlaps (npm beside pip, mypy beside pytest's one collection), that a failing step still
stops the run with its own status and output, that a second run skips what the first
installed, and that arguments reach both pytest runs."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "test"

# Each stand-in appends its argv to calls.log. npm waits for pip to have started, and mypy for the
# collection: were the steps run one after the other, each would give up after its deadline and fail.
WAIT_FOR = r'''wait_for() { for _ in $(seq 600); do [ -e "$1" ] && return 0; sleep 0.1; done
  echo "$2 ran alone: $1 never appeared" >&2; exit 97; }'''
STUBS = {
    "git": "exit 0", "gcc": "exit 0", "shellcheck": "exit 0", "chromium": "exit 0",
    "npm": WAIT_FOR + '''
echo "npm $*" >> "$LOG"; wait_for "$MARKS/pip" npm
echo "npm says: ${NPM_SAYS:-}" >&2; exit "${NPM_STATUS:-0}"''',
    "python3": r'''
case "$1" in
  -c) exit 0 ;;
  --version) echo "Python 3.0.stand-in" ;;
  -m) echo "python3 $*" >> "$LOG"; mkdir -p .venv/bin
      for tool in python ruff mypy; do cp "$STUBS/venv-$tool" ".venv/bin/$tool"; done ;;
esac''',
    "venv-python": WAIT_FOR + r'''
echo "python $*" >> "$LOG"
case "$*" in
  "-m pip install --quiet -e .[test]") touch "$MARKS/pip"; exit "${PIP_STATUS:-0}" ;;
  *"--collect-only"*) touch "$MARKS/collect"; wait_for "$MARKS/mypy" collection ;;
esac
exit 0''',
    "venv-ruff": 'echo "ruff $*" >> "$LOG"',
    "venv-mypy": WAIT_FOR + r'''
echo "mypy $*" >> "$LOG"; touch "$MARKS/mypy"; wait_for "$MARKS/collect" mypy
echo "release/x.py:1: error: ${MYPY_SAYS:-}"; exit "${MYPY_STATUS:-0}"''',
}


@pytest.fixture
def checkout(tmp_path):
    """A checkout holding scripts/test and pyproject.toml, and the stand-ins first on PATH."""
    root = tmp_path / "repo"
    (root / "scripts").mkdir(parents=True)
    shutil.copy(SCRIPT, root / "scripts" / "test")
    (root / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    stubs = tmp_path / "stubs"
    stubs.mkdir()
    for name, body in STUBS.items():
        (stubs / name).write_text("#!/bin/bash\n" + body + "\n")
        (stubs / name).chmod(0o755)

    def run(*args: str, **env: str) -> tuple[subprocess.CompletedProcess, list[str]]:
        marks = tmp_path / "marks"
        shutil.rmtree(marks, ignore_errors=True)
        marks.mkdir()
        log = tmp_path / "calls.log"
        log.unlink(missing_ok=True)
        proc = subprocess.run(["bash", str(root / "scripts" / "test"), *args], capture_output=True, text=True,
                              env={"PATH": f"{stubs}:/usr/bin:/bin", "HOME": str(tmp_path), "LOG": str(log),
                                   "MARKS": str(marks), "STUBS": str(stubs), **env})
        return proc, log.read_text().splitlines() if log.exists() else []

    run.root = root
    return run


def test_every_step_runs_and_arguments_reach_the_collection_and_the_run(checkout):
    proc, calls = checkout("-k", "x y", "-n", "0", NPM_SAYS="a warning")
    assert proc.returncode == 0, proc.stderr
    assert "npm says: a warning" in proc.stderr  # what npm printed is shown
    assert "release/x.py:1: error:" in proc.stdout  # and mypy's output
    pytests = [c for c in calls if c.startswith("python -m pytest")]
    assert len(pytests) == 2 and "--collect-only" in pytests[0]
    assert all("-k x y -n 0" in c for c in pytests), pytests
    assert pytests[1].endswith("-k x y -n 0")  # the run last, with the arguments as given
    assert calls[-1] == pytests[1]


@pytest.mark.parametrize("tool", ["mypy", "npm", "pip"])
def test_a_failing_step_stops_the_run_with_its_status_and_output(checkout, tool):
    proc, calls = checkout("-k", "x", **{f"{tool.upper()}_STATUS": "3", f"{tool.upper()}_SAYS": "it broke"})
    assert proc.returncode == 3, proc.stderr
    assert not any(c.startswith("python -m pytest") and "--collect-only" not in c for c in calls), calls
    if tool != "pip":
        assert f"{tool} says: it broke" in proc.stderr or "error: it broke" in proc.stdout


def test_a_second_run_installs_nothing_until_pyproject_changes(checkout):
    first, calls = checkout()
    assert first.returncode == 0, first.stderr
    assert any(c.startswith("npm install") for c in calls) and "python -m pip install --quiet -e .[test]" in calls
    second, calls = checkout()
    assert second.returncode == 0, second.stderr
    assert not any("pip" in c or c.startswith("npm") or c.startswith("python3 -m venv") for c in calls), calls
    assert "up to date" in second.stderr and "are installed" in second.stderr
    (checkout.root / "pyproject.toml").write_text("[project]\nname = 'y'\n")
    third, calls = checkout()
    assert third.returncode == 0, third.stderr
    assert "python -m pip install --quiet -e .[test]" in calls and not any(c.startswith("npm") for c in calls)
