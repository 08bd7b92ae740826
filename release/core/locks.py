"""The lock of what validate installed: one PEP 751 ``pylock.toml`` per (ROCm major, Python) cell.

validate installs jax, jaxlib and the draft's plugin and pjrt in one resolve, as users do, once
per Python the draft carries (``release.check.user_install``); pip's ``--report`` of that install
names every file it took, with its sha256. That set is written as a lock file, an asset of the
release, so ``uv pip install -r pylock.rocm7-py312.toml`` (or ``pip install -r``, pip >= 26)
installs exactly what was validated, every file checked against its hash.

One file per cell, not one with markers: each cell is its own resolve (numpy, ml_dtypes and
the rest may differ per Python), and a lock should hold only what was installed together.
Each names its Python (``requires-python = "==3.12.*"``: an installer refuses it for another
one, in one line) and the platform of the wheels (``environments``). The draft's own files are
named by the URL the release serves them at once published (a GitHub draft's assets move from
``releases/download/untagged-...`` to ``releases/download/<tag>``); the public ones by the URL
the index gave.
"""

from __future__ import annotations

import dataclasses
import json
import re
from typing import Mapping
from urllib.parse import quote, unquote

from release.core.naming import normalized_name as canonicalize_name  # packaging's, without packaging.tags

LOCK_VERSION = "1.0"
CREATED_BY = "jax-rocm-release"
_NAME = re.compile(r"pylock\.([^.]+)\.toml\Z")  # PEP 751's named form
_CELL = re.compile(r"pylock\.rocm(?P<major>\d+)-py3(?P<minor>\d+)\.toml\Z")
_ARCH = re.compile(r"(?:many|musl)?linux[0-9_]*?_(?P<arch>x86_64|aarch64|ppc64le|s390x)\Z")


def lock_name(major: int, python: str) -> str:
    """``pylock.rocm<major>-py3<minor>.toml``: PEP 751's ``pylock.<name>.toml`` (no dot in the name)."""
    return f"pylock.rocm{major}-py{python.replace('.', '')}.toml"


def is_lock(name: str) -> bool:
    """Whether an asset is a lock file (validate writes them: not in SHA256SUMS, not in the provenance)."""
    return bool(_NAME.match(name))


def cell_of(name: str) -> tuple[int, str] | None:
    """(ROCm major, ``"3.X"``) of a lock file this tool names, else None."""
    m = _CELL.match(name)
    return (int(m.group("major")), f"3.{m.group('minor')}") if m else None


@dataclasses.dataclass(frozen=True)
class Locked:
    """One installed distribution: the file it came from and that file's sha256."""

    name: str
    version: str
    file: str
    url: str
    sha256: str
    requires_python: str | None = None

    @property
    def is_wheel(self) -> bool:
        return self.file.endswith(".whl")


class LockError(ValueError):
    """A report that cannot be a lock (a file without a sha256, no file at all)."""


def from_report(report: Mapping, relink: Mapping[str, str] | None = None) -> list[Locked]:
    """The distributions of pip's installation report (``pip install --report``), sorted by name.
    ``relink``: file name -> the URL to name instead of the one pip downloaded it from."""
    relink = relink or {}
    found = []
    for item in report.get("install", []) or []:
        meta, info = item.get("metadata") or {}, item.get("download_info") or {}
        name, version, url = meta.get("name"), meta.get("version"), info.get("url")
        if not (isinstance(name, str) and isinstance(version, str) and isinstance(url, str)):
            raise LockError(f"pip's report names an install without a name, version or URL: {str(item)[:80]}")
        file = url.split("#", 1)[0].rstrip("/").rsplit("/", 1)[-1]
        file = unquote(file)
        digest = ((info.get("archive_info") or {}).get("hashes") or {}).get("sha256")
        if not isinstance(digest, str):
            raise LockError(f"pip's report gives no sha256 for {file}: a lock needs every file's hash")
        requires = meta.get("requires_python")
        found.append(Locked(canonicalize_name(name), version, file, relink.get(file, url), digest,
                            requires if isinstance(requires, str) and requires else None))
    if not found:
        raise LockError("pip's report installs nothing")
    return sorted(found, key=lambda d: d.name)


def environment(wheel_names: list[str]) -> str | None:
    """The environment marker of wheels built for one Linux architecture, else None."""
    arches = set()
    for name in wheel_names:
        platform = name[:-len(".whl")].rsplit("-", 1)[-1]
        for tag in platform.split("."):
            m = _ARCH.match(tag)
            if m:
                arches.add(m.group("arch"))
    if len(arches) != 1:
        return None
    return f"sys_platform == 'linux' and platform_machine == '{arches.pop()}'"


def _s(text: str) -> str:
    """A TOML basic string (JSON's escapes are TOML's)."""
    return json.dumps(text)


def render(locked: list[Locked], python: str, *, environment_marker: str | None = None) -> str:
    """The lock file's text (PEP 751), in one stable order: a re-run over the same set writes the
    same bytes."""
    lines = [f"lock-version = {_s(LOCK_VERSION)}"]
    if environment_marker:
        lines.append(f"environments = [{_s(environment_marker)}]")
    lines += [f"requires-python = {_s(f'=={python}.*')}", f"created-by = {_s(CREATED_BY)}"]
    for dist in sorted(locked, key=lambda d: d.name):
        lines += ["", "[[packages]]", f"name = {_s(dist.name)}", f"version = {_s(dist.version)}"]
        if dist.requires_python:
            lines.append(f"requires-python = {_s(dist.requires_python)}")
        archive = (f"{{ name = {_s(dist.file)}, url = {_s(dist.url)}, "
                   f"hashes = {{ sha256 = {_s(dist.sha256)} }} }}")
        lines.append(f"wheels = [{archive}]" if dist.is_wheel else f"sdist = {archive}")
    return "\n".join(lines) + "\n"


def published_url(url: str, tag: str) -> str:
    """Where an asset of ``tag``'s draft is served once published: a GitHub draft's asset URL
    ``.../releases/download/untagged-<id>/<file>`` becomes ``.../releases/download/<tag>/<file>``;
    any other URL (a local store's) stays."""
    head, sep, tail = url.partition("/releases/download/")
    if not sep or "/" not in tail:
        return url
    return f"{head}{sep}{quote(tag, safe='')}/{tail.split('/', 1)[1]}"
