"""Will the shared objects load? Checked without a GPU, from the ELF facts the scan kept.

``needed``: every DT_NEEDED of every shipped shared object resolves the way ld.so resolves it
once the wheels are installed in one site-packages: through the object's DT_RUNPATH (DT_RPATH
when it has none), with ``$ORIGIN`` the object's own install directory, to a file of that name
among the objects of the wheels given together or the ROCm runtime of the wheel's own ROCm
major (its name's N; the release its Summary names, else ``--rocm-version`` when of that
major: ``release.core.rocm_runtime``), so a rocm10 wheel needing a soname only ROCm 7 ships
fails; or among the system libraries the manylinux tag allows
(``release.core.manylinux``). ld.so.cache and LD_LIBRARY_PATH are not counted on: a wheel that
works only with them works on the build machine alone. An unresolved library is an error naming
the object, the library and every place searched.

``glibc`` and ``symbols``: the symbol versions the objects need (.gnu.version_r) are within the
tag's promise: GLIBC_x.y within the tag's glibc; GLIBCXX, CXXABI, GCC within its policy.
"""

from __future__ import annotations

import posixpath
import re
from typing import TYPE_CHECKING, Iterator, Sequence

from release.check.findings import ERROR, WARNING, Finding, Options
from release.check.runpath import native
from release.core import manylinux, rocm_runtime
from release.core.errors import UserError
from release.core.naming import Identity
from release.core.scan import Headers, Scan

if TYPE_CHECKING:
    from release.core.elffacts import ElfFacts
    from release.core.scan import Member

SITE_ROOT = "/venv/lib/python3/site-packages"  # where the wheels install, as the checks see it
G_UNRESOLVED = "unresolved NEEDED"
SHOWN = 6  # RUNPATH entries an error names (the real 0.10.2 objects carry 95)
_SUMMARY_ROCM = re.compile(r"\bROCm (\d+\.\d+\.\d+)\b")
_MANYLINUX = re.compile(r"^manylinux_(\d+)_(\d+)_")


def tag_glibc(tag: str) -> tuple[int, int] | None:
    platform = tag.split("-")[-1]
    m = _MANYLINUX.match(platform)
    if m:
        return int(m.group(1)), int(m.group(2))
    return manylinux.LEGACY.get(platform.split("_", 1)[0])


def check_glibc(scan: Scan, ident: Identity, _opts: Options) -> Iterator[Finding]:
    needs = [(m.elf.glibc, m.name) for m in scan.files() if m.elf is not None and m.elf.glibc]
    if not needs:
        return
    newest, who = max(needs)
    glibcs = {tag_glibc(t) for t in ident.tags}
    promises = {g for g in glibcs if g is not None}
    if len(promises) < len(glibcs) or not promises:
        yield Finding("glibc", WARNING, f"platform tag is not manylinux; the .so files need "
                      f"glibc {newest[0]}.{newest[1]}", who)
        return
    for promised in sorted(promises):
        if promised < newest:
            yield Finding("glibc", ERROR, f"tag promises glibc {promised[0]}.{promised[1]} but "
                          f"{who} needs GLIBC_{newest[0]}.{newest[1]}; use manylinux_"
                          f"{newest[0]}_{newest[1]} or newer", who)


def _policies(ident: Identity) -> list[manylinux.Policy]:
    """The policies of the wheel's platform tags (one per distinct platform), oldest first."""
    found = {manylinux.policy_for(t.split("-")[-1]) for t in ident.tags}
    return sorted((p for p in found if p is not None), key=lambda p: p.glibc)


def check_symbols(scan: Scan, ident: Identity, _opts: Options) -> Iterator[Finding]:
    """GLIBCXX, CXXABI and GCC versions from the system libraries within every promised policy
    (GLIBC's are the ``glibc`` check's)."""
    for policy in _policies(ident):
        for member in native(scan):
            if member.elf is None:
                continue
            for library, version in member.elf.versions:
                if library not in policy.libraries or version.startswith("GLIBC_"):
                    continue
                why = policy.too_new(version)
                if why:
                    yield Finding("symbols", ERROR, f"needs {version} from {library}; {why}",
                                  member.name, "symbol version above the tag")


def install_dir(member: str) -> str:
    return posixpath.dirname(f"{SITE_ROOT}/{member}")


def shown(directory: str) -> str:
    """A directory as a person reads it: ``site-packages/...`` inside the environment."""
    if directory == SITE_ROOT or directory.startswith(SITE_ROOT + "/"):
        return "site-packages" + directory[len(SITE_ROOT):]
    venv = SITE_ROOT.split("/lib/", 1)[0]
    if directory.startswith(venv + "/"):  # climbed out of site-packages, still in the environment
        return "site-packages/" + posixpath.relpath(directory, SITE_ROOT)
    return directory


def expand(entry: str, origin: str) -> str | None:
    """A RUNPATH entry as the loader reads it for an object in ``origin``; None when it is
    relative or names a token other than $ORIGIN (the runpath check reports those)."""
    path = entry.replace("${ORIGIN}", "$ORIGIN")
    if path.startswith("$ORIGIN"):
        path = origin + path[len("$ORIGIN"):]
    if not path.startswith("/") or "$" in path:
        return None
    return posixpath.normpath(path)


