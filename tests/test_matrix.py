"""The compatibility matrix is data generated from the releases: one cell per (ROCm major, Python)
a release carries a plugin wheel for, jax and jaxlib of its line, and each gate's outcome as its
notes and assets record it (never kept by hand). ``release index`` writes one ``matrix.json``
per channel (valid against ``release/schemas/site/matrix.json``) and the page shows the newest
release's cells."""

from __future__ import annotations

import dataclasses
import datetime as _dt
import json
from pathlib import Path

import jsonschema
import pytest
from hypothesis import given
from hypothesis import strategies as st

from release.core import locks, naming
from release.publish import matrix, notes
from release.publish.drafts import publish_draft, read_dist, undraft
from release.publish.index import build_site
from release.publish.stores import LocalStore
from tests.support.publish_dist import mark_validated

SCHEMA = json.loads((Path(matrix.__file__).parents[1] / "schemas" / "site" / "matrix.json").read_text())


def names(version: str, pythons: list[str], majors=(7,)) -> list[str]:
    out = []
    for major in majors:
        out.append(naming.pjrt_wheel(major, version))
        out += [naming.plugin_wheel(major, version, py) for py in pythons]
    return out + [naming.REVISIONS_ASSET, naming.CHECKSUMS_ASSET]


SMOKE_312 = "**ROCm smoke test** (0.9.1, Python 3.12): passed\n\n- `jax.devices()`: rocm:0"


@given(pythons=st.lists(st.sampled_from(["3.11", "3.12", "3.13", "3.14"]), min_size=1, max_size=4, unique=True),
       locked=st.sets(st.sampled_from(["3.11", "3.12", "3.13", "3.14"])), validated=st.booleans(),
       majors=st.lists(st.sampled_from([7, 10]), min_size=1, max_size=2, unique=True))
def test_a_cell_per_major_and_python_and_validate_passed_only_where_a_lock_is(pythons, locked, validated, majors):
    lock_names = [locks.lock_name(m, py) for m in majors for py in locked]
    assets = names("0.9.1.post2", pythons, majors) + lock_names
    got = matrix.cells("0.9.1.post2", list(reversed(assets)), validated=validated, smoke=None,
                       link=lambda n: f"https://x/{n}")
    assert [(c.rocm_major, c.python) for c in got] == sorted(
        ((m, py) for m in majors for py in pythons), key=lambda mp: (mp[0], int(mp[1].split(".")[1])))
    for c in got:
        assert (c.jax, c.jaxlib, c.plugin, c.pjrt) == ("0.9.1", "0.9.1", "0.9.1.post2", "0.9.1.post2")
        assert c.gate("verify") == ("passed" if validated else "unknown")
        expected = ("passed" if c.python in locked else "not run" if locked else "unknown") if validated else "unknown"
        assert c.gate("validate") == expected
        assert c.lock == (f"https://x/{locks.lock_name(c.rocm_major, c.python)}" if c.python in locked else None)
        assert c.gate("smoke") == "not run"


@pytest.mark.parametrize("section, expected", [
    (SMOKE_312, {"3.12": "passed", "3.13": "not run"}),
    (SMOKE_312.replace("passed", "FAILED"), {"3.12": "failed", "3.13": "not run"}),
    ("**ROCm smoke test** (0.9.1, Python 3.13): not run\n\n- warning: jax 0.9.1 is not public",
     {"3.12": "not run", "3.13": "not run"}),
    (None, {"3.12": "not run", "3.13": "not run"})])
def test_smoke_counts_for_the_python_it_ran_on_only(section, expected):
    got = matrix.cells("0.9.1", names("0.9.1", ["3.12", "3.13"]), validated=True, smoke=section)
    assert {c.python: c.gate("smoke") for c in got} == expected


@pytest.mark.parametrize("failed", [None, (7, "3.12"), (10, "3.12"), (10, "3.13")])
def test_the_smoke_verdict_of_each_cell_counts_for_that_cell_only(failed):
    """The gate over a two-major, two-Python release, as ``release smoke`` writes it (a head line
    for the whole gate, then one a cell): each cell's verdict lands on its own (major, Python), so a
    ROCm 10 failure never reads as ROCm 7's, nor a 3.13 one as 3.12's."""
    from release.check.smoke import Smoke, Verdict
    every = [(m, py) for m in (7, 10) for py in ("3.12", "3.13")]
    verdict = Verdict([Smoke(py, devices=["rocm:0"], rocm_devices=["rocm:0"], jit_matches=True,
                             problems=["broken"] if (m, py) == failed else [], rocm_major=m) for m, py in every])
    section = verdict.markdown("0.9.1")
    got = matrix.cells("0.9.1", names("0.9.1", ["3.12", "3.13"], majors=(7, 10)), validated=True, smoke=section)
    assert {(c.rocm_major, c.python): c.gate("smoke") for c in got} == {
        cell: "failed" if cell == failed else "passed" for cell in every}
    assert notes.Notes(smoke=section).smoke_verdict == ("FAILED" if failed else "passed")


