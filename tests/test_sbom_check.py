"""The ``sbom`` check's rules, one by one, on wheels read into memory (no wheel packed, no object
compiled: fast enough to run per mutant). The SBOM a wheel carries must be a CycloneDX document
named for the wheel's distribution, describe the wheel (name, then version, then purl: the first
that disagrees is said), list exactly the embedded revision map's sources (commit, repository and
branch; commits only against an older map that has only ``commits``), and name the ROCm release of
the wheel's own major (``--rocm-version`` of that major, else the one the Summary names); a missing
SBOM is an error only where the line's wheels carry one. Every finding is one line with its
member. Whole wheels: tests/test_verify_sbom.py."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from release.build import sbom
from release.check.findings import ERROR, NOTE, Finding, Options
from release.check.sbom_check import check_sbom, layout_writes_sbom, line_rocms
from release.core.naming import Identity
from release.core.revisions import RevisionMap
from release.core.scan import Member, Scan
from tests.support.crafted import REPO, revision_map

VERSION = "0.11.1"
PLUGIN = f"jax_rocm7_plugin-{VERSION}-cp312-cp312-manylinux_2_28_x86_64.whl"
PJRT10 = f"jax_rocm10_pjrt-{VERSION}-py3-none-manylinux_2_28_x86_64.whl"
DIST_INFO = {PLUGIN: f"jax_rocm7_plugin-{VERSION}.dist-info", PJRT10: f"jax_rocm10_pjrt-{VERSION}.dist-info"}
PACKAGE = {PLUGIN: "jax_rocm7_plugin", PJRT10: "jax_plugins/xla_rocm10"}
DIST = {PLUGIN: "jax-rocm7-plugin", PJRT10: "jax-rocm10-pjrt"}
ROCM = {PLUGIN: "7.2.0", PJRT10: "10.0.0"}
MEMBER = {w: sbom.member(DIST_INFO[w], DIST[w]) for w in (PLUGIN, PJRT10)}


def revisions() -> RevisionMap:
    return revision_map(VERSION)


def good(wheel: str = PLUGIN) -> dict:
    return sbom.document(DIST[wheel], VERSION, revisions(), ROCM[wheel], ["libamdhip64.so.7"], "1.0")


def scan(wheel: str = PLUGIN, doc: object = None, *, text: bytes | None = None, summary: str | None = "default",
         commit_info: str | None = "default", extra: tuple[Member, ...] = (), sbom_member: bool = True) -> Scan:
    """A wheel read into memory: its commit_info.py, METADATA (Summary naming ROCm) and SBOM."""
    if summary == "default":
        summary = f"JAX Plugin for AMD GPUs (ROCm {ROCM[wheel]})"
    if commit_info == "default":
        commit_info = revisions().commit_info_py()
    members = [Member(f"{PACKAGE[wheel]}/__init__.py", 0, 0o644, text=b"")]
    if commit_info is not None:
        members.append(Member(f"{PACKAGE[wheel]}/commit_info.py", len(commit_info), 0o644,
                              text=commit_info.encode()))
    meta = f"Metadata-Version: 2.1\nName: {DIST[wheel]}\nVersion: {VERSION}\n"
    meta += f"Summary: {summary}\n" if summary is not None else ""
    members.append(Member(f"{DIST_INFO[wheel]}/METADATA", len(meta), 0o644, text=meta.encode()))
    if sbom_member:
        data = text if text is not None else sbom.dumps(doc if doc is not None else good(wheel))
        members.append(Member(MEMBER[wheel], len(data), 0o644, text=data))
    return Scan(Path(wheel), members + list(extra), [])


def findings(s: Scan, opts: Options | None = None, severity: str = ERROR) -> list[tuple[str, str | None]]:
    found = list(check_sbom(s, Identity.of(s.path.name), opts or Options()))
    assert all(f.check == "sbom" and f.severity in (ERROR, NOTE) and "\n" not in f.message for f in found)
    return [(f.message, f.member) for f in found if f.severity == severity]


def notes(s: Scan, opts: Options | None = None) -> list[str]:
    return [m for m, _ in findings(s, opts, NOTE)]


def messages(s: Scan, opts: Options | None = None) -> list[str]:
    return [m for m, _ in findings(s, opts)]


def sources(doc: dict) -> dict[str, dict]:
    return {c["name"]: c for c in doc["components"] if c["bom-ref"].startswith("source:")}


def rocm(doc: dict) -> dict:
    return next(c for c in doc["components"] if c["bom-ref"] == "rocm")


@pytest.mark.parametrize("wheel", [PLUGIN, PJRT10])
def test_the_sbom_the_build_writes_has_no_finding(wheel):
    assert findings(scan(wheel), Options(sbom_required=True)) == []
    assert findings(scan(wheel), Options(rocm_version=ROCM[wheel])) == []


def test_a_missing_sbom_is_one_error_only_where_the_lines_wheels_carry_one():
    bare = scan(sbom_member=False)
    assert findings(bare, Options(sbom_required=True)) == [
        ("no CycloneDX SBOM (<dist-info>/sboms/<dist>.cdx.json, PEP 770); this line's layout writes one "
         "into every wheel", None)]
    assert findings(bare) == []
    # a file of another name under sboms/ is not the SBOM, nor is one deeper down
    other = Member(f"{DIST_INFO[PLUGIN]}/sboms/notes.txt", 1, 0o644, text=b"x")
    deeper = Member(f"{DIST_INFO[PLUGIN]}/sboms/x/{DIST[PLUGIN]}.cdx.json", 1, 0o644, text=b"x")
    assert len(findings(scan(sbom_member=False, extra=(other, deeper)), Options(sbom_required=True))) == 1


def test_every_sbom_the_wheel_carries_is_checked_each_under_its_own_name():
    second = f"{DIST_INFO[PLUGIN]}/sboms/other.cdx.json"
    third = f"{DIST_INFO[PLUGIN]}/sboms/broken.cdx.json"
    extra = (Member(second, 2, 0o644, text=sbom.dumps(good())), Member(third, 2, 0o644, text=b"[]"))
    assert findings(scan(extra=extra)) == [
        ("named for another distribution; expected jax-rocm7-plugin.cdx.json", second),
        ("not a CycloneDX document (bomFormat CycloneDX with metadata)", third)]


@pytest.mark.parametrize("text, says", [
    (b"{not json", "not JSON (JSONDecodeError); expected a CycloneDX document"),
    (b"{\"x\": \"\xc3\"}", "not JSON (UnicodeDecodeError); expected a CycloneDX document"),
    (b"[]", "not a CycloneDX document (bomFormat CycloneDX with metadata)"),
    (b'{"bomFormat": "SPDX", "metadata": {}}', "not a CycloneDX document (bomFormat CycloneDX with metadata)"),
    (b'{"bomFormat": "CycloneDX"}', "not a CycloneDX document (bomFormat CycloneDX with metadata)"),
    (b'{"bomFormat": "CycloneDX", "metadata": []}', "not a CycloneDX document (bomFormat CycloneDX with metadata)"),
])
def test_what_is_not_a_cyclonedx_document_is_one_error_and_nothing_more(text, says):
    assert findings(scan(text=text)) == [(says, MEMBER[PLUGIN])]


def test_an_sbom_whose_text_was_not_kept_is_not_a_cyclonedx_document():
    s = scan()
    s.members[-1].text = None
    assert messages(s) == ["not a CycloneDX document (bomFormat CycloneDX with metadata)"]


def test_an_sbom_named_for_another_distribution_says_the_expected_name_and_is_checked_on():
    doc = good()
    doc["metadata"]["component"]["version"] = "0.9.0"
    renamed = Member(f"{DIST_INFO[PLUGIN]}/sboms/jax-rocm7-pjrt.cdx.json", 1, 0o644, text=sbom.dumps(doc))
    s = scan(sbom_member=False, extra=(renamed,))
    assert messages(s) == ["named for another distribution; expected jax-rocm7-plugin.cdx.json",
                           f"describes version '0.9.0'; the wheel is {VERSION}"]
    # a wheel whose name says no distribution is not held to a name
    odd = Scan(Path("not-a-wheel.zip"), s.members, [])
    assert not any("named for" in m for m, _ in
                   ((f.message, f) for f in check_sbom(odd, Identity.of("not-a-wheel.zip"), Options())))


@pytest.mark.parametrize("edit, says", [
    (lambda c: c.clear(), "describes None; the wheel is jax-rocm7-plugin"),
    (lambda c: c.update(name=7), "describes 7; the wheel is jax-rocm7-plugin"),
    (lambda c: c.update(name="jax-rocm7-pjrt"), "describes 'jax-rocm7-pjrt'; the wheel is jax-rocm7-plugin"),
    (lambda c: c.update(version="0.11.2"), f"describes version '0.11.2'; the wheel is {VERSION}"),
    (lambda c: c.update(version=None), f"describes version None; the wheel is {VERSION}"),
    (lambda c: c.update(purl=f"pkg:pypi/jax-rocm7-plugin@{VERSION}x"),
     f"purl 'pkg:pypi/jax-rocm7-plugin@{VERSION}x'; expected pkg:pypi/jax-rocm7-plugin@{VERSION}"),
    (lambda c: c.pop("purl"), f"purl None; expected pkg:pypi/jax-rocm7-plugin@{VERSION}"),
    # the name then the version then the purl: the first that disagrees is said
    (lambda c: c.update(name="x", version="1", purl="p"), "describes 'x'; the wheel is jax-rocm7-plugin"),
    (lambda c: c.update(version="1", purl="p"), f"describes version '1'; the wheel is {VERSION}"),
])
def test_the_described_component_is_the_wheel(edit, says):
    doc = good()
    edit(doc["metadata"]["component"])
    assert findings(scan(doc=doc)) == [(says, MEMBER[PLUGIN])]


def test_a_name_spelled_otherwise_is_the_same_distribution():
    doc = good()
    doc["metadata"]["component"].update(name="JAX_rocm7.Plugin", purl=f"pkg:pypi/JAX_rocm7.Plugin@{VERSION}")
    assert messages(scan(doc=doc)) == []


@pytest.mark.parametrize("metadata, says", [
    ({}, "metadata.component is missing; expected the wheel itself"),
    ({"component": "jax-rocm7-plugin"}, "metadata.component is missing; expected the wheel itself"),
])
def test_an_sbom_describing_nothing_says_so(metadata, says):
    doc = good()
    doc["metadata"] = metadata
    assert messages(scan(doc=doc)) == [says]


def test_each_source_is_compared_with_the_embedded_map_commit_repository_and_branch():
    pins = revisions()
    doc = good()
    sources(doc)["xla"]["version"] = "f" * 40
    sources(doc)["plugin"]["properties"][0]["value"] = "elsewhere"
    sources(doc)["jax"]["externalReferences"] = [{"type": "website", "url": "https://jax.dev"},
                                                 {"type": "vcs", "url": "https://github.com/someone/jax"},
                                                 {"type": "vcs", "url": "https://github.com/other/jax"}]
    xla, plugin, jax = pins["xla"], pins["plugin"], pins["jax"]
    assert messages(scan(doc=doc)) == [
        f"source jax is https://github.com/someone/jax {jax.branch} {jax.commit}; the revision map pins "
        f"{jax.url} {jax.branch} {jax.commit}",
        f"source plugin is {plugin.url} elsewhere {plugin.commit}; the revision map pins "
        f"{plugin.url} {plugin.branch} {plugin.commit}",
        f"source xla is {xla.url} {xla.branch} {'f' * 40}; the revision map pins {xla.url} {xla.branch} {xla.commit}"]


def test_a_source_without_its_repository_or_branch_says_only_what_it_has():
    pins = revisions()
    doc = good()
    sources(doc)["xla"]["externalReferences"] = [{"type": "vcs"}, "not a reference"]
    sources(doc)["xla"]["properties"] = ["not a property", {"name": "other", "value": "x"}]
    xla = pins["xla"]
    assert messages(scan(doc=doc)) == [
        f"source xla is {xla.commit}; the revision map pins {xla.url} {xla.branch} {xla.commit}"]
    sources(doc)["xla"].pop("externalReferences")
    sources(doc)["xla"].pop("properties")
    assert messages(scan(doc=doc)) == [
        f"source xla is {xla.commit}; the revision map pins {xla.url} {xla.branch} {xla.commit}"]


def test_a_source_missing_or_added_is_named_with_its_commit():
    pins = revisions()
    doc = good()
    doc["components"].remove(sources(doc)["jax"])
    doc["components"].append(dict(sources(doc)["xla"], name="triton", version="a" * 40,
                                  **{"bom-ref": "source:triton"}))
    doc["components"] += ["not a component", {"name": "rocprim", "bom-ref": "rocm:librocprim.so"}]
    assert messages(scan(doc=doc)) == [f"lists no source jax; the revision map pins {pins['jax'].commit}",
                                       f"lists source triton at {'a' * 40}, which the revision map does not pin"]


@pytest.mark.parametrize("components", [None, [], "nothing"])
def test_an_sbom_without_components_lists_no_source_and_no_rocm(components):
    doc = good()
    doc["components"] = components
    pins = revisions()
    assert messages(scan(doc=doc)) == [
        *(f"lists no source {n}; the revision map pins {pins[n].commit}" for n in sorted(pins.commits)),
        "names no ROCm runtime (a platform component with bom-ref rocm and a version)"]


def test_against_a_map_with_commits_only_the_commits_are_compared_under_their_old_names():
    """An older wheel's commit_info.py has ``commits`` keyed ROCm/xla, ROCm/rocm-jax, jax."""
    pins = revisions()
    legacy = f"commits = {pins.legacy_commits()!r}\n"
    doc = good()
    sources(doc)["plugin"]["properties"][0]["value"] = "elsewhere"   # not compared: the map has no branch
    assert messages(scan(doc=doc, commit_info=legacy)) == []
    sources(doc)["xla"]["version"] = "f" * 40
    assert messages(scan(doc=doc, commit_info=legacy)) == [
        f"source xla is {'f' * 40}; the revision map pins {pins['xla'].commit}"]
    other = f"commits = {dict(pins.legacy_commits(), triton='b' * 40)!r}\n"
    assert messages(scan(doc=good(), commit_info=other)) == [
        f"lists no source triton; the revision map pins {'b' * 40}"]


