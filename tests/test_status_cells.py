"""``release status``'s cells (``release.jobs.status_cells``), at unit level: which releases are
shown (the newest published of each kind, then this tool's newest draft), and for each the line's
cells and its own, each gate read from the release as the page's matrix reads it."""

from __future__ import annotations

import datetime as dt
import types

import pytest
from hypothesis import given
from hypothesis import strategies as st

from release.core import locks, naming
from release.jobs.status_cells import cells_view, release_cells, shown_releases
from release.publish import notes
from release.publish.records import Release

T0 = dt.datetime(2026, 11, 1, tzinfo=dt.timezone.utc)
DIGEST = "a" * 64


def rel(version: str, rid: int, *, draft: bool = False, ours: bool = True, created: int | None = 0,
        validated: bool = False, smoke: str | None = None, tag: str | None = None) -> Release:
    body = notes.write(notes.Notes(text="x", ours=ours, validated=DIGEST if validated else None, smoke=smoke))
    return Release(id=rid, tag=tag or naming.release_tag(version), name=version, body=body, draft=draft,
                   prerelease=False, created_at=None if created is None else T0 + dt.timedelta(days=created),
                   published_at=None)


class Store:
    """What status reads of a store here: each release's asset names."""

    def __init__(self, assets: dict[str, list[str]]):
        self.assets = assets

    def list_assets(self, release):
        return [types.SimpleNamespace(name=n) for n in self.assets.get(release.tag, [])]


def wheels(version: str, cells: list[tuple[int, str]], *, locked=()) -> list[str]:
    out = sorted({naming.pjrt_wheel(m, version) for m, _ in cells})
    out += [naming.plugin_wheel(m, version, py) for m, py in cells]
    return out + [locks.lock_name(m, py) for m, py in locked]


def test_the_newest_of_each_kind_then_the_newest_draft_of_ours():
    releases = [rel("0.9.1rc1", 1), rel("0.9.1rc2", 2), rel("0.9.0", 3), rel("0.9.1", 4),
                rel("0.9.1.dev20261120", 5), rel("0.9.1.dev20261121", 6),
                rel("0.9.2rc1", 7, draft=True, created=3), rel("0.9.2rc2", 8, draft=True, created=1),
                rel("0.9.2rc3", 9, draft=True, created=9, ours=False)]       # not ours: never shown
    for order in (releases, releases[::-1]):
        shown = [r.tag for r in shown_releases(order)]
        assert shown == [naming.release_tag(v) for v in (
            "0.9.1.dev20261121", "0.9.1rc2", "0.9.1", "0.9.2rc1")]


@pytest.mark.parametrize("drafts, newest", [
    ([(10, 1), (11, 2)], 11),          # the later created
    ([(11, 2), (10, 1)], 11),
    ([(10, None), (11, 0)], 11),       # a time beats none
    ([(11, 0), (10, None)], 11),
    ([(10, 1), (12, 1)], 12),          # same time: the higher id
    ([(12, None), (10, None)], 12),
])
def test_the_newest_draft_is_the_last_created_then_the_highest_id(drafts, newest):
    releases = [rel(f"0.9.2rc{rid}", rid, draft=True, created=created) for rid, created in drafts]
    assert [r.id for r in shown_releases(releases)] == [newest]


def test_no_release_shows_nothing():
    assert shown_releases([]) == []
    assert cells_view(Store({}), [], [(7, "3.12")]) == []


