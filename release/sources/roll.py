"""Roll policies -> new pins, with the safety checks that keep a bad pin out of deps.yaml.

Each policy is a small object (its deps.yaml roll value plus behaviour) with two steps:
``candidate(dep, ctx)`` picks the commit (the selection step: holds and green-CI choices plug
in there, see ``release.sources.selection``) and ``check(dep, candidate, ctx)`` refuses what the
policy forbids, else returns the ``Move`` with its log:

- ``FollowHead``: the tip of the tracked branch, by ls-remote (no clone); ``StayManual``:
  never moves. Both are ``BranchBound``: the commit must be on the tracked branch and move
  forward unless rewinds are allowed.
- ``FollowVia``: whatever another dep pins in a file (read at that dep's *new* commit), in
  any direction and on any branch, since the source built with it; the branch is found (the
  newest matching ``branches`` that contains it) and only a commit on no official branch
  (a fork's) is refused.
- ``FollowSame``: one tree with another dep (``{same: plugin}``: from jax 0.10 the plugin is
  built from jax's own tree): the source's new commit and branch, checked by the source's policy.
- ``Exact`` (``--to SHA``) proposes one commit and lets the dep's own policy check it.

Deps are resolved in ``Deps.resolution_order()`` so a via dep sees its source's new pin.
Any refusal is a one-line ``UserError`` raised before anything is written.
"""

from __future__ import annotations

import contextlib
import dataclasses
import fnmatch
import re
import threading
from pathlib import Path
from typing import Callable, Iterable, Protocol

from release.core import config
from release.core.config import Dep, Deps
from release.core.errors import ReleaseError, UserError
from release.core.revisions import github_base
from release.sources import branches, module_pin, parallel
from release.sources.git import LogEntry, Remote
from release.sources.line import line_at
from release.sources.mirror import SKEW, Mirror
from release.sources.partial import FIRST_DEPTH
from release.sources.pins import Pin, read_pin
from release.sources.refs import ls_remote, ls_remote_branches

FORWARD, BACKWARD, SIDEWAYS = "forward", "backward", "sideways"
SAME = "same"  # the commit stays; what the source applies on top of it (sha256, patches) changed


@dataclasses.dataclass(frozen=True)
class Candidate:
    """The commit a policy proposes for a dep (the selection step), and what the source said."""

    commit: str
    pin: Pin | None = None  # a via dep: what the source's file pins (var, url, sha256, patches)
    source: str = ""  # who chose it, for the changelog: "the plugin pins", "the tip of master"
    note: str = ""  # a hold or a green-CI choice, one line for the changelog (release.sources.selection)
    back: bool = False  # a move back a hold asked for: allowed without --allow-rewind
    tip: str | None = None  # the branch's tip as the remote listed it a moment ago (head deps)


@dataclasses.dataclass(frozen=True)
class Move:
    """One dep that moved, with the commits old..new (newest first) and how it moved."""

    name: str
    url: str
    branch: str  # the branch the new pin is on
    old: str
    new: str
    direction: str
    commits: tuple[LogEntry, ...]
    old_branch: str = ""  # the branch recorded for the old pin (differs: a branch switch)
    merge_base: str | None = None  # for a sideways move
    dropped: int = 0  # commits of the old pin the new one lacks (a move back or sideways)
    behind: int = 0  # commits on ``branch`` after the new pin (a via pin need not be its tip)
    source: str = ""  # "the plugin pins" ...
    named_url: str | None = None  # the URL the source's file names, when it differs from ``url``
    archive_sha256: str | None = None
    patches: tuple[str, ...] = ()
    line: str | None = None  # the jax dep: jax/version.py's _version at ``new`` (release.sources.line)
    rebranched: bool = False  # SAME: the pin and its files stay, only its branch was re-checked
    off_line: str = ""  # said when the pin is on no release branch of jax's line (release.sources.branches)
    same_as: str = ""  # a FollowSame dep: the dep whose tree it is (its move carries the log)

    @property
    def count(self) -> int:
        return len(self.commits)

    @property
    def rewind(self) -> bool:
        return self.direction in (BACKWARD, SIDEWAYS)

    @property
    def switched(self) -> bool:
        return bool(self.old_branch) and self.old_branch != self.branch


