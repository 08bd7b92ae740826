"""The ``sbom`` check: the CycloneDX SBOM a wheel carries (PEP 770, ``release.build.sbom``) says
what the wheel is. A scanner trusts it without opening the wheel, so an SBOM that names another
wheel, other sources than the embedded revision map, or another ROCm than the wheel loads is a
lie told to every scanner: it is an error, as is a missing SBOM in a line's wheel (both layouts
write one: the rocm-jax layout's packer, and the step that gives jax's own targets' wheels the
revision map in a jax-tree line)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterator

from packaging.utils import canonicalize_name

from release.build import sbom
from release.check.findings import ERROR, NOTE, Finding, Options
from release.check.loadable import wheel_rocm_version
from release.check.stamps import commit_info
from release.core import rocm_runtime
from release.core.naming import Identity
from release.core.revisions import LEGACY_KEYS
from release.core.scan import Scan

_PROPERTY_BRANCH = f"{sbom.PROPERTY}:branch"


def layout_writes_sbom(root: Path | None) -> bool:
    """Whether the wheels of the line at ``root`` carry an SBOM: every layout writes one, so
    True when a project is named and read; False otherwise (wheels from elsewhere)."""
    return line_rocms(root) is not None


def line_rocms(root: Path | None) -> tuple[str, ...] | None:
    """The ROCm releases the line at ``root`` builds (``version_info.json``), one a major; None
    when no line is named or read (wheels from elsewhere)."""
    if root is None:
        return None
    from release.core.config import load_project
    from release.core.errors import UserError
    try:
        return load_project(root, search=False).version_info.rocms
    except UserError:
        return None


def check_sbom(scan: Scan, ident: Identity, opts: Options) -> Iterator[Finding]:
    members = [m for m in scan.files() if sbom.is_member(m.name)]
    if not members:
        if opts.sbom_required:
            yield Finding("sbom", ERROR, "no CycloneDX SBOM (<dist-info>/sboms/<dist>.cdx.json, PEP 770); "
                          "this line's layout writes one into every wheel")
        return
    for member in members:
        yield from _one(member.name, member.text, scan, ident, opts)


def _one(name: str, text: bytes | None, scan: Scan, ident: Identity, opts: Options) -> Iterator[Finding]:
    def bad(message: str) -> Finding:
        return Finding("sbom", ERROR, message, name)
    try:
        doc = json.loads(text) if text is not None else None
    except (UnicodeDecodeError, ValueError) as exc:
        yield bad(f"not JSON ({exc.__class__.__name__}); expected a CycloneDX document")
        return
    if not isinstance(doc, dict) or doc.get("bomFormat") != "CycloneDX" or not isinstance(doc.get("metadata"), dict):
        yield bad("not a CycloneDX document (bomFormat CycloneDX with metadata)")
        return
    if ident.dist is not None and name.rsplit("/", 1)[-1] != f"{ident.dist}.cdx.json":
        yield bad(f"named for another distribution; expected {ident.dist}.cdx.json")
    yield from (bad(m) for m in _described(doc["metadata"].get("component"), ident))
    components = [c for c in doc.get("components") or () if isinstance(c, dict)]
    yield from (bad(m) for m in _sources(components, commit_info(scan, ident)))
    for message, severity in _rocm(components, scan, ident, opts):
        yield Finding("sbom", severity, message, name)


def _described(component: Any, ident: Identity) -> Iterator[str]:
    """The described component is this wheel: its name, version and purl."""
    if not isinstance(component, dict):
        yield "metadata.component is missing; expected the wheel itself"
        return
    name, version = component.get("name"), component.get("version")
    if not isinstance(name, str) or canonicalize_name(name) != ident.dist:
        yield f"describes {name!r}; the wheel is {ident.dist}"
    elif version != ident.version:
        yield f"describes version {version!r}; the wheel is {ident.version}"
    elif component.get("purl") != sbom.purl(name, str(version)):
        yield f"purl {component.get('purl')!r}; expected {sbom.purl(name, str(version))}"


def _source_facts(component: dict) -> tuple[str, str | None, str | None]:
    url = next((r.get("url") for r in component.get("externalReferences") or ()
                if isinstance(r, dict) and r.get("type") == "vcs"), None)
    branch = next((p.get("value") for p in component.get("properties") or ()
                   if isinstance(p, dict) and p.get("name") == _PROPERTY_BRANCH), None)
    return str(component.get("version")), url, branch


def _sources(components: list[dict], embedded: dict[str, Any] | None) -> Iterator[str]:
    """Its source components are the embedded revision map's sources: each commit, and each
    repository and branch when the map has them (a wheel without a readable map is the
    ``revisions`` check's)."""
    listed = {str(c.get("name")): _source_facts(c) for c in components
              if str(c.get("bom-ref", "")).startswith("source:")}
    if embedded is None:
        return
    full, commits = embedded.get("revisions"), embedded.get("commits")
    if isinstance(full, dict) and all(isinstance(r, dict) for r in full.values()):
        want = {n: (r.get("commit"), r.get("url"), r.get("branch")) for n, r in full.items()}
    elif isinstance(commits, dict):
        legacy = {v: k for k, v in LEGACY_KEYS.items()}
        want = {legacy.get(k, k): (v, None, None) for k, v in commits.items()}
        listed = {n: (c, None, None) for n, (c, _, _) in listed.items()}
    else:
        return
    for source in sorted(set(want) | set(listed)):
        if source not in listed:
            yield f"lists no source {source}; the revision map pins {want[source][0]}"
        elif source not in want:
            yield f"lists source {source} at {listed[source][0]}, which the revision map does not pin"
        elif listed[source] != want[source]:
            yield f"source {source} is {_said(listed[source])}; the revision map pins {_said(want[source])}"


def _said(facts: tuple[Any, Any, Any]) -> str:
    """``url branch commit`` of one source, leaving out what is not known."""
    commit, url, branch = facts
    return " ".join(str(f) for f in (url, branch, commit) if f is not None)


def _rocm(components: list[dict], scan: Scan, ident: Identity, opts: Options) -> Iterator[tuple[str, str]]:
    """Its ROCm platform is the runtime the wheel loads: of the wheel's own major, and the
    release ``--rocm-version`` gives for that major, else the line's (``--root``: its
    ``rocm_versions``), else the one the Summary names; with none of them (jax's METADATA names
    no ROCm) only the major is checked, and a note says so. (message, severity) pairs."""
    rocm = next((c for c in components if c.get("bom-ref") == "rocm"), None)
    if rocm is None or not isinstance(rocm.get("version"), str):
        yield "names no ROCm runtime (a platform component with bom-ref rocm and a version)", ERROR
        return
    version = rocm["version"]
    major = rocm_runtime.major_of(version)
    if ident.rocm_major is not None and major != ident.rocm_major:
        yield f"names ROCm {version}; this is a rocm{ident.rocm_major} wheel", ERROR
        return
    given = opts.rocm_version
    expected = given if given is not None and rocm_runtime.major_of(given) == major else None
    line = next((r for r in opts.line_rocms if rocm_runtime.major_of(r) == major), None)
    expected = expected or line or wheel_rocm_version(scan)
    if expected is None:
        yield (f"names ROCm {version}; only its major ({major}) is checked: no --rocm-version of that "
               "major, no line (--root) and no Summary names the release"), NOTE
    elif version != expected:
        yield f"names ROCm {version}; the wheel is built for ROCm {expected}" + (
            " (the line's rocm_versions)" if expected == line and expected != given else ""), ERROR
