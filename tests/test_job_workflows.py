"""The job functions the commands call (``release.jobs.workflows``), at unit level: the jobs of
``catalog.JOBS`` are replaced by small declared ones whose plan step sets what a scenario
decided and whose steps note that they ran, so each rule of what a run does and says is
stated over the decision alone: which job a stage runs, when a nightly builds, what the
``--json`` data, the ``$GITHUB_OUTPUT`` keys and the summary hold. The real plan steps and
steps are ``test_job_catalog.py``'s, ``test_jobs.py``'s and the flows'."""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import io
import threading
import types
from pathlib import Path

import pytest

from release.core.errors import UserError
from release.core.output import Output
from release.jobs import catalog
from release.jobs.runner import JobDecl, JobOptions, JobRequest, PlanDecl, StepDecl
from release.jobs.workflows import run_cut, run_nightly

NOW = dt.datetime(2026, 11, 22, 3, 4, 5, 678901, tzinfo=dt.timezone.utc)
NIGHTLY = "0.9.1.dev20261122"
STORE = object()   # what the fake plan hands the steps as the store


def plan_of(version: str, tag: str, assets=("a.whl", "b.whl")):
    """A build plan as far as the job functions read one."""
    return types.SimpleNamespace(version=version, tag=tag, assets=list(assets),
                                 to_json=lambda: {"version": version, "tag": tag, "assets": list(assets)})


SEEN: list[tuple[str, object, object]] = []   # (plan step or step, the request or run, the option it read)


def fake_job(name: str, decided: dict, steps=("first", "second"), records=True, lock="nightly") -> JobDecl:
    """Job ``name``: its one plan step decides ``decided``; each step notes the job it ran in;
    each notes in ``SEEN`` what it was handed (``--public-index`` the plan's, ``--push`` a step's)."""
    def plan(request, opts, planned):
        SEEN.append(("plan", request, opts.public_index))
        return dataclasses.replace(planned, **decided)

    def step(step_name):
        def run(job_run, opts, _ctx):
            SEEN.append((step_name, job_run, opts.push))
            return {"job": name, "step": step_name}
        return run
    return JobDecl(name, tuple(StepDecl(s, s, step(s), takes=("push",)) for s in steps), lock=lock,
                   plan=(PlanDecl("decide", "decide", plan, takes=("public_index",)),), records=records)


@pytest.fixture
def jobs(monkeypatch):
    """Declare the fake job ``name`` in ``catalog.JOBS`` (for this test only)."""
    SEEN.clear()
    def declare(name, decided, **kw):
        monkeypatch.setitem(catalog.JOBS, name, fake_job(name, decided, **kw))
    return declare


def request(tmp_path: Path, *, dry: bool = False, **kw) -> tuple[JobRequest, io.StringIO]:
    stream = io.StringIO()
    req = JobRequest(types.SimpleNamespace(root=tmp_path), Output(stream=stream), tmp_path / "dist",
                     open_store=None if dry else (lambda: STORE), now=kw.pop("now", NOW), **kw)
    return req, stream


def nightly_decided(changed=True, reason="building: xla moved", **kw) -> dict:
    return {"store": STORE, "version": NIGHTLY, "plan": plan_of(NIGHTLY, f"rocm-jax-v{NIGHTLY}"),
            "changed": changed, "reason": reason, "last": "rocm-jax-v0.9.1.dev20261121", **kw}


def jobs_run(data) -> list[str]:
    return [s["outputs"]["job"] for s in data["steps"]]


# ---------------------------------------------------------------- nightly


@pytest.mark.parametrize("stage, job", [(None, "nightly"), ("plan", "nightly-plan"), ("finish", "nightly-finish")])
def test_a_nightly_stage_runs_its_own_job(tmp_path, jobs, stage, job):
    for name in ("nightly", "nightly-plan", "nightly-finish"):
        jobs(name, nightly_decided(), records=name != "nightly-plan")
    req, _ = request(tmp_path, stage=stage)
    got = run_nightly(req, JobOptions())
    if stage == "plan":
        assert got.data["stage"] == "plan" and got.data["changed"] is True
        assert not (tmp_path / "dist").exists()          # a plan stage records nothing
    else:
        assert jobs_run(got.data) == [job, job]


