"""One bump in-process, through ``release.jobs.bump.run_bump``: what a test of a bump rule calls.

Tests of ``release bump``'s flags and printing go through the CLI (``run_cli``); a rule of the
bump (what rolls, what is committed, pushed, opened or merged, what each output says) is stated
against the job's typed result, with no argv to build and no JSON to parse.
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Mapping
from pathlib import Path

from release.jobs.bump import BumpOptions, BumpResult, run_bump


def bump(root: Path, *, env: Mapping[str, str] | None = None, said: list[str] | None = None,
         now: dt.datetime | None = None, **asked) -> BumpResult:
    """``release bump`` of the project at ``root`` with ``asked`` (``BumpOptions``' fields: ``deps``
    as a tuple, ``commit=True``, ...). ``now``: the run's clock (default ``$RELEASE_NOW``, as the
    command reads it); ``env``: GitHub's settings (default the process's, where the stand-in's
    fixture set them); ``said`` collects the lines said as it runs (roller.yaml's warning)."""
    from release.commands._common import now_utc
    from release.core.config import load_project
    options = BumpOptions(now=now or now_utc(), **asked)
    lines = said if said is not None else []
    return run_bump(load_project(root), options, os.environ if env is None else env, lines.append)
