"""The ``runpath`` check: every shared object carries a DT_RUNPATH (not DT_RPATH) an installed
wheel can use: no build-tree or machine paths, no relative or empty entries, every entry its
layout links in (the rocm-jax layout: the ``rocm_build`` config's; a jax-tree line: jax's
``rocm_rpath.bzl``'s, ``JAX_TREE_RUNPATH``)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Iterator, Sequence

from release.check.findings import ERROR, WARNING, Finding, Options

if TYPE_CHECKING:
    from release.core.naming import Identity
    from release.core.scan import Member, Scan

# What jax-ml/jax:jaxlib/rocm/rocm_rpath.bzl links into every object of a jax-tree ROCm wheel
# (jax-ml/jax#38276): TheRock's pip layouts one and two levels up from $ORIGIN (the kernels sit
# one directory below site-packages, the PJRT object two) and /opt/rocm/lib last. Its other
# entries (per-family package directories, other Pythons' dist-packages) are allowed, not required.
JAX_TREE_RUNPATH = ("$ORIGIN/../_rocm_sdk_core/lib", "$ORIGIN/../_rocm_sdk_libraries/lib",
                    "$ORIGIN/../../_rocm_sdk_core/lib", "$ORIGIN/../../_rocm_sdk_libraries/lib",
                    "/opt/rocm/lib")


def layout_runpath(root: Path | None) -> tuple[str, ...] | None:
    """The RUNPATH a jax-tree line's wheels must carry (``JAX_TREE_RUNPATH``) when the project
    at ``root`` is one; None for the rocm-jax layout (its ``rocm_build`` config says) or no project."""
    if root is None:  # no project named: verify in CI loads no YAML for this
        return None
    from release.build.layouts import is_jax_tree
    from release.core.config import load_project
    from release.core.errors import UserError
    try:
        project = load_project(root, search=False)
    except UserError:
        return None
    return JAX_TREE_RUNPATH if is_jax_tree(project) else None


# RUNPATH entries that only mean something inside a build tree or on one machine.
LEAKS = (
    (re.compile(r"_solib_"), "a Bazel _solib_ directory"),
    (re.compile(r"\.runfiles(/|$)"), "a Bazel runfiles tree"),
    (re.compile(r"bazel-out|execroot|/_bazel_"), "the Bazel output tree"),
    (re.compile(r"^(/var)?/tmp(/|$)"), "a temporary directory"),
    (re.compile(r"^(/home/|/Users/|/root(/|$)|~)"), "a home directory"),
)


def native(scan: Scan) -> list[Member]:
    """Members that are shared objects: ELF, or named like one."""
    return [m for m in scan.files() if m.elf is not None
            or re.search(r"\.so(\.\d+)*$", m.name)]


# Groups of RUNPATH findings, named for the human summary (see ``Finding.group``).
G_EMPTY, G_DUPLICATE, G_LEAK = "empty entry", "duplicate entry", "build-tree or machine path"
G_RELATIVE, G_PYTHON, G_MISSING = "relative entry", "path into a Python installation", \
    "configured entry missing"
_PYTHON_INSTALL = re.compile(r"(^|/)(site|dist)-packages(/|$)")


def runpath_problems(entries: Sequence[str], configured: Sequence[str]) -> list[tuple[str, str, str]]:
    """(severity, message, group) for one RUNPATH: leaks, relative or empty entries,
    duplicates, paths into some Python installation, configured entries missing."""
    found: list[tuple[str, str, str]] = []
    seen: set[str] = set()
    for entry in entries:
        if entry == "":
            found.append((ERROR, "empty entry (the loader reads it as the working directory)",
                          G_EMPTY))
            continue
        if entry in seen:
            found.append((WARNING, f"duplicate entry {entry}", G_DUPLICATE))
        seen.add(entry)
        for pattern, what in LEAKS:
            if pattern.search(entry):
                found.append((ERROR, f"build-tree or machine path {entry} ({what})", G_LEAK))
                break
        else:
            if not entry.startswith(("/", "$ORIGIN", "${ORIGIN}")):
                found.append((ERROR, f"relative entry {entry} (resolved against the working "
                                     "directory; use $ORIGIN)", G_RELATIVE))
            elif _PYTHON_INSTALL.search(entry):
                # Absolute, or $ORIGIN/../../../python3.X/dist-packages/...: a wheel lives in
                # one site-packages and never needs to reach into a named one.
                how = "absolute path" if entry.startswith("/") else "relative path climbing"
                found.append((WARNING, f"{how} into one Python installation {entry}", G_PYTHON))
    for entry in configured:
        if entry not in seen:
            found.append((ERROR, f"configured entry {entry} is missing", G_MISSING))
    return found


def check_runpath(scan: Scan, _ident: Identity, opts: Options) -> Iterator[Finding]:
    for member in native(scan):
        elf = member.elf
        if elf is None:
            if member.error is None:  # unreadable members are the zip or size check's
                yield Finding("runpath", ERROR, "named like a shared object but not an ELF "
                              "file; the loader cannot load it", member.name)
            continue
        if elf.error:
            yield Finding("runpath", ERROR, elf.error, member.name)
            continue
        if elf.rpath is not None:
            yield Finding("runpath", ERROR, "DT_RPATH is set (it overrides LD_LIBRARY_PATH); link "
                          "with --enable-new-dtags so it is DT_RUNPATH", member.name)
        if elf.runpath is None:
            yield Finding("runpath", ERROR, "no DT_RUNPATH", member.name)
            continue
        for severity, message, group in runpath_problems(elf.runpath, opts.runpath):
            yield Finding("runpath", severity, message, member.name, group)
