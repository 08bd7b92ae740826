"""What a job's validate step tells people: every finding, whole, and the untested cells.

The step is called with a stand-in for ``release.check.validate.validate`` (its own tests hold
what it finds); here the rule is what the job does with the answer.
"""

from __future__ import annotations

import json
import types

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from release import cli
from release.check.validate import Validation
from release.commands._render import untested_note
from release.core.output import Output
from release.jobs import steps
from release.jobs.runner import JobOptions, JobRun, OptionsView
from release.jobs.shared import CheckFailed

FINDING = st.text(st.characters(min_codepoint=33, max_codepoint=126), min_size=1, max_size=300)


def job_run(tmp_path, said):
    root = tmp_path
    line = types.SimpleNamespace(version="0.9.1", rocm_majors=(7, 10), pythons=("3.13", "3.14"))
    return JobRun(types.SimpleNamespace(root=root, version_info=line), "0.9.1", tmp_path / "dist", store=None,
                  out=Output(), say=said.append)


def answer(monkeypatch, validation, seen=None):
    def fake(store, tag, **kwargs):
        if seen is not None:
            seen.update(kwargs)
        return validation
    monkeypatch.setattr("release.check.validate.validate", fake)


def view(**options):
    return OptionsView(JobOptions(**options), ("python", "public_index", "require_all_pythons"),
                       "validate")


@settings(max_examples=25, derandomize=True, deadline=None)
@given(problems=st.lists(FINDING, min_size=1, max_size=12))
def test_a_failed_validation_keeps_every_finding_whole(tmp_path_factory, problems):
    tmp = tmp_path_factory.mktemp("v")
    said: list[str] = []
    with pytest.MonkeyPatch.context() as mp:
        answer(mp, Validation("rocm-jax-v0.9.1", 1, problems=list(problems)))
        with pytest.raises(CheckFailed) as failed:
            steps.validate(job_run(tmp, said), view(), {})
    assert failed.value.findings == problems
    for problem in problems:
        assert problem in str(failed.value)
        assert f"  - {problem}" in said


def test_the_error_line_and_json_hold_every_finding(capsys):
    problems = [f"Python 3.{n}: pip would install jax-rocm7-plugin 0.12.0 from the public "
                f"index, not the draft's 0.9.1 ({'x' * 80})" for n in range(11, 15)]
    code = cli._fail("release nightly", str(CheckFailed("validation failed: " + "; ".join(problems),
                                                        findings=problems)), 1, True, problems)
    captured = capsys.readouterr()
    assert code == 1 and len(captured.err.splitlines()) == 1
    assert all(p in captured.err for p in problems) and len(captured.err) > 400
    assert json.loads(captured.out)["findings"] == problems


@pytest.mark.parametrize("untested", [[(10, "3.14")], [(7, "3.14"), (10, "3.14")], [(7, "3.13")]])
def test_untested_cells_are_said_and_end_the_jobs_last_line(tmp_path, monkeypatch, untested):
    """A two-major draft: each untested (major, Python) cell is named with its major, in the step's
    outputs and the job's last line; a cell of one major never stands for the other's."""
    reason = "no interpreter found (--python, python3.X on PATH, pyenv, uv)"
    every = [(m, py) for m in (7, 10) for py in ("3.13", "3.14")]
    validation = Validation("rocm-jax-v0.9.1", 1, cells={
        c: {"tested": c not in untested, "interpreter": None, **({"reason": reason} if c in untested else {})}
        for c in every}, warnings=["untested cells: ..."])
    answer(monkeypatch, validation)
    said: list[str] = []
    outputs = steps.validate(job_run(tmp_path, said), view(), {})
    assert outputs["untested_cells"] == [{"rocm_major": m, "python": py} for m, py in untested]
    assert outputs["untested_pythons"] == sorted({py for _, py in untested})
    assert "warning: untested cells: ..." in said
    result = {"steps": [{"step": "validate", "outputs": outputs}]}
    assert untested_note(result) == "; untested: " + "; ".join(f"ROCm {m}, Python {py}" for m, py in untested)
    tested = outputs | {"untested_cells": [], "untested_pythons": []}
    assert untested_note({"steps": [{"step": "validate", "outputs": tested}]}) == ""


def test_each_cells_with_rocm_resolution_is_kept_in_the_steps_record(tmp_path, monkeypatch):
    """Keyed by (major, Python), both majors' kept; a cell without one (untested) is left out."""
    ok = {"pip": "ok", "uv": "ok", "runtime": ["rocm==10.1.0"], "reason": None}
    failed = {"pip": "failed", "uv": "ok", "runtime": ["rocm==7.2.0"], "reason": None}
    validation = Validation("rocm-jax-v0.9.1", 1, cells={
        (10, "3.13"): {"tested": True, "with_rocm": ok}, (7, "3.13"): {"tested": True, "with_rocm": failed},
        (7, "3.14"): {"tested": False, "interpreter": None, "reason": "no interpreter"}})
    answer(monkeypatch, validation)
    outputs = steps.validate(job_run(tmp_path, []), view(), {})
    assert outputs["with_rocm"] == [{"rocm_major": 7, "python": "3.13", **failed},
                                    {"rocm_major": 10, "python": "3.13", **ok}]


