"""The loader's view of a shared object, read from a file or from byte ranges kept while it
streams past. Real objects compiled here, checked against pyelftools as an independent reader;
hand-assembled ones only for what this machine cannot compile (32-bit, big-endian, odd layouts).
"""

from __future__ import annotations

import io
import struct
import subprocess
import zlib
from pathlib import Path

import pytest
from elftools.elf.dynamic import DynamicSegment
from elftools.elf.elffile import ELFFile
from elftools.elf.gnuversions import GNUVerNeedSection

from release.core import elffacts
from release.core.elffacts import ElfCollector, ElfFacts, facts_or_error, file_reader, streamed_facts
from tests.support.elf import cc, compile_so

RUNPATH = ["$ORIGIN/../rocm/lib", "/opt/rocm/lib"]
LIBC_2_34 = tuple(("libc.so.6", v) for v in ("GLIBC_2.17", "GLIBC_2.34", "GLIBC_PRIVATE"))  # ``assemble``'s


def oracle(path: Path) -> ElfFacts:
    """The same facts as pyelftools reads them (dynamic segment + version-needs section)."""
    with open(path, "rb") as fh:
        elf = ELFFile(fh)
        dynamic = next(s for s in elf.iter_segments() if isinstance(s, DynamicSegment))
        runpath = rpath = soname = None
        needed = []
        for tag in dynamic.iter_tags():
            if tag.entry.d_tag == "DT_SONAME" and soname is None:
                soname = tag.soname
            if tag.entry.d_tag == "DT_RUNPATH":
                runpath = (runpath or ()) + tuple(tag.runpath.split(":"))
            elif tag.entry.d_tag == "DT_RPATH":
                rpath = (rpath or ()) + tuple(tag.rpath.split(":"))
            elif tag.entry.d_tag == "DT_NEEDED":
                needed.append(tag.needed)
        glibc = None
        versions = []
        for section in elf.iter_sections():
            if isinstance(section, GNUVerNeedSection):
                for verneed, auxes in section.iter_versions():
                    for aux in auxes:
                        versions.append((verneed.name, aux.name))
                        if aux.name.startswith("GLIBC_2."):
                            minor = int(aux.name.split(".")[1])
                            glibc = max(glibc or (0, 0), (2, minor))
        return ElfFacts(runpath, rpath, tuple(needed), glibc, soname=soname,
                        versions=tuple(dict.fromkeys(versions)))


def from_file(path: Path) -> ElfFacts:
    with open(path, "rb") as fh:
        return facts_or_error(file_reader(fh), path.stat().st_size)


def streamed(data: bytes, chunk: int, head: int = elffacts.HEAD) -> tuple[ElfFacts, int, int]:
    """(facts, streaming passes, bytes kept) for ``data`` fed in ``chunk``-byte pieces."""
    passes = [0]
    kept = []

    def stream():
        passes[0] += 1
        for at in range(0, len(data), chunk):
            yield data[at:at + chunk]

    collector = ElfCollector(len(data), head=head)
    for piece in stream():
        collector.feed(piece)

    real_again = ElfCollector.again

    def again(self):
        kept.append(self.kept())
        return real_again(self)

    ElfCollector.again = again
    try:
        facts = streamed_facts(collector, stream)
    finally:
        ElfCollector.again = real_again
    return facts, passes[0], collector.kept()


@pytest.fixture(scope="module")
def objects(tmp_path_factory):
    """Real shared objects: RUNPATH, RPATH, none, and one needing libm's newer symbols."""
    cc()
    base = tmp_path_factory.mktemp("elf")
    made = {
        "runpath": compile_so(base / "runpath.so", RUNPATH),
        "rpath": compile_so(base / "rpath.so", ["/opt/old"], new_dtags=False),
        "bare": compile_so(base / "bare.so", None),
    }
    made["soname"] = compile_so(base / "named.so", RUNPATH, soname="libnamed.so.3",
                                links=(made["bare"],))
    src = base / "libm_user.c"
    src.write_text("#include <math.h>\ndouble f(double x) { return exp(x) + log2(x); }\n")
    made["libm"] = base / "libm_user.so"
    subprocess.run([cc(), "-shared", "-fPIC", "-O1", "-o", str(made["libm"]), str(src), "-lm",
                    "-Wl,--enable-new-dtags", "-Wl,-rpath,$ORIGIN"], check=True)
    return made


