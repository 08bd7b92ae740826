"""The jobs as data: every flag a job's command offers reaches every step that declares it, every
declared step runs once and in order, and the order every job ships in holds.

The cases are generated from ``release.jobs.catalog.JOBS``: a step added to a job, or an option
added to a step, is tested here without a new test.
"""

from __future__ import annotations

import dataclasses
import types
from pathlib import Path

import pytest

from release import cli
from release.commands import _job_flags
from release.commands._job_flag_table import FLAGS, SET_BY_CODE
from release.commands._job_flags import job_options
from release.core.lazy import Ref
from release.core.output import Output
from release.jobs import catalog
from release.jobs.runner import (
    OPTION_NAMES,
    JobDecl,
    JobOptions,
    JobRun,
    OptionsView,
    PlanDecl,
    StepDecl,
    run_declared,
    run_plan,
)

COMMANDS = {"nightly": ("nightly", "nightly-plan", "nightly-finish"),
            "cut": ("cut", "cut-plan", "cut-finish", "post")}


def sample(option: str, tmp: Path) -> tuple[list[str], object]:
    """The flags that set ``option`` to something other than its default, and what the step
    must then see."""
    protect = tmp / "protect.txt"
    protect.write_text("0.9.1.dev20261120\n")
    return {
        "workspace": (["--workspace", str(tmp / "ws")], (tmp / "ws").resolve()),
        "artifacts": (["--artifacts", str(tmp)], tmp.resolve()),
        "public_index": (["--public-index", "none"], "none"),
        "require_all_pythons": (["--require-all-pythons"], True),
        "retention": (["--keep", "3", "--older-than", "2", "--protect-file", str(protect)],
                      lambda r: r.keep == 3 and r.older_than_days == 2 and len(r.protect) == 1),
        "push": (["--push"], True),
        "open_pr": (["--open-pr"], True),
        "release_branch": (["--release-branch", "rel"], "rel"),
        "pypi": (["--pypi"], True),
        "smoke": (["--smoke"], True),
    }[option]


def test_every_flag_has_a_sample_and_every_option_a_flag_or_a_reason():
    assert set(FLAGS) | SET_BY_CODE == OPTION_NAMES
    assert not set(FLAGS) & SET_BY_CODE


def parse(command: str, argv: list[str], root: Path) -> JobOptions:
    args = cli.build_parser(command).parse_args([command, *argv])
    assert set(args._job_flags) == set(_job_flags.offered(COMMANDS[command]))
    return job_options(args, root)


def recording(job: JobDecl, seen: list[tuple[str, OptionsView]]) -> JobDecl:
    """``job`` with each step's work replaced by a note of what it was handed (and so no needs);
    its plan steps too, each always run (``when`` dropped), handing the plan on as it was."""
    def recorder(name: str):
        def run(_run, view, _ctx):
            seen.append((name, view))
            return {"ran": name}
        return run

    def plan_recorder(name: str):
        def run(_request, view, planned):
            seen.append((name, view))
            return planned
        return run
    return dataclasses.replace(job, lock=None, steps=tuple(
        dataclasses.replace(step, run=recorder(step.name), fingerprint=None, needs=None)
        for step in job.steps), plan=tuple(
        dataclasses.replace(decl, run=plan_recorder(decl.name), when=None) for decl in job.plan))


def planning_seen(job: JobDecl, options: JobOptions) -> list[tuple[str, OptionsView]]:
    """What each plan step of ``job`` was handed when the plan ran with ``options``."""
    seen: list[tuple[str, OptionsView]] = []
    run_plan(recording(job, seen).plan, None, options)
    return seen


def fake_run(tmp: Path, version: str = "0.9.1", next_version: str | None = None) -> JobRun:
    """A run of ``version`` in a project whose version_info.json names ``next_version``
    (default: this version when it is a release or post release, else its line)."""
    from release.core import versions
    if next_version is None:
        final = versions.kind_of(version) in ("release", "post")
        next_version = version if final else versions.base_of(version)
    project = types.SimpleNamespace(root=tmp, version_info=types.SimpleNamespace(version=next_version))
    return JobRun(project, version, tmp / "dist", store=None, out=Output(), say=lambda _t: None)


