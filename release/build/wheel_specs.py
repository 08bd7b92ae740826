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
from pathlib import Path
from typing import Any

from release.core.errors import UserError

PLUGIN_DIR = "jax_rocm_plugin"
BAZELRC = ".bazelrc"
MANIFEST = "wheels.json"
KINDS = ("pjrt", "plugin")


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
        data: Any = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise UserError(f"{path}: cannot read the wheel manifest ({exc})") from None
    if not isinstance(data, dict) or data.get("schema") != 1 \
            or set(data.get("wheels", {})) != set(KINDS):
        raise UserError(f"{path}: expected schema 1 with wheels {', '.join(KINDS)}")
    specs = {}
    for kind, raw in data["wheels"].items():
        try:
            outputs = tuple(Output(t, o["output"], o["file"]) for t, o in raw["bazel_files"].items())
            files = tuple((base / src, dest) for src, dest in raw["python_files"].items())
            specs[kind] = WheelSpec(kind, bool(raw["per_python"]), raw["summary"], outputs, files,
                                    raw["entry_points"], tuple(raw["requires"]), raw["extras"])
        except (KeyError, TypeError, AttributeError) as exc:
            raise UserError(f"{path}: wheels.{kind} is missing or has a bad {exc}") from None
        for src, _ in files:
            if not src.is_file():
                raise UserError(f"{path}: wheels.{kind}.python_files names {src}, which is missing")
    return specs
