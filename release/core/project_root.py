"""Where the project is: the nearest directory holding both of its files, found without reading
them (so a command that only needs the place, such as the index of a store, loads no YAML)."""

from __future__ import annotations

from pathlib import Path

from release.core.errors import UserError

DEPS_FILE = "deps.yaml"
VERSION_FILE = "version_info.json"


def default_workspace(root: Path) -> Path:
    """Where Bazel builds in the checkouts ``release fetch-sources`` makes, unless told."""
    return Path(root) / "workspace"


def find_root(start: Path | None = None) -> Path:
    """The nearest directory at or above ``start`` holding both files (as git finds its root)."""
    here = Path(start or Path.cwd()).resolve()
    for candidate in (here, *here.parents):
        if (candidate / DEPS_FILE).is_file() and (candidate / VERSION_FILE).is_file():
            return candidate
    raise UserError(f"no {DEPS_FILE} and {VERSION_FILE} found in {here} or any parent; "
                    "run inside the release repository or pass --root DIR")
