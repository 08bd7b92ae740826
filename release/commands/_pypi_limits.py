"""The PyPI upload's two limits as flags (``--file-limit``, ``--project-limit``), parsed by
``release.publish.pypi_budget`` only when given, so ``--help`` loads no HTTP client."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from release.core import flags
from release.core.errors import UserError

if TYPE_CHECKING:
    import argparse

FILE_LIMIT_ENV = "RELEASE_PYPI_FILE_LIMIT"  # pypi.FILE_LIMIT_ENV, named here for --help
PROJECT_LIMIT_ENV = "RELEASE_PYPI_PROJECT_LIMIT"  # pypi_budget.PROJECT_LIMIT_ENV, likewise


def _budget_flag(name: str) -> Callable[[str], Any]:
    """``pypi_budget.<name>`` as a flag's type (``parse_size``, ``parse_project_limits``)."""
    def parse(text: str) -> Any:
        from release.publish import pypi_budget
        try:
            return getattr(pypi_budget, name)(text)
        except UserError as exc:
            raise flags.Bad(str(exc).split(": ", 1)[-1]) from None
    return parse


def add_limit_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--file-limit", type=_budget_flag("parse_size"), metavar="SIZE",
                        help=f"the per-file limit, e.g. 200MiB (default: ${FILE_LIMIT_ENV}, else "
                             "100MiB, PyPI's default)")
    parser.add_argument("--project-limit", type=_budget_flag("parse_project_limits"), metavar="LIMITS",
                        help="each project's limit on the total of its files, e.g. 10GiB, "
                             f"jax-rocm7-pjrt=20GiB or none, comma-separated (default: ${PROJECT_LIMIT_ENV}, "
                             "else 10GiB, PyPI's default)")
