"""validate over every (ROCm major, Python) cell of a draft: a line building ROCm 7 and ROCm 10
ships two pairs, and a user of either installs only that major's, so each cell is installed on
its own (pip and uv, fresh venvs), its result keyed by the cell, its lock named by it; a draft
missing a cell its line builds fails. Real pip and uv, stand-in wheels, a local public index."""

from __future__ import annotations

import tomllib

import pytest

from release.check import with_rocm_path
from release.check.validate import Validation, step_check_files, validate
from release.core import naming
from release.publish.drafts import publish_draft, read_dist
from release.publish.stores import LocalStore
from tests.support.installs import jax_stand_ins, needs_uv
from tests.support.publish_dist import PYTHON
from tests.support.sdk_wheels import runtime_wheels

RELEASE = "0.9.1"
OTHER = "3.12" if PYTHON != "3.12" else "3.11"


pytestmark = needs_uv()


def test_every_cell_of_a_two_major_draft_is_installed_keyed_and_locked(make_dist, local_index, tmp_path,
                                                                       monkeypatch):
    """ROCm 7 and ROCm 10, each for two Pythons (one has no interpreter here): both majors' cells
    of this Python install with pip and uv, each keyed (major, Python), each with its own lock
    naming its own major's plugin; jax's extra is used where the public jax offers it (rocm7-local
    here) and said where it does not; the Python without an interpreter leaves both majors' cells
    untested."""
    runtime = [w for v in ("7.2.0", "10.1.0") for w in runtime_wheels(tmp_path / "rocm", v)]
    public = local_index(jax_stand_ins(tmp_path / "public", RELEASE, local=(7,)) + runtime, metadata=True)
    store = LocalStore(tmp_path / "store")
    extras = {7: ("rocm[libraries]==7.2.0",), 10: ("rocm[libraries]>=10",)}
    publish_draft(store, read_dist(make_dist(RELEASE, majors=(7, 10), pythons=(PYTHON, OTHER), with_rocm=extras)))
    nowhere = tmp_path / "empty-path"
    nowhere.mkdir()
    monkeypatch.setenv("PYENV_ROOT", str(nowhere))
    said: list[str] = []
    resolved: list[tuple[int, str]] = []
    real_resolution = with_rocm_path.check_cell

    def one_real_resolution(interpreter, major, version, plugin, *args, **kwargs):
        """ROCm 7's cell resolved for real (validate's indexes reach it); ROCm 10's answered."""
        resolved.append((major, plugin.name))
        if major == 7:
            return real_resolution(interpreter, major, version, plugin, *args, **kwargs)
        return with_rocm_path.Record({"pip": "ok", "uv": "ok"}, ["rocm-sdk-core==10.1.0"])
    monkeypatch.setattr(with_rocm_path, "check_cell", one_real_resolution)
    result = validate(store, naming.release_tag(RELEASE), public_index=public.url, search_path=str(nowhere),
                      say=said.append, line_majors=(7, 10), line_pythons=tuple(sorted((PYTHON, OTHER))))
    assert result.ok, result.problems
    assert set(result.cells) == {(m, py) for m in (7, 10) for py in (PYTHON, OTHER)}
    for major in (7, 10):
        assert result.cells[(major, PYTHON)]["tested"] is True
        assert result.cells[(major, PYTHON)]["as_users"] == {"pip": "ok", "uv": "ok"}
        assert result.cells[(major, OTHER)]["tested"] is False
    assert result.untested_cells == sorted([(7, OTHER), (10, OTHER)])
    # the with-rocm path (jax[rocmN] -> the plugin's extra -> TheRock's runtime wheels) is resolved
    # for each major's cell with its own plugin and kept in that cell; ROCm 7's, resolved for real
    # from validate's indexes, takes its own major's runtime from metadata alone
    assert sorted(resolved) == [(m, naming.plugin_wheel(m, RELEASE, PYTHON)) for m in (7, 10)]
    assert result.cells[(7, PYTHON)]["with_rocm"] == {
        "pip": "ok", "uv": "ok", "reason": None,
        "runtime": ["rocm==7.2.0", "rocm-sdk-core==7.2.0", "rocm-sdk-libraries==7.2.0"]}
    assert result.cells[(10, PYTHON)]["with_rocm"] == {"pip": "ok", "uv": "ok", "reason": None,
                                                       "runtime": ["rocm-sdk-core==10.1.0"]}
    assert not any("with_rocm" in result.cells[(major, OTHER)] for major in (7, 10))
    assert not any(p.endswith(".whl") and p.startswith("/files/rocm") for p in public.log)
    assert result.cells[(7, PYTHON)]["jax_extra"] == "rocm7-local"
    assert result.cells[(10, PYTHON)]["jax_extra"] is None
    assert any("has no [rocm10-local] extra" in line for line in said)
    # one lock per cell, each naming its own major's pair: ROCm 10 never overwrites ROCm 7
    assert sorted(result.locks) == sorted(f"pylock.rocm{m}-py{PYTHON.replace('.', '')}.toml" for m in (7, 10))
    release = store.our_drafts(naming.release_tag(RELEASE))[0]
    for major in (7, 10):
        lock_name = f"pylock.rocm{major}-py{PYTHON.replace('.', '')}.toml"
        asset = next(a for a in store.list_assets(release) if a.name == lock_name)
        lock = tomllib.loads(store.download_asset(release, asset, tmp_path / asset.name).read_text())
        names = {p["name"] for p in lock["packages"]}
        assert {naming.plugin_dist(major), naming.pjrt_dist(major), "jax", "jaxlib"} <= names
        assert not any(n.startswith("jax-rocm") and f"rocm{major}-" not in n for n in names)
    # the mark carries how each cell's with-rocm line went, so status and the page read it per cell
    from release.jobs.status_cells import release_cells
    marked = store.our_drafts(naming.release_tag(RELEASE))[0]
    shown = {(c["rocm_major"], c["python"]): c["with_rocm"]
             for c in release_cells(store, marked, [])["cells"]}
    assert shown == {(7, PYTHON): "passed", (10, PYTHON): "passed", (7, OTHER): "not run", (10, OTHER): "not run"}
    data = result.to_json()
    assert [(c["rocm_major"], c["python"], c["tested"]) for c in data["cells"]] == [
        (m, py, py == PYTHON) for m in (7, 10) for py in sorted((PYTHON, OTHER), key=lambda p: int(p[2:]))]
    assert data["untested_cells"] == [{"rocm_major": m, "python": OTHER} for m in (7, 10)]