def test_each_cell_of_the_line_and_of_the_release_with_its_gates():
    smoke = "**ROCm smoke test** (0.9.1, ROCm 7, Python 3.12): passed\n"
    release = rel("0.9.1", 1, validated=True, smoke=smoke)
    store = Store({release.tag: wheels("0.9.1", [(7, "3.12"), (7, "3.11"), (10, "3.12")],
                                       locked=[(7, "3.12"), (7, "3.11"), (10, "3.12")])})
    line = [(10, "3.13"), (7, "3.12"), (10, "3.12")]       # 3.11 built, the line no longer builds it; 10/3.13 not built
    got = release_cells(store, release, line)
    assert (got["tag"], got["draft"]) == ("rocm-jax-v0.9.1", False)
    assert [(c["rocm_major"], c["python"]) for c in got["cells"]] == [(7, "3.11"), (7, "3.12"), (10, "3.12"),
                                                                      (10, "3.13")]
    by = {(c["rocm_major"], c["python"]): c for c in got["cells"]}
    assert by[(7, "3.12")] == {"rocm_major": 7, "python": "3.12", "built": True, "verify": "passed",
                               "validate": "passed", "smoke": "passed", "with_rocm": "unknown",
                               "with_rocm_reason": None, "published": True}
    assert by[(7, "3.11")]["smoke"] == "not run" and by[(7, "3.11")]["built"]
    assert by[(10, "3.13")] == {"rocm_major": 10, "python": "3.13", "built": False, "verify": "not built",
                                "validate": "not built", "smoke": "not built", "with_rocm": "not built",
                                "with_rocm_reason": None, "published": False}


def test_a_draft_is_built_but_not_published_and_unvalidated_gates_are_unknown():
    release = rel("0.9.2rc1", 1, draft=True)
    store = Store({release.tag: wheels("0.9.2rc1", [(7, "3.12")])})
    got = release_cells(store, release, [(7, "3.12")])
    assert got["draft"] is True
    assert got["cells"] == [{"rocm_major": 7, "python": "3.12", "built": True, "verify": "unknown",
                             "validate": "unknown", "smoke": "not run", "with_rocm": "unknown",
                             "with_rocm_reason": None, "published": False}]


def test_the_view_is_a_row_per_shown_release_in_their_order():
    releases = [rel("0.9.0", 1), rel("0.9.1rc1", 2), rel("0.9.2rc1", 3, draft=True)]
    store = Store({r.tag: wheels(r.name, [(7, "3.12")]) for r in releases})
    view = cells_view(store, releases, [(7, "3.12")])
    assert [(row["tag"], row["draft"], row["cells"][0]["published"]) for row in view] == [
        ("rocm-jax-v0.9.1rc1", False, True), ("rocm-jax-v0.9.0", False, True), ("rocm-jax-v0.9.2rc1", True, False)]


def test_cells_go_by_major_then_python_minor_not_by_text():
    release = rel("0.9.1", 1)
    store = Store({release.tag: wheels("0.9.1", [(10, "3.9"), (7, "3.10")])})
    got = release_cells(store, release, [(10, "3.10"), (7, "3.9")])
    assert [(c["rocm_major"], c["python"]) for c in got["cells"]] == [(7, "3.9"), (7, "3.10"), (10, "3.9"),
                                                                      (10, "3.10")]


def test_a_draft_of_ours_under_another_tag_is_shown_with_its_wheels():
    """A draft this tool made keeps its mark if somebody renames its tag; status still reads it."""
    draft = rel("0.9.2rc1", 1, draft=True, tag="renamed-by-hand")
    store = Store({draft.tag: wheels("0.9.2rc1", [(7, "3.12")])})
    assert cells_view(store, [draft], [(7, "3.12")]) == [{"tag": "renamed-by-hand", "draft": True, "cells": [
        {"rocm_major": 7, "python": "3.12", "built": True, "verify": "unknown", "validate": "unknown",
         "smoke": "not run", "with_rocm": "unknown", "with_rocm_reason": None, "published": False}],
        "strays": []}]


@given(own=st.sampled_from(["0.9.1", "0.9.1rc1", "0.9.1.post2", "0.9.1.dev20261120"]),
       other=st.sampled_from(["0.9.2", "0.9.1rc2", "0.9.1.post1", "0.9.1.dev20261121", "0.9.0"]),
       stray_cells=st.lists(st.tuples(st.sampled_from([7, 10]), st.sampled_from(["3.11", "3.12", "3.13"])),
                            min_size=1, max_size=4, unique=True),
       draft=st.booleans())
