"""Real ELF shared objects, compiled by the system C compiler for the tests.

Named as the real artifacts and linked with RUNPATH set at link time, the way
the ``rocm_build`` Bazel config does it: ``-Wl,--enable-new-dtags -Wl,-rpath,...``.
Each worker compiles one object once: the same source with the same flags (and the same bytes
of the objects it links) is copied from the first compile's bytes, which the compiler makes
the same wherever it runs.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from pathlib import Path

import pytest

PJRT_SO = "xla_rocm_plugin.so"
KERNEL_SOS = ("_linalg.so", "_prng.so", "_solver.so", "_sparse.so", "_hybrid.so", "_rnn.so",
              "_triton.so", "rocm_plugin_extension.so")
ALL_SOS = (PJRT_SO, *KERNEL_SOS)

_SOURCE = """
#include <stdio.h>
const char *artifact_name(void) { return "%(name)s"; }
int artifact_answer(void) { return %(answer)d; }
"""


def cc() -> str:
    for name in ("cc", "gcc", "clang"):
        if shutil.which(name):
            return name
    pytest.skip("no C compiler")


def compile_so(out: Path, runpath: list[str] | None = None, *, new_dtags: bool = True,
               extra_flags: list[str] = (), answer: int = 42, soname: str | None = None,
               links: tuple[Path, ...] = ()) -> Path:
    """Compile a small shared object at ``out`` with ``runpath`` set by the linker.

    ``new_dtags=False`` makes the linker write DT_RPATH instead of DT_RUNPATH. ``soname`` sets
    DT_SONAME; each of ``links`` (a shared object) becomes a DT_NEEDED entry, by its soname or
    else its file name, as when the build links against it.
    """
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    source = _SOURCE % {"name": out.name, "answer": answer}
    flags = []
    if runpath:
        flags.append("-Wl,--enable-new-dtags" if new_dtags else "-Wl,--disable-new-dtags")
        flags.append("-Wl,-rpath," + ":".join(runpath))
    if soname:
        flags.append(f"-Wl,-soname,{soname}")
    if links:
        flags.append("-Wl,--no-as-needed")
        flags += [a for lib in links for a in (f"-L{Path(lib).parent}", f"-l:{Path(lib).name}")]
    flags.extend(extra_flags)
    # The key: the source, the flags but where the linked objects lie, and those objects' bytes.
    key = hashlib.sha256("\0".join([source, *(f for f in flags if not f.startswith("-L"))]).encode())
    for lib in links:
        key.update(Path(lib).read_bytes())
    compiled = _COMPILED.get(key.hexdigest())
    if compiled is None:
        src = out.with_suffix(".c")
        src.write_text(source)
        subprocess.run([cc(), "-shared", "-fPIC", "-O1", "-o", str(out), str(src), *flags], check=True,
                       capture_output=True)
        src.unlink()
        _COMPILED[key.hexdigest()] = compiled = (out.read_bytes(), out.stat().st_mode & 0o7777)
        return out
    data, mode = compiled
    out.unlink(missing_ok=True)
    out.write_bytes(data)
    os.chmod(out, mode)
    return out


_COMPILED: dict[str, tuple[bytes, int]] = {}  # compile_so's key -> the object's bytes and mode


def compile_artifacts(directory: Path, runpath: list[str] | None) -> Path:
    """Every artifact a build produces (``xla_rocm_plugin.so`` and the kernels), in one dir."""
    for i, name in enumerate(ALL_SOS):
        compile_so(Path(directory) / name, runpath, answer=i)
    return Path(directory)


_CXX_SOURCE = """
namespace std { [[noreturn]] void __throw_bad_array_new_length(); }
void artifact_too_new(void) { std::__throw_bad_array_new_length(); }
"""


def compile_cxx_so(out: Path, runpath: list[str]) -> Path:
    """A C++ shared object needing GLIBCXX_3.4.29 from libstdc++.so.6 (GCC 11's
    ``std::__throw_bad_array_new_length``): newer than manylinux_2_28 allows."""
    if not shutil.which("g++"):
        pytest.skip("no C++ compiler")
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    src = out.with_suffix(".cc")
    src.write_text(_CXX_SOURCE)
    subprocess.run(["g++", "-shared", "-fPIC", "-O1", "-o", str(out), str(src),
                    "-Wl,--enable-new-dtags", "-Wl,-rpath," + ":".join(runpath)],
                   check=True, capture_output=True)
    src.unlink()
    return out
