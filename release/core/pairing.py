"""A release is whole: every PJRT wheel has its plugin, and every plugin's PJRT is in the same set.

Half a release breaks users: a plugin published without its pjrt leaves ``jax[rocm]`` with no
solution (ROCm/jax#334), and a pjrt alone installs a backend nothing registers kernels for. The
rule is one function of the wheel files a release would publish, so validate (which reads each
plugin's ``Requires-Dist``) and undraft (which sees only the asset names, and refuses before
anything is published) hold the same rule.

    problems(wheels, majors=None) -> [one line per problem]  # wheels: (file name, Requires-Dist or None)

With ``majors`` (the ROCm majors the line builds: version_info.json's ``rocm_versions``) the
release is whole only when it holds every one of them, each with its PJRT wheel and a plugin
wheel for every Python any major has: ROCm 7 without ROCm 10, when the line names both, is
half a release too (users of the missing major get nothing, or an older version).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from release.core import naming
from release.core.naming import Identity

if TYPE_CHECKING:
    from packaging.requirements import Requirement


def _pjrt_requirements(requires: Sequence[str], pjrt_dist: str) -> list[Requirement] | None:
    """The plugin's unconditional requirements on ``pjrt_dist`` (None: one does not parse)."""
    # here, not at import: packaging.requirements is a parser of its own, and the commands that
    # only import drafts (status, nightly --dry-run) never pair wheels
    from packaging.requirements import InvalidRequirement, Requirement
    from packaging.utils import canonicalize_name
    found = []
    for line in requires:
        try:
            req = Requirement(line)
        except InvalidRequirement:
            return None
        if canonicalize_name(req.name) == pjrt_dist and not (req.marker and "extra" in str(req.marker)):
            found.append(req)
    return found


def problems(wheels: Sequence[tuple[str, Sequence[str] | None]],
             majors: Sequence[int] | None = None) -> list[str]:
    """Why the wheel files ``wheels`` are not a whole release, one line each (empty: whole).

    Each entry is a file name and the plugin's ``Requires-Dist`` lines (None when unknown: then
    the plugin needs a PJRT wheel of its own ROCm major and version, which is what the build
    pins). Wheels that are not jax-rocm wheels are not this rule's business.
    """
    idents = [(Path(name).name, Identity.of(name), requires) for name, requires in wheels]
    pjrts = [i for _, i, _ in idents if i.kind == "pjrt" and i.rocm_major is not None]
    plugins = [(n, i, r) for n, i, r in idents if i.kind == "plugin" and i.rocm_major is not None]
    found: list[str] = []
    for name, pjrt, _ in idents:
        if pjrt.kind != "pjrt" or pjrt.rocm_major is None:
            continue
        if not any(p.rocm_major == pjrt.rocm_major and p.version == pjrt.version for _, p, _ in plugins):
            found.append(f"{name} has no {naming.plugin_dist(pjrt.rocm_major)} {pjrt.version} "
                         "beside it: a PJRT wheel alone is half a release")
    for filename, plugin, requires in plugins:
        assert plugin.rocm_major is not None  # the kind implies it
        dist = naming.pjrt_dist(plugin.rocm_major)
        mine = [p for p in pjrts if p.dist == dist]
        if requires is None:
            if not any(p.version == plugin.version for p in mine):
                found.append(f"{filename} needs {dist} {plugin.version}, which is not in the "
                             "same release")
            continue
        reqs = _pjrt_requirements(requires, dist)
        if reqs is None:
            found.append(f"{filename}: a Requires-Dist line does not parse")
        elif not reqs:
            found.append(f"{filename} has no Requires-Dist on {dist}")
        else:
            for req in reqs:
                if not any(req.specifier.contains(p.version or "", prereleases=True) for p in mine):
                    have = ", ".join(sorted(p.version or "?" for p in mine)) or "none"
                    found.append(f"{filename} requires {req}, which no {dist} wheel in the "
                                 f"same release satisfies (there: {have})")
    if majors is not None:
        found += _missing_cells([i for _, i, _ in idents if i.rocm_major is not None], majors)
    return found


def _missing_cells(idents: Sequence[Identity], majors: Sequence[int]) -> list[str]:
    """What of ``majors`` x Pythons the jax-rocm wheels ``idents`` lack, and what they hold of
    a major the line does not build."""
    found: list[str] = []
    pythons = sorted({py for i in idents if i.kind == "plugin" for py in i.pythons},
                     key=lambda p: int(p.split(".")[1]))
    named = ", ".join(f"ROCm {m}" for m in sorted(majors))
    for major in sorted(majors):
        mine = [i for i in idents if i.rocm_major == major]
        if not any(i.kind == "pjrt" for i in mine):
            found.append(f"no {naming.pjrt_dist(major)} wheel: the line builds {named}, and a major "
                         "without its PJRT wheel is half a release")
        have = {py for i in mine if i.kind == "plugin" for py in i.pythons}
        lacking = [py for py in pythons if py not in have]
        if lacking:
            found.append(f"no {naming.plugin_dist(major)} wheel for Python {', '.join(lacking)}: the line "
                         f"builds {named}, each for every Python of the release")
    others = sorted({i.rocm_major for i in idents if i.rocm_major is not None and i.rocm_major not in majors})
    for major in others:
        found.append(f"{naming.plugin_dist(major)}/{naming.pjrt_dist(major)} wheels of ROCm {major}, "
                     f"which the line does not build (it builds {named})")
    return found
