"""The wheel writer and reader: valid plain zips, RECORD, reproducibility, flat memory."""

from __future__ import annotations

import base64
import hashlib
import random
import tracemalloc
import zipfile
import zlib

import pytest
from isal import isal_zlib

from release.build.wheels import render_version_py
from release.core import wheelfile
from release.core.wheelfile import WheelWriter

DIST_INFO = "demo-1.0.dist-info"


def so_like(size: int, seed: int = 1) -> bytes:
    """Bytes that compress about like a shared object: random blocks between repetitive ones."""
    rnd = random.Random(seed)
    out = bytearray()
    while len(out) < size:
        out += rnd.randbytes(3000)
        out += (b"\x48\x89\xe5\x41\x57" + rnd.randbytes(3)) * 800
    return bytes(out[:size])


def write_demo(path, big, *, epoch=None, threads=None):
    with WheelWriter(path, DIST_INFO, epoch=epoch, threads=threads) as w:
        w.add_file("demo/lib.so", big)
        w.add_bytes("demo/__init__.py", "x = 1\n")
        w.add_bytes(f"{DIST_INFO}/METADATA", "Metadata-Version: 2.1\nName: demo\nVersion: 1.0\n")
        w.add_bytes(f"{DIST_INFO}/WHEEL", "Wheel-Version: 1.0\nRoot-Is-Purelib: false\nTag: py3-none-any\n")
    return path


@pytest.fixture(scope="module")
def big_file(tmp_path_factory):
    """Larger than three deflate chunks, so chunk joins and the thread pipeline are exercised."""
    path = tmp_path_factory.mktemp("big") / "lib.so"
    path.write_bytes(so_like(3 * wheelfile.CHUNK + 12345))
    path.chmod(0o755)
    return path


def test_plain_zip_with_exact_record_and_dist_info_last(tmp_path, big_file):
    wheel = write_demo(tmp_path / "demo-1.0-py3-none-any.whl", big_file, epoch=1767225600)
    with zipfile.ZipFile(wheel) as zf:
        assert zf.testzip() is None  # stdlib zlib inflates every member and checks its CRC
        names = zf.namelist()
        assert zf.read("demo/lib.so") == big_file.read_bytes()
        infos = {i.filename: i for i in zf.infolist()}
    assert names == ["demo/lib.so", "demo/__init__.py", f"{DIST_INFO}/METADATA", f"{DIST_INFO}/WHEEL",
                     f"{DIST_INFO}/RECORD"]
    assert (infos["demo/lib.so"].external_attr >> 16) & 0o777 == 0o755
    assert (infos["demo/__init__.py"].external_attr >> 16) & 0o777 == 0o644
    assert {i.date_time for i in infos.values()} == {(2026, 1, 1, 0, 0, 0)}
    assert all(i.compress_type == zipfile.ZIP_DEFLATED and not i.extra for i in infos.values())
    record = wheelfile.read_record(wheel)
    assert record.pop(f"{DIST_INFO}/RECORD") == ("", None)
    for name, (digest, size) in record.items():
        data = wheelfile.read_member(wheel, name)
        expected = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        assert digest == f"sha256={expected}" and size == len(data), name
    assert set(record) == set(names) - {f"{DIST_INFO}/RECORD"}
    assert wheelfile.dist_info_dir(wheel) == DIST_INFO
    assert [m.name for m in wheelfile.members(wheel)] == names
    # the chunked stream is one valid raw deflate stream for plain zlib too
    member = wheelfile.members(wheel)[0]
    with open(wheel, "rb") as handle:
        handle.seek(member.offset + 30 + len(member.name))
        raw = handle.read(member.compressed_size)
    assert zlib.decompress(raw, -15) == big_file.read_bytes()


def test_same_inputs_give_identical_bytes_whatever_the_threads(tmp_path, big_file):
    a = write_demo(tmp_path / "a" / "demo.whl", big_file, epoch=1767225600, threads=1)
    b = write_demo(tmp_path / "b" / "demo.whl", big_file, epoch=1767225600, threads=4)
    c = write_demo(tmp_path / "c" / "demo.whl", big_file, epoch=1767225602, threads=2)
    assert a.read_bytes() == b.read_bytes()
    assert c.read_bytes() != a.read_bytes()  # the timestamp is the only difference
    with zipfile.ZipFile(c) as zc, zipfile.ZipFile(a) as za:
        assert [zc.read(n) for n in zc.namelist()] == [za.read(n) for n in za.namelist()]


