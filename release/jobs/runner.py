"""One runner for every job: a job is data (its plan steps, then its steps, in order, and
the options each takes).

A command parses flags into one ``JobOptions`` and a ``JobRequest`` and calls a job function
(``release.jobs.workflows``): the job's plan steps (``PlanDecl``: what it decides first, its
version and whether it may publish it) run through ``run_plan``, then its steps through
``run_declared``. Each gets only the options its declaration names (``takes``), so a flag
reaches every plan step and step that declares it by construction, and one that reads an
option it did not declare fails at once instead of silently seeing a default. The steps run
through ``release.jobs.pipeline`` (ordered, resumable from ``dist/<version>/manifest.json``,
one job of a kind at a time); adding a step to a job is one ``StepDecl`` in ``catalog.JOBS``.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Collection, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import datetime as _dt

    from rich.console import Console

    from release.build.plan import BuildPlan
    from release.core.config import Project
    from release.core.output import Output, ProgressBars, Say
    from release.core.revisions import RevisionMap
    from release.jobs.pipeline import Context, Step, StepResult
    from release.publish.retention import Retention
    from release.publish.stores import Published, Release, Store

# validate's default for the public index: $RELEASE_PUBLIC_INDEX, else pip's own (the value of
# release.check.validate.FROM_ENV; not imported, so declaring the jobs stays cheap).
PUBLIC_INDEX_FROM_ENV = "from-env"


@dataclasses.dataclass(frozen=True)
class JobOptions:
    """Every option a step may take; one field each. The commands' flags fill them
    (``release.commands._job_flags``); a step sees only the fields it ``takes``."""

    workspace: Path | None = None      # Bazel builds in checkouts here (fetch, build)
    artifacts: Path | None = None      # prebuilt .so files instead of Bazel (fetch, build)
    cache: Path | None = None          # git mirrors for fetch (default: the project's)
    python: str | None = None          # interpreter validate installs with (default: this one)
    public_index: str | None = PUBLIC_INDEX_FROM_ENV  # the index validate merges the draft's with
    require_all_pythons: bool | None = None  # an untested Python fails validate (None: env)
    retention: Retention | None = None  # which nightlies gc keeps (None: the default rule)
    push: bool = False                 # push the release tag and the next-version branch
    open_pr: bool = False              # open the next-version pull request
    release_branch: str = "main"       # the next-version pull request's base
    pypi: bool = False                 # upload a published release or post release to PyPI
    smoke: bool = False                # the ROCm smoke gate before publishing (needs a ROCm GPU)


OPTION_NAMES = frozenset(f.name for f in dataclasses.fields(JobOptions))


class OptionsView:
    """The options one step declared, read as attributes; any other is an error (a bug)."""

    def __init__(self, options: JobOptions, takes: Sequence[str], step: str):
        self._options, self._takes, self._step = options, frozenset(takes), step

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_") or name not in self._takes:
            raise AttributeError(f"step {self._step!r} reads option {name!r} but does not declare "
                                 f"it (takes {sorted(self._takes)})")
        return getattr(self._options, name)


@dataclasses.dataclass(frozen=True)
class JobRun:
    """What one run of a job is about (not flags): the project, the version and where its
    files go, the store, and how to talk to people."""

    project: Project
    version: str
    dist_root: Path                    # dist/; this version's files go to dist/<version>/
    store: Store
    out: Output
    say: Say
    plan: BuildPlan | None = None      # jobs that build
    commit: str | None = None          # cut: the release commit the tag points at
    source: Release | None = None      # post: the published release re-spun
    now: _dt.datetime | None = None    # gc's clock
    progress: ProgressBars | None = None
    console: Console | None = None     # build logs

    @property
    def directory(self) -> Path:
        return self.dist_root / self.version

    @property
    def tag(self) -> str:
        from release.core.naming import release_tag
        return release_tag(self.version)


StepFn = Callable[[JobRun, OptionsView, "Context"], Mapping[str, Any] | None]
Fingerprint = Callable[[JobRun, OptionsView, "Context"], str]


@dataclasses.dataclass(frozen=True)
class StepDecl:
    """One step of a job, declared: ``run(job_run, options, context)`` does the work and
    returns JSON-able outputs; ``takes`` names the ``JobOptions`` fields it reads;
    ``fingerprint`` describes its inputs (a recorded step with the same one is skipped);
    ``when`` leaves the step out of a run (e.g. fetch when prebuilt artifacts are given);
    ``needs`` checks what the step needs of this machine (raising the one line that says so),
    for every step of a run before the first one changes anything (the fetch fills the workspace)."""

    name: str
    title: str
    run: StepFn
    takes: tuple[str, ...] = ()
    fingerprint: Fingerprint | None = None
    when: Callable[[JobRun, OptionsView], bool] | None = None
    needs: Callable[[JobRun, OptionsView], None] | None = None

    def __post_init__(self) -> None:
        unknown = sorted(set(self.takes) - OPTION_NAMES)
        if unknown:
            raise ValueError(f"step {self.name!r} takes unknown options {unknown}; "
                             f"known: {sorted(OPTION_NAMES)}")


@dataclasses.dataclass(frozen=True)
class JobRequest:
    """What a command asks of a job, beyond the steps' ``JobOptions``: its flags, typed."""

    project: Project
    out: Output
    dist_root: Path                        # dist/; a version's files go to dist/<version>/
    open_store: Callable[[], Store] | None = None  # None: a dry run, which reads no store
    kind: str = "nightly"                  # nightly, rc, release or post
    number: int | None = None              # the rc's or the post's N
    stage: str | None = None               # plan or finish of a split run (None: the whole job)
    tag: str | None = None                 # cut --tag: the tag a plan or finish stage is for
    base: str | None = None                # cut --post --from: the release re-spun
    date: _dt.date | None = None           # a nightly's date
    now: _dt.datetime | None = None        # the run's clock
    build_number: int | None = None
    force: bool = False                    # a nightly date more than a day from today
    pythons: tuple[str, ...] | None = None
    lock_timeout: float = 0
    progress: ProgressBars | None = None


