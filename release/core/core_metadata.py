"""PEP 658 core metadata files: ``<wheel>.metadata``, the wheel's ``*.dist-info/METADATA`` byte for byte.

A resolver (pip, uv) that finds ``data-core-metadata`` on an index link reads the link's URL +
``.metadata`` instead of the wheel (about 185 MB a version here) to learn its dependencies. A
release therefore carries one such file beside each wheel, as an asset of its own, so it lands at
the wheel's release URL + ``.metadata``. It is an asset like any other (``SHA256SUMS``, the
validated mark, immutability) and never a wheel: everything that counts wheels asks ``is_wheel``.

    file_name(wheel) -> "<wheel>.metadata"       wheel_of(name) -> the wheel it describes, or None
    read(wheel) -> METADATA bytes                write_beside(wheel) -> the file written
    problems(files) -> one line per metadata file that is not its wheel's METADATA
    missing(names) -> the wheels among ``names`` without their metadata file
"""

from __future__ import annotations

import os
import zipfile
from pathlib import Path
from typing import IO, Iterable, Mapping

from release.core.errors import UserError

SUFFIX = ".metadata"
WHEEL_SUFFIX = ".whl"


def is_wheel(name: str) -> bool:
    """A wheel file name (``.whl``); a core metadata file (``.whl.metadata``) is not one."""
    return name.endswith(WHEEL_SUFFIX)


def file_name(wheel: str) -> str:
    """The name of ``wheel``'s core metadata file: the wheel's file name + ``.metadata``."""
    return wheel + SUFFIX


def wheel_of(name: str) -> str | None:
    """The wheel file a core metadata file describes (``x.whl.metadata`` -> ``x.whl``), else None."""
    if not name.endswith(WHEEL_SUFFIX + SUFFIX):
        return None
    return name[:-len(SUFFIX)]


def read(wheel: str | os.PathLike[str] | IO[bytes], name: str | None = None) -> bytes:
    """The one ``*.dist-info/METADATA`` of ``wheel`` (a path or an open file), byte for byte.

    A wheel with none or several, or that is not a zip, is one line naming it (``name``)."""
    label = name or (Path(wheel).name if isinstance(wheel, (str, os.PathLike)) else "wheel")
    try:
        with zipfile.ZipFile(wheel) as zf:
            names = [n for n in zf.namelist() if n.count("/") == 1 and n.endswith(".dist-info/METADATA")]
            if len(names) != 1:
                raise UserError(f"{label}: expected one .dist-info/METADATA, found {len(names)}")
            return zf.read(names[0])
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError):
        raise UserError(f"{label}: not a wheel (not a zip file)") from None


def write_beside(wheel: Path) -> Path:
    """Write ``wheel``'s core metadata file next to it (whole or not at all); unchanged bytes
    are not rewritten, so a re-run leaves the file (and its mtime) alone."""
    from release.core.atomic import atomic_write

    wheel = Path(wheel)
    data = read(wheel)
    target = wheel.with_name(file_name(wheel.name))
    try:
        if target.read_bytes() == data:
            return target
    except FileNotFoundError:
        pass
    atomic_write(target, data)
    return target


def problems(files: Mapping[str, Path]) -> list[str]:
    """One line per core metadata file among ``files`` (name -> local path) that does not sit
    beside its wheel or is not exactly that wheel's METADATA."""
    found = []
    for name in sorted(files):
        wheel = wheel_of(name)
        if wheel is None:
            continue
        if wheel not in files:
            found.append(f"{name}: a core metadata file without its wheel {wheel}")
            continue
        try:
            expected = read(files[wheel], wheel)
        except UserError as exc:
            found.append(f"{name}: its wheel's METADATA cannot be read ({exc})")
            continue
        if Path(files[name]).read_bytes() != expected:
            found.append(f"{name} is not the METADATA of {wheel} (PEP 658: it must be that file "
                         "byte for byte)")
    return found


def missing(names: Iterable[str]) -> list[str]:
    """The wheels among ``names`` whose core metadata file is not among them, sorted."""
    present = set(names)
    return sorted(n for n in present if is_wheel(n) and file_name(n) not in present)
