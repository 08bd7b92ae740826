"""The compatibility matrix as data: per release, which jax, jaxlib, plugin, pjrt, ROCm and Python
go together, and which gates each cell passed.

Nothing here is kept by hand: a release's cells come from its assets (a plugin wheel per Python,
the pjrt wheel of its ROCm major, the lock files validate left) and its notes (the validated
mark, the smoke gate's verdict and the Python it ran on), so the file on the site always says
what the releases themselves say. jax and jaxlib are the release's line (``X.Y.Z``): validate
installs them pinned so (``release.check.user_install``). Only wheels of the release's own version
count (``rocm-jax-v0.9.1`` holding a 0.9.2 wheel has no cell from it: ``strays`` names such wheels,
for status and the page to show). One cell per (ROCm major, Python):

- ``verify``: ``passed`` when the release is validated (validate verifies every wheel first),
  else ``unknown``;
- ``validate``: ``passed`` when validate installed the cell as users do and left its lock,
  ``not run`` when it left locks for other cells only (no interpreter for this Python), else
  ``unknown`` (not validated, or validated before locks were kept);
- ``smoke``: ``passed`` or ``failed`` for each cell the smoke gate ran (its section has a head
  line per cell; one of before cells names the Python of the release's only major), else ``not run``;
- ``with_rocm``: how validate resolved the cell's line for users without a system ROCm (its
  with-rocm section, ``release.publish.with_rocm_notes``): ``passed``, ``n/a`` (with its reason
  in ``with_rocm_reason``), ``not run`` for a cell it did not reach, else ``unknown`` (not
  validated, or validated before the section was kept).

``document(channel, releases)`` is the channel's ``matrix.json`` (``release/schemas/site/matrix.json``).
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import functools
import json
import re
from typing import Callable, Iterable, Protocol

from release.core import locks, versions
from release.core.filled import filled
from release.core.naming import Identity
from release.publish import with_rocm_notes

SCHEMA = "jax-rocm-release/matrix/1"
FILE = "matrix.json"
GATES = ("verify", "validate", "smoke", "with_rocm")
_SMOKE_HEAD = re.compile(r"^\*\*ROCm smoke test\*\* \([^,)]*(?:, ROCm (?P<major>\d+))?, Python (?P<python>3\.\d+)\): "
                         r"(?P<verdict>\w[\w ]*)", re.M)


@dataclasses.dataclass(frozen=True)
class Cell:
    python: str
    rocm_major: int
    rocm: str | None  # the full ROCm version the wheels were built against, when recorded
    jax: str
    jaxlib: str
    plugin: str
    pjrt: str
    plugin_file: str
    pjrt_file: str
    lock: str | None  # the URL of the cell's pylock.toml, when validate left one
    gates: tuple[tuple[str, str], ...]
    with_rocm_reason: str | None = None  # why the with-rocm gate is n/a, as validate said

    @classmethod
    def made(cls, python: str, rocm_major: int, rocm: str | None, jax: str, jaxlib: str, plugin: str, pjrt: str,
             plugin_file: str, pjrt_file: str, lock: str | None, gates: tuple[tuple[str, str], ...],
             with_rocm_reason: str | None = None) -> Cell:
        """The same cell as ``Cell(...)``, made without the frozen ``__init__``'s call to
        ``object.__setattr__`` per field (a season's page makes 2,284)."""
        return filled(cls, {"python": python, "rocm_major": rocm_major, "rocm": rocm, "jax": jax, "jaxlib": jaxlib,
                            "plugin": plugin, "pjrt": pjrt, "plugin_file": plugin_file, "pjrt_file": pjrt_file,
                            "lock": lock, "gates": gates, "with_rocm_reason": with_rocm_reason})

    def gate(self, name: str) -> str:
        return dict(self.gates)[name]

    def to_json(self) -> dict:
        return {"python": self.python, "rocm_major": self.rocm_major, "rocm": self.rocm, "jax": self.jax,
                "jaxlib": self.jaxlib, "plugin": self.plugin, "pjrt": self.pjrt,
                "plugin_file": self.plugin_file, "pjrt_file": self.pjrt_file, "lock": self.lock,
                "gates": dict(self.gates), "with_rocm_reason": self.with_rocm_reason}


def smoke_of(section: str | None) -> dict[tuple[int | None, str], str]:
    """(ROCm major, Python) -> ``"passed"``/``"failed"`` of each cell the smoke section says ran
    (one head line a cell); a section of before cells names a Python only: major None, the
    release's only major."""
    found: dict[tuple[int | None, str], str] = {}
    for m in _SMOKE_HEAD.finditer((section or "").strip()):
        if m.group("verdict") in ("passed", "FAILED"):
            major = int(m.group("major")) if m.group("major") else None
            found[(major, m.group("python"))] = m.group("verdict").lower()
    return found


def cells(version: str, asset_names: Iterable[str], *, validated: bool, smoke: str | None,
          rocm: str | None = None, link: Callable[[str], str | None] = lambda _: None,
          with_rocm: str | None = None) -> list[Cell]:
    """The cells of one release from its asset names and notes (``smoke``: the notes' smoke
    section, ``with_rocm``: their with-rocm section); ``link(asset name)`` is where the release
    serves an asset."""
    names = list(asset_names)
    own, line = _normal(version)
    pjrt: dict[int, tuple[str, str]] = {}
    plugins: dict[tuple[int, str], tuple[str, str]] = {}
    for name, major, ident in _jax_rocm_wheels(names):
        if ident.version != own:  # another version's wheel (a stray): ``strays`` names it
            continue
        if ident.kind == "pjrt":
            pjrt[major] = (own, name)
        elif ident.kind == "plugin":
            for python in _pythons(ident):
                plugins[(major, python)] = (own, name)
    # a lock's name starts so (``locks.cell_of``): a release's other assets are not matched one by one
    lock_cells = {cell: name for name in names
                  if name.startswith("pylock.") and (cell := locks.cell_of(name)) is not None}
    smoked = smoke_of(smoke)
    resolved = with_rocm_notes.read(with_rocm) if validated else None
    out = []
    for (major, python), (plugin_version, plugin_file) in sorted(
            plugins.items(), key=lambda kv: (kv[0][0], int(kv[0][1].split(".")[1]))):
        if major not in pjrt:
            continue
        lock = lock_cells.get((major, python))
        validate = ("passed" if lock else "not run" if lock_cells else "unknown") if validated else "unknown"
        smoke_gate = smoked.get((major, python)) or smoked.get((None, python)) or "not run"
        path, why = ("unknown", None) if resolved is None else resolved.get((major, python), ("not run", None))
        gates = (("verify", "passed" if validated else "unknown"), ("validate", validate), ("smoke", smoke_gate),
                 ("with_rocm", path))
        out.append(Cell.made(python, major, rocm, line, line, plugin_version, pjrt[major][0], plugin_file,
                             pjrt[major][1], link(lock) if lock else None, gates, why))
    return out


def strays(version: str, asset_names: Iterable[str]) -> list[str]:
    """The jax-rocm wheels among ``asset_names`` that are not of ``version`` (the release's): they
    are in no cell, and status and the page say so rather than count them."""
    own = _normal(version)[0]
    return sorted(name for name, _, ident in _jax_rocm_wheels(asset_names) if ident.version != own)


@functools.lru_cache(maxsize=8192)
def _normal(version: str) -> tuple[str, str]:
    """A release version's normal form and its line (``X.Y.Z``), parsed once a process (its
    cells and its strays each asked, for every release of a season)."""
    parsed = versions.parse(version)
    return str(parsed), parsed.base_version


_PYTHONS: dict[frozenset[str], tuple[str, ...]] = {}


def _pythons(ident: Identity) -> tuple[str, ...]:
    """``ident.pythons``, kept by the tags it reads them from: a season's thousands of plugin
    wheels carry a few sets of tags."""
    found = _PYTHONS.get(ident.tags)
    if found is None:
        if len(_PYTHONS) > 4096:
            _PYTHONS.clear()
        found = _PYTHONS[ident.tags] = ident.pythons
    return found


def _jax_rocm_wheels(names: Iterable[str]) -> Iterable[tuple[str, int, Identity]]:
    """Each jax-rocm wheel's name, ROCm major and identity."""
    for name in names:
        if not name.endswith(".whl"):  # a release's other assets (bundles, metadata, locks) name no wheel
            continue
        ident = Identity.of(name)
        if ident.rocm_major is not None and ident.version is not None and ident.name_error is None:
            yield name, ident.rocm_major, ident


class Row(Protocol):
    """What the matrix reads of the page's release row (``release.publish.site.ReleaseRow``)."""

    @property
    def tag(self) -> str: ...
    @property
    def version(self) -> str: ...
    @property
    def channel(self) -> str: ...
    @property
    def published(self) -> _dt.datetime | None: ...
    @property
    def listed(self) -> bool: ...
    @property
    def yanked(self) -> str | None: ...
    @property
    def cells(self) -> tuple[Cell, ...]: ...


def document(channel: str, rows: Iterable[Row]) -> dict:
    """The channel's ``matrix.json``: every release the channel's index lists, in the order given
    (the page's, newest first), with its cells."""
    return {"schema": SCHEMA, "channel": channel,
            "releases": [_entry(r) for r in rows if r.channel == channel and r.listed]}


def _entry(r: Row) -> dict:
    published = r.published.astimezone(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ") if r.published else None
    return {"tag": r.tag, "version": r.version, "published": published, "yanked": r.yanked is not None,
            "cells": [c.to_json() for c in r.cells]}


_ENCODE = json.JSONEncoder(sort_keys=True, separators=(",", ":")).encode  # staging.write_json's form


class Encoder:
    """``matrix.json`` files as ``staging.write_json`` writes ``document`` (and a line's, with its
    ``line``), each release's entry encoded once: a site channel's file and its line's hold the
    same entries (a season's are 2 MB of JSON, half of it written twice before)."""

    def __init__(self) -> None:
        self._entries: dict[int, tuple[Row, str]] = {}  # by id(row); the row kept, so its id stays its own

    def file(self, channel: str, rows: Iterable[Row], line: str | None = None) -> bytes:
        parts = []
        for r in rows:
            if r.channel != channel or not r.listed:
                continue
            known = self._entries.get(id(r))
            if known is None or known[0] is not r:
                known = self._entries[id(r)] = (r, _ENCODE(_entry(r)))
            parts.append(known[1])
        head = _ENCODE({"channel": channel} if line is None else {"channel": channel, "line": line})
        # keys sorted as write_json sorts them: channel, line, releases, schema
        return f'{head[:-1]},"releases":[{",".join(parts)}],"schema":{_ENCODE(SCHEMA)}}}\n'.encode()