def test_a_plugin_without_its_majors_pjrt_has_no_cell():
    assets = [naming.plugin_wheel(10, "0.9.1", "3.12"), *names("0.9.1", ["3.12"])]
    got = matrix.cells("0.9.1", assets, validated=True, smoke=None)
    assert [(c.rocm_major, c.python) for c in got] == [(7, "3.12")]


def test_the_site_carries_each_channels_matrix_from_the_releases(make_dist, tmp_path):
    from tests.support.publish_dist import PYTHON
    store = LocalStore(tmp_path / "store")
    for version in ("0.9.1.dev20261120", "0.9.1"):
        dist = read_dist(make_dist(version, rocm_version="7.2.0"))
        publish_draft(store, dist)
        draft = store.drafts_for(dist.tag)[0]
        if version == "0.9.1":  # validate's lock, and the smoke gate's verdict on this Python
            lock = tmp_path / locks.lock_name(7, PYTHON)
            lock.write_text('lock-version = "1.0"\n', encoding="utf-8")
            store.upload_asset(draft, lock, lock.name)
            smoke = f"**ROCm smoke test** (0.9.1, Python {PYTHON}): passed"
            store.update_release(draft, body=notes.changed(draft, smoke=smoke))
        mark_validated(store, dist.tag)
        undraft(store, dist.tag)
    out = tmp_path / "site"
    build_site(store, out, site_url="https://example.invalid/site")
    stable = json.loads((out / "stable" / matrix.FILE).read_text())
    nightly = json.loads((out / "nightly" / matrix.FILE).read_text())
    for doc in (stable, nightly):
        jsonschema.Draft202012Validator(SCHEMA).validate(doc)
    assert [r["version"] for r in stable["releases"]] == ["0.9.1"]
    assert [r["version"] for r in nightly["releases"]] == ["0.9.1.dev20261120"]
    [cell] = stable["releases"][0]["cells"]
    assert cell | {"lock": None} == {
        "python": PYTHON, "rocm_major": 7, "rocm": "7.2.0", "jax": "0.9.1", "jaxlib": "0.9.1", "plugin": "0.9.1",
        "pjrt": "0.9.1", "plugin_file": naming.plugin_wheel(7, "0.9.1", PYTHON),
        "pjrt_file": naming.pjrt_wheel(7, "0.9.1"), "lock": None, "with_rocm_reason": None,
        "gates": {"verify": "passed", "validate": "passed", "smoke": "passed", "with_rocm": "unknown"}}
    assert nightly["releases"][0]["cells"][0]["gates"] == {"verify": "passed", "validate": "unknown",
                                                            "smoke": "not run", "with_rocm": "unknown"}
    page = (out / "index.html").read_text()
    assert 'id="compatibility"' in page and 'href="stable/matrix.json"' in page
    assert "<td>7.2.0</td><td>0.9.1</td><td>0.9.1</td>" in page


def test_a_matrix_that_breaks_its_schema_is_caught():
    good = matrix.document("stable", [])
    jsonschema.Draft202012Validator(SCHEMA).validate(good)
    cell = matrix.cells("0.9.1", names("0.9.1", ["3.12"]), validated=True, smoke=None)[0].to_json()
    for bad in (good | {"schema": "jax-rocm-release/matrix/9"}, good | {"extra": 1},
                dict(good, releases=[{"tag": "t", "version": "v", "published": None, "yanked": False,
                                      "cells": [cell | {"gates": {"verify": "maybe", "validate": "passed",
                                                                   "smoke": "passed"}}]}])):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.Draft202012Validator(SCHEMA).validate(bad)


@given(pythons=st.lists(st.sampled_from(["3.11", "3.12", "3.13", "3.14"]), min_size=1, max_size=4, unique=True),
       majors=st.lists(st.sampled_from([7, 10]), min_size=1, max_size=2, unique=True),
       suffixes=st.lists(st.sampled_from([".jsonl", ".metadata", ".provenance", ".sig"]), min_size=1, unique=True))
def test_a_releases_other_assets_make_no_cell_even_named_after_a_wheel(pythons, majors, suffixes):
    """Cells come from the wheels alone: a bundle (``<wheel>.jsonl``), a PEP 658 metadata file or
    any other asset named after a wheel adds none and changes none (issue 36: the index parsed
    each of them as a wheel name, a third of its name parsing)."""
    wheels = names("0.9.1.post2", pythons, majors)
    others = [w + s for w in wheels if w.endswith(".whl") for s in suffixes]
    assert matrix.cells("0.9.1.post2", others + wheels, validated=True, smoke=None) == \
        matrix.cells("0.9.1.post2", wheels, validated=True, smoke=None)
    assert matrix.cells("0.9.1.post2", others, validated=True, smoke=None) == []