def test_a_record_of_before_cells_is_read_as_the_lines_only_major():
    """A job record written before cells (``untested_pythons`` only) still reads: its Pythons are
    the line's only major's."""
    from release.core import cells
    old = {"validated": True, "untested_pythons": ["3.14"], "warnings": []}
    assert untested_note({"steps": [{"step": "validate", "outputs": old}]}) == "; untested: Python 3.14"
    assert cells.from_record(old, 7) == [(7, "3.14")]
    assert cells.from_record({"untested_cells": [{"rocm_major": 10, "python": "3.12"}],
                              "untested_pythons": ["3.12"]}, 7) == [(10, "3.12")]


@pytest.mark.parametrize("options, expected", [
    ({}, {"public_index": "from-env", "require_all_pythons": None}),
    ({"public_index": "none", "require_all_pythons": True},
     {"public_index": "none", "require_all_pythons": True}),
])
def test_validate_is_handed_the_jobs_options(tmp_path, monkeypatch, options, expected):
    from release.check.validate import FROM_ENV
    assert FROM_ENV == "from-env"  # the runner's default names validate's
    seen: dict = {}
    answer(monkeypatch, Validation("rocm-jax-v0.9.1", 1), seen)
    steps.validate(job_run(tmp_path, []), view(**options), {})
    assert {k: seen[k] for k in expected} == expected
    assert seen["line_majors"] == (7, 10)  # every major of the line must be in the draft


# ---------------------------------------------------------------- asset names from the store


class HostileStore:
    """A store whose draft and release list assets named by someone else (GitHub lets anyone
    with write access name an asset ``..%2Fx``; a local store's records are plain JSON)."""

    where = "hostile store"

    def __init__(self, names):
        self.names = names
        self.downloaded = []

    def our_drafts(self, tag):
        return [types.SimpleNamespace(id=1, tag=tag)]

    def list_assets(self, release):
        return [types.SimpleNamespace(name=n, digest=None, state="uploaded") for n in self.names]

    def download_asset(self, release, asset, dest, progress=None):
        self.downloaded.append(dest)
        dest.write_bytes(b"x")
        return dest


@pytest.mark.parametrize("bad", ["../evil.whl", "{outside}/evil.whl", ".hidden.whl", "a/b.whl",
                                 "evil\n.whl", "revisions.json/../x.whl"])
@pytest.mark.parametrize("step", ["collect", "respin"])
def test_an_asset_name_that_is_not_a_plain_file_name_is_never_joined_to_a_folder(tmp_path, bad, step):
    (tmp_path / "outside").mkdir()
    bad = bad.format(outside=tmp_path / "outside")
    store = HostileStore([bad, "revisions.json"])
    source = types.SimpleNamespace(id=2, tag="rocm-jax-v0.9.1")
    run = JobRun(types.SimpleNamespace(root=tmp_path), "0.9.1.post1" if step == "respin" else "0.9.1",
                 tmp_path / "dist", store=store, out=Output(), say=lambda _t: None, source=source)
    from release.core.errors import UserError
    with pytest.raises(UserError, match="refused"):
        getattr(steps, step)(run, OptionsView(JobOptions(), (), step), {})
    assert not store.downloaded or all(p.name == "revisions.json" for p in store.downloaded)
    assert not list((tmp_path / "outside").iterdir())


# ---------------------------------------------------------------- verify lists every error


def test_a_failed_verify_lists_every_error_in_the_line_and_to_people(tmp_path, monkeypatch):
    from release.jobs.shared import verify_dist
    errors = [types.SimpleNamespace(check=c, message=f"{c} {'y' * 150}") for c in
              ("runpath", "record", "pair", "version")]
    reports = [types.SimpleNamespace(wheel=tmp_path / "a.whl", ok=False, errors=errors[:2]),
               types.SimpleNamespace(wheel=tmp_path / "b.whl", ok=False, errors=errors[2:])]
    monkeypatch.setattr("release.check.verify.verify_wheels", lambda wheels, options: reports)
    said: list[str] = []
    with pytest.raises(CheckFailed) as failed:
        verify_dist(tmp_path, None, said.append, tmp_path)
    assert len(failed.value.findings) == 4
    for e, wheel in zip(errors, ("a.whl", "a.whl", "b.whl", "b.whl")):
        line = f"{wheel}: {e.check}: {e.message}"
        assert line in str(failed.value) and f"  - {line}" in said


# ---------------------------------------------------------------- verify runs after a rebuild


def test_wheels_built_again_are_verified_again_though_the_builds_inputs_did_not_change(tmp_path):
    """A recorded wheel that went missing is rebuilt (same inputs); verify must see the new one."""
    import dataclasses as dc

    from release.jobs import catalog
    from release.jobs.runner import JobDecl, run_declared

    wheel = tmp_path / "dist" / "0.9.1" / "w.whl"
    verified: list[bytes] = []

    def build(_run, _opts, _ctx):
        wheel.parent.mkdir(parents=True, exist_ok=True)
        wheel.write_bytes(b"built" + b"!" * len(verified))  # a rebuild differs in size
        return {"wheel": wheel}

    def verify(_run, _opts, ctx):
        verified.append(wheel.read_bytes())
        return {}

    job = JobDecl("t", (catalog.StepDecl("build", "b", build, fingerprint=lambda *a: "same"),
                        dc.replace(catalog.VERIFY, run=verify)))
    run = JobRun(types.SimpleNamespace(root=tmp_path), "0.9.1", tmp_path / "dist", store=None,
                 out=Output(), say=lambda _t: None)
    run_declared(job, run, JobOptions())
    run_declared(job, run, JobOptions())      # nothing changed: nothing runs
    assert verified == [b"built"]
    wheel.unlink()                            # the recorded wheel is gone: build runs again
    run_declared(job, run, JobOptions())
    assert verified == [b"built", b"built!"]
