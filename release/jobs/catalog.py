"""The jobs, declared: each one's steps in order and the options each step takes.

This table is the only place a job's order lives. ``run(name, ...)`` runs one of them
through ``release.jobs.runner``; ``release.commands`` offer exactly the flags of the options
the jobs they run take (``release.commands._job_flags``), so a flag reaches every step
that declares it. To add a step: write ``fn(run, options, context) -> outputs`` in
``release.jobs.steps`` (or your own module) and put one ``StepDecl`` where it belongs below.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from release.jobs import steps
from release.jobs.runner import JobDecl, JobOptions, JobRun, StepDecl, run_declared

if TYPE_CHECKING:
    from collections.abc import Callable

    from release.jobs.pipeline import StepResult

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
SHIP = (*TO_DRAFT, SMOKE, PUBLISH)

JOBS: dict[str, JobDecl] = {job.name: job for job in (
    JobDecl("nightly", (FETCH, BUILD, *SHIP, GC), lock="nightly"),
    JobDecl("nightly-finish", (COLLECT, *SHIP, GC), lock="nightly"),
    # PyPI last: once GitHub has the release and the line has moved on, its own retry
    # (`release pypi-upload TAG`) is all a failure there needs.
    JobDecl("cut", (TAG, FETCH, BUILD, *SHIP, NEXT_VERSION, PYPI), lock="cut"),
    JobDecl("cut-finish", (COLLECT, *SHIP, NEXT_VERSION, PYPI), lock="cut"),
    JobDecl("post", (RESPIN, *SHIP, NEXT_VERSION, PYPI), lock="cut"),
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
