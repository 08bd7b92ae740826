"""What a manylinux tag promises on x86_64: the system libraries a wheel may need, and the newest
symbol version of each family (GLIBC, GLIBCXX, CXXABI, GCC) it may use from them.

Our own table of PEP 600's policies as auditwheel publishes them (its manylinux policy data,
x86_64 column): a wheel tagged ``manylinux_2_28`` may need ``libstdc++.so.6`` but nothing newer
than ``GLIBCXX_3.4.24`` from it. A ``manylinux_X_Y`` with no policy of its own gets the newest
policy at or below it, with its own glibc.
"""

from __future__ import annotations

import dataclasses
import re

_BASE_LIBS = ("libatomic.so.1", "libgcc_s.so.1", "libstdc++.so.6", "libm.so.6", "libanl.so.1",
              "libdl.so.2", "librt.so.1", "libc.so.6", "libnsl.so.1", "libutil.so.1",
              "libpthread.so.0", "libresolv.so.2", "libz.so.1", "libX11.so.6", "libXext.so.6",
              "libXrender.so.1", "libICE.so.6", "libSM.so.6", "libGL.so.1", "libgobject-2.0.so.0",
              "libgthread-2.0.so.0", "libglib-2.0.so.0",
              "ld-linux-x86-64.so.2")  # the loader itself: glibc's, present wherever libc is
_FROM_2_12 = ("libexpat.so.1",)
_FROM_2_27 = ("libmvec.so.1",)
# glibc (major, minor) -> newest (GLIBCXX, CXXABI, GCC) symbol versions allowed
_POLICIES: dict[tuple[int, int], tuple[str, str, str]] = {
    (2, 5): ("3.4.8", "1.3.1", "4.2.0"),
    (2, 12): ("3.4.13", "1.3.3", "4.3.0"),
    (2, 17): ("3.4.19", "1.3.7", "4.8.0"),
    (2, 24): ("3.4.22", "1.3.10", "4.8.0"),
    (2, 26): ("3.4.22", "1.3.10", "4.8.0"),
    (2, 27): ("3.4.24", "1.3.11", "7.0.0"),
    (2, 28): ("3.4.24", "1.3.11", "7.0.0"),
    (2, 31): ("3.4.28", "1.3.12", "7.0.0"),
    (2, 34): ("3.4.29", "1.3.13", "7.0.0"),
    (2, 35): ("3.4.30", "1.3.13", "12.0.0"),
    (2, 39): ("3.4.33", "1.3.15", "14.0.0"),
}
LEGACY = {"manylinux1": (2, 5), "manylinux2010": (2, 12), "manylinux2014": (2, 17)}
_TAG = re.compile(r"^manylinux_(\d+)_(\d+)_x86_64$")
_VERSION = re.compile(r"^(GLIBC|GLIBCXX|CXXABI|GCC)_(\d+(?:\.\d+)*)$")
FAMILY_LIBRARY = {"GLIBC": "glibc", "GLIBCXX": "libstdc++.so.6", "CXXABI": "libstdc++.so.6",
                  "GCC": "libgcc_s.so.1"}


def _numbers(text: str) -> tuple[int, ...]:
    return tuple(int(p) for p in text.split("."))


@dataclasses.dataclass(frozen=True)
class Policy:
    """A manylinux tag's limits: its glibc, the libraries a wheel may need, the newest symbol versions."""

    tag: str
    glibc: tuple[int, int]
    libraries: frozenset[str]
    newest: tuple[tuple[str, tuple[int, ...]], ...]  # (family, newest version allowed)

    def too_new(self, version: str) -> str | None:
        """Why the symbol version ``version`` (``GLIBCXX_3.4.30``) breaks this policy, or None
        (also None for families the policy does not bound: a library's own versions)."""
        m = _VERSION.match(version)
        newest = dict(self.newest)
        if not m or m.group(1) not in newest:
            return None
        family, wanted = m.group(1), _numbers(m.group(2))
        allowed = newest[family]
        if wanted <= allowed:
            return None
        return (f"{self.tag} allows {family} up to {family}_{'.'.join(map(str, allowed))}")


def policy_for(platform: str) -> Policy | None:
    """The policy of an x86_64 manylinux platform tag (``manylinux_2_28_x86_64``,
    ``manylinux2014_x86_64``), or None for any other platform."""
    m = _TAG.match(platform)
    if m:
        glibc = (int(m.group(1)), int(m.group(2)))
    elif platform.endswith("_x86_64") and platform[:-len("_x86_64")] in LEGACY:
        glibc = LEGACY[platform[:-len("_x86_64")]]
    else:
        return None
    known = [g for g in _POLICIES if g <= glibc]
    if not known:
        return None
    base = max(known)
    libstdcxx, cxxabi, gcc = _POLICIES[base]
    libs = set(_BASE_LIBS)
    if base >= (2, 12):
        libs.update(_FROM_2_12)
    if base >= (2, 27):
        libs.update(_FROM_2_27)
    return Policy(platform, glibc, frozenset(libs),
                  (("GLIBC", glibc), ("GLIBCXX", _numbers(libstdcxx)), ("CXXABI", _numbers(cxxabi)),
                   ("GCC", _numbers(gcc))))
