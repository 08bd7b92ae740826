"""One streaming pass over a wheel: everything the named checks read, read once.

Every member is inflated once, in cache-sized chunks, while its CRC (isal computes it as it
inflates) and sha256 are computed; of an ELF member only the few byte ranges the loader reads
are kept on the way (``release.core.elffacts``; a stored member is read in place), so nothing is
written to disk and nothing is inflated twice: a scan costs about what a bare inflate +
sha256 pass costs. Small text members
(dist-info, ``version.py``, ``commit_info.py``) are kept. The zip-bomb bounds are decided
from the central directory before anything inflates. ``release.check.verify`` runs its checks
over the ``Scan`` this returns; promote and provenance open wheels through here too.
"""

from __future__ import annotations

import ast
import base64
import dataclasses
import hashlib
import io
import re
import stat
import struct
import types
import zipfile
import zlib
from pathlib import Path
from typing import IO, Any, Callable, Iterator, Sequence

from release.core import secret_shapes
from release.core.elffacts import ELF_MAGIC, ElfCollector, ElfFacts, facts_or_error, file_reader, streamed_facts
from release.core.errors import UserError

_isal: types.ModuleType | None
_crc32: Callable[[bytes, int], int]
try:  # isal inflates about 1.6x faster than zlib and computes CRC-32 3x faster; both are exact.
    from isal import igzip_lib as _isal
    from isal.isal_zlib import crc32 as _crc32
except ImportError:  # pragma: no cover - isal is a runtime dependency
    _isal, _crc32 = None, zlib.crc32

# Zip-bomb bounds, checked on the central directory before a member is inflated (and the
# inflater stops at the declared size, so nothing inflates past them). The real
# jax-rocm7-pjrt 0.10.2 wheel inflates to 0.5 GB, its 503 MB .so at a ratio of 3.3:
# a 4x margin on the total and 30x on the ratio. The ratio applies to members above
# RATIO_FLOOR only (a small text file of repeated lines may compress 100x and is harmless).
MAX_INFLATED = 2 << 30   # bytes, all members together
MAX_RATIO = 100          # inflated / compressed, per member
RATIO_FLOOR = 1 << 20    # members smaller than this are not ratio-checked
_TEXT_MEMBERS = ("version.py", "commit_info.py")
_TEXT_LIMIT = 1 << 20
# Compressed bytes are read into one reused buffer and inflated at most _CHUNK at a time, on
# one thread: each chunk is hashed and dropped before the next is made, so the allocator
# hands the same memory back and the pass does not fault in fresh pages (4 MiB chunks, or
# chunks queued to a hashing thread, cost a page fault per 4 KiB inflated: 0.3-0.4 s of
# system time and 15-30% more CPU on the 503 MB object, for no wall time on a busy machine).
_CHUNK = 1 << 20
Progress = Callable[[int], None]  # called with the number of uncompressed bytes just read


@dataclasses.dataclass
class Member:
    """A wheel member as one pass over the zip read it: size, mode, hash, text or ELF facts."""

    name: str
    size: int  # as the central directory says
    mode: int
    sha256: str | None = None  # RECORD form: urlsafe base64, no padding
    read_size: int | None = None
    text: bytes | None = None
    elf: ElfFacts | None = None
    secret: str | None = None  # the kind of a secret-shaped string in a text member, never its text
    error: str | None = None


@dataclasses.dataclass
class Scan:
    """Everything the checks need, from one pass over the wheel."""

    path: Path
    members: list[Member]
    zip_errors: list[tuple[str | None, str]]
    oversize: list[tuple[str | None, str]] = dataclasses.field(default_factory=list)

    def get(self, name: str) -> Member | None:
        return next((m for m in self.members if m.name == name), None)

    def files(self) -> list[Member]:
        return [m for m in self.members if not m.name.endswith("/")]


# ---------------------------------------------------------------- reading


