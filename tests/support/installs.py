"""Real installs into fresh venvs with pip and with uv, as users run them; no user config is read.

``pip_install(tmp_path, index_url, *args, name=)`` and ``uv_install(...)`` return
``(returncode, {dist: version}, stderr)``; ``uv_bin()`` is the uv of the test extras (skips without one).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import venv
from pathlib import Path

import pytest

from release.check.resolver import pip_argv


def uv_bin() -> str:
    try:
        import uv
        return uv.find_uv_bin()
    except (ImportError, FileNotFoundError):
        found = shutil.which("uv")
        if found:
            return found
    pytest.skip("uv is not installed (it is in the test extras: pip install -e '.[test]')")


def _fresh_venv(tmp_path: Path, name: str) -> Path:
    env_dir = tmp_path / name
    venv.EnvBuilder(with_pip=False).create(env_dir)
    return env_dir / "bin" / "python"


def installed(py: Path) -> dict[str, str]:
    """``{distribution: version}`` the venv of interpreter ``py`` holds: the metadata in its
    site-packages, read as its own ``importlib.metadata`` reads it (no interpreter started to ask
    for it, a seventh of a CPU-second each time; a venv laid out otherwise is asked)."""
    import importlib.metadata
    sites = sorted(Path(py).parent.parent.glob("lib/python3*/site-packages"))
    if sites:
        return {d.metadata["Name"]: d.version for d in importlib.metadata.distributions(path=list(map(str, sites)))}
    got = subprocess.run([str(py), "-c", "import json, importlib.metadata as m; print(json.dumps("
                          "{d.metadata['Name']: d.version for d in m.distributions()}))"],
                         capture_output=True, text=True, check=True)
    return json.loads(got.stdout)


def pip_install(tmp_path: Path, url: str, *args: str, name: str = "env") -> tuple[int, dict, str]:
    py = _fresh_venv(tmp_path, name)
    env = {**os.environ, "PIP_CONFIG_FILE": os.devnull}
    proc = subprocess.run([*pip_argv(py), "install", "--no-cache-dir",
                           "--disable-pip-version-check", "--index-url", url, *args],
                          capture_output=True, text=True, env=env, timeout=300)
    if proc.returncode:
        return proc.returncode, {}, proc.stderr
    return 0, installed(py), proc.stderr


def uv_install(tmp_path: Path, url: str, *args: str, name: str = "uvenv") -> tuple[int, dict, str]:
    py = _fresh_venv(tmp_path, name)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("UV_", "PIP_"))}
    env.update(UV_NO_CONFIG="1", UV_CACHE_DIR=str(tmp_path / "uv-cache"), UV_PYTHON_DOWNLOADS="never")
    proc = subprocess.run([uv_bin(), "pip", "install", "--python", str(py), "--index-url", url, *args],
                          capture_output=True, text=True, env=env, timeout=300)
    if proc.returncode:
        return proc.returncode, {}, proc.stderr
    return 0, installed(py), proc.stderr


# ---------------------------------------------------------------- stand-in jax and jaxlib of a line


def needs_uv():
    """A mark for a module whose installs run uv too: skipped where uv is missing."""
    from release.check.user_install import find_uv
    return pytest.mark.skipif(find_uv() is None, reason="uv is not installed (it is in the test extras)")


def jax_stand_ins(directory: Path, line: str, *, local: tuple[int, ...] = (),
                  with_rocm: tuple[int, ...] = ()) -> list[Path]:
    """jax of ``line`` (requiring jaxlib of its version) and jaxlib, as installable wheels. jax offers,
    as jax's setup.py: ``rocmN-local`` for each N of ``local`` (jaxlib and that major's plugin of the
    line) and ``rocmN`` for each N of ``with_rocm`` (jaxlib and the plugin with its ``with-rocm`` extra)."""
    from release.core import naming
    from tests.support.publish_dist import write_wheel
    directory.mkdir(parents=True, exist_ok=True)
    extras = {**{f"rocm{m}-local": f"{naming.plugin_dist(m)}=={line}.*" for m in local},
              **{f"rocm{m}": f"{naming.plugin_dist(m)}[with-rocm]=={line}.*" for m in with_rocm}}
    requires = [f"jaxlib=={line}"] + [r for extra, plugin in extras.items() for r in (
        f'jaxlib=={line}; extra == "{extra}"', f'{plugin}; extra == "{extra}"')]
    return [write_wheel(directory / f"jax-{line}-py3-none-any.whl", "jax", line, "py3-none-any",
                        {"jax/__init__.py": f"__version__ = {line!r}\n"}, requires=requires,
                        provides_extra=tuple(extras)),
            write_wheel(directory / f"jaxlib-{line}-py3-none-any.whl", "jaxlib", line, "py3-none-any",
                        {"jaxlib/__init__.py": f"__version__ = {line!r}\n"})]
