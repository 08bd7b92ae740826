"""The ROCm runtime a wheel is built for, as data: which sonames each ROCm release provides, where.

``jax_rocm_plugin/rocm_runtime.json`` lists, per ROCm release, the directories its libraries
live in once installed (``/opt/rocm/lib`` for a system install, ``site-packages/_rocm_sdk_*/lib``
for ROCm's Python SDK wheels) and the sonames in each, with where each list came from (a
directory may name another of the same release whose list it shares: ``/opt/rocm-7.2.0/lib``
is ``/opt/rocm/lib``). verify resolves each wheel's DT_NEEDED against the runtime of the wheel's
own ROCm major without a GPU; a ROCm version with no list is refused, because nothing could
then be said about what the wheels need.

    load(rocm_version, root=None) -> Runtime      # UserError when the version has no list
"""

from __future__ import annotations

import dataclasses
import fnmatch
import json
from pathlib import Path
from typing import Any

from release.core import regular
from release.core.errors import UserError

DATA = "rocm_runtime.json"
SITE = "site-packages"  # how a location inside the installing environment is written


def data_path(root: Path | None = None) -> Path:
    """``jax_rocm_plugin/rocm_runtime.json`` of ``root`` when it has one, else the shipped one."""
    if root is not None and (Path(root) / "jax_rocm_plugin" / DATA).is_file():
        return Path(root) / "jax_rocm_plugin" / DATA
    return Path(__file__).resolve().parents[2] / "jax_rocm_plugin" / DATA


@dataclasses.dataclass(frozen=True)
class Runtime:
    """One ROCm release: ``locations`` maps a directory pattern to the sonames found there."""

    version: str
    locations: tuple[tuple[str, frozenset[str]], ...]
    sources: tuple[str, ...]

    @property
    def major(self) -> int:
        """The ROCm major: the N of the ``jax-rocmN-*`` wheels built for this release."""
        return int(self.version.split(".")[0])

    def provides(self, directory: str, soname: str) -> bool:
        """Whether ``directory`` (absolute, or ``site-packages/...``) holds ``soname``."""
        return any(soname in names and fnmatch.fnmatchcase(directory, pattern)
                   for pattern, names in self.locations)

    def where(self, soname: str) -> list[str]:
        """The location patterns that hold ``soname`` (for a hint in an error)."""
        return [pattern for pattern, names in self.locations if soname in names]


def _bad(path: Path, where: str, expected: str) -> UserError:
    return UserError(f"{path}: {where}: expected {expected}")


def _release(path: Path, releases: dict[str, Any], version: str, seen: tuple[str, ...] = ()) -> Runtime:
    entry = releases[version]
    if not isinstance(entry, dict) or not isinstance(entry.get("sources"), list) or not entry["sources"]:
        raise _bad(path, f"releases.{version}", "an object with a non-empty list of sources")
    if "same_as" in entry:
        other = entry["same_as"]
        if other not in releases or other in seen:
            raise _bad(path, f"releases.{version}.same_as", "another listed release (no cycle)")
        base = _release(path, releases, other, (*seen, version))
        return Runtime(version, base.locations, tuple(entry["sources"]) + base.sources)
    locations = entry.get("locations")
    if not isinstance(locations, dict) or not locations:
        raise _bad(path, f"releases.{version}.locations", "a map of directory -> list of sonames")
    out = []
    for pattern, names in locations.items():
        if not (pattern.startswith("/") or pattern.startswith(SITE + "/")):
            raise _bad(path, f"releases.{version}.locations.{pattern}",
                       f"an absolute directory or one under {SITE}/")
        if isinstance(names, str):  # the same sonames as another directory of this release
            names = locations.get(names)
            if not isinstance(names, list):
                raise _bad(path, f"releases.{version}.locations.{pattern}",
                           "a list of sonames or the name of another directory of this release that has one")
        if not isinstance(names, list) or not names or not all(
                isinstance(n, str) and ".so" in n and "/" not in n for n in names):
            raise _bad(path, f"releases.{version}.locations.{pattern}", "a non-empty list of sonames")
        out.append((pattern.rstrip("/"), frozenset(names)))
    return Runtime(version, tuple(out), tuple(entry["sources"]))


def known_versions(root: Path | None = None) -> list[str]:
    """The ROCm releases with a soname list."""
    return sorted(_releases(data_path(root)))


def _releases(path: Path) -> dict[str, Any]:
    return document(path)["releases"]


def document(path: Path) -> dict[str, Any]:
    """The whole file, its top level checked (``releases``: the soname lists; ``sdk_wheels``:
    ``release.core.rocm_sdk_wheels``)."""
    try:
        data = json.loads(regular.read_text(path))
    except FileNotFoundError:
        raise UserError(f"{path}: no such file; it lists the sonames of each ROCm release") from None
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise UserError(f"{path}: not readable JSON ({exc})") from None
    if not isinstance(data, dict) or data.get("schema") != 1 or not isinstance(data.get("releases"), dict):
        raise _bad(path, "top level", 'an object with "schema": 1 and "releases"')
    return data


def major_of(rocm_version: str) -> int | None:
    """The major of ``7.2.0`` (7); None for text that is no ROCm version."""
    head = rocm_version.split(".", 1)[0]
    return int(head) if head.isdigit() and len(head) < 4 else None


def load(rocm_version: str, root: Path | None = None) -> Runtime:
    """The runtime of ``rocm_version``; a ``UserError`` naming the listed ones when it has none,
    and, for a major the file's ``missing`` notes, what is missing and where it would come from."""
    path = data_path(root)
    data = document(path)
    releases = data["releases"]
    if rocm_version not in releases:
        missing = data.get("missing")
        note = missing.get(str(major_of(rocm_version))) if isinstance(missing, dict) else None
        why = f": missing are {note}" if isinstance(note, str) else ""
        raise UserError(f"ROCm {rocm_version} has no soname list in {path.name} (listed: "
                        f"{', '.join(sorted(releases)) or 'none'}){why}; add one, with its sources, "
                        "before building for it")
    return _release(path, releases, rocm_version)
