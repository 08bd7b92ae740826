"""The ``sbom`` check: the CycloneDX SBOM inside a wheel (PEP 770) agrees with the wheel: it
describes this distribution at this version, its sources are the embedded revision map's (commit,
repository, branch), and its ROCm platform is the runtime of the wheel's own major (the release
``--rocm-version`` gives, else the one the Summary names). A wheel whose SBOM disagrees fails in
one line per disagreement; a wheel without one fails where the line's layout writes one (the
rocm-jax layout's packer, and the step that gives jax's own targets' wheels the revision map in a
jax-tree line), and passes where no line is named (wheels from elsewhere)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from release.check.verify import ERROR, Options, verify_wheel
from tests.support.crafted import REPO, VERSION, craft, member_text, rocm_version


def sbom_findings(wheel, options=None):
    report = verify_wheel(wheel, options or Options())
    return report.status("sbom"), [f.message for f in report.findings if f.check == "sbom"]


def with_sbom(tmp_path, wheel, edit, name="edited.whl"):
    """``wheel`` with its SBOM rewritten by ``edit(doc)`` (RECORD kept right)."""
    member, text = member_text(wheel, ".cdx.json")
    doc = json.loads(text)
    edit(doc)
    return craft(wheel, tmp_path / name / wheel.name, replace={member: json.dumps(doc, indent=1)})


def sources(doc):
    return {c["name"]: c for c in doc["components"] if c["bom-ref"].startswith("source:")}


def rocm(doc):
    return next(c for c in doc["components"] if c["bom-ref"] == "rocm")


@pytest.mark.parametrize("kind", ["pjrt", "plugin"])
def test_the_sbom_the_build_writes_agrees_with_its_wheel(good_wheels, kind):
    assert sbom_findings(good_wheels[kind], Options(sbom_required=True)) == ("ok", [])
    assert sbom_findings(good_wheels[kind], Options(rocm_version=rocm_version())) == ("ok", [])


@pytest.mark.parametrize("kind", ["pjrt", "plugin"])
def test_a_missing_sbom_fails_only_where_the_layout_writes_one(tmp_path, good_wheels, kind):
    member, _ = member_text(good_wheels[kind], ".cdx.json")
    bare = craft(good_wheels[kind], tmp_path / kind / good_wheels[kind].name, drop=(member,))
    status, messages = sbom_findings(bare, Options(sbom_required=True))
    assert status == ERROR and len(messages) == 1 and "no CycloneDX SBOM" in messages[0]
    assert sbom_findings(bare) == ("ok", [])


EDITS = {
    "another commit": (lambda d: sources(d)["xla"].update(version="f" * 40), "source xla is "),
    "another branch": (lambda d: sources(d)["plugin"]["properties"][0].update(value="elsewhere"),
                       "source plugin is "),
    "another repository": (lambda d: sources(d)["jax"]["externalReferences"][0].update(
        url="https://github.com/someone/jax"), "source jax is https://github.com/someone/jax"),
    "a source dropped": (lambda d: d["components"].remove(sources(d)["jax"]), "lists no source jax"),
    "a source added": (lambda d: d["components"].append(dict(sources(d)["jax"], name="triton",
                                                             **{"bom-ref": "source:triton"})),
                       "lists source triton at "),
    "another ROCm release": (lambda d: rocm(d).update(version="7.1.1"),
                             f"names ROCm 7.1.1; the wheel is built for ROCm {rocm_version()}"),
    "another ROCm major": (lambda d: rocm(d).update(version="10.1.0"), "names ROCm 10.1.0; this is a rocm7 wheel"),
    "no ROCm": (lambda d: d["components"].remove(rocm(d)), "names no ROCm runtime"),
    "another version": (lambda d: d["metadata"]["component"].update(version="0.9.0"),
                        f"describes version '0.9.0'; the wheel is {VERSION}"),
    "another name": (lambda d: d["metadata"]["component"].update(name="jax-rocm10-pjrt"),
                     "describes 'jax-rocm10-pjrt'; the wheel is jax-rocm7-"),
    "a stale purl": (lambda d: d["metadata"]["component"].update(purl="pkg:pypi/jax-rocm7-pjrt@0.9.0"),
                     "purl 'pkg:pypi/jax-rocm7-pjrt@0.9.0'; expected pkg:pypi/"),
}


@pytest.mark.parametrize("kind", ["pjrt", "plugin"])
@pytest.mark.parametrize("what", sorted(EDITS))
def test_an_sbom_that_disagrees_with_its_wheel_fails_in_one_line(tmp_path, good_wheels, kind, what):
    edit, says = EDITS[what]
    status, messages = sbom_findings(with_sbom(tmp_path, good_wheels[kind], edit))
    assert status == ERROR and len(messages) == 1 and says in messages[0], messages
    assert "\n" not in messages[0]


def test_the_rocm_release_given_for_the_wheels_major_is_the_one_expected(good_wheels):
    """``--rocm-version`` of the wheel's major overrides the Summary; one of another major
    (a two-major line verified in one run) does not apply to this wheel."""
    status, messages = sbom_findings(good_wheels["plugin"], Options(rocm_version="7.1.1"))
    assert status == ERROR and messages == [f"names ROCm {rocm_version()}; the wheel is built for ROCm 7.1.1"]
    assert sbom_findings(good_wheels["plugin"], Options(rocm_version="10.1.0")) == ("ok", [])


def test_an_sbom_that_is_not_a_cyclonedx_document_fails(tmp_path, good_wheels):
    member, _ = member_text(good_wheels["pjrt"], ".cdx.json")
    for i, text in enumerate(["{not json", '{"bomFormat": "SPDX"}', "[]"]):
        wheel = craft(good_wheels["pjrt"], tmp_path / str(i) / good_wheels["pjrt"].name, replace={member: text})
        status, messages = sbom_findings(wheel)
        assert status == ERROR and len(messages) == 1 and ("not JSON" in messages[0] or "CycloneDX" in messages[0])


# What each edit touches: two edits of different parts are two disagreements.
PART = {"another commit": "xla", "another branch": "plugin", "another repository": "jax",
        "a source dropped": "jax", "a source added": "triton", "another ROCm release": "rocm",
        "another ROCm major": "rocm", "no ROCm": "rocm", "another version": "described",
        "another name": "described", "a stale purl": "described"}


@given(st.lists(st.sampled_from(sorted(EDITS)), min_size=1, max_size=4,
                unique_by=lambda what: PART[what]))
def test_every_disagreement_is_reported_on_its_own(tmp_path_factory, good_wheels, edits):
    """Disagreements planted together in different parts of the SBOM are each one finding."""
    def planted(doc):
        for what in edits:
            EDITS[what][0](doc)
    status, messages = sbom_findings(with_sbom(tmp_path_factory.mktemp("some"), good_wheels["plugin"], planted))
    assert status == ERROR and len(messages) == len(edits), (edits, messages)
    for what in edits:
        assert any(EDITS[what][1] in m for m in messages), (what, messages)


def test_the_layout_says_whether_its_wheels_carry_an_sbom(tmp_path):
    """The rocm-jax layout packs each wheel itself and writes one; a jax-tree line's wheels get
    one with the revision map; with no project named nothing is required."""
    from release.check.sbom_check import layout_writes_sbom
    from tests.test_line_build import jax_tree_line
    assert layout_writes_sbom(REPO) is True
    assert layout_writes_sbom(jax_tree_line(tmp_path / "line")) is True
    assert layout_writes_sbom(None) is False and layout_writes_sbom(tmp_path / "nothing") is False


def test_release_verify_of_a_rocm_jax_line_requires_the_sbom(tmp_path, good_wheels):
    """``release verify`` in a rocm-jax checkout holds every wheel to carrying its SBOM; a wheel
    without one fails there in one line."""
    from release.jobs.verify import VerifyOptions, run_verify

    class Bar:
        def describe(self, text): ...

        def advance(self, n): ...

    member, _ = member_text(good_wheels["pjrt"], ".cdx.json")
    bare = craft(good_wheels["pjrt"], tmp_path / "bare" / good_wheels["pjrt"].name, drop=(member,))
    result = run_verify(VerifyOptions((bare,), root=REPO), Bar())
    [report] = result.reports
    assert [f.message for f in report.errors if f.check == "sbom"] == [
        "no CycloneDX SBOM (<dist-info>/sboms/<dist>.cdx.json, PEP 770); this line's layout writes one "
        "into every wheel"]
    assert run_verify(VerifyOptions((good_wheels["pjrt"],), root=REPO), Bar()).reports[0].status("sbom") == "ok"


def test_release_verify_of_a_line_expects_the_lines_own_release_of_the_major(tmp_path, good_wheels):
    """``--root``: the SBOM must name the release the line builds for the wheel's major
    (version_info.json ``rocm_versions``), whatever else the wheel says."""
    from release.jobs.verify import VerifyOptions, run_verify
    from tests.test_line_build import jax_tree_line

    class Bar:
        def describe(self, text): ...

        def advance(self, n): ...

    line = jax_tree_line(tmp_path / "line", rocm_versions=("7.1.1", "10.0.0"))
    [report] = run_verify(VerifyOptions((good_wheels["pjrt"],), root=line), Bar()).reports
    assert [f.message for f in report.findings if f.check == "sbom"] == [
        f"names ROCm {rocm_version()}; the wheel is built for ROCm 7.1.1 (the line's rocm_versions)"]
