"""Names the wheels and releases carry, derived from the ROCm major and the version.

One place for every name so the build, the verifier, the stores and the index
agree: distributions ``jax-rocmN-pjrt`` / ``jax-rocmN-plugin``, their import
packages, wheel file names and tags, and the release tag.
"""

from __future__ import annotations

import re

from packaging.utils import canonicalize_name

PLATFORM = "manylinux_2_28_x86_64"
TAG_PREFIX = "rocm-jax-v"


def pjrt_dist(rocm_major: int) -> str:
    return f"jax-rocm{rocm_major}-pjrt"


def plugin_dist(rocm_major: int) -> str:
    return f"jax-rocm{rocm_major}-plugin"


def pjrt_package(rocm_major: int) -> str:
    """Import path of the PJRT plugin (found by jax through the ``jax_plugins`` entry point)."""
    return f"jax_plugins/xla_rocm{rocm_major}"


def plugin_package(rocm_major: int) -> str:
    return f"jax_rocm{rocm_major}_plugin"


def python_tag(python: str) -> str:
    """``3.12`` -> ``cp312``."""
    if not re.fullmatch(r"3\.\d{1,2}", python):
        raise ValueError(f"python version {python!r} is not 3.X")
    return "cp3" + python.split(".")[1]


def wheel_tag(python: str | None) -> str:
    """``py3-none-<platform>`` for the pjrt wheel, ``cp3X-cp3X-<platform>`` per Python otherwise."""
    if python is None:
        return f"py3-none-{PLATFORM}"
    tag = python_tag(python)
    return f"{tag}-{tag}-{PLATFORM}"


def wheel_filename(dist: str, version: str, python: str | None) -> str:
    escaped = canonicalize_name(dist).replace("-", "_")
    return f"{escaped}-{version}-{wheel_tag(python)}.whl"


def pjrt_wheel(rocm_major: int, version: str) -> str:
    return wheel_filename(pjrt_dist(rocm_major), version, None)


def plugin_wheel(rocm_major: int, version: str, python: str) -> str:
    return wheel_filename(plugin_dist(rocm_major), version, python)


def release_tag(version: str) -> str:
    """The git tag (and GitHub release tag) of a version: ``rocm-jax-v0.9.1``."""
    return TAG_PREFIX + version


def version_from_tag(tag: str) -> str | None:
    return tag[len(TAG_PREFIX):] if tag.startswith(TAG_PREFIX) else None


REVISIONS_ASSET = "revisions.json"
CHECKSUMS_ASSET = "SHA256SUMS"
PROVENANCE_ASSET = "provenance.intoto.json"
