"""One rule for both layouts: a line's SBOM lists the ROCm libraries its wheels load by the soname
lists that line reads: the checkout's own ``jax_rocm_plugin/rocm_runtime.json`` where it has one,
else the shipped one. The rocm-jax layout's packer (``release.build.wheels``) and the step that
gives a jax-tree wheel its revision map (``release.build.jax_tree_wheels``) must agree on a line
whose own list differs from the shipped one."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

from release.build import sbom
from release.build.jax_tree_wheels import with_revisions
from release.build.wheels import build_wheel
from release.core.wheelfile import WheelWriter
from tests.support.crafted import revision_map
from tests.support.elf import compile_so

VERSION = "0.11.1"
ROCM = "7.2.0"
SHIPPED_ONLY = "libamdhip64.so.7"      # in the shipped 7.2.0 list, not in the line's
LINE_ONLY = "libline_only_rocm.so.1"   # in the line's own 7.2.0 list, not in the shipped one


def line(tmp_path: Path, listed: tuple[str, ...] = (LINE_ONLY,)) -> Path:
    """A line whose own soname list for ROCm 7.2.0 is ``listed`` under /opt/rocm/lib."""
    root = tmp_path / "line"
    (root / "jax_rocm_plugin").mkdir(parents=True)
    (root / "jax_rocm_plugin" / "rocm_runtime.json").write_text(json.dumps({"schema": 1, "releases": {
        ROCM: {"sources": ["this line's own list"], "locations": {"/opt/rocm/lib": list(listed)}}}}))
    return root


def pjrt_object(tmp_path: Path) -> Path:
    """A real PJRT object that needs both libraries (DT_NEEDED)."""
    stubs = [compile_so(tmp_path / "stubs" / so, soname=so) for so in (SHIPPED_ONLY, LINE_ONLY)]
    return compile_so(tmp_path / "obj" / "xla_rocm_plugin.so", links=tuple(stubs))


def packed(tmp_path: Path, so: Path, root: Path | None) -> Path:
    return build_wheel("pjrt", tmp_path / "out", {"xla_rocm_plugin.so": so}, version=VERSION, rocm_version=ROCM,
                       revisions=revision_map(VERSION), requires_python=">=3.12", epoch=0, root=root)


def from_jax_tree(tmp_path: Path, so: Path, root: Path | None) -> Path:
    source = tmp_path / "bazel" / f"jax_rocm7_pjrt-{VERSION}-py3-none-manylinux_2_27_x86_64.whl"
    dist_info = f"jax_rocm7_pjrt-{VERSION}.dist-info"
    source.parent.mkdir(parents=True, exist_ok=True)
    with WheelWriter(source, dist_info, epoch=0) as writer:  # what jax's pjrt target writes, in short
        writer.add_bytes("jax_plugins/xla_rocm7/__init__.py", b"")
        writer.add_file("jax_plugins/xla_rocm7/xla_rocm_plugin.so", so, mode=0o755)
        writer.add_bytes(f"{dist_info}/METADATA", f"Metadata-Version: 2.1\nName: jax-rocm7-pjrt\nVersion: {VERSION}\n")
        writer.add_bytes(f"{dist_info}/WHEEL", "Wheel-Version: 1.0\nRoot-Is-Purelib: false\nTag: py3-none-any\n")
    return with_revisions(source, tmp_path / "out", revision_map(VERSION), ROCM, root, epoch=0)[0]


LAYOUTS = {"rocm-jax": packed, "jax-tree": from_jax_tree}


def listed_libraries(wheel: Path) -> list[str]:
    with zipfile.ZipFile(wheel) as zf:
        [name] = [n for n in zf.namelist() if sbom.is_member(n)]
        doc = json.loads(zf.read(name))
    rocm = next(c for c in doc["components"] if c["bom-ref"] == "rocm")
    assert rocm["version"] == ROCM
    return [c["name"] for c in rocm.get("components", [])]


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_the_sbom_lists_the_rocm_libraries_by_the_lines_own_soname_list(tmp_path, layout):
    so = pjrt_object(tmp_path)
    assert listed_libraries(LAYOUTS[layout](tmp_path, so, line(tmp_path))) == [LINE_ONLY]


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_a_line_without_its_own_list_reads_the_shipped_one(tmp_path, layout):
    so = pjrt_object(tmp_path)
    bare = tmp_path / "bare"
    bare.mkdir()
    assert listed_libraries(LAYOUTS[layout](tmp_path, so, bare)) == [SHIPPED_ONLY]
    assert listed_libraries(LAYOUTS[layout](tmp_path, so, None)) == [SHIPPED_ONLY]


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_the_two_layouts_agree_on_every_line(tmp_path, layout):
    """Both libraries listed by the line: both in the SBOM, once each, sorted."""
    so = pjrt_object(tmp_path)
    both = line(tmp_path, (LINE_ONLY, SHIPPED_ONLY))
    assert listed_libraries(LAYOUTS[layout](tmp_path, so, both)) == sorted([LINE_ONLY, SHIPPED_ONLY])
