"""The bump's gates that read this checkout or write its files, called one at a time on a
``BumpRun`` over a real git checkout of the shipped config: ``mode`` reads roller.yaml as committed
(a pause past its until runs; dry-run makes the run a dry run whatever the flags); ``throttle``
ends a run it stops unless a hold asks for a move back; ``checkout`` refuses contradicting flags
and reads deps.yaml as committed when committing; ``roll`` asks for the pins the gates before it
allow, a throttled run that moved nothing ends there; ``line`` follows the jax pin's line, from
the committed version_info.json when committing, asking the index only when the line moves;
``deliver`` writes the work tree's files, or commits (the work tree untouched), and the
--changelog file, and nothing on a dry run.

What the gates call out to (the nightly runs, the upstream mirrors, the public index, the commit
and the PR) is replaced by what it answers; their own rules are tests/test_throttle.py's,
tests/test_rolls.py's, tests/test_version_line.py's and tests/test_bump.py's, and the whole bump's
are tests/test_bump.py's and the files release/jobs/bump_gates.py names."""

from __future__ import annotations

import dataclasses
import datetime as dt
import io
import json
import shutil
from pathlib import Path
from types import SimpleNamespace

import pytest

from release.check import resolver
from release.core.config import Hold, load_project, render_hold
from release.core.errors import UserError
from release.core.roller import DRY_RUN, RUNNING, STOPPED
from release.jobs import bump_gates
from release.jobs.bump_gates import BumpRun
from release.jobs.bump_record import BumpOptions, Paragraph, PullBody
from release.sources import pull_requests, throttle
from release.sources import roll as roll_module
from release.sources.roll import FORWARD, Move, RollResult
from release.sources.throttle import OFF, UNCHECKED, UNREADABLE, Throttle
from tests.support.gitrepos import git
from tests.support.project import copy_config

NOW = dt.datetime(2026, 11, 22, 3, 0, tzinfo=dt.timezone.utc)
NEW = "f" * 40


@pytest.fixture(scope="module")
def template(tmp_path_factory) -> Path:
    """A checkout (one commit, on main) of the shipped deps.yaml and version_info.json."""
    root = tmp_path_factory.mktemp("template") / "proj"
    root.mkdir()
    copy_config(root)
    git("init", "--quiet", "-b", "main", cwd=root)
    commit(root)
    return root


