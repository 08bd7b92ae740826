"""Roll policies -> new pins, with the safety checks that keep a bad pin out of deps.yaml.

Each policy is a small object with one ``update(dep, ctx)`` that returns the commit the
dep should be pinned to, and a ``__str__`` for logs (openxla-devtools' shape):

- ``FollowHead``: the tip of the tracked branch, by ls-remote (no clone);
- ``FollowVia``: the commit another dep pins in a file, read at that dep's *new* commit;
- ``StayManual``: never moves; ``Exact`` (``--to SHA``) moves one dep to one commit.

Deps are resolved in ``Deps.resolution_order()`` so a via dep sees its source's new pin.
A dep that moves must pass, in order: the new commit exists on the remote, is reachable
from the tracked branch, and moves forward (old is an ancestor of new) unless rewinds
are allowed. Any refusal is a one-line ``UserError`` raised before anything is written.
"""

from __future__ import annotations

import contextlib
import dataclasses
import re
from pathlib import Path
from typing import Callable, Iterable

from release import config
from release.config import Dep, Deps
from release.errors import UserError
from release.git import LogEntry, Mirror, Remote, ls_remote

FORWARD, BACKWARD, SIDEWAYS = "forward", "backward", "sideways"


@dataclasses.dataclass(frozen=True)
class Move:
    """One dep that moved, with the commits old..new (newest first)."""

    name: str
    url: str
    branch: str
    old: str
    new: str
    direction: str
    commits: tuple[LogEntry, ...]

    @property
    def count(self) -> int:
        return len(self.commits)

    @property
    def rewind(self) -> bool:
        return self.direction != FORWARD


@dataclasses.dataclass(frozen=True)
class RollResult:
    old: Deps
    new: Deps
    moves: tuple[Move, ...]  # in deps.yaml order

    @property
    def changed(self) -> bool:
        return bool(self.moves)


class Context:
    """What policies may ask: remotes by ls-remote, mirrors in the cache, the pins so far."""

    def __init__(self, deps: Deps, cache: Path, say: Callable[[str], None] = lambda _: None):
        self.deps = deps
        self.cache = Path(cache)
        self.say = say
        self.new: dict[str, str] = {d.name: d.commit for d in deps}
        self._stack = contextlib.ExitStack()
        self._mirrors: dict[str, Mirror] = {}

    def __enter__(self) -> "Context":
        return self

    def __exit__(self, *exc) -> None:
        self._stack.close()

    @staticmethod
    def remote(dep: Dep) -> Remote:
        return Remote(dep.name, dep.url)

    def mirror(self, dep: Dep) -> Mirror:
        if dep.url not in self._mirrors:
            self._mirrors[dep.url] = self._stack.enter_context(Mirror(self.cache, self.remote(dep)))
        return self._mirrors[dep.url]

    @property
    def fetches(self) -> int:
        return sum(m.fetches for m in self._mirrors.values())


# ---------------------------------------------------------------- policies


# Each policy is its deps.yaml roll value (fields, ``__str__``) plus the behaviour.


class FollowHead(config.RollHead):
    def update(self, dep: Dep, ctx: Context) -> str:
        ctx.say(f"{dep.name}: asking {ctx.remote(dep).shown} for the tip of {dep.branch}")
        return ls_remote(ctx.remote(dep), dep.branch)


class FollowVia(config.RollVia):
    def update(self, dep: Dep, ctx: Context) -> str:
        source = ctx.deps[self.via]
        sha = ctx.new[self.via]
        mirror = ctx.mirror(source)
        where = f"{self.file} at {self.via} {sha[:7]}"
        ctx.say(f"{dep.name}: reading {self.var} from {where}")
        if not mirror.fetch_commit(sha):
            raise UserError(f"{dep.name}: cannot read {where}: commit not found on {mirror.remote.shown}")
        text = mirror.read_file(sha, self.file)
        if text is None:
            raise UserError(f"{dep.name}: {where}: no such file (roll policy via {self.via} "
                            f"expects {self.var} = \"<sha>\" there)")
        return read_var(text, self.var, f"{dep.name}: {where}")


class StayManual(config.RollManual):
    def update(self, dep: Dep, ctx: Context) -> str:
        return dep.commit


