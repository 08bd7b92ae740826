"""The with-rocm section validate leaves in a draft's notes (``release.publish.with_rocm_notes``):
every cell validate reached is said on its own line and read back as the same state, an ``n/a``
keeps validate's reason, and status and the page read it per cell beside the other gates
(``release.publish.matrix``, ``release.jobs.status_cells``); notes of before have no section and
still read (``unknown``)."""

from __future__ import annotations

import datetime as dt
import types

import pytest
from hypothesis import given
from hypothesis import strategies as st

from release.core import naming
from release.jobs.status_cells import release_cells
from release.publish import matrix, notes, with_rocm_notes
from release.publish.records import Release

DIGEST = "b" * 64
CELL_OF = st.tuples(st.sampled_from([7, 10, 11]), st.sampled_from(["3.9", "3.11", "3.12", "3.13", "3.14"]))
# a record as ``with_rocm_path.Record.to_json`` writes it, and as an older or newer one might
_SAID = st.sampled_from(["ok", "failed", "not tried", "n/a"])
_TEXT = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=60)
RECORD = st.fixed_dictionaries({"pip": _SAID}, optional={"uv": _SAID}).flatmap(
    lambda said: st.fixed_dictionaries({"runtime": st.lists(st.from_regex(r"[a-z][a-z0-9-]{0,20}==[0-9.]{1,8}",
                                                                          fullmatch=True), max_size=3),
                                        "reason": st.none() | _TEXT}).map(lambda rest: {**said, **rest}))


def expected(record: dict) -> str:
    said = [v for k, v in record.items() if k not in ("runtime", "reason")]
    if "ok" in said and "failed" not in said:
        return "passed"
    return "n/a" if all(v == "n/a" for v in said) else "failed"


@given(st.dictionaries(CELL_OF, st.none() | RECORD, max_size=6))
def test_each_cell_reads_back_as_validate_said_it_through_the_notes(results):
    """From validate's cells (some reached with-rocm, some not) to the notes and back: each cell
    has its state, an n/a its reason on one line, a cell not reached ``not run``; the notes that
    carry the section read back the same (``read(write(notes))``)."""
    cells = {c: ({"tested": True, "with_rocm": r} if r is not None else {"tested": False}) for c, r in results.items()}
    text = with_rocm_notes.to_text(cells)
    record = notes.Notes(text="x", ours=True, validated=DIGEST, with_rocm=text)
    again = notes.read(notes.write(record))
    assert again == record
    got = with_rocm_notes.read(again.with_rocm)
    assert set(got) == set(results)
    for cell, r in results.items():
        state, reason = got[cell]
        assert state == ("not run" if r is None else expected(r))
        if state == "n/a":
            assert reason and "\n" not in reason
            if r["reason"] and r["reason"].split():
                assert reason == " ".join(r["reason"].split()).replace("<!--", "<! --").replace("-->", "- ->")
        else:
            assert reason is None


def test_notes_of_before_the_section_and_unvalidated_notes_read_as_unknown():
    assert with_rocm_notes.read(None) is None
    assert notes.read(notes.write(notes.Notes(text="x", validated=DIGEST))).with_rocm is None


def test_a_hand_made_with_rocm_record_is_refused_not_misread():
    with pytest.raises(notes.NotesError, match="looks like one of this tool's records"):
        notes.read("text\n<!-- with-rocm -->\n- ROCm 7, Python 3.12: passed\n")


def names(version: str, cells: list[tuple[int, str]]) -> list[str]:
    return (sorted({naming.pjrt_wheel(m, version) for m, _ in cells})
            + [naming.plugin_wheel(m, version, py) for m, py in cells])


NA = "the with-rocm extra names amd-x, which ... does not record"
SECTION = with_rocm_notes.to_text({
    (7, "3.12"): {"tested": True, "with_rocm": {"pip": "ok", "uv": "ok", "runtime": ["rocm-sdk-core==7.2.0"],
                                                "reason": None}},
    (10, "3.12"): {"tested": True, "with_rocm": {"pip": "n/a", "uv": "n/a", "runtime": [],
                                                 "reason": NA}},
    (7, "3.13"): {"tested": False}})
CELLS = [(7, "3.12"), (7, "3.13"), (10, "3.12"), (10, "3.13")]


@pytest.mark.parametrize("validated, section, gates", [
    (True, SECTION, {(7, "3.12"): "passed", (7, "3.13"): "not run", (10, "3.12"): "n/a", (10, "3.13"): "not run"}),
    (True, None, dict.fromkeys(CELLS, "unknown")),      # validated before the section was kept
    (False, SECTION, dict.fromkeys(CELLS, "unknown")),  # not validated: a section left over says nothing
])
def test_the_matrix_has_each_cells_with_rocm_gate_and_its_reason(validated, section, gates):
    got = matrix.cells("0.9.1", names("0.9.1", CELLS), validated=validated, smoke=None, with_rocm=section)
    assert {(c.rocm_major, c.python): c.gate("with_rocm") for c in got} == gates
    reasons = {(c.rocm_major, c.python): c.with_rocm_reason for c in got}
    assert reasons == {c: ("the with-rocm extra names amd-x, which ... does not record"
                           if gates[c] == "n/a" else None) for c in CELLS}
    assert all(c.to_json()["with_rocm_reason"] == c.with_rocm_reason for c in got)