@dataclasses.dataclass(frozen=True)
class RollResult:
    """The deps before and after a roll, each move, and the notes on why."""

    old: Deps
    new: Deps
    moves: tuple[Move, ...]  # in deps.yaml order
    notes: tuple[str, ...] = ()  # holds and green-CI choices, one line each

    @property
    def changed(self) -> bool:
        return bool(self.moves)


class Context:
    """What policies may ask: remotes by ls-remote, mirrors in the cache, the pins so far."""

    def __init__(self, deps: Deps, cache: Path, say: Callable[[str], None] = lambda _: None, *,
                 first_depth: int = FIRST_DEPTH, soaked_before: int | None = None):
        self.deps = deps
        self.soaked_before = soaked_before  # roller.yaml's cooldown: newest commit time a head roll takes
        self.first_depth = first_depth
        self.cache = Path(cache)
        self.say = say
        self.new: dict[str, str] = {d.name: d.commit for d in deps}
        self._stack = contextlib.ExitStack()
        self._mirrors: dict[str, Mirror] = {}
        self._lines: dict[str, str | None] = {}
        self.moves: dict[str, Move] = {}  # the checked moves so far (a same dep copies its source's)
        self._files: set[tuple[str, str]] = set()  # (source, commit) whose via files were fetched
        # The checks of deps on different repositories run at once (``settle_all``): a mirror is
        # made by one thread at a time, and jax's line read by one (the others wait for it).
        self._lock = threading.Lock()
        self._line_lock = threading.RLock()
        self._line_errors: dict[str, ReleaseError] = {}
        self._listings: dict[tuple[str, str], parallel.Later[dict[str, str]]] = {}

    def line(self) -> str | None:
        """jax's line at its new pin (None without a jax dep or a jax/version.py there): the
        recorded line while the pin stays, else read once from the jax mirror."""
        if config.LINE_DEP not in self.deps.names:
            return None
        jax = self.deps[config.LINE_DEP]
        sha = self.new[jax.name]
        if sha == jax.commit and jax.line:
            return jax.line
        with self._line_lock:
            if sha in self._line_errors:  # said again, not asked again (see settle_all)
                raise self._line_errors[sha]
            try:
                return self._line_at(jax, sha)
            except ReleaseError as exc:
                self._line_errors[sha] = exc
                raise

    def _line_at(self, jax: Dep, sha: str) -> str | None:
        if sha not in self._lines:
            self.say(f"{jax.name}: reading {config.LINE_FILE} at {sha[:7]}")
            try:
                self._lines[sha] = line_at(self.mirror(jax), sha, jax.name)
            except UserError:
                if sha != jax.commit:
                    raise  # a jax pin that moves must have a readable line (bump records it)
                self._lines[sha] = None  # the pin stays: the line only orders branches; none known
        return self._lines[sha]

    def __enter__(self) -> Context:
        return self

    def __exit__(self, *exc: object) -> None:
        self._stack.close()

    @staticmethod
    def remote(dep: Dep) -> Remote:
        return Remote(dep.name, dep.url)

    def mirror(self, dep: Dep) -> Mirror:
        with self._lock:
            if dep.url not in self._mirrors:
                self._mirrors[dep.url] = self._stack.enter_context(
                    Mirror(self.cache, self.remote(dep), first_depth=self.first_depth))
            return self._mirrors[dep.url]

    def list_soon(self, dep: Dep, pattern: str) -> None:
        """Start listing ``dep``'s branches matching ``pattern`` now, on its own thread: a check
        that will need them gets them without waiting a round trip more (``listing``)."""
        with self._lock:
            if (dep.url, pattern) not in self._listings:
                remote = self.remote(dep)
                self._listings[(dep.url, pattern)] = parallel.Later(lambda: ls_remote_branches(remote, pattern))

    def listing(self, dep: Dep, pattern: str) -> dict[str, str]:
        """``{branch: tip}`` of ``dep``'s branches matching ``pattern``, asked once a run."""
        self.list_soon(dep, pattern)
        return self._listings[(dep.url, pattern)].get()

    def tip_to_read(self, dep: Dep) -> str:
        """The tip of ``dep``'s branch, which the via deps reading ``dep`` read their pins at next.
        Into a mirror that holds nothing, it is fetched by name with its trees (one git process
        that lists the branch and fetches it: a ref advertisement and a process fewer on a cold
        bump's critical path than a listing, then a fetch by SHA); else listed (a warm mirror
        may hold it already: a day nothing moved asks only the listing)."""
        if any(isinstance(d.roll, config.RollVia) and d.roll.via == dep.name for d in self.deps):
            mirror = self.mirror(dep)
            if mirror.empty and (tip := mirror.fetch_tip(dep.branch)) is not None:
                return tip
        return ls_remote(self.remote(dep), dep.branch)

    def fetch_files(self, source: Dep, sha: str) -> None:
        """Bring, in one fetch, every file the via deps of ``source`` read at its commit ``sha``
        (their pin files and MODULE.bazel), once a run: each via dep then reads its own."""
        if (source.name, sha) in self._files:
            return
        self._files.add((source.name, sha))
        files = [d.roll.file for d in self.deps if isinstance(d.roll, config.RollVia) and d.roll.via == source.name]
        self.mirror(source).fetch_files(sha, [*files, module_pin.MODULE_FILE])

    @property
    def fetches(self) -> int:
        return sum(m.fetches for m in self._mirrors.values())


