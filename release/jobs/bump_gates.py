"""The bump's gates, declared once and run in this order by ``release.jobs.bump.run_bump``.

Each gate is a small function over one ``BumpRun`` (the typed context): it reads what the gates
before it decided, sets its own fields, and returns None to go on, or the lines that end the run
(nothing further rolls, commits, pushes, opens or merges). The order is the rule:

- ``mode``: roller.yaml as committed at HEAD; ``stopped`` ends the run, ``dry-run`` makes it a
  ``--dry-run`` whatever the flags;
- ``throttle``: K red nightlies hold the roller to the moves back a hold asks for; with no hold,
  the run ends before any fetch, merge or push;
- ``checkout``: the flags as the mode left them; committing reads deps.yaml as committed, and
  opening a PR names the repository and its token before anything is written;
- ``auto-merge``: the open bump PR merges when it is the tool's and green; a merge, or checks
  still pending, ends the run (the next run rolls from there); never for a throttled roller;
- ``cooldown``: a head-following dep takes no commit younger than roller.yaml's cooldown_hours;
- ``roll``: the new pins by each dep's policy; a throttled roller with no held pin moved ends here;
- ``line``: version_info.json's version follows the jax pin's line, never onto a published version;
- ``changelog``: the title and the notes (``PullBody``) every output is rendered from;
- ``deliver``: the work tree's files, or a commit on the bump branch, its push and the one PR;
  and the ``--changelog`` file.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as _dt
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

from release.jobs.bump_record import BumpOptions, BumpResult, Paragraph, PullBody

if TYPE_CHECKING:
    from rich.console import Console

    from release.core.config import Deps, Project, VersionInfo
    from release.core.output import Say
    from release.core.roller import Roller
    from release.sources.automerge import MergeResult
    from release.sources.line import VersionMove
    from release.sources.pull_requests import BumpPull
    from release.sources.repo import ReleaseRepo
    from release.sources.roll import RollResult
    from release.sources.throttle import Throttle

Said = tuple[str, ...]  # the lines that end a run, its title first


@dataclasses.dataclass
class BumpRun:
    """One bump: its inputs, then each gate's decisions (unset until that gate ran)."""

    project: Project
    options: BumpOptions
    env: Mapping[str, str]
    say: Say
    console: Console | None = None
    roller: Roller | None = None
    roller_warning: str | None = None
    roller_line: str | None = None       # why this run does less than asked (None: running)
    throttle: Throttle | None = None
    throttle_line: str | None = None     # the throttle's decision (None: off)
    holds_only: bool = False             # throttled: only the moves back a hold asks for
    deps: Deps | None = None             # as committed when committing, else as on disk
    repo: ReleaseRepo | None = None      # committing
    pull: BumpPull | None = None         # opening the PR
    merged: MergeResult | None = None    # auto-merge ran and the run went on
    soaked_before: int | None = None     # epoch seconds (the cooldown)
    rolled: RollResult | None = None
    info: VersionInfo | None = None      # version_info.json (as committed when committing)
    info_text: str | None = None
    vmove: VersionMove | None = None
    body: PullBody | None = None
    facts: dict[str, Any] = dataclasses.field(default_factory=dict)
    delivered: dict[str, Any] = dataclasses.field(default_factory=dict)

    def throttle_json(self) -> dict | None:
        """The throttle's decision as said (with a holds-only run's tail), when it spoke."""
        if self.throttle is None or self.throttle_line is None:
            return None
        return {**self.throttle.to_json(), "line": self.throttle_line}

    def ended(self, gate: str, said: Said) -> BumpResult:
        return BumpResult(changed=False, title=said[0], ended_by=gate, said=said,
                          merged=self.merged.action == "merged" if gate == "auto-merge" and self.merged else None,
                          dry_run=self.options.dry_run,
                          roller=self.roller.mode if gate == "mode" and self.roller is not None else None,
                          roller_warning=self.roller_warning, throttle=self.throttle_json(),
                          auto_merge=self.merged.to_json() if self.merged is not None else None)

    def finished(self) -> BumpResult:
        assert self.body is not None and self.rolled is not None
        return BumpResult(changed=bool(self.rolled.moves or self.vmove), title=self.body.title, body=self.body,
                          dry_run=self.options.dry_run, facts=self.facts,
                          version=self.vmove.to_json() if self.vmove else None,
                          roller=self.roller.mode if self.roller_line and self.roller is not None else None,
                          roller_warning=self.roller_warning, throttle=self.throttle_json(),
                          auto_merge=self.merged.to_json() if self.merged is not None else None,
                          delivered=self.delivered)


