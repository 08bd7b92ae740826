"""A throw-away copy of this repository's two config files, for commands to run against."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def project_dir(tmp_path) -> Path:
    """A directory holding copies of the real deps.yaml and version_info.json."""
    root = tmp_path / "proj"
    root.mkdir()
    for name in ("deps.yaml", "version_info.json"):
        shutil.copy(REPO / name, root / name)
    return root
