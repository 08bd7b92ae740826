"""Where the project is: the nearest directory holding both of its files, found without reading
them (so a command that only needs the place, such as the index of a store, loads no YAML)."""

from __future__ import annotations

import os
from pathlib import Path

from release.core.errors import UserError

DEPS_FILE = "deps.yaml"
VERSION_FILE = "version_info.json"
CACHE_ENV = "JAX_ROCM_RELEASE_CACHE"


def default_workspace(root: Path) -> Path:
    """Where Bazel builds in the checkouts ``release fetch-sources`` makes, unless told."""
    return Path(root) / "workspace"


def cache_dir(root: Path) -> Path:
    """Where mirrors live: ``$JAX_ROCM_RELEASE_CACHE`` or ``<root>/.cache/git``."""
    env = os.environ.get(CACHE_ENV)
    return Path(env) if env else Path(root) / ".cache" / "git"


def find_root(start: Path | None = None) -> Path:
    """The nearest directory at or above ``start`` holding both files (as git finds its root)."""
    here = Path(start or Path.cwd()).resolve()
    for candidate in (here, *here.parents):
        if (candidate / DEPS_FILE).is_file() and (candidate / VERSION_FILE).is_file():
            return candidate
    raise UserError(f"no {DEPS_FILE} and {VERSION_FILE} found in {here} or any parent; "
                    "run inside the release repository or pass --root DIR")
