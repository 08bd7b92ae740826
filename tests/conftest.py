"""Shared fixtures. Support modules register here as pytest plugins."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from tests.support import deferred_iri, deferred_settings, warm_start

deferred_iri.install()  # before anything imports jsonschema (its IRI grammar: ~2 CPU-s a process)
deferred_settings.install()  # before anything imports openapi-core (pydantic-settings: ~0.18 CPU-s a process)

REPO = Path(__file__).resolve().parents[1]

pytest_plugins = [
    "tests.support.project",
    "tests.support.build",
    "tests.support.gitrepos",
    "tests.support.fake_github",
    "tests.support.publish_dist",
    "tests.support.crafted",
    "tests.support.registry",
    "tests.support.suite_time",
    "tests.support.json_schemas",
]


# Property-based and fuzz tests: a fixed, small budget in CI (derandomized: the same examples
# every run); `pytest --hypothesis-profile=long` spends a larger one by hand.
settings.register_profile("ci", derandomize=True, max_examples=30, deadline=None, database=None,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
settings.register_profile("long", max_examples=2000, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
settings.load_profile("ci")

NOW = "2026-11-22T03:00:00Z"


def pytest_unconfigure(config):
    warm_start.stop()  # this process's zygote, if a test started one


@pytest.fixture(autouse=True)
def _secrets_stay_in_their_test(monkeypatch):
    """Secrets a test registers (release.core.redact masks them everywhere after) are forgotten
    when it ends: a generated token such as "000000000000" would otherwise mask a later test's SHAs."""
    from release.core import redact
    monkeypatch.setattr(redact, "_SECRETS", set(redact._SECRETS))


@pytest.fixture(autouse=True)
def _no_fsync_outside_test_atomic(request, monkeypatch):
    """fsync makes a write survive a power cut, which no test can cut: tests/test_atomic.py holds
    that rule (the file and then its directory are synced) with the real call. Elsewhere, in this
    process, each call only waits for the disk (milliseconds on a busy one; a test that
    publishes a season makes thousands), so it is a no-op there."""
    if request.path.name != "test_atomic.py":
        monkeypatch.setattr(os, "fsync", _no_fsync)


def _no_fsync(fd: int) -> None:
    os.fstat(fd)  # a closed or bad descriptor still fails as fsync would fail on it


@pytest.fixture(autouse=True)
def fixed_clock(monkeypatch):
    """The run's clock is an input (``$RELEASE_NOW``): no test reads the wall clock through
    the tool, in process or in the subprocesses it starts. A test that needs another day
    sets it again."""
    monkeypatch.setenv("RELEASE_NOW", NOW)
    return NOW


@pytest.fixture(autouse=True)
def _no_public_index(monkeypatch):
    """Tests never ask the real public index: validate resolves against the draft's index
    alone and status/nightly say the check was skipped, unless a test names a local index."""
    monkeypatch.setenv("RELEASE_PUBLIC_INDEX", "none")


@pytest.fixture
def run_cli(monkeypatch, capsys):
    """Run ``release ...`` in-process; returns (exit code, stdout, stderr)."""
    from release.cli import main

    def run(*argv, cwd=None):
        if cwd is not None:
            monkeypatch.chdir(cwd)
        try:
            code = main([str(a) for a in argv])
        except SystemExit as exc:  # argparse
            code = exc.code
        captured = capsys.readouterr()
        return code, captured.out, captured.err

    return run


@pytest.fixture
def release_subprocess():
    """Run ``python -m release ...`` as a real process (what CI and people run), started warm
    (tests/support/warm_start.py)."""

    def run(*argv, cwd=None, env=None, check=False):
        return subprocess.run([warm_start.python(), "-m", "release", *map(str, argv)], cwd=cwd, env=env,
                              capture_output=True, text=True, check=check)

    return run


def have(tool: str) -> bool:
    return shutil.which(tool) is not None
