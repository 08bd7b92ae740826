"""``release verify`` as a job (``release.jobs.verify``), at unit level over small zips named as
wheels (the checks themselves are ``test_verify.py``'s, over real built wheels): how many errors
a run has and what it says of them (JSON, ``$GITHUB_OUTPUT``, the step summary), which options
reach the checks, the progress it reports, and the provenance file checked against the wheels."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from release.build import provenance
from release.check.verify import ERROR, NOTE, WARNING, Finding, Report
from release.core.errors import UserError
from release.jobs.verify import VerifyOptions, VerifyResult, check_provenance, run_verify
from tests.support.crafted import revision_map, rocm_version
from tests.support.progress import Bar
from tests.support.project import copy_config

PJRT = "jax_rocm7_pjrt-{v}-py3-none-manylinux_2_28_x86_64.whl"
PLUGIN = "jax_rocm7_plugin-{v}-cp312-cp312-manylinux_2_28_x86_64.whl"


COMMIT = "c" * 40   # this repository's commit the wheels were built at


def sources(version: str, commit: str | None = COMMIT):
    """The revision map of wheels of ``version`` built at ``commit``."""
    pins = revision_map(version)
    return type(pins).from_json({**pins.to_json(), "release_commit": commit})


def wheel(where: Path, pattern: str, version: str, *, body: str = "x", revisions: bool = True) -> Path:
    """A zip named as a wheel of ``version``: a member of ``body`` and, unless not asked for,
    the revision map of ``version`` where the wheels carry it."""
    path = where / pattern.format(v=version)
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("jax_plugins/xla_rocm7/data.txt", body)
        if revisions:
            zf.writestr("jax_plugins/xla_rocm7/commit_info.py", sources(version).commit_info_py())
    return path


def line_root(tmp_path: Path) -> Path:
    """A directory naming a line (deps.yaml and version_info.json)."""
    (tmp_path / "line").mkdir()
    return copy_config(tmp_path / "line")


def report(name: str, *severities: str) -> Report:
    return Report(Path(name), [Finding("zip", s, f"finding {i}") for i, s in enumerate(severities)], {})


def result(reports, provenance=None, note=None, runpath=("$ORIGIN",)) -> VerifyResult:
    return VerifyResult(list(reports), runpath, note, provenance)


PROBLEMS = {"file": "p.json", "ok": False, "problems": ["one", "two"]}


@pytest.mark.parametrize("reports, prov, errors", [
    ([], None, 0),
    ([report("a.whl")], None, 0),
    ([report("a.whl", WARNING, NOTE)], None, 0),                          # warnings and notes are no errors
    ([report("a.whl", ERROR, WARNING), report("b.whl", ERROR, ERROR)], None, 3),   # summed over the wheels
    ([report("a.whl")], PROBLEMS, 2),                                      # each provenance problem is one
    ([report("a.whl", ERROR)], PROBLEMS, 3),
    ([report("a.whl")], {"file": "p.json", "ok": True, "problems": []}, 0),
])
def test_the_errors_are_the_wheels_errors_and_the_provenance_problems(reports, prov, errors):
    got = result(reports, prov)
    assert got.errors == errors
    assert got.to_json()["errors"] == errors
    assert got.to_json()["ok"] is (errors == 0)
    assert got.outputs() == {"verify-ok": "true" if errors == 0 else "false", "verify-errors": str(errors)}


def test_the_json_says_every_wheel_and_the_runpath_and_only_what_was_asked():
    plain = result([report("a.whl", ERROR), report("b.whl")], runpath=("$ORIGIN", "$ORIGIN/../lib")).to_json()
    assert plain == {"ok": False, "errors": 1, "runpath": ["$ORIGIN", "$ORIGIN/../lib"],
                     "wheels": [report("a.whl", ERROR).to_json(), report("b.whl").to_json()]}
    full = result([report("a.whl")], PROBLEMS, note="why none").to_json()
    assert (full["runpath_note"], full["provenance"]) == ("why none", PROBLEMS)


def test_the_summary_is_the_table_then_the_provenance_verdict():
    from release.check.verify import summary_markdown
    reports = [report("a.whl", ERROR), report("b.whl")]
    table = summary_markdown(reports)
    assert result(reports).summary() == "## release verify\n\n" + table
    assert result(reports, {"file": "p.json", "ok": True, "problems": []}).summary() == (
        "## release verify\n\n" + table + "\n\n**p.json**: ok")
    assert result(reports, PROBLEMS).summary() == (
        "## release verify\n\n" + table + "\n\n**p.json**: FAILED\n\n- one\n- two")


def test_each_wheel_is_read_in_order_and_its_bytes_reported(tmp_path):
    wheels = (wheel(tmp_path, PLUGIN, "0.9.1", body="a" * 300), wheel(tmp_path, PJRT, "0.9.1", body="b" * 50))
    bar = Bar()
    got = run_verify(VerifyOptions(wheels, runpath=()), bar)
    assert bar.described == [f"verifying {w.name}" for w in wheels]
    sizes = sum(i.file_size for w in wheels for i in zipfile.ZipFile(w).infolist())
    assert bar.advanced == sizes
    assert [r.wheel for r in got.reports] == list(wheels)
    assert got.errors > 0 and got.provenance is None       # no dist-info: errors, and no provenance asked


@pytest.mark.parametrize("given, precomputed, runpath, note", [
    (("$ORIGIN", "$ORIGIN/../rocm"), None, ("$ORIGIN", "$ORIGIN/../rocm"), None),   # --runpath, twice
    ((), None, (), None),                                         # --runpath '' given: nothing required
    (("$ORIGIN",), (("$ORIGIN/x",), "said before"), ("$ORIGIN/x",), "said before"),  # what the command said
])
def test_the_required_runpath_is_the_flags_unless_the_command_already_said_it(
        tmp_path, given, precomputed, runpath, note):
    got = run_verify(VerifyOptions((wheel(tmp_path, PJRT, "0.9.1"),), runpath=given), Bar(), precomputed)
    assert (got.runpath, got.runpath_note) == (runpath, note)
    assert got.to_json()["runpath"] == list(runpath)


def test_a_rocm_version_without_a_runtime_list_is_refused_before_any_wheel_is_read(tmp_path):
    bar = Bar()
    with pytest.raises(UserError, match="ROCm 6.9.9 has no soname list"):
        run_verify(VerifyOptions((wheel(tmp_path, PJRT, "0.9.1"),), rocm_version="6.9.9", runpath=()), bar)
    assert bar.described == [] and bar.advanced == 0


def test_without_runpath_flags_the_lines_layout_says_which_entries_are_required(tmp_path):
    from release.build.bazel import configured_runpath
    from release.check.runpath import JAX_TREE_RUNPATH
    from release.jobs.verify import required_runpath
    from tests.test_line_build import jax_tree_line
    jax_tree = jax_tree_line(tmp_path / "jax")
    assert required_runpath(VerifyOptions((), root=jax_tree)) == (JAX_TREE_RUNPATH, None)
    assert required_runpath(VerifyOptions(())) == (tuple(configured_runpath()), None)   # the rocm_build config's
    got = run_verify(VerifyOptions((wheel(tmp_path, PJRT, "0.9.1"),), root=jax_tree), Bar())
    assert got.runpath == JAX_TREE_RUNPATH


def test_the_rocm_version_is_looked_up_in_the_lines_own_runtime_list(tmp_path):
    """A line may list a ROCm release the shipped soname list does not (here 10.0.0)."""
    from tests.test_line_build import jax_tree_line
    line = jax_tree_line(tmp_path / "jax")
    wheels = (wheel(tmp_path, PJRT, "0.9.1"),)
    assert run_verify(VerifyOptions(wheels, rocm_version="10.0.0", runpath=(), root=line), Bar()).reports
    with pytest.raises(UserError, match="ROCm 10.0.0 has no soname list"):
        run_verify(VerifyOptions(wheels, rocm_version="10.0.0", runpath=()), Bar())


def test_the_options_reach_the_checks(tmp_path, monkeypatch):
    import release.check.verify as checks
    seen = []
    real = checks.verify_wheels
    monkeypatch.setattr(checks, "verify_wheels", lambda paths, options, **kw: seen.append(options) or real(
        paths, options, **kw))
    root = line_root(tmp_path)
    revisions = tmp_path / "revisions.json"
    revisions.write_text(sources("0.9.1").dumps())
    wheels = (wheel(tmp_path, PJRT, "0.9.1"),)
    run_verify(VerifyOptions(wheels, revisions=revisions, rocm_version=rocm_version(), runpath=("$ORIGIN",),
                             root=root), Bar())
    run_verify(VerifyOptions(wheels, deps=root / "deps.yaml", runpath=()), Bar())
    line, loose = seen
    assert line.runpath == ("$ORIGIN",) and loose.runpath == ()
    assert line.revisions == sources("0.9.1")
    assert loose.revisions == sources("", None)              # deps.yaml's pins, no commit of this repository
    assert (line.rocm_version, line.rocm_root) == (rocm_version(), root)
    assert (loose.rocm_version, loose.rocm_root) == (None, None)
    # a line's wheels must carry an SBOM naming its own ROCm releases; wheels from elsewhere need not
    from release.core.config import load_project
    assert (line.sbom_required, line.line_rocms) == (True, load_project(root).version_info.rocms)
    assert (loose.sbom_required, loose.line_rocms) == (False, ())


def test_a_root_that_names_no_line_requires_no_sbom(tmp_path):
    bare = tmp_path / "nothing"
    bare.mkdir()
    got = run_verify(VerifyOptions((wheel(tmp_path, PJRT, "0.9.1"),), runpath=(), root=bare), Bar())
    assert not any(f.check == "sbom" for f in got.reports[0].findings)
    line = line_root(tmp_path)
    got = run_verify(VerifyOptions((wheel(tmp_path, PJRT, "0.9.1"),), runpath=(), root=line), Bar())
    assert any(f.check == "sbom" and f.severity == ERROR for f in got.reports[0].findings)


def dist(tmp_path, versions, *, revisions: bool = True, covered: str = "0.9.1"):
    """Wheels of ``versions`` and a provenance file for the ``covered`` version's wheels."""
    wheels = tuple(wheel(tmp_path, pattern, v, revisions=revisions)
                   for v, pattern in zip(versions, (PJRT, PLUGIN)))
    covering = tmp_path / "covered"
    covering.mkdir()
    names = []
    for w in wheels:
        (covering / w.name).write_bytes(w.read_bytes())
        names.append(w.name)
    return wheels, provenance.write_for_files(covering, names, sources(covered))


