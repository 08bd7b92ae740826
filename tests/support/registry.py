"""The package registry for tests marked ``network``: skip them cleanly when it is unreachable.

Whether it is reachable is asked once per session, and only when a ``network`` test is about to
run, by asking pip (with a short timeout and no retries) for the versions of the PJRT wheel.
Set ``RELEASE_TESTS_OFFLINE=1`` to skip them without asking. The published jax-rocm7 wheels are
downloaded once per session, by pip, into a session temporary directory.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

PUBLISHED = ("jax-rocm7-pjrt", "jax-rocm7-plugin")
PUBLISHED_VERSION = "0.10.2"
_reachable: bool | None = None


def _pip(*args: str, timeout: float) -> subprocess.CompletedProcess | None:
    env = dict(os.environ, PIP_DISABLE_PIP_VERSION_CHECK="1")
    try:
        return subprocess.run([sys.executable, "-m", "pip", *args, "--timeout", "10",
                               "--retries", "0"], capture_output=True, text=True, timeout=timeout,
                              env=env)
    except subprocess.TimeoutExpired:
        return None


def registry_reachable() -> bool:
    global _reachable
    if _reachable is None:
        if os.environ.get("RELEASE_TESTS_OFFLINE"):
            _reachable = False
        else:
            proc = _pip("index", "versions", PUBLISHED[0], timeout=30)
            _reachable = proc is not None and proc.returncode == 0 and PUBLISHED_VERSION in proc.stdout
    return _reachable


def pytest_runtest_setup(item):
    if item.get_closest_marker("network") and not registry_reachable():
        pytest.skip("package registry unreachable (test marked network)")


@pytest.fixture(scope="session")
def published_wheels(tmp_path_factory) -> dict[str, Path]:
    """The published jax-rocm7 0.10.2 wheels (PJRT, and the plugin for Python 3.11)."""
    if not registry_reachable():
        pytest.skip("package registry unreachable")
    dest = tmp_path_factory.mktemp("published")
    proc = _pip("download", "--no-deps", "--only-binary=:all:", "--python-version", "3.11",
                "--platform", "manylinux_2_27_x86_64", "--dest", str(dest),
                *(f"{name}=={PUBLISHED_VERSION}" for name in PUBLISHED), timeout=900)
    if proc is None or proc.returncode != 0:
        pytest.skip("could not download the published wheels: "
                    + ((proc.stderr.strip().splitlines() or ["timeout"])[-1] if proc else "timeout"))
    found = {}
    for name in PUBLISHED:
        prefix = name.replace("-", "_") + f"-{PUBLISHED_VERSION}-"
        found[name.rsplit("-", 1)[1]] = next(dest.glob(prefix + "*.whl"))
    return found
