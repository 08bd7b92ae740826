"""Wheels for the verify and promote tests: good ones built by the real build path, bad ones
crafted from them one defect at a time.

Good wheels come from ``release.build.wheels.build_wheel`` over real ELF objects compiled with the
RUNPATH the ``rocm_build`` config sets. ``craft`` copies a wheel while replacing, adding or
dropping members and, unless told otherwise, writes a correct RECORD, so each bad wheel
carries exactly the defect a test names.
"""

from __future__ import annotations

import base64
import csv
import hashlib
import io
import os
import random
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from release.check.resolver import pip_argv
from tests.support.elf import ALL_SOS, PJRT_SO, cc, compile_so
from tests.support.shared import built_once

REPO = Path(__file__).resolve().parents[2]
VERSION = "0.9.1.dev20261122"
PYTHON = f"{sys.version_info.major}.{sys.version_info.minor}"  # so pip can install it here
_GLIBC_SOURCE = """
#include <stddef.h>
#include <sys/random.h>
long fill(void *buffer, size_t n) { return getrandom(buffer, n, 0); }
"""


def configured_runpath() -> list[str]:
    from release.build.bazel import configured_runpath as read
    return read(REPO)


def revision_map(version: str = VERSION):
    from release.core.config import load_deps
    from release.core.revisions import RevisionMap
    return RevisionMap.from_deps(load_deps(REPO / "deps.yaml"), version)


def rocm_version() -> str:
    from release.core.config import load_version_info
    return load_version_info(REPO / "version_info.json").rocm_version


def compile_glibc_so(out: Path, runpath: list[str]) -> Path:
    """A shared object that needs GLIBC_2.25 (getrandom), linked with ``runpath``."""
    out.parent.mkdir(parents=True, exist_ok=True)
    src = out.with_suffix(".c")
    src.write_text(_GLIBC_SOURCE)
    subprocess.run([cc(), "-shared", "-fPIC", "-o", str(out), str(src), "-Wl,--enable-new-dtags",
                    "-Wl,-rpath," + ":".join(runpath)], check=True, capture_output=True)
    return out


def compile_big_so(out: Path, runpath: list[str], size: int) -> Path:
    """A real shared object carrying ``size`` bytes of data (pseudo-random, so it deflates
    only a little), to test that big members stream through verify and promote."""
    out.parent.mkdir(parents=True, exist_ok=True)
    blob = out.parent / "blob.bin"
    block = random.Random(5).randbytes(1 << 20)
    with open(blob, "wb") as fh:
        for i in range(size >> 20):
            fh.write(block[i % 251:] + block[:i % 251])
    subprocess.run(["ld", "-r", "-b", "binary", "-z", "noexecstack", "-o", "blob.o", "blob.bin"],
                   cwd=out.parent, check=True, capture_output=True)
    src = out.with_suffix(".c")
    src.write_text("int big_answer(void) { return 7; }\n")
    subprocess.run([cc(), "-shared", "-fPIC", "-o", str(out), str(src), str(out.parent / "blob.o"),
                    "-Wl,-z,noexecstack", "-Wl,--enable-new-dtags", "-Wl,-rpath," + ":".join(runpath)],
                   check=True, capture_output=True)
    for tmp in (blob, out.parent / "blob.o", src):
        tmp.unlink()
    return out


def build_pair(dest: Path, artifacts: Path, *, version: str = VERSION, overrides=None,
               revisions=None) -> dict[str, Path]:
    """The PJRT wheel and one plugin wheel, built from ``artifacts`` (name -> .so)."""
    from release.build.bazel import requires_python
    from release.build.wheel_specs import load_specs
    from release.build.wheels import build_wheel
    so_files = {name: artifacts / name for name in ALL_SOS}
    so_files.update(overrides or {})
    specs = load_specs(REPO)
    common = dict(version=version, rocm_version=rocm_version(),
                  revisions=revisions or revision_map(version), specs=specs,
                  requires_python=requires_python(REPO))
    dest.mkdir(parents=True, exist_ok=True)
    return {
        "pjrt": build_wheel("pjrt", dest, {PJRT_SO: so_files[PJRT_SO]}, **common),
        "plugin": build_wheel("plugin", dest, {n: so_files[n] for n in ALL_SOS if n != PJRT_SO},
                              python=PYTHON, **common),
    }


def _record(rows) -> bytes:
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows(rows)
    return buf.getvalue().encode()