@pytest.mark.parametrize("commit_info", [
    None,                                  # no map: the revisions check says so
    "this is not python(",                 # unreadable: the same
    "version = '0.11.1'\n",                # neither revisions nor commits
    "revisions = {'xla': 'abc'}\ncommits = 'x'\n",   # revisions of the wrong shape, commits not a map
    "revisions = 'x'\n",
])
def test_without_a_readable_map_the_sources_are_not_compared(commit_info):
    doc = good()
    sources(doc)["xla"]["version"] = "f" * 40
    assert messages(scan(doc=doc, commit_info=commit_info)) == []


def test_a_full_map_of_the_wrong_shape_falls_back_to_its_commits():
    pins = revisions()
    info = f"revisions = {{'xla': 'abc'}}\ncommits = {pins.legacy_commits()!r}\n"
    doc = good()
    sources(doc)["xla"]["version"] = "f" * 40
    assert messages(scan(doc=doc, commit_info=info)) == [
        f"source xla is {'f' * 40}; the revision map pins {pins['xla'].commit}"]


@pytest.mark.parametrize("edit", [lambda r: r.update(version=7.2), lambda r: r.pop("version"),
                                  lambda r: r.update(**{"bom-ref": "ROCm"})])
def test_an_sbom_naming_no_rocm_release_says_so(edit):
    doc = good()
    edit(rocm(doc))
    assert messages(scan(doc=doc)) == ["names no ROCm runtime (a platform component with bom-ref rocm and a version)"]


