"""A PJRT wheel the size of the real one, for the verify and promote benchmarks.

``xla_rocm_plugin.so`` is a real shared object (linked with the ``rocm_build`` RUNPATH) that
carries a 503 MB data blob, so the wheel has one ~500 MB ELF member that deflates about 3:1
(to ~150 MB) at roughly the speed of real machine code: the blob is a Zipf-distributed stream
of short random "words", so deflate finds matches in its window as it does in code. It is
built by ``release.build.wheels.build_wheel``, the same path a nightly takes.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

SO_SIZE = 503_453_288  # xla_rocm_plugin.so in jax-rocm7-pjrt 0.10.2
VERSION = "0.9.1.dev20261122"
_BLOCK = 16 << 20


def _block(seed: int = 1) -> bytes:
    rng = random.Random(seed)
    words = [rng.randbytes(rng.randint(2, 16)) for _ in range(6144)]
    weights = [1 / (i + 1) ** 1.3 for i in range(len(words))]
    return b"".join(rng.choices(words, weights, k=_BLOCK // 8))[:_BLOCK]


def big_so(directory: Path, size: int = SO_SIZE) -> Path:
    """A real shared object of about ``size`` bytes with the configured RUNPATH."""
    directory.mkdir(parents=True, exist_ok=True)
    blob = directory / "blob.bin"
    block = _block()
    with open(blob, "wb") as fh:
        left = size - 16384
        while left > 0:
            fh.write(block[:left])
            left -= len(block)
    return link_so(blob, directory / "xla_rocm_plugin.so")


def link_so(blob: Path, out: Path) -> Path:
    """A real shared object at ``out`` carrying ``blob`` as data (``blob`` is consumed), linked
    with the ``rocm_build`` RUNPATH as a nightly build links it."""
    from release.build.bazel import configured_runpath
    directory = blob.parent
    (directory / "plugin.c").write_text("int pjrt_plugin_answer(void) { return 42; }\n")
    subprocess.run(["ld", "-r", "-b", "binary", "-z", "noexecstack", "-o", "blob.o", blob.name],
                   cwd=directory, check=True)
    subprocess.run(["cc", "-shared", "-fPIC", "-o", str(out), "plugin.c", "blob.o",
                    "-Wl,-z,noexecstack", "-Wl,--enable-new-dtags",
                    "-Wl,-rpath," + ":".join(configured_runpath(REPO))],
                   cwd=directory, check=True)
    blob.unlink()
    (directory / "blob.o").unlink()
    (directory / "plugin.c").unlink()
    return out


def big_wheel(directory: Path) -> Path:
    """The PJRT wheel around ``big_so``, built as a nightly build builds it."""
    from release.build.bazel import requires_python
    from release.build.wheel_specs import load_specs
    from release.build.wheels import build_wheel
    from release.core.config import load_deps, load_version_info
    from release.core.revisions import RevisionMap
    so = big_so(directory / "artifacts")
    info = load_version_info(REPO / "version_info.json")
    wheel = build_wheel("pjrt", directory, {"xla_rocm_plugin.so": so}, version=VERSION,
                        rocm_version=info.rocm_version, specs=load_specs(REPO),
                        requires_python=requires_python(REPO),
                        revisions=RevisionMap.from_deps(load_deps(REPO / "deps.yaml"), VERSION))
    so.unlink()
    return wheel


def measure(argv: list[str], cwd: Path, env: dict | None = None) -> tuple[float, int, float]:
    """(wall s, peak RSS bytes, CPU s) of the child and the descendants it waited for."""
    started = time.perf_counter()
    proc = subprocess.Popen(argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - started
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        sys.exit(f"{argv[:4]} failed: {proc.stderr.read().decode()[-2000:]}")
    return wall, usage.ru_maxrss * 1024, usage.ru_utime + usage.ru_stime


SAME_LEVEL_SITECUSTOMIZE = """
# Loaded at start-up by every Python of the anchor (PYTHONPATH): zipfile deflates at the zlib
# level given in BENCH_ZLIB_LEVEL whenever no level was asked for, so `python -m build` writes a
# wheel of about our size (its own default is zlib's 6; wheel's WheelFile never passes a level).
import os, zipfile
_level = int(os.environ["BENCH_ZLIB_LEVEL"])
_compressor = zipfile._get_compressor
def _at_level(compress_type, compresslevel=None):
    return _compressor(compress_type, _level if compresslevel is None else compresslevel)
zipfile._get_compressor = _at_level
"""


def same_level_hook(base: Path, env: dict, level: int) -> dict:
    """``env`` for a Python child whose zipfile deflates at zlib ``level`` (when no level is
    asked for): the anchors then write output of about our size, so their cost is compared at
    equal size."""
    hook = base / "same-level"
    hook.mkdir(exist_ok=True)
    (hook / "sitecustomize.py").write_text(SAME_LEVEL_SITECUSTOMIZE)
    return {**env, "PYTHONPATH": f"{hook}{os.pathsep}{REPO}", "BENCH_ZLIB_LEVEL": str(level)}
