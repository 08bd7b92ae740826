"""Each wheel carries a CycloneDX SBOM (PEP 770: ``.dist-info/sboms/<dist>.cdx.json``, listed in
RECORD), valid against the CycloneDX 1.6 JSON schema, made from the revision map (each source's
commit and repository) and the ROCm runtime it needs (its version, and the ROCm libraries its
shared objects load). It is in the wheel before the wheel is hashed, and ``release promote``
moves its version with the wheel's and changes nothing else."""

from __future__ import annotations

import base64
import hashlib
import json
import zipfile
from pathlib import Path

import pytest

from release.build import sbom
from release.build.promote import promote_wheel
from release.core.revisions import RevisionMap
from release.core.wheelfile import read_record
from tests.support.crafted import VERSION, build_pair, configured_runpath, revision_map, rocm_version
from tests.support.elf import ALL_SOS, PJRT_SO, compile_so


def validate_cdx(doc: dict) -> str | None:
    """The CycloneDX 1.6 strict JSON schema's verdict (cyclonedx-python-lib ships the schemas:
    no network), None when valid."""
    pytest.importorskip("cyclonedx.validation.json", reason="cyclonedx-python-lib is in the test extras")
    from cyclonedx.schema import SchemaVersion
    from cyclonedx.validation.json import JsonStrictValidator
    error = JsonStrictValidator(SchemaVersion.V1_6).validate_str(json.dumps(doc))
    return None if error is None else str(error).splitlines()[0]


def the_sbom(wheel: Path) -> tuple[str, dict]:
    with zipfile.ZipFile(wheel) as zf:
        [name] = [n for n in zf.namelist() if sbom.is_member(n)]
        return name, json.loads(zf.read(name))


@pytest.fixture(scope="module")
def rocm_wheels(tmp_path_factory):
    """A pair whose pjrt object loads two ROCm libraries (and libc, which is not ROCm's)."""
    root = tmp_path_factory.mktemp("sbom")
    hip = compile_so(root / "rocm" / "libamdhip64.so.7", soname="libamdhip64.so.7")
    blas = compile_so(root / "rocm" / "librocblas.so.5", soname="librocblas.so.5")
    artifacts = root / "artifacts"
    for i, name in enumerate(ALL_SOS):
        compile_so(artifacts / name, configured_runpath(), answer=i,
                   links=(hip, blas) if name == PJRT_SO else ())
    return build_pair(root / "wheels", artifacts)


def test_each_wheel_carries_a_valid_sbom_of_its_sources_and_rocm_listed_in_record(rocm_wheels):
    revisions = revision_map()
    for kind, wheel in rocm_wheels.items():
        name, doc = the_sbom(wheel)
        assert name.endswith(f".dist-info/sboms/jax-rocm7-{kind}.cdx.json")
        assert validate_cdx(doc) is None
        with zipfile.ZipFile(wheel) as zf:
            data = zf.read(name)
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        assert read_record(wheel)[name] == (f"sha256={digest}", len(data))
        described = doc["metadata"]["component"]
        assert (described["name"], described["version"]) == (f"jax-rocm7-{kind}", VERSION)
        sources = {c["name"]: c for c in doc["components"] if c["bom-ref"].startswith("source:")}
        assert list(sources) == [n for n, _ in revisions.revisions]
        for dep, rev in revisions.revisions:
            assert sources[dep]["version"] == rev.commit
            assert sources[dep]["externalReferences"] == [{"type": "vcs", "url": rev.url}]
        [rocm] = [c for c in doc["components"] if c["bom-ref"] == "rocm"]
        assert rocm["version"] == rocm_version() and rocm["scope"] == "required"
        libraries = [c["name"] for c in rocm.get("components", [])]
        assert libraries == (["libamdhip64.so.7", "librocblas.so.5"] if kind == "pjrt" else [])
        assert doc["dependencies"][0]["ref"] == described["bom-ref"]


def test_the_same_build_writes_the_same_sbom():
    revisions = revision_map()
    one = sbom.dumps(sbom.document("jax-rocm7-pjrt", VERSION, revisions, "7.2.0", ["b.so.1", "a.so.2"], "1"))
    two = sbom.dumps(sbom.document("jax-rocm7-pjrt", VERSION, revisions, "7.2.0", ["a.so.2", "b.so.1"], "1"))
    assert one == two


@pytest.mark.parametrize("target, version", [("rc1", "0.9.1rc1"), ("release", "0.9.1"), ("post2", "0.9.1.post2")])
def test_promote_moves_the_sboms_version_with_the_wheels_and_nothing_else(rocm_wheels, tmp_path, target, version):
    for kind, wheel in rocm_wheels.items():
        promoted = promote_wheel(wheel, target, tmp_path)
        name, doc = the_sbom(promoted.output)
        _, before = the_sbom(wheel)
        assert name.startswith(f"jax_rocm7_{kind}-{version}.dist-info/")
        assert validate_cdx(doc) is None
        purl = f"pkg:pypi/jax-rocm7-{kind}@{version}"
        assert doc["metadata"]["component"] == dict(before["metadata"]["component"], version=version,
                                                    purl=purl, **{"bom-ref": purl})
        assert doc["dependencies"][0]["ref"] == purl
        assert doc["components"] == before["components"]
        assert name in read_record(promoted.output)


def test_a_source_off_github_has_no_purl_but_its_vcs_url():
    base = revision_map()
    xla = dict(base.revisions)["xla"]
    moved = RevisionMap(base.version, (("xla", type(xla)("https://git.example.org/xla.git", xla.branch, xla.commit)),))
    doc = sbom.document("jax-rocm7-pjrt", VERSION, moved, "7.2.0", tool_version="1")
    [xla_component] = [c for c in doc["components"] if c["name"] == "xla"]
    assert "purl" not in xla_component
    assert xla_component["externalReferences"] == [{"type": "vcs", "url": "https://git.example.org/xla.git"}]
    assert validate_cdx(doc) is None