@pytest.mark.parametrize("wheel, named, opts, says", [
    (PLUGIN, "10.0.0", Options(), "names ROCm 10.0.0; this is a rocm7 wheel"),
    (PJRT10, "7.2.0", Options(rocm_version="7.2.0"), "names ROCm 7.2.0; this is a rocm10 wheel"),
    (PLUGIN, "7.1.1", Options(), "names ROCm 7.1.1; the wheel is built for ROCm 7.2.0"),
    # --rocm-version of the wheel's major is the release expected, over the Summary's
    (PLUGIN, "7.2.0", Options(rocm_version="7.1.1"), "names ROCm 7.2.0; the wheel is built for ROCm 7.1.1"),
    (PLUGIN, "7.1.1", Options(rocm_version="7.1.1"), None),
    # one of another major is not this wheel's: the Summary's is
    (PLUGIN, "7.1.1", Options(rocm_version="10.0.0"), "names ROCm 7.1.1; the wheel is built for ROCm 7.2.0"),
    (PJRT10, "10.1.0", Options(rocm_version="7.2.0"), "names ROCm 10.1.0; the wheel is built for ROCm 10.0.0"),
    (PJRT10, "10.0.0", Options(rocm_version="7.2.0"), None),
])
def test_the_rocm_release_is_the_wheels_own(wheel, named, opts, says):
    doc = good(wheel)
    rocm(doc)["version"] = named
    assert messages(scan(wheel, doc), opts) == ([says] if says else [])


