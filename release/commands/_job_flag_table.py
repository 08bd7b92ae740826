"""Which flag sets which job option: one ``JobFlag`` per ``JobOptions`` field a person sets (how
the flag is added to a parser, how the option is read back from the parsed flags), and the
options no flag sets (``SET_BY_CODE``). ``_job_flags`` offers them on the job commands.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from release.commands._arguments import add_build_source_options, add_retention_options
from release.commands._project_reads import retention_from_args

if TYPE_CHECKING:
    import argparse
    from pathlib import Path

# Options no flag sets: the code that starts the job does (bisect's probe: its cache and the
# interpreter it validates with).
SET_BY_CODE = frozenset({"cache", "python"})


@dataclasses.dataclass(frozen=True)
class JobFlag:
    """How one option is offered (``add``) and read back (``read``)."""

    add: Callable[[argparse.ArgumentParser], None]
    read: Callable[[argparse.Namespace, Path], Any]   # (the parsed flags, the project's root)


def _workspace(args: argparse.Namespace, root: Path) -> Any:
    from release.core.project_root import default_workspace
    return (args.workspace or default_workspace(root)).resolve()


def _add_public_index(parser: argparse.ArgumentParser) -> None:
    from release.core.public_index import add_public_index_option
    add_public_index_option(parser, "validate resolves the draft's index against (and the "
                                    "plan's versions are compared with)")


def _public_index(args: argparse.Namespace, _root: Path) -> Any:
    from release.check.resolver import public_index_from_args
    return public_index_from_args(args)


def _add_release_branch(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--release-branch", default="main", metavar="BRANCH",
                        help="the branch releases are cut from, and the next-version pull "
                             "request's base (default: main)")


def _switch(dest: str, help: str, *, unset: Any = False) -> JobFlag:
    """An on/off flag, ``--DEST`` with dashes: the option is True when given, else ``unset``."""
    def add(parser: argparse.ArgumentParser) -> None:
        parser.add_argument("--" + dest.replace("_", "-"), action="store_true", help=help)
    return JobFlag(add, lambda args, _root: getattr(args, dest) or unset)


def _nothing(_parser: argparse.ArgumentParser) -> None:
    """Offered with ``workspace`` (the two are one mutually exclusive group)."""


FLAGS: dict[str, JobFlag] = {
    "workspace": JobFlag(add_build_source_options, _workspace),
    "artifacts": JobFlag(_nothing, lambda a, _root: a.artifacts.resolve() if a.artifacts else None),
    "public_index": JobFlag(_add_public_index, _public_index),
    "require_all_pythons": _switch(
        "require_all_pythons", unset=None,  # None: $RELEASE_REQUIRE_ALL_PYTHONS decides
        help="fail validation when a Python the draft carries has no interpreter here (default: a "
             "warning naming it, unless $RELEASE_REQUIRE_ALL_PYTHONS is 1)"),
    "retention": JobFlag(lambda parser: add_retention_options(parser, what="gc keeps after publishing"),
                         lambda a, _root: retention_from_args(a)),
    "push": _switch("push", "push the release tag and the next-version branch to origin"),
    "open_pr": _switch("open_pr", "open the pull request that moves version_info.json on "
                                  "(GITHUB_API_URL, GITHUB_REPOSITORY, GITHUB_TOKEN)"),
    "release_branch": JobFlag(_add_release_branch, lambda a, _root: a.release_branch),
    "pypi": _switch("pypi", "after publishing a release or post release, upload it to PyPI (`release "
                            "pypi-upload`: $TWINE_REPOSITORY_URL or ~/.pypirc, $RELEASE_PYPI_FILE_LIMIT); "
                            "rcs never go"),
    "smoke": _switch("smoke", "on a ROCm machine: after validate, install the draft's wheels with jax of "
                              "their line and require ROCm devices and a correct jitted result before "
                              "publishing (release smoke)"),
}
