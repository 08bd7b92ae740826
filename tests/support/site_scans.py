"""A scan of a site's tree (``release.publish.staging._files``) reads each folder of that tree once
and nothing outside it: ``check_scans`` checks that rule around every scan a test makes.

A scan that read the working directory, or one folder again and again, would otherwise run until
the machine's memory is spent (its list of folders to read never empties); checked, the first
wrong read fails the test at once.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from release.publish import staging


def check_scans(monkeypatch: pytest.MonkeyPatch) -> None:
    """Until the test ends, every scan of a tree fails at its first read of a folder outside the
    tree or of one it already read."""
    scan = staging._files

    def checked(root: Path) -> dict[str, int] | None:
        top = os.path.realpath(root)
        read: set[str] = set()
        scandir = os.scandir

        def read_once(path: str | None = None):  # os.scandir(None) is the working directory
            where = os.path.realpath(path if path is not None else os.curdir)
            if path is None or not (where == top or where.startswith(top + os.sep)):
                raise AssertionError(f"a scan of {root} read {path!r}, outside its tree")
            if where in read:
                raise AssertionError(f"a scan of {root} read {path} twice")
            read.add(where)
            return scandir(path)

        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(os, "scandir", read_once)
            return scan(root)

    monkeypatch.setattr(staging, "_files", checked)


@pytest.fixture(autouse=True)
def each_scan_reads_its_tree_once():
    """Autouse in a test file that imports it: every scan its tests make is checked (above), so a
    scan that does not read its tree once a folder fails that test at once, never hangs it."""
    with pytest.MonkeyPatch.context() as patch:
        check_scans(patch)
        yield