ONLY_MAJOR = ("names ROCm 7.9.9; only its major (7) is checked: no --rocm-version of that major, no line "
              "(--root) and no Summary names the release")


@pytest.mark.parametrize("summary", [None, "JAX Plugin for AMD GPUs"])
def test_with_no_release_named_anywhere_the_major_is_still_held(summary):
    doc = good()
    rocm(doc)["version"] = "7.9.9"
    assert messages(scan(doc=doc, summary=summary)) == []
    assert findings(scan(doc=doc, summary=summary), severity=NOTE) == [(ONLY_MAJOR, MEMBER[PLUGIN])]  # said
    assert notes(scan(doc=doc, summary=summary), Options(line_rocms=("10.0.0",))) == [ONLY_MAJOR]
    assert messages(scan(doc=doc, summary=summary), Options(rocm_version="7.2.0")) == [
        "names ROCm 7.9.9; the wheel is built for ROCm 7.2.0"]
    rocm(doc)["version"] = "10.0.0"
    assert messages(scan(doc=doc, summary=summary)) == ["names ROCm 10.0.0; this is a rocm7 wheel"]


def test_a_wheel_whose_name_says_no_major_is_held_to_its_summary_only():
    name = f"jax_rocm_plugin-{VERSION}-cp312-cp312-manylinux_2_28_x86_64.whl"
    assert Identity.of(name).rocm_major is None
    doc = good()
    doc["metadata"]["component"].update(name="jax-rocm-plugin", purl=f"pkg:pypi/jax-rocm-plugin@{VERSION}")
    rocm(doc)["version"] = "10.0.0"
    member = Member(f"jax_rocm_plugin-{VERSION}.dist-info/sboms/jax-rocm-plugin.cdx.json", 1, 0o644,
                    text=sbom.dumps(doc))
    meta = f"Name: jax-rocm-plugin\nSummary: (ROCm {ROCM[PLUGIN]})\n".encode()
    s = Scan(Path(name), [Member(f"jax_rocm_plugin-{VERSION}.dist-info/METADATA", 1, 0o644, text=meta), member], [])
    assert messages(s) == ["names ROCm 10.0.0; the wheel is built for ROCm 7.2.0"]


