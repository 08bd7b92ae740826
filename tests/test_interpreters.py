"""Finding an interpreter per Python version: pyenv's installs are looked at directly, since
its shims run only the selected version."""

from __future__ import annotations

import sys

from release.check import interpreters

HERE = f"{sys.version_info[0]}.{sys.version_info[1]}"


def _pyenv_install(root, name):
    """A pyenv-shaped install ``versions/<name>/bin/python3.X`` that is this real interpreter."""
    exe = root / "versions" / name / "bin" / f"python{HERE}"
    exe.parent.mkdir(parents=True)
    exe.symlink_to(sys.executable)
    return exe


def test_a_pyenv_install_is_found_when_path_has_none(tmp_path, monkeypatch):
    monkeypatch.setenv("PYENV_ROOT", str(tmp_path))
    _pyenv_install(tmp_path, f"{HERE}.2")
    newest = _pyenv_install(tmp_path, f"{HERE}.10")   # 10 > 2: compared as a number
    found = interpreters.find(HERE, use_running=False, search_path="")
    assert found == interpreters.Interpreter(str(newest), HERE, "pyenv")


def test_a_pyenv_install_that_does_not_run_is_passed_over(tmp_path, monkeypatch):
    monkeypatch.setenv("PYENV_ROOT", str(tmp_path))
    broken = tmp_path / "versions" / f"{HERE}.99" / "bin" / f"python{HERE}"
    broken.parent.mkdir(parents=True)
    broken.write_text("#!/bin/sh\nexit 1\n")
    broken.chmod(0o755)
    good = _pyenv_install(tmp_path, f"{HERE}.1")
    assert interpreters.find(HERE, use_running=False, search_path="").path == str(good)


def test_no_interpreter_anywhere_is_none(tmp_path, monkeypatch):
    monkeypatch.setenv("PYENV_ROOT", str(tmp_path))
    assert interpreters.find(HERE, use_running=False, search_path="") is None
