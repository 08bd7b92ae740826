"""SHA256SUMS: hashing files, and writing and reading the ``sha256sum`` format.

One place for the checksum file every dist directory and release carries, so the
build, a split build's finish stage, a post re-spin, publish and validate agree.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Mapping

from release.core import naming
from release.core.errors import UserError


def sha256_file(path: Path) -> str:
    """Hex sha256 of a file, read in 1 MiB blocks."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while block := handle.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


def render(rows: Mapping[str, str]) -> str:
    """``<hex>  <name>`` lines, sorted by name (what ``sha256sum -c`` reads)."""
    return "".join(f"{digest}  {name}\n" for name, digest in sorted(rows.items()))


def write(directory: Path, rows: Mapping[str, str]) -> Path:
    """Write ``directory/SHA256SUMS`` from ``{name: hex}`` atomically."""
    from release.core.atomic import atomic_write

    path = Path(directory) / naming.CHECKSUMS_ASSET
    atomic_write(path, render(rows))
    return path


def write_for(directory: Path, names: list[str]) -> Path:
    """``SHA256SUMS`` of files already in ``directory``, hashing each one."""
    return write(directory, {name: sha256_file(Path(directory) / name) for name in names})


def parse(text: str, where: str) -> dict[str, str]:
    """``sha256sum`` output (``<hex>  <name>`` or ``<hex> *<name>``) as ``{name: hex}``."""
    sums: dict[str, str] = {}
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        m = re.fullmatch(r"([0-9a-fA-F]{64}) [ *](.+)", line.strip())
        if not m:
            raise UserError(f"{where}: line {number} is {line!r}; expected '<sha256>  <file name>'")
        sums[m.group(2)] = m.group(1).lower()
    return sums
