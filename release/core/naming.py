"""Names the wheels and releases carry, derived from the ROCm major and the version.

One place for every name so the build, the verifier, the stores and the index
agree: distributions ``jax-rocmN-pjrt`` / ``jax-rocmN-plugin``, their import
packages, wheel file names and tags, and the release tag.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from pathlib import Path

from packaging.version import InvalidVersion, Version

from release.core import versions
from release.core.filled import filled

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


def wheel_tag(python: str | None, platform: str = PLATFORM) -> str:
    """``py3-none-<platform>`` for the pjrt wheel, ``cp3X-cp3X-<platform>`` per Python otherwise."""
    if python is None:
        return f"py3-none-{platform}"
    tag = python_tag(python)
    return f"{tag}-{tag}-{platform}"


_SEPARATORS = re.compile(r"[-_.]+")


def normalized_name(dist: str) -> str:
    """A project name as PEP 503 normalizes it (runs of ``-``, ``_``, ``.`` become one ``-``,
    lower case): packaging's ``canonicalize_name``, without loading packaging.utils, which loads
    packaging.tags (platform, logging, sysconfig) on every command that names a wheel."""
    return _SEPARATORS.sub("-", dist).lower()


def wheel_filename(dist: str, version: str, python: str | None, platform: str = PLATFORM) -> str:
    escaped = normalized_name(dist).replace("-", "_")
    return f"{escaped}-{version}-{wheel_tag(python, platform)}.whl"


def pjrt_wheel(rocm_major: int, version: str, platform: str = PLATFORM) -> str:
    return wheel_filename(pjrt_dist(rocm_major), version, None, platform)


def plugin_wheel(rocm_major: int, version: str, python: str, platform: str = PLATFORM) -> str:
    return wheel_filename(plugin_dist(rocm_major), version, python, platform)


def release_tag(version: str) -> str:
    """The git tag (and GitHub release tag) of a version: ``rocm-jax-v0.9.1``."""
    return TAG_PREFIX + version


def version_from_tag(tag: str) -> str | None:
    return tag[len(TAG_PREFIX):] if tag.startswith(TAG_PREFIX) else None


def tag_of(text: str, *, what: str = "TAG") -> str:
    """The release tag a person means by ``text``: a tag (rocm-jax-v0.9.1), a version (0.9.1),
    or a version written as git tags often are (v0.9.1), in the version's normal form; anything
    else is one line naming what was expected."""
    given = text.strip()
    version = version_from_tag(given)
    version = given if version is None else version
    try:
        normal = str(Version(version))   # also takes a leading v, once
        kind = versions.kind_of(normal)
    except (InvalidVersion, versions.VersionError):
        normal, kind = "", None
    if kind is None or normal.startswith("v"):
        shapes = ", ".join(TAG_SHAPES.values())
        raise versions.VersionError(f"{what} {given}: expected a release tag {TAG_PREFIX}<version> or "
                                    f"a version ({shapes})")
    return release_tag(normal)


TAG_SHAPES = {"nightly": "X.Y.Z.devYYYYMMDD", "rc": "X.Y.ZrcN", "release": "X.Y.Z", "post": "X.Y.Z.postN"}


def version_of_tag(tag: str, kinds: tuple[str, ...] = versions.KINDS, *, flag: str = "--tag") -> str:
    """The one parser of release tags a user passes: the version ``tag`` names, which must be
    of one of ``kinds``; anything else is one line naming the tags expected."""
    version = version_from_tag(tag)
    try:
        kind = versions.kind_of(version) if version else None
    except InvalidVersion:
        kind = None
    if version is None or kind not in kinds:
        shapes = " or ".join(TAG_PREFIX + TAG_SHAPES[k] for k in kinds)
        raise versions.VersionError(f"{flag} {tag}: expected a release tag {shapes}")
    return version


REVISIONS_ASSET = "revisions.json"
CHECKSUMS_ASSET = "SHA256SUMS"
PROVENANCE_ASSET = "provenance.intoto.json"


_DIST = re.compile(r"^jax[-_.]rocm(\d+)[-_.](pjrt|plugin)\Z", re.ASCII)
_CPYTHON = re.compile(r"^cp3(\d+)-")


@dataclasses.dataclass(frozen=True)
class Identity:
    """The one reader of wheel file names: name, version and tags, with the jax-rocm kind and
    ROCm major if it is one of ours (verify, validate, promote and the index agree)."""

    dist: str | None
    version: str | None
    tags: frozenset[str]
    rocm_major: int | None
    kind: str | None  # "pjrt" | "plugin" | None (some other wheel)
    name_error: str | None

    @classmethod
    def of(cls, path: Path | str) -> "Identity":
        # a bare file name as it is (the index reads thousands): no Path made to take its name
        return _identity(path if isinstance(path, str) and "/" not in path and path != "." else Path(path).name)

    @property
    def pythons(self) -> tuple[str, ...]:
        """``3.X`` of every ``cp3X`` tag, in order (none for a ``py3-none`` wheel)."""
        found = {int(m.group(1)) for m in map(_CPYTHON.match, self.tags) if m}
        return tuple(f"3.{minor}" for minor in sorted(found))


@functools.lru_cache(maxsize=1 << 16)
def _identity(name: str) -> Identity:
    """``Identity.of`` a bare file name, parsed once a process (an Identity is immutable: the
    index asks for each wheel's from its listing and its matrix, thousands of times)."""
    parts = _plain_parts(name)
    if parts is not None:
        shape = _SHAPES.get((parts[0], parts[2])) or _simple_shape(parts[0], parts[2])
        version = _VERSIONS.get(parts[1])
        if shape is not None and version is None:
            try:  # the version alone, as packaging's wheel-name parser reads it
                version = _VERSIONS[parts[1]] = str(versions.parse(parts[1]))
            except InvalidVersion:
                pass  # packaging says why, in its own words
        if shape is not None and version is not None:
            return _made(shape[0], version, shape[1], shape[2], shape[3])
    return _parsed(name, parts)


_FIELDS = ("dist", "version", "tags", "rocm_major", "kind", "name_error")


def _made(dist: str, version: str, tags: frozenset[str], rocm_major: int | None, kind: str | None) -> Identity:
    """``Identity(dist, version, tags, rocm_major, kind, None)`` made without the frozen
    ``__init__``'s call per field: the index makes one for each of a season's thousands of names."""
    return filled(Identity, zip(_FIELDS, (dist, version, tags, rocm_major, kind, None)))


# A wheel file name without a build tag is its name, version and tags (``_plain_parts``), and
# packaging reads each part on its own: a name is valid and means the same whatever version it
# carries, and a version whatever name. The answers of the parts of names parsed whole are
# kept, so a season of thousands of wheels (a few names and tags, a version a release) is
# mostly answered from them; packaging still reads every name whose parts it has not read.
_SHAPES: dict[tuple[str, str], tuple[str, frozenset[str], int | None, str | None]] = {}
_VERSIONS: dict[str, str] = {}


# Names and tags of a shape every packaging this project takes (23.2 on) reads alike and never
# refuses: ASCII letters and digits, one ``.`` or ``_`` between them in the name; lower-case tags
# whose interpreters are identifiers. Such a name is read here, without packaging.utils (which
# loads packaging.tags and with it logging, platform and subprocess: a tenth of ``release
# index``'s imports); any other goes to packaging.
_SIMPLE_NAME = re.compile(r"[A-Za-z0-9]+(?:[._][A-Za-z0-9]+)*", re.ASCII)
_SIMPLE_TAGS = re.compile(r"([a-z_][a-z0-9_]*(?:\.[a-z_][a-z0-9_]*)*)-([a-z0-9_]+(?:\.[a-z0-9_]+)*)"
                          r"-([a-z0-9_]+(?:\.[a-z0-9_]+)*)", re.ASCII)


def _simple_shape(dist: str, tags: str) -> tuple[str, frozenset[str], int | None, str | None] | None:
    """The (name, tags, ROCm major, kind) packaging reads in a name and tags of the simple shape
    (``_SIMPLE_NAME``, ``_SIMPLE_TAGS``), kept like a shape packaging read; None for any other."""
    found = _SIMPLE_TAGS.fullmatch(tags)
    if found is None or _SIMPLE_NAME.fullmatch(dist) is None:
        return None
    interpreters, abis, platforms = (part.split(".") for part in found.groups())
    name = normalized_name(dist)
    m = _DIST.match(name)
    shape = _SHAPES[(dist, tags)] = (
        name, frozenset(f"{i}-{a}-{p}" for i in interpreters for a in abis for p in platforms),
        int(m.group(1)) if m else None, m.group(2) if m else None)
    return shape


def _plain_parts(name: str) -> tuple[str, str, str] | None:
    """(name, version, tags) of ``<name>-<version>-<py>-<abi>-<platform>.whl``, split as
    packaging splits it; None for any other shape (a build tag, no ``.whl``)."""
    if not name.endswith(".whl") or name.count("-") != 4:
        return None
    dist, version, tags = name[:-4].split("-", 2)
    return dist, version, tags


def _parsed(name: str, parts: tuple[str, str, str] | None) -> Identity:
    """packaging's reading of ``name``; the answers of its parts kept when it is a plain one."""
    from packaging.utils import InvalidWheelFilename, parse_wheel_filename
    try:
        dist, version, _build, tags = parse_wheel_filename(name)
    except (InvalidWheelFilename, InvalidVersion) as exc:
        return Identity(None, None, frozenset(), None, None, str(exc))
    m = _DIST.match(str(dist))
    shape = (str(dist), frozenset(str(t) for t in tags), int(m.group(1)) if m else None, m.group(2) if m else None)
    if parts is not None:
        _SHAPES[(parts[0], parts[2])] = shape
        _VERSIONS[parts[1]] = str(version)
    return Identity(shape[0], str(version), shape[1], shape[2], shape[3], None)