CASES = [(command, job, step.name, option)
         for command, jobs in COMMANDS.items() for job in jobs
         for step in catalog.JOBS[job].steps for option in step.takes if option in FLAGS]
PLAN_CASES = [(command, job, decl.name, option)
              for command, jobs in COMMANDS.items() for job in jobs
              for decl in catalog.JOBS[job].plan for option in decl.takes if option in FLAGS]


def test_the_cases_cover_what_the_issue_found_missing():
    """--public-index reached nightly's validate only through the environment; cut had none."""
    assert ("nightly", "nightly", "validate", "public_index") in CASES
    assert ("cut", "cut", "validate", "public_index") in CASES
    assert ("cut", "post", "validate", "public_index") in CASES
    assert ("cut", "cut", "next-version", "open_pr") in CASES
    # the plan stage's own: the index a version is compared with, the branch a cut is made from
    assert {("nightly", "nightly-plan", "public", "public_index"),
            ("cut", "cut", "public-index", "public_index"),
            ("cut", "cut-plan", "checkout", "release_branch")} <= set(PLAN_CASES)


@pytest.mark.parametrize("command, job, step, option", PLAN_CASES)
def test_a_flag_reaches_every_plan_step_that_declares_it(tmp_path, command, job, step, option):
    argv, expected = sample(option, tmp_path)
    [view] = [view for name, view in planning_seen(catalog.JOBS[job], parse(command, argv, tmp_path))
              if name == step]
    got = getattr(view, option)
    assert expected(got) if callable(expected) else got == expected


@pytest.mark.parametrize("command, job, step, option", CASES)
def test_a_flag_reaches_every_step_that_declares_it(tmp_path, command, job, step, option):
    argv, expected = sample(option, tmp_path)
    options = parse(command, argv, tmp_path)
    seen: list[tuple[str, OptionsView]] = []
    run_declared(recording(catalog.JOBS[job], seen), fake_run(tmp_path), options)
    views = [view for name, view in seen if name == step]
    if not views:  # left out by its `when` for this run (fetch with --artifacts)
        decl = next(s for s in catalog.JOBS[job].steps if s.name == step)
        assert decl.when is not None and not decl.when(fake_run(tmp_path), OptionsView(
            options, decl.takes, step))
        return
    [view] = views
    got = getattr(view, option)
    assert expected(got) if callable(expected) else got == expected


@pytest.mark.parametrize("command", COMMANDS)
def test_every_flag_at_once_reaches_every_step_that_declares_it(tmp_path, command):
    argv, expected = [], {}
    for option in _job_flags.offered(COMMANDS[command]):
        if option == "artifacts":
            continue  # exclusive with --workspace: its own case above
        more, want = sample(option, tmp_path)
        argv += more
        expected[option] = want
    options = parse(command, argv, tmp_path)
    for job in COMMANDS[command]:
        seen: list[tuple[str, OptionsView]] = planning_seen(catalog.JOBS[job], options)
        run_declared(recording(catalog.JOBS[job], seen), fake_run(tmp_path / job), options)
        assert seen
        for name, view in seen:
            decl = next(s for s in (*catalog.JOBS[job].plan, *catalog.JOBS[job].steps)
                        if s.name == name)
            for option in decl.takes:
                if option in expected:
                    want = expected[option]
                    got = getattr(view, option)
                    assert want(got) if callable(want) else got == want, (job, name, option)