def test_only_wheels_of_the_releases_own_version_make_a_cell_and_the_others_are_named(own, other, stray_cells, draft):
    """``rocm-jax-v0.9.1`` holding 0.9.2 wheels: those wheels build no cell of 0.9.1 (a cell only
    of them reads not built), and the row names each of them, so status warns instead of counting."""
    release = rel(own, 1, validated=True, draft=draft)
    mine = [(7, "3.12")]
    stray = wheels(other, stray_cells)
    store = Store({release.tag: [*stray, *wheels(own, mine)]})
    got = release_cells(store, release, [*mine, *stray_cells])
    built = {(c["rocm_major"], c["python"]) for c in got["cells"] if c["built"]}
    assert built == set(mine)
    assert got["strays"] == sorted(stray)
    assert cells_view(store, [release], mine)[0]["strays"] == sorted(stray)


def test_a_renamed_draft_is_read_by_its_plugins_version_and_other_versions_are_strays():
    draft = rel("0.9.2rc1", 1, draft=True, tag="renamed-by-hand")
    stray = wheels("0.9.1", [(7, "3.12")])
    store = Store({draft.tag: [*wheels("0.9.2rc1", [(7, "3.12"), (7, "3.13")]), *stray]})
    got = release_cells(store, draft, [(7, "3.12")])
    assert [(c["python"], c["built"]) for c in got["cells"]] == [("3.12", True), ("3.13", True)]
    assert got["strays"] == sorted(stray)


def test_a_tag_naming_no_valid_version_still_reads():
    draft = rel("0.9.2rc1", 1, draft=True, tag=naming.TAG_PREFIX + "not-a-version")
    store = Store({draft.tag: wheels("0.9.2rc1", [(7, "3.12")])})
    assert [c["built"] for c in release_cells(store, draft, [])["cells"]] == [True]


@pytest.mark.parametrize("cells", [[], [{"rocm_major": 7, "python": "3.12", "built": True, "verify": "passed",
                                         "validate": "passed", "smoke": "not run", "published": True}]])
def test_status_for_people_warns_of_each_releases_strays_in_one_line(cells):
    import io

    from rich.console import Console

    from release.commands._cells_view import print_cells
    stray = naming.plugin_wheel(7, "0.9.2", "3.12")
    out = io.StringIO()
    print_cells(Console(file=out, width=400), [{"tag": "rocm-jax-v0.9.1", "draft": False, "cells": cells,
                                                "strays": [stray]},
                                               {"tag": "rocm-jax-v0.9.0", "draft": False, "cells": [], "strays": []}])
    warned = [line for line in out.getvalue().splitlines() if line.startswith("warning:")]
    assert warned == [f"warning: rocm-jax-v0.9.1 holds wheels of another version, in none of its cells: {stray}"]


@pytest.mark.parametrize("validate, said", [("unknown", True), ("passed", False), ("not run", False)])
def test_status_says_why_a_validated_cells_validate_is_unknown(validate, said):
    """A release validated without a public index (``release try``'s) keeps no lock: its cells say
    validate unknown, and status says once why, under the table, rather than leave a bare unknown."""
    import io

    from rich.console import Console

    from release.commands._cells_view import print_cells
    cell = {"rocm_major": 7, "python": "3.12", "built": True, "verify": "passed", "validate": validate,
            "smoke": "not run", "published": True}
    unvalidated = dict(cell, verify="unknown", validate="unknown")  # not validated at all: nothing to explain
    out = io.StringIO()
    print_cells(Console(file=out, width=400), [{"tag": "rocm-jax-v0.9.1", "draft": False, "cells": [cell, cell]},
                                               {"tag": "rocm-jax-v0.9.0", "draft": False, "cells": [unvalidated]}])
    why = [line for line in out.getvalue().splitlines() if line.startswith("validate unknown:")]
    assert len(why) == said and all("public index" in line and "release try" in line for line in why), why