@pytest.mark.parametrize("date, now, keys", [
    (None, NOW, {"date": "2026-11-22", "now": "2026-11-22T03:04:05Z"}),
    (dt.date(2026, 11, 21), NOW, {"date": "2026-11-21", "now": "2026-11-22T03:04:05Z"}),   # --date wins
    (None, dt.datetime(2026, 12, 31, 23, 59, 59, tzinfo=dt.timezone(dt.timedelta(hours=-5))),
     {"date": "2026-12-31", "now": "2026-12-31T23:59:59-05:00"}),     # not UTC: said as it is
])
@pytest.mark.parametrize("stage", [None, "plan", "finish", "dry"])
def test_every_nightly_run_hands_on_the_plans_date_clock_version_and_tag(tmp_path, jobs, stage, date, now, keys):
    for name in ("nightly", "nightly-plan", "nightly-finish"):
        jobs(name, nightly_decided(), records=name != "nightly-plan")
    req, _ = request(tmp_path, dry=stage == "dry", stage=None if stage == "dry" else stage, date=date, now=now)
    got = run_nightly(req, JobOptions())
    assert got.outputs | keys == got.outputs       # the plan's clock: a re-run on a later day builds the same
    assert (got.outputs["version"], got.outputs["tag"]) == (NIGHTLY, f"rocm-jax-v{NIGHTLY}")
    assert got.plan is not None and got.plan.version == NIGHTLY


def test_a_dry_run_runs_no_step_and_says_the_plan(tmp_path, jobs):
    check = {"warnings": ["0.9.2 on the index"]}
    jobs("nightly", nightly_decided(public_check=check))
    req, stream = request(tmp_path, dry=True)
    got = run_nightly(req, JobOptions())
    assert got.data == {"version": NIGHTLY, "tag": f"rocm-jax-v{NIGHTLY}", "assets": ["a.whl", "b.whl"],
                        "public_index": check}
    assert set(got.outputs) == {"date", "now", "version", "tag"}
    assert got.summary == f"### nightly {NIGHTLY} (dry run)\n\n`rocm-jax-v{NIGHTLY}`: `a.whl`, `b.whl`"
    assert stream.getvalue() == "" and not (tmp_path / "dist").exists()


@pytest.mark.parametrize("stage", [None, "plan"])
def test_a_night_without_a_change_builds_nothing_and_says_why_once(tmp_path, jobs, stage):
    jobs("nightly", nightly_decided(changed=False, reason="nothing moved since rocm-jax-v0.9.1.dev20261121"))
    jobs("nightly-plan", nightly_decided(changed=False, reason="nothing moved since rocm-jax-v0.9.1.dev20261121"),
         records=False)
    req, stream = request(tmp_path, stage=stage)
    got = run_nightly(req, JobOptions())
    assert stream.getvalue() == "nothing moved since rocm-jax-v0.9.1.dev20261121\n"
    assert got.outputs["changed"] == "false"
    assert got.data.get("steps", []) == [] and got.data.get("built", False) is False
    assert got.data["changed" if stage else "built"] is False
    assert got.summary == f"### nightly {NIGHTLY}\n\nnothing moved since rocm-jax-v0.9.1.dev20261121"


def test_a_night_that_builds_runs_its_steps_and_says_why_once_it_holds_the_lock(tmp_path, jobs):
    jobs("nightly", nightly_decided())
    req, stream = request(tmp_path)
    got = run_nightly(req, JobOptions())
    assert stream.getvalue().splitlines()[0] == "building: xla moved"
    assert stream.getvalue().count("building: xla moved") == 1
    assert got.outputs["changed"] == "true"
    assert got.data == {"version": NIGHTLY, "tag": f"rocm-jax-v{NIGHTLY}", "built": True,
                        "reason": "building: xla moved", "last_nightly": "rocm-jax-v0.9.1.dev20261121",
                        "steps": got.data["steps"]}
    assert [s["step"] for s in got.data["steps"]] == ["first", "second"]
    assert got.summary == f"### nightly {NIGHTLY}\n\nbuilding: xla moved"


def test_a_nightly_plan_stage_that_builds_opens_its_draft_and_says_so(tmp_path, jobs):
    ran = []
    jobs("nightly-plan", nightly_decided(), records=False, lock=None)
    decl = catalog.JOBS["nightly-plan"]
    catalog.JOBS["nightly-plan"] = dataclasses.replace(decl, steps=(StepDecl(
        "open-draft", "open", lambda *_a: ran.append("draft") or {}),))
    req, stream = request(tmp_path, stage="plan")
    got = run_nightly(req, JobOptions())
    assert ran == ["draft"] and stream.getvalue() == "building: xla moved\n"
    assert got.data == {"stage": "plan", "changed": True, "reason": "building: xla moved",
                        "date": "2026-11-22", "now": "2026-11-22T03:04:05Z", "version": NIGHTLY,
                        "tag": f"rocm-jax-v{NIGHTLY}"}
    assert got.outputs["changed"] == "true"


def test_a_nightly_finish_publishes_what_its_plan_stage_built(tmp_path, jobs):
    jobs("nightly-finish", nightly_decided(changed=None, reason=""))   # the finish decides no change
    req, stream = request(tmp_path, stage="finish")
    got = run_nightly(req, JobOptions())
    assert got.data == {"version": NIGHTLY, "tag": f"rocm-jax-v{NIGHTLY}", "stage": "finish",
                        "steps": got.data["steps"]}
    assert jobs_run(got.data) == ["nightly-finish", "nightly-finish"]
    assert got.outputs["published"] == "true" and "changed" not in got.outputs
    assert got.summary == f"### nightly {NIGHTLY}\n\npublished"