def wheel_rocm_version(scan: Scan) -> str | None:
    """The ROCm version the wheel's METADATA Summary names ("... (ROCm 7.2.0)"), if any."""
    for member in scan.members:
        if member.name.endswith(".dist-info/METADATA") and member.text is not None:
            summary = Headers(member.text.decode("utf-8", "replace")).get("Summary") or ""
            m = _SUMMARY_ROCM.search(summary)
            return m.group(1) if m else None
    return None


def runtime_for(scan: Scan, opts: Options,
                major: int | None = None) -> tuple[rocm_runtime.Runtime | None, str]:
    """The ROCm runtime to resolve a wheel of ROCm ``major`` (its name's N) against, and how it
    reads in an error line: the ``--rocm-version`` given when it is of that major, else the
    release the wheel's Summary names; a wheel of one major never resolves in another's runtime (a line that
    builds ROCm 7 and 10 verifies each wheel against its own)."""
    summary = wheel_rocm_version(scan)
    given = opts.rocm_version
    fits = given is not None and (major is None or rocm_runtime.major_of(given) == major)
    version = given if fits else summary
    if version is None:
        other = f"; --rocm-version {given} is ROCm {rocm_runtime.major_of(given)}'s" if given else ""
        return None, (f"no ROCm runtime (the wheel's Summary names no ROCm version; pass --rocm-version"
                      f"{' of ROCm ' + str(major) if major is not None else ''}{other})")
    if major is not None and rocm_runtime.major_of(version) != major:
        return None, (f"no ROCm runtime (the wheel is a rocm{major} wheel by its name, but its Summary "
                      f"names ROCm {version}, which ships other sonames)")
    try:
        runtime = rocm_runtime.load(version, opts.rocm_root)
    except UserError as exc:
        return None, f"no ROCm runtime ({exc})"
    return runtime, f"the ROCm {version} runtime"


def _shipped(together: Sequence[Scan]) -> dict[str, set[str]]:
    """Install directory -> the file names of the shared objects there. ld.so looks for a file
    named as the NEEDED entry; an object's DT_SONAME counts only once it is loaded, which
    nothing here can promise, so a shipped object whose soname differs from its file name does
    not satisfy a NEEDED of that soname (the error then names it)."""
    where: dict[str, set[str]] = {}
    for scan in together:
        for member in native(scan):
            where.setdefault(install_dir(member.name), set()).add(member.name.rsplit("/", 1)[-1])
    return where


def _soname_hint(library: str, together: Sequence[Scan]) -> str:
    for scan in together:
        for member in native(scan):
            if member.elf is not None and member.elf.soname == library:
                return f"; {member.name} has that DT_SONAME but another file name"
    return ""


def search_dirs(member_name: str, elf: ElfFacts) -> list[str]:
    """The directories the loader searches for the DT_NEEDED of ``member_name`` (a wheel member):
    its RUNPATH, else its RPATH, each ``$ORIGIN`` expanded where the wheel installs it."""
    entries = elf.runpath if elf.runpath is not None else elf.rpath or ()
    return [d for d in (expand(e, install_dir(member_name)) for e in entries) if d is not None]


def check_needed(scan: Scan, ident: Identity, opts: Options,
                 together: Sequence[Scan] = ()) -> Iterator[Finding]:
    """Every DT_NEEDED of the wheel's shared objects resolves (see the module's docstring)."""
    shipped = _shipped(together or [scan])
    policies = _policies(ident)
    runtime, runtime_line = runtime_for(scan, opts, ident.rocm_major)
    system = (policies[0].libraries if policies else frozenset())
    system_line = (f"the {policies[0].tag} system libraries" if policies else
                   "no system libraries (the platform tag is not manylinux x86_64)")
    for member in native(scan):
        elf = member.elf
        if elf is None or elf.error:
            continue  # the runpath check reports objects it cannot read
        dirs = search_dirs(member.name, elf)
        for library in elf.needed:
            if "/" in library or library in system or _found(library, dirs, shipped, runtime):
                continue
            yield _unresolved(member, library, dirs, runtime, runtime_line, system_line,
                              _soname_hint(library, together or [scan]))


def _found(library: str, dirs: Sequence[str], shipped: dict[str, set[str]],
           runtime: rocm_runtime.Runtime | None) -> bool:
    return any(library in shipped.get(d, ()) or
               (runtime is not None and runtime.provides(shown(d), library)) for d in dirs)


def _unresolved(member: Member, library: str, dirs: Sequence[str],
                runtime: rocm_runtime.Runtime | None, runtime_line: str,
                system_line: str, hint: str = "") -> Finding:
    places = list(dict.fromkeys(shown(d) for d in dirs))
    searched = (", ".join(places[:SHOWN]) + (f" and {len(places) - SHOWN} more" if len(places) > SHOWN else "")
                or "no RUNPATH entry")
    if runtime is not None and runtime.where(library):
        hint += f"; ROCm {runtime.version} has it in {', '.join(runtime.where(library))}"
    return Finding("needed", ERROR, f"{library} is not found: searched RUNPATH {searched} for the "
                   f"wheels' own objects and {runtime_line}, then {system_line}{hint}",
                   member.name, G_UNRESOLVED)
