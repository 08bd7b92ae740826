"""Which commit a ``head`` dep rolls to when it has a hold or requires green CI.

Why not simply the tip: a hold (``hold: {commit, reason}``, often written by
``release bisect --hold``) means "never this commit or anything after it", and
``require`` means "only a commit whose CI passed". Both walk the branch's first-parent
line back from the tip toward the current pin: the hold cuts off every commit that
contains the held one, then the newest green commit left is taken (``release.sources.ci_status``),
at most ``max_walk`` commits back; with none, the pin stays. A pin that already contains
the held commit moves back to the newest first-parent commit before it, so the next
nightly is built without it; with ``require``, to the newest green commit before it, by the
same rule and ``max_walk`` as a roll (none green: the pin stays, and the line says it still
holds the culprit). Every decision is one line for the changelog and PR body.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from release.core.config import Dep, RollHead
from release.core.errors import UserError
from release.sources import ci_status

if TYPE_CHECKING:
    from release.sources.github import GitHubClient
    from release.sources.mirror import Mirror

    GitHubRepo = tuple[str, str, GitHubClient]  # owner, repository, a client to read its CI


@dataclasses.dataclass(frozen=True)
class Selection:
    """The commit a roll picked for a dep, and the line that says why."""

    commit: str
    note: str = ""        # one line for the changelog ("" when it is simply the tip)
    back: bool = False    # a move back the hold asked for (allowed without --allow-rewind)
    source: str = ""      # for the move's sentence


def preflight(dep: Dep) -> GitHubRepo:
    """Refuse a green roll that cannot work before any network: returns ``(owner, repo, client)``."""
    owner, repo = ci_status.require_github(dep.name, dep.url)
    return owner, repo, ci_status.client_from_env(dep.name)


def select(dep: Dep, tip: str, roll: RollHead, mirror: Mirror, github: GitHubRepo | None = None, *,
           soaked_before: int | None = None) -> Selection:
    """The commit for ``dep`` given its branch ``tip``; ``github`` is ``preflight``'s answer
    (asked here when a green roll needs it and none was given). ``soaked_before`` (roller.yaml's
    cooldown) leaves out the newest commits committed after it: the newest soaked one is taken."""
    pin, hold = dep.commit, dep.hold
    shown = mirror.remote.shown
    if not mirror.fetch_commit(tip, trees=False):
        raise UserError(f"{dep.name}: the tip {tip[:7]} of {dep.branch} is not on {shown}")
    pin_known = mirror.fetch_commit(pin, trees=False)
    line = mirror.first_parents(pin, tip) if pin_known else [tip]  # newest first, pin excluded
    notes: list[str] = []
    held_source = ""
    if hold is not None:
        held = hold.commit
        if not mirror.fetch_commit(held, trees=False):
            raise UserError(f"{dep.name}: the hold's commit {held[:7]} is not on {shown}; fix or remove "
                            f"the hold in deps.yaml")
        said = f"{dep.name}: held before {held[:7]} ({hold.reason})"
        if pin_known and mirror.is_ancestor(held, pin):
            back = [c for c in mirror.first_parents(held, pin) if not mirror.is_ancestor(held, c)]
            target = back[0] if back else mirror.first_parent(held)
            if target is None:
                raise UserError(f"{dep.name}: the hold's commit {held[:7]} has no parent to move back to")
            said += f"; the pin {pin[:7]} contains it"
            if roll.require is None:
                return Selection(target, f"{said}, so moved back to {target[:7]}, the newest first-parent "
                                         "commit before it", back=True, source=f"held before {held[:7]}")
            return _green_move_back(dep, roll, mirror, github, target, said, f"held before {held[:7]}")
        allowed = [c for c in line if not mirror.is_ancestor(held, c)]
        cut = len(line) - len(allowed)
        notes.append(said + (f"; {cut} newer commit{'s' if cut != 1 else ''} not taken until the hold "
                             "is removed" if cut else ""))
        line = allowed
        held_source = f"held before {held[:7]}"
    if soaked_before is not None and line:
        young = 0
        while young < len(line) and mirror.commit_time(line[young]) > soaked_before:
            young += 1
        if young:
            notes.append(f"{dep.name}: cooldown: {young} newest commit{'s' if young != 1 else ''} not soaked yet"
                         + (f"; took {line[young][:7]}, the newest that has" if young < len(line)
                            else "; none has, so the pin stays"))
            line = line[young:]
            held_source = held_source or "the newest soaked commit"
    if not line:
        return Selection(pin, "; ".join(notes))
    if roll.require is None:
        return Selection(line[0], "; ".join(notes), source=held_source)
    owner, repo, client = github if github is not None else preflight(dep)
    pick = ci_status.pick_green(dep.name, line, pin, ci_status.verdict_reader(client, owner, repo, roll.require),
                                roll.max_walk)
    notes.append(pick.line())
    chosen = pick.chosen or pin
    source = "green" if pick.behind == 0 else f"the newest green, {pick.behind} behind the tip"
    return Selection(chosen, "; ".join(notes), source=source if pick.chosen else "")


def _green_move_back(dep: Dep, roll: RollHead, mirror: Mirror, github: GitHubRepo | None, target: str,
                     said: str, source: str) -> Selection:
    """A held pin moves back to the newest green first-parent commit from ``target`` (the
    newest commit before the held one), at most ``max_walk`` checked, as a roll picks; with none
    green the pin stays, and the line says so."""
    line = [target]
    while len(line) < roll.max_walk and (parent := mirror.first_parent(line[-1])) is not None:
        line.append(parent)
    assert roll.require is not None  # called for green rolls only
    owner, repo, client = github if github is not None else preflight(dep)
    pick = ci_status.pick_green(dep.name, line, dep.commit,
                                ci_status.verdict_reader(client, owner, repo, roll.require), roll.max_walk)
    if pick.chosen is None:
        return Selection(dep.commit, f"{said}, but no commit among the {len(pick.verdicts)} first-parent "
                                     f"commits before it is green (newest {target[:7]} is "
                                     f"{pick.verdicts[0].describe()}), so the pin stays, with the held "
                                     "commit in it")
    why = "" if pick.behind == 0 else (f" ({pick.behind} before {target[:7]}, which is "
                                       f"{pick.verdicts[0].describe()})")
    return Selection(pick.chosen, f"{said}, so moved back to {pick.chosen[:7]}, the newest green "
                                  f"first-parent commit before it{why}", back=True, source=f"{source}, green")


def refuse_past_hold(dep: Dep, sha: str, mirror: Mirror) -> None:
    """``bump --to`` obeys a hold too: a person removes the hold to pass it."""
    hold = dep.hold
    if hold is None:
        return
    if mirror.fetch_commit(sha, trees=False) and mirror.fetch_commit(hold.commit, trees=False) \
            and mirror.is_ancestor(hold.commit, sha):
        raise UserError(f"{dep.name}: {sha[:7]} contains the held commit {hold.commit[:7]} "
                        f"({hold.reason}); remove the hold from deps.yaml to pin it")