@pytest.mark.parametrize("failing", [1, 3])
def test_a_chunk_whose_deflate_fails_fails_the_wheel_and_leaves_nothing(tmp_path, big_file, monkeypatch,
                                                                         failing):
    """A deflate that fails on a worker thread (out of memory, a bug) is the writer's error, and
    nothing is left behind: never a wheel that lacks that chunk, never a writer waiting forever."""
    real, calls = wheelfile._deflate, []

    def deflate(block, previous, level):
        calls.append(len(block))
        if len(calls) == failing:
            raise MemoryError("chunk")
        return real(block, previous, level)

    monkeypatch.setattr(wheelfile, "_deflate", deflate)
    with pytest.raises(MemoryError, match="chunk"):
        write_demo(tmp_path / "demo.whl", big_file, threads=2)
    assert list(tmp_path.iterdir()) == []
    monkeypatch.setattr(wheelfile, "_deflate", real)
    whole = write_demo(tmp_path / "demo.whl", big_file, threads=2)  # the same writer works after
    with zipfile.ZipFile(whole) as zf:
        assert zf.read("demo/lib.so") == big_file.read_bytes()


def test_source_date_epoch_sets_the_timestamp(tmp_path, monkeypatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")  # 2023-11-14 22:13:20 UTC
    path = tmp_path / "t.whl"
    with WheelWriter(path, DIST_INFO) as w:
        w.add_bytes("demo/a.py", "")
    assert zipfile.ZipFile(path).getinfo("demo/a.py").date_time == (2023, 11, 14, 22, 13, 20)
    monkeypatch.delenv("SOURCE_DATE_EPOCH")
    assert wheelfile.source_date_epoch() == wheelfile.MIN_EPOCH


def test_memory_does_not_grow_with_the_file_size(tmp_path):
    """Peak Python allocations while packing 3x more data stay the same (chunks in flight)."""
    peaks = []
    for chunks in (6, 18):
        src = tmp_path / f"in{chunks}.so"
        with open(src, "wb") as handle:
            block = so_like(wheelfile.CHUNK, seed=chunks)
            for _ in range(chunks):
                handle.write(block)
        del block
        tracemalloc.start()
        with WheelWriter(tmp_path / f"out{chunks}.whl", DIST_INFO, threads=2) as w:
            w.add_file("demo/lib.so", src)
        peaks.append(tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()
        src.unlink()
    # The bound is the chunks in flight (threads + 2 inputs and their outputs), the same for
    # 24 MiB and 72 MiB; how close each run comes to it depends on scheduling (a ratio of the
    # two peaks failed under a load of 11), so each is held to the bound, not to the other.
    for peak in peaks:
        assert peak < 8 * wheelfile.CHUNK, peaks  # a few chunks in flight, not the 72 MiB input


def test_raw_copy_keeps_compressed_bytes_and_record(tmp_path, big_file):
    src = write_demo(tmp_path / "src.whl", big_file)
    dst = tmp_path / "dst.whl"
    record = wheelfile.read_record(src)["demo/lib.so"]
    with WheelWriter(dst, "demo-2.0.dist-info") as w:
        w.add_raw(src, "demo/lib.so", record=record)
        w.add_raw(src, "demo/__init__.py")  # hashed by inflating
        w.add_bytes("demo-2.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: demo\nVersion: 2.0\n")
    before = {m.name: m for m in wheelfile.members(src)}
    after = {m.name: m for m in wheelfile.members(dst)}
    for name in ("demo/lib.so", "demo/__init__.py"):
        assert (after[name].crc, after[name].compressed_size, after[name].mode) == \
               (before[name].crc, before[name].compressed_size, before[name].mode)
    assert zipfile.ZipFile(dst).testzip() is None
    assert wheelfile.read_member(dst, "demo/lib.so") == big_file.read_bytes()
    assert wheelfile.read_record(dst)["demo/__init__.py"] == wheelfile.read_record(src)["demo/__init__.py"]
    with pytest.raises(ValueError, match="RECORD says"):
        with WheelWriter(tmp_path / "bad.whl", DIST_INFO) as w:
            w.add_raw(src, "demo/lib.so", record=(record[0], record[1] + 1))
    assert not (tmp_path / "bad.whl").exists()


def test_refuses_bad_order_and_leaves_nothing_half_written(tmp_path):
    path = tmp_path / "x.whl"
    with pytest.raises(ValueError, match="before"):
        with WheelWriter(path, DIST_INFO) as w:
            w.add_bytes(f"{DIST_INFO}/METADATA", "")
            w.add_bytes("demo/late.py", "")
    assert list(tmp_path.iterdir()) == []
    for bad in ("/abs.py", "demo/../x.py", f"{DIST_INFO}/RECORD"):
        with pytest.raises(ValueError):
            with WheelWriter(path, DIST_INFO) as w:
                w.add_bytes(bad, "")
    with pytest.raises(ValueError, match="twice"):
        with WheelWriter(path, DIST_INFO) as w:
            w.add_bytes("demo/a.py", "")
            w.add_bytes("demo/a.py", "")
    assert list(tmp_path.iterdir()) == []


def test_version_py_contract(tmp_path):
    from release.build.wheel_specs import plugin_dir

    template = (plugin_dir() / "python" / "version.py").read_text()
    text = render_version_py(template, "0.9.1rc2", "4006f866f9f094bf1beff2e1bad4f845480a8ea6")
    namespace: dict = {}
    exec(compile(text, "version.py", "exec"), namespace)
    assert namespace["__version__"] == "0.9.1rc2"
    assert namespace["_version"] == "0.9.1"
    assert namespace["_git_hash"] == "4006f866f9f094bf1beff2e1bad4f845480a8ea6"
    untouched: dict = {}
    exec(compile(template, "version.py", "exec"), untouched)
    assert ".dev" in untouched["__version__"]  # from a source tree: a dev version, as jax does
    with pytest.raises(ValueError, match="_git_hash"):
        render_version_py(template.replace("_git_hash = None", ""), "0.9.1", None)


def test_written_in_order_with_data_descriptors_and_its_own_digest(tmp_path, big_file):
    """No seek-back: each member's CRC and sizes follow its data, and ``sha256`` is the file's."""
    import hashlib as _hashlib
    import struct

    path = tmp_path / "d.whl"
    with WheelWriter(path, DIST_INFO) as w:
        w.add_file("demo/lib.so", big_file)
        w.add_bytes(f"{DIST_INFO}/METADATA", "Metadata-Version: 2.1\nName: demo\nVersion: 1.0\n")
    assert w.sha256 == _hashlib.sha256(path.read_bytes()).hexdigest()
    data = path.read_bytes()
    for member in wheelfile.members(path):
        start = member.offset + 30 + len(member.name)
        flags, crc, csize, usize = struct.unpack("<H6xIII", data[member.offset + 6:member.offset + 26])
        assert flags & 0x08 and (crc, csize, usize) == (0, 0, 0)
        descriptor = data[start + member.compressed_size:start + member.compressed_size + 16]
        assert struct.unpack("<IIII", descriptor) == (0x08074B50, member.crc, member.compressed_size,
                                                       member.size)


def sectioned_so(size: int, seed: int = 3) -> bytes:
    """Bytes laid out like a real plugin .so: stretches of symbol names, relocation records,
    instruction-like code, random data and zeros, 4-64 KiB each, so the best Huffman tables
    change along the file as they do in the real one."""
    rnd = random.Random(seed)
    words = [bytes(rnd.choice(b"abcdefghijklmnopqrstuvwxyz_") for _ in range(rnd.randint(4, 12)))
             for _ in range(400)]
    snippets = [rnd.randbytes(rnd.randint(2, 9)) for _ in range(600)]

    def piece(kind: str, n: int) -> bytes:
        out = bytearray()
        while len(out) < n:
            if kind == "symbols":
                out += b"_ZN" + b"".join(rnd.choice(words) for _ in range(rnd.randint(2, 5))) + b"\0"
            elif kind == "relocs":
                out += (rnd.randrange(1 << 40)).to_bytes(8, "little") + bytes([rnd.choice((6, 7, 8))]) + bytes(15)
            elif kind == "code":
                out += b"".join(rnd.choices(snippets[:rnd.randint(20, 600)], k=64))
            elif kind == "random":
                out += rnd.randbytes(n)
            else:
                out += bytes(n)
        return bytes(out[:n])

    data = bytearray()
    while len(data) < size:
        kind = rnd.choices(("symbols", "relocs", "code", "random", "zeros"), (3, 2, 6, 1, 1))[0]
        data += piece(kind, rnd.randint(4 << 10, 64 << 10))
    return bytes(data[:size])


def test_the_wheel_is_as_small_as_isal_makes_it_at_its_level(tmp_path):
    """The size goal (issue 36: within 10% of zlib -6 on both real plugin .so files) holds only
    with isal's level buffer that refits Huffman tables most often: on .so-like input the wheel's
    deflate is as small as the smallest one-pass isal stream at the writer's level, whichever of
    isal's memory levels that takes (the default, large one is 0.5-1% bigger)."""
    data = sectioned_so(3 * wheelfile.CHUNK // 2)
    src = tmp_path / "lib.so"
    src.write_bytes(data)
    with WheelWriter(tmp_path / "demo.whl", DIST_INFO, threads=2) as w:
        w.add_file("demo/lib.so", src)
    ours = wheelfile.members(tmp_path / "demo.whl")[0].compressed_size
    sizes = {}
    for mem in range(1, 10):
        comp = isal_zlib.compressobj(wheelfile.DEFAULT_LEVEL, isal_zlib.DEFLATED, -15, mem)
        sizes[mem] = len(comp.compress(data) + comp.flush())
    assert ours <= min(sizes.values()) * 1.001, (ours, sizes)
    assert ours < sizes[isal_zlib.DEF_MEM_LEVEL] * 0.997, (ours, sizes)  # what an unset level gives
