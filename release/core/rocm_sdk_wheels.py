"""What TheRock's ROCm runtime wheels install, as data: the directories a requirement on them
(``rocm[libraries]``, ``rocm-sdk-core``) puts into site-packages.

``jax_rocm_plugin/rocm_runtime.json``'s ``sdk_wheels`` names each package (``*`` for a GPU
target family), the site-packages directories it installs, the packages it requires and the
packages each of its extras adds, with where each fact came from. An extra adds groups of
packages one of which the index gives (the multi-arch index's arch-neutral libraries package, or
a per-family index's), so a requirement set resolves to one set of directories per way an index
can answer it: a plugin's ``with-rocm`` extra must load in every one of them.

    load(root=None) -> SdkWheels | None            # None: the file has no sdk_wheels
    SdkWheels.layouts(requirements) -> Layouts     # the directories, per way; what is unknown
"""

from __future__ import annotations

import dataclasses
import fnmatch
import itertools
from pathlib import Path
from typing import Any, Iterable

from packaging.utils import canonicalize_name

from release.core import rocm_runtime
from release.core.errors import UserError

KEY = "sdk_wheels"
MAX_WAYS = 64  # ways an index may answer one extra; TheRock's give at most two


@dataclasses.dataclass(frozen=True)
class Package:
    """One ROCm SDK wheel project: what it installs, requires and offers as extras."""

    installs: tuple[str, ...]
    requires: tuple[str, ...]
    extras: dict[str, tuple[tuple[str, ...], ...]]  # extra (or pattern) -> groups of alternatives


@dataclasses.dataclass(frozen=True)
class Layouts:
    """The site-packages directories a set of requirements installs, one set per way an index
    can answer it; ``unknown``: the requirements (or extras) nothing here records."""

    ways: tuple[frozenset[str], ...]
    unknown: tuple[str, ...]


@dataclasses.dataclass(frozen=True)
class SdkWheels:
    """The ROCm SDK wheels a with-rocm install resolves against, by project name or pattern."""

    packages: dict[str, Package]  # canonical name, or a pattern with *
    sources: tuple[str, ...]

    def find(self, name: str) -> Package | None:
        name = canonicalize_name(name)
        if name in self.packages:
            return self.packages[name]
        return next((p for pattern, p in self.packages.items()
                     if "*" in pattern and fnmatch.fnmatchcase(name, pattern)), None)

    def layouts(self, requirements: Iterable[tuple[str, Iterable[str]]]) -> Layouts:
        """The directories ``requirements`` ((name, extras) pairs) install, per way."""
        groups: list[tuple[str, ...]] = []
        unknown: list[str] = []
        for name, extras in requirements:
            package = self.find(name)
            if package is None:
                unknown.append(canonicalize_name(name))
                continue
            groups.append((name,))
            for extra in sorted({canonicalize_name(e) for e in extras}):
                asked = next((g for key, g in package.extras.items() if fnmatch.fnmatchcase(extra, key)), None)
                if asked is None:
                    unknown.append(f"{canonicalize_name(name)}[{extra}]")
                else:
                    groups.extend(asked)
        ways = []
        for choice in itertools.islice(itertools.product(*groups), MAX_WAYS):
            ways.append(frozenset(d for name in choice for d in self._installed(name, ())))
        return Layouts(tuple(dict.fromkeys(ways)), tuple(dict.fromkeys(unknown)))

    def _installed(self, name: str, seen: tuple[str, ...]) -> set[str]:
        package = self.find(name)
        if package is None or name in seen:
            return set()
        found = set(package.installs)
        for required in package.requires:
            found |= self._installed(required, (*seen, name))
        return found


def _bad(path: Path, where: str, expected: str) -> UserError:
    return UserError(f"{path}: {KEY}.{where}: expected {expected}")


def _names(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) and v for v in value)


def _package(path: Path, name: str, entry: Any) -> Package:
    if not isinstance(entry, dict) or not set(entry) <= {"installs", "requires", "extras"}:
        raise _bad(path, f"packages.{name}", "an object with installs, requires and extras")
    installs, requires, extras = entry.get("installs", []), entry.get("requires", []), entry.get("extras", {})
    if not _names(installs) or not all(d.startswith(rocm_runtime.SITE + "/") for d in installs):
        raise _bad(path, f"packages.{name}.installs", f"a list of directories under {rocm_runtime.SITE}/")
    if not _names(requires):
        raise _bad(path, f"packages.{name}.requires", "a list of package names")
    if not isinstance(extras, dict) or not all(
            isinstance(g, list) and g and all(_names(a) and a for a in g) for g in extras.values()):
        raise _bad(path, f"packages.{name}.extras", "a map of extra -> list of groups of package names")
    return Package(tuple(d.rstrip("/") for d in installs), tuple(requires),
                   {k: tuple(tuple(a) for a in g) for k, g in extras.items()})


def load(root: Path | None = None) -> SdkWheels | None:
    """The ``sdk_wheels`` of ``root``'s ``rocm_runtime.json`` (else the shipped one); None when
    it has none; a one-line ``UserError`` when it is malformed."""
    path = rocm_runtime.data_path(root)
    data = rocm_runtime.document(path).get(KEY)
    if data is None:
        return None
    if not isinstance(data, dict) or not _names(data.get("sources")) or not data["sources"] \
            or not isinstance(data.get("packages"), dict):
        raise _bad(path, "top level", "an object with a non-empty list of sources and packages")
    return SdkWheels({canonicalize_name(n) if "*" not in n else n: _package(path, n, e)
                      for n, e in data["packages"].items()}, tuple(data["sources"]))
