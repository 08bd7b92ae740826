"""The jobs, declared: each one's plan stage and steps in order, and the options each takes.

This table is the only place a job's order lives. ``run(name, ...)`` runs one job's steps
through ``release.jobs.runner``, after ``release.jobs.planning.run_plan`` ran its plan
steps (``run_nightly``, ``run_cut`` do both); ``release.commands`` offer exactly the flags
of the options the jobs they run take (``release.commands._job_flags``), so a flag reaches
every plan step and step that declares it. To add a step: write ``fn(run, options, context)
-> outputs`` in ``release.jobs.steps`` (or your own module) and put one ``StepDecl`` where it
belongs below; a decision before the steps is a ``PlanDecl`` the same way.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from release.core.lazy import LazyModule
from release.jobs.runner import JobDecl, JobOptions, JobRun, PlanDecl, StepDecl, run_declared

if TYPE_CHECKING:
    from collections.abc import Callable

    from release.jobs.pipeline import StepResult

# Each ``steps.fetch`` below names the function (``release.core.lazy.Ref``), imported when the
# step runs: declaring the jobs loads none of their modules, so ``nightly --help`` and a dry run
# import only what they run (tests/test_job_catalog.py resolves every one).
cut = LazyModule("release.jobs.cut")
nightly = LazyModule("release.jobs.nightly")
planning = LazyModule("release.jobs.planning")
post = LazyModule("release.jobs.post")
steps = LazyModule("release.jobs.steps")

# ---------------------------------------------------------------- the plan stage

PUBLIC = PlanDecl("public", "read the public index's versions of the line", planning.public_versions,
                  takes=("public_index",))
STORE = PlanDecl("store", "read what the store published", planning.open_store,
                 when=planning.names_a_store)
REFUSE_LOSING = PlanDecl("public-index", "refuse a version the public index beats on its line",
                         planning.refuse_losing, takes=("public_index",))
PUBLISHABLE = PlanDecl("publishable", "refuse a version at or below what the line published",
                       planning.publishable, when=planning.has_a_store)
# A nightly is planned twice: over the public index's versions before the store is opened (a
# bad --date or --python is refused before a store, or its token, is asked), then over both.
NIGHTLY_INPUTS = PlanDecl("inputs", "check the nightly's date and Pythons", nightly.nightly_version,
                          when=planning.names_a_store)
NIGHTLY_VERSION = PlanDecl("version", "plan tonight's nightly", nightly.nightly_version)
CHANGED = PlanDecl("changed", "decide whether tonight builds", nightly.changed,
                   when=planning.has_a_store)
ALREADY = PlanDecl("published", "skip a pushed tag already published", cut.already_published,
                   when=cut.planning_a_tag)
CHECKOUT = PlanDecl("checkout", "find the release commit", cut.release_checkout,
                    takes=("release_branch",))
CUT_VERSION = PlanDecl("version", "plan the rc or release", cut.cut_version)
TAGGED = PlanDecl("tagged", "read the version the plan stage tagged", cut.tagged_version)
POST_SOURCE = PlanDecl("source", "choose the release a post re-spins", post.post_release)

NIGHTLY_PLAN = (PUBLIC, NIGHTLY_INPUTS, STORE, NIGHTLY_VERSION)
NIGHTLY_DECIDES = (*NIGHTLY_PLAN, REFUSE_LOSING, CHANGED, PUBLISHABLE)
CUT_PLAN = (STORE, ALREADY, PUBLIC, CHECKOUT, CUT_VERSION, REFUSE_LOSING, PUBLISHABLE)

# ---------------------------------------------------------------- the steps

BUILD_INPUTS = ("workspace", "artifacts")

FETCH = StepDecl("fetch", "fetch sources", steps.fetch, takes=(*BUILD_INPUTS, "cache"),
                 fingerprint=steps.fetch_fingerprint, when=steps.fetch_wanted)
BUILD = StepDecl("build", "build wheels", steps.build, takes=BUILD_INPUTS,
                 fingerprint=steps.build_fingerprint, needs=steps.build_needs)
COLLECT = StepDecl("collect", "collect the matrix's wheels", steps.collect)
RESPIN = StepDecl("respin", "promote the released wheels", steps.respin,
                  fingerprint=steps.respin_fingerprint)
TAG = StepDecl("tag", "tag the release", steps.tag, takes=("push",),
               fingerprint=steps.tag_fingerprint)
OPEN_DRAFT = StepDecl("open-draft", "open the draft the build cells upload into", steps.open_draft)

VERIFY = StepDecl("verify", "verify wheels", steps.verify,
                  fingerprint=steps.dist_as_it_is)
DRAFT = StepDecl("draft", "draft release", steps.draft)
VALIDATE = StepDecl("validate", "validate draft", steps.validate,
                    takes=("python", "public_index", "require_all_pythons"))
SMOKE = StepDecl("smoke", "ROCm smoke test", steps.smoke, takes=("smoke", "public_index"),
                 when=steps.smoke_wanted)
PUBLISH = StepDecl("publish", "publish release", steps.publish)
GC = StepDecl("gc", "collect old nightlies", steps.gc, takes=("retention",))
PYPI = StepDecl("pypi", "upload to PyPI", steps.pypi, takes=("pypi",), when=steps.pypi_wanted)
NEXT_VERSION = StepDecl("next-version", "move to the next version", steps.next_version,
                        takes=("push", "open_pr", "release_branch"),
                        fingerprint=steps.next_version_fingerprint, when=steps.moves_the_line_on)

# What every job that ships ends with: checked wheels, a draft, the draft checked as users
# get it (and, with --smoke on a ROCm machine, the plugin seen to register), then (and only
# then) published.
TO_DRAFT = (VERIFY, DRAFT, VALIDATE)
GATES = (*TO_DRAFT, SMOKE)
SHIP = (*GATES, PUBLISH)

JOBS: dict[str, JobDecl] = {job.name: job for job in (
    JobDecl("nightly", (FETCH, BUILD, *SHIP, GC), lock="nightly", plan=NIGHTLY_DECIDES),
    # A split run (CI): the plan stage opens the draft the build matrix uploads into.
    JobDecl("nightly-plan", (OPEN_DRAFT,), plan=NIGHTLY_DECIDES, records=False),
    JobDecl("nightly-finish", (COLLECT, *SHIP, GC), lock="nightly", plan=NIGHTLY_PLAN),
    # PyPI last: once GitHub has the release and the line has moved on, its own retry
    # (`release pypi-upload TAG`) is all a failure there needs.
    # The tag last before publishing: it never moves, so it is made only once everything that
    # can fail without it (the fetch, the build, every gate; the plan stage's draft) passed.
    JobDecl("cut", (FETCH, BUILD, *GATES, TAG, PUBLISH, NEXT_VERSION, PYPI), lock="cut",
            plan=CUT_PLAN),
    JobDecl("cut-plan", (OPEN_DRAFT, TAG), plan=CUT_PLAN, records=False),
    JobDecl("cut-finish", (COLLECT, *SHIP, NEXT_VERSION, PYPI), lock="cut", plan=(STORE, TAGGED)),
    JobDecl("post", (RESPIN, *SHIP, NEXT_VERSION, PYPI), lock="cut",
            plan=(STORE, POST_SOURCE, PUBLISHABLE)),
    # bisect's build probe: the pipeline up to a validated draft in a private store, never
    # published (the bisect holds its own lock).
    JobDecl("probe", (FETCH, BUILD, *TO_DRAFT)),
)}


def run(name: str, job_run: JobRun, options: JobOptions, *, lock_timeout: float = 0,
        announce: str | None = None,
        on_failure: Callable[[str], None] | None = None) -> list[StepResult]:
    """Run the job ``name`` of ``JOBS`` for ``job_run`` with ``options``."""
    return run_declared(JOBS[name], job_run, options, lock_timeout=lock_timeout,
                        announce=announce, on_failure=on_failure)
