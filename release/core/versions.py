"""PEP 440 version strings for every kind of build, as pure functions.

The order pip sees is the contract: nightly < rc < release < post, and every
nightly of the next version sorts above the last release. Nothing here reads a
clock or the environment: callers pass the UTC date in.
"""

from __future__ import annotations

import datetime as _dt
import re
from typing import Iterable

from packaging.version import InvalidVersion, Version

from release.core.errors import UserError

KINDS = ("nightly", "rc", "release", "post")
NIGHTLY_SCHEMES = ("date", "date-build")
_SEMVER = re.compile(r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)$")
_LOCAL = re.compile(r"^rocm\d+(\.\d+){0,2}$")


class VersionError(UserError):
    """A version, number or date a user gave cannot make a valid version."""


def parse_base(text: str) -> Version:
    """Parse an ``X.Y.Z`` release version; anything else is refused."""
    if not isinstance(text, str) or not _SEMVER.match(text):
        raise VersionError(f"version {text!r} is not X.Y.Z (three numbers, no leading zeros)")
    return Version(text)


def release(base: str) -> str:
    """The final release: ``X.Y.Z``."""
    return str(parse_base(base))


def rc(base: str, number: int) -> str:
    """Release candidate ``X.Y.ZrcN`` (N >= 1)."""
    _positive("rc number", number, minimum=1)
    return f"{parse_base(base)}rc{number}"


def post(base: str, number: int) -> str:
    """Post release ``X.Y.Z.postN`` (N >= 1): a re-spin of a published release."""
    _positive("post number", number, minimum=1)
    return f"{parse_base(base)}.post{number}"


def nightly(base: str, date: _dt.date, build_number: int | None = None) -> str:
    """Nightly ``X.Y.Z.devYYYYMMDD``, or ``X.Y.Z.devYYYYMMDDBBB`` with a build number.

    ``date`` is the UTC date of the build; ``build_number`` is 0..999, written as
    three digits so that every build of one day sorts in order.
    """
    if not isinstance(date, _dt.date) or isinstance(date, _dt.datetime):
        raise VersionError(f"nightly date {date!r} is not a calendar date (YYYY-MM-DD)")
    stamp = date.strftime("%Y%m%d")
    if build_number is not None:
        _positive("build number", build_number, minimum=0, maximum=999)
        stamp += f"{build_number:03d}"
    return f"{parse_base(base)}.dev{stamp}"


def for_kind(kind: str, base: str, *, date: _dt.date | None = None, number: int | None = None,
             build_number: int | None = None) -> str:
    """One entry point for the CLI: the version of a build of ``kind``."""
    if kind == "release":
        return release(base)
    if kind == "rc":
        return rc(base, 1 if number is None else number)
    if kind == "post":
        return post(base, 1 if number is None else number)
    if kind == "nightly":
        if date is None:
            raise VersionError("a nightly version needs a date")
        return nightly(base, date, build_number)
    raise VersionError(f"kind {kind!r} is not one of {', '.join(KINDS)}")


def build_request(kind: str, scheme: str, *, number: int | None = None,
                  build_number: int | None = None) -> int | None:
    """The one check of what a build of ``kind`` was asked for, and the build number it gets.

    ``number`` (the N of rcN/postN) belongs to rc and post; ``build_number`` to nightlies
    only. Under the line's nightly ``scheme`` ``date-build`` a nightly's build number
    defaults to 0; under ``date`` it must be absent (two shapes of nightly on one line
    would not sort by day). Every command and job that makes a version goes through here.
    """
    if kind not in KINDS:
        raise VersionError(f"kind {kind!r} is not one of {', '.join(KINDS)}")
    if scheme not in NIGHTLY_SCHEMES:
        raise VersionError(f"nightly_scheme {scheme!r} is not one of {', '.join(NIGHTLY_SCHEMES)}")
    if kind != "nightly" and build_number is not None:
        raise VersionError("--build-number applies to --kind nightly only")
    if kind in ("nightly", "release") and number is not None:
        raise VersionError("--number applies to --kind rc and post only")
    if kind != "nightly":
        return None
    if scheme == "date-build":
        return 0 if build_number is None else build_number
    if build_number is not None:
        raise VersionError("version_info.json sets nightly_scheme 'date'; a build number "
                           "would mix .devYYYYMMDD and .devYYYYMMDDBBB on one line")
    return None


def is_prerelease(kind: str) -> bool:
    """Nightlies and rcs are prereleases (pip needs ``--pre``; GitHub marks them so)."""
    return kind in ("nightly", "rc")


def is_latest(kind: str) -> bool:
    """Releases and post releases become the store's latest release."""
    return kind in ("release", "post")


def kind_of(version: str) -> str:
    """Classify a version string we made: nightly, rc, release or post."""
    v = Version(version)
    if v.is_devrelease:
        return "nightly"
    if v.pre is not None:
        return "rc"
    if v.is_postrelease:
        return "post"
    return "release"


def base_of(version: str) -> str:
    """``X.Y.Z`` of any version we made (drops rc, dev, post and local parts)."""
    return Version(version).base_version


