"""Wheels Bazel wrote (the jax-tree layout): held to the plan, then given the revision map and SBOM.

jax's wheel targets write, name and version the wheels themselves (``release.build.jax_tree``
stamps the version in). Before anything is drafted each one must be exactly the wheel the plan
names: a wheel whose stamped version differs (a stamping that Bazel read otherwise, a jax pin
on another line) is refused, naming both versions. Then, as the rocm-jax layout's packer does,
the revision map goes in as ``<package>/commit_info.py`` (``RevisionMap.commit_info_py``) and
the CycloneDX SBOM as ``<dist-info>/sboms/<dist>.cdx.json`` (``release.build.sbom``, the same
document the packer writes: the map's sources, the major's ROCm release and the ROCm libraries
the wheel's objects need, read from their DT_NEEDED while they stream past): every other member
is copied as it is (its bytes and RECORD row, no object rebuilt or re-deflated), ``RECORD`` is
written anew. An SBOM jax's target wrote is replaced by this one.

    check_built(found, expected, version) -> None     # found: the built wheel's file name
    with_revisions(source, dest_dir, revisions, rocm_version, root) -> (Path, sha256 hex)
"""

from __future__ import annotations

import zipfile
from pathlib import Path
from typing import Generator

from release.build import sbom
from release.core import naming, rocm_runtime
from release.core.elffacts import ELF_MAGIC, ElfCollector, streamed_facts
from release.core.errors import UserError
from release.core.revisions import RevisionMap
from release.core.scan import archive_problems, open_wheel
from release.core.wheelfile import WheelWriter, read_record

COMMIT_INFO = "commit_info.py"
_CHUNK = 1 << 20


def check_built(found: str, expected: str, version: str) -> None:
    """``found`` (what Bazel wrote) must be ``expected`` (the plan's name of that cell)."""
    ident = naming.Identity.of(found)
    if ident.version != version:
        raise UserError(f"{found}: Bazel stamped version {ident.version}, the plan builds {version}; "
                        "nothing is drafted (expected the ML_WHEEL_* stamping to give the plan's version)")
    if found != expected:
        raise UserError(f"{found}: Bazel wrote another wheel than the plan names ({expected}); nothing is "
                        "drafted")


def package_of(filename: str) -> str:
    """The import package a jax-rocm wheel holds: ``jax_plugins/xla_rocmN`` or ``jax_rocmN_plugin``."""
    ident = naming.Identity.of(filename)
    if ident.rocm_major is None or ident.kind is None:
        raise UserError(f"{filename}: not a jax-rocm wheel; expected jax_rocmN_pjrt or jax_rocmN_plugin")
    return (naming.pjrt_package if ident.kind == "pjrt" else naming.plugin_package)(ident.rocm_major)


def with_revisions(source: Path, dest_dir: Path, revisions: RevisionMap, rocm_version: str,
                   root: Path | None = None, *, epoch: int | None = None) -> tuple[Path, str]:
    """``source`` written into ``dest_dir`` under its own name with the revision map and the
    SBOM (for ROCm ``rocm_version``, of the wheel's major, its soname lists those of the line at
    ``root``) inside, every member timestamped ``epoch`` (default ``$SOURCE_DATE_EPOCH``);
    returns the new wheel and its sha256."""
    source = Path(source)
    package = package_of(source.name)
    ident = naming.Identity.of(source.name)
    if ident.rocm_major is None or rocm_runtime.major_of(rocm_version) != ident.rocm_major:
        raise ValueError(f"{source.name}: ROCm {rocm_version} is not its major's")
    dist = (naming.pjrt_dist if ident.kind == "pjrt" else naming.plugin_dist)(ident.rocm_major)
    target = f"{package}/{COMMIT_INFO}"
    dest = Path(dest_dir) / source.name
    with open_wheel(source) as zf, open(source, "rb") as fp:
        problems = archive_problems(zf, fp)
        if problems:
            member, problem = problems[0]
            raise UserError(f"{source}: {member + ': ' if member else ''}{problem}; not a wheel to publish")
        infos = [i for i in zf.infolist() if not i.is_dir()]
        dist_infos = {i.filename.split("/", 1)[0] for i in infos if i.filename.split("/", 1)[0].endswith(".dist-info")}
        if len(dist_infos) != 1:
            raise UserError(f"{source}: {len(dist_infos)} .dist-info directories; expected one")
        dist_info = dist_infos.pop()
        if not any(i.filename.startswith(package + "/") for i in infos):
            raise UserError(f"{source}: no {package}/ package; expected the one jax's target writes")
        rows = read_record(source)
        payload = [i for i in infos if not i.filename.startswith(dist_info + "/") and i.filename != target]
        meta = [i for i in infos if i.filename.startswith(dist_info + "/")
                and i.filename != f"{dist_info}/RECORD" and not sbom.is_member(i.filename)]
        needed = [so for info in payload for so in _needed(zf, info)]
        document = sbom.document(dist, ident.version or "", revisions, rocm_version,
                                 sbom.rocm_sonames(needed, rocm_version, root))
        with WheelWriter(dest, dist_info, epoch=epoch) as writer:
            for info in payload:
                row = rows.get(info.filename)
                if row is None or not row[0].startswith("sha256=") or row[1] != info.file_size:
                    raise UserError(f"{source}: RECORD has no sha256 and size {info.file_size} for "
                                    f"{info.filename}; not a wheel to publish")
                writer.add_raw(source, info.filename, record=(row[0], info.file_size))
            writer.add_bytes(target, revisions.commit_info_py())
            for info in meta:  # the .dist-info last, RECORD written anew by the writer
                writer.add_bytes(info.filename, zf.read(info), mode=_mode(info))
            writer.add_bytes(sbom.member(dist_info, dist), sbom.dumps(document))
    assert writer.sha256 is not None  # set when the writer closed
    return dest, writer.sha256


def _mode(info: zipfile.ZipInfo) -> int:
    return (info.external_attr >> 16) & 0o777 or 0o644  # never setuid, setgid or sticky


def _needed(zf: zipfile.ZipFile, info: zipfile.ZipInfo) -> tuple[str, ...]:
    """DT_NEEDED of a member that is a shared object (none of any other): streamed, keeping
    only the ranges the loader reads (``ElfCollector``), so no object is written out."""
    def chunks() -> Generator[bytes, None, None]:
        with zf.open(info) as handle:
            while chunk := handle.read(_CHUNK):
                yield chunk
    stream = chunks()
    try:
        first = next(stream, b"")
        if first[:4] != ELF_MAGIC:
            return ()
        collector = ElfCollector(info.file_size)
        collector.feed(first)
        for chunk in stream:
            collector.feed(chunk)
    finally:
        stream.close()
    return streamed_facts(collector, chunks).needed
