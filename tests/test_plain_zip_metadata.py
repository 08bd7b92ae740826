"""A wheel's METADATA read straight from its zip directory (``core_metadata._plain_zip_metadata``)
is zipfile's answer or no answer at all, and every plain wheel gets an answer.

The zips are written here record by record, so each thing a zip tool may do is one knob: members
in any order, a member of 70-140 KiB before or after METADATA (METADATA inside or outside the
last 64 KiB the reading takes at once), a local-only extra field, a cp437 name, an empty name,
a member needing zip 6.3; and each damage zipfile refuses or reads otherwise: an end record that
understates its count, a wrong signature, bytes between the directory and its end record, a name
cut by NUL, a newer zip version, encryption, patched data, METADATA running into the next member.

Rules: (1) the direct answer, when there is one, is zipfile's; (2) a plain wheel is answered
directly; (3) ``read`` of any of these answers zipfile's bytes or one line (``UserError``), never
a traceback; (4) a member whose bytes run into the next one is never read directly.
"""

from __future__ import annotations

import bz2
import dataclasses
import io
import random
import struct
import zipfile
import zlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from release.core import core_metadata
from release.core.errors import UserError

LOCAL = struct.Struct("<4s5H3L2H")
CENTRAL = struct.Struct("<4s6H3L5H2L")
END = struct.Struct("<4s4H2LH")
META = b"x-1.dist-info/METADATA"


@dataclasses.dataclass
class Member:
    name: bytes
    data: bytes
    method: int = zipfile.ZIP_STORED
    flags: int = 0
    need: int = 20
    local_extra: bytes = b""
    central_sig: bytes = b"PK\x01\x02"
    runs_on: bool = False  # its sizes and CRC claim the bytes after it too (stored only)


def packed_bytes(member: Member) -> bytes:
    if member.method == zipfile.ZIP_DEFLATED:
        deflate = zlib.compressobj(6, zlib.DEFLATED, -zlib.MAX_WBITS)
        return deflate.compress(member.data) + deflate.flush()
    if member.method == zipfile.ZIP_BZIP2:
        return bz2.compress(member.data)
    return member.data


def write_zip(members: list[Member], *, gap: bytes = b"", count_delta: int = 0,
              end_sig: bytes = b"PK\x05\x06") -> bytes:
    """The zip of ``members`` in order, each local header then its bytes, then the directory."""
    out, rows = bytearray(), []
    for m in members:
        packed = packed_bytes(m)
        crc = zlib.crc32(m.data)
        rows.append([m, len(out), crc, len(packed), len(m.data)])
        out += LOCAL.pack(b"PK\x03\x04", m.need, m.flags, m.method, 0, 33, crc, len(packed), len(m.data),
                          len(m.name), len(m.local_extra)) + m.name + m.local_extra + packed
    for i, row in enumerate(rows):
        m, offset = row[0], row[1]
        if m.runs_on and i + 1 < len(rows):
            body = offset + LOCAL.size + len(m.name) + len(m.local_extra)
            claimed = bytes(out[body:rows[i + 1][1] + LOCAL.size])  # into the next local header
            row[2:] = [zlib.crc32(claimed), len(claimed), len(claimed)]
            struct.pack_into("<3L", out, offset + 14, *row[2:])
    cd_offset = len(out)
    for m, offset, crc, packed, unpacked in rows:
        out += CENTRAL.pack(m.central_sig, 20, m.need, m.flags, m.method, 0, 33, crc, packed, unpacked,
                            len(m.name), 0, 0, 0, 0, 0, offset) + m.name
    cd_size = len(out) - cd_offset
    count = len(members) + count_delta
    return bytes(out + gap + END.pack(end_sig, 0, 0, count, count, cd_size, cd_offset, 0))


def zipfile_answer(blob: bytes) -> bytes | None:
    """zipfile's METADATA of ``blob``, or None where zipfile refuses it."""
    try:
        with zipfile.ZipFile(io.BytesIO(blob)) as zf:
            names = [n for n in zf.namelist() if n.count("/") == 1 and n.endswith(".dist-info/METADATA")]
            return zf.read(names[0]) if len(names) == 1 else None
    except (zipfile.BadZipFile, NotImplementedError, RuntimeError, EOFError):
        return None


PLAIN = ["local extra", "cp437 name", "empty name", "zip 6.3"]
DAMAGES = ["count understated", "end signature", "central signature", "gap before the end", "NUL name",
           "zip 6.4", "encrypted", "patched data", "strong encryption", "runs on", "bzip2"]
OTHERS = [b"x-1.dist-info/RECORD", b"pkg/a.py", b"x-1.data/x.dist-info/METADATA", b"y-1.dist-info/WHEEL"]


