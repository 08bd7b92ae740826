"""Tiny stand-ins of TheRock's ROCm runtime wheels, laid out as TheRock's are: ``rocm`` (the meta
package: requires ``rocm-sdk-core``, its ``libraries`` extra ``rocm-sdk-libraries``),
``rocm-sdk-core`` installing ``_rocm_sdk_core/lib`` and ``rocm-sdk-libraries`` installing
``_rocm_sdk_libraries/lib`` (TheRock's multi-arch index; a per-family index names it
``rocm-sdk-libraries-<family>`` and its directory ``_rocm_sdk_libraries_<family>``). Each library
is a real ELF shared object compiled here with its soname.

    runtime_wheels(dest, "7.2.0", core=("libamdhip64.so.7",), libraries=("libhipblas.so.3",)) -> [Path]
    with_extra(plugin_wheel, dest, ["rocm[libraries]==7.2.0"]) -> Path   # its with-rocm extra replaced
"""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

from tests.support.crafted import craft, member_text
from tests.support.elf import compile_so
from tests.support.publish_dist import write_wheel


def runtime_wheels(dest: Path, version: str, *, core: Sequence[str] = (), libraries: Sequence[str] = (),
                   family: str | None = None) -> list[Path]:
    """The three wheels of ROCm ``version``; ``family``: the per-family libraries package instead."""
    dest.mkdir(parents=True, exist_ok=True)
    so_dir = dest / f"so-{version}"
    suffix = f"-{family}" if family else ""
    libs_dist = f"rocm-sdk-libraries{suffix}"
    libs_pkg = "_" + libs_dist.replace("-", "_")

    def objects(package: str, sonames: Sequence[str]) -> dict[str, str | bytes]:
        return {f"{package}/__init__.py": "",
                **{f"{package}/lib/{n}": compile_so(so_dir / package / n, soname=n).read_bytes() for n in sonames}}

    def wheel(dist: str, files: dict, **kwargs) -> Path:
        return write_wheel(dest / f"{dist.replace('-', '_')}-{version}-py3-none-any.whl", dist, version,
                           "py3-none-any", files, requires_python=">=3.9", **kwargs)

    return [wheel("rocm", {"rocm_sdk/__init__.py": f"__version__ = {version!r}\n"},
                  requires=[f"rocm-sdk-core=={version}", f'{libs_dist}=={version}; extra == "libraries"'],
                  provides_extra=("libraries",)),
            wheel("rocm-sdk-core", objects("_rocm_sdk_core", core)),
            wheel(libs_dist, objects(libs_pkg, libraries))]


def with_extra(plugin: Path, dest: Path, requirements: Sequence[str] | None, spelled: str = "with-rocm") -> Path:
    """The plugin wheel with its with-rocm extra replaced by ``requirements`` (None: no extra)."""
    name, _ = member_text(plugin, ".dist-info/METADATA")

    def edit(text: str) -> str:
        kept = [line for line in text.splitlines()
                if not line.startswith("Provides-Extra:") and "extra ==" not in line]
        if requirements is not None:
            kept += [f"Provides-Extra: {spelled}"] + [f'Requires-Dist: {r}; extra == "{spelled}"'
                                                     for r in requirements]
        return "\n".join(kept) + "\n"
    dest.mkdir(parents=True, exist_ok=True)
    return craft(plugin, dest / plugin.name, replace={name: edit})
