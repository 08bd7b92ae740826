"""Python interpreters on this machine, found for each Python a release carries.

Every plugin wheel (one per ``cp3XX``) is install-tested with an interpreter of its own
version, so one is looked for per version: the ones given with ``--python``, the running
one, ``python3.X`` on ``PATH``, then pyenv's installed versions (``$PYENV_ROOT/versions``,
default ``~/.pyenv``: its shims run only the selected version), then ``uv python find 3.X`` when
uv is installed. A candidate counts only when it runs and says it is that version (a pyenv shim
for a version that is not selected exits with an error, and is passed over). A version with no interpreter is reported
by the caller as untested, never skipped silently.
"""

from __future__ import annotations

import dataclasses
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Iterable, Sequence

from release.core.errors import UserError

_ASK = "import sys; print('%d.%d' % sys.version_info[:2]); print(sys.executable)"


@dataclasses.dataclass(frozen=True)
class Interpreter:
    path: str
    version: str  # "3.X"
    found_by: str  # "--python", "running", "PATH", "pyenv", "uv"


def probe(path: str, timeout: float = 60.0) -> str | None:
    """The ``3.X`` version of the interpreter at ``path``, or None when it does not run as one."""
    try:
        done = subprocess.run([path, "-c", _ASK], capture_output=True, text=True, timeout=timeout)
    except (OSError, subprocess.TimeoutExpired):
        return None
    lines = done.stdout.split()
    if done.returncode != 0 or not lines or not lines[0].startswith("3."):
        return None
    return lines[0]


def given(paths: Iterable[str | os.PathLike]) -> list[Interpreter]:
    """The interpreters named with ``--python``; a path that is not one is a one-line error."""
    found = []
    for raw in paths:
        where = f"--python {raw}"
        if os.sep not in str(raw):  # a name, looked up on PATH as a shell would
            raw = shutil.which(str(raw)) or raw
        path = Path(raw)
        if not path.exists():
            raise UserError(f"{where}: no such file; expected a Python 3 interpreter")
        if path.is_dir():
            raise UserError(f"{where}: is a directory; expected a Python 3 interpreter")
        if not os.access(path, os.X_OK):
            raise UserError(f"{where}: not executable; expected a Python 3 interpreter")
        version = probe(str(path))
        if version is None:
            raise UserError(f"{where}: does not run as Python 3; expected a Python 3 interpreter")
        found.append(Interpreter(str(path), version, "--python"))
    return found


def _running() -> Interpreter:
    return Interpreter(sys.executable, f"{sys.version_info[0]}.{sys.version_info[1]}", "running")


def find(version: str, *, explicit: Sequence[Interpreter] = (), search_path: str | None = None,
         use_running: bool = True) -> Interpreter | None:
    """An interpreter of ``version`` (``3.X``): explicit ones first, then the running one,
    ``python3.X`` on ``search_path`` (default ``$PATH``), pyenv installs, then ``uv python find``."""
    for interp in explicit:
        if interp.version == version:
            return interp
    if use_running and _running().version == version:
        return _running()
    path = os.environ.get("PATH", "") if search_path is None else search_path
    candidate = shutil.which(f"python{version}", path=path)
    if candidate and probe(candidate) == version:
        return Interpreter(candidate, version, "PATH")
    for candidate in _pyenv_installs(version):
        if probe(candidate) == version:
            return Interpreter(candidate, version, "pyenv")
    uv = shutil.which("uv", path=path)
    if uv:
        try:
            done = subprocess.run([uv, "python", "find", "--no-python-downloads", version],
                                  capture_output=True, text=True, timeout=60)
        except (OSError, subprocess.TimeoutExpired):
            return None
        where = done.stdout.strip()
        if done.returncode == 0 and where and probe(where) == version:
            return Interpreter(where, version, "uv")
    return None


def _pyenv_installs(version: str) -> list[str]:
    """``python3.X`` of every pyenv install of ``version``, newest patch release first."""
    root = Path(os.environ.get("PYENV_ROOT") or Path.home() / ".pyenv") / "versions"
    found = []
    for exe in root.glob(f"{version}.*/bin/python{version}"):
        patch = exe.parent.parent.name[len(version) + 1:]
        found.append((int(patch) if patch.isdigit() else -1, str(exe)))
    return [exe for _, exe in sorted(found, reverse=True)]