def test_a_rerun_keeps_each_statements_rocm_version_not_the_statement(make_dist, tmp_path, monkeypatch):
    """The matrix's ROCm version comes from each release's provenance statement, read once per
    statement sha256: the site's state keeps the answer, not the statement (kept whole, a
    season's statements were most of the state every run parses and writes), and a re-run reads
    no statement again and writes the same matrix (issue 36)."""
    store = LocalStore(tmp_path / "store")
    for version, rocm in (("0.9.1", "7.2.0"), ("0.9.2", None)):
        dist = read_dist(make_dist(version, rocm_version=rocm))
        publish_draft(store, dist)
        mark_validated(store, dist.tag)
        undraft(store, dist.tag)
    out = tmp_path / "site"
    build_site(store, out)
    first = (out / "stable" / matrix.FILE).read_bytes()
    state = json.loads((out / ".index-state.json").read_text())
    assert [c["rocm"] for r in json.loads(first)["releases"] for c in r["cells"]] == [None, "7.2.0"]
    assert sorted(v["rocm_version"] or "" for v in state["revisions"].values() if isinstance(v, dict)) == ["", "7.2.0"]
    assert not [v for v in state["revisions"].values() if isinstance(v, str) and "predicate" in v]

    read = store.read_asset_range
    def no_statement(release, asset, start, length):
        assert asset.name != naming.PROVENANCE_ASSET, f"{release.tag}'s statement read again"
        return read(release, asset, start, length)
    monkeypatch.setattr(store, "read_asset_range", no_statement)
    (out / "stable" / matrix.FILE).unlink()  # the run writes it again, byte for byte
    build_site(store, out)
    assert (out / "stable" / matrix.FILE).read_bytes() == first


@given(own=st.sampled_from(["0.9.1", "0.9.1rc1", "0.9.1.post2"]),
       other=st.sampled_from(["0.9.2", "0.9.1rc2", "0.9.1.post1", "0.9.1.dev20261121"]),
       majors=st.lists(st.sampled_from([7, 10]), min_size=1, max_size=2, unique=True),
       pythons=st.lists(st.sampled_from(["3.11", "3.12", "3.13"]), min_size=1, max_size=3, unique=True))
def test_a_cell_is_made_of_the_releases_own_version_only(own, other, majors, pythons):
    """Wheels of another version held by a release (``rocm-jax-v0.9.1`` with 0.9.2 wheels) make no
    cell, not even with the release's own pjrt: its cells are those of its own wheels, whatever
    else it holds, and ``strays`` names the others."""
    stray = [n for n in names(other, pythons, majors) if n.endswith(".whl")]
    mixed = matrix.cells(own, [*stray, *names(own, ["3.12"])], validated=True, smoke=None)
    assert mixed == matrix.cells(own, names(own, ["3.12"]), validated=True, smoke=None)
    assert {(c.plugin, c.pjrt) for c in mixed} == {(own, own)}
    assert matrix.cells(own, [*stray, naming.pjrt_wheel(7, own)], validated=True, smoke=None) == []
    assert matrix.strays(own, [*stray, *names(own, ["3.12"])]) == sorted(stray)
    assert matrix.strays(own, names(own, pythons, majors)) == []


def test_the_page_warns_of_a_releases_wheels_of_another_version():
    from release.publish.page import compatibility
    from release.publish.site import ReleaseRow, SiteData
    cells = tuple(matrix.cells("0.9.1", names("0.9.1", ["3.12"]), validated=True, smoke=None))
    stray = naming.plugin_wheel(7, "0.9.2", "3.12")
    row = ReleaseRow("rocm-jax-v0.9.1", "0.9.1", "release", "stable", None, None, True, (), None, None, None, (),
                     cells=cells, strays=(stray,))
    data = SiteData(project="jax-rocm7-plugin", site_url=None, keep=14, releases=(row,), drafts=())
    assert f"wheels of another version, in no cell above: {stray}" in compatibility(data)
    clean = dataclasses.replace(data, releases=(dataclasses.replace(row, strays=()),))
    assert "another version" not in compatibility(clean)


def test_the_site_reads_a_releases_strays_from_its_assets(make_dist, tmp_path):
    """Publishing refuses such a set; a listing that holds one anyway (a wheel added by hand where
    the host lets it) has it named on the row and counted in no cell."""
    import types

    from release.publish.site import gather
    store = LocalStore(tmp_path / "store")
    dist = read_dist(make_dist("0.9.1", rocm_version="7.2.0"))
    publish_draft(store, dist)
    mark_validated(store, dist.tag)
    undraft(store, dist.tag)
    stray = naming.plugin_wheel(7, "0.9.2", "3.12")

    def listing(rel):
        return [*store.list_assets(rel), types.SimpleNamespace(name=stray, url=None, digest=None, size=1)]
    [row] = gather(store, store.list_releases(), [], site_url=None, keep=14, list_assets=listing).releases
    assert row.strays == (stray,)
    assert {c.plugin for c in row.cells} == {"0.9.1"}


