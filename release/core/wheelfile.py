"""Write and read wheels: streaming, reproducible, fast; a plain zip that pip installs.

A 500 MB shared object must not cost 500 MB of memory or 20 s of deflate, and two
builds of the same inputs must give the same bytes (so a re-run can be checked and
a promotion can be diffed). So members are written in the order they are added,
with one fixed timestamp (``SOURCE_DATE_EPOCH``, else 1980-01-01), fixed
permissions and no extra fields; large files are deflated in fixed-size chunks on
threads (isal, each chunk primed with the previous 32 KiB, like pigz), while the
CRC, the sha256 and the size for RECORD are computed on the same pass. Each
member's CRC and sizes follow its data (a data descriptor, general-purpose flag bit
3, as zip streaming writers do), so the file is written strictly in order, never
seeked, and its own sha256 is known when it closes. The ``.dist-info`` members come
last and ``RECORD`` is written by ``close()``.

Public API (other steps import these):

    with WheelWriter(path, dist_info="jax_rocm7_pjrt-0.9.1.dist-info",
                     epoch=None, level=3, threads=None, on_bytes=None) as w:   # on_bytes(n): progress
        w.add_file("jax_plugins/xla_rocm7/xla_rocm_plugin.so", src)   # streamed; 0o755 if src is executable
        w.add_bytes("jax_plugins/xla_rocm7/version.py", text)         # str or bytes, 0o644
        w.add_raw(other_wheel, "pkg/big.so", record=("sha256=...", n)) # copy compressed bytes as is
        w.add_bytes("jax_rocm7_pjrt-0.9.1.dist-info/METADATA", metadata)
    # -> <dist_info>/RECORD written last, central directory, then the file is renamed
    #    into place (written as ``path + ".part"``; an exception leaves nothing behind).
    w.sha256 -> hex sha256 of the finished wheel file (after close)

    members(path) -> list[Member]          # name, size, compressed_size, crc, mode, method, offset
    read_member(path, name) -> bytes
    read_record(path) -> dict[name, (hash, size)]   # "sha256=<urlsafe b64>", int (None for RECORD)
    record_hash(data) / hash_file(path) -> ("sha256=...", size)
    dist_info_dir(path) -> "name-version.dist-info"

Limits: no zip64, so every member and the archive stay below 4 GiB (GitHub assets
must stay below 2 GiB anyway).
"""

from __future__ import annotations

import base64
import contextlib
import csv
import dataclasses
import errno
import hashlib
import io
import os
import stat
import struct
import threading
import time
import zipfile
from collections import deque
from glob import escape as glob_escape
from pathlib import Path
from queue import SimpleQueue
from types import TracebackType
from typing import BinaryIO, Callable, Mapping, Protocol

from isal import isal_zlib

from release.core.processes import alive

CHUNK = 4 << 20          # input bytes per deflate job; fixed so output does not depend on threads
WINDOW = 32 << 10        # deflate window: each chunk is primed with the previous chunk's tail
DEFAULT_LEVEL = 3        # isal levels are 0..3; 3 is within 10% of zlib -6 at ~10x the speed
# isal's "small" level buffer (zlib memLevel 2-3): Huffman tables refit to each ~smaller stretch
# of input, so both real plugin .so files come out 0.3-0.5% smaller than at the default (large)
# buffer for about the same CPU: 1.098x zlib -6 instead of 1.105x on jax-rocm7-pjrt 0.10.0's
MEM_LEVEL = 2
MIN_EPOCH = 315532800    # 1980-01-01T00:00:00Z, the earliest time a zip can hold
MAX_EPOCH = 4354819199   # 2107-12-31T23:59:59Z, the last
_LIMIT = 0xFFFFFFFF
_LOCAL = struct.Struct("<IHHHHHIIIHH")
_CENTRAL = struct.Struct("<IHHHHHHIIIHHHHHII")
_END = struct.Struct("<IHHHHIIH")
_MADE_BY = (3 << 8) | 20   # Unix, zip 2.0
_FINAL_EMPTY_BLOCK = b"\x03\x00"
_DESCRIPTOR = 0x08


