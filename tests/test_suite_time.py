"""The suite's time is visible in every run: the tests that used the most CPU are listed (in one
process and from xdist workers alike), and a run over its budget warns without failing."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

# One test burns CPU in a child process and says how much the child used; one uses next to none.
TESTS = '''
import os, subprocess, sys

def test_burns_in_a_child():
    out = subprocess.run([sys.executable, "-c",
                          "import time\\nx = 0\\nfor i in range(2_000_000): x += i\\n"
                          "print(time.process_time())"], capture_output=True, text=True, check=True)
    with open(os.environ["CHILD_CPU_FILE"], "w") as f:
        f.write(out.stdout)

def test_idle():
    pass

def test_fails():
    assert False
'''


def run_pytest(tmp_path: Path, *args: str) -> tuple[subprocess.CompletedProcess, str]:
    (tmp_path / "test_inner.py").write_text(TESTS)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "GITHUB_"))}
    env["PYTHONPATH"] = str(REPO)
    env["CHILD_CPU_FILE"] = str(tmp_path / "child-cpu")
    proc = subprocess.run([sys.executable, "-m", "pytest", "-p", "tests.support.suite_time", "-p", "no:cacheprovider",
                           "--rootdir", str(tmp_path), "--basetemp", str(tmp_path / "base"), *args,
                           str(tmp_path / "test_inner.py")],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    return proc, proc.stdout


def cpu_rows(out: str) -> list[tuple[float, str]]:
    return [(float(s), name) for s, name in re.findall(r"^(\d+\.\d\d)s cpu  (\S+)$", out, re.M)]


def test_the_most_cpu_comes_first_with_the_childs_time_and_an_over_budget_run_only_warns(tmp_path):
    proc, out = run_pytest(tmp_path, "-n", "0", "--cpu-durations=2", "--suite-budget=0")
    assert proc.returncode == 1, out  # the failing test decides the status, not the budget
    rows = cpu_rows(out)
    assert [name.split("::")[1] for _, name in rows] == ["test_burns_in_a_child", rows[1][1].split("::")[1]]
    assert len(rows) == 2  # N rows, of 3 tests
    child = float((tmp_path / "child-cpu").read_text())
    assert rows[0][0] >= child - 0.01 > 0  # the child's CPU is the test's
    assert re.search(r"most CPU \(\d+\.\ds over 3 tests\)", out)
    [warning] = [line for line in out.splitlines() if "budget" in line]
    assert re.fullmatch(r"warning: suite time: the run took \d+s, over its budget of 0s: .*", warning)
    assert "::warning" not in out  # only in GitHub Actions


def test_workers_send_their_cpu_and_a_run_within_budget_says_nothing(tmp_path):
    proc, out = run_pytest(tmp_path, "-n", "2", "--cpu-durations=0", "--suite-budget=3600")
    assert proc.returncode == 1, out
    rows = cpu_rows(out)
    assert sorted(name.split("::")[1] for _, name in rows) == ["test_burns_in_a_child", "test_fails", "test_idle"]
    assert rows[0][1].endswith("::test_burns_in_a_child")
    assert rows[0][0] >= float((tmp_path / "child-cpu").read_text()) - 0.01
    assert "budget" not in out

