"""What a session fixture builds from nothing, built once for the whole run, not once per worker.

Each xdist worker is its own process with its own session fixtures, and what one compiles or
generates (ELF objects, wheels, git histories) is the same bytes in every worker. ``built_once``
builds it under the run's base temporary directory, which the workers share, behind a file lock:
the first worker to ask builds it (into a directory of its own, renamed into place when whole, so
a worker that died midway leaves nothing another would read), the others wait and read it. What
it builds is read-only to the tests, as a session fixture's result always was: a test that
writes takes its own copy.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest


def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The run's base temporary directory: a worker's is ``<the run's>/popen-gwN``."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def built_once(tmp_path_factory: pytest.TempPathFactory, name: str, build: Callable[[Path], Any]) -> Any:
    """``build(directory)`` fills an empty directory and returns what the fixture hands out (paths
    under it, in dicts and lists, with strings and numbers); every caller in the run gets that
    value, with its paths under the one directory built."""
    root = run_dir(tmp_path_factory) / "built-once"
    root.mkdir(exist_ok=True)
    done = root / name
    with open(root / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not done.is_dir():
            work = root / f"{name}.building-{os.getpid()}"
            shutil.rmtree(work, ignore_errors=True)
            work.mkdir(exist_ok=True)
            (work / ".built.json").write_text(json.dumps(_encode(build(work), work)))
            os.rename(work, done)
    return _decode(json.loads((done / ".built.json").read_text()), done)


def _encode(value: Any, base: Path) -> Any:
    if isinstance(value, Path):
        return {"path": str(value.relative_to(base))}
    if isinstance(value, dict):
        return {"dict": {k: _encode(v, base) for k, v in value.items()}}
    if isinstance(value, (list, tuple)):
        return {"list": [_encode(v, base) for v in value]}
    return {"value": value}


def _decode(value: dict, base: Path) -> Any:
    if "path" in value:
        return base / value["path"]
    if "dict" in value:
        return {k: _decode(v, base) for k, v in value["dict"].items()}
    if "list" in value:
        return [_decode(v, base) for v in value["list"]]
    return value["value"]