def record_hash(digest: bytes) -> str:
    """``sha256=`` value as RECORD writes it (urlsafe base64 without padding)."""
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def open_wheel(path: Path) -> zipfile.ZipFile:
    """Open ``path`` as a zip, or raise a one-line ``UserError``."""
    path = Path(path)
    if not path.is_file():
        raise UserError(f"{path}: no such wheel file")
    try:
        return zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError, EOFError, ValueError, NotImplementedError) as exc:
        raise UserError(f"{path}: not a zip archive ({exc}); expected a .whl file") from None


def data_offset(fp: IO[bytes], info: zipfile.ZipInfo) -> int:
    """Where ``info``'s compressed bytes start (after its local header)."""
    fp.seek(info.header_offset)
    header = fp.read(30)
    if len(header) != 30 or header[:4] != b"PK\x03\x04":
        raise zipfile.BadZipFile(f"bad local header for {info.filename}")
    name_len, extra_len = struct.unpack("<HH", header[26:30])
    name = fp.read(name_len).decode("utf-8" if info.flag_bits & 0x800 else "cp437", "replace")
    if name != info.orig_filename:
        raise zipfile.BadZipFile(f"local header names {name!r}, central directory "
                                 f"{info.orig_filename!r}")
    return info.header_offset + 30 + name_len + extra_len


class _Window(io.RawIOBase):
    """A read-only, seekable view of a byte range of a file (a stored member, in place)."""

    def __init__(self, fp: IO[bytes], start: int, length: int):
        self._fp, self._start, self._length, self._pos = fp, start, length, 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def seek(self, offset: int, whence: int = 0) -> int:
        base = {0: 0, 1: self._pos, 2: self._length}[whence]
        self._pos = max(0, base + offset)
        return self._pos

    def tell(self) -> int:
        return self._pos

    def read(self, size: int | None = -1) -> bytes:
        left = self._length - self._pos
        size = left if size is None or size < 0 else min(size, left)
        if size <= 0:
            return b""
        self._fp.seek(self._start + self._pos)
        data = self._fp.read(size)
        self._pos += len(data)
        return data

    def readinto(self, buffer: Any) -> int:
        data = self.read(len(buffer))
        buffer[:len(data)] = data
        return len(data)


class _ZlibInflater:
    """zlib behind the interface of isal's ``IgzipDecompressor`` (used only without isal)."""

    def __init__(self) -> None:
        self._inflate = zlib.decompressobj(-15)
        self.crc = 0

    @property
    def eof(self) -> bool:
        return self._inflate.eof

    @property
    def needs_input(self) -> bool:
        return not self._inflate.unconsumed_tail

    def decompress(self, data: bytes | memoryview, max_length: int) -> bytes:
        chunk = self._inflate.decompress(self._inflate.unconsumed_tail + data, max_length)
        self.crc = zlib.crc32(chunk, self.crc)
        return chunk


def _inflater() -> Any:
    """A raw-deflate decompressor that computes the CRC-32 of what it inflates (isal does it
    while inflating, so the CRC costs no second pass over the bytes)."""
    if _isal is None:  # isal is a runtime dependency; tests take this path too
        return _ZlibInflater()
    return _isal.IgzipDecompressor(flag=_isal.DECOMP_GZIP_NO_HDR)


def _inflate_errors() -> tuple[type[Exception], ...]:
    return (zlib.error,) if _isal is None else (zlib.error, _isal.IsalError)