def source_date_epoch(environ: Mapping[str, str] | None = None) -> int:
    """The timestamp every member gets: ``$SOURCE_DATE_EPOCH`` if set, else 1980-01-01."""
    value = (environ if environ is not None else os.environ).get("SOURCE_DATE_EPOCH")
    if value is None or value == "":
        return MIN_EPOCH
    try:
        epoch: int | None = int(value)
    except ValueError:
        epoch = None
    if epoch is None or epoch > MAX_EPOCH:  # a zip's DOS time ends with 2107
        from release.core.errors import UserError
        raise UserError(f"SOURCE_DATE_EPOCH={value!r}: expected a whole number of seconds "
                        f"up to {MAX_EPOCH} (2107-12-31, the last time a zip can hold)")
    return max(epoch, MIN_EPOCH)


def _dos_time(epoch: int) -> tuple[int, int]:
    t = time.gmtime(max(epoch, MIN_EPOCH))
    return ((t.tm_hour << 11) | (t.tm_min << 5) | (t.tm_sec // 2),
            ((t.tm_year - 1980) << 9) | (t.tm_mon << 5) | t.tm_mday)


def record_hash(data: bytes) -> tuple[str, int]:
    """``("sha256=<urlsafe b64, no padding>", size)`` as RECORD writes it."""
    return _b64_hash(hashlib.sha256(data)), len(data)


def hash_file(path: Path) -> tuple[str, int]:
    digest, size = hashlib.sha256(), 0
    with open(path, "rb") as handle:
        while block := handle.read(1 << 20):
            digest.update(block)
            size += len(block)
    return _b64_hash(digest), size


class _Digest(Protocol):
    def digest(self) -> bytes: ...


def _b64_hash(digest: _Digest) -> str:
    return "sha256=" + base64.urlsafe_b64encode(digest.digest()).rstrip(b"=").decode("ascii")


@dataclasses.dataclass
class _Entry:
    """A central directory entry as it is read, before it becomes a ``Member``."""

    name: bytes
    flags: int
    method: int
    crc: int
    compressed_size: int
    size: int
    mode: int
    offset: int


class WheelWriter:
    """A wheel being written; see the module docstring."""

    def __init__(self, path: Path | str, dist_info: str, *, epoch: int | None = None, level: int = DEFAULT_LEVEL,
                 threads: int | None = None, on_bytes: Callable[[int], None] | None = None):
        if not dist_info.endswith(".dist-info") or "/" in dist_info:
            raise ValueError(f"dist_info {dist_info!r} is not a 'name-version.dist-info' directory")
        self.path = Path(path)
        self.dist_info = dist_info
        self.level = level
        self._time, self._date = _dos_time(source_date_epoch() if epoch is None else epoch)
        self._threads = threads or min(8, os.cpu_count() or 1)
        # One name per writer: two runs writing the same wheel never share (and break) a temp file.
        self._part = self.path.with_name(f"{self.path.name}.{os.getpid()}-{os.urandom(4).hex()}.part")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._out: BinaryIO | None = open(self._part, "xb")
        self._entries: list[_Entry] = []
        self._record: list[tuple[str, str, int]] = []
        self._in_dist_info = False
        self._pool: _Deflaters | None = None
        self._buffers: list[memoryview] = []
        self._on_bytes = on_bytes  # progress: called with the input bytes of each chunk read
        self._sha = hashlib.sha256()  # of the archive itself, as written
        self._pos = 0
        self.sha256: str | None = None  # hex digest of the finished wheel, set by close()

    # ------------------------------------------------------------------ adding

    def add_file(self, arcname: str, src: Path | str, mode: int | None = None) -> None:
        """Stream the file ``src`` into the wheel (memory stays flat whatever its size)."""
        try:
            fd = os.open(src, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
        except OSError as exc:
            if exc.errno == errno.ELOOP:  # what a link names may be anything: /proc/self/environ
                raise ValueError(f"{src}: a symbolic link; a wheel holds regular files only") from None
            raise
        with open(fd, "rb") as handle:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):  # a link fails the open (ELOOP); a pipe or device here
                raise ValueError(f"{src}: not a regular file; a wheel holds regular files only")
            if mode is None:
                mode = 0o755 if info.st_mode & stat.S_IXUSR else 0o644
            self._add_stream(arcname, handle, mode)

    def add_bytes(self, arcname: str, data: bytes | str, mode: int = 0o644) -> None:
        if isinstance(data, str):
            data = data.encode("utf-8")
        self._add_stream(arcname, io.BytesIO(data), mode)

    def add_raw(self, source: Path | str, member: str, arcname: str | None = None,
                record: tuple[str, int] | None = None) -> None:
        """Copy ``member`` of the zip ``source`` without re-compressing it.

        ``record`` is the member's ``(hash, size)`` for RECORD, e.g. from the source's
        RECORD; without it the member is inflated once to hash it.
        """
        arcname = arcname or member
        with zipfile.ZipFile(source) as zf:
            info = zf.getinfo(member)
            if record is None:
                digest = hashlib.sha256()
                with zf.open(info) as handle:
                    while block := handle.read(1 << 20):
                        digest.update(block)
                record = (_b64_hash(digest), info.file_size)
        if record[1] != info.file_size:
            raise ValueError(f"{source}: {member} is {info.file_size} bytes, RECORD says {record[1]}")
        entry = self._begin(arcname, (info.external_attr >> 16) & 0o7777 or 0o644, info.compress_type)
        with open(source, "rb") as src:
            src.seek(info.header_offset)
            header = src.read(_LOCAL.size)
            fields = _LOCAL.unpack(header)
            if fields[0] != 0x04034B50:
                raise ValueError(f"{source}: no local header for {member}")
            src.seek(info.header_offset + _LOCAL.size + fields[9] + fields[10])
            remaining = info.compress_size
            while remaining:
                block = src.read(min(remaining, 1 << 20))
                if not block:
                    raise ValueError(f"{source}: {member} is truncated")
                self._emit(block)
                remaining -= len(block)
        self._finish(entry, info.CRC, info.compress_size, info.file_size, record[0])

    # ------------------------------------------------------------------ internals

    def _begin(self, arcname: str, mode: int, method: int, *, closing: bool = False) -> _Entry:
        if self._out is None:
            raise ValueError("wheel already closed")
        in_dist_info = arcname.startswith(self.dist_info + "/")
        if self._in_dist_info and not in_dist_info:
            raise ValueError(f"{arcname}: payload members must come before {self.dist_info}/")
        if arcname == f"{self.dist_info}/RECORD" and not closing:
            raise ValueError("RECORD is written by close()")
        if arcname.startswith("/") or ".." in arcname.split("/") or arcname.endswith("/"):
            raise ValueError(f"{arcname!r} is not a relative file path")
        if any(e.name == arcname.encode("utf-8") for e in self._entries):
            raise ValueError(f"{arcname} added twice")
        self._in_dist_info = in_dist_info
        name = arcname.encode("utf-8")
        # bit 3: CRC and sizes follow the data (a data descriptor), so nothing is written
        # twice and the archive's own sha256 is computed on the way out
        flags = _DESCRIPTOR | (0x800 if not arcname.isascii() else 0)
        entry = _Entry(name, flags, method, 0, 0, 0, mode, self._pos)
        self._emit(_LOCAL.pack(0x04034B50, 20, flags, method, self._time, self._date,
                               0, 0, 0, len(name), 0))
        self._emit(name)
        return entry

    def _finish(self, entry: _Entry, crc: int, compressed: int, size: int, digest: str | None) -> None:
        if max(compressed, size, self._pos) >= _LIMIT:
            raise ValueError(f"{entry.name.decode()}: over 4 GiB needs zip64, which this writer "
                             "does not write")
        self._emit(struct.pack("<IIII", 0x08074B50, crc, compressed, size))
        entry.crc, entry.compressed_size, entry.size = crc, compressed, size
        self._entries.append(entry)
        if digest is not None:
            self._record.append((entry.name.decode("utf-8"), digest, size))

    def _add_stream(self, arcname: str, handle: BinaryIO, mode: int) -> None:
        entry = self._begin(arcname, mode, zipfile.ZIP_DEFLATED)
        digest, crc, size, compressed = hashlib.sha256(), 0, 0, 0
        pending: deque[_Job] = deque()
        previous = b""
        # Chunks are read into a ring of reused buffers (a fresh 4 MiB object per chunk costs a
        # page fault per 4 KiB); a buffer comes round again only after its chunk's deflate was
        # collected: at most threads + 1 are pending, and the ring holds one more.
        buffers = self._ring()
        turn = 0
        while True:
            buffer = buffers[turn % len(buffers)]
            turn += 1
            got = handle.readinto(buffer)  # type: ignore[attr-defined]  # files and BytesIO have it
            if not got:
                break
            block = buffer[:got]
            digest.update(block)
            crc = isal_zlib.crc32(block, crc)
            size += got
            if self._on_bytes:
                self._on_bytes(got)
            if self._threads > 1 and (pending or got == CHUNK):
                pending.append(self._executor().submit(block, previous, self.level))
                while len(pending) > self._threads + 1:
                    compressed += self._write(pending.popleft().result())
            else:
                compressed += self._write(_deflate(block, previous, self.level))
            previous = bytes(block[-WINDOW:])  # its buffer may be refilled while the next chunk deflates
        while pending:
            compressed += self._write(pending.popleft().result())
        compressed += self._write(_FINAL_EMPTY_BLOCK)
        self._finish(entry, crc & 0xFFFFFFFF, compressed, size, _b64_hash(digest))

    def _ring(self) -> list[memoryview]:
        """The writer's read buffers, made on first use (``threads + 2`` chunks: see ``_add_stream``)."""
        if not self._buffers:
            count = self._threads + 2 if self._threads > 1 else 1
            self._buffers = [memoryview(bytearray(CHUNK)) for _ in range(count)]
        return self._buffers

    def _write(self, data: bytes) -> int:
        self._emit(data)
        return len(data)

    def _emit(self, data: bytes) -> None:
        if self._out is None:
            raise ValueError("wheel already closed")
        self._out.write(data)
        self._sha.update(data)
        self._pos += len(data)

    def _executor(self) -> _Deflaters:
        if self._pool is None:
            self._pool = _Deflaters(self._threads)
        return self._pool

    # ------------------------------------------------------------------ closing

    def _record_text(self) -> bytes:
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        for name, digest, size in self._record:
            writer.writerow((name, digest, size))
        writer.writerow((f"{self.dist_info}/RECORD", "", ""))
        return buf.getvalue().encode("utf-8")

    def close(self) -> Path:
        """Write RECORD and the central directory, then move the wheel into place."""
        out = self._out
        if out is None:
            return self.path
        try:
            self._write_tail()
        except BaseException:
            self.abort()
            raise
        out.close()
        self._out = None
        self._shutdown()
        os.replace(self._part, self.path)
        self.sha256 = self._sha.hexdigest()
        _remove_dead_parts(self.path)
        return self.path

    def _write_tail(self) -> None:
        record = self._record_text()
        entry = self._begin(f"{self.dist_info}/RECORD", 0o644, zipfile.ZIP_DEFLATED, closing=True)
        body = _deflate(record, b"", self.level) + _FINAL_EMPTY_BLOCK
        self._emit(body)
        self._finish(entry, isal_zlib.crc32(record) & 0xFFFFFFFF, len(body), len(record), None)
        start = self._pos
        for e in self._entries:
            self._emit(_CENTRAL.pack(0x02014B50, _MADE_BY, 20, e.flags, e.method, self._time,
                                          self._date, e.crc, e.compressed_size, e.size,
                                          len(e.name), 0, 0, 0, 0,
                                          ((stat.S_IFREG | e.mode) << 16) & 0xFFFFFFFF, e.offset))
            self._emit(e.name)
        end = self._pos
        if end >= _LIMIT or len(self._entries) >= 0xFFFF:
            raise ValueError("wheel too large for a zip without zip64")
        self._emit(_END.pack(0x06054B50, 0, 0, len(self._entries), len(self._entries),
                                  end - start, start, 0))

    def abort(self) -> None:
        """Drop the partial file (an exception inside ``with`` does this)."""
        if self._out is not None:
            self._out.close()
            self._out = None
        self._shutdown()
        self._part.unlink(missing_ok=True)

    def _shutdown(self) -> None:
        if self._pool is not None:
            self._pool.shutdown()
            self._pool = None

    def __enter__(self) -> WheelWriter:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if exc_type is None:
            self.close()
        else:
            self.abort()


def _deflate(block: bytes | memoryview, previous: bytes, level: int) -> bytes:
    """Raw deflate of one chunk, byte-aligned (sync flush) so chunks concatenate."""
    if previous:
        comp = isal_zlib.compressobj(level, isal_zlib.DEFLATED, -15, MEM_LEVEL, zdict=previous)
    else:
        comp = isal_zlib.compressobj(level, isal_zlib.DEFLATED, -15, MEM_LEVEL)
    return comp.compress(block) + comp.flush(isal_zlib.Z_SYNC_FLUSH)


class _Job:
    """One chunk's deflate: ``result()`` waits for it (and raises what it raised)."""

    __slots__ = ("_done", "_value", "_error")

    def __init__(self) -> None:
        self._done = threading.Lock()
        self._done.acquire()  # released by the worker when the chunk is deflated
        self._value = b""
        self._error: BaseException | None = None

    def result(self) -> bytes:
        with self._done:
            if self._error is not None:
                raise self._error
            return self._value


class _Deflaters:
    """Worker threads deflating chunks (isal lets go of the GIL while it deflates). Not
    ``concurrent.futures``: its import (logging, traceback, textwrap) is a tenth of what a small
    build's start-up costs, for a queue and a lock per chunk that this is."""

    def __init__(self, threads: int):
        self._jobs: SimpleQueue[tuple[_Job, memoryview | bytes, bytes, int] | None] = SimpleQueue()
        self._workers = [threading.Thread(target=self._work, name=f"deflate-{i}", daemon=True)
                         for i in range(threads)]
        for worker in self._workers:
            worker.start()

    def submit(self, block: memoryview | bytes, previous: bytes, level: int) -> _Job:
        job = _Job()
        self._jobs.put((job, block, previous, level))
        return job

    def _work(self) -> None:
        while (item := self._jobs.get()) is not None:
            job, block, previous, level = item
            try:
                job._value = _deflate(block, previous, level)
            except BaseException as exc:  # noqa: BLE001 - handed to whoever waits on the chunk
                job._error = exc
            finally:
                job._done.release()

    def shutdown(self) -> None:
        """Let every queued chunk finish, then end the workers."""
        for _ in self._workers:
            self._jobs.put(None)
        for worker in self._workers:
            worker.join()


# ---------------------------------------------------------------------- reading


@dataclasses.dataclass(frozen=True)
class Member:
    """A member of a wheel as its central directory records it."""

    name: str
    size: int
    compressed_size: int
    crc: int
    mode: int
    method: int
    offset: int


def members(path: Path | str) -> list[Member]:
    """The members of a wheel in archive order (central directory only; nothing inflated)."""
    with zipfile.ZipFile(path) as zf:
        return [Member(i.filename, i.file_size, i.compress_size, i.CRC, (i.external_attr >> 16) & 0o7777,
                       i.compress_type, i.header_offset) for i in zf.infolist()]


def read_member(path: Path | str, name: str) -> bytes:
    with zipfile.ZipFile(path) as zf:
        return zf.read(name)


def dist_info_dir(path: Path | str) -> str:
    """The wheel's ``name-version.dist-info`` directory (the one holding RECORD)."""
    names = [m.name for m in members(path) if m.name.count("/") == 1 and m.name.endswith(".dist-info/RECORD")]
    if len(names) != 1:
        raise ValueError(f"{path}: expected one .dist-info/RECORD, found {len(names)}")
    return names[0].split("/")[0]


def read_record(path: Path | str) -> dict[str, tuple[str, int | None]]:
    """RECORD of a wheel: ``{name: (hash, size)}``; RECORD's own row is ``("", None)``."""
    text = read_member(path, f"{dist_info_dir(path)}/RECORD").decode("utf-8")
    rows: dict[str, tuple[str, int | None]] = {}
    for row in csv.reader(io.StringIO(text)):
        if not row:
            continue
        name, digest, size = (row + ["", ""])[:3]
        rows[name] = (digest, int(size) if size else None)
    return rows


def _remove_dead_parts(path: Path) -> None:
    """Temp files of ``path`` left by writers that died (a crash, a kill): their process is gone.
    A live writer's temp file is its own and is left alone."""
    for part in path.parent.glob(f"{glob_escape(path.name)}.*part"):
        owner = part.name[len(path.name) + 1:].split("-", 1)[0]
        if owner == "part" or (owner.isdigit() and not alive(int(owner))):
            with contextlib.suppress(OSError):
                part.unlink()

