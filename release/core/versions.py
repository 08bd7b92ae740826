"""PEP 440 version strings for every kind of build, as pure functions.

The order pip sees is the contract: nightly < rc < release < post, and every nightly of
a line sorts above what that line has published. A line ``X.Y.Z`` is jax's (``_version``
in ``jax/version.py`` at the jax pin); the *next official version* (version_info.json) is
``X.Y.Z`` until the line is released, then ``X.Y.Z.postN``, the next post release of the
line, so a maintenance line's nightlies ``X.Y.Z.postN.devYYYYMMDD`` sort above its
``X.Y.Z.post(N-1)``. Nothing here reads a clock or the environment: callers pass the UTC
date in.
"""

from __future__ import annotations

import datetime as _dt
import functools
import re
from typing import TYPE_CHECKING, Iterable

from release.core.errors import UserError

if TYPE_CHECKING:
    from packaging.version import Version

# packaging's Version (its tokenizer and regexes, about a tenth of a bump's start before its first
# git process) is imported by the functions that parse one: a project's load checks
# version_info.json's ``X.Y.Z[.postN]`` with ``_NEXT`` alone (issue 36 item 4).

KINDS = ("nightly", "rc", "release", "post")
NIGHTLY_SCHEMES = ("date", "date-build")
# at most 9 digits a part: a longer one is a typo, and past 4,300 digits Python cannot int() it
_NEXT = re.compile(r"^((?:0|[1-9][0-9]{0,8})\.(?:0|[1-9][0-9]{0,8})\.(?:0|[1-9][0-9]{0,8}))"
                   r"(?:\.post([1-9][0-9]{0,8}))?\Z", re.ASCII)
_LOCAL = re.compile(r"^rocm\d+(\.\d+){0,2}\Z", re.ASCII)


class VersionError(UserError):
    """A version, number or date a user gave cannot make a valid version."""


def parse_next(text: str) -> tuple[str, int]:
    """Split a next official version (version_info.json's ``version``) into its line and
    post number: ``X.Y.Z`` -> (``X.Y.Z``, 0), ``X.Y.Z.postN`` -> (``X.Y.Z``, N)."""
    m = _NEXT.match(text) if isinstance(text, str) else None
    if m is None:
        raise VersionError(f"version {text!r} is not X.Y.Z or X.Y.Z.postN (numbers without "
                           "leading zeros, N >= 1)")
    return m.group(1), int(m.group(2) or 0)


def line_of(next_version: str) -> str:
    """The ``X.Y.Z`` line of a next official version."""
    return parse_next(next_version)[0]


def release(base: str) -> str:
    """The next official release: ``X.Y.Z``, or ``X.Y.Z.postN`` on a released line."""
    line, number = parse_next(base)
    return f"{line}.post{number}" if number else line


def rc(base: str, number: int) -> str:
    """Release candidate ``X.Y.ZrcN`` (N >= 1), only of a line not yet released: PEP 440
    puts ``rcN`` before ``.postN``, so a post release has no candidates."""
    _positive("rc number", number, minimum=1)
    line, post_number = parse_next(base)
    if post_number:
        raise VersionError(f"{base} is the next post release of the released line {line}; "
                           "release candidates exist only before a line's first release")
    return f"{line}rc{number}"


def post(base: str, number: int | None = None) -> str:
    """Post release ``X.Y.Z.postN`` (N >= 1) of the line of ``base``; without ``number``,
    the next post release ``base`` names (``.post1`` when it names none)."""
    line, next_number = parse_next(base)
    if number is None:
        number = next_number or 1
    _positive("post number", number, minimum=1)
    return f"{line}.post{number}"


def next_after(released: str) -> str:
    """The next official version after publishing ``released`` (a release or post release):
    the next post release of its line, so the line's nightlies sort above what it published.
    A new line comes only from jax (``release bump`` moves it)."""
    from packaging.version import Version
    v = Version(released)
    if v.pre is not None or v.dev is not None or v.local is not None or len(v.release) != 3:
        raise VersionError(f"{released} is not a release or post release X.Y.Z[.postN]")
    return f"{v.base_version}.post{(v.post or 0) + 1}"


def next_official(next_version: str, published: Iterable[str]) -> str:
    """version_info.json's next version moved past what its line has published (the public
    index's versions and the store's together): once the line's release or a post release is
    out, the highest published ``.postN`` plus one (``.post1`` after the release alone), or the
    file's own post number when that is higher. A line released by hand moves on so, and its
    nightlies sort above what it published, without an edit of the file. Pre-releases, nightlies
    and other lines do not count (a local label does: ``blocking_version`` reads it as its public
    part); a line with nothing final published is unchanged."""
    from packaging.version import InvalidVersion, Version
    line, number = parse_next(next_version)
    top = -1
    for text in published:
        try:
            v = Version(text)
        except InvalidVersion:
            continue
        if Version(v.base_version) == Version(line) and v.pre is None and v.dev is None:
            top = max(top, v.post or 0)
    return f"{line}.post{max(number, top + 1)}" if top >= 0 else next_version


