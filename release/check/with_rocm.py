"""The ``with-rocm`` check: ``pip install jax-rocmN-plugin[with-rocm]`` on a machine without a
system ROCm gives a set that loads.

The plugin's ``with-rocm`` extra names ROCm's runtime wheels (TheRock's ``rocm[libraries]``,
``rocm-sdk-core``, ...); what each installs is data (``release.core.rocm_sdk_wheels``), the
sonames in those directories are the ROCm runtime of the wheel's own major
(``release.core.rocm_runtime``). Every DT_NEEDED of the plugin's objects and of the PJRT wheel of
its major verified with it (the plugin requires it) must resolve through the object's RUNPATH to
the wheels' own objects, a manylinux system library, or a directory the extra installs that
holds that soname, in every way an index can answer the extra; ``/opt/rocm`` does not count
here (that is the ``needed`` check's install). A pin on a ROCm release of another major is an
error too. An extra naming packages whose installed files no list records is not resolved, and
says so (n/a), since nothing could then be said about what it loads.
"""

from __future__ import annotations

import fnmatch
from typing import Sequence

from packaging.requirements import Requirement

from release.check.findings import ERROR, Finding, Options
from release.check.loadable import _policies, _shipped, runtime_for, search_dirs, shown
from release.check.runpath import native
from release.check.wheel_parts import dist_info_dir, headers
from release.core import extras, rocm_runtime, rocm_sdk_wheels
from release.core.errors import UserError
from release.core.naming import Identity
from release.core.scan import Scan

EXTRA = extras.WITH_ROCM
G_UNINSTALLED = "soname the with-rocm extra does not install"


def extra_requirements(scan: Scan) -> list[Requirement] | None:
    """The requirements of the wheel's ``with-rocm`` extra (however its METADATA spells it);
    None when it declares no such extra."""
    dist_info = dist_info_dir(scan)
    meta = headers(scan.get(f"{dist_info}/METADATA")) if dist_info else None
    return None if meta is None else extras.requirements(meta, EXTRA)


def check_with_rocm(scan: Scan, ident: Identity, opts: Options,
                    together: Sequence[Scan] = ()) -> tuple[list[Finding], str | None]:
    """(findings, why the check does not apply or None)."""
    reqs = extra_requirements(scan)
    if reqs is None:
        return [], f"the plugin declares no {EXTRA} extra"
    try:
        wheels = rocm_sdk_wheels.load(opts.rocm_root)
    except UserError as exc:
        return [Finding(EXTRA, ERROR, str(exc))], None
    if wheels is None:
        return [], f"{rocm_runtime.DATA} records no ROCm runtime wheels (sdk_wheels)"
    layouts = wheels.layouts((r.name, r.extras) for r in reqs)
    if layouts.unknown or not reqs:
        named = ", ".join(layouts.unknown) or "nothing"
        return [], (f"the {EXTRA} extra names {named}, whose installed files {rocm_runtime.DATA} does "
                    "not record; add them there with their sources to resolve it")
    findings = list(_other_majors(reqs, wheels, ident))
    runtime, _ = runtime_for(scan, opts, ident.rocm_major)
    if runtime is None:
        return findings, None  # the needed check says why there is no runtime
    group = [scan, *(s for s in together if s is not scan and _pjrt_of(s, ident))]
    shipped = _shipped(together or [scan])
    policies = _policies(ident)
    system = policies[0].libraries if policies else frozenset()
    asked = ", ".join(str(r).split(";")[0].strip() for r in reqs)
    for wheel in group:
        for member in native(wheel):
            elf = member.elf
            if elf is None or elf.error:
                continue  # the runpath check reports objects it cannot read
            found = search_dirs(member.name, elf)
            dirs = [shown(d) for d in found]
            for library in elf.needed:
                if "/" in library or library in system or any(library in shipped.get(d, ()) for d in found):
                    continue
                for way in layouts.ways:
                    if not any(runtime.provides(d, library) and any(fnmatch.fnmatchcase(d, w) for w in way)
                               for d in dirs):
                        findings.append(_uninstalled(member.name, library, asked, way, runtime))
                        break
    return findings, None


def _pjrt_of(scan: Scan, ident: Identity) -> bool:
    other = Identity.of(scan.path)
    return other.kind == "pjrt" and other.rocm_major == ident.rocm_major


def _other_majors(reqs: Sequence[Requirement], wheels: rocm_sdk_wheels.SdkWheels,
                  ident: Identity) -> list[Finding]:
    found = []
    for req in reqs:
        if wheels.find(req.name) is None:
            continue
        for spec in req.specifier:
            major = rocm_runtime.major_of(spec.version)
            if spec.operator in ("==", "===", "~=") and major is not None and major != ident.rocm_major:
                found.append(Finding(EXTRA, ERROR, f"the {EXTRA} extra pins {req.name}{spec}, a ROCm {major} "
                                     f"release; this is a rocm{ident.rocm_major} wheel"))
    return found


def _uninstalled(member: str, library: str, asked: str, way: frozenset[str],
                 runtime: rocm_runtime.Runtime) -> Finding:
    where = runtime.where(library)
    has = (f"; ROCm {runtime.version} has it in {', '.join(where)}" if where else
           f"; no location of ROCm {runtime.version} has it")
    return Finding(EXTRA, ERROR, f"{library} is not found once installed with its {EXTRA} extra ({asked}): "
                   f"the RUNPATH reaches none of what it installs that holds it "
                   f"({', '.join(sorted(way)) or 'nothing'}){has}", member, G_UNINSTALLED)
