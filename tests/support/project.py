"""A throw-away copy of this repository's two config files, for commands to run against."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
# The tests' release line, not released yet: its nightlies are 0.9.1.devYYYYMMDD. (The shipped
# version_info.json is on the real 0.9.1 line, whose release and post1-6 are public: 0.9.1.post7.)
FIXTURE_VERSION = "0.9.1"


def write_version_info(root: Path, version: str = FIXTURE_VERSION) -> Path:
    """The shipped version_info.json in ``root``, with ``version`` as the next version."""
    data = json.loads((REPO / "version_info.json").read_text(encoding="utf-8"))
    path = Path(root) / "version_info.json"
    path.write_text(json.dumps(data | {"version": version}, indent=2) + "\n", encoding="utf-8")
    return path


def copy_config(root: Path, version: str = FIXTURE_VERSION) -> Path:
    """The shipped deps.yaml (jax line 0.9.1) and version_info.json (``version``) in ``root``."""
    shutil.copy(REPO / "deps.yaml", Path(root) / "deps.yaml")
    write_version_info(root, version)
    return Path(root)


@pytest.fixture
def project_dir(tmp_path) -> Path:
    """A directory holding copies of the real deps.yaml and version_info.json (on the tests'
    unreleased line, ``FIXTURE_VERSION``)."""
    root = tmp_path / "proj"
    root.mkdir()
    return copy_config(root)