def _chunks(fp: IO[bytes], info: zipfile.ZipInfo, start: int) -> Iterator[bytes]:
    """The member's inflated bytes, in chunks of at most ``_CHUNK``, with its size and CRC
    checked (an error after the last chunk when either is wrong)."""
    fp.seek(start)
    left = info.compress_size
    produced = crc = 0
    if info.compress_type == zipfile.ZIP_STORED:
        while left:
            chunk = fp.read(min(left, _CHUNK))
            if not chunk:
                raise zipfile.BadZipFile(f"{info.filename}: truncated")
            left -= len(chunk)
            produced += len(chunk)
            crc = _crc32(chunk, crc)
            yield chunk
    elif info.compress_type == zipfile.ZIP_DEFLATED:
        inflate = _inflater()
        buffer = memoryview(bytearray(min(left, _CHUNK)))  # the decompressor copies what it keeps
        data: bytes | memoryview = b""
        while not inflate.eof:
            if inflate.needs_input:
                if not left:
                    raise zipfile.BadZipFile(f"{info.filename}: deflate stream ends early")
                got = fp.readinto(buffer[:min(left, _CHUNK)])  # type: ignore[attr-defined]
                if not got:
                    raise zipfile.BadZipFile(f"{info.filename}: truncated")
                left -= got
                data = buffer[:got]
            else:
                data = b""
            try:
                chunk = inflate.decompress(data, _CHUNK)
            except _inflate_errors() as exc:
                raise zipfile.BadZipFile(f"{info.filename}: corrupt deflate data ({exc})") from None
            produced += len(chunk)
            if produced > info.file_size:
                raise zipfile.BadZipFile(f"{info.filename}: inflates past its declared size "
                                         f"{info.file_size}")
            if chunk:
                yield chunk
        crc = inflate.crc
    else:
        raise zipfile.BadZipFile(f"{info.filename}: compression method {info.compress_type} "
                                 "(wheels use stored or deflate)")
    if produced != info.file_size:
        raise zipfile.BadZipFile(f"{info.filename}: {produced} bytes, central directory says "
                                 f"{info.file_size}")
    if crc != info.CRC:
        raise zipfile.BadZipFile(f"{info.filename}: CRC mismatch (data corrupt)")


class _Sink:
    """What happens to each inflated chunk: sha256, kept text, ELF byte ranges kept."""

    def __init__(self, keep_text: bool, elf_size: int | None):
        self.size = 0
        self.digest = hashlib.sha256()
        self.text = bytearray() if keep_text else None
        self._elf_size = elf_size
        self.elf: ElfCollector | None = None
        self.secrets: secret_shapes.Finder | None = None

    def feed(self, chunk: bytes) -> None:
        if self.size == 0:
            if self._elf_size is not None and chunk[:4] == ELF_MAGIC:
                self.elf = ElfCollector(self._elf_size)
            if not secret_shapes.looks_compiled(chunk):
                self.secrets = secret_shapes.Finder()
        if self.secrets is not None:
            self.secrets.feed(chunk)
        self.digest.update(chunk)
        if self.text is not None:
            self.text += chunk
        if self.elf is not None:
            self.elf.feed(chunk)
        self.size += len(chunk)


def _is_text_member(name: str) -> bool:
    top = name.split("/", 1)[0]
    return top.endswith(".dist-info") or name.rsplit("/", 1)[-1] in _TEXT_MEMBERS


def inflation_bounds(infos: Sequence[zipfile.ZipInfo]) -> tuple[set[str], list[tuple[str | None, str]]]:
    """Members not to inflate, and why: the zip-bomb bounds (``MAX_INFLATED``, ``MAX_RATIO``).

    Decided from the central directory alone, so an oversized member is never inflated;
    ``_chunks`` stops any member at its declared size, so a lying directory cannot get
    past the bounds either. Once the running total passes ``MAX_INFLATED``, that member
    and every later one are skipped.
    """
    skip: set[str] = set()
    found: list[tuple[str | None, str]] = []
    total = 0
    for info in infos:
        if info.is_dir():
            continue
        if total + info.file_size > MAX_INFLATED:
            if not found or found[-1][0] is not None:
                declared = sum(i.file_size for i in infos)
                found.append((None, f"members inflate to {declared:,} bytes in total, more than "
                                    f"the {MAX_INFLATED:,} a jax-rocm wheel may hold (zip bomb?); "
                                    f"not inflated from {info.filename} on"))
            skip.add(info.filename)
            total = MAX_INFLATED + 1
            continue
        total += info.file_size
        if info.file_size > RATIO_FLOOR and info.file_size > MAX_RATIO * max(info.compress_size, 1):
            ratio = info.file_size / max(info.compress_size, 1)
            found.append((info.filename, f"inflates {ratio:,.0f}x ({info.compress_size:,} -> "
                                         f"{info.file_size:,} bytes), more than {MAX_RATIO}x "
                                         "(zip bomb?); not inflated"))
            skip.add(info.filename)
    return skip, found