def craft(src: Path, dest: Path, *, replace: dict | None = None, add: dict | None = None,
          drop: tuple = (), rename: dict | None = None, fix_record: bool = True,
          record_edit=None) -> Path:
    """Copy the wheel ``src`` to ``dest`` with members replaced, added, dropped or renamed.

    Text values may be a function of the old text. With ``fix_record`` RECORD is rewritten
    to match the new contents; ``record_edit(rows) -> rows`` then tampers with it on purpose.
    """
    replace, add, rename = dict(replace or {}), dict(add or {}), dict(rename or {})
    dest.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(src) as zin:
        members = []
        record_name = next(i.filename for i in zin.infolist() if i.filename.endswith(".dist-info/RECORD"))
        for info in zin.infolist():
            if info.filename in drop or info.filename == record_name:
                continue
            data = zin.read(info)
            if info.filename in replace:
                new = replace.pop(info.filename)
                data = new(data.decode()).encode() if callable(new) else (
                    new.encode() if isinstance(new, str) else new)
            members.append((rename.get(info.filename, info.filename), data,
                            (info.external_attr >> 16) or 0o644))
        for name, data in add.items():
            members.append((name, data.encode() if isinstance(data, str) else data, 0o644))
        record_name = rename.get(record_name, record_name)
        if fix_record:
            rows = [(name, "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest())
                     .rstrip(b"=").decode(), str(len(data))) for name, data, _ in members]
            rows.append((record_name, "", ""))
            if record_edit:
                rows = record_edit(rows)
            record = _record(rows)
        else:
            record = zin.read(next(i for i in zin.infolist() if i.filename.endswith("/RECORD")))
        members.append((record_name, record, 0o644))
    assert not replace, f"no such members: {sorted(replace)}"
    with zipfile.ZipFile(dest, "w", zipfile.ZIP_DEFLATED) as zout:
        for name, data, mode in members:
            info = zipfile.ZipInfo(name, (1980, 1, 1, 0, 0, 0))
            info.external_attr = (0o100000 | mode) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            zout.writestr(info, data)
    return dest


def member_text(wheel: Path, suffix: str) -> tuple[str, str]:
    """(name, text) of the first member whose name ends with ``suffix``."""
    with zipfile.ZipFile(wheel) as zf:
        name = next(n for n in zf.namelist() if n.endswith(suffix))
        return name, zf.read(name).decode()


@pytest.fixture(scope="session")
def wheel_artifacts(tmp_path_factory) -> dict[str, Path]:
    """Compiled shared objects: the good set and the bad variants, compiled once in the run
    (tests/support/shared.py; read them, never change them)."""
    return built_once(tmp_path_factory, "artifacts", _compile_artifacts)


def _compile_artifacts(base: Path) -> dict[str, Path]:
    from tests.support.elf import compile_artifacts
    good = compile_artifacts(base / "good", configured_runpath())
    runpath = configured_runpath()
    bad = base / "bad"
    return {
        "good": good,
        "leaky": compile_so(bad / "leaky" / "_linalg.so", runpath + [
            "$ORIGIN/../../_solib_x86_64/_U_A_Alocal_Uconfig_Urocm_S_Srocm_Chip_Uruntime",
            "$ORIGIN/_linalg.so.runfiles/__main__/external/rocm",
            "/root/.cache/bazel/_bazel_root/abc/execroot/__main__/bazel-out/k8-opt/bin",
            "/tmp/build-1234/lib", "/home/builder/rocm/lib"]),
        "rpath": compile_so(bad / "rpath" / "_linalg.so", runpath, new_dtags=False),
        "none": compile_so(bad / "none" / "_linalg.so", None),
        "dup": compile_so(bad / "dup" / "_linalg.so", runpath + [runpath[0]]),
        "missing": compile_so(bad / "missing" / "_linalg.so", runpath[1:]),
        "relative": compile_so(bad / "relative" / "_linalg.so", runpath + ["lib", ""]),
        "glibc": compile_glibc_so(bad / "glibc" / "_linalg.so", runpath),
    }


@pytest.fixture(scope="session")
def big_pjrt_wheel(tmp_path_factory, wheel_artifacts) -> Path:
    """A PJRT wheel whose .so is 48 MB (streamed by verify in many chunks), built once in the run."""
    def build(base: Path) -> Path:
        so = compile_big_so(base / "so" / "xla_rocm_plugin.so", configured_runpath(), 48 << 20)
        return build_pair(base / "wheels", wheel_artifacts["good"], overrides={"xla_rocm_plugin.so": so})["pjrt"]
    return built_once(tmp_path_factory, "big-pjrt", build)


@pytest.fixture(scope="session")
def good_wheels(tmp_path_factory, wheel_artifacts) -> dict[str, Path]:
    """A nightly pair built by ``release.build.wheels``, once in the run (read them, never change them)."""
    return built_once(tmp_path_factory, "good-wheels", lambda base: build_pair(base, wheel_artifacts["good"]))


@pytest.fixture(scope="session")
def bare_venv(tmp_path_factory) -> Path:
    """The python of a fresh venv without pip; install into it with ``pip --python``."""
    where = tmp_path_factory.mktemp("venv")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(where)], check=True)
    return where / "bin" / "python"


def pip_install(python: Path, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PIP_DISABLE_PIP_VERSION_CHECK="1")
    return subprocess.run([*pip_argv(python), "install",
                           "--no-index", "--no-cache-dir", *args], capture_output=True, text=True,
                          env=env)
