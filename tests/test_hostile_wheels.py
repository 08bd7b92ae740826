"""A wheel that is not a plain archive of regular files is refused: verify reports it (exit 1)
and promote refuses it in one line (exit 2) without writing anything. Symbolic links, setuid
bits, a member named twice, a local header that disagrees with the central directory, bytes
prepended to the zip and a METADATA naming its package twice, on generated members."""

from __future__ import annotations

import shutil
import struct
import zipfile
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from tests.support.crafted import craft, good_wheels, wheel_artifacts  # noqa: F401 (fixtures)

TAMPERS = ["symlink", "setuid", "setgid", "sticky", "fifo", "twice", "local-name", "prepend", "two-names",
           "two-versions", "two-wheel-versions"]


def _members(wheel: Path) -> list[str]:
    with zipfile.ZipFile(wheel) as zf:
        return [i.filename for i in zf.infolist() if not i.is_dir()]


def _rewrite(src: Path, dest: Path, member: str, attr: int | None = None, twice: bool = False) -> None:
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dest, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            data = zin.read(info)
            if info.filename == member and attr is not None:
                info.external_attr = attr << 16
                info.create_system = 3
            zout.writestr(info, data)
            if twice and info.filename == member:
                import warnings
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    zout.writestr(info, data)


def tamper(src: Path, dest: Path, kind: str, member: str) -> str:
    """Write ``src`` with one defect into ``dest``; returns what the refusal must name."""
    modes = {"symlink": 0o120777, "setuid": 0o104755, "setgid": 0o102755, "sticky": 0o101644,
             "fifo": 0o010644}
    if kind in modes:
        _rewrite(src, dest, member, attr=modes[kind])
        return member
    if kind == "twice":
        _rewrite(src, dest, member, twice=True)
        return member
    if kind == "prepend":
        dest.write_bytes(b"#!/bin/sh\necho hello\n" * 3 + src.read_bytes())
        return "prepended"
    if kind == "local-name":
        data = bytearray(src.read_bytes())
        with zipfile.ZipFile(src) as zf:
            info = zf.getinfo(member)
        name_len = struct.unpack("<H", data[info.header_offset + 26:info.header_offset + 28])[0]
        at = info.header_offset + 30 + name_len - 1  # the local name's last character
        data[at] = ord("X") if data[at] != ord("X") else ord("Y")
        dest.write_bytes(bytes(data))
        return member
    field, name = {"two-names": ("Name", "METADATA"), "two-versions": ("Version", "METADATA"),
                   "two-wheel-versions": ("Wheel-Version", "WHEEL")}[kind]
    target = next(m for m in _members(src) if m.endswith(f".dist-info/{name}"))

    def doubled(text: str) -> str:
        first = next(line for line in text.splitlines() if line.startswith(f"{field}:"))
        return text.replace(first, f"{first}\n{field}: other-{field.lower()}", 1)
    craft(src, dest, replace={target: doubled})
    return target


@given(kind=st.sampled_from(TAMPERS), which=st.integers(0, 50), wheel=st.sampled_from(["pjrt", "plugin"]))
def test_verify_and_promote_refuse_an_archive_that_is_not_plain(tmp_path_factory, run_cli, good_wheels,
                                                                  kind, which, wheel):
    src = good_wheels[wheel]
    members = _members(src)
    member = members[which % len(members)]
    work = tmp_path_factory.mktemp("tampered")
    bad = work / src.name
    named = tamper(src, bad, kind, member)

    code, out, err = run_cli("verify", bad)
    assert code == 1, out + err
    assert named.rsplit("/", 1)[-1] in out + err, out + err

    out_dir = work / "out"
    out_dir.mkdir()
    code, out, err = run_cli("promote", bad, "--to", "rc1", "--out", out_dir)
    if kind.startswith("two-"):
        assert code in (0, 2)  # metadata fields are verify's; promote rewrites METADATA anyway
    else:
        assert code == 2 and err.count("\n") == 1 and "Traceback" not in err, err
        assert list(out_dir.iterdir()) == []


def test_a_good_wheel_still_verifies_and_promotes_without_special_bits(tmp_path, run_cli, good_wheels):
    src = tmp_path / good_wheels["pjrt"].name
    shutil.copy(good_wheels["pjrt"], src)
    assert run_cli("verify", src)[0] == 0
    code, out, err = run_cli("promote", src, "--to", "rc1", "--out", tmp_path / "out")
    assert code == 0, err
    (promoted,) = (tmp_path / "out").iterdir()
    with zipfile.ZipFile(promoted) as zf:
        assert all(((i.external_attr >> 16) & 0o7000) == 0 for i in zf.infolist())