# Core metadata fields that appear at most once (METADATA, WHEEL): a second value is read
# differently by different installers.
SINGLE_FIELDS = {"METADATA": ("Metadata-Version", "Name", "Version", "Requires-Python", "Summary"),
                 "WHEEL": ("Wheel-Version", "Root-Is-Purelib")}


def archive_problems(zf: zipfile.ZipFile, fp: IO[bytes]) -> list[tuple[str | None, str]]:
    """What makes an archive not a plain wheel, whatever its contents: bytes before the first
    member (another reader may see another archive), a member named twice, a local header
    that disagrees with the central directory, a symbolic link or special file, and
    setuid, setgid or sticky bits (an installer may keep them)."""
    infos = zf.infolist()
    found: list[tuple[str | None, str]] = []
    first = min((i.header_offset for i in infos), default=0)
    if first > 0:
        found.append((None, f"{first:,} bytes before the first member (data prepended to the zip)"))
    seen: set[str] = set()
    for info in infos:
        if info.filename in seen:
            found.append((info.filename, "appears twice in the archive"))
        seen.add(info.filename)
        kind = (info.external_attr >> 16) & 0o170000
        if info.create_system == 3 and kind not in (0, stat.S_IFREG, stat.S_IFDIR):
            what = "a symbolic link" if kind == stat.S_IFLNK else "a special file (device, pipe or socket)"
            found.append((info.filename, f"is {what}; a wheel holds regular files only"))
        mode = (info.external_attr >> 16) & 0o7777
        if mode & 0o7000:
            found.append((info.filename, f"has setuid, setgid or sticky bits (mode {mode:#o}); "
                                         "a wheel's files are plain 0o644 or 0o755"))
        if not info.is_dir():
            try:
                data_offset(fp, info)
            except zipfile.BadZipFile as exc:
                found.append((info.filename, str(exc)))
    return found


def _field_problems(members: list[Member]) -> list[tuple[str | None, str]]:
    found: list[tuple[str | None, str]] = []
    for member in members:
        parent, _, base = member.name.rpartition("/")
        if not parent.endswith(".dist-info") or "/" in parent or base not in SINGLE_FIELDS or member.text is None:
            continue
        headers = Headers(member.text.decode("utf-8", "replace"))
        for field in SINGLE_FIELDS[base]:
            values = headers.get_all(field) or []
            if len(values) > 1:
                found.append((member.name, f"has {len(values)} {field}: fields; expected one"))
    return found


def scan_wheel(path: Path, progress: Progress | None = None) -> Scan:
    """Read every member once: CRC, sha256, size, small texts, ELF facts.

    ``progress(n)`` is called with the number of uncompressed bytes just read.
    """
    path = Path(path)
    with open_wheel(path) as zf, open(path, "rb") as fp:
        members: list[Member] = []
        problems = archive_problems(zf, fp)
        skip, oversize = inflation_bounds(zf.infolist())
        for info in zf.infolist():
            member = Member(info.filename, info.file_size, (info.external_attr >> 16) & 0o7777)
            members.append(member)
            if info.is_dir():
                continue
            if info.filename in skip:
                member.error = "not inflated: over the size bounds"
                continue
            try:
                start = data_offset(fp, info)
                _read_member(fp, info, start, member, progress)
            except zipfile.BadZipFile as exc:
                member.error = str(exc)
                if (info.filename, str(exc)) not in problems:
                    problems.append((info.filename, str(exc)))
        return Scan(path, members, problems + _field_problems(members), oversize)


