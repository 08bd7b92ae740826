"""Which upstream branch a pin is on: the release branch of jax's line first.

The real ROCm/xla has hundreds of ``rocm-jaxlib-v*`` branches: release branches, working
branches (``-upstream-sync``, ``-soversion``) and ones far ahead of any pin, which hold every
old commit. "The newest branch that contains it" picks those. The jax line (``_version`` at
the jax pin, ``release.sources.line``) names the branch a pin belongs to:
``rocm-jaxlib-v<line>``. It is asked first, alone (one fetch); then the line's own working
branches (``rocm-jaxlib-v0.6.0-soversion``: the line's patches, a few commits each) in one
fetch; only when none of those holds the pin are all the other matching branches asked, in
ONE fetch of their commits since the pin's date, and the best that holds it is kept: plain
release branches before working branches, the nearest version to the line first. Release
branches of other versions carry the upstream history since the pin (12,000 commits of the
real xla since a 2025-07 pin against 135 on the 0.6.0 line's branches), so a pin on its line's
working branch is found without them. Finding a branch costs one to three fetches, and refusing
a commit that is on no branch three, however many branches there are.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import re
from typing import Callable

from release.core.config import Dep
from release.sources.git import Remote
from release.sources.mirror import SKEW, Mirror
from release.sources.refs import ls_remote_branches

# ASCII digits (a look-alike U+0661 is none), at most 9 a part: a longer run is no version
# (a 5,000-digit part is past what Python turns into an int).
_VERSION = re.compile(r"(?<![0-9])([0-9]{1,9}(?:\.[0-9]{1,9})*)(?![0-9])(.*)\Z", re.ASCII | re.DOTALL)


@dataclasses.dataclass(frozen=True)
class Found:
    """Where a pin was found: ``branch`` (None: on no matching branch) and what its line asks."""

    branch: str | None
    release: str | None = None  # the release branch of the line (None: no line known)
    on_line: bool = False  # ``branch`` is that release branch
    release_exists: bool = False  # upstream has that release branch

    @property
    def off_line(self) -> str:
        """One clause for the changelog when the pin is not on its line's release branch."""
        if self.release is None or self.on_line or self.branch is None:
            return ""
        why = "does not hold it" if self.release_exists else "is no branch upstream"
        return f"on no release branch of jax's line ({self.release} {why})"


def version_in(name: str) -> tuple[tuple[int, ...], str] | None:
    """The version in a branch name and what follows it (``-upstream-sync``), or None."""
    m = _VERSION.search(name)
    return (tuple(int(x) for x in m.group(1).split(".")), m.group(2)) if m else None


def release_branch(pattern: str, line: str | None) -> str | None:
    """The release branch of ``line`` under a glob like ``rocm-jaxlib-v*`` (None without a line
    or for a pattern with no single ``*`` to put the line in)."""
    if line is None or pattern.count("*") != 1 or any(c in pattern for c in "?["):
        return None
    return pattern.replace("*", line)


def _line_version(line: str | None) -> tuple[int, ...] | None:
    return tuple(int(x) for x in line.split(".")) if line else None


def of_line(name: str, line: str | None) -> bool:
    """Whether a branch carries the line's own version (its release branch or a working branch
    of it, ``-soversion``)."""
    found = version_in(name)
    return line is not None and found is not None and found[0] == _line_version(line)


def preference(line: str | None) -> Callable[[str], tuple]:
    """Sort key for branches that hold a pin, best first: the line's own branches (its release
    branch, then its working branches); then plain release branches before working branches,
    the nearest newer version first, then older ones (newest first); without a line, the newest
    first."""
    want = _line_version(line)

    def key(name: str) -> tuple:
        found = version_in(name)
        if found is None:
            return (1, 2, 0, (), name)
        version, suffix = found
        variant = 1 if suffix else 0
        if want is None:
            return (1, variant, 0, tuple(-x for x in version), name)
        if version == want:
            return (0, variant, 0, version, name)
        if version > want:
            return (1, variant, 0, version, name)
        return (1, variant, 1, tuple(-x for x in version), name)
    return key


def find_branch(mirror: Mirror, remote: Remote, dep: Dep, sha: str, pattern: str, line: str | None,
                say: Callable[[str], None] = lambda _: None, *, tips: dict[str, str] | None = None,
                pair: str | None = None) -> Found:
    """The branch matching ``pattern`` (or the recorded one) that ``sha`` (here) is on;
    ``tips``: the remote's branches matching ``pattern`` when already listed; ``pair``: the
    commit (here) whose history beside ``sha``'s is asked next, brought by the first fetch
    (``Mirror.containing``)."""
    if tips is None:
        tips = ls_remote_branches(remote, pattern)
    release = release_branch(pattern, line)
    since = mirror.commit_time(sha) - SKEW
    if release in tips:
        say(f"{dep.name}: is {sha[:7]} on {release}?")
        if mirror.branch_contains(release, sha, since, tips[release], pair=pair):
            return Found(release, release, True, True)
        pair = None  # its history came with that fetch
    own = sorted(b for b in tips if b != release and of_line(b, line))
    holding: set[str] = set()
    if own:  # the line's working branches: a few commits each, ranked above every other branch
        say(f"{dep.name}: which of {len(own)} working branches of {line} hold {sha[:7]}?")
        holding = mirror.containing(tuple(own), sha, since, tips, pair=pair)
        pair = None
    if not holding:
        rest = [b for b in tips if b != release and b not in own]
        if dep.branch not in tips and not fnmatch.fnmatchcase(dep.branch, pattern):
            rest.append(dep.branch)  # a branch outside the pattern a person recorded (master)
        say(f"{dep.name}: which of {len(rest)} branches hold {sha[:7]}?")
        holding = mirror.containing(tuple(sorted(rest)), sha, since, tips, pair=pair)
    best = min(holding, key=preference(line)) if holding else None
    return Found(best, release, False, release in tips)