@contextlib.contextmanager
def held_a_while(root: Path, name: str, seconds: float = 5.0):
    """The job's lock held, and let go after ``seconds`` even while the test still waits: a run
    that ignored its lock timeout then takes the lock and fails the test instead of hanging it."""
    from release.jobs.pipeline import job_lock
    held, gate, let_go = job_lock(root, name), threading.Lock(), []

    def release() -> None:
        with gate:
            if not let_go:
                let_go.append(True)
                held.__exit__(None, None, None)

    held.__enter__()
    timer = threading.Timer(seconds, release)
    timer.start()
    try:
        yield
    finally:
        timer.cancel()
        release()


@pytest.mark.parametrize("stage", [None, "finish"])
def test_a_nightly_waits_for_its_lock_as_long_as_asked(tmp_path, jobs, stage):
    for name in ("nightly", "nightly-finish"):
        jobs(name, nightly_decided())
    req, _ = request(tmp_path, stage=stage, lock_timeout=0.05)
    with held_a_while(tmp_path, "nightly"):
        with pytest.raises(UserError, match=r"after waiting 0.05 s"):
            run_nightly(req, JobOptions())


@pytest.mark.parametrize("decided, now", [({"plan": None}, NOW), ({}, None)])
def test_a_nightly_is_planned_before_it_runs(tmp_path, jobs, decided, now):
    jobs("nightly", nightly_decided(**decided))
    req, _ = request(tmp_path, now=now)
    with pytest.raises(ValueError, match="^a nightly's plan stage plans it$"):
        run_nightly(req, JobOptions())


@pytest.mark.parametrize("stage", [None, "plan", "finish"])
@pytest.mark.parametrize("kind", ["nightly", "rc", "post"])
def test_the_plan_and_the_steps_get_the_request_and_the_options_the_command_built(tmp_path, jobs, stage, kind):
    for name in ("nightly", "nightly-plan", "nightly-finish", "cut", "cut-plan", "cut-finish", "post"):
        jobs(name, nightly_decided() if name.startswith("nightly") else cut_decided(), records=False, lock=None)
    req, _ = request(tmp_path, stage=stage, kind=kind)
    (run_nightly if kind == "nightly" else run_cut)(req, JobOptions(public_index="none", push=True))
    [(_, planned_with, index), *steps] = SEEN
    assert planned_with is req and index == "none"
    assert [(name, opt) for name, _, opt in steps] == [("first", True), ("second", True)]
    assert all(run.store is STORE and run.dist_root == (tmp_path / "dist").resolve() for _, run, _ in steps)


# ---------------------------------------------------------------- cut


def cut_decided(version="0.9.1rc2", **kw) -> dict:
    return {"store": STORE, "version": version, "kind": "rc", "number": 2, "commit": "c" * 40,
            "plan": plan_of(version, f"rocm-jax-v{version}"), **kw}


@pytest.mark.parametrize("kind, stage, job", [
    ("rc", None, "cut"), ("rc", "plan", "cut-plan"), ("release", "finish", "cut-finish"),
    ("post", None, "post"), ("post", "plan", "post"),       # a post re-spin has no split run
])
def test_a_cut_runs_the_job_of_its_kind_and_stage(tmp_path, jobs, kind, stage, job):
    for name in ("cut", "cut-plan", "cut-finish", "post"):
        jobs(name, cut_decided(), records=name != "cut-plan", lock="cut")
    req, _ = request(tmp_path, kind=kind, stage=stage)
    got = run_cut(req, JobOptions())
    if job == "cut-plan":
        assert got.data["stage"] == "plan" and "steps" not in got.data
    else:
        assert jobs_run(got.data) == [job, job]


def test_a_whole_cut_says_its_version_kind_steps_and_where_the_line_moved(tmp_path, jobs):
    jobs("cut", cut_decided("0.9.1", kind=None), lock="cut")
    catalog.JOBS["cut"] = dataclasses.replace(catalog.JOBS["cut"], steps=(
        StepDecl("tag", "tag", lambda *_a: {"tag": "rocm-jax-v0.9.1"}),
        StepDecl("next-version", "move on", lambda *_a: {"next_version": "0.9.2", "pr": 7}),
        StepDecl("pypi", "upload", lambda *_a: {"uploaded": 0})))       # the line moves on before PyPI
    req, _ = request(tmp_path, kind="release")
    got = run_cut(req, JobOptions())
    assert got.data == {"version": "0.9.1", "tag": "rocm-jax-v0.9.1", "kind": "release",   # the version's kind
                        "steps": got.data["steps"], "next": {"next_version": "0.9.2", "pr": 7}}
    assert got.outputs == {"version": "0.9.1", "tag": "rocm-jax-v0.9.1", "next-version": "0.9.2"}
    assert got.summary == "### cut 0.9.1\n\ntag:ran next-version:ran pypi:ran"
    again = run_cut(req, JobOptions())                         # a re-run skips what is recorded
    assert again.summary == "### cut 0.9.1\n\ntag:skipped next-version:skipped pypi:skipped"
    assert again.outputs["next-version"] == "0.9.2"


