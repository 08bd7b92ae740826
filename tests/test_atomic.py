"""The one atomic-write helper: a file is replaced whole or not at all, and durably."""

from __future__ import annotations

import os
import stat

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from release.core import atomic
from release.core.atomic import atomic_write


@settings(max_examples=30, derandomize=True, deadline=None)
@given(old=st.binary(max_size=2000), new=st.one_of(st.binary(max_size=5000), st.text(max_size=500)))
def test_the_file_holds_exactly_the_new_content_and_nothing_is_left_beside_it(tmp_path_factory, old, new):
    folder = tmp_path_factory.mktemp("w")
    path = folder / "state.json"
    path.write_bytes(old)
    atomic_write(path, new)
    assert path.read_bytes() == (new.encode("utf-8") if isinstance(new, str) else new)
    assert os.listdir(folder) == ["state.json"]


def test_a_write_that_fails_midway_leaves_the_old_file_and_no_temp(tmp_path, monkeypatch):
    path = tmp_path / "deps.yaml"
    path.write_text("old\n")

    def broken(_fd):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(atomic.os, "fsync", broken)
    with pytest.raises(OSError, match="No space"):
        atomic_write(path, "new\n")
    assert path.read_text() == "old\n" and os.listdir(tmp_path) == ["deps.yaml"]


def test_the_data_and_the_rename_reach_the_disk(tmp_path, monkeypatch):
    """fsync of the file before the rename, and of the directory after it."""
    synced: list[str] = []
    real = os.fsync

    def record(fd):
        mode = os.fstat(fd).st_mode
        synced.append("dir" if stat.S_ISDIR(mode) else "file")
        real(fd)
    monkeypatch.setattr(atomic.os, "fsync", record)
    atomic_write(tmp_path / "x", "y")
    assert synced == ["file", "dir"]


def test_permissions_are_kept_and_a_new_file_is_world_readable(tmp_path):
    kept = tmp_path / "script.sh"
    kept.write_text("#!/bin/sh\n")
    kept.chmod(0o750)
    atomic_write(kept, "#!/bin/sh\necho\n")
    assert stat.S_IMODE(kept.stat().st_mode) == 0o750
    fresh = tmp_path / "new.json"
    atomic_write(fresh, "{}")
    assert stat.S_IMODE(fresh.stat().st_mode) == 0o644