@dataclasses.dataclass(frozen=True)
class Planned:
    """What the plan steps decided so far; each step returns it with its own fields set."""

    store: Store | None = None
    listing: Published | None = None       # the store's published releases, read once
    public: tuple[str, ...] = ()           # the public index's versions of the line
    public_check: Mapping[str, Any] = dataclasses.field(default_factory=lambda: {"warnings": []})
    kind: str | None = None
    number: int | None = None
    commit: str | None = None              # cut: the release commit
    plan: BuildPlan | None = None          # the jobs that build
    source: Release | None = None          # post: the published release re-spun
    version: str | None = None
    revisions: RevisionMap | None = None   # what ``version`` is made of (publishable's input)
    changed: bool | None = None            # nightly: whether tonight builds
    reason: str = ""                       # nightly: why (not), one line for people ("": undecided)
    last: str | None = None                # nightly: the tag of the last published nightly
    done: str | None = None                # nothing left to do, and why

    def published(self) -> tuple[str, ...]:
        """Every version the store and the public index hold (what a line counts on from)."""
        return (*(self.listing.versions() if self.listing is not None else ()), *self.public)


PlanFn = Callable[["JobRequest", OptionsView, "Planned"], "Planned"]


@dataclasses.dataclass(frozen=True)
class PlanDecl:
    """One decision of a job's plan stage: ``run`` returns ``planned`` with what it decided;
    ``takes`` names the ``JobOptions`` fields it reads; ``when`` leaves it out of a run."""

    name: str
    title: str
    run: PlanFn
    takes: tuple[str, ...] = ()
    when: Callable[[JobRequest, Planned], bool] | None = None

    def __post_init__(self) -> None:
        unknown = sorted(set(self.takes) - OPTION_NAMES)
        if unknown:
            raise ValueError(f"plan step {self.name!r} takes unknown options {unknown}; "
                             f"known: {sorted(OPTION_NAMES)}")


def run_plan(decls: Sequence[PlanDecl], request: JobRequest, options: JobOptions,
             planned: Planned | None = None) -> Planned:
    """Run the plan steps in order, each seeing only the options it declared; stop at the
    first one that says nothing is left to do."""
    planned = planned or Planned()
    for decl in decls:
        if planned.done is not None:
            break
        if decl.when is None or decl.when(request, planned):
            planned = decl.run(request, OptionsView(options, decl.takes, decl.name), planned)
    return planned


