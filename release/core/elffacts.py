"""What the dynamic loader reads from a shared object: RUNPATH, RPATH, NEEDED, SONAME, and the
symbol versions it needs (GLIBC_x.y, GLIBCXX_3.4.z, ...) from each library.

Parsed the way ld.so finds them (ELF header -> program headers -> PT_DYNAMIC -> DT_STRTAB and
DT_VERNEED), so section headers, symbol tables and code are never read. Every read goes through
``read(offset, size)``, which lets one parser work over a file, a stored zip member read in
place, or ``ElfCollector``: the few byte ranges of a deflated member kept while it streams past
(a few kilobytes of a 500 MB object), so verify never writes the object to disk.
"""

from __future__ import annotations

import dataclasses
import re
import struct
from pathlib import Path
from typing import Callable, Iterable, Protocol

ELF_MAGIC = b"\x7fELF"
_GLIBC = re.compile(r"^GLIBC_(\d+)\.(\d+)(?:\.\d+)?\Z", re.ASCII)
_PT_LOAD, _PT_DYNAMIC = 1, 2
_DT_NULL, _DT_NEEDED, _DT_STRTAB, _DT_STRSZ, _DT_SONAME, _DT_RPATH, _DT_RUNPATH = 0, 1, 5, 10, 14, 15, 29
_DT_VERNEED, _DT_VERNEEDNUM = 0x6FFFFFFE, 0x6FFFFFFF
_MAX_VERNEED = 1 << 16  # entries; more means a hostile file, not a shared object
HEAD = 8 << 20  # bytes kept from the start of a streamed object: where linkers put .dynstr & co
_NEAR = 64 << 10  # a range missed on one pass is re-read with this much around it
PASSES = 3  # streaming passes over one member before its ELF facts count as unreadable


@dataclasses.dataclass(frozen=True)
class ElfFacts:
    """What the loader will see in one shared object."""

    runpath: tuple[str, ...] | None
    rpath: tuple[str, ...] | None
    needed: tuple[str, ...]
    glibc: tuple[int, int] | None  # the newest GLIBC_x.y version it needs
    error: str | None = None
    soname: str | None = None
    # (library, version) of every symbol version it needs (.gnu.version_r: vn_file, vna_name),
    # such as ("libstdc++.so.6", "GLIBCXX_3.4.21"): what the manylinux policy bounds
    versions: tuple[tuple[str, str], ...] = ()


class Missing(Exception):
    """A read of bytes the reader does not hold (``ElfCollector`` only)."""

    def __init__(self, offset: int, size: int):
        super().__init__(f"bytes {offset}..{offset + size} not kept")
        self.offset, self.size = offset, size


Read = Callable[[int, int], bytes]


def _layout(ident: bytes) -> tuple[struct.Struct, struct.Struct, struct.Struct, str, bool]:
    if ident[:4] != ELF_MAGIC:
        raise ValueError("no ELF magic")
    if ident[4] not in (1, 2) or ident[5] not in (1, 2):
        raise ValueError(f"ELF class {ident[4]} / data encoding {ident[5]} is neither 32/64-bit "
                         "nor little/big-endian")
    end = "<" if ident[5] == 1 else ">"
    if ident[4] == 2:  # ELFCLASS64
        return (struct.Struct(end + "HHIQQQIHHHHHH"), struct.Struct(end + "IIQQQQQQ"),
                struct.Struct(end + "qQ"), end, True)
    return (struct.Struct(end + "HHIIIIIHHHHHH"), struct.Struct(end + "IIIIIIII"),
            struct.Struct(end + "iI"), end, False)