# ---------------------------------------------------------------- policies


# Each policy is its deps.yaml roll value (fields, ``__str__``) plus two steps:
# ``candidate`` picks the commit (the selection step: where holds or a green-CI filter plug in)
# and ``check`` refuses what the policy forbids, else returns the Move with its log.


class Policy(Protocol):
    """A roll policy: ``candidate`` picks the commit, ``check`` refuses what it forbids."""

    def candidate(self, dep: Dep, ctx: Context) -> Candidate: ...

    def check(self, dep: Dep, cand: Candidate, ctx: Context, *, allow_rewind: bool) -> Move: ...


class BranchBound:
    """head and manual deps: stay on the tracked branch, forward only unless rewinds are allowed."""

    def check(self, dep: Dep, cand: Candidate, ctx: Context, *, allow_rewind: bool) -> Move:
        mirror = ctx.mirror(dep)
        shown = mirror.remote.shown
        old, new = dep.commit, cand.commit
        ctx.say(f"{dep.name}: checking {old[:7]} -> {new[:7]} on {dep.branch}")
        if not mirror.fetch_commit(new, trees=False):
            raise UserError(f"{dep.name}: commit {new[:7]} not found on {shown}; nothing changed")
        if not mirror.on_branch(new, dep.branch, cand.tip):
            raise UserError(f"{dep.name}: commit {new[:7]} is not reachable from branch {dep.branch} of "
                            f"{shown}; refusing to pin it (a {dep.roll} dep stays on its branch)")
        rel = relation(mirror, old, new)
        if rel.direction != FORWARD and not allow_rewind:
            raise UserError(f"{dep.name}: {rel.why}; pass --allow-rewind to pin it anyway")
        return rel.move(dep, cand, dep.branch)


class FollowHead(config.RollHead, BranchBound):
    def candidate(self, dep: Dep, ctx: Context) -> Candidate:
        if self.require is None and dep.hold is None and ctx.soaked_before is None:
            ctx.say(f"{dep.name}: asking {ctx.remote(dep).shown} for the tip of {dep.branch}")
            tip = ctx.tip_to_read(dep)
            return Candidate(tip, source=f"the tip of {dep.branch}", tip=tip)
        from release.sources import selection  # holds, cooldown, green CI (its GitHub checks' reader)
        github = selection.preflight(dep) if self.require else None
        ctx.say(f"{dep.name}: asking {ctx.remote(dep).shown} for the tip of {dep.branch}")
        tip = ls_remote(ctx.remote(dep), dep.branch)
        ctx.say(f"{dep.name}: choosing below the tip {tip[:7]} ({self}"
                + (f", held before {dep.hold.commit[:7]})" if dep.hold else ")"))
        chosen = selection.select(dep, tip, self, ctx.mirror(dep), github, soaked_before=ctx.soaked_before)
        return Candidate(chosen.commit, source=chosen.source or f"the tip of {dep.branch}",
                         note=chosen.note, back=chosen.back, tip=tip)