@dataclasses.dataclass(frozen=True)
class Gate:
    """One gate of the bump: its name, what it does, and the step that may end the run."""

    name: str
    does: str
    run: Callable[[BumpRun], Said | None]


def mode(run: BumpRun) -> Said | None:
    from release.core.roller import DRY_RUN, STOPPED
    from release.sources.repo import committed_roller
    roller, run.roller_warning = committed_roller(run.project.root)  # as reviewed: committed at HEAD
    run.roller = roller.at(run.options.now)  # a pause past its until: is running again
    if run.roller_warning:
        run.say(f"warning: {run.roller_warning}")
    run.roller_line = run.roller.line()
    if run.roller.mode == STOPPED and run.roller_line:
        return (run.roller_line,)
    if run.roller.mode == DRY_RUN:  # as --dry-run, whatever the workflow asked for
        run.options = run.options.as_dry_run()
    return None


def throttle(run: BumpRun) -> Said | None:
    from release.sources.throttle import check
    assert run.roller is not None
    run.throttle = check(run.roller, branch=lambda: _nightly_branch(run), env=run.env, console=run.console)
    run.throttle_line = run.throttle.line()
    # A stopped throttle rolls nothing forward and merges nothing; only the moves back that a
    # hold asks for still go through (a merged hold is how a red streak ends in a green night).
    run.holds_only = run.throttle.stops and run.throttle_line is not None
    if run.holds_only and not any(dep.hold for dep in run.project.deps):  # before any fetch, merge or push
        return (run.throttle_line or "",)
    return None


def checkout(run: BumpRun) -> Said | None:
    from release.sources.repo import ReleaseRepo, committed_deps
    run.options.check()
    run.deps = run.project.deps
    if run.options.commits:
        run.repo = ReleaseRepo(run.project.root)
        run.deps = committed_deps(run.repo, run.deps)
    if run.options.opens_pr and run.repo is not None:  # (--open-pr commits) fail on a missing token first
        from release.sources.github import PULL_REQUEST, GitHubClient
        from release.sources.pull_requests import BumpPull, repository_from_env
        owner, name = repository_from_env(run.env)
        client = GitHubClient.from_env(run.env, console=run.console, needs=PULL_REQUEST)
        run.pull = BumpPull(client, owner, name, run.repo.current_branch())
    return None


def auto_merge(run: BumpRun) -> Said | None:
    if not run.options.auto_merge or run.pull is None or run.repo is None or run.holds_only:
        return None
    from release.sources.automerge import merge_if_green
    pull = run.pull
    run.merged = merge_if_green(pull.client, run.repo, owner=pull.owner, name=pull.name, base=pull.base,
                                require=run.options.merge_require or "green", method=run.options.merge_method)
    if run.merged.action == "merged" or run.merged.checks == "pending":  # the next run rolls from there
        return (run.merged.line, *([run.throttle_line] if run.throttle_line else []))  # the throttle decided too
    return None


def cooldown(run: BumpRun) -> Said | None:
    assert run.roller is not None
    if run.roller.cooldown_hours:  # by the run's clock, never the wall's
        run.soaked_before = int((run.options.now - _dt.timedelta(hours=run.roller.cooldown_hours)).timestamp())
    return None


def roll(run: BumpRun) -> Said | None:
    from release.sources.checkout import cache_dir
    from release.sources.roll import roll as roll_pins
    assert run.deps is not None
    with _progress(run.console, "rolling pins") as update:
        run.rolled = roll_pins(run.deps, cache_dir(run.project.root), only=run.options.deps, to=run.options.to,
                               allow_rewind=run.options.allow_rewind, say=update,
                               soaked_before=run.soaked_before, holds_only=run.holds_only)
    if run.holds_only:
        if not run.rolled.moves:  # no pin contains a held commit: nothing rolls, as throttled
            return (run.throttle_line or "",)
        run.throttle_line = f"{run.throttle_line}; only the move back a hold asks for is made"
    return None


def line(run: BumpRun) -> Said | None:
    """The release line is jax's: version_info.json's version follows the jax pin's line, in the
    same commit (from the committed file when committing, as deps.yaml is)."""
    from release.core.config import LINE_DEP, parse_version_info
    from release.sources.line import version_move
    assert run.rolled is not None
    path = run.project.version_info.path
    run.info_text = run.repo.committed(path) if run.repo is not None else None
    run.info = parse_version_info(path, run.info_text) if run.info_text is not None else run.project.version_info
    jax = run.rolled.new[LINE_DEP]
    published: tuple[str, ...] = ()
    if jax.line is not None and jax.line != run.info.line:  # a line may be released already: never reuse it
        from release.check.resolver import index_versions, public_index_default
        published = index_versions(run.info.rocm_majors, public_index_default(run.env))
    run.vmove = version_move(run.info, jax, published)
    return None


