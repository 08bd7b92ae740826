"""The flags of the jobs' options: one entry per ``JobOptions`` field a person sets.

A job command (nightly, cut) offers the flags of every option some step of the jobs it runs
takes (``add_job_flags``) and turns them into one ``JobOptions`` (``job_options``), so
``--public-index none`` reaches validate in every job that validates, and a step that
gains an option gains its flag on every command that runs it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import argparse
    from pathlib import Path

    from release.jobs.runner import JobOptions

# Options no flag sets: the code that starts the job does (bisect's probe: its cache and the
# interpreter it validates with).
SET_BY_CODE = frozenset({"cache", "python"})


@dataclasses.dataclass(frozen=True)
class JobFlag:
    """How one option is offered (``add``) and read back (``read``)."""

    add: Callable[[argparse.ArgumentParser], None]
    read: Callable[[argparse.Namespace, Path], Any]   # (the parsed flags, the project's root)


def _add_build_inputs(parser: argparse.ArgumentParser) -> None:
    from release.commands._arguments import add_build_source_options
    add_build_source_options(parser)


def _workspace(args: argparse.Namespace, root: Path) -> Any:
    from release.sources.checkout import default_workspace
    return (args.workspace or default_workspace(root)).resolve()


def _add_public_index(parser: argparse.ArgumentParser) -> None:
    from release.check.resolver import add_public_index_option
    add_public_index_option(parser, "validate resolves the draft's index against (and the "
                                    "plan's versions are compared with)")


def _public_index(args: argparse.Namespace, _root: Path) -> Any:
    from release.check.resolver import public_index_from_args
    return public_index_from_args(args)


def _add_require_all_pythons(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--require-all-pythons", action="store_true",
                        help="fail validation when a Python the draft carries has no interpreter "
                             "here (default: a warning naming it, unless "
                             "$RELEASE_REQUIRE_ALL_PYTHONS is 1)")


def _add_retention(parser: argparse.ArgumentParser) -> None:
    from release.commands._arguments import add_retention_options
    add_retention_options(parser, what="gc keeps after publishing")


def _retention(args: argparse.Namespace, _root: Path) -> Any:
    from release.commands._common import retention_from_args
    return retention_from_args(args)


def _add_push(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--push", action="store_true",
                        help="push the release tag and the next-version branch to origin")


def _add_open_pr(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--open-pr", action="store_true",
                        help="open the pull request that moves version_info.json on "
                             "(GITHUB_API_URL, GITHUB_REPOSITORY, GITHUB_TOKEN)")


def _add_release_branch(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--release-branch", default="main", metavar="BRANCH",
                        help="the branch releases are cut from, and the next-version pull "
                             "request's base (default: main)")


def _add_pypi(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--pypi", action="store_true",
                        help="after publishing a release or post release, upload it to PyPI "
                             "(`release pypi-upload`: $TWINE_REPOSITORY_URL or ~/.pypirc, "
                             "$RELEASE_PYPI_FILE_LIMIT); rcs never go")


def _add_smoke(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--smoke", action="store_true",
                        help="on a ROCm machine: after validate, install the draft's wheels with jax "
                             "of their line and require ROCm devices and a correct jitted result "
                             "before publishing (release smoke)")


def _nothing(_parser: argparse.ArgumentParser) -> None:
    """Offered with ``workspace`` (the two are one mutually exclusive group)."""


FLAGS: dict[str, JobFlag] = {
    "workspace": JobFlag(_add_build_inputs, _workspace),
    "artifacts": JobFlag(_nothing, lambda a, _root: a.artifacts.resolve() if a.artifacts else None),
    "public_index": JobFlag(_add_public_index, _public_index),
    "require_all_pythons": JobFlag(_add_require_all_pythons,
                                   lambda a, _root: True if a.require_all_pythons else None),
    "retention": JobFlag(_add_retention, _retention),
    "push": JobFlag(_add_push, lambda a, _root: a.push),
    "open_pr": JobFlag(_add_open_pr, lambda a, _root: a.open_pr),
    "release_branch": JobFlag(_add_release_branch, lambda a, _root: a.release_branch),
    "pypi": JobFlag(_add_pypi, lambda a, _root: a.pypi),
    "smoke": JobFlag(_add_smoke, lambda a, _root: a.smoke),
}


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
