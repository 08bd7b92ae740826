"""One bisect in-process, through ``release.jobs``: what a test of a bisect rule calls.

``bisect`` runs ``bisect_run.run_bisect_job`` and ``plan`` runs ``bisect_plan.plan_bisect``, as
``release bisect`` and ``release bisect --plan`` do, and return the typed result: a rule (which
commit is the culprit, what was probed, what the hold delivered, why nothing runs) is stated
against it, with no argv to build and no JSON to parse. A refusal is the ``UserError`` the
command prints as one line. Tests of the command's flags, exit statuses and printing go through
the CLI (``run_cli``).
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from release.jobs.bisect_plan import BisectPlan
    from release.jobs.bisect_run import BisectResult
    from release.publish.stores import Store

DAY = dt.date(2026, 11, 23)  # the run's day (a build probe's nightly version is dated by it)


def opener(store: Path | Store | Callable[[], Store]) -> Callable[[], Store]:
    """The store the job opens when it needs it: a local store's directory, a store, or an opener."""
    from release.publish.stores import LocalStore
    if isinstance(store, Path):
        return lambda: LocalStore(store)
    if callable(store):
        return store
    return lambda: store


def bisect(root: Path, store: Path | Store | Callable[[], Store], *, env: Mapping[str, str] | None = None,
           said: list[str] | None = None, **asked) -> BisectResult:
    """``release bisect`` of the project at ``root`` against ``store``, with ``asked``
    (``BisectOptions``' fields: ``good``, ``probe_command``, ``open_pr=True`` ...; ``date``
    defaults to ``DAY``, ``dist`` to ``<root>/dist``). ``env``: GitHub's settings (default the
    process's, where the stand-in's fixture set them); ``said`` collects the lines said as it runs."""
    from release.core.config import load_project
    from release.jobs.bisect_run import BisectOptions, run_bisect_job
    options = BisectOptions(**{"date": DAY, "dist": root / "dist", **asked})
    lines = said if said is not None else []
    return run_bisect_job(load_project(root), options, opener(store),
                          env=os.environ if env is None else env, say=lines.append)


def plan(root: Path, store: Path | Store | Callable[[], Store], *, env: Mapping[str, str] | None = None,
         **asked) -> BisectPlan:
    """``release bisect --plan`` of the project at ``root`` against ``store``, with ``asked``
    (``PlanOptions``' fields: ``bad_commit``, ``good``, ``dispatch``, ``run_id``)."""
    from release.core.config import load_project
    from release.jobs.bisect_plan import PlanOptions, plan_bisect
    return plan_bisect(load_project(root), PlanOptions(**asked), opener(store),
                       env=os.environ if env is None else env)
