"""The CycloneDX SBOM inside each wheel (PEP 770: ``<name>.dist-info/sboms/<dist>.cdx.json``).

What a wheel is made of, for a scanner that reads only the installed environment: the sources
it was built from (the revision map's xla, jax and plugin commits, each with its repository as
a ``vcs`` reference, its branch and its pinned archive hash) and the ROCm runtime it needs but
does not ship (``scope: required``: the ROCm version, and the ROCm libraries its shared objects
load, from their DT_NEEDED and ``release.core.rocm_runtime``'s soname lists: the line's own
where it has one, in both layouts).

Written by the build before the wheel is hashed (so SHA256SUMS, the provenance and the
attestations cover it) and listed in RECORD like every member: by the rocm-jax layout's packer
(``release.build.wheels``), and into the wheels jax's own targets wrote with the revision map
(``release.build.jax_tree_wheels``). It carries the wheel's version
(the described component's ``version``, ``purl`` and ``bom-ref``); ``release promote``, which
re-versions without rebuilding, rewrites those with ``reversion`` and nothing else. No clock is
read and keys keep one order: the same build writes the same bytes.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Mapping
from urllib.parse import quote

from release.core.revisions import github_base

if TYPE_CHECKING:
    from release.core.revisions import RevisionMap

SPEC_VERSION = "1.6"
DIRECTORY = "sboms"
PROPERTY = "jax-rocm-release"  # the namespace of this tool's properties


def member(dist_info: str, dist: str) -> str:
    """The SBOM's path in the wheel: ``<dist-info>/sboms/<dist>.cdx.json``."""
    return f"{dist_info}/{DIRECTORY}/{dist}.cdx.json"


def is_member(name: str) -> bool:
    parts = name.split("/")
    return len(parts) == 3 and parts[0].endswith(".dist-info") and parts[1] == DIRECTORY \
        and parts[2].endswith(".cdx.json")


def purl(dist: str, version: str) -> str:
    return f"pkg:pypi/{dist}@{quote(version, safe='')}"


def _source(name: str, url: str, branch: str, commit: str, archive_sha256: str | None,
            patches: Iterable[str]) -> dict:
    base = github_base(url)
    component: dict = {"type": "library", "bom-ref": f"source:{name}", "name": name, "version": commit}
    if base:
        owner_repo = base.split("github.com/", 1)[1]
        component["purl"] = f"pkg:github/{owner_repo.lower()}@{commit}"
    component["externalReferences"] = [{"type": "vcs", "url": url}]
    props = [("branch", branch), *([("archive-sha256", archive_sha256)] if archive_sha256 else []),
             *(("patch", p) for p in patches)]
    component["properties"] = [{"name": f"{PROPERTY}:{k}", "value": v} for k, v in props]
    return component


def document(dist: str, version: str, revisions: RevisionMap, rocm_version: str,
             rocm_libraries: Iterable[str] = (), tool_version: str | None = None) -> dict:
    """The SBOM of the wheel of ``dist`` ``version`` built from ``revisions`` for ROCm
    ``rocm_version``, whose shared objects load ``rocm_libraries`` from the ROCm runtime."""
    if tool_version is None:
        from release import __version__ as tool_version
    main = purl(dist, version)
    sources = [_source(name, rev.url, rev.branch, rev.commit, rev.archive_sha256, rev.patches)
               for name, rev in revisions.revisions]
    rocm = {"type": "platform", "bom-ref": "rocm", "name": "ROCm", "version": rocm_version,
            "scope": "required",
            "description": "the ROCm runtime the wheel loads; not shipped in it",
            "components": [{"type": "library", "bom-ref": f"rocm:{so}", "name": so, "scope": "required"}
                           for so in sorted(set(rocm_libraries))]}
    if not rocm["components"]:
        del rocm["components"]
    metadata: dict = {
        "tools": {"components": [{"type": "application", "name": "jax-rocm-release", "version": tool_version}]},
        "component": {"type": "library", "bom-ref": main, "name": dist, "version": version, "purl": main}}
    if revisions.release_commit:
        metadata["properties"] = [{"name": f"{PROPERTY}:release-commit", "value": revisions.release_commit}]
    return {"bomFormat": "CycloneDX", "specVersion": SPEC_VERSION, "version": 1, "metadata": metadata,
            "components": [*sources, rocm],
            "dependencies": [{"ref": main, "dependsOn": [c["bom-ref"] for c in sources] + ["rocm"]}]}


def dumps(doc: Mapping) -> bytes:
    return (json.dumps(doc, indent=1) + "\n").encode("utf-8")


def reversion(data: bytes, new_version: str) -> bytes:
    """The SBOM of a promoted wheel: the described component's version, purl and bom-ref (and
    the dependency entry naming it) moved to ``new_version``; everything else as it was."""
    doc = json.loads(data)
    component = doc["metadata"]["component"]
    old_ref = component.get("bom-ref")
    new_ref = purl(component["name"], new_version)
    component.update({"version": new_version, "purl": new_ref, "bom-ref": new_ref})
    for dep in doc.get("dependencies", []):
        if dep.get("ref") == old_ref:
            dep["ref"] = new_ref
    return dumps(doc)


def rocm_libraries(shared_objects: Iterable[Path], rocm_version: str, root: Path | None = None) -> list[str]:
    """The sonames the shared objects need (DT_NEEDED) that ROCm ``rocm_version``'s runtime
    provides; none when that ROCm has no soname list or an object is not ELF."""
    from release.core import elffacts
    needed: list[str] = []
    for path in shared_objects:
        with open(path, "rb") as handle:
            needed += elffacts.facts_or_error(elffacts.file_reader(handle), Path(path).stat().st_size).needed
    return rocm_sonames(needed, rocm_version, root)


def rocm_sonames(needed: Iterable[str], rocm_version: str, root: Path | None = None) -> list[str]:
    """Of the sonames ``needed``, those ROCm ``rocm_version``'s runtime provides, sorted and
    once each; none when that ROCm has no soname list."""
    from release.core import rocm_runtime
    from release.core.errors import UserError
    try:
        runtime = rocm_runtime.load(rocm_version, root)
    except UserError:
        return []
    return sorted({so for so in needed if runtime.where(so)})