def line_problem(next_version: str, jax_line: str | None, jax_commit: str = "") -> str | None:
    """Why the next version is not on jax's line, or None when it is (or no line is known).

    A plugin ``X.Y.Z`` installs only beside jax ``X.Y.Z`` (jax's ``rocm`` extra pins the
    plugin to its own version), so the line must be the ``_version`` of the pinned jax.
    """
    if jax_line is None:
        return None
    line = line_of(next_version)
    if line == jax_line:
        return None
    at = f" {jax_commit[:7]}" if jax_commit else ""
    return (f"version_info.json's version {next_version} is on line {line}, but the jax pin{at} "
            f"is jax {jax_line} (jax/version.py); a plugin {line} installs only beside jax "
            f"{line}: run `release bump` (it moves both together) or set version to {jax_line}")


def nightly(base: str, date: _dt.date, build_number: int | None = None) -> str:
    """Nightly ``X.Y.Z.devYYYYMMDD`` (``X.Y.Z.postN.devYYYYMMDD`` on a released line), or
    ``...devYYYYMMDDBBB`` with a build number.

    ``date`` is the UTC date of the build; ``build_number`` is 0..999, written as
    three digits so that every build of one day sorts in order.
    """
    if not isinstance(date, _dt.date) or isinstance(date, _dt.datetime):
        raise VersionError(f"nightly date {date!r} is not a calendar date (YYYY-MM-DD)")
    stamp = date.strftime("%Y%m%d")
    if build_number is not None:
        _positive("build number", build_number, minimum=0, maximum=999)
        stamp += f"{build_number:03d}"
    return f"{release(base)}.dev{stamp}"


def for_kind(kind: str, base: str, *, date: _dt.date | None = None, number: int | None = None,
             build_number: int | None = None) -> str:
    """One entry point for the CLI: the version of a build of ``kind``."""
    if kind == "release":
        return release(base)
    if kind == "rc":
        return rc(base, 1 if number is None else number)
    if kind == "post":
        return post(base, number)
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


_PARSED: dict[str, Version] = {}


def parse(text: str) -> Version:
    """``Version(text)``, parsed once a process per exact text (a Version is not changed once made:
    only its comparison key is worked out when first compared). The index parses each release's
    version in a dozen places; a season is a few hundred versions, each asked ten times."""
    found = _PARSED.get(text)
    if found is None:
        from packaging.version import Version
        found = Version(text)  # InvalidVersion is raised again on every asking: nothing kept
        if len(_PARSED) < 1 << 16:
            _PARSED[text] = found
    return found


@functools.lru_cache(maxsize=8192)
def kind_of(version: str) -> str:
    """Classify a version string we made: nightly, rc, release or post. Kept a process: a version's
    kind never changes, and the index asks it of each release three times."""
    return kind_of_version(parse(version))


def kind_of_version(v: Version) -> str:
    """``kind_of`` for a version already parsed (parsing is most of its cost)."""
    if v.is_devrelease:
        return "nightly"
    if v.pre is not None:
        return "rc"
    if v.is_postrelease:
        return "post"
    return "release"


def base_of(version: str) -> str:
    """``X.Y.Z`` of any version we made (drops rc, dev, post and local parts)."""
    return parse(version).base_version


def with_local(version: str, rocm_version: str) -> str:
    """Add a ``+rocmA.B.C`` local label, for assets that never go to a public index."""
    from packaging.version import Version
    label = f"rocm{rocm_version}"
    if not _LOCAL.match(label):
        raise VersionError(f"ROCm version {rocm_version!r} is not A.B.C")
    v = Version(version)
    if v.local is not None:
        raise VersionError(f"version {version} already has a local label")
    return f"{v}+{label}"


def require_public(version: str, target: str) -> str:
    """Refuse a local label where ``target`` (a public index) rejects it."""
    from packaging.version import Version
    if Version(version).local is not None:
        raise VersionError(f"version {version} has a local label, which {target} refuses; "
                           "drop the '+...' part")
    return version


def nightly_scheme_of(version: str) -> str | None:
    """``date`` for ``.devYYYYMMDD``, ``date-build`` for ``.devYYYYMMDDBBB``, None otherwise."""
    from packaging.version import Version
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
    from packaging.version import InvalidVersion
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
    from packaging.version import InvalidVersion, Version
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
