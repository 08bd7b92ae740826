"""Assemble the two wheels from built shared objects, with version and revision map inside.

``jax_rocm_plugin/wheels.json`` says which file goes where (``release.build.wheel_specs``);
``Requires-Python`` is the lowest Python the Bazel configs build (``release.build.bazel``,
passed in); names and tags come from ``release.core.naming``; bytes go through
``release.core.wheelfile`` (streaming, reproducible). Each wheel gets ``version.py`` with ``_release_version`` and
``_git_hash`` written (so ``__version__`` is the built version at run time) and
``commit_info.py`` from the ``RevisionMap``.

    build_wheel("pjrt", dest_dir, {"xla_rocm_plugin.so": path}, version=..., rocm_version=...,
                revisions=RevisionMap, requires_python=">=3.11", specs=None, epoch=None,
                on_bytes=None) -> Path of the wheel
    build_wheel("plugin", dest_dir, {"_linalg.so": path, ...}, python="3.12", ...) -> Path
    artifact_files(artifacts_dir, spec, python) -> {file name: path}   # the --artifacts layout
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Callable

from release import __version__ as TOOL_VERSION
from release.build import sbom
from release.build.wheel_specs import PYTHON_FILE_LIMIT, WheelSpec, load_specs
from release.core import naming, regular
from release.core.errors import UserError
from release.core.revisions import RevisionMap, github_base
from release.core.versions import base_of
from release.core.wheelfile import WheelWriter


def artifact_files(artifacts: Path, spec: WheelSpec, python: str) -> dict[str, Path]:
    """The shared objects of one wheel in an ``--artifacts`` directory.

    Layout: ``DIR/xla_rocm_plugin.so`` and the kernel .so files directly in ``DIR``, or,
    since the kernels are built per Python, ``DIR/3.12/_linalg.so`` etc. (preferred when
    that directory exists).
    """
    artifacts = Path(artifacts)
    search = [artifacts / python, artifacts] if spec.per_python else [artifacts]
    found = {}
    for name in spec.so_files:
        for directory in search:
            if (directory / name).is_symlink():
                raise UserError(f"--artifacts {artifacts}: {directory / name} is a symbolic link; "
                                "a wheel takes regular files only (copy the file in)")
            if (directory / name).is_file():
                found[name] = directory / name
                break
        else:
            looked = " and ".join(f"{d}/" for d in search)
            raise UserError(f"--artifacts {artifacts}: no {name} for the {spec.kind} wheel "
                            f"(Python {python}); looked in {looked}")
    return found


# ---------------------------------------------------------------------------- contents


def render_version_py(template: str, version: str, git_hash: str | None) -> str:
    """jax's version.py contract: ``_version``, ``_release_version``, ``_git_hash`` rewritten."""
    values = {"_version": base_of(version), "_release_version": version, "_git_hash": git_hash}
    for name, value in values.items():
        found = list(re.finditer(rf"^{name}(: [^=]+)? = .*$", template, re.M))
        if len(found) != 1:
            raise ValueError(f"version.py template has not exactly one '{name} = ...' line")
        start, end = found[0].span()
        template = f"{template[:start]}{name} = {value!r}{template[end:]}"
    return template


def _fill(text: str, **values: object) -> str:
    for key, value in values.items():
        text = text.replace("{" + key + "}", str(value))
    return text


def metadata(dist: str, version: str, summary: str, requires: list[str], extras: dict,
             home: str | None, requires_python: str) -> str:
    lines = [
        "Metadata-Version: 2.1",
        f"Name: {dist}",
        f"Version: {version}",
        f"Summary: {summary}",
        "License: Apache-2.0",
        f"Requires-Python: {requires_python}",
        "Classifier: Programming Language :: Python :: 3",
        "Classifier: Operating System :: POSIX :: Linux",
    ]
    if home:
        lines.append(f"Project-URL: Source, {home}")
    lines += [f"Requires-Dist: {r}" for r in requires]
    for extra, reqs in extras.items():
        lines.append(f"Provides-Extra: {extra}")
        lines += [f'Requires-Dist: {r}; extra == "{extra}"' for r in reqs]
    return "\n".join(lines) + "\n"


def wheel_file(tag: str) -> str:
    return ("Wheel-Version: 1.0\n"
            f"Generator: jax-rocm-release {TOOL_VERSION}\n"
            "Root-Is-Purelib: false\n"
            f"Tag: {tag}\n")


