"""The throttle: after K red nightlies in a row the roller stops, until a nightly is green again
or a person resets it by a reviewed commit of roller.yaml.

Why: rolling more pins onto a red nightly piles new changes onto a failure nobody has
understood yet. The rule (``decide``, pure, over the nightly runs newest first):
- from the newest run back, red runs count (a failed run is red only when a gate of the
  nightly failed: build, verify, validate or smoke; ``nightly_runs.with_gates``); a green run
  ends the streak; so does the first
  run the reset covers (``throttle_reset_after``: a run number at or below it, or a run
  created at or before that time): reds at or before the reset no longer count;
- runs that are neither (cancelled, skipped, ...) or still running are passed over, never
  counted and never ending the streak;
- K or more counted reds stop the roller; fewer let it roll. At most ``MAX_READ`` runs are
  read (the streak is then "at least" that long).

Whose runs: one nightly run holds every maintained line, on the default branch
(``nightly.yml``), so line L's throttle reads the runs of the default branch (for a
``release/X.Y`` line, asked of GitHub) and judges a failed run by L's jobs alone
(``nightly_runs.of_line``): another line's red build never stops L, and L's never stops it.
A run that succeeded is green for every line.

Whether the runs can be read decides too (``check``): without ``GITHUB_TOKEN`` or
``GITHUB_REPOSITORY`` (a person's bump on their machine) they are not read and the roller
rolls, saying so; with them but the runs unreadable (a token without ``actions: read``,
GitHub down, a malformed answer) the roller does not roll: a brake that cannot see holds.
Each decision is one line (``Throttle.line``).
"""

from __future__ import annotations

import dataclasses
import os
from typing import TYPE_CHECKING, Callable, Iterable, Mapping

from release.core import sanitize
from release.core.lines import LINE_PREFIX
from release.core.redact import redact
from release.core.roller import not_asked as not_asked  # re-exported: the throttle's line offline

# The runs' reader (nightly_runs, shapes) is imported where the runs are read or judged: a bump
# whose throttle is off or not asked (no GITHUB_TOKEN) loads none of it (issue 36 item 2).

if TYPE_CHECKING:
    from rich.console import Console

    from release.core.roller import Reset, Roller
    from release.sources.github import GitHubClient
    from release.sources.nightly_runs import NightlyRun

OFF, CLEAR, THROTTLED, UNREADABLE, UNCHECKED = "off", "clear", "throttled", "unreadable", "unchecked"
MAX_READ = 100
DEADLINE = 120.0  # seconds per request: a bump waits this long for GitHub at most, then holds


def covered(run: NightlyRun, reset: Reset | None) -> bool:
    """Whether the person's reset covers ``run`` (it no longer counts)."""
    if reset is None:
        return False
    if isinstance(reset, int):
        return run.run_number <= reset
    return run.created_at <= reset


@dataclasses.dataclass(frozen=True)
class Throttle:
    """The throttle's decision: the red streak it counted and whether the roller rolls."""

    limit: int
    state: str                          # OFF, CLEAR, THROTTLED, UNREADABLE or UNCHECKED
    reds: tuple[NightlyRun, ...] = ()   # the red streak counted, newest first
    ended_by: NightlyRun | None = None  # the green run, or the run the reset covers, that ended it
    at_reset: bool = False              # the streak ended at the reset, not at a green run
    reset: str | None = None            # the reset as roller.yaml says it (``run #415``)
    why: str | None = None              # why the runs were not read, or could not be
    more: bool = False                  # MAX_READ runs read without reaching the streak's start
    read: int = 0                       # runs read

    @property
    def stops(self) -> bool:
        return self.state in (THROTTLED, UNREADABLE)

    def line(self) -> str | None:
        """The decision in one line (None when the throttle is off)."""
        if self.state == OFF:
            return None
        if self.state == UNCHECKED:
            return f"throttle: nightly runs not read ({self.why}): rolling without the throttle"
        if self.state == UNREADABLE:
            from release.sources.nightly_runs import TOKEN_SCOPES
            return (f"throttle: the nightly runs could not be read ({self.why}): not rolling until "
                    f"they can (the token needs {TOKEN_SCOPES})")
        count = f"{len(self.reds)}{' or more' if self.more else ''}"
        if self.reds:
            first = self.reds[-1]
            streak = (f"{count} red nightl{'y' if len(self.reds) == 1 else 'ies'} in a row, the first "
                      f"{first.label()} {sanitize.line(first.html_url)}")
        if self.state == THROTTLED:
            return (f"throttle: {streak} (limit {self.limit}): not rolling until a nightly is green or "
                    f"a reviewed commit sets roller.yaml throttle_reset_after: {self.reds[0].run_number}")
        if self.reds:
            return f"throttle: {streak} (stops at {self.limit}); rolling"
        return f"throttle: no red nightly {self._since()}; rolling"

    def _since(self) -> str:
        if self.at_reset:
            return f"since roller.yaml's reset (throttle_reset_after: {self.reset})"
        if self.ended_by is not None:
            return f"since the last green {self.ended_by.label()}"
        return f"in the {self.read} run{'s' if self.read != 1 else ''} read" if self.read else "(no nightly run yet)"

    def to_json(self) -> dict:
        return {"state": self.state, "limit": self.limit, "stops": self.stops, "line": self.line(),
                "reds": [r.to_json() for r in self.reds], "more": self.more,
                "ended_by": self.ended_by.to_json() if self.ended_by else None, "at_reset": self.at_reset,
                "reset": self.reset, "why": self.why}


