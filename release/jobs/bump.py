"""The bump job: roll the pins forward by their policies, through the roller's gates, in one order.

``run_bump(project, options, env, say)`` runs ``release.jobs.bump_gates.GATES`` (mode, throttle,
checkout, auto-merge, cooldown, roll, line, changelog, deliver) over one run and returns a
``BumpResult``: what moved and what was committed, pushed or opened, or the gate that ended the
run and the line saying why. ``release bump`` only turns its flags into ``BumpOptions`` and prints
the result: rich for people, ``--json`` (``to_json``) for machines, ``$GITHUB_OUTPUT``
(``outputs``) and the step summary (``summary``) for a workflow; those records live in
``release.jobs.bump_record``. Nothing here prints.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from release.jobs.bump_record import MERGE_METHODS, BumpOptions, BumpResult, Paragraph, PullBody

if TYPE_CHECKING:
    from rich.console import Console

    from release.core.config import Project
    from release.core.output import Say

__all__ = ["MERGE_METHODS", "BumpOptions", "BumpResult", "Paragraph", "PullBody", "run_bump"]


def run_bump(project: Project, options: BumpOptions, env: Mapping[str, str], say: Say, *,
             console: Console | None = None) -> BumpResult:
    """Roll ``project``'s pins as ``options`` ask, through every gate of ``bump_gates.GATES`` in order.

    ``env``: where GitHub is named (GITHUB_REPOSITORY, GITHUB_TOKEN, GITHUB_API_URL) and the public
    index (RELEASE_PUBLIC_INDEX); ``say``: lines for people as the run goes (roller.yaml's warning);
    ``console``: where progress draws (the roll's, GitHub's waits), None for nowhere. A user's or a
    remote's error is raised (``UserError``) before anything is half written."""
    from release.jobs.bump_gates import GATES, BumpRun
    run = BumpRun(project, options, env, say, console)
    for gate in GATES:
        said = gate.run(run)
        if said is not None:
            return run.ended(gate.name, said)
    return run.finished()