@pytest.mark.parametrize("job", sorted(catalog.JOBS))
def test_every_declared_step_runs_once_in_the_declared_order(tmp_path, job):
    decl = catalog.JOBS[job]
    seen: list[tuple[str, OptionsView]] = []
    # a Bazel build: fetch is in; PyPI and the ROCm gate too
    options = JobOptions(workspace=tmp_path / "ws", pypi=True, smoke=True)
    results = run_declared(recording(decl, seen), fake_run(tmp_path), options)
    assert [name for name, _ in seen] == [s.name for s in decl.steps]
    assert [r.name for r in results] == [s.name for s in decl.steps]
    # A re-run skips every recorded step and still hands each the outputs of the ones before;
    # a plan stage records nothing: it decides, and opens its draft, again.
    again: list[tuple[str, OptionsView]] = []
    rerun = run_declared(recording(decl, again), fake_run(tmp_path), options)
    assert [r.outputs for r in rerun] == [r.outputs for r in results]
    assert [name for name, _ in again] == ([] if decl.records else [s.name for s in decl.steps])
    assert decl.records or not (tmp_path / "dist").exists()


def test_a_step_reading_an_option_it_did_not_declare_fails():
    view = OptionsView(JobOptions(push=True), ("open_pr",), "next-version")
    assert view.open_pr is False
    with pytest.raises(AttributeError, match="'push' but does not declare"):
        _ = view.push


def test_a_declaration_naming_an_unknown_option_is_refused():
    with pytest.raises(ValueError, match="unknown options"):
        StepDecl("x", "x", lambda *a: {}, takes=("public-index",))


def order(job: str) -> list[str]:
    return [s.name for s in catalog.JOBS[job].steps]


SHIPPING = sorted(j for j in catalog.JOBS if catalog.JOBS[j].records)  # a plan stage ships nothing


@pytest.mark.parametrize("job", SHIPPING)
def test_a_job_ships_only_what_it_verified_drafted_and_validated(job):
    names = order(job)
    made = [n for n in ("build", "collect", "respin") if n in names]
    assert len(made) == 1, f"{job} makes its wheels once: {names}"
    chain = [made[0], "verify", "draft", "validate"]
    assert [n for n in names if n in chain] == chain, names
    if "publish" in names:   # right after validate and the ROCm gate (which runs with --smoke),
        assert names.index("smoke") == names.index("validate") + 1, names
        between = names[names.index("smoke") + 1:names.index("publish")]
        assert between in ([], ["tag"]), names   # and a cut's tag, made once every gate passed
    for after_publish in ("gc", "next-version"):
        if after_publish in names:
            assert names.index(after_publish) > names.index("publish"), names


def test_which_jobs_publish_gc_tag_and_move_the_version():
    publishing = {j for j in catalog.JOBS if "publish" in order(j)}
    assert {j for j in catalog.JOBS if not catalog.JOBS[j].records} == {"nightly-plan", "cut-plan"}
    assert publishing == {"nightly", "nightly-finish", "cut", "cut-finish", "post"}
    assert {j for j in catalog.JOBS if "gc" in order(j)} == {"nightly", "nightly-finish"}
    assert {j for j in catalog.JOBS if "next-version" in order(j)} == {"cut", "cut-finish", "post"}
    assert order("nightly")[:2] == order("cut")[:2] == ["fetch", "build"]


@pytest.mark.parametrize("job", sorted(catalog.JOBS))
def test_a_tag_is_made_only_after_every_step_that_can_fail_without_it(job):
    """A release tag never moves: made before a failing fetch, build or gate, it would pin the
    version to a commit that never shipped. So it is the last step before publish (and a
    plan stage's last, after its draft)."""
    names = order(job)
    if "tag" in names:
        assert names[names.index("tag") + 1:][:1] in (["publish"], []), names


@pytest.mark.parametrize("version, runs", [("0.9.1", True), ("0.9.1rc1", False),
                                           ("0.9.1.post1", True), ("0.9.1.dev20261122", False)])
def test_only_a_release_or_post_release_moves_to_the_next_version(tmp_path, version, runs):
    seen: list[tuple[str, OptionsView]] = []
    run_declared(recording(catalog.JOBS["cut-finish"], seen), fake_run(tmp_path, version),
                 JobOptions())
    assert ("next-version" in [n for n, _ in seen]) is runs