def decide(runs: Iterable[NightlyRun], limit: int, reset: Reset | None = None,
           reset_text: str | None = None, *, max_read: int = MAX_READ) -> Throttle:
    """The throttle over ``runs`` (newest first), by the module's rule."""
    from release.sources.nightly_runs import GREEN, RED
    if limit <= 0:
        return Throttle(limit, OFF, reset=reset_text)
    reds: list[NightlyRun] = []
    ended_by, read, more = None, 0, False
    for run in runs:
        if read >= max_read:  # a run past the bound: the streak is longer than what was read
            more = True
            break
        read += 1
        if covered(run, reset) or run.outcome == GREEN:
            ended_by = run
            break
        if run.outcome == RED:
            reds.append(run)
    state = THROTTLED if len(reds) >= limit else CLEAR
    at_reset = ended_by is not None and covered(ended_by, reset)
    return Throttle(limit, state, tuple(reds), ended_by, at_reset, reset_text, None, more, read)


def check(roller: Roller, *, branch: str | None | Callable[[], str | None], env: Mapping[str, str] | None = None,
          console: Console | None = None) -> Throttle:
    """The throttle of the line on ``branch`` over this repository's nightly runs
    (GITHUB_REPOSITORY, GITHUB_TOKEN, GITHUB_API_URL), by ``roller``'s limit and reset.
    ``branch`` may be a function, asked (and the GitHub client imported) only when the runs are
    read: a throttle that is off or cannot be asked costs a bump nothing."""
    if roller.throttle_after_red <= 0:
        return Throttle(roller.throttle_after_red, OFF, reset=roller.reset_text())
    env = os.environ if env is None else env
    full = env.get("GITHUB_REPOSITORY", "")
    owner, _, name = full.partition("/")
    if not env.get("GITHUB_TOKEN"):
        return unchecked(roller, "GITHUB_TOKEN is not set")
    if not owner or not name or "/" in name:
        return unchecked(roller, "GITHUB_REPOSITORY is not set to owner/name")
    from release.sources.github import WORKFLOW_RUNS, GitHubClient
    client = GitHubClient.from_env(env, console=console, deadline=DEADLINE, needs=WORKFLOW_RUNS)
    return read(roller, client, owner, name, branch=branch() if callable(branch) else branch)


def unchecked(roller: Roller, why: str) -> Throttle:
    """The runs were not asked for (``why``): the throttle, which is on, does not hold the roller."""
    return Throttle(roller.throttle_after_red, UNCHECKED, reset=roller.reset_text(), why=why)


def runs_branch(client: GitHubClient, owner: str, name: str, line: str | None) -> str | None:
    """The branch whose nightly runs hold ``line``'s jobs: the line's own unless it is a
    ``release/X.Y`` line, whose jobs run in the default branch's nightly (one request)."""
    if line is None or not line.startswith(LINE_PREFIX):
        return line
    from release.sources.shapes import fields
    repo = fields(client.request("GET", f"/repos/{owner}/{name}"), "repository", default_branch=str)
    return str(repo["default_branch"])


def read(roller: Roller, client: GitHubClient, owner: str, name: str, *, branch: str | None) -> Throttle:
    """The throttle of the line on ``branch`` over ``owner/name``'s nightly runs read with
    ``client`` (``release status`` and the dashboard call this with their own client); runs
    GitHub will not give are UNREADABLE, which holds the roller."""
    from release.sources.github import GitHubError
    from release.sources.nightly_runs import iter_runs, with_gates
    limit, reset_text = roller.throttle_after_red, roller.reset_text()
    if limit <= 0:  # off: nothing is asked
        return decide((), limit, roller.throttle_reset_after, reset_text)
    try:
        runs = iter_runs(client, owner, name, branch=runs_branch(client, owner, name, branch))
        return decide(with_gates(client, owner, name, runs, line=branch), limit, roller.throttle_reset_after,
                      reset_text)
    except GitHubError as exc:
        return Throttle(limit, UNREADABLE, reset=reset_text, why=sanitize.line(redact(str(exc))))