def changelog(run: BumpRun) -> Said | None:
    from release.sources import changelog as log
    assert run.rolled is not None
    moves, vmove = run.rolled.moves, run.vmove
    notes = run.rolled.notes + ((vmove.sentence,) if vmove else ())
    run.facts = log.to_json(moves, notes)
    del run.facts["changed"]  # the run's: the version may move with no pin
    max_lines = log.DEFAULT_MAX_LINES if run.options.max_log_lines is None else run.options.max_log_lines
    changes = log.markdown(moves, max_lines, notes)
    title = log.title(moves) if moves else "Pins are current"
    if vmove is not None:
        back = " back" if vmove.back else ""
        title = (f"{title}; version{back} {vmove.new}" if moves else
                 f"Move the version{back} to {vmove.new} (the jax pin's line)")
        changes = changes if moves else log.notes_markdown(notes) + "The pins did not move.\n"
    said = (("mode", run.roller_line), ("throttle", run.throttle_line),
            ("auto-merge", run.merged.line if run.merged is not None else None))  # why the open PR was not merged
    run.body = PullBody(title, changes, tuple(Paragraph(by, text) for by, text in said if text is not None))
    return None


def deliver(run: BumpRun) -> Said | None:
    from release.core.atomic import atomic_write
    from release.core.config import render_deps, render_version_info, save_deps, save_version_info
    from release.core.redact import redact
    assert run.rolled is not None and run.body is not None and run.info is not None
    proj, options, rolled, vmove = run.project, run.options, run.rolled, run.vmove
    changed = bool(rolled.moves or vmove)
    if not options.dry_run and changed:
        if rolled.moves and run.repo is None:  # committing leaves the work tree as the person left it
            save_deps(rolled.new)
        if vmove is not None and run.repo is None:
            save_version_info(dataclasses.replace(proj.version_info, version=vmove.new))
    if run.repo is not None:  # --commit (or --push, --open-pr): the files as committed, with the new pins
        from release.sources.pull_requests import deliver_bump
        deps_text = run.repo.committed(proj.deps.path)
        also = {proj.deps.path: render_deps(rolled.new, deps_text)} if deps_text is not None else {}
        if vmove is not None and run.info_text is not None:
            also[run.info.path] = render_version_info(dataclasses.replace(run.info, version=vmove.new), run.info_text)
        run.delivered = deliver_bump(run.repo, proj.deps.path,
                                     moved=tuple(m.name for m in rolled.moves) + (("version",) if vmove else ()),
                                     date=options.branch_date, title=run.body.title, body=run.body.markdown(),
                                     push=options.pushes, pull=run.pull, also=also)
        kept = run.delivered.get("pull_request", {}).get("reason")
        if kept:  # a person's commits on the bump PR: this run pushed nothing, and says why
            run.body = run.body.adding("deliver", kept)
    if options.changelog and not options.dry_run and changed:
        atomic_write(options.changelog, redact(f"# {run.body.title}\n\n{run.body.markdown()}"))
    return None


GATES: tuple[Gate, ...] = (
    Gate("mode", "roller.yaml as committed: stopped ends the run, dry-run makes it a dry run", mode),
    Gate("throttle", "red nightlies in a row hold the roller to a hold's moves back", throttle),
    Gate("checkout", "the flags as the mode left them; the committed deps.yaml and the PR's client", checkout),
    Gate("auto-merge", "merge the open bump PR when it is the tool's and green; a merge or pending checks end the run",
         auto_merge),
    Gate("cooldown", "a head-following dep takes only commits older than cooldown_hours", cooldown),
    Gate("roll", "the new pins by each dep's policy", roll),
    Gate("line", "version_info.json's version follows the jax pin's line", line),
    Gate("changelog", "the title and notes every output is rendered from", changelog),
    Gate("deliver", "write the files, or commit, push and open the one PR; the --changelog file", deliver),
)


def _nightly_branch(run: BumpRun) -> str | None:
    """The branch whose nightly runs the throttle reads: the one checked out (the bump PR's
    base); None (every branch) on a detached HEAD or outside a checkout."""
    from release.sources.repo import checked_out_branch
    return checked_out_branch(run.project.root)


@contextlib.contextmanager
def _progress(console: Console | None, text: str) -> Iterator[Callable[[str], None]]:
    """A transient spinner on ``console`` whose text each update replaces; nothing without one."""
    if console is None:
        yield lambda _text: None
        return
    with console.status(text) as status:
        yield lambda update: status.update(update)
