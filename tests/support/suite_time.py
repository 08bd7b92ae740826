"""Where the suite's time goes, in every log: the CPU each test used and a budget for the whole run.

Wall durations (pytest's ``--durations``) grow with whatever else the machine runs; CPU time
does not, so it is what to compare between runs and what to cut. ``--cpu-durations=N`` lists
the N tests that used the most CPU: this process's and its finished subprocesses' (pip, git,
gcc, ``python -m release``, the warm ones' from their zygote: tests/support/warm_start.py),
setup and teardown included, measured where the test ran (an xdist worker sends it along with
its report). A server a session fixture started is counted
in the test after which it stops.

``--suite-budget=SECONDS`` warns, and does not fail, when the run took longer than that wall
time: one line at the end (and a ``::warning::`` annotation in GitHub Actions), so a suite
creeping towards CI's limit is seen before it is hit. ``scripts/test`` passes both.
"""

from __future__ import annotations

import os
import resource
import time

import pytest

from tests.support import warm_start

CPU_KEY = "cpu_seconds"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("suite time")
    group.addoption("--cpu-durations", type=int, default=None, metavar="N",
                    help="list the N tests that used the most CPU (0: all)")
    group.addoption("--suite-budget", type=float, default=None, metavar="SECONDS",
                    help="warn (exit status unchanged) when the run's wall time exceeds SECONDS")


def _cpu_seconds() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime + warm_start.served_cpu()


class SuiteTime:
    def __init__(self, config: pytest.Config):
        self.config = config
        self.started = time.monotonic()
        self.cpu: dict[str, float] = {}

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item):
        item.stash[_START] = _cpu_seconds()
        yield

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_teardown(self, item: pytest.Item):
        yield
        start = item.stash.get(_START, None)
        if start is not None:  # the teardown report, made after this, carries the test's CPU
            item.user_properties.append((CPU_KEY, _cpu_seconds() - start))

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when == "teardown":
            for key, value in report.user_properties:
                if key == CPU_KEY:
                    self.cpu[report.nodeid] = float(value)

    def pytest_terminal_summary(self, terminalreporter) -> None:
        count = self.config.getoption("cpu_durations")
        if count is not None and self.cpu:
            ranked = sorted(self.cpu.items(), key=lambda kv: (-kv[1], kv[0]))
            shown = ranked if count == 0 else ranked[:count]
            terminalreporter.write_sep("=", f"most CPU ({sum(self.cpu.values()):.1f}s over "
                                            f"{len(self.cpu)} tests)")
            for nodeid, seconds in shown:
                terminalreporter.write_line(f"{seconds:.2f}s cpu  {nodeid}")
        budget = self.config.getoption("suite_budget")
        elapsed = time.monotonic() - self.started
        if budget is not None and elapsed > budget:
            line = (f"suite time: the run took {elapsed:.0f}s, over its budget of {budget:.0f}s: "
                    "see the slowest and most CPU above")
            terminalreporter.write_line(f"warning: {line}", yellow=True, bold=True)
            if os.environ.get("GITHUB_ACTIONS") == "true":
                terminalreporter.write_line(f"::warning title=suite time::{line}")


_START = pytest.StashKey[float]()


def pytest_configure(config: pytest.Config) -> None:
    config.pluginmanager.register(SuiteTime(config), "suite-time")