@pytest.mark.parametrize("kind", ["runpath", "rpath", "bare", "libm", "soname"])
def test_facts_from_a_file_match_pyelftools(objects, kind):
    facts = from_file(objects[kind])
    assert facts == oracle(objects[kind])
    assert facts.error is None
    if kind == "soname":
        assert facts.soname == "libnamed.so.3" and facts.needed[0] == "bare.so"
    if kind == "libm":
        assert "libm.so.6" in facts.needed and facts.glibc >= (2, 2)


def test_runpath_and_rpath_are_told_apart(objects):
    assert from_file(objects["runpath"]).runpath == tuple(RUNPATH)
    assert from_file(objects["runpath"]).rpath is None
    assert from_file(objects["rpath"]).rpath == ("/opt/old",)
    assert from_file(objects["rpath"]).runpath is None
    assert from_file(objects["libm"]).needed[0] == "libm.so.6"


@pytest.mark.parametrize("chunk", [1, 7, 4096, 1 << 20])
def test_streamed_facts_match_the_file_in_one_pass(objects, chunk):
    data = objects["libm"].read_bytes()
    facts, passes, _ = streamed(data, chunk)
    assert facts == oracle(objects["libm"]) and passes == 1


def test_a_big_object_keeps_only_the_head_and_the_dynamic_segment(tmp_path):
    """20 MB of data between the strings and the dynamic segment: one pass, bytes kept bounded
    by the head, never the object."""
    blob = tmp_path / "blob.bin"
    blob.write_bytes(bytes(20 << 20))
    (tmp_path / "p.c").write_text("int answer(void) { return 42; }\n")
    subprocess.run(["ld", "-r", "-b", "binary", "-z", "noexecstack", "-o", "blob.o", "blob.bin"],
                   cwd=tmp_path, check=True)
    out = tmp_path / "big.so"
    subprocess.run([cc(), "-shared", "-fPIC", "-o", str(out), "p.c", "blob.o", "-Wl,-z,noexecstack",
                    "-Wl,--enable-new-dtags", "-Wl,-rpath," + ":".join(RUNPATH)],
                   cwd=tmp_path, check=True)
    data = out.read_bytes()
    facts, passes, kept = streamed(data, 1 << 20)
    assert facts == oracle(out) and facts.runpath == tuple(RUNPATH)
    assert passes == 1 and kept <= elffacts.HEAD + (1 << 20) < len(data) // 2


def test_strings_already_gone_are_read_on_a_second_pass(objects):
    """With no head kept, .dynstr has streamed past when the dynamic segment names it."""
    data = objects["runpath"].read_bytes()
    facts, passes, _ = streamed(data, 256, head=64)
    assert facts == oracle(objects["runpath"]) and passes == 2


# ------------------------------------------------------------ hand-assembled objects


BASE = 0x400000  # load address: addresses in the dynamic segment are not file offsets


def assemble(*, wide=True, little=True, strings_last=False, runpath="$ORIGIN/lib",
             needed=("libc.so.6",), versions=("GLIBC_2.17", "GLIBC_2.34", "GLIBC_PRIVATE"),
             strsz_extra=0, drop_tags=(), rpath_tag=False) -> bytes:
    """A minimal shared object: ELF header, PT_LOAD + PT_DYNAMIC, dynamic entries, .dynstr and
    one version-needs entry, laid out in the usual order (versions, strings, dynamic) or with
    the strings and versions after the dynamic segment."""
    end = "<" if little else ">"
    strtab = b"\0"
    offsets = {}
    for s in (runpath, *needed, *versions):
        offsets[s] = len(strtab)
        strtab += s.encode() + b"\0"
    ehsize, phent, dynent = (64, 56, 16) if wide else (52, 32, 8)
    phoff = ehsize
    verneed = struct.pack(end + "HHIII", 1, len(versions), offsets[needed[0]], 16, 0)
    for i, v in enumerate(versions):
        verneed += struct.pack(end + "IHHII", 0, 0, i + 2, offsets[v],
                               16 if i + 1 < len(versions) else 0)
    tags = [(1, offsets[n]) for n in needed] + [(15 if rpath_tag else 29, offsets[runpath])]
    n_dyn = len(tags) + 5
    if strings_last:
        dyn_off = phoff + 2 * phent
        str_off = dyn_off + n_dyn * dynent
        verneed_off = str_off + len(strtab)
    else:
        verneed_off = phoff + 2 * phent
        str_off = verneed_off + len(verneed)
        dyn_off = str_off + len(strtab)
    tags += [(5, str_off + BASE), (10, len(strtab) + strsz_extra),
             (0x6FFFFFFE, verneed_off + BASE), (0x6FFFFFFF, 1)]
    tags = [t for t in tags if t[0] not in drop_tags] + [(0, 0)] * (1 + len(drop_tags))
    dynamic = b"".join(struct.pack(end + ("qQ" if wide else "iI"), t, v) for t, v in tags)
    total = max(dyn_off + len(dynamic), verneed_off + len(verneed), str_off + len(strtab))
    ident = b"\x7fELF" + bytes([2 if wide else 1, 1 if little else 2, 1]) + bytes(9)
    word = "Q" if wide else "I"
    header = ident + struct.pack(end + "HHI" + word * 3 + "IHHHHHH", 3, 62 if wide else 3, 1, 0,
                                 phoff, 0, 0, ehsize, phent, 2, 0, 0, 0)

    def phdr(p_type, offset, size):  # memory size above file size, as .bss makes it
        address = offset + BASE
        if wide:
            return struct.pack(end + "IIQQQQQQ", p_type, 4, offset, address, address, size,
                               size + 256, 8)
        return struct.pack(end + "IIIIIIII", p_type, offset, address, address, size, size + 256,
                           4, 4)

    image = bytearray(total)
    image[:len(header)] = header
    image[phoff:phoff + 2 * phent] = phdr(1, 0, total) + phdr(2, dyn_off, len(dynamic))
    image[verneed_off:verneed_off + len(verneed)] = verneed
    image[str_off:str_off + len(strtab)] = strtab
    image[dyn_off:dyn_off + len(dynamic)] = dynamic
    return bytes(image)