class StayManual(config.RollManual, BranchBound):
    def candidate(self, dep: Dep, ctx: Context) -> Candidate:  # noqa: ARG002 (the policy protocol)
        return Candidate(dep.commit)


class FollowVia(config.RollVia):
    """Whatever the source pins: its CI built with it, so any direction and any branch goes;
    only a commit missing from the dep's own repository (a fork's) is refused."""

    def candidate(self, dep: Dep, ctx: Context) -> Candidate:
        source = ctx.deps[self.via]
        sha = ctx.new[self.via]
        mirror = ctx.mirror(source)
        where = f"{self.file} at {self.via} {sha[:7]}"
        ctx.say(f"{dep.name}: reading the pin from {where}")
        if not mirror.fetch_commit(sha):
            raise UserError(f"{dep.name}: cannot read {where}: commit not found on {mirror.remote.shown}")
        ctx.fetch_files(source, sha)
        text = mirror.read_file(sha, self.file)
        if text is None:
            raise UserError(f"{dep.name}: {where}: no such file (roll policy via {self.via} "
                            f"expects the pin of {dep.name} there)")
        pin = read_pin(text, name=dep.name, var=self.var, where=f"{dep.name}: {where}")
        module = mirror.read_file(sha, module_pin.MODULE_FILE)
        if module is not None:  # jax's tree pins xla twice: both must say the same
            module_pin.check_agrees(pin, module, name=dep.name, file=self.file, at=f"{self.via} {sha[:7]}")
        return Candidate(pin.commit, pin, f"as the {self.via} pins")

    def check(self, dep: Dep, cand: Candidate, ctx: Context, *, allow_rewind: bool) -> Move:  # noqa: ARG002 (the policy protocol)
        mirror = ctx.mirror(dep)
        shown = mirror.remote.shown
        old, new = dep.commit, cand.commit
        named = _other_url(cand.pin, dep.url)
        said = f" (pinned by {self.via} in {self.file}" + (f", which names {named}" if named else "") + ")"
        # old too, in the same fetch (one round trip): relation() needs it, and the branch's
        # fetch below reaches back only to new's time
        lacking = mirror.fetch_commits((new, old), trees=False)
        if new in lacking:
            raise UserError(f"{dep.name}: commit {new[:7]}{said} not found on {shown}; refusing to pin it")
        # The branch's fetch also brings what relation() asks first of old and new (one fetch less)
        found = branches.find_branch(mirror, ctx.remote(dep), dep, new, self.branches, ctx.line(), ctx.say,
                                     tips=ctx.listing(dep, self.branches), pair=None if old in lacking else old)
        branch = found.branch
        if branch is None:
            tried = f"any branch matching {self.branches}" + (
                f" or {dep.branch}" if not fnmatch.fnmatchcase(dep.branch, self.branches) else "")
            raise UserError(f"{dep.name}: commit {new[:7]}{said} is on no official branch of {shown} "
                            f"(not reachable from {tried}: only on a fork or pull request?); refusing to "
                            "pin it")
        rel = relation(mirror, old, new)
        behind = mirror.count(mirror.tracking_ref(branch), new)
        return dataclasses.replace(rel.move(dep, cand, branch), behind=behind, named_url=named,
                                   off_line=found.off_line)

    def recheck(self, dep: Dep, ctx: Context) -> Move | None:
        """A pin that stays, recorded on another branch than its line's release branch (an old
        choice, or jax changed line): moved onto that branch when it holds the pin, as a move of
        the branch only. Costs one listing of that one name on a day nothing moves, and a fetch
        of that branch only when it moved since the mirror last saw it; other branches are not
        searched again."""
        release = branches.release_branch(self.branches, ctx.line())
        if release is None or release == dep.branch:
            return None
        listed = ls_remote_branches(ctx.remote(dep), release)
        if release not in listed:
            return None
        mirror = ctx.mirror(dep)
        if not mirror.fetch_commit(dep.commit, trees=False):
            return None
        since = mirror.commit_time(dep.commit) - SKEW
        if not mirror.branch_contains(release, dep.commit, since, listed[release]):  # no fetch if it did not move
            return None
        return Move(dep.name, dep.url, release, dep.commit, dep.commit, SAME, (), old_branch=dep.branch,
                    behind=mirror.count(mirror.tracking_ref(release), dep.commit),
                    archive_sha256=dep.archive_sha256, patches=dep.patches, rebranched=True)


