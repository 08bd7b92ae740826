"""The archive checks: the zip reads, sizes stay bounded, RECORD matches the content, member
paths stay inside site-packages, no member holds a secret, the layout keeps to the wheel's
packages, the names agree (file name, dist-info, METADATA, WHEEL tags) and a wheel with native
code is not purelib."""

from __future__ import annotations

import csv
import io
import re
from typing import Iterator

from packaging.tags import parse_tag
from packaging.utils import canonicalize_name

from release.check.findings import ERROR, WARNING, Finding, Options
from release.check.runpath import native
from release.check.wheel_parts import dist_info_dir, headers, package_dirs
from release.core.naming import Identity
from release.core.scan import Scan


def check_zip(scan: Scan, _ident: Identity, _opts: Options) -> Iterator[Finding]:
    for member, problem in scan.zip_errors:
        yield Finding("zip", ERROR, problem, member)


def check_size(scan: Scan, _ident: Identity, _opts: Options) -> Iterator[Finding]:
    for member, problem in scan.oversize:
        yield Finding("size", ERROR, problem, member)


def check_record(scan: Scan, _ident: Identity, _opts: Options) -> Iterator[Finding]:
    dist_info = dist_info_dir(scan)
    record = scan.get(f"{dist_info}/RECORD") if dist_info else None
    if record is None or record.text is None:
        yield Finding("record", ERROR, "no RECORD in the dist-info directory")
        return
    rows: dict[str, tuple[str, str]] = {}
    try:
        for row in csv.reader(io.StringIO(record.text.decode("utf-8"))):
            if not row:
                continue
            if len(row) != 3:
                yield Finding("record", ERROR, f"RECORD row {row!r} has {len(row)} fields; "
                              "expected path,hash,size")
                continue
            if row[0] in rows:
                yield Finding("record", ERROR, "listed twice in RECORD", row[0])
            rows[row[0]] = (row[1], row[2])
    except (UnicodeDecodeError, csv.Error) as exc:
        yield Finding("record", ERROR, f"RECORD is not UTF-8 CSV ({exc})")
        return
    for member in scan.files():
        if member.name not in rows:
            yield Finding("record", ERROR, "in the archive but not in RECORD", member.name)
            continue
        hash_field, size_field = rows.pop(member.name)
        if member.name == record.name:
            if hash_field or size_field:
                yield Finding("record", WARNING, "RECORD lists a hash for itself", member.name)
            continue
        if not hash_field.startswith("sha256="):
            yield Finding("record", ERROR, f"hash {hash_field!r} is not sha256=...", member.name)
        elif member.sha256 is not None and hash_field[7:] != member.sha256:
            yield Finding("record", ERROR, f"RECORD says {hash_field}, the content is "
                          f"sha256={member.sha256}", member.name)
        if size_field != str(member.read_size if member.read_size is not None else member.size):
            yield Finding("record", ERROR, f"RECORD says size {size_field!r}, the content is "
                          f"{member.read_size if member.read_size is not None else member.size} "
                          "bytes", member.name)
    for missing in rows:
        yield Finding("record", ERROR, "in RECORD but not in the archive", missing)


def check_paths(scan: Scan, _ident: Identity, _opts: Options) -> Iterator[Finding]:
    for member in scan.members:
        name = member.name
        parts = name.split("/")
        if name.startswith("/") or re.match(r"^[A-Za-z]:", name):
            yield Finding("paths", ERROR, "absolute path", name)
        if ".." in parts:
            yield Finding("paths", ERROR, "path contains '..'", name)
        if "\\" in name:
            yield Finding("paths", ERROR, "path contains a backslash", name)


def check_secrets(scan: Scan, _ident: Identity, _opts: Options) -> Iterator[Finding]:
    """No text member holds a secret-shaped string (a published wheel leaks it for good); the
    finding names the member and the kind of secret, never the secret."""
    for member in scan.files():
        if member.secret is not None:
            yield Finding("secrets", ERROR, f"holds what looks like {member.secret}; a wheel must "
                          "never carry a credential (revoke it if it is real)", member.name)