@pytest.mark.parametrize("wide", [True, False], ids=["64-bit", "32-bit"])
@pytest.mark.parametrize("little", [True, False], ids=["little", "big"])
def test_every_class_and_byte_order(wide, little):
    data = assemble(wide=wide, little=little)
    facts = facts_or_error(file_reader(io.BytesIO(data)), len(data))
    assert facts == ElfFacts(("$ORIGIN/lib",), None, ("libc.so.6",), (2, 34), versions=LIBC_2_34)
    segment = next(s for s in ELFFile(io.BytesIO(data)).iter_segments()
                   if isinstance(s, DynamicSegment))
    assert [t.runpath for t in segment.iter_tags("DT_RUNPATH")] == ["$ORIGIN/lib"]


def test_strings_after_the_dynamic_segment_are_collected_on_the_way():
    data = assemble(strings_last=True)
    facts, passes, _ = streamed(data, 16, head=64)
    assert facts.runpath == ("$ORIGIN/lib",) and facts.glibc == (2, 34) and passes == 1


@pytest.mark.parametrize("damage, reason", [
    (lambda d: d[:40], "outside"),
    (lambda d: assemble(strsz_extra=1 << 30), "outside"),
    (lambda d: d[:4] + b"\x03" + d[5:], "ELF class 3"),
])
def test_malformed_objects_are_a_finding_not_a_traceback(damage, reason):
    data = damage(assemble())
    facts = facts_or_error(file_reader(io.BytesIO(data)), len(data))
    assert facts.error.startswith("unreadable ELF") and reason in facts.error
    streamed_result, _, _ = streamed(data, 5)
    assert streamed_result.error.startswith("unreadable ELF")


def test_a_deflated_member_streams_through_zlib_unchanged(objects):
    """The collector sees the chunk sizes a real inflate produces."""
    data = objects["libm"].read_bytes()
    packed = zlib.compress(data, 9)
    inflate = zlib.decompressobj()
    collector = ElfCollector(len(data), head=128)
    for at in range(0, len(packed), 300):
        collector.feed(inflate.decompress(packed[at:at + 300]))
    assert streamed_facts(collector, lambda: [data]) == oracle(objects["libm"])


def scattered(far: int = 200_000) -> bytes:
    """A hostile layout: .dynstr, then the version needs with entries ``far`` bytes apart, all
    before the dynamic segment, so each pass learns of one more range that has gone by."""
    strtab = b"\0libc.so.6\0GLIBC_2.17\0GLIBC_2.34\0$ORIGIN\0"
    str_off, ver_off = 70_000, 300_000
    aux2 = ver_off + 16 + far
    dyn_off = aux2 + far
    image = bytearray(dyn_off + 7 * 16)
    image[:64] = (b"\x7fELF\x02\x01\x01" + bytes(9) + struct.pack(
        "<HHIQQQIHHHHHH", 3, 62, 1, 0, 64, 0, 0, 64, 56, 2, 0, 0, 0))
    image[64:176] = (struct.pack("<IIQQQQQQ", 1, 4, 0, 0, 0, len(image), len(image), 8)
                     + struct.pack("<IIQQQQQQ", 2, 4, dyn_off, dyn_off, dyn_off, 7 * 16, 7 * 16, 8))
    image[str_off:str_off + len(strtab)] = strtab
    image[ver_off:ver_off + 16] = struct.pack("<HHIII", 1, 2, 1, 16, 0)
    image[ver_off + 16:ver_off + 32] = struct.pack("<IHHII", 0, 0, 2, 11, aux2 - ver_off - 16)
    image[aux2:aux2 + 16] = struct.pack("<IHHII", 0, 0, 3, 22, 0)
    tags = [(1, 1), (29, 33), (5, str_off), (10, len(strtab)), (0x6FFFFFFE, ver_off),
            (0x6FFFFFFF, 1), (0, 0)]
    image[dyn_off:] = b"".join(struct.pack("<qQ", t, v) for t, v in tags)
    return bytes(image)