def with_local(version: str, rocm_version: str) -> str:
    """Add a ``+rocmA.B.C`` local label, for assets that never go to a public index."""
    label = f"rocm{rocm_version}"
    if not _LOCAL.match(label):
        raise VersionError(f"ROCm version {rocm_version!r} is not A.B.C")
    v = Version(version)
    if v.local is not None:
        raise VersionError(f"version {version} already has a local label")
    return f"{v}+{label}"


def require_public(version: str, target: str) -> str:
    """Refuse a local label where ``target`` (a public index) rejects it."""
    if Version(version).local is not None:
        raise VersionError(f"version {version} has a local label, which {target} refuses; "
                           "drop the '+...' part")
    return version


def next_version(released: str, part: str = "minor") -> str:
    """The next official version after ``released`` (IREE-style: bump the minor).

    Every nightly of the returned version sorts above ``released`` and its post
    releases, which is what keeps nightlies newest for pip after a release.
    """
    v = Version(released)
    major, minor, micro = (v.release + (0, 0))[:3]
    if part == "major":
        return f"{major + 1}.0.0"
    if part == "minor":
        return f"{major}.{minor + 1}.0"
    if part == "patch":
        return f"{major}.{minor}.{micro + 1}"
    raise VersionError(f"version part {part!r} is not one of major, minor, patch")


def nightly_scheme_of(version: str) -> str | None:
    """``date`` for ``.devYYYYMMDD``, ``date-build`` for ``.devYYYYMMDDBBB``, None otherwise."""
    v = Version(version)
    if v.dev is None:
        return None
    digits = len(str(v.dev))
    if digits == 8:
        return "date"
    if digits == 11:
        return "date-build"
    return None


def check_scheme(existing: list[str], new: str) -> None:
    """Refuse to mix nightly schemes on one version line.

    ``devN`` compares as an integer, so ``.dev20250910001`` sorts above
    ``.dev20250911``: once a version line has nightlies of one scheme, every
    later nightly of that line must use the same scheme.
    """
    scheme = nightly_scheme_of(new)
    if scheme is None:
        return
    base = base_of(new)
    for old in existing:
        try:
            other = nightly_scheme_of(old)
            same_line = base_of(old) == base
        except InvalidVersion:
            continue
        if same_line and other is not None and other != scheme:
            raise VersionError(f"nightly {new} uses the '{scheme}' scheme but {old} on the same "
                               f"version line uses '{other}'; devN compares as an integer, so "
                               "the two cannot be mixed")


def parse_date(text: str) -> _dt.date:
    """Parse ``YYYY-MM-DD`` from a flag."""
    try:
        return _dt.date.fromisoformat(text)
    except (TypeError, ValueError):
        raise VersionError(f"date {text!r} is not YYYY-MM-DD") from None


def _positive(what: str, value: object, minimum: int, maximum: int | None = None) -> None:
    if not isinstance(value, int) or isinstance(value, bool) or value < minimum or (
            maximum is not None and value > maximum):
        bound = f"{minimum}..{maximum}" if maximum is not None else f">= {minimum}"
        raise VersionError(f"{what} {value!r} is not a whole number {bound}")


_IN_NAME = re.compile(r"(\d+(?:\.\d+)*)(.*)$")


def branch_order(name: str) -> tuple:
    """Sort key for release-branch names by the version in them, numerically
    (``rocm-jaxlib-v0.10.0`` after ``v0.9.1``); for one version the plain branch after its
    variants (``-draft``, ``-alpha``), and names holding no version before all others."""
    m = _IN_NAME.search(name)
    if not m:
        return (0, (), 0, name)
    return (1, tuple(int(x) for x in m.group(1).split(".")), 0 if m.group(2) else 1, name)


# What a new version of each kind must sort above, among the published versions of its own
# X.Y.Z line. Nightlies keep going under a published rc (the line moves on after the final
# release), but never under a published release or post release; an rc must sort above every
# published rc, release and post; a post above every published post.
MUST_SORT_ABOVE = {"nightly": ("release", "post"), "rc": ("rc", "release", "post"),
                   "release": ("release", "post"), "post": ("post",)}


def blocking_version(new: str, published: Iterable[str]) -> str | None:
    """The newest published version of ``new``'s line that ``new`` would not sort above
    (``MUST_SORT_ABOVE``), or None when ``new`` may be published.

    ``0.9.1rc2`` after ``0.9.1`` (or ``0.9.1rc3``) is blocked: pip would never choose it.
    A published version equal to ``new`` is returned too (its tag is taken); whether that
    is a harmless re-run is for the caller to decide from the sources.
    """
    mine, kind, line = Version(new), kind_of(new), base_of(new)
    worst: Version | None = None
    for text in published:
        try:
            other = Version(text)
        except InvalidVersion:
            continue
        if other.base_version != line:
            continue
        if other == mine or (kind_of(str(other)) in MUST_SORT_ABOVE[kind] and other > mine):
            worst = other if worst is None or other > worst else worst
    return str(worst) if worst is not None else None