def test_every_disagreement_is_its_own_line_in_the_documents_order():
    doc = good()
    doc["metadata"]["component"]["version"] = "0.9.0"
    sources(doc)["xla"]["version"] = "f" * 40
    rocm(doc)["version"] = "10.0.0"
    said = messages(scan(doc=doc))
    assert [m.split(" ")[0] for m in said] == ["describes", "source", "names"] and len(said) == 3


def test_the_lines_wheels_carry_an_sbom_whatever_its_layout(tmp_path):
    """Both layouts write one: required wherever a line is named and read, never without one."""
    from tests.test_line_build import jax_tree_line
    assert layout_writes_sbom(REPO) is True
    line = jax_tree_line(tmp_path / "line")
    assert layout_writes_sbom(line) is True
    (line / "wheels").mkdir()
    assert layout_writes_sbom(line / "wheels") is False   # the line named, not one found above it
    assert layout_writes_sbom(None) is False
    assert layout_writes_sbom(tmp_path / "nothing") is False
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / "deps.yaml").write_text("deps: [")
    assert layout_writes_sbom(tmp_path / "broken") is False


def test_the_document_checked_is_json_as_the_build_writes_it():
    """A round trip through the writer's bytes: what ``sbom.dumps`` writes reads back the same."""
    assert json.loads(sbom.dumps(good())) == good()