def test_structures_still_missing_after_every_pass_are_a_finding():
    """Each pass finds one more range already gone by: after PASSES passes, a finding."""
    data = scattered()
    whole = facts_or_error(file_reader(io.BytesIO(data)), len(data))
    assert whole == ElfFacts(("$ORIGIN",), None, ("libc.so.6",), (2, 34), versions=LIBC_2_34[:2])  # readable in place
    facts, passes, _ = streamed(data, 4096, head=64)
    assert passes == elffacts.PASSES
    assert facts == ElfFacts(None, None, (), None, error=facts.error)
    assert facts.error.startswith("unreadable ELF (its dynamic structures are scattered: bytes ")
    assert facts.error.endswith(f" not kept after {elffacts.PASSES} passes)")
    near, _, _ = streamed(scattered(far=1000), 4096, head=64)  # within reach of the re-reads
    assert near == ElfFacts(("$ORIGIN",), None, ("libc.so.6",), (2, 34), versions=LIBC_2_34[:2])


def test_every_chunk_boundary_keeps_one_pass():
    """Wherever chunks happen to start, structures learned on the way are collected in one
    pass (a structure starting exactly where the chunk just fed starts included)."""
    data = assemble(strings_last=True)
    for chunk in range(1, 64):
        facts, passes, _ = streamed(data, chunk, head=16)
        assert (facts.runpath, facts.glibc, passes) == (("$ORIGIN/lib",), (2, 34), 1), chunk


def test_kept_ranges_read_back_at_their_offsets():
    data = bytes(range(256)) * 4
    collector = ElfCollector(len(data), wanted=[(100, 200), (600, 650)], head=0)
    for at in range(0, len(data), 37):
        collector.feed(data[at:at + 37])
    assert collector.read(150, 10) == data[150:160]
    assert collector.read(600, 50) == data[600:650]
    assert collector.kept() == 150
    with pytest.raises(elffacts.Missing):
        collector.read(190, 20)


def test_not_an_elf_object_says_so():
    data = b"MZ" + bytes(100)
    facts = facts_or_error(file_reader(io.BytesIO(data)), len(data))
    assert facts.error == "unreadable ELF (ValueError: no ELF magic)"


@pytest.mark.parametrize("kwargs, error", [
    ({"drop_tags": (10,)}, "dynamic section has names but no DT_STRTAB/DT_STRSZ"),
    ({"drop_tags": (5,)}, "dynamic section has names but no DT_STRTAB/DT_STRSZ"),
    ({"strsz_extra": -40}, "string offset 13 is outside .dynstr"),  # libc.so.6 cut short
])
def test_broken_dynamic_segments_are_named(kwargs, error):
    data = assemble(**kwargs)
    facts = facts_or_error(file_reader(io.BytesIO(data)), len(data))
    assert facts.error == f"unreadable ELF (ValueError: {error})"


def test_version_needs_without_a_count_are_none():
    data = assemble(drop_tags=(0x6FFFFFFF,))
    facts = facts_or_error(file_reader(io.BytesIO(data)), len(data))
    assert facts == ElfFacts(("$ORIGIN/lib",), None, ("libc.so.6",), None)


def test_rpath_entries_are_split_like_runpath():
    data = assemble(rpath_tag=True, runpath="/opt/a:$ORIGIN/b")
    facts = facts_or_error(file_reader(io.BytesIO(data)), len(data))
    assert facts.rpath == ("/opt/a", "$ORIGIN/b") and facts.runpath is None


def test_an_unknown_byte_order_is_named():
    data = bytearray(assemble())
    data[5] = 3
    facts = facts_or_error(file_reader(io.BytesIO(bytes(data))), len(data))
    assert facts.error == ("unreadable ELF (ValueError: ELF class 2 / data encoding 3 is neither "
                           "32/64-bit nor little/big-endian)")