def check_layout(scan: Scan, ident: Identity, _opts: Options) -> Iterator[Finding]:
    dist_infos = {m.name.split("/", 1)[0] for m in scan.members
                  if m.name.split("/", 1)[0].endswith(".dist-info")}
    if len(dist_infos) > 1:
        yield Finding("layout", ERROR, f"{len(dist_infos)} dist-info directories: "
                      f"{', '.join(sorted(dist_infos))}")
    dirs = package_dirs(ident, scan)
    for member in scan.files():
        top = member.name.split("/", 1)[0]
        if top in dist_infos:
            continue
        if top.endswith(".data"):
            yield Finding("layout", ERROR, "outside the package directories (a .data directory "
                          "installs files elsewhere)", member.name)
        elif dirs and not any(member.name.startswith(d + "/") for d in dirs):
            if ident.kind == "pjrt" and member.name == "jax_plugins/__init__.py":
                yield Finding("layout", ERROR, "jax_plugins is a namespace package; an "
                              "__init__.py there shadows other plugins", member.name)
            else:
                yield Finding("layout", ERROR, f"outside the package directories "
                              f"({', '.join(d + '/' for d in dirs)}) and the dist-info",
                              member.name)


def check_names(scan: Scan, ident: Identity, _opts: Options) -> Iterator[Finding]:
    if ident.name_error or ident.dist is None:  # Identity sets one or the other
        yield Finding("names", ERROR, f"file name: {ident.name_error}")
        return
    dist_info = dist_info_dir(scan)
    if dist_info is None:
        yield Finding("names", ERROR, "no single .dist-info directory")
        return
    expected_dir = f"{canonicalize_name(ident.dist).replace('-', '_')}-{ident.version}.dist-info"
    di_name, _, di_version = dist_info[:-len(".dist-info")].rpartition("-")
    if canonicalize_name(di_name) != ident.dist or di_version != ident.version:
        yield Finding("names", ERROR, f"dist-info directory {dist_info} does not match the file "
                      f"name (expected {expected_dir})")
    meta = headers(scan.get(f"{dist_info}/METADATA"))
    if meta is None:
        yield Finding("names", ERROR, "no METADATA", f"{dist_info}/METADATA")
    else:
        name, version = meta.get("Name"), meta.get("Version")
        if name is None or canonicalize_name(name) != ident.dist:
            yield Finding("names", ERROR, f"METADATA Name {name!r} does not match the file name "
                          f"({ident.dist})")
        if version != ident.version:
            yield Finding("names", ERROR, f"METADATA Version {version!r} does not match the file "
                          f"name ({ident.version})")
    wheel = headers(scan.get(f"{dist_info}/WHEEL"))
    if wheel is None:
        yield Finding("names", ERROR, "no WHEEL file", f"{dist_info}/WHEEL")
        return
    tags = set()
    for tag in wheel.get_all("Tag") or ():
        tags |= {str(t) for t in parse_tag(tag)}
    if tags != set(ident.tags):
        yield Finding("names", ERROR, f"WHEEL Tag {sorted(tags)} does not match the file name's "
                      f"tags {sorted(ident.tags)}")


def check_purelib(scan: Scan, _ident: Identity, _opts: Options) -> Iterator[Finding]:
    dist_info = dist_info_dir(scan)
    wheel = headers(scan.get(f"{dist_info}/WHEEL")) if dist_info else None
    if wheel is None:
        return  # reported by the names check
    purelib = (wheel.get("Root-Is-Purelib") or "").strip().lower()
    shared = native(scan)
    if shared and purelib != "false":
        yield Finding("purelib", ERROR, f"Root-Is-Purelib is {purelib or 'missing'} but the wheel "
                      f"carries native libraries ({shared[0].name}); it must be false",
                      f"{dist_info}/WHEEL")