class FollowSame(config.RollSame):
    """One tree with dep ``same``: its new commit, on the branch its move found; the source's
    policy checked the commit (head: on its branch, forward), so nothing is asked again."""

    def candidate(self, dep: Dep, ctx: Context) -> Candidate:  # noqa: ARG002 (the policy protocol)
        return Candidate(ctx.new[self.same], source=f"the {self.same}'s tree")

    def check(self, dep: Dep, cand: Candidate, ctx: Context, *, allow_rewind: bool) -> Move:  # noqa: ARG002 (the policy protocol)
        moved = ctx.moves[self.same]
        return dataclasses.replace(moved, name=dep.name, url=dep.url, old=dep.commit, old_branch=dep.branch,
                                   commits=(), source=cand.source, same_as=self.same, named_url=None,
                                   archive_sha256=dep.archive_sha256, patches=dep.patches, line=None, off_line="")


class Exact:
    """``--to SHA``: the dep's own policy checks the commit a person chose."""

    def __init__(self, sha: str, policy: Policy):
        self.sha, self.policy = sha, policy

    def candidate(self, dep: Dep, ctx: Context) -> Candidate:  # noqa: ARG002 (the policy protocol)
        return Candidate(self.sha, source="as given with --to")

    def check(self, dep: Dep, cand: Candidate, ctx: Context, *, allow_rewind: bool) -> Move:
        return self.policy.check(dep, cand, ctx, allow_rewind=allow_rewind)

    def __str__(self) -> str:
        return f"exact {self.sha[:7]}"


def policy_for(roll: config.Roll) -> Policy:
    if isinstance(roll, config.RollHead):
        return FollowHead(roll.require, roll.max_walk)
    if isinstance(roll, config.RollVia):
        return FollowVia(roll.via, roll.file, roll.var, roll.branches)
    if isinstance(roll, config.RollSame):
        return FollowSame(roll.same)
    return StayManual()


def _other_url(pin: Pin | None, url: str) -> str | None:
    """The URL the source's file names when it is another repository than deps.yaml's."""
    if pin is None or not pin.url:
        return None
    same = (github_base(pin.url) or pin.url.rstrip("/")).lower() == (github_base(url) or url.rstrip("/")).lower()
    return None if same else pin.url


# ---------------------------------------------------------------- history questions


@dataclasses.dataclass(frozen=True)
class Relation:
    """How a new pin relates to the old one (forward, back, sideways) and the commits between."""

    old: str
    new: str
    direction: str
    why: str  # for a refusal
    commits: tuple[LogEntry, ...]
    merge_base: str | None = None
    dropped: int = 0

    def move(self, dep: Dep, cand: Candidate, branch: str) -> Move:
        pin = cand.pin
        return Move(dep.name, dep.url, branch, self.old, self.new, self.direction, self.commits,
                    old_branch=dep.branch, merge_base=self.merge_base, dropped=self.dropped,
                    source=cand.source, archive_sha256=pin.sha256 if pin else dep.archive_sha256,
                    patches=pin.patches if pin else dep.patches)