def test_a_provenance_covering_exactly_the_wheels_is_ok_and_counts_no_error(tmp_path):
    wheels, prov = dist(tmp_path, ["0.9.1", "0.9.1"])
    got = run_verify(VerifyOptions(wheels, provenance=prov, runpath=()), Bar())
    assert got.provenance == {"file": str(prov), "ok": True, "problems": []}
    assert got.errors == sum(len(r.errors) for r in got.reports)


def test_the_provenance_is_checked_against_the_one_version_the_wheels_share(tmp_path):
    wheels, prov = dist(tmp_path, ["0.9.2", "0.9.2"], covered="0.9.1")
    problems = check_provenance(VerifyOptions(wheels, provenance=prov), None)["problems"]
    assert any("externalParameters.version is '0.9.1', the wheels are 0.9.2" in p for p in problems)


def test_wheels_of_two_versions_leave_the_provenance_version_unchecked(tmp_path):
    wheels, prov = dist(tmp_path, ["0.9.1", "0.9.2"], covered="0.9.3")   # neither's
    got = check_provenance(VerifyOptions(wheels, provenance=prov), None)
    assert not any("externalParameters.version" in p for p in got["problems"])


def test_a_wheel_the_provenance_does_not_cover_is_a_problem_naming_the_file(tmp_path):
    wheels, prov = dist(tmp_path, ["0.9.1", "0.9.1"])
    extra = wheel(tmp_path / "covered", PLUGIN.replace("cp312", "cp313"), "0.9.1")
    got = check_provenance(VerifyOptions((*wheels, extra), provenance=prov), None)
    assert got["file"] == str(prov) and got["ok"] is False
    assert any(extra.name in p for p in got["problems"])