@dataclasses.dataclass(frozen=True)
class JobDecl:
    """A job: its plan stage (``release.jobs.planning``: what it decides first, in order), its
    steps in order and the lock they run under (None: no lock, e.g. a probe). ``records``:
    the steps are recorded in ``dist/<version>/manifest.json`` and resumed from it; a split
    run's plan stage records nothing (each run decides and opens its draft again)."""

    name: str
    steps: tuple[StepDecl, ...]
    lock: str | None = None
    plan: tuple[PlanDecl, ...] = ()
    records: bool = True

    @property
    def takes(self) -> frozenset[str]:
        """Every option some plan step or step of this job reads: what its command must offer."""
        takes = [decl.takes for decl in self.plan] + [decl.takes for decl in self.steps]
        return frozenset(name for names in takes for name in names)


@dataclasses.dataclass(frozen=True)
class JobResult:
    """What a job run says: ``data`` (its ``--json`` object), ``outputs`` (its
    ``$GITHUB_OUTPUT`` keys), ``summary`` (Markdown for the run's summary) and the plan it
    ran from (a dry run prints it); a command only prints them."""

    data: dict[str, Any]
    outputs: dict[str, str]
    summary: str
    plan: BuildPlan | None = None


def _kept(job: JobDecl, run: JobRun, options: JobOptions) -> list[tuple[StepDecl, OptionsView]]:
    """The declarations of ``job`` this run runs (``when``), each with its options' view."""
    kept = []
    for decl in job.steps:
        view = OptionsView(options, decl.takes, decl.name)
        if decl.when is None or decl.when(run, view):
            kept.append((decl, view))
    return kept


def check_needs(job: JobDecl, run: JobRun, options: JobOptions, recorded: Collection[str] = ()) -> None:
    """Every step of this run has what it ``needs`` (but the ``recorded`` ones: a resumed run
    that built before needs no Bazel now); raises the first step's line before any step runs."""
    for decl, view in _kept(job, run, options):
        if decl.needs is not None and decl.name not in recorded:
            decl.needs(run, view)


def steps_for(job: JobDecl, run: JobRun, options: JobOptions) -> list[Step]:
    """The pipeline steps of ``job`` for this run: each bound to the options it declared."""
    from release.jobs.pipeline import Step
    steps = []
    for decl, view in _kept(job, run, options):
        fingerprint = functools.partial(decl.fingerprint, run, view) if decl.fingerprint else None
        steps.append(Step(decl.name, functools.partial(decl.run, run, view), fingerprint,
                          decl.title))
    return steps


def _run_unrecorded(job: JobDecl, run: JobRun, options: JobOptions) -> list[StepResult]:
    """A plan stage's steps: every one runs (each is idempotent), quietly, and none is kept."""
    from release.jobs.pipeline import Context, StepResult
    outputs: dict[str, Mapping[str, Any]] = {}
    for decl, view in _kept(job, run, options):
        outputs[decl.name] = dict(decl.run(run, view, Context(dict(outputs))) or {})
    return [StepResult(name, True, "", made) for name, made in outputs.items()]


def run_declared(job: JobDecl, run: JobRun, options: JobOptions, *, lock_timeout: float = 0,
                 announce: str | None = None,
                 on_failure: Callable[[str], None] | None = None) -> list[StepResult]:
    """Run ``job``'s steps in order, resumable from ``dist/<version>/manifest.json``, under
    the job's lock; ``announce`` is printed once the lock is held (why this run runs)."""
    from release.core.manifest import Manifest
    from release.jobs.pipeline import job_lock, run_steps

    if not job.records:
        return _run_unrecorded(job, run, options)
    check_needs(job, run, options, recorded=Manifest.load(run.directory).steps)
    steps = steps_for(job, run, options)
    if job.lock is None:
        return run_steps(steps, Manifest.load(run.directory), run.out, on_failure=on_failure)
    with job_lock(run.project.root, job.lock, timeout=lock_timeout):
        if announce:
            run.out.line(announce)
        return run_steps(steps, Manifest.load(run.directory), run.out, on_failure=on_failure)