@pytest.mark.parametrize("job", ["cut-finish", "post"])
@pytest.mark.parametrize("version, next_version, runs", [
    ("0.9.1.post7", "0.9.1.post7", True),    # the post version_info.json names: the line moves on
    ("0.9.1.post2", "0.9.1.post7", False),   # a re-spin of another number leaves it alone
    ("0.9.1.post7", "0.10.0", False),        # the line is already another (jax moved)
    ("0.9.1", "0.9.1", True), ("0.9.1", "0.9.1.post1", False)])
def test_the_line_moves_on_only_after_the_release_version_info_names(tmp_path, job, version,
                                                                     next_version, runs):
    seen: list[tuple[str, OptionsView]] = []
    run_declared(recording(catalog.JOBS[job], seen), fake_run(tmp_path, version, next_version),
                 JobOptions())
    assert ("next-version" in [n for n, _ in seen]) is runs


@pytest.mark.parametrize("job", ["cut", "cut-finish", "post"])
@pytest.mark.parametrize("version, asked, runs", [
    ("0.9.1", True, True), ("0.9.1.post2", True, True), ("0.9.1", False, False),
    ("0.9.1rc1", True, False), ("0.9.1.dev20261122", True, False)])
def test_pypi_gets_only_a_published_release_or_post_release_and_only_when_asked(tmp_path, job, version,
                                                                                 asked, runs):
    seen: list[tuple[str, OptionsView]] = []
    run_declared(recording(catalog.JOBS[job], seen), fake_run(tmp_path, version), JobOptions(pypi=asked))
    names = [n for n, _ in seen]
    assert ("pypi" in names) is runs
    if runs:
        assert names.index("publish") < names.index("pypi")  # GitHub's published release first


@pytest.mark.parametrize("options, fetched", [
    (JobOptions(workspace=Path("ws")), True),
    (JobOptions(workspace=Path("ws"), artifacts=Path("a")), False),
    (JobOptions(), False),
])
def test_only_a_bazel_build_fetches(tmp_path, options, fetched):
    seen: list[tuple[str, OptionsView]] = []
    run_declared(recording(catalog.JOBS["nightly"], seen), fake_run(tmp_path), options)
    assert ("fetch" in [n for n, _ in seen]) is fetched


# ---------------------------------------------------------------- the runner's own duties


def test_a_job_runs_under_its_lock_says_why_once_it_holds_it_and_names_the_failed_step(tmp_path):
    import io

    from release.core.errors import UserError
    from release.jobs.pipeline import job_lock

    failed: list[str] = []

    def boom(*_a):
        raise UserError("validate said no")
    job = JobDecl("t", (StepDecl("first", "the first step", lambda *a: {}),
                        StepDecl("second", "the second step", boom)), lock="nightly")
    stream = io.StringIO()
    run = JobRun(types.SimpleNamespace(root=tmp_path), "0.9.1", tmp_path / "dist", store=None,
                 out=Output(stream=stream), say=lambda _t: None)
    with job_lock(tmp_path, "nightly"):
        with pytest.raises(UserError, match="another nightly is running"):
            run_declared(job, run, JobOptions(), announce="building: pins moved")
    assert "building" not in stream.getvalue()   # nothing said, nothing run, while another holds it
    with pytest.raises(UserError, match="said no"):
        run_declared(job, run, JobOptions(), announce="building: pins moved",
                     on_failure=failed.append)
    lines = stream.getvalue().splitlines()
    assert lines[0] == "building: pins moved" and failed == ["second"]
    assert any("the first step" in line for line in lines)      # steps are named by their title
    assert any("the second step: failed" in line for line in lines)
    with job_lock(tmp_path, "nightly"):                            # and the lock was let go
        pass


def test_a_fingerprint_sees_the_options_its_step_declares(tmp_path):
    """The tag step's fingerprint holds --push: a re-run that adds --push tags (pushes) again."""
    ran: list[bool] = []
    job = JobDecl("t", (dataclasses.replace(catalog.TAG, run=lambda _r, view, _c: ran.append(view.push)),))
    run = dataclasses.replace(fake_run(tmp_path), commit="c0ffee")
    run_declared(job, run, JobOptions())
    run_declared(job, run, JobOptions())
    run_declared(job, run, JobOptions(push=True))
    assert ran == [False, True]