LINE = ("7.2.0", "10.0.0")


@pytest.mark.parametrize("wheel, named, summary, opts, says", [
    # jax's METADATA names no ROCm: the line's release of the wheel's major is the one expected
    (PJRT10, "10.1.0", None, Options(line_rocms=LINE),
     "names ROCm 10.1.0; the wheel is built for ROCm 10.0.0 (the line's rocm_versions)"),
    (PJRT10, "10.0.0", None, Options(line_rocms=LINE), None),
    (PLUGIN, "7.1.1", None, Options(line_rocms=LINE),
     "names ROCm 7.1.1; the wheel is built for ROCm 7.2.0 (the line's rocm_versions)"),
    (PLUGIN, "7.1.1", None, Options(line_rocms=("10.1.0", "7.1.1")), None),
    # over the Summary's too: the line says what it builds
    (PLUGIN, "7.2.0", "default", Options(line_rocms=("7.1.1",)),
     "names ROCm 7.2.0; the wheel is built for ROCm 7.1.1 (the line's rocm_versions)"),
    # --rocm-version of the wheel's major wins; one of another major does not
    (PLUGIN, "7.1.1", None, Options(rocm_version="7.1.1", line_rocms=LINE), None),
    (PLUGIN, "7.2.0", None, Options(rocm_version="7.1.1", line_rocms=LINE),
     "names ROCm 7.2.0; the wheel is built for ROCm 7.1.1"),
    (PLUGIN, "7.1.1", None, Options(rocm_version="10.0.0", line_rocms=LINE),
     "names ROCm 7.1.1; the wheel is built for ROCm 7.2.0 (the line's rocm_versions)"),
    # a line of other majors only says nothing of this one: the Summary's, else the major alone
    (PLUGIN, "7.1.1", "default", Options(line_rocms=("10.0.0",)),
     "names ROCm 7.1.1; the wheel is built for ROCm 7.2.0"),
])
def test_with_a_line_the_release_expected_is_the_lines_own_for_the_wheels_major(wheel, named, summary, opts, says):
    doc = good(wheel)
    rocm(doc)["version"] = named
    s = scan(wheel, doc, summary=summary)
    assert findings(s, opts) == ([(says, MEMBER[wheel])] if says else []) and notes(s, opts) == []


def test_a_note_leaves_the_check_ok_and_is_said_in_the_json():
    from release.check.verify import Report, summary_line
    note = Finding("sbom", NOTE, ONLY_MAJOR, MEMBER[PLUGIN])
    report = Report(Path(PLUGIN), [note], {})
    assert report.ok and report.status("sbom") == "ok" and summary_line(report).endswith("checks)")
    assert report.to_json()["checks"]["sbom"] == "ok"
    assert report.to_json()["findings"] == [{"check": "sbom", "severity": "note", "message": ONLY_MAJOR,
                                             "member": MEMBER[PLUGIN], "group": None}]
    warned = Report(Path(PLUGIN), [note, Finding("sbom", "warning", "w")], {})
    assert warned.status("sbom") == "warning" and summary_line(warned).endswith("1 warnings)")


def test_a_lines_releases_are_read_from_its_version_info(tmp_path):
    from tests.test_line_build import jax_tree_line
    assert line_rocms(jax_tree_line(tmp_path / "two", rocm_versions=("7.1.1", "10.0.0"))) == ("7.1.1", "10.0.0")
    assert line_rocms(jax_tree_line(tmp_path / "one", rocm_versions=None)) == ("7.2.0",)
    assert line_rocms(None) is None and line_rocms(tmp_path / "nothing") is None
