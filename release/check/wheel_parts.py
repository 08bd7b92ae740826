"""What a wheel says about itself, read from its scan: the dist-info directory, its header files
(METADATA, WHEEL), and the payload files of its own packages, so every check reads them alike."""

from __future__ import annotations

from release.core import naming
from release.core.naming import Identity
from release.core.scan import Headers, Member, Scan


def package_dirs(ident: Identity, scan: Scan) -> tuple[str, ...]:
    """Top-level directories the payload may live in: the jax-rocm packages, or what another
    wheel's top_level.txt names."""
    if ident.kind == "pjrt" and ident.rocm_major is not None:
        return (naming.pjrt_package(ident.rocm_major),)
    if ident.kind == "plugin" and ident.rocm_major is not None:
        return (naming.plugin_package(ident.rocm_major),)
    dist_info = dist_info_dir(scan)
    top = scan.get(f"{dist_info}/top_level.txt") if dist_info else None
    if top is not None and top.text is not None:
        return tuple(line.strip() for line in top.text.decode("utf-8", "replace").splitlines()
                     if line.strip())
    return ()


def dist_info_dir(scan: Scan) -> str | None:
    dirs = sorted({m.name.split("/", 1)[0] for m in scan.members
                   if "/" in m.name and m.name.split("/", 1)[0].endswith(".dist-info")})
    return dirs[0] if len(dirs) == 1 else None


def headers(member: Member | None) -> Headers | None:
    if member is None or member.text is None:
        return None
    return Headers(member.text.decode("utf-8", "replace"))


def payload(scan: Scan, ident: Identity, basename: str) -> list[Member]:
    dirs = package_dirs(ident, scan)
    return [m for m in scan.files() if m.name.rsplit("/", 1)[-1] == basename
            and (not dirs or any(m.name.startswith(d + "/") for d in dirs))]


def kept(scan: Scan, ident: Identity, basename: str) -> list[tuple[Member, bytes]]:
    """The payload's ``basename`` files whose text the scan kept, with that text."""
    return [(m, m.text) for m in payload(scan, ident, basename) if m.text is not None]