def relation(mirror: Mirror, old: str, new: str) -> Relation:
    """How ``new`` relates to ``old`` (both on the same remote), with the commits it brings."""
    if not mirror.fetch_commit(old, trees=False):
        # Nothing to count against: listing new's whole history would fetch all of it.
        return Relation(old, new, SIDEWAYS, f"the pinned {old[:7]} no longer exists on {mirror.remote.shown}", ())
    if mirror.is_ancestor(old, new):
        return Relation(old, new, FORWARD, "", tuple(mirror.log(old, new)))
    if mirror.is_ancestor(new, old):
        dropped = mirror.count(old, new)
        return Relation(old, new, BACKWARD, f"{new[:7]} is an ancestor of the pinned {old[:7]} "
                        f"(a move back {dropped} commits)", (), dropped=dropped)
    base = mirror.merge_base(old, new)
    why = (f"{new[:7]} and the pinned {old[:7]} have diverged from the merge-base {base[:7]} "
           "(a sideways move)" if base else f"{new[:7]} and the pinned {old[:7]} share no history")
    return Relation(old, new, SIDEWAYS, why, tuple(mirror.log(old, new)), base, mirror.count(old, new))


# ---------------------------------------------------------------- rolling


def roll(deps: Deps, cache: Path, *, only: Iterable[str] = (), to: str | None = None,
         allow_rewind: bool = False, say: Callable[[str], None] = lambda _: None,
         first_depth: int = FIRST_DEPTH, soaked_before: int | None = None,
         holds_only: bool = False) -> RollResult:
    """New pins for ``deps`` (all, or ``only``), checked and with their changelogs.
    ``first_depth``: how deep mirrors are first fetched (tests make boundaries with it);
    ``soaked_before``: a head dep takes no commit newer than this (epoch seconds; the cooldown);
    ``holds_only`` (a throttled roller): only the moves back that holds ask for, and the via
    deps of a dep moved back following it; every other pin stays."""
    only = tuple(only)
    for name in only:
        if name not in deps.names:
            raise UserError(f"--dep {name}: no such dep in {deps.path} (expected one of "
                            f"{', '.join(deps.names)})")
        roll_ = deps[name].roll
        if isinstance(roll_, config.RollSame) and roll_.same not in only:
            raise UserError(f"--dep {name}: {name} is the {roll_.same}'s tree (roll: {{same: {roll_.same}}}) "
                            f"and moves with it; give --dep {roll_.same}")
    if to is not None:
        if not re.fullmatch(r"[0-9a-f]{40}", to):
            raise UserError(f"--to {to}: expected a full commit SHA (40 lowercase hex digits)")
        if len(only) != 1:
            raise UserError("--to SHA pins one dep: give exactly one --dep NAME with it")
    if only:  # a same dep moves with its source, whoever names the source
        only += tuple(d.name for d in deps if isinstance(d.roll, config.RollSame) and d.roll.same in only)
    moves: dict[str, Move] = {}
    notes: list[str] = []
    with Context(deps, cache, say, first_depth=first_depth, soaked_before=soaked_before) as ctx:
        # Every candidate first (each reads only its source's new pin), so every check knows
        # where jax is going: its line names the release branch each pin belongs to.
        chosen: list[tuple[Dep, Policy, Candidate]] = []
        for dep in deps.resolution_order():
            if only and dep.name not in only:
                continue
            policy = policy_for(dep.roll)
            if to is not None and dep.name == only[0]:
                policy = Exact(to, policy)
            cand = policy.candidate(dep, ctx)
            if holds_only and not cand.back and not _follows_a_move(policy, ctx):
                cand = Candidate(dep.commit)  # throttled: no roll forward, only back before holds
            if to is not None and dep.hold is not None:
                from release.sources import selection
                selection.refuse_past_hold(dep, cand.commit, ctx.mirror(dep))
            ctx.new[dep.name] = cand.commit
            notes += [cand.note] if cand.note else []
            chosen.append((dep, policy, cand))
            if isinstance(dep.roll, config.RollVia) and cand.commit != dep.commit:
                ctx.list_soon(dep, dep.roll.branches)  # its check asks which branch holds the pin
        moves.update(settle_all(ctx, chosen, allow_rewind=allow_rewind, holds_only=holds_only))
        jax = moves.get(config.LINE_DEP)
        if jax is not None and jax.new != jax.old:  # the line is read where the pin moves
            moves[jax.name] = dataclasses.replace(jax, line=ctx.line())
    ordered = tuple(moves[d.name] for d in deps if d.name in moves)
    return RollResult(deps, deps.with_pins({m.name: pinned_fields(m) for m in ordered}), ordered,
                      tuple(notes))