@dataclasses.dataclass(frozen=True)
class _Row:
    tag: str
    version: str
    channel: str
    published: object
    listed: bool
    yanked: str | None
    cells: tuple


_TEXT = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=6)  # quotes, é, 🙂
_CELLS = st.builds(matrix.Cell, python=st.sampled_from(["3.11", "3.14"]), rocm_major=st.integers(6, 8),
                   rocm=st.none() | st.just("7.1.0"), jax=_TEXT, jaxlib=st.just("0.9.1"), plugin=_TEXT,
                   pjrt=st.just("0.9.1"), plugin_file=_TEXT, pjrt_file=st.just("p.whl"),
                   lock=st.none() | _TEXT, gates=st.just((("verify", "passed"), ("smoke", "not run"))),
                   with_rocm_reason=st.none() | _TEXT)
_ROWS = st.builds(_Row, tag=_TEXT, version=_TEXT, channel=st.sampled_from(["nightly", "stable"]),
                  published=st.none() | st.datetimes(timezones=st.just(_dt.timezone.utc)), listed=st.booleans(),
                  yanked=st.none() | _TEXT, cells=st.lists(_CELLS, max_size=3).map(tuple))


@given(st.lists(_ROWS, max_size=6), st.lists(st.booleans(), min_size=6, max_size=6), _TEXT)
def test_a_matrix_file_is_its_document_as_the_site_writes_json_whichever_file_came_first(rows, in_line, line):
    """Each release's entry is encoded once for a site channel's matrix.json and its line's: both
    files are exactly write_json of their documents (the line's with its "line"), in either order."""
    from release.publish.staging import write_json
    mine = [r for r, keep in zip(rows, in_line) if keep]
    for line_first in (False, True):
        encoder = matrix.Encoder()
        for channel in ("nightly", "stable") if not line_first else ("stable", "nightly"):
            files = [(rows, None), (mine, line)]
            for given_rows, given_line in files[::-1] if line_first else files:
                expected = matrix.document(channel, given_rows)
                if given_line is not None:
                    expected = {**expected, "line": given_line}
                assert encoder.file(channel, given_rows, given_line) == write_json(expected)


@pytest.mark.parametrize("written", ["0.9.1.post2", "0.9.1-post2", "0.9.1.POST2", "v0.9.1.post2", "00.9.1.post2"])
def test_a_releases_cells_are_its_version_however_its_tag_writes_it(written):
    """PEP 440 reads the release's version and each wheel's alike: a tag's other spelling of the
    same version has the same cells, and the same wheels are no strays."""
    assets = names("0.9.1.post2", ["3.12"])
    got = matrix.cells(written, assets, validated=False, smoke=None)
    assert [(c.python, c.plugin, c.jax) for c in got] == [("3.12", "0.9.1.post2", "0.9.1")]
    assert matrix.strays(written, assets) == []


@given(rocm=st.none() | st.sampled_from(["7.2.1", "8.0"]), lock=st.none() | st.just("https://x/pylock.rocm7-py312.toml"),
       why=st.none() | st.just("no wheel for ROCm 7 on PyPI"))
def test_a_cell_made_by_the_matrix_is_the_cell_its_fields_make(rocm, lock, why):
    """The matrix makes its cells without the frozen __init__ (``Cell.made``): each is the cell of
    the same fields, equal, hashed, shown and encoded alike, and as frozen; a field added to Cell
    must be added there too."""
    values = {"python": "3.12", "rocm_major": 7, "rocm": rocm, "jax": "0.9.1", "jaxlib": "0.9.2", "plugin": "0.9.3",
              "pjrt": "0.9.4", "plugin_file": "p.whl", "pjrt_file": "j.whl", "lock": lock,
              "gates": (("verify", "passed"), ("validate", "passed")), "with_rocm_reason": why}
    assert set(values) == {f.name for f in dataclasses.fields(matrix.Cell)} and "__post_init__" not in vars(matrix.Cell)
    made, model = matrix.Cell.made(**values), matrix.Cell(**values)
    assert (made, hash(made), repr(made), vars(made), made.to_json()) == (
        model, hash(model), repr(model), vars(model), model.to_json())
    if why is None:  # the default left out: the same
        del values["with_rocm_reason"]
        assert vars(matrix.Cell.made(**values)) == vars(model)
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.python = "3.13"  # type: ignore[misc]
