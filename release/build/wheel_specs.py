"""What each wheel is made of: ``jax_rocm_plugin/wheels.json``, read once, for Bazel and the packer.

The manifest names, per wheel (``pjrt``, ``plugin``), the Bazel targets and which file each
becomes inside the package (``Output``), the Python files copied in, the metadata
(summary, requirements, extras, entry points), and whether the wheel is built once per
Python. ``release.build.bazel`` builds the outputs it lists and ``release.build.wheels`` packs them;
both read it from here, so neither imports the other.

    plugin_dir(root=None) -> Path           # jax_rocm_plugin/ of root, else the shipped one
    load_specs(root=None) -> {"pjrt": WheelSpec, "plugin": WheelSpec}
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import stat
from pathlib import Path
from typing import Any

from release.core import regular
from release.core.errors import UserError

PLUGIN_DIR = "jax_rocm_plugin"
BAZELRC = ".bazelrc"
MANIFEST = "wheels.json"
KINDS = ("pjrt", "plugin")
MANIFEST_LIMIT = 1 << 20
PYTHON_FILE_LIMIT = 1 << 20  # a plugin's __init__.py or version.py; a bigger one is not source
_PART = re.compile(r"[A-Za-z0-9_.-]+", re.ASCII)


def plugin_dir(root: Path | None = None) -> Path:
    """``jax_rocm_plugin/`` of ``root`` if it has one, else the one shipped with this tool.

    It holds the Bazel configs (``.bazelrc``) and the wheel manifest (``wheels.json``).
    """
    if root is not None and (Path(root) / PLUGIN_DIR / BAZELRC).is_file():
        return Path(root).resolve() / PLUGIN_DIR
    return Path(__file__).resolve().parents[2] / PLUGIN_DIR


@dataclasses.dataclass(frozen=True)
class Output:
    """One Bazel output that becomes one file of a wheel."""

    target: str
    output: str    # basename cquery reports
    file: str      # name inside the wheel's package directory


@dataclasses.dataclass(frozen=True)
class WheelSpec:
    """One wheel as ``wheels.json`` describes it (``Requires-Python`` comes from the Bazel
    configs instead: ``release.build.bazel.requires_python``)."""

    kind: str
    per_python: bool
    summary: str
    outputs: tuple[Output, ...]
    python_files: tuple[tuple[Path, str], ...]   # (source, name in the package)
    entry_points: dict[str, dict[str, str]]
    requires: tuple[str, ...]
    extras: dict[str, list[str]]

    @property
    def so_files(self) -> tuple[str, ...]:
        return tuple(o.file for o in self.outputs)


def load_specs(root: Path | None = None) -> dict[str, WheelSpec]:
    """Both wheels' specs from ``plugin_dir(root)/wheels.json``; a bad manifest is one line."""
    base = plugin_dir(root)
    path = base / MANIFEST
    try:
        data: Any = json.loads(regular.read_text(path, MANIFEST_LIMIT))
    except regular.NotRegular as exc:
        raise UserError(f"{path}: cannot read the wheel manifest (it {exc.reason})") from None
    except (OSError, ValueError) as exc:  # not UTF-8, not JSON
        raise UserError(f"{path}: cannot read the wheel manifest ({exc})") from None
    if not isinstance(data, dict) or data.get("schema") != 1 \
            or set(data.get("wheels", {})) != set(KINDS):
        raise UserError(f"{path}: expected schema 1 with wheels {', '.join(KINDS)}")
    specs = {}
    for kind, raw in data["wheels"].items():
        try:
            outputs = tuple(Output(t, o["output"], _member(path, kind, "bazel_files", o["file"], flat=True))
                            for t, o in raw["bazel_files"].items())
            files = tuple((_source(base, path, kind, src), _member(path, kind, "python_files", dest))
                          for src, dest in raw["python_files"].items())
            specs[kind] = WheelSpec(kind, bool(raw["per_python"]), raw["summary"], outputs, files,
                                    raw["entry_points"], tuple(raw["requires"]), raw["extras"])
        except (KeyError, TypeError, AttributeError) as exc:
            raise UserError(f"{path}: wheels.{kind} is missing or has a bad {exc}") from None
    return specs


def _member(path: Path, kind: str, key: str, name: object, *, flat: bool = False) -> str:
    """A name inside the wheel's package: relative words, never ``..``, ``/`` or ``\\`` at its
    start (a wheel member outside the package installs anywhere the installer lets it)."""
    parts = name.split("/") if isinstance(name, str) else [""]
    if not isinstance(name, str) or (flat and len(parts) > 1) \
            or not all(_PART.fullmatch(p) and p not in (".", "..") for p in parts):
        shown = name[:80] if isinstance(name, str) else name
        raise UserError(f"{path}: wheels.{kind}.{key} names {shown!r} as a file in the wheel; expected "
                        f"{'a file name' if flat else 'a relative path'} of letters, digits, '.', '_', '-'"
                        f"{'' if flat else ' and /'}, without '..'")
    return name


def _source(base: Path, path: Path, kind: str, src: object) -> Path:
    """A Python file of the plugin tree: a relative path under ``base``, no part of it a
    symbolic link, the file itself regular, so nothing from outside the tree (``/proc/self/environ``
    through a link, ``../../`` or an absolute path in the manifest) can be packed into a wheel."""
    where = f"{path}: wheels.{kind}.python_files names {str(src)[:120]!r}"
    if not isinstance(src, str) or not src or src.startswith("/") or "\\" in src \
            or any(p in ("", ".", "..") for p in src.split("/")):
        raise UserError(f"{where}; expected a relative path inside {base} without '..'")
    here = base
    for part in (None, *src.split("/")):
        if part is not None:
            here = here / part
        try:
            mode = os.lstat(here).st_mode
        except OSError:
            raise UserError(f"{where}, which is missing") from None
        if stat.S_ISLNK(mode):
            raise UserError(f"{where}: {here} is a symbolic link; a wheel takes regular files from "
                            "inside the plugin tree only")
    if (what := regular.kind(mode)) is not None:
        raise UserError(f"{where}, which is {what}; expected a regular file")
    return here