def settle_all(ctx: Context, chosen: list[tuple[Dep, Policy, Candidate]], *, allow_rewind: bool,
               holds_only: bool) -> dict[str, Move]:
    """Each chosen dep's move (checked) or re-check, by ``release.sources.parallel``: the deps of
    one repository in order on one thread, the repositories at once; the same deps after, from
    their sources' moves. The first refusal by the deps' order is raised, as one by one would."""
    line = ctx.deps[config.LINE_DEP] if config.LINE_DEP in ctx.deps.names else None
    needs_line = any(isinstance(d.roll, config.RollVia) and (c.commit != d.commit or not holds_only)
                     for d, _, c in chosen)

    def settle(item: tuple[Dep, Policy, Candidate]) -> Move | None:
        dep, policy, cand = item
        if needs_line and line is not None and dep.url == line.url:
            # First: jax's mirror is then this thread's alone (the others read the line). A line
            # that cannot be read is said where a check asks for it, as one by one.
            with contextlib.suppress(ReleaseError):
                ctx.line()
        return _settle(ctx, dep, policy, cand, allow_rewind=allow_rewind, holds_only=holds_only)

    same = [item for item in chosen if isinstance(item[0].roll, config.RollSame)]
    rest = [item for item in chosen if item not in same]
    results, errors = parallel.by_group(rest, lambda item: item[0].url, settle)
    if errors:
        raise errors[min(errors)]
    moves = {item[0].name: move for i, item in enumerate(rest) if (move := results[i]) is not None}
    for dep, policy, cand in same:
        if (move := _settle(ctx, dep, policy, cand, allow_rewind=allow_rewind, holds_only=holds_only)) is not None:
            moves[dep.name] = move
    return moves


def _settle(ctx: Context, dep: Dep, policy: Policy, cand: Candidate, *, allow_rewind: bool,
            holds_only: bool) -> Move | None:
    """One dep's move, checked by its policy, or what a pin that stays still changes (its branch
    re-checked, the source's archive sha256 or patches)."""
    if cand.commit != dep.commit:
        move = ctx.moves[dep.name] = policy.check(dep, cand, ctx, allow_rewind=allow_rewind or cand.back)
        return move
    if holds_only:  # a pin that stays is not re-checked either: nothing but moves back
        return None
    stays = policy.recheck(dep, ctx) if isinstance(policy, FollowVia) else None
    if cand.pin and (cand.pin.sha256, cand.pin.patches) != (dep.archive_sha256, dep.patches):
        stays = Move(dep.name, dep.url, stays.branch if stays else dep.branch, dep.commit, dep.commit,
                     SAME, (), old_branch=dep.branch, source=cand.source, behind=stays.behind if stays else 0,
                     archive_sha256=cand.pin.sha256, patches=cand.pin.patches)
    return stays


def _follows_a_move(policy: Policy, ctx: Context) -> bool:
    """A via dep whose source's pin moves this run (a move back): it must follow, or the pins
    would disagree with what the source pins."""
    source = policy.via if isinstance(policy, FollowVia) else policy.same if isinstance(policy, FollowSame) else None
    return source is not None and ctx.new[source] != ctx.deps[source].commit


def pinned_fields(move: Move) -> dict:
    """What deps.yaml records for a move: the commit, the branch it is on, and what the source
    file says about it (archive sha256, patches)."""
    fields = {"commit": move.new, "branch": move.branch, "archive_sha256": move.archive_sha256,
              "patches": move.patches}
    if move.name == config.LINE_DEP and move.new != move.old:  # a line read at the old pin is stale
        fields["line"] = move.line
    return fields
