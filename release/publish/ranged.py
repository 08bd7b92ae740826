"""A published wheel's METADATA read with a few byte-range reads, never the whole file.

The index links wheels where the store keeps them and copies none, yet each entry needs the
wheel's ``Requires-Python``. A wheel is a zip whose central directory is at its end and whose
``.dist-info`` is written last, so the zip's end record, the directory and METADATA are usually
in one read of the last ``TAIL`` bytes: for a 150 MB PJRT wheel that is 64 KiB, not 150 MB.
"""

from __future__ import annotations

import io
from typing import IO, Callable, cast

from release.core import core_metadata
from release.core.errors import UserError

TAIL = 64 << 10  # the first read: the end of the zip, where its directory and the dist-info are
MAX_READS = 16  # a wheel whose METADATA needs more range reads than this is refused as malformed

ReadRange = Callable[[int, int], bytes]
"""``(start, length) -> exactly length bytes from start`` of one stored file."""


class RangedFile(io.RawIOBase):
    """A read-only, seekable file over ``read(start, length)``; what was read once is kept."""

    def __init__(self, read: ReadRange, size: int, name: str):
        super().__init__()
        self._read, self._size, self.name = read, int(size), name
        self._pos = 0
        self._chunks: list[tuple[int, bytes]] = []
        self.reads = 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self._pos

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        base = {io.SEEK_SET: 0, io.SEEK_CUR: self._pos, io.SEEK_END: self._size}[whence]
        self._pos = max(0, base + offset)
        return self._pos

    def _cached(self, start: int, end: int) -> bytes | None:
        for at, data in self._chunks:
            if at <= start and end <= at + len(data):
                return data[start - at:end - at]
        return None

    def read(self, size: int = -1) -> bytes:
        end = self._size if size is None or size < 0 else min(self._size, self._pos + size)
        if end <= self._pos:
            return b""
        data = self._cached(self._pos, end)
        if data is None:
            if self.reads >= MAX_READS:
                raise UserError(f"{self.name}: more than {MAX_READS} range reads to find its METADATA; "
                                "not a wheel laid out as wheels are")
            # read at least TAIL bytes, ending at the file's end when near it (the zip's directory)
            start = max(0, min(self._pos, self._size - TAIL))
            stop = max(end, min(self._size, start + TAIL))
            got = self._read(start, stop - start)
            self.reads += 1
            if len(got) != stop - start:
                raise UserError(f"{self.name}: the store answered {len(got)} bytes for a range of "
                                f"{stop - start}; expected exactly the range")
            self._chunks.append((start, got))
            data = got[self._pos - start:end - start]
        self._pos = end
        return data

    def readinto(self, buffer: bytearray) -> int:  # type: ignore[override]
        data = self.read(len(buffer))
        buffer[:len(data)] = data
        return len(data)


def remote_metadata(read: ReadRange, size: int, name: str) -> tuple[bytes, int]:
    """(METADATA bytes, range reads made) of a stored wheel of ``size`` bytes."""
    handle = RangedFile(read, size, name)
    return core_metadata.read(cast(IO[bytes], handle), name), handle.reads