@dataclasses.dataclass(frozen=True)
class Exact:
    sha: str

    def update(self, dep: Dep, ctx: Context) -> str:
        return self.sha

    def __str__(self) -> str:
        return f"exact {self.sha[:7]}"


def policy_for(roll: config.Roll):
    if isinstance(roll, config.RollHead):
        return FollowHead()
    if isinstance(roll, config.RollVia):
        return FollowVia(roll.via, roll.file, roll.var)
    return StayManual()


_ASSIGN = r'^[ \t]*{var}[ \t]*=[ \t]*(["\'])(.*?)\1'


def read_var(text: str, var: str, where: str) -> str:
    """The value of ``VAR = "<sha>"`` in a Starlark/Python file."""
    m = re.search(_ASSIGN.format(var=re.escape(var)), text, re.M)
    if not m:
        raise UserError(f"{where}: no {var} = \"<sha>\" in the file")
    value = m.group(2)
    if not re.fullmatch(r"[0-9a-f]{40}", value):
        raise UserError(f"{where}: {var} = {value!r}; expected a full commit SHA (40 hex digits)")
    return value


# ---------------------------------------------------------------- rolling


def roll(deps: Deps, cache: Path, *, only: Iterable[str] = (), to: str | None = None,
         allow_rewind: bool = False, say: Callable[[str], None] = lambda _: None) -> RollResult:
    """New pins for ``deps`` (all, or ``only``), checked and with their changelogs."""
    only = tuple(only)
    for name in only:
        if name not in deps.names:
            raise UserError(f"--dep {name}: no such dep in {deps.path} (expected one of "
                            f"{', '.join(deps.names)})")
    if to is not None:
        if not re.fullmatch(r"[0-9a-f]{40}", to):
            raise UserError(f"--to {to}: expected a full commit SHA (40 lowercase hex digits)")
        if len(only) != 1:
            raise UserError("--to SHA pins one dep: give exactly one --dep NAME with it")
    moves: dict[str, Move] = {}
    with Context(deps, cache, say) as ctx:
        for dep in deps.resolution_order():
            if only and dep.name not in only:
                continue
            policy = Exact(to) if to is not None else policy_for(dep.roll)
            new = policy.update(dep, ctx)
            ctx.new[dep.name] = new
            if new != dep.commit:
                moves[dep.name] = check_move(dep, new, ctx, allow_rewind=allow_rewind)
    ordered = tuple(moves[d.name] for d in deps if d.name in moves)
    return RollResult(deps, deps.with_commits({m.name: m.new for m in ordered}), ordered)


def check_move(dep: Dep, new: str, ctx: Context, *, allow_rewind: bool) -> Move:
    """Refuse a move the issue forbids; else return it with its log."""
    mirror = ctx.mirror(dep)
    shown = mirror.remote.shown
    old = dep.commit
    ctx.say(f"{dep.name}: checking {old[:7]} -> {new[:7]} on {dep.branch}")
    if not mirror.fetch_commit(new):
        raise UserError(f"{dep.name}: commit {new[:7]} not found on {shown}; nothing changed")
    if not mirror.on_branch(new, dep.branch):
        raise UserError(f"{dep.name}: commit {new[:7]} is not reachable from branch {dep.branch} of "
                        f"{shown} (a fork-only or dangling commit); refusing to pin it")
    old_known = mirror.fetch_commit(old)
    if not old_known:
        direction = SIDEWAYS
        why = f"the pinned {old[:7]} no longer exists on {shown}"
    elif mirror.is_ancestor(old, new):
        direction, why = FORWARD, ""
    elif mirror.is_ancestor(new, old):
        direction = BACKWARD
        why = f"{new[:7]} is an ancestor of the pinned {old[:7]} (a move backwards)"
    else:
        direction = SIDEWAYS
        why = f"{new[:7]} and the pinned {old[:7]} have no ancestry (a sideways move)"
    if direction != FORWARD and not allow_rewind:
        raise UserError(f"{dep.name}: {why}; pass --allow-rewind to pin it anyway")
    # old..new: what the new pin brings that the old one lacked (nothing for a move backwards).
    commits = tuple(mirror.log(old, new)) if old_known and direction != BACKWARD else ()
    return Move(dep.name, dep.url, dep.branch, old, new, direction, commits)