def test_status_and_the_page_show_with_rocm_per_cell_with_the_na_reason():
    from release.publish.page import compatibility
    from release.publish.site import ReleaseRow, SiteData
    body = notes.write(notes.Notes(text="x", ours=True, validated=DIGEST, with_rocm=SECTION))
    release = Release(id=1, tag="rocm-jax-v0.9.1", name="0.9.1", body=body, draft=False, prerelease=False,
                      created_at=dt.datetime(2026, 11, 1, tzinfo=dt.timezone.utc), published_at=None)
    store = types.SimpleNamespace(list_assets=lambda rel: [types.SimpleNamespace(name=n)
                                                           for n in names("0.9.1", CELLS)])
    row = release_cells(store, release, CELLS)
    by = {(c["rocm_major"], c["python"]): (c["with_rocm"], c["with_rocm_reason"]) for c in row["cells"]}
    assert by[(7, "3.12")] == ("passed", None)
    assert by[(10, "3.12")] == ("n/a", "the with-rocm extra names amd-x, which ... does not record")
    assert by[(10, "3.13")] == ("not run", None)
    line = release_cells(store, release, [*CELLS, (11, "3.12")])["cells"][-1]
    assert (line["with_rocm"], line["with_rocm_reason"]) == ("not built", None)
    cells = tuple(matrix.cells("0.9.1", names("0.9.1", CELLS), validated=True, smoke=None, with_rocm=SECTION))
    page = compatibility(SiteData(project="jax-rocm7-plugin", site_url=None, keep=14, drafts=(), releases=(
        ReleaseRow("rocm-jax-v0.9.1", "0.9.1", "release", "stable", None, None, True, (), None, None, None, (),
                   cells=cells),)))
    assert '<th scope="col">with-rocm</th>' in page
    assert "<td>n/a (the with-rocm extra names amd-x, which ... does not record)</td>" in page
    assert page.count("<td>passed</td>") >= 1


def test_status_for_people_has_a_with_rocm_column_and_each_na_reason_below():
    import io

    from rich.console import Console

    from release.commands._cells_view import print_cells
    cell = {"rocm_major": 10, "python": "3.12", "built": True, "verify": "passed", "validate": "passed",
            "smoke": "not run", "published": True}
    out = io.StringIO()
    print_cells(Console(file=out, width=400), [{"tag": "rocm-jax-v0.9.1", "draft": False, "strays": [], "cells": [
        cell | {"with_rocm": "n/a", "with_rocm_reason": "declares no with-rocm extra"},
        cell | {"python": "3.13", "with_rocm": "passed", "with_rocm_reason": None},
        {k: v for k, v in cell.items()} | {"python": "3.11"}]}])  # a row of before: no with_rocm keys
    text = out.getvalue()
    assert "with-rocm" in text.splitlines()[1] or any("with-rocm" in line and "smoke" in line
                                                      for line in text.splitlines())
    assert [line for line in text.splitlines() if "declares" in line] == [
        "rocm-jax-v0.9.1 ROCm 10, Python 3.12: with-rocm n/a: declares no with-rocm extra"]


def test_each_line_says_why_where_validate_said_and_that_it_did_not_where_it_did_not():
    """An n/a always has a reason (else it says none was recorded); a failed line carries its
    reason when there is one, nothing made up when there is none."""
    text = with_rocm_notes.to_text({
        (7, "3.12"): {"with_rocm": {"pip": "n/a", "uv": "n/a", "runtime": [], "reason": None}},
        (7, "3.13"): {"with_rocm": {"pip": "failed", "uv": "ok", "runtime": [],
                                    "reason": "no index has rocm-sdk-core"}},
        (10, "3.12"): {"with_rocm": {"pip": "failed", "runtime": [], "reason": None}},
        (7, "3.9"): {"tested": False}})   # in order: majors, then Pythons by minor (3.9 before 3.12)
    assert text.splitlines()[1:] == ["- ROCm 7, Python 3.9: not run",
                                     "- ROCm 7, Python 3.12: n/a (no reason recorded)",
                                     "- ROCm 7, Python 3.13: failed (no index has rocm-sdk-core)",
                                     "- ROCm 10, Python 3.12: failed"]


def test_a_passed_line_says_which_installers_resolved_it_and_the_runtime_they_picked():
    """What a person reads on GitHub for a passed cell: each installer tried and what it said, then
    TheRock's runtime wheels it resolved (none said when none were recorded)."""
    text = with_rocm_notes.to_text({
        (7, "3.12"): {"with_rocm": {"pip": "ok", "uv": "ok", "runtime": ["rocm-sdk-core==7.2.0", "rocm==7.2.0"],
                                    "reason": None}},
        (7, "3.13"): {"with_rocm": {"pip": "ok", "uv": "not tried", "runtime": [], "reason": "uv is not installed"}},
        (10, "3.12"): {"with_rocm": {"pip": "ok", "reason": None}}})
    assert text.splitlines()[1:] == [
        "- ROCm 7, Python 3.12: passed (pip ok, uv ok; rocm-sdk-core==7.2.0, rocm==7.2.0)",
        "- ROCm 7, Python 3.13: passed (pip ok, uv not tried)",
        "- ROCm 10, Python 3.12: passed (pip ok)"]


@pytest.mark.parametrize("reason", ["the extra names amd_x --> and <!-- more", "<!--", "-->", "a\n<!-- x -->\nb"])
def test_a_reason_can_neither_close_the_section_nor_open_a_record_in_it(reason):
    """A reason is upstream text (installers' words): written as one line in which no HTML comment
    opens or closes, so the section and every record after it in the notes read as written."""
    text = with_rocm_notes.to_text({(7, "3.12"): {"with_rocm": {"pip": "n/a", "runtime": [], "reason": reason}}})
    line = text.splitlines()[1]
    assert "<!--" not in text and "-->" not in text and len(text.splitlines()) == 2
    said = with_rocm_notes.read(text)[(7, "3.12")][1]
    assert said == " ".join(reason.split()).replace("<!--", "<! --").replace("-->", "- ->")
    assert line.endswith(f"({said})")
