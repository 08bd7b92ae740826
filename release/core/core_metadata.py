"""PEP 658 core metadata files: ``<wheel>.metadata``, the wheel's ``*.dist-info/METADATA`` byte for byte.

A resolver (pip, uv) that finds ``data-core-metadata`` on an index link reads the link's URL +
``.metadata`` instead of the wheel (about 185 MB a version here) to learn its dependencies. A
release therefore carries one such file beside each wheel, as an asset of its own, so it lands at
the wheel's release URL + ``.metadata``. It is an asset like any other (``SHA256SUMS``, the
validated mark, immutability) and never a wheel: everything that counts wheels asks ``is_wheel``.

    file_name(wheel) -> "<wheel>.metadata"       wheel_of(name) -> the wheel it describes, or None
    read(wheel) -> METADATA bytes                write_beside(wheel) -> the file written
    requires_python(metadata) -> its Requires-Python, as the email parser reads it
    problems(files) -> one line per metadata file that is not its wheel's METADATA
    missing(names) -> the wheels among ``names`` without their metadata file
"""

from __future__ import annotations

import os
import re
import struct
import zlib
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
    if isinstance(wheel, (str, os.PathLike)):
        with open(wheel, "rb") as handle:
            found = _plain_zip_metadata(handle)
    else:
        found = _plain_zip_metadata(wheel)
    if found is not None:
        return found
    import zipfile  # only for a wheel the plain reading above declined: a plan names files, reads none
    try:
        with zipfile.ZipFile(wheel) as zf:
            names = [n for n in zf.namelist() if n.count("/") == 1 and n.endswith(".dist-info/METADATA")]
            if len(names) != 1:
                raise UserError(f"{label}: expected one .dist-info/METADATA, found {len(names)}")
            return zf.read(names[0])
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError):
        raise UserError(f"{label}: not a wheel (not a zip file)") from None
    except (NotImplementedError, RuntimeError) as exc:  # a newer zip version, encryption, patched data
        raise UserError(f"{label}: its METADATA cannot be read ({exc})") from None


# A plain zip's records (APPNOTE 4.3.16, 4.3.12, 4.3.7), read as zipfile reads them
_END = struct.Struct("<4s4H2LH")  # signature, disks, entries here and in all, directory size and offset, comment
_CENTRAL = struct.Struct("<4s6H3L5H2L")
_LOCAL = struct.Struct("<4s5H3L2H")
_ENCRYPTED, _UNSUPPORTED, _UTF8_NAME = 0x1, 0x20 | 0x40, 0x800  # patched data, strong encryption
_MAX_VERSION = 63  # zipfile's MAX_EXTRACT_VERSION
_STORED, _DEFLATED = 0, 8  # zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED (APPNOTE 4.4.5)
_TAIL = 64 << 10  # one read of a wheel's end holds its directory and, usually, its dist-info