def _names(majors, pythons, version=RELEASE):
    return ([naming.pjrt_wheel(m, version) for m in majors]
            + [naming.plugin_wheel(m, version, py) for m in majors for py in pythons])


@pytest.mark.parametrize("missing", [(7, "3.12"), (10, "3.12"), (10, "3.13")])
def test_a_draft_missing_a_cell_its_line_builds_fails_naming_it(tmp_path, missing):
    """The line builds ROCm 7 and 10 for 3.12 and 3.13; whichever cell the draft lacks is named
    with its major and Python (a problem, never a skipped cell)."""
    names = [n for n in _names((7, 10), ("3.12", "3.13"))
             if n != naming.plugin_wheel(missing[0], RELEASE, missing[1])]
    result = Validation("t", None)
    step_check_files({n: tmp_path / n for n in names}, RELEASE, result, (7, 10), ("3.12", "3.13"))
    cell = [p for p in result.problems if "wheel for Python" in p]
    assert len(cell) == 1 and cell[0].startswith(f"no {naming.plugin_dist(missing[0])} wheel for Python "
                                                 f"{missing[1]}"), result.problems


def test_a_draft_missing_a_python_of_the_line_in_every_major_fails(tmp_path):
    """Both majors lack 3.13, which the line builds: each major's missing cell is named."""
    result = Validation("t", None)
    step_check_files({n: tmp_path / n for n in _names((7, 10), ("3.12",))}, RELEASE, result, (7, 10),
                     ("3.12", "3.13"))
    assert sorted(p.split(":")[0] for p in result.problems if "wheel for Python" in p) == [
        "no jax-rocm10-plugin wheel for Python 3.13", "no jax-rocm7-plugin wheel for Python 3.13"]


def test_a_draft_missing_a_major_its_line_builds_fails(tmp_path):
    result = Validation("t", None)
    step_check_files({n: tmp_path / n for n in _names((7,), ("3.12",))}, RELEASE, result, (7, 10), ("3.12",))
    assert any(p.startswith("no jax-rocm10-pjrt wheel: the line builds ROCm 7, ROCm 10") for p in result.problems), \
        result.problems


@pytest.mark.parametrize("beaten", [7, 10])
def test_a_broken_cell_of_one_major_fails_named_by_its_major_only(make_dist, local_index, tmp_path, beaten):
    """The public index holds a build of the line for one major only (its own 0.9.1 beats the
    nightly): that major's cell fails, named with its major, and the other major's cell passes."""
    nightly = "0.9.1.dev20261122"
    winner = make_dist(RELEASE, majors=(beaten,))
    public = local_index(sorted(winner.glob("*.whl")))
    store = LocalStore(tmp_path / "store")
    publish_draft(store, read_dist(make_dist(nightly, majors=(7, 10))))
    result = validate(store, naming.release_tag(nightly), public_index=public.url, mark=False)
    other = 10 if beaten == 7 else 7
    assert not result.ok
    assert {p.split(":")[0] for p in result.problems if "pip would install" in p} == {f"ROCm {beaten}, Python {PYTHON}"}
    assert result.cells[(beaten, PYTHON)]["tested"] is False
    assert not any(p.startswith(f"ROCm {other},") for p in result.problems), result.problems
    assert result.cells[(other, PYTHON)]["tested"] is True