def test_a_cut_that_does_not_move_the_line_says_no_next_version(tmp_path, jobs):
    jobs("cut", cut_decided(), lock="cut")
    req, _ = request(tmp_path, kind="rc", number=2)
    got = run_cut(req, JobOptions())
    assert got.data["kind"] == "rc" and "next" not in got.data and "from" not in got.data
    assert got.outputs == {"version": "0.9.1rc2", "tag": "rocm-jax-v0.9.1rc2", "next-version": ""}
    assert got.plan is not None and got.plan.version == "0.9.1rc2"


def test_a_post_says_which_release_it_re_spun(tmp_path, jobs):
    source = types.SimpleNamespace(tag="rocm-jax-v0.9.1")
    jobs("post", cut_decided("0.9.1.post1", kind="post", source=source), lock="cut")
    req, _ = request(tmp_path, kind="post", number=1)
    got = run_cut(req, JobOptions())
    assert (got.data["from"], got.data["kind"], got.data["version"]) == ("rocm-jax-v0.9.1", "post", "0.9.1.post1")
    assert "stage" not in got.data


def test_a_cut_finish_says_it_is_the_finish(tmp_path, jobs):
    jobs("cut-finish", cut_decided(), lock="cut")
    req, _ = request(tmp_path, kind="rc", stage="finish")
    got = run_cut(req, JobOptions())
    assert got.data["stage"] == "finish" and "from" not in got.data


@pytest.mark.parametrize("kind, number, outputs_kind, outputs_number", [
    ("rc", 3, "rc", "3"), ("release", None, "release", ""), (None, None, "", ""), ("rc", 0, "rc", "0")])
def test_a_cut_plan_stage_hands_on_the_kind_number_version_and_tag(tmp_path, jobs, kind, number, outputs_kind,
                                                                  outputs_number):
    jobs("cut-plan", cut_decided(kind=kind, number=number), records=False, lock=None)
    req, _ = request(tmp_path, kind="rc", stage="plan")
    got = run_cut(req, JobOptions())
    assert got.data == {"stage": "plan", "kind": kind, "number": number, "version": "0.9.1rc2",
                        "tag": "rocm-jax-v0.9.1rc2"}
    assert got.outputs == {"kind": outputs_kind, "number": outputs_number, "version": "0.9.1rc2",
                           "tag": "rocm-jax-v0.9.1rc2"}
    assert got.summary == "### cut 0.9.1rc2\n\n" and got.plan is not None


def test_a_pushed_tag_already_published_stops_at_the_plan_and_says_so(tmp_path, jobs):
    jobs("cut-plan", cut_decided(done="rocm-jax-v0.9.1rc2 is published already"), records=False, lock=None)
    catalog.JOBS["cut-plan"] = dataclasses.replace(catalog.JOBS["cut-plan"], steps=(
        StepDecl("tag", "tag", lambda *_a: pytest.fail("a published tag is not tagged again")),))
    req, stream = request(tmp_path, kind="rc", stage="plan")
    got = run_cut(req, JobOptions())
    assert stream.getvalue() == "rocm-jax-v0.9.1rc2 is published already\n"
    assert got.data == {"stage": "plan", "published": True, "version": "0.9.1rc2", "tag": "rocm-jax-v0.9.1rc2"}
    assert got.outputs == {"published": "true", "version": "0.9.1rc2", "tag": "rocm-jax-v0.9.1rc2"}
    assert got.summary == "### cut 0.9.1rc2\n\n"


def test_a_cut_waits_for_its_lock_as_long_as_asked(tmp_path, jobs):
    jobs("cut", cut_decided(), lock="cut")
    req, _ = request(tmp_path, kind="rc", lock_timeout=0.05)
    with held_a_while(tmp_path, "cut"):
        with pytest.raises(UserError, match=r"after waiting 0.05 s"):
            run_cut(req, JobOptions())


def test_a_cut_chooses_its_version_before_it_runs(tmp_path, jobs):
    jobs("cut", cut_decided(version=None), lock="cut")
    req, _ = request(tmp_path, kind="rc")
    with pytest.raises(ValueError, match="^a cut's plan stage chooses its version$"):
        run_cut(req, JobOptions())