def _read_member(fp: IO[bytes], info: zipfile.ZipInfo, start: int, member: Member,
                 progress: Progress | None) -> None:
    stored = info.compress_type == zipfile.ZIP_STORED
    sink = _Sink(_is_text_member(info.filename) and info.file_size <= _TEXT_LIMIT,
                 None if stored else info.file_size)
    for chunk in _chunks(fp, info, start):
        sink.feed(chunk)
        if progress:
            progress(len(chunk))
    member.sha256, member.read_size = record_hash(sink.digest.digest()), sink.size
    member.text = bytes(sink.text) if sink.text is not None else None
    member.secret = sink.secrets.found if sink.secrets is not None else None
    if sink.elf is not None:
        member.elf = streamed_facts(sink.elf, lambda: _chunks(fp, info, start))
    elif stored and info.file_size >= 4:
        window = _Window(fp, start, info.compress_size)
        if window.read(4) == ELF_MAGIC:
            member.elf = elf_facts(window)


def elf_facts(stream: IO[bytes] | io.RawIOBase) -> ElfFacts:
    """RUNPATH, RPATH, NEEDED and the newest GLIBC version needed, from a seekable stream."""
    size = stream.seek(0, 2)
    return facts_or_error(file_reader(stream), size)


def payload_size(path: Path) -> int:
    """Uncompressed bytes of a wheel (the total for a progress bar)."""
    with open_wheel(path) as zf:
        return sum(i.file_size for i in zf.infolist())


# ---------------------------------------------------------------- what a kept member says


def module_constants(source: str) -> dict[str, object]:
    """Top-level ``NAME = <literal>`` (and annotated) assignments of a Python file."""
    tree = ast.parse(source)
    values: dict[str, object] = {}
    for node in tree.body:
        targets: list[ast.expr]
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets, value = [node.target], node.value
        else:
            continue
        for target in targets:
            if isinstance(target, ast.Name):
                try:
                    values[target.id] = ast.literal_eval(value)
                except ValueError:
                    values[target.id] = ast.unparse(value)
    return values


_HEADER_LINE = re.compile(r"^(From |[\041-\071\073-\176]*:|[\t ])")
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+")  # a line with its ending


class Headers:
    """The header fields of a METADATA or WHEEL file, read as Python's email parser reads them
    (compat32): names case-insensitive, repeated fields kept in order, continuation lines
    joined, the section ending at the first blank or non-header line, the rest the ``body``
    (METADATA's long description). The package's one reader of core metadata fields (the
    bytes come from ``release.core.core_metadata.read``); written out here so verify does not
    load the email package for two small files."""

    def __init__(self, text: str):
        self._fields: list[tuple[str, str]] = []
        self.body = ""
        section = []
        at = 0
        for line in _LINE.findall(text):
            if not _HEADER_LINE.match(line):  # the blank separator line, or the body begun without one
                self.body = text[at + len(line):] if line in ("\n", "\r\n", "\r") else text[at:]
                break
            section.append(line)
            at += len(line)
        field: list[str] = []
        for line in section:
            if line[0] in " \t":
                if field:
                    field.append(line)
                continue  # a continuation with nothing to continue is dropped
            self._add(field)
            field = []
            if line.startswith("From "):
                continue  # an mbox envelope line, not a field
            if line.find(":") > 0:  # ":" first: a field without a name, dropped
                field = [line]
        self._add(field)

    def _add(self, lines: list[str]) -> None:
        if lines:
            name, value = lines[0].split(":", 1)
            self._fields.append((name.lower(), (value.lstrip(" \t") + "".join(lines[1:]))
                                 .rstrip("\r\n")))

    def get(self, name: str) -> str | None:
        """The first value of field ``name``, or None."""
        return next((v for k, v in self._fields if k == name.lower()), None)

    def get_all(self, name: str) -> list[str] | None:
        """Every value of field ``name`` in order, or None when there is none."""
        return [v for k, v in self._fields if k == name.lower()] or None

    def items(self) -> list[tuple[str, str]]:
        """Every field in order, as (lower-case name, value)."""
        return list(self._fields)