@settings(max_examples=250, derandomize=True, deadline=None)
@given(metadata=st.binary(max_size=200), deflated=st.booleans(),
       others=st.lists(st.tuples(st.sampled_from(OTHERS), st.binary(max_size=60)), max_size=3),
       at=st.integers(0, 3), filler=st.sampled_from([None, "before", "after"]),
       filler_size=st.integers(70_000, 140_000), plain=st.sets(st.sampled_from(PLAIN), max_size=2),
       damage=st.sampled_from([None, None, *DAMAGES]), pick=st.integers(0, 7))
def test_the_direct_answer_is_zipfiles_and_every_plain_wheel_gets_one(metadata, deflated, others, at, filler,
                                                                      filler_size, plain, damage, pick):
    members = [Member(name, data) for name, data in others]
    meta = Member(META, metadata, zipfile.ZIP_DEFLATED if deflated else zipfile.ZIP_STORED)
    members.insert(min(at, len(members)), meta)
    if filler:
        big = Member(b"pkg/big.so", random.Random(filler_size).randbytes(filler_size))
        members.insert(members.index(meta) + (filler == "after"), big)
    if "local extra" in plain:
        meta.local_extra = b"UT\x05\x00\x01\x00\x00\x00\x00"
    if "cp437 name" in plain:
        members.append(Member(b"pkg/caf\x82.py", b"print()"))  # e-acute in cp437, not UTF-8, not flagged
    if "empty name" in plain:
        members.append(Member(b"", b""))
    if "zip 6.3" in plain:
        meta.need = 63
    options: dict = {}
    chosen = members[pick % len(members)]
    if damage == "count understated":  # the directory holds one more METADATA than its end record counts
        members.append(Member(b"y-1.dist-info/METADATA", b"Name: y\n"))
        options["count_delta"] = -1
    elif damage == "end signature":
        options["end_sig"] = b"PK\x05\x07"
    elif damage == "central signature":
        chosen.central_sig = b"PK\x01\x03"
    elif damage == "gap before the end":
        options["gap"] = b"junk"
    elif damage == "NUL name":  # zipfile cuts a name at NUL: a second top-level METADATA
        members.append(Member(META + b"\0.orig", b"Name: old\n"))
    elif damage == "zip 6.4":
        chosen.need = 64
    elif damage in ("encrypted", "patched data", "strong encryption"):
        chosen.flags |= {"encrypted": 0x1, "patched data": 0x20, "strong encryption": 0x40}[damage]
    elif damage == "runs on":
        meta.method = zipfile.ZIP_STORED
        meta.runs_on = True
        if members[-1] is meta:
            members.append(Member(b"pkg/z.py", b"z = 1\n"))
    elif damage == "bzip2":
        meta.method = zipfile.ZIP_BZIP2
    blob = write_zip(members, **options)

    direct = core_metadata._plain_zip_metadata(io.BytesIO(blob))
    expected = zipfile_answer(blob)
    if damage == "runs on":
        assert direct is None  # rule 4, whatever zipfile of this Python makes of it
        return
    assert direct is None or direct == expected  # rule 1
    if damage is None:
        assert direct == metadata  # rule 2
    try:  # rule 3
        assert core_metadata.read(io.BytesIO(blob)) == expected
    except UserError as exc:
        assert expected is None and "\n" not in str(exc) and str(exc).startswith("wheel: ")


@pytest.mark.parametrize("flag, words", [(0x1, "is encrypted, password required"),
                                         (0x40, "strong encryption")])
def test_an_encrypted_metadata_is_one_line_naming_the_wheel(flag, words):
    blob = write_zip([Member(META, b"Name: x\n", flags=flag)])
    with pytest.raises(UserError) as err:
        core_metadata.read(io.BytesIO(blob), "x-1-py3-none-any.whl")
    assert str(err.value).startswith("x-1-py3-none-any.whl: its METADATA cannot be read (") and words in str(err.value)


@pytest.mark.parametrize("opened", [False, True])
def test_a_plain_wheel_is_read_without_zipfile_from_a_path_or_an_open_file(tmp_path, monkeypatch, opened):
    wheel = tmp_path / "x-1-py3-none-any.whl"
    wheel.write_bytes(write_zip([Member(META, b"Name: x\n", zipfile.ZIP_DEFLATED), Member(b"x/a.py", b"")]))
    monkeypatch.setattr(zipfile, "ZipFile", None)
    if opened:
        with open(wheel, "rb") as handle:
            assert core_metadata.read(handle) == b"Name: x\n"
    else:
        assert core_metadata.read(wheel) == b"Name: x\n"
