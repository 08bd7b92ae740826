"""The (ROCm major, Python) cell: which cells a set of wheel files holds (a plugin per cell, its
major's PJRT beside it or not), in one order (majors, then Pythons by minor: 3.9 before 3.10),
what a line's cells a set lacks, and the untested cells of a validate record of either age."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from release.core import cells, naming

V = "0.11.1"


def _wheels(majors, pythons, *, pjrt=None):
    pjrt = majors if pjrt is None else pjrt
    return ([naming.pjrt_wheel(m, V) for m in pjrt]
            + [naming.plugin_wheel(m, V, py) for m in majors for py in pythons])


@pytest.mark.parametrize("majors", [(7,), (10,), (7, 10), (10, 7)])
@pytest.mark.parametrize("pythons", [("3.12",), ("3.10", "3.9"), ("3.14", "3.12", "3.13")])
def test_every_plugin_is_its_own_cell_with_its_majors_pjrt(majors, pythons):
    held = cells.of_wheels(reversed(_wheels(majors, pythons)))
    order = sorted(((m, py) for m in majors for py in pythons), key=lambda c: (c[0], int(c[1].split(".")[1])))
    assert list(held) == order
    for (major, py), (plugin, pjrt) in held.items():
        assert plugin == naming.plugin_wheel(major, V, py) and pjrt == naming.pjrt_wheel(major, V)


def test_a_plugin_whose_major_has_no_pjrt_is_a_cell_without_one():
    held = cells.of_wheels(_wheels((7, 10), ("3.12",), pjrt=(7,)))
    assert held[(7, "3.12")][1] == naming.pjrt_wheel(7, V) and held[(10, "3.12")][1] is None


def test_other_files_are_no_cells_and_hide_none():
    others = ["SHA256SUMS", "revisions.json", "jax-0.11.1-py3-none-any.whl", "pylock.rocm7-py312.toml",
              "jax_rocm7_plugin-notaversion-cp312-cp312-manylinux_2_28_x86_64.whl"]
    assert cells.of_wheels([*others, naming.pjrt_wheel(7, V)]) == {}
    assert list(cells.of_wheels([*others, *_wheels((7,), ("3.12",)), *others])) == [(7, "3.12")]


@pytest.mark.parametrize("held, lacking", [
    ([], [(7, "3.9"), (7, "3.10"), (10, "3.9"), (10, "3.10")]),
    ([(7, "3.12"), (10, "3.12")], [(7, "3.13"), (10, "3.13")]),
    ([(10, "3.13"), (7, "3.12"), (7, "3.13")], [(10, "3.12")]),
    ([(m, p) for m in (7, 10) for p in ("3.12", "3.13")], []),
    ([], [(7, "3.12"), (7, "3.13"), (10, "3.12"), (10, "3.13")])])
def test_the_cells_a_set_lacks_are_named_in_order(held, lacking):
    pythons = ("3.10", "3.9") if lacking and lacking[0][1] == "3.9" else ("3.13", "3.12")
    named = [(m, p) for m in (10, 7) for p in pythons]
    assert cells.missing(named, held) == lacking


def test_a_cell_is_said_with_its_major_and_its_python():
    assert cells.label((10, "3.12")) == "ROCm 10, Python 3.12"
    assert cells.to_json((7, "3.9")) == {"rocm_major": 7, "python": "3.9"}
    assert sorted([(10, "3.9"), (7, "3.10"), (7, "3.9")], key=cells.sort_key) == [(7, "3.9"), (7, "3.10"), (10, "3.9")]


@pytest.mark.parametrize("record, only, expected", [
    ({"untested_cells": [{"rocm_major": 10, "python": "3.13"}, {"rocm_major": 7, "python": "3.13"}]}, 7,
     [(7, "3.13"), (10, "3.13")]),
    ({"untested_cells": [{"rocm_major": 7, "python": "3.10"}, {"rocm_major": 7, "python": "3.9"}]}, None,
     [(7, "3.9"), (7, "3.10")]),
    ({"untested_cells": [{"rocm_major": 0, "python": "3.12"}, {"rocm_major": 1, "python": "3.12"},
                         {"rocm_major": True, "python": "3.12"}]}, None, [(1, "3.12")]),  # majors from 1
    ({"untested_cells": [], "untested_pythons": ["3.13"]}, 7, []),  # cells say it: none untested
    ({"untested_pythons": ["3.14", "3.9"]}, 10, [(10, "3.9"), (10, "3.14")]),  # before cells: the only major
    ({"untested_pythons": ["3.14"]}, None, []),
    ({}, 7, [])])
def test_a_records_untested_cells_old_or_new(record, only, expected):
    assert cells.from_record(record, only) == expected


JSONISH = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=6),
                       lambda inner: (st.lists(inner, max_size=4)
                                      | st.dictionaries(st.text(max_size=12), inner, max_size=4)),
                       max_leaves=12)


CELLISH = st.fixed_dictionaries({"rocm_major": JSONISH | st.integers(-2, 12), "python": JSONISH | st.sampled_from(
    ["3.12", "3.9", "3", "3.", "3.x", "", "4.1", " 3.12"])})


@given(record=st.dictionaries(st.sampled_from(["untested_cells", "untested_pythons", "other"]),
                              JSONISH | st.lists(CELLISH | JSONISH | st.sampled_from(["3.12", "3", "x.y"]), max_size=4),
                              max_size=3),
       only=st.none() | st.sampled_from([7, 10]))
def test_any_record_reads_as_well_formed_cells_or_none(record, only):
    """A record edited by hand or cut short never raises: what is not a cell is left out."""
    got = cells.from_record(record, only)
    assert all(type(m) is int and m > 0 and py.startswith("3.") and py[2:].isdigit() for m, py in got)
