"""What a command reads of the project beyond its flags, only when it is a checkout: the ROCm
majors its line builds (what a release must hold whole) and the lines whose nightlies the
retention rule keeps. Outside a checkout neither loads the project's YAML."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import argparse

    from release.publish.retention import Retention


def line_majors(args: argparse.Namespace) -> tuple[int, ...] | None:
    """The ROCm majors the checkout's line builds (version_info.json), which a release must hold
    whole before it is published; None outside a checkout (then each major present must be)."""
    from release.core.config import load_project
    from release.core.errors import UserError
    from release.core.project_root import find_root
    if args.root is None:
        try:
            find_root()
        except UserError:
            return None
    return load_project(args.root).version_info.rocm_majors


def retention_from_args(args: argparse.Namespace) -> Retention:
    """The ``release.publish.retention.Retention`` the retention flags name, for the lines the
    default branch maintains (``release.jobs.lines.maintained``: gc and the index, one rule)."""
    from release.core.errors import UserError
    from release.core.lines import LINES_FILE
    from release.core.project_root import find_root
    from release.publish.retention import retention
    root = args.root
    if root is None:
        try:
            root = find_root()
        except UserError:
            root = None
    lines = None
    if root is not None and (Path(root) / LINES_FILE).is_file():  # else one line: no git, no YAML
        from release.jobs.lines import maintained
        lines = maintained(Path(root))
    return retention(args.keep, args.older_than, args.protect, args.protect_file, lines=lines)
