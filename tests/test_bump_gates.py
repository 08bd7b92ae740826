"""The bump's gates that decide from what the gates before them set, called one at a time on a
``BumpRun`` (no git, no GitHub): the cooldown is the run's clock less roller.yaml's hours; the
changelog's title and notes say every move, the version's move and each decision (roller.yaml's
mode, the throttle, why the open PR was not merged) in that order; auto-merge asks nothing of
GitHub without the flag, a PR client, a checkout, or when throttled; a run a gate ended says
which, and only the auto-merge gate says merged, only the mode gate roller.yaml's mode.
The whole flows are tests/test_bump.py's and the files named in release/jobs/bump_gates.py."""

from __future__ import annotations

import dataclasses
import datetime as dt

import pytest

from release.core.roller import DRY_RUN, RUNNING, STOPPED, Roller
from release.jobs import bump_gates
from release.jobs.bump_gates import BumpRun
from release.jobs.bump_record import BumpOptions, Paragraph, PullBody
from release.sources.automerge import MergeResult
from release.sources.git import LogEntry
from release.sources.line import VersionMove
from release.sources.roll import FORWARD, Move, RollResult

NOW = dt.datetime(2026, 11, 22, 3, 0, tzinfo=dt.timezone.utc)


def run_of(**fields: object) -> BumpRun:
    options = fields.pop("options", BumpOptions(now=NOW))
    return BumpRun(project=None, options=options, env={}, say=lambda _: None, **fields)  # type: ignore[arg-type]


def move(name: str, old: str, new: str, n: int) -> Move:
    log = tuple(LogEntry(f"{i:x}" * 40, "2026-11-21T00:00:00Z", "A", f"{name} change {i}") for i in range(n, 0, -1))
    return Move(name, f"https://github.com/o/{name}", "main", old * 40, new * 40, FORWARD, log[:n])


XLA, JAX = move("xla", "a", "b", 3), move("jax", "c", "d", 1)
VMOVE = VersionMove("0.9.1", "0.9.2", "0.9.2", "d" * 40)
BACK = VersionMove("0.9.2", "0.9.1.post1", "0.9.1", "e" * 40)


@pytest.mark.parametrize("hours, soaked", [(0, None), (24, NOW - dt.timedelta(hours=24)),
                                           (1.5, NOW - dt.timedelta(hours=1, minutes=30))])
def test_the_cooldown_is_the_runs_clock_less_rollers_hours(hours, soaked):
    run = run_of(roller=Roller(cooldown_hours=hours))
    assert bump_gates.cooldown(run) is None
    assert run.soaked_before == (None if soaked is None else int(soaked.timestamp()))


def changelog_of(moves: tuple[Move, ...], vmove: VersionMove | None, **fields: object) -> PullBody:
    run = run_of(rolled=RollResult(None, None, moves, ("hold: xla at aaaaaaa",)), vmove=vmove,  # type: ignore[arg-type]
                 **fields)
    assert bump_gates.changelog(run) is None and run.body is not None
    return run.body


def test_the_title_names_each_move_then_the_versions():
    assert changelog_of((XLA, JAX), None).title == ("Bump xla aaaaaaa..bbbbbbb (3 commits), "
                                                    "jax ccccccc..ddddddd (1 commit)")
    assert changelog_of((XLA,), VMOVE).title == "Bump xla aaaaaaa..bbbbbbb (3 commits); version 0.9.2"
    assert changelog_of((XLA,), BACK).title == "Bump xla aaaaaaa..bbbbbbb (3 commits); version back 0.9.1.post1"
    assert changelog_of((), VMOVE).title == "Move the version to 0.9.2 (the jax pin's line)"
    assert changelog_of((), BACK).title == "Move the version back to 0.9.1.post1 (the jax pin's line)"
    assert changelog_of((), None).title == "Pins are current"


def test_the_notes_say_the_holds_then_the_versions_move_and_with_no_pin_moved_say_so():
    body = changelog_of((), VMOVE)
    assert body.changes == f"- hold: xla at aaaaaaa\n- {VMOVE.sentence}\n\nThe pins did not move.\n"
    moved = changelog_of((XLA,), VMOVE)
    assert moved.changes.startswith(f"- hold: xla at aaaaaaa\n- {VMOVE.sentence}\n\n")
    assert "xla" in moved.changes.split("\n\n", 1)[1] and "did not move" not in moved.changes
    assert changelog_of((), None).changes == "- hold: xla at aaaaaaa\n\nPins are current.\n"


