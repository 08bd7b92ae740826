"""The plan steps every job shares (reading the public index and the store, refusing a
version the public index beats, asking whether a version may be published), and the
``JobRun`` a plan hands the job's steps.

A plan step (``runner.PlanDecl``) is ``fn(request, options, planned) -> planned``: one
decision a job makes before its steps run, taking the ``JobOptions`` fields it names
(``takes``) as a job's step does, so ``--public-index`` and ``--release-branch`` reach every
plan step that names them. Plan steps change nothing and record nothing: each run decides
again. What changes the world (the draft a split run's cells upload into, the tag) is a job
step (``release.jobs.steps``). The jobs' own plan steps live with their rules
(``release.jobs.nightly``, ``cut``, ``post``); ``release.jobs.catalog`` puts them in order.
"""

from __future__ import annotations

import dataclasses

from release.jobs.runner import PUBLIC_INDEX_FROM_ENV, JobRequest, JobRun, OptionsView, Planned


def job_run(request: JobRequest, planned: Planned) -> JobRun:
    """The ``JobRun`` the job's steps get: what the plan decided, where files go, who hears."""
    if planned.version is None or planned.store is None:
        raise ValueError("a job's steps run from a plan that chose a version and a store")
    return JobRun(request.project, planned.version, request.dist_root.resolve(), planned.store,
                  request.out, say=request.out.line, plan=planned.plan, commit=planned.commit,
                  source=planned.source, now=request.now, progress=request.progress,
                  console=request.out.progress_console())


# ---------------------------------------------------------------- plan steps every job shares


def _index(opts: OptionsView) -> str | None:
    from release.check import resolver
    index = opts.public_index
    return resolver.public_index_default() if index == PUBLIC_INDEX_FROM_ENV else index


def public_versions(request: JobRequest, opts: OptionsView, planned: Planned) -> Planned:
    """The public index's versions of the line's wheels (a released line's next ``.postN``
    counts them with the store's; none when the index is ``none`` or unreachable)."""
    from release.check import resolver
    return dataclasses.replace(planned, public=resolver.index_versions(
        request.project.version_info.rocm_majors, _index(opts)))


def open_store(request: JobRequest, _opts: OptionsView, planned: Planned) -> Planned:
    """The store, and what it has published, read once for every decision after it."""
    if request.open_store is None:
        raise ValueError("open_store runs only when the request names a store")
    store = request.open_store()
    return dataclasses.replace(planned, store=store, listing=store.published())


def names_a_store(request: JobRequest, _planned: Planned) -> bool:
    return request.open_store is not None


def has_a_store(_request: JobRequest, planned: Planned) -> bool:
    return planned.store is not None


def refuse_losing(_request: JobRequest, opts: OptionsView, planned: Planned) -> Planned:
    """Before building: a version the public index beats on its own line would never be
    installed by the line's users, so validate would fail after the build: refused now."""
    from release.check import resolver
    if planned.plan is None:
        raise ValueError("the public index is asked about a planned version")
    check = resolver.refuse_losing_versions({planned.plan.kind: planned.plan.version},
                                            [g.major for g in planned.plan.majors], _index(opts))
    return dataclasses.replace(planned, public_check=check)


def publishable(_request: JobRequest, _opts: OptionsView, planned: Planned) -> Planned:
    """The one place a job asks whether its version may be published
    (``release.jobs.shared.check_publishable``): never at or below what the line published."""
    from release.jobs.shared import check_publishable
    if planned.store is None or planned.version is None or planned.revisions is None:
        raise ValueError("publishable needs the store, the version and its revisions")
    check_publishable(planned.store, planned.version, planned.revisions, planned.listing)
    return planned