def commit(root: Path, message: str = "config") -> None:
    git("add", "-A", cwd=root)
    git("-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "--quiet", "-m", message, cwd=root)


@pytest.fixture
def root(template, tmp_path, monkeypatch) -> Path:
    copy = tmp_path / "proj"
    shutil.copytree(template, copy, symlinks=True)
    monkeypatch.setenv("JAX_ROCM_RELEASE_CACHE", str(tmp_path / "cache"))
    return copy


def run_at(root: Path, *, said: list[str] | None = None, **fields: object) -> BumpRun:
    options = fields.pop("options", BumpOptions(now=NOW))
    return BumpRun(load_project(root), options, fields.pop("env", {}),  # type: ignore[arg-type]
                   (said if said is not None else []).append, **fields)  # type: ignore[arg-type]


# ---------------------------------------------------------------- mode


def test_rollers_mode_is_as_committed_and_a_work_tree_edit_is_said_and_ignored(root):
    (root / "roller.yaml").write_text("mode: stopped\n")
    commit(root)
    (root / "roller.yaml").write_text("mode: running\n")
    said: list[str] = []
    run = run_at(root, said=said)
    assert bump_gates.mode(run) == (run.roller_line,) and run.roller is not None and run.roller.mode == STOPPED
    assert run.roller_line is not None and run.roller_line.startswith("roller stopped")
    assert len(said) == 1 and said[0] == f"warning: {run.roller_warning}" and "roller.yaml" in said[0]


def test_a_pause_past_its_until_by_the_runs_clock_rolls(root):
    (root / "roller.yaml").write_text("mode: stopped\nuntil: 2026-11-21\n")
    commit(root)
    run = run_at(root)
    assert bump_gates.mode(run) is None and run.roller is not None and run.roller.mode == RUNNING
    assert run.roller_line is None and run.roller_warning is None
    early = run_at(root, options=BumpOptions(now=dt.datetime(2026, 11, 21, 23, 59, tzinfo=dt.timezone.utc)))
    assert bump_gates.mode(early) is not None and early.roller is not None and early.roller.mode == STOPPED


def test_dry_run_mode_makes_the_run_a_dry_run_whatever_the_flags(root):
    (root / "roller.yaml").write_text("mode: dry-run\n")
    commit(root)
    asked = BumpOptions(now=NOW, open_pr=True, auto_merge=True, merge_method="squash", deps=("jax",))
    run = run_at(root, options=asked)
    assert bump_gates.mode(run) is None and run.roller is not None and run.roller.mode == DRY_RUN
    assert run.options == asked.as_dry_run() and run.options.dry_run and not run.options.commits
    assert run.options.deps == ("jax",) and run.roller_line is not None


def test_a_running_roller_leaves_the_flags_and_says_nothing(root):
    asked = BumpOptions(now=NOW, commit=True)
    run = run_at(root, options=asked)
    assert bump_gates.mode(run) is None and run.options is asked
    assert run.roller is not None and run.roller.mode == RUNNING and run.roller_line is None


# ---------------------------------------------------------------- throttle


@pytest.fixture
def decided(monkeypatch):
    """``throttle.check`` answering ``answer``; ``asked`` what it was given (its branch asked)."""
    state = SimpleNamespace(answer=Throttle(0, OFF), asked=[])

    def check(roller, *, branch, env, console):
        state.asked.append({"roller": roller, "branch": branch(), "env": env, "console": console})
        return state.answer

    monkeypatch.setattr(throttle, "check", check)
    return state


def held(root: Path) -> None:
    """A hold on the plugin (a head dep) in deps.yaml."""
    path = root / "deps.yaml"
    path.write_text(render_hold(path, path.read_text(), "plugin", Hold("e" * 40, "breaks the build")))


def test_a_stopping_throttle_with_no_hold_ends_the_run_with_its_line(root, decided):
    decided.answer = Throttle(3, UNREADABLE, why="403")
    run = run_at(root)
    bump_gates.mode(run)
    assert bump_gates.throttle(run) == (decided.answer.line(),) and run.holds_only
    assert run.throttle is decided.answer and run.throttle_line == decided.answer.line()


def test_a_stopping_throttle_lets_the_moves_back_a_hold_asks_for_through(root, decided):
    held(root)
    decided.answer = Throttle(3, UNREADABLE, why="403")
    run = run_at(root)
    bump_gates.mode(run)
    assert bump_gates.throttle(run) is None and run.holds_only and run.throttle_line == decided.answer.line()


@pytest.mark.parametrize("answer", [Throttle(0, OFF), Throttle(3, UNCHECKED, why="GITHUB_TOKEN is not set")])
def test_a_throttle_that_does_not_stop_holds_nothing_back(root, decided, answer):
    decided.answer = answer
    run = run_at(root)
    bump_gates.mode(run)
    assert bump_gates.throttle(run) is None and not run.holds_only and run.throttle_line == answer.line()
    assert run.throttle_json() == (None if answer.state == OFF else {**answer.to_json(), "line": answer.line()})


def test_the_throttle_reads_the_nightlies_of_the_branch_checked_out_with_the_runs_roller_and_env(root, decided):
    env = {"GITHUB_REPOSITORY": "o/n"}
    console = object()
    run = run_at(root, env=env, console=console)
    bump_gates.mode(run)
    bump_gates.throttle(run)
    git("checkout", "--quiet", "--detach", cwd=root)
    bump_gates.throttle(run)
    assert decided.asked == [{"roller": run.roller, "branch": "main", "env": env, "console": console},
                             {"roller": run.roller, "branch": None, "env": env, "console": console}]


# ---------------------------------------------------------------- checkout


@pytest.mark.parametrize("asked, match", [({"dry_run": True, "commit": True}, "--dry-run writes nothing"),
                                          ({"merge_method": "squash"}, "--merge-require and --merge-method need")])
def test_contradicting_flags_are_refused_at_the_checkout(root, asked, match):
    with pytest.raises(UserError, match=match):
        bump_gates.checkout(run_at(root, options=BumpOptions(now=NOW, **asked)))


def test_without_committing_the_deps_are_the_work_trees_and_no_checkout_is_read(root):
    path = root / "deps.yaml"
    path.write_text(path.read_text().replace(load_project(root).deps["plugin"].commit, NEW))
    git("update-ref", "-d", "HEAD", cwd=root)  # not even a commit
    run = run_at(root)
    assert bump_gates.checkout(run) is None and run.deps is not None and run.deps["plugin"].commit == NEW
    assert run.repo is None and run.pull is None


def test_committing_rolls_from_deps_yaml_as_committed(root):
    project = load_project(root)
    committed = project.deps["plugin"].commit
    path = root / "deps.yaml"
    path.write_text(path.read_text().replace(committed, NEW))  # a person's pin edit, not committed
    run = run_at(root, options=BumpOptions(now=NOW, commit=True))
    assert bump_gates.checkout(run) is None and run.repo is not None and run.pull is None
    assert run.deps is not None and run.deps["plugin"].commit == committed and run.project.deps["plugin"].commit == NEW


def test_opening_a_pr_names_the_repository_and_its_token_before_anything_is_written(root):
    with pytest.raises(UserError, match="^GITHUB_REPOSITORY is not set"):
        bump_gates.checkout(run_at(root, options=BumpOptions(now=NOW, open_pr=True)))
    with pytest.raises(UserError, match=r"^GITHUB_TOKEN is not set; opening a pull request needs a token with "
                                        r"pull-requests: write \("):
        bump_gates.checkout(run_at(root, env={"GITHUB_REPOSITORY": "rocm/jax-rocm-release"},
                                   options=BumpOptions(now=NOW, open_pr=True)))
    env = {"GITHUB_REPOSITORY": "rocm/jax-rocm-release", "GITHUB_TOKEN": "t"}
    console = object()
    for asked in ({"open_pr": True}, {"auto_merge": True}):
        run = run_at(root, env=env, options=BumpOptions(now=NOW, **asked), console=console)
        bump_gates.checkout(run)
        assert run.pull is not None and (run.pull.owner, run.pull.name, run.pull.base) == (
            "rocm", "jax-rocm-release", "main")
        assert run.pull.client.console is console  # GitHub's waits draw where the bump's progress does
    pushed = run_at(root, env=env, options=BumpOptions(now=NOW, push=True))
    bump_gates.checkout(pushed)
    assert pushed.repo is not None and pushed.pull is None


# ---------------------------------------------------------------- roll


def move(name: str) -> Move:
    return Move(name, f"https://github.com/o/{name}", "main", "a" * 40, NEW, FORWARD, ())


@pytest.fixture
def rolled(monkeypatch):
    """``roll.roll`` answering ``moves``; ``asked`` what it was given."""
    state = SimpleNamespace(moves=(), asked=[], says=())

    def roll(deps, cache, **kw):
        state.asked.append({"deps": deps, "cache": cache, **{k: v for k, v in kw.items() if k != "say"}})
        for line in state.says:
            kw["say"](line)
        return RollResult(deps, deps, state.moves)

    monkeypatch.setattr(roll_module, "roll", roll)
    return state


def test_the_roll_gets_the_deps_the_flags_and_what_the_gates_before_it_decided(root, tmp_path, rolled):
    options = BumpOptions(now=NOW, deps=("jax", "xla"), to=NEW, allow_rewind=True)
    run = run_at(root, options=options, soaked_before=1_700_000_000, holds_only=False)
    run.deps = run.project.deps
    assert bump_gates.roll(run) is None and run.rolled is not None and run.rolled.new is run.deps
    assert rolled.asked == [{"deps": run.deps, "cache": tmp_path / "cache", "only": ("jax", "xla"), "to": NEW,
                             "allow_rewind": True, "soaked_before": 1_700_000_000, "holds_only": False}]


def test_a_throttled_roll_that_moved_no_held_pin_ends_with_the_throttles_line(root, rolled):
    run = run_at(root, holds_only=True, throttle_line="throttle: 3 red nightlies")
    run.deps = run.project.deps
    assert bump_gates.roll(run) == ("throttle: 3 red nightlies",)
    assert rolled.asked[0]["holds_only"] is True and rolled.asked[0]["soaked_before"] is None


def test_a_throttled_roll_that_moved_a_held_pin_back_goes_on_and_says_so(root, rolled):
    rolled.moves = (move("plugin"),)
    run = run_at(root, holds_only=True, throttle_line="throttle: 3 red nightlies")
    run.deps = run.project.deps
    assert bump_gates.roll(run) is None
    assert run.throttle_line == "throttle: 3 red nightlies; only the move back a hold asks for is made"


def test_an_unthrottled_roll_that_moved_nothing_goes_on(root, rolled):
    run = run_at(root, throttle_line="throttle: no red nightly (no nightly run yet); rolling")
    run.deps = run.project.deps
    assert bump_gates.roll(run) is None and run.throttle_line.endswith("; rolling")


@pytest.mark.parametrize("says, shown", [((), "rolling pins"), (("fetching xla",), "fetching xla")])
def test_the_rolls_progress_draws_on_the_console_when_there_is_one(root, rolled, says, shown):
    from rich.console import Console
    out = io.StringIO()
    rolled.says = says
    run = run_at(root, console=Console(file=out, force_terminal=True, width=80))
    run.deps = run.project.deps
    assert bump_gates.roll(run) is None and f" {shown}\n" in out.getvalue()  # the spinner's text, the roll's last line
    quiet = run_at(root)
    quiet.deps = quiet.project.deps
    assert bump_gates.roll(quiet) is None and len(rolled.asked) == 2  # no console: said nowhere


def test_without_a_cache_named_the_mirrors_live_in_the_checkouts_cache(root, rolled, monkeypatch):
    monkeypatch.delenv("JAX_ROCM_RELEASE_CACHE")
    run = run_at(root)
    run.deps = run.project.deps
    bump_gates.roll(run)
    assert rolled.asked[0]["cache"] == root / ".cache" / "git"


# ---------------------------------------------------------------- line


@pytest.fixture
def index(monkeypatch):
    """The public index answering ``versions``; ``asked`` what it was asked."""
    state = SimpleNamespace(versions=(), asked=[])

    def index_versions(majors, url, **kw):
        state.asked.append((majors, url))
        return state.versions

    monkeypatch.setattr(resolver, "index_versions", index_versions)
    return state


def with_jax_line(run: BumpRun, line: str | None) -> BumpRun:
    deps = run.project.deps.with_pins({"jax": {"line": line}})
    run.rolled = RollResult(run.project.deps, deps, ())
    return run


def test_the_version_follows_the_jax_pins_new_line_from_the_unreleased_start(root, index):
    run = with_jax_line(run_at(root, env={"RELEASE_PUBLIC_INDEX": "https://index.example/simple"}), "0.9.2")
    assert bump_gates.line(run) is None and run.vmove is not None
    assert (run.vmove.old, run.vmove.new, run.vmove.line) == (run.project.version_info.version, "0.9.2", "0.9.2")
    assert index.asked == [(run.project.version_info.rocm_majors, "https://index.example/simple")]
    assert run.info == run.project.version_info and run.info_text is None


def test_a_line_released_already_moves_to_its_next_post_release_never_a_published_one(root, index):
    index.versions = ("0.9.2", "0.9.2.post1")
    run = with_jax_line(run_at(root), "0.9.2")
    bump_gates.line(run)
    assert run.vmove is not None and run.vmove.new == "0.9.2.post2"


@pytest.mark.parametrize("line", [None, "same"])
def test_on_its_line_or_with_no_line_recorded_the_version_stays_and_no_index_is_asked(root, index, line):
    run = run_at(root)
    run = with_jax_line(run, run.project.version_info.line if line == "same" else None)
    assert bump_gates.line(run) is None and run.vmove is None and index.asked == []


def test_committing_moves_the_version_of_version_info_json_as_committed(root, index):
    path = root / "version_info.json"
    committed = path.read_text()
    path.write_text(json.dumps(json.loads(committed) | {"version": "0.9.3"}))  # a person's edit, not committed
    run = with_jax_line(run_at(root, repo=object()), "0.9.2")
    run.repo = SimpleNamespace(committed=lambda p: committed if p == run.project.version_info.path else None)
    bump_gates.line(run)
    assert run.info_text == committed and run.info is not None and run.info.version == "0.9.1"
    assert run.vmove is not None and run.vmove.old == "0.9.1"
    assert with_jax_line(run_at(root), "0.9.2").project.version_info.version == "0.9.3"


# ---------------------------------------------------------------- deliver


def finished_run(root: Path, moves: tuple[str, ...], vmove: bool, **fields: object) -> BumpRun:
    """A run through the changelog gate: ``moves`` moved the plugin (and jax) to NEW; ``vmove``
    moves the version onto 0.9.2."""
    from release.sources.line import VersionMove
    run = run_at(root, **fields)
    new = run.project.deps.with_commits({name: NEW for name in moves})
    run.rolled = RollResult(run.project.deps, new, tuple(move(name) for name in moves))
    run.info = run.project.version_info
    run.vmove = VersionMove(run.info.version, "0.9.2", "0.9.2", NEW) if vmove else None
    run.body = PullBody("Bump plugin", "- changes\n", (Paragraph("mode", "roller said"),))
    return run


@pytest.fixture
def delivered(monkeypatch):
    """``deliver_bump`` answering ``answer``; ``asked`` what it was given."""
    state = SimpleNamespace(answer={"branch": "bump/x", "commit": "c" * 40}, asked=[])

    def deliver_bump(repo, deps_path, **kw):
        state.asked.append({"repo": repo, "deps_path": deps_path, **kw})
        return state.answer

    monkeypatch.setattr(pull_requests, "deliver_bump", deliver_bump)
    return state


def files(root: Path) -> dict[str, str]:
    return {name: (root / name).read_text() for name in ("deps.yaml", "version_info.json")}


@pytest.mark.parametrize("moves, vmove", [(("plugin",), False), ((), True), (("plugin", "jax"), True)])
def test_a_run_writes_the_work_trees_files_and_the_changelog(root, tmp_path, moves, vmove, delivered):
    notes = tmp_path / "notes.md"
    run = finished_run(root, moves, vmove, options=BumpOptions(now=NOW, changelog=notes))
    before = files(root)
    assert bump_gates.deliver(run) is None and delivered.asked == [] and run.delivered == {}
    after = load_project(root)
    assert all(after.deps[name].commit == (NEW if name in moves else run.project.deps[name].commit)
               for name in ("plugin", "jax", "xla"))
    assert after.version_info.version == ("0.9.2" if vmove else run.project.version_info.version)
    assert (files(root)["deps.yaml"] == before["deps.yaml"]) is not bool(moves)
    assert notes.read_text() == f"# Bump plugin\n\n{run.body.markdown()}"


@pytest.mark.parametrize("options", [BumpOptions(now=NOW, dry_run=True), BumpOptions(now=NOW)])
def test_a_dry_run_or_nothing_moved_writes_nothing(root, tmp_path, options, delivered):
    notes = tmp_path / "notes.md"
    run = finished_run(root, ("plugin",) if options.dry_run else (), options.dry_run,
                       options=dataclasses.replace(options, changelog=notes))
    before = files(root)
    assert bump_gates.deliver(run) is None
    assert files(root) == before and not notes.exists() and delivered.asked == []


@pytest.mark.parametrize("moves, vmove", [(("plugin",), False), ((), True), (("plugin", "jax"), True), ((), False)])
def test_committing_commits_the_committed_files_with_the_new_pins_and_leaves_the_work_tree(root, moves, vmove,
                                                                                           delivered):
    from release.core.config import render_deps, render_version_info
    from release.sources.repo import ReleaseRepo
    pull = object()
    run = finished_run(root, moves, vmove, options=BumpOptions(now=NOW, push=True, date=dt.date(2026, 11, 20)),
                       repo=ReleaseRepo(root), pull=pull)
    run.info_text = (root / "version_info.json").read_text()
    before = files(root)
    assert bump_gates.deliver(run) is None and files(root) == before
    [asked] = delivered.asked
    also = {run.project.deps.path: render_deps(run.rolled.new, before["deps.yaml"])}
    if vmove:
        also[run.info.path] = render_version_info(dataclasses.replace(run.info, version="0.9.2"), run.info_text)
    assert asked == {"repo": run.repo, "deps_path": run.project.deps.path,
                     "moved": moves + (("version",) if vmove else ()), "date": dt.date(2026, 11, 20),
                     "title": "Bump plugin", "body": run.body.markdown(), "push": True, "pull": pull, "also": also}
    assert run.delivered == delivered.answer and run.body.paragraphs == (Paragraph("mode", "roller said"),)


def test_committing_without_a_push_pushes_nothing(root, delivered):
    from release.sources.repo import ReleaseRepo
    run = finished_run(root, ("plugin",), False, options=BumpOptions(now=NOW, commit=True), repo=ReleaseRepo(root))
    bump_gates.deliver(run)
    assert delivered.asked[0]["push"] is False and delivered.asked[0]["pull"] is None
    assert delivered.asked[0]["date"] == NOW.date()


def test_a_persons_commits_on_the_bump_pr_are_said_as_the_deliver_gates_paragraph(root, delivered):
    from release.sources.repo import ReleaseRepo
    delivered.answer = {"pull_request": {"action": "kept", "number": 4, "reason": "a person pushed to bump/x"}}
    run = finished_run(root, ("plugin",), False, options=BumpOptions(now=NOW, open_pr=True), repo=ReleaseRepo(root))
    bump_gates.deliver(run)
    assert run.body.paragraphs == (Paragraph("mode", "roller said"), Paragraph("deliver", "a person pushed to bump/x"))