def read_facts(read: Read, size: int) -> ElfFacts:
    """The loader's view of the ``size``-byte object behind ``read``.

    Raises ``ValueError`` (or ``struct.error``/``UnicodeDecodeError``) for a malformed object and
    lets ``Missing`` through, so a collector can ask for the bytes it lacks.
    """

    def take(offset: int, length: int) -> bytes:
        if offset < 0 or length < 0 or offset + length > size:
            raise ValueError(f"bytes {offset}..{offset + length} lie outside the {size}-byte file")
        data = read(offset, length)
        if len(data) != length:
            raise ValueError(f"short read at {offset}")
        return data

    header, phdr, dyn, end, wide = _layout(take(0, 16))
    fields = header.unpack(take(16, header.size))
    phoff, phentsize, phnum = fields[4], fields[8], fields[9]
    if phnum and phentsize < phdr.size:
        raise ValueError(f"program header entries of {phentsize} bytes")
    table = take(phoff, phnum * phentsize)
    loads, dynamic = [], None
    for i in range(phnum):
        p = phdr.unpack_from(table, i * phentsize)
        if wide:
            p_type, _flags, p_offset, p_vaddr, _paddr, p_filesz = p[:6]
        else:
            p_type, p_offset, p_vaddr, _paddr, p_filesz = p[:5]
        if p_type == _PT_LOAD:
            loads.append((p_vaddr, p_offset, p_filesz))
        elif p_type == _PT_DYNAMIC and dynamic is None:
            dynamic = (p_offset, p_filesz)
    if dynamic is None:  # a static object: nothing for the loader to search
        return ElfFacts(None, None, (), None)

    def file_offset(address: int) -> int:
        for vaddr, offset, filesz in loads:
            if vaddr <= address < vaddr + filesz:
                return address - vaddr + offset
        raise ValueError(f"address {address:#x} is in no loaded segment")

    entries = take(*dynamic)
    tags: list[tuple[int, int]] = []
    for at in range(0, len(entries) - dyn.size + 1, dyn.size):
        tag, value = dyn.unpack_from(entries, at)
        if tag == _DT_NULL:
            break
        tags.append((tag, value))
    scalar = {t: v for t, v in reversed(tags)}  # the first of each wins, as in ld.so
    strings = [(t, v) for t, v in tags if t in (_DT_NEEDED, _DT_SONAME, _DT_RPATH, _DT_RUNPATH)]
    verneed = scalar.get(_DT_VERNEED)
    strtab = b""
    if strings or verneed is not None:
        if _DT_STRTAB not in scalar or _DT_STRSZ not in scalar:
            raise ValueError("dynamic section has names but no DT_STRTAB/DT_STRSZ")
        strtab = take(file_offset(scalar[_DT_STRTAB]), scalar[_DT_STRSZ])

    def name(offset: int) -> str:
        stop = strtab.find(b"\0", offset)
        if offset >= len(strtab) or stop < 0:
            raise ValueError(f"string offset {offset} is outside .dynstr")
        return strtab[offset:stop].decode("utf-8")

    runpath = rpath = soname = None
    needed = []
    for tag, value in strings:
        if tag == _DT_NEEDED:
            needed.append(name(value))
        elif tag == _DT_SONAME:
            soname = soname or name(value)
        elif tag == _DT_RUNPATH:
            runpath = (runpath or ()) + tuple(name(value).split(":"))
        else:
            rpath = (rpath or ()) + tuple(name(value).split(":"))
    glibc = None
    versions: list[tuple[str, str]] = []
    if verneed is not None:
        count = scalar.get(_DT_VERNEEDNUM, 0)
        if count > _MAX_VERNEED:
            raise ValueError(f"DT_VERNEEDNUM {count}")
        at = file_offset(verneed)
        for _ in range(count):
            _version, cnt, vn_file, aux, nxt = struct.unpack(end + "HHIII", take(at, 16))
            library = name(vn_file)
            here = at + aux
            for _ in range(cnt):
                _hash, _flags, _other, vna_name, vna_next = struct.unpack(end + "IHHII",
                                                                          take(here, 16))
                version = name(vna_name)
                versions.append((library, version))
                m = _GLIBC.match(version)
                if m:
                    glibc = max(glibc or (0, 0), (int(m.group(1)), int(m.group(2))))
                if not vna_next:
                    break
                here += vna_next
            if not nxt:
                break
            at += nxt
    return ElfFacts(runpath, rpath, tuple(needed), glibc, soname=soname,
                    versions=tuple(dict.fromkeys(versions)))


def facts_or_error(read: Read, size: int) -> ElfFacts:
    """``read_facts``, with a malformed object turned into ``ElfFacts.error`` (an untrusted
    file is a finding, not a traceback)."""
    try:
        return read_facts(read, size)
    except (ValueError, struct.error, UnicodeDecodeError) as exc:
        return ElfFacts(None, None, (), None, error=f"unreadable ELF ({exc.__class__.__name__}: "
                                                    f"{exc})")


class Seekable(Protocol):
    """A seekable binary stream: a file, a zip member's window (``io.RawIOBase``)."""

    def seek(self, offset: int, whence: int = ..., /) -> int: ...

    def read(self, size: int = ..., /) -> bytes | None: ...


def file_reader(stream: Seekable) -> Read:
    """``read`` over a seekable binary stream (a raw stream's None, no data yet, reads as none)."""

    def read(offset: int, size: int) -> bytes:
        stream.seek(offset)
        return stream.read(size) or b""

    return read