def _plain_zip_metadata(handle: IO[bytes]) -> bytes | None:
    """METADATA read straight from the zip's directory when the zip is plain, as wheel builders
    write it: no comment, no zip64, nothing before the first member or between the directory and
    its end, no extra fields in the directory, METADATA stored or deflated and not encrypted, its
    local header naming it, its size and CRC-32 right. None for anything else (``zipfile`` then
    reads it and says what is wrong): the same bytes as ``zipfile``, for a third of its work,
    which was most of an index's run over a year of nightlies. The file's last ``_TAIL`` bytes
    are read at once: a wheel's directory and dist-info are written last."""
    try:
        size = handle.seek(0, os.SEEK_END)
        start = max(0, size - _TAIL)
        handle.seek(start)
        tail = handle.read(size - start)

        def take(at: int, length: int) -> bytes:
            if at >= start and at + length <= size:
                return tail[at - start:at - start + length]
            handle.seek(at)
            return handle.read(length)

        if size < _END.size or len(tail) != size - start:
            return None
        sig, disk, cd_disk, here, total, cd_size, cd_offset, comment = _END.unpack_from(tail, len(tail) - _END.size)
        if (sig != b"PK\x05\x06" or disk or cd_disk or comment or here != total or total == 0xFFFF
                or cd_offset + cd_size != size - _END.size):  # zip64, a comment, data after the directory
            return None
        directory = take(cd_offset, cd_size)
        if len(directory) != cd_size:
            return None
        at, found, offsets = 0, [], [cd_offset]
        for _ in range(total):
            if at + _CENTRAL.size > cd_size:
                return None
            (sig, _made, need, flags, method, _time, _date, crc, packed, unpacked, name_len, extra_len,
             comment_len, _disk, _internal, _external, offset) = _CENTRAL.unpack_from(directory, at)
            raw = directory[at + _CENTRAL.size:at + _CENTRAL.size + name_len]
            at += _CENTRAL.size + name_len
            if (sig != b"PK\x01\x02" or extra_len or comment_len or len(raw) != name_len or b"\0" in raw
                    or need > _MAX_VERSION or flags & _UNSUPPORTED):
                return None  # zipfile refuses a member it cannot extract
            offsets.append(offset)
            if flags & _UTF8_NAME:
                raw.decode("utf-8")  # zipfile refuses a name flagged UTF-8 that is not
            # "/" and this ASCII suffix are the same bytes in UTF-8 and in cp437, and in no other character
            if raw.endswith(b".dist-info/METADATA") and raw.count(b"/") == 1:
                found.append((raw, flags, method, crc, packed, unpacked, offset))
        if at != cd_size or min(offsets) != 0 or len(found) != 1:
            return None  # bytes before the first member, or not one METADATA: zipfile says which
        raw, flags, method, crc, packed, unpacked, offset = found[0]
        member_end = min(o for o in offsets if o > offset) if offset < cd_offset else offset
        if flags & _ENCRYPTED or method not in (_STORED, _DEFLATED):
            return None
        local = _LOCAL.unpack(take(offset, _LOCAL.size))
        body = offset + _LOCAL.size + local[9] + local[10]
        if local[0] != b"PK\x03\x04" or take(offset + _LOCAL.size, local[9]) != raw:
            return None
        if body + packed > member_end:
            return None  # overlaps the next member or the directory (zipfile: a possible zip bomb)
        data = take(body, packed)
        if len(data) != packed:
            return None
        if method == _DEFLATED:
            inflate = zlib.decompressobj(-zlib.MAX_WBITS)
            data = inflate.decompress(data, unpacked + 1)
            if not inflate.eof:
                return None
        if len(data) != unpacked or zlib.crc32(data) != crc:
            return None
        return data
    except (OSError, ValueError, zlib.error, struct.error, UnicodeDecodeError):
        return None


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


_REQUIRES = re.compile(r"^Requires-Python:", re.M | re.I | re.A)
# a line that ends the header section (``scan.Headers``): not a field, a continuation or "From "
_ENDS_SECTION = re.compile(r"^(?=[\s\S])(?!From |[\041-\071\073-\176]*:|[\t ])", re.M)
# a field's value: the rest of its line and each continuation line (one starting with a space or tab)
_VALUE = re.compile(r"[^\n]*(?:\n[ \t][^\n]*)*\n?")


def requires_python(metadata: bytes) -> str | None:
    """``Requires-Python`` as the email parser reads it (``scan.Headers``), found without parsing
    every field and the long description: the first line naming it, unless a line before it
    ended the header section, with its continuation lines. Text with a CR goes to ``Headers``."""
    text = metadata.decode("utf-8", "replace")
    if "\r" in text:
        from release.core.scan import Headers
        found = Headers(text).get("Requires-Python")
        return found.strip() if found else None
    match = _REQUIRES.search(text)
    if match is None or _ENDS_SECTION.search(text, 0, match.start()):
        return None
    value = _VALUE.match(text, match.end()).group().lstrip(" \t").rstrip("\r\n")  # type: ignore[union-attr]
    return value.strip() if value else None
