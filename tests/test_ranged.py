"""A published wheel's METADATA read by byte ranges (``release.publish.ranged``): the same bytes
zipfile reads from the whole file, wherever the member sits, in a bounded number of reads, and
one read of the wheel's end for a wheel laid out as wheels are."""

from __future__ import annotations

import io
import zipfile

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from release.publish.ranged import MAX_READS, TAIL, remote_metadata


def zip_bytes(members: list[tuple[str, bytes, int]], comment: bytes) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name, data, method in members:
            zf.writestr(zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0)), data, compress_type=method)
        zf.comment = comment
    return buf.getvalue()


members = st.lists(st.tuples(st.sampled_from(["pkg/a.py", "pkg/b.so", "pkg/c.txt", "data/x.bin"]),
                             st.integers(0, 200_000), st.sampled_from([zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED])),
                   max_size=5, unique_by=lambda m: m[0])


@settings(max_examples=40, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(before=members, after=members, meta_len=st.integers(0, 120_000), comment_len=st.integers(0, 70_000),
       meta_method=st.sampled_from([zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED]))
def test_metadata_by_range_reads_equals_the_wheels_own(before, after, meta_len, comment_len, meta_method):
    """Wherever METADATA sits (first, last, behind big members), whatever the zip comment's length,
    the range reader returns the same bytes zipfile reads from the whole file, within MAX_READS."""
    meta = b"Metadata-Version: 2.1\nName: x\nVersion: 1\nRequires-Python: >=3.11\n" + b"#" * meta_len
    filler = [(f"{i}/{n}", bytes(range(256)) * (size // 256) + b"z" * (size % 256), m)
              for i, (n, size, m) in enumerate(before + after)]
    layout = (filler[:len(before)] + [("x-1.dist-info/METADATA", meta, meta_method)] + filler[len(before):])
    blob = zip_bytes(layout, b"c" * min(comment_len, 65535))
    asked = []

    def read(start, length):
        asked.append((start, length))
        assert 0 <= start and start + length <= len(blob)
        return blob[start:start + length]
    got, reads = remote_metadata(read, len(blob), "x-1-py3-none-any.whl")
    assert got == meta and reads == len(asked) <= MAX_READS


def test_a_big_wheel_costs_one_read_of_its_end(tmp_path):
    payload = bytes(range(256)) * (40 << 12)  # 40 MiB behind the dist-info's start
    blob = zip_bytes([("pkg/xla.so", payload, zipfile.ZIP_STORED),
                      ("x-1.dist-info/METADATA", b"Name: x\nRequires-Python: >=3.12\n", zipfile.ZIP_DEFLATED),
                      ("x-1.dist-info/RECORD", b"", zipfile.ZIP_DEFLATED)], b"")
    asked = []
    got, reads = remote_metadata(lambda s, n: asked.append(n) or blob[s:s + n], len(blob), "x.whl")
    assert b">=3.12" in got and reads == 1 and sum(asked) == TAIL


def test_a_store_that_answers_short_ranges_is_one_line():
    blob = zip_bytes([("x-1.dist-info/METADATA", b"Name: x\n", zipfile.ZIP_STORED)], b"")
    from release.core.errors import UserError
    with pytest.raises(UserError, match=rf"^x\.whl: the store answered {len(blob) - 1} bytes for a range of "
                                        rf"{len(blob)}; expected exactly the range$"):
        remote_metadata(lambda s, n: blob[s:s + n - 1], len(blob), "x.whl")
    with pytest.raises(UserError, match="not a wheel"):
        remote_metadata(lambda s, n: b"\0" * n, 5000, "x.whl")


def test_the_ranged_file_reads_like_a_file():
    from release.publish.ranged import RangedFile
    blob = bytes(range(256)) * 4
    handle = RangedFile(lambda s, n: blob[s:s + n], len(blob), "x.whl")
    assert handle.seekable() and handle.readable() and handle.tell() == 0
    assert handle.read(0) == b"" and handle.tell() == 0
    assert handle.read(3) == blob[:3] and handle.tell() == 3
    assert handle.read() == blob[3:] and handle.read() == b"" and handle.read(5) == b""  # at the end: nothing
    handle.seek(-10, io.SEEK_END)
    assert handle.read(-1) == blob[-10:]
    handle.seek(2)
    handle.seek(3, io.SEEK_CUR)
    assert handle.read(2) == blob[5:7] and handle.reads == 1  # all of it came in one read of the end


def test_metadata_at_the_start_of_a_big_wheel_costs_two_reads():
    """The end (directory) and one read at the member, header, name and bytes together."""
    blob = zip_bytes([("x-1.dist-info/METADATA", b"Name: x\nRequires-Python: >=3.13\n", zipfile.ZIP_DEFLATED),
                      ("pkg/xla.so", bytes(range(256)) * (1 << 12), zipfile.ZIP_STORED)], b"")
    got, reads = remote_metadata(lambda s, n: blob[s:s + n], len(blob), "x.whl")
    assert b">=3.13" in got and reads == 2


def test_more_reads_than_allowed_is_one_line(monkeypatch):
    from release.core.errors import UserError
    from release.publish import ranged
    blob = zip_bytes([("x-1.dist-info/METADATA", b"Name: x\n", zipfile.ZIP_STORED),
                      ("pkg/xla.so", bytes(range(256)) * (1 << 12), zipfile.ZIP_STORED)], b"")
    monkeypatch.setattr(ranged, "MAX_READS", 1)
    with pytest.raises(UserError, match=r"^x\.whl: more than 1 range reads to find its METADATA; not a wheel"):
        remote_metadata(lambda s, n: blob[s:s + n], len(blob), "x.whl")
    monkeypatch.setattr(ranged, "MAX_READS", 2)
    assert remote_metadata(lambda s, n: blob[s:s + n], len(blob), "x.whl")[1] == 2


def test_a_wheel_without_one_metadata_is_named():
    from release.core.errors import UserError
    for members in ([], [("a-1.dist-info/METADATA", b"x", 0), ("b-1.dist-info/METADATA", b"y", 0)]):
        blob = zip_bytes(members, b"")
        with pytest.raises(UserError, match=rf"^x\.whl: expected one \.dist-info/METADATA, found {len(members)}$"):
            remote_metadata(lambda s, n, b=blob: b[s:s + n], len(blob), "x.whl")