def test_the_revisions_are_exact_unless_they_are_deps_pins(tmp_path):
    """--revisions: the provenance's dependencies must be exactly revisions.json's; --deps' pins
    name no commit of this repository, so the provenance may name one besides them."""
    wheels, prov = dist(tmp_path, ["0.9.1", "0.9.1"])
    same = check_provenance(VerifyOptions(wheels, provenance=prov, revisions=tmp_path / "r.json"), sources("0.9.1"))
    assert same["ok"], same["problems"]
    pins = sources("0.9.1", None)
    as_revisions = check_provenance(VerifyOptions(wheels, provenance=prov, revisions=tmp_path / "r.json"), pins)
    as_pins = check_provenance(VerifyOptions(wheels, provenance=prov, deps=tmp_path / "deps.yaml"), pins)
    assert as_revisions["problems"] == [
        f"{provenance.FILE}: dependency jax-rocm-release is not in revisions.json"]
    assert as_pins["ok"], as_pins["problems"]


def test_the_run_checks_the_provenance_against_the_revisions_file_it_was_given(tmp_path):
    wheels, prov = dist(tmp_path, ["0.9.1", "0.9.1"])
    pins = tmp_path / "revisions.json"
    pins.write_text(sources("0.9.1", None).dumps())
    got = run_verify(VerifyOptions(wheels, revisions=pins, provenance=prov, runpath=()), Bar())
    assert got.provenance is not None and got.provenance["problems"] == [
        f"{provenance.FILE}: dependency jax-rocm-release is not in revisions.json"]


def test_checking_a_provenance_needs_one(tmp_path):
    with pytest.raises(ValueError, match="^no provenance file to check$"):
        check_provenance(VerifyOptions((wheel(tmp_path, PJRT, "0.9.1"),)), None)