class ElfCollector:
    """Keeps the byte ranges ``read_facts`` needs while an object streams past, in order.

    It keeps the first ``HEAD`` bytes (where linkers put .dynsym, .dynstr and the version
    sections), and learns further ranges as their pointers stream by: the program headers, then
    the dynamic segment, then anything it points to further on. A range that had already passed
    (a layout no linker produces by default) is reported by ``missed()``; the caller streams the
    member again with ``again()``, which keeps everything this pass kept plus those ranges.
    """

    def __init__(self, size: int, wanted: Iterable[tuple[int, int]] = (), head: int = HEAD):
        """``size``: the object's length; ``head``: how many leading bytes to keep unasked."""
        self.size = size
        self._head = head
        self._wanted = _merge([(0, min(head, size)), *wanted])
        self._pieces: dict[int, bytearray] = {}  # start -> contiguous bytes, disjoint
        self._pos = 0
        self._last: tuple[int, bytes] = (0, b"")  # the chunk just fed, and where it starts
        self._settled = False
        self._missed: set[tuple[int, int]] = set()  # (offset, size) to keep on the next pass

    def feed(self, chunk: bytes) -> None:
        start, stop = self._pos, self._pos + len(chunk)
        self._pos = stop
        self._last = (start, chunk)
        kept = False
        for lo, hi in self._wanted:
            if hi <= start or lo >= stop:
                continue
            a, b = max(lo, start), min(hi, stop)
            self._add(a, chunk if (a, b) == (start, stop) else chunk[a - start:b - start])
            kept = True
        if kept and not self._settled:
            self._learn()

    def _add(self, start: int, piece: bytes) -> None:
        """Keep ``piece`` at ``start``, merged with the pieces it touches (there are few)."""
        end = start + len(piece)
        for at in sorted(self._pieces):
            data = self._pieces[at]
            if at <= start <= at + len(data):
                if end > at + len(data):
                    data += piece[at + len(data) - start:]
                start, end = at, at + len(data)
                break
        else:
            self._pieces[start] = bytearray(piece)
        for at in sorted(self._pieces):
            if start < at <= end:  # now touching the next piece: join them
                following = self._pieces.pop(at)
                if at + len(following) > end:
                    self._pieces[start] += following[end - at:]
                end = start + len(self._pieces[start])

    def read(self, offset: int, size: int) -> bytes:
        for start, data in self._pieces.items():
            if start <= offset and offset + size <= start + len(data):
                return bytes(data[offset - start:offset - start + size])
        raise Missing(offset, size)

    def _learn(self) -> None:
        """Parse as far as the kept bytes allow; want what lies ahead, note what was missed."""
        for _ in range(64):  # each round keeps more, or returns
            try:
                read_facts(self.read, self.size)
            except Missing as gap:
                lo, hi = gap.offset, gap.offset + gap.size
                last_start, last = self._last
                if lo >= last_start and not any(a <= lo and hi <= b for a, b in self._wanted):
                    # Ahead, or begun in the chunk just fed: want it, keep what has arrived.
                    self._wanted = _merge([*self._wanted, (lo, hi)])
                    if lo < self._pos:
                        self._add(lo, last[lo - last_start:hi - last_start])
                    continue
                if lo >= last_start or (hi > self._pos and any(a <= lo and hi <= b
                                                                for a, b in self._wanted)):
                    return  # being collected right now
                near = max(0, lo - _NEAR)
                self._missed.add((near, min(self.size, hi + _NEAR) - near))
            except (ValueError, struct.error, UnicodeDecodeError):
                pass  # malformed: finish() reports it
            break
        self._settled = True

    def missed(self) -> bool:
        return bool(self._missed)

    def again(self) -> "ElfCollector":
        """A collector for another pass, keeping this pass's ranges plus the missed ones."""
        return ElfCollector(self.size, [*self._wanted, *((o, o + n) for o, n in self._missed)],
                            self._head)

    def kept(self) -> int:
        """Bytes held in memory."""
        return sum(len(p) for p in self._pieces.values())

    def finish(self) -> ElfFacts:
        return facts_or_error(self.read, self.size)


def _merge(ranges: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    """Disjoint, sorted ranges covering ``ranges`` (so each byte is kept once)."""
    merged: list[tuple[int, int]] = []
    for lo, hi in sorted(r for r in ranges if r[0] < r[1]):
        if merged and lo <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(hi, merged[-1][1]))
        else:
            merged.append((lo, hi))
    return merged


def streamed_facts(collector: ElfCollector, stream_again: Callable[[], Iterable[bytes]]) -> ElfFacts:
    """The facts from a collector fed one pass, streaming the object again (at most ``PASSES``
    times in all) while ranges it needed had already gone by."""
    for _ in range(PASSES - 1):
        if not collector.missed():
            break
        collector = collector.again()
        for chunk in stream_again():
            collector.feed(chunk)
    try:
        if collector.missed():
            raise Missing(*min(collector._missed))
        return collector.finish()
    except Missing as gap:
        return ElfFacts(None, None, (), None, error=f"unreadable ELF (its dynamic structures are "
                        f"scattered: {gap} after {PASSES} passes)")


def shared_object_problem(path: Path) -> str | None:
    """Why the file at ``path`` cannot go into a wheel as a shared object, or None.

    The build's gate before packing, so a text file named ``_linalg.so`` (or a static
    object, or a truncated one) never becomes a wheel: ELF magic, an ELF header the
    loader can follow, type ET_DYN.
    """
    try:
        with open(path, "rb") as fh:
            head = fh.read(18)
            if head[:4] != ELF_MAGIC:
                return "not an ELF file"
            facts = facts_or_error(file_reader(fh), Path(path).stat().st_size)
    except OSError as exc:
        return f"unreadable ({exc.strerror})"
    if facts.error:
        return facts.error
    e_type = int.from_bytes(head[16:18], "little" if head[5] == 1 else "big")
    if e_type != 3:  # ET_DYN
        return f"ELF type {e_type}, not a shared object (ET_DYN = 3)"
    return None