def test_the_facts_are_the_changelogs_with_the_notes_and_no_changed_of_their_own():
    run = run_of(rolled=RollResult(None, None, (XLA,), ("n1",)), vmove=VMOVE)  # type: ignore[arg-type]
    bump_gates.changelog(run)
    assert "changed" not in run.facts and run.facts["notes"] == ["n1", VMOVE.sentence]
    assert list(run.facts["deps"]) == ["xla"] and run.facts["deps"]["xla"]["count"] == 3


@pytest.mark.parametrize("lines", [
    {}, {"roller_line": "roller.yaml: paused"}, {"throttle_line": "throttled: 3 red nightlies"},
    {"merged": "auto-merge: bump PR #4 not merged: a person's commits"},
    {"roller_line": "r", "throttle_line": "t", "merged": "m"}, {"merged": "m", "roller_line": "r"},
])
def test_each_decision_that_spoke_follows_the_changes_as_its_own_paragraph_in_the_gates_order(lines):
    merged = MergeResult("waiting", lines["merged"]) if "merged" in lines else None
    body = changelog_of((XLA,), None, roller_line=lines.get("roller_line"), throttle_line=lines.get("throttle_line"),
                        merged=merged)
    by = {"roller_line": "mode", "throttle_line": "throttle", "merged": "auto-merge"}
    assert body.paragraphs == tuple(Paragraph(by[key], lines[key]) for key in by if key in lines)
    assert body.markdown().endswith("".join(f"\n{lines[key]}.\n" for key in by if key in lines))


@pytest.mark.parametrize("max_lines, shown", [(None, 3), (1, 1), (0, 0)])
def test_max_log_lines_caps_the_commits_shown_per_move(max_lines, shown):
    body = changelog_of((XLA,), None, options=BumpOptions(now=NOW, max_log_lines=max_lines))
    assert sum(f"xla change {i}" in body.changes for i in (1, 2, 3)) == shown


class NoGitHub:
    """A PR client that must not be asked."""

    def __getattr__(self, name: str) -> object:
        raise AssertionError(f"asked GitHub: {name}")


@pytest.mark.parametrize("fields", [
    {"options": BumpOptions(now=NOW, open_pr=True), "pull": NoGitHub(), "repo": NoGitHub()},   # no --auto-merge
    {"options": BumpOptions(now=NOW, auto_merge=True), "pull": None, "repo": NoGitHub()},
    {"options": BumpOptions(now=NOW, auto_merge=True), "pull": NoGitHub(), "repo": None},
    {"options": BumpOptions(now=NOW, auto_merge=True), "pull": NoGitHub(), "repo": NoGitHub(), "holds_only": True},
])
def test_auto_merge_asks_github_nothing_unless_asked_with_a_pr_client_a_checkout_and_no_throttle(fields):
    run = run_of(**fields)
    assert bump_gates.auto_merge(run) is None and run.merged is None


@pytest.mark.parametrize("merged, checks, ends", [("merged", "success", True), ("waiting", "pending", True),
                                                  ("waiting", "failure", False), ("none", None, False),
                                                  ("kept", None, False)])
@pytest.mark.parametrize("throttle_line", [None, "throttle: 2 red nightlies"])
def test_a_merge_or_pending_checks_end_the_run_with_the_throttles_line_too(monkeypatch, merged, checks, ends,
                                                                           throttle_line):
    from release.sources import automerge
    asked = {}

    def merge_if_green(client, repo, **kw):
        asked.update(kw, client=client, repo=repo)
        return MergeResult(merged, f"auto-merge: {merged}", 4, "f" * 40, checks)

    monkeypatch.setattr(automerge, "merge_if_green", merge_if_green)
    pull = dataclasses.make_dataclass("Pull", ["client", "owner", "name", "base"])("client", "o", "n", "main")
    run = run_of(options=BumpOptions(now=NOW, auto_merge=True, merge_require=("build", "test"), merge_method="squash"),
                 pull=pull, repo="repo", throttle_line=throttle_line)
    said = bump_gates.auto_merge(run)
    assert asked == {"client": "client", "repo": "repo", "owner": "o", "name": "n", "base": "main",
                     "require": ("build", "test"), "method": "squash"}
    assert said == ((f"auto-merge: {merged}", *([throttle_line] if throttle_line else [])) if ends else None)
    run.options = BumpOptions(now=NOW, auto_merge=True)
    bump_gates.auto_merge(run)
    assert asked["require"] == "green" and asked["method"] == "merge"  # the defaults