def entry_points_txt(groups: dict[str, dict[str, str]]) -> str:
    out = []
    for group, entries in groups.items():
        out.append(f"[{group}]")
        out += [f"{name} = {target}" for name, target in entries.items()]
        out.append("")
    return "\n".join(out)


# ---------------------------------------------------------------------------- assembly


def build_wheel(kind: str, dest_dir: Path, so_files: dict[str, Path], *, version: str,
                rocm_version: str, revisions: RevisionMap, requires_python: str,
                python: str | None = None, specs: dict[str, WheelSpec] | None = None,
                epoch: int | None = None, on_bytes: Callable[[int], None] | None = None,
                digests: dict[str, str] | None = None, root: Path | None = None) -> Path:
    """Write one wheel into ``dest_dir``; returns its path. Members in a fixed order.

    ``requires_python`` is the ``Requires-Python`` of the metadata (``bazel.requires_python``);
    ``specs`` default to the shipped ``wheels.json``; the SBOM's ROCm libraries are by the soname
    lists of the line at ``root`` (its own ``rocm_runtime.json`` where it has one), as in a
    jax-tree line (``release.build.jax_tree_wheels``).
    ``digests``, when given, gets ``{wheel file name: sha256 hex}`` of the written wheel.
    """
    spec = (specs or load_specs())[kind]
    major = int(rocm_version.split(".")[0])
    if kind == "pjrt":
        dist, package, wheel_python = naming.pjrt_dist(major), naming.pjrt_package(major), None
    else:
        if python is None:
            raise ValueError("the plugin wheel needs a Python version")
        dist, package, wheel_python = naming.plugin_dist(major), naming.plugin_package(major), python
    missing = set(spec.so_files) - set(so_files)
    if missing:
        raise UserError(f"{kind} wheel: no {', '.join(sorted(missing))} to package")
    fill = dict(N=major, version=version, rocm_version=rocm_version)
    git_hash = revisions.commits.get("plugin")
    files = {f"{package}/{name}": so_files[name] for name in spec.so_files}
    texts: dict[str, str] = {}
    for src, name in spec.python_files:
        try:  # load_specs checked the tree; the file is opened again without following a link
            text = regular.read_text(src, PYTHON_FILE_LIMIT, follow_symlinks=False)
        except (OSError, UnicodeDecodeError) as exc:
            raise UserError(f"{src}: cannot be packed into the {kind} wheel ({exc})") from None
        if name == "version.py":
            text = render_version_py(text, version, git_hash)
        texts[f"{package}/{name}"] = text
    texts[f"{package}/commit_info.py"] = revisions.commit_info_py()

    filename = naming.wheel_filename(dist, version, wheel_python)
    dist_info = f"{filename.split('-')[0]}-{version}.dist-info"
    plugin_rev = dict(revisions.revisions).get("plugin")
    home = (github_base(plugin_rev.url) or plugin_rev.url) if plugin_rev else None
    requires = [_fill(r, **fill) for r in spec.requires]
    extras = {e: [_fill(r, **fill) for r in reqs] for e, reqs in spec.extras.items()}
    entry_points = {_fill(g, **fill): {_fill(n, **fill): _fill(t, **fill) for n, t in e.items()}
                    for g, e in spec.entry_points.items()}
    path = Path(dest_dir) / filename
    with WheelWriter(path, dist_info, epoch=epoch, on_bytes=on_bytes) as writer:
        for arcname in sorted([*files, *texts]):
            if arcname in files:
                try:
                    writer.add_file(arcname, files[arcname], mode=0o755)
                except ValueError as exc:
                    raise UserError(f"{kind} wheel: {exc}") from None
            else:
                writer.add_bytes(arcname, texts[arcname])
        writer.add_bytes(f"{dist_info}/METADATA",
                         metadata(dist, version, _fill(spec.summary, **fill), requires, extras, home,
                                  requires_python))
        writer.add_bytes(f"{dist_info}/WHEEL", wheel_file(naming.wheel_tag(wheel_python)))
        if entry_points:
            writer.add_bytes(f"{dist_info}/entry_points.txt", entry_points_txt(entry_points))
        libraries = sbom.rocm_libraries(files.values(), rocm_version, root)  # the PEP 770 SBOM, hashed with the rest
        writer.add_bytes(sbom.member(dist_info, dist),
                         sbom.dumps(sbom.document(dist, version, revisions, rocm_version, libraries)))
    if digests is not None and writer.sha256 is not None:   # set when the writer closed
        digests[path.name] = writer.sha256
    return path
