"""How a job command offers its jobs' options as flags and reads them back into ``JobOptions``.

A job command (nightly, cut) offers the flags of every option some step of the jobs it runs
takes (``add_job_flags``) and turns them into one ``JobOptions`` (``job_options``), so
``--public-index none`` reaches validate in every job that validates, and a step that
gains an option gains its flag on every command that runs it. Which flag sets which option,
and how, is ``_job_flag_table.FLAGS``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from release.commands._job_flag_table import FLAGS

if TYPE_CHECKING:
    import argparse
    from pathlib import Path

    from release.jobs.runner import JobOptions


def offered(jobs: Iterable[str]) -> list[str]:
    """The options the jobs take that a flag sets, in ``FLAGS`` order."""
    from release.jobs.catalog import JOBS
    wanted = set().union(*(JOBS[name].takes for name in jobs))
    return [name for name in FLAGS if name in wanted]


def add_job_flags(parser: argparse.ArgumentParser, jobs: Iterable[str]) -> None:
    """Every flag of every option the ``jobs`` take, plus ``--dist``."""
    from release.commands._arguments import add_dist_option
    add_dist_option(parser)
    jobs = tuple(jobs)
    parser.set_defaults(_job_flags=tuple(offered(jobs)))
    for name in offered(jobs):
        FLAGS[name].add(parser)


def job_options(args: argparse.Namespace, root: Path) -> JobOptions:
    """The ``JobOptions`` the flags ``add_job_flags`` offered say (the rest default); ``root``:
    the project's, where defaults such as the workspace are."""
    from release.jobs.runner import JobOptions
    return JobOptions(**{name: FLAGS[name].read(args, root) for name in args._job_flags})