def test_the_runner_hands_each_step_its_run_names_it_in_errors_and_honours_the_lock_timeout(tmp_path):
    from release.core.errors import UserError
    from release.jobs.pipeline import job_lock

    got: list[object] = []
    failed: list[str] = []

    def sneaky(run, view, _ctx):
        got.append(run)
        return {"push": view.push}   # not declared: a bug the runner must name

    job = JobDecl("t", (StepDecl("sneaky", "reads what it did not declare", sneaky),))
    run = fake_run(tmp_path)
    with pytest.raises(AttributeError, match="step 'sneaky' reads option 'push'"):
        run_declared(job, run, JobOptions(), on_failure=failed.append)   # no lock: a probe
    assert got == [run] and failed == ["sneaky"]
    locked = dataclasses.replace(job, lock="cut")
    with job_lock(tmp_path, "cut"):
        with pytest.raises(UserError, match=r"after waiting 0.05 s"):
            run_declared(locked, run, JobOptions(), lock_timeout=0.05)


# ---------------------------------------------------------------- the plan stage


def plan_order(job: str) -> list[str]:
    return [d.name for d in catalog.JOBS[job].plan]


@pytest.mark.parametrize("job", sorted(catalog.JOBS))
def test_every_job_that_chooses_its_version_asks_once_after_choosing_whether_it_may_publish_it(job):
    """The finish stages publish the version their plan stage chose and checked; the probe never
    publishes; every other job asks "publishable" once, after the steps that choose the version
    and every step that may stop the plan, and before any step changes the world."""
    names = plan_order(job)
    if job in ("nightly-finish", "cut-finish", "probe"):
        assert "publishable" not in names
        return
    chooses = [n for n in ("version", "source") if n in names]
    assert names.count("publishable") == 1 and chooses, names
    assert names.index("publishable") > max(names.index(n) for n in chooses), names
    assert names.index("publishable") > names.index("changed") if "changed" in names else True


def test_publishable_and_the_tag_each_have_one_caller_in_the_package():
    """One place asks whether a version may be published, one step makes the tag: a command or a
    job that asked again could ask with other inputs (the bug this move fixed)."""
    import release
    package = Path(release.__file__).parent
    callers = {str(p.relative_to(package)): p.read_text(encoding="utf-8").count(call)
               for call in ("check_publishable(", "tag_release(") for p in package.rglob("*.py")
               if call in p.read_text(encoding="utf-8")}
    assert callers == {"jobs/shared.py": 1, "jobs/planning.py": 1, "jobs/cut.py": 1, "jobs/steps.py": 1}
    assert {j for j in catalog.JOBS if "tag" in order(j)} == {"cut", "cut-plan"}
    assert order("cut-plan") == ["open-draft", "tag"]   # the draft first: the tag never moves


# --- declared, not imported (issue 36: declaring the jobs imported every job's module) ----------

def functions(decl: StepDecl | PlanDecl) -> dict[str, object]:
    return {field: getattr(decl, field) for field in ("run", "fingerprint", "when", "needs")
            if getattr(decl, field, None) is not None}


@pytest.mark.parametrize("job", sorted(catalog.JOBS))
def test_every_function_the_catalog_names_exists_and_is_a_function(job):
    """The catalog names each step's functions by module and name (imported when the step runs),
    so a misspelt name no longer fails at import: every one must resolve here."""
    for decl in (*catalog.JOBS[job].plan, *catalog.JOBS[job].steps):
        for field, ref in functions(decl).items():
            assert isinstance(ref, Ref), (job, decl.name, field)
            assert callable(ref.resolve()), (job, decl.name, field, ref)
            assert ref.module.startswith("release.jobs."), ref