@pytest.mark.parametrize("gate", [g.name for g in bump_gates.GATES])
def test_an_ended_run_says_which_gate_and_only_its_own_facts(gate):
    merged = MergeResult("merged", "auto-merge: merged #4", 4)
    throttle = dataclasses.make_dataclass("T", [], namespace={"to_json": lambda self: {"red": 3}})()
    run = run_of(options=BumpOptions(now=NOW, dry_run=True), roller=Roller(mode=DRY_RUN), merged=merged,
                 roller_warning="roller.yaml: unknown key", throttle=throttle, throttle_line="held")
    result = run.ended(gate, ("first", "second"))
    assert (result.changed, result.title, result.said, result.ended_by) == (False, "first", ("first", "second"), gate)
    assert result.merged == (True if gate == "auto-merge" else None)
    assert result.roller == (DRY_RUN if gate == "mode" else None)
    assert result.dry_run and result.roller_warning == "roller.yaml: unknown key"
    assert result.throttle == {"red": 3, "line": "held"} and result.auto_merge == merged.to_json()
    assert run_of().ended(gate, ("x",)).merged is None and run_of().ended(gate, ("x",)).throttle is None
    waiting = run_of(merged=MergeResult("waiting", "pending"), roller=Roller(mode=STOPPED))
    assert waiting.ended(gate, ("x",)).merged is (False if gate == "auto-merge" else None)


def test_the_throttle_is_said_only_when_it_spoke():
    throttle = dataclasses.make_dataclass("T", [], namespace={"to_json": lambda self: {"red": 1}})()
    assert run_of(throttle=throttle).throttle_json() is None
    assert run_of(throttle_line="t").throttle_json() is None
    assert run_of(throttle=throttle, throttle_line="t").throttle_json() == {"red": 1, "line": "t"}


@pytest.mark.parametrize("moves, vmove, changed", [((XLA,), None, True), ((), VMOVE, True), ((), None, False)])
@pytest.mark.parametrize("roller_line", [None, "roller.yaml: dry-run"])
def test_a_finished_run_changed_when_a_pin_or_the_version_moved(moves, vmove, changed, roller_line):
    body = PullBody("Bump", "x\n")
    run = run_of(rolled=RollResult(None, None, moves), vmove=vmove, body=body, roller=Roller(mode=RUNNING),  # type: ignore[arg-type]
                 roller_line=roller_line, facts={"deps": {}}, delivered={"branch": "bump/x"},
                 merged=MergeResult("none", "auto-merge: no open bump PR"))
    result = run.finished()
    assert (result.changed, result.title, result.body, result.ended_by) == (changed, "Bump", body, None)
    assert result.version == (vmove.to_json() if vmove else None)
    assert result.roller == (RUNNING if roller_line else None)
    assert result.facts == {"deps": {}} and result.delivered == {"branch": "bump/x"}
    assert result.auto_merge == {"action": "none", "line": "auto-merge: no open bump PR", "number": None,
                                 "sha": None, "checks": None}
    assert not result.dry_run and result.roller_warning is None and result.throttle is None


def test_a_finished_run_says_the_dry_run_the_rollers_warning_and_the_throttle_and_no_merge_when_none_ran():
    throttle = dataclasses.make_dataclass("T", [], namespace={"to_json": lambda self: {"red": 2}})()
    run = run_of(options=BumpOptions(now=NOW, dry_run=True), rolled=RollResult(None, None, (XLA,)),  # type: ignore[arg-type]
                 body=PullBody("Bump", "x\n"), roller_warning="roller.yaml: unknown key 'x'", throttle=throttle,
                 throttle_line="2 red nightlies; only the move back a hold asks for is made")
    result = run.finished()
    assert result.dry_run and result.roller_warning == "roller.yaml: unknown key 'x'" and result.auto_merge is None
    assert result.throttle == {"red": 2, "line": "2 red nightlies; only the move back a hold asks for is made"}