def test_declaring_the_jobs_imports_none_of_their_modules():
    """``nightly --help`` and a dry run declare every job; importing the catalog loads only the
    declarations' types (the step modules bring Bazel's, the stores' and the checkout's stack)."""
    import json
    import subprocess
    import sys
    probe = ("import sys, json; import release.jobs.catalog as c; "
             "print(json.dumps(sorted(m for m in sys.modules if m.startswith('release.'))))")
    loaded = set(json.loads(subprocess.run([sys.executable, "-c", probe], capture_output=True,
                                           text=True, check=True).stdout))
    named = {ref.module for job in catalog.JOBS.values() for decl in (*job.plan, *job.steps)
             for ref in functions(decl).values() if isinstance(ref, Ref)}
    assert named >= {"release.jobs.steps", "release.jobs.cut", "release.jobs.nightly"}
    assert not named & loaded, sorted(named & loaded)


def test_a_ref_calls_the_function_its_module_holds_when_called(monkeypatch):
    """Looked up at each call: what the module holds then is what runs (as ``module.fn(...)``)."""
    from release.core import lazy
    from release.jobs import planning
    ref = lazy.LazyModule("release.jobs.planning").names_a_store
    assert ref == Ref("release.jobs.planning", "names_a_store") and str(ref) == "release.jobs.planning.names_a_store"
    monkeypatch.setattr(planning, "names_a_store", lambda *a: ("called", a))
    assert ref(1, 2) == ("called", (1, 2))
    with pytest.raises(AttributeError):
        lazy.Ref("release.jobs.planning", "no_such_step").resolve()
    with pytest.raises(ValueError, match="not a module and an attribute"):
        lazy.Ref("release.jobs.planning", "two.names")


# --- docs/jobs.md's table of the jobs is the catalog's -----------------------------------------

def documented_jobs() -> dict[str, tuple[list[str], list[str]]]:
    """Each row of the jobs table in docs/jobs.md: its plan steps and steps as named there
    (a parenthesis is a note; "as `nightly`" is that job's plan; "none ..." is no plan step)."""
    import re
    text = (Path(__file__).parents[1] / "docs" / "jobs.md").read_text(encoding="utf-8")
    rows: dict[str, tuple[list[str], list[str]]] = {}
    for line in text.split("## Jobs as data", 1)[1].splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 5 or not cells[0].startswith("`"):
            continue
        def names(cell: str) -> list[str]:
            cell = re.sub(r"\([^)]*\)", "", cell).strip()
            same = re.fullmatch(r"as `([a-z-]+)`", cell)
            if same:
                return rows[same.group(1)][0]
            return [] if cell.startswith("none") else [n.strip() for n in cell.split(",") if n.strip()]
        rows[cells[0].strip("`")] = (names(cells[1]), names(cells[2]))
    return rows


def test_the_jobs_table_in_the_docs_names_each_jobs_plan_steps_and_steps_in_order():
    assert documented_jobs() == {name: ([d.name for d in job.plan], [s.name for s in job.steps])
                                 for name, job in catalog.JOBS.items()}


def test_running_a_job_by_name_names_its_failed_step_to_the_caller(tmp_path, monkeypatch):
    """bisect's probe learns which step failed (the build, or a gate) through ``catalog.run``."""
    from release.core.errors import UserError

    def boom(*_a):
        raise UserError("the build failed")
    monkeypatch.setitem(catalog.JOBS, "probe", JobDecl("probe", (
        StepDecl("fetch", "fetch", lambda *_a: {}), StepDecl("build", "build", boom))))
    failed: list[str] = []
    with pytest.raises(UserError, match="the build failed"):
        catalog.run("probe", fake_run(tmp_path), JobOptions(), on_failure=failed.append)
    assert failed == ["build"]


def test_running_a_job_by_name_waits_for_its_lock_only_when_asked(tmp_path, monkeypatch):
    """Without --lock-timeout a job finds another one running and says so at once."""
    from release.core.errors import UserError
    from release.jobs.pipeline import job_lock
    monkeypatch.setitem(catalog.JOBS, "t", JobDecl("t", (StepDecl("one", "one", lambda *_a: {}),), lock="cut"))
    with job_lock(tmp_path, "cut"):
        with pytest.raises(UserError) as err:
            catalog.run("t", fake_run(tmp_path), JobOptions())
    assert "another cut is running" in str(err.value) and "after waiting" not in str(err.value)
