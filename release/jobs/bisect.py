"""Find which pin move broke a red nightly: a binary search over the consistent pin sets
between a good and a bad nightly.

Why over plugin commits: jax and xla are pinned by the plugin (``via`` deps), or jax is the
plugin's own tree (``same``, the jax-tree layout) pinning xla, so the only consistent sets
between two nightlies are the plugin's first-parent commits, each with the jax and xla it
pins; a via dep never moves alone. Each candidate records what moved from the one before it
(the plugin's own code, jax, xla, or several), so the first bad one names its culprit and the
changelog of that step. "Plugin code" is what the line's build reads of the plugin's tree
(``build_tree``), less the files that pin its via deps (their move is named by the dep).

A probe builds, verifies and validates one set in ``dist/bisect/<sha>/`` (the release
pipeline's own steps; validation against a private local store, so nothing is ever
published), or runs ``--probe-command`` (exit 0 good, 125 skip, 1-127 bad, as
``git bisect run``; 128 or more, or a signal, stops the bisect). ``dist/bisect/state.json``
records the candidates and every finished probe, written atomically before and after each
probe: a bisect killed midway resumes where it stopped and never redoes a finished probe.
The search itself (``next_step``) is a pure function of the verdicts so far.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Literal, Mapping, Protocol, Sequence

from release.core import sanitize
from release.core.atomic import atomic_write
from release.core.config import Deps, RollVia, source_of
from release.core.errors import UserError
from release.jobs import bisect_published
from release.jobs.plugin_tree import SOURCE as SOURCE
from release.jobs.plugin_tree import build_tree, same_trees
from release.sources.module_pin import MODULE_FILE, without_overrides

if TYPE_CHECKING:
    from rich.console import Console

    from release.core.config import Project
    from release.core.output import Say
    from release.sources.mirror import Mirror

# A commit changing nothing the build reads (``plugin_tree.build_tree``) builds the same wheels
# as the commit before it, so it is listed but never probed and can never be the culprit.
GOOD, BAD, SKIP = bisect_published.GOOD, "bad", "skip"
STATE_SCHEMA = 1
PLUGIN_CODE = "plugin code"


# ---------------------------------------------------------------- candidates


@dataclasses.dataclass(frozen=True)
class Candidate:
    """One consistent pin set: a plugin commit with the deps it pins."""

    index: int                    # 1..n, oldest first; 0 is the good nightly
    commits: Mapping[str, str]    # every dep's commit
    subject: str
    moved: tuple[str, ...]        # what the build sees change from the set before: "plugin code", "jax"...

    @property
    def inert(self) -> bool:
        """Builds exactly as the set before it (only files outside the build changed)."""
        return not self.moved

    @property
    def sha(self) -> str:
        return self.commits[SOURCE]

    def to_json(self) -> dict:
        return {"index": self.index, "plugin": self.sha, "subject": self.subject,
                "commits": dict(self.commits), "moved": list(self.moved)}

    @classmethod
    def from_json(cls, data: Mapping) -> Candidate:
        return cls(int(data["index"]), dict(data["commits"]), str(data["subject"]),
                   tuple(data["moved"]))


def followers(deps: Deps, source: str = SOURCE) -> tuple[str, ...]:
    """The deps pinned (directly or through others) by ``source``, in resolution order."""
    found: list[str] = []
    for dep in deps.resolution_order():
        if (src := source_of(dep.roll)) is not None and (src == source or src in found):
            found.append(dep.name)
    return tuple(found)


def list_candidates(deps: Deps, good: Mapping[str, str], bad: Mapping[str, str], cache: Path,
                    say: Say = lambda _: None) -> tuple[list[Candidate], list[str]]:
    """The plugin's first-parent commits in good..bad, oldest first, each with its pins.

    Also returns notes for people: pins that moved outside the plugin (kept at the bad
    nightly's) and endpoints whose recorded pins differ from what their plugin commit pins.
    """
    from release.sources import roll

    if SOURCE not in deps.names:
        raise UserError(f"{deps.path}: no dep named {SOURCE}; bisect walks the plugin's commits")
    follow = followers(deps)
    good_p, bad_p = good[SOURCE], bad[SOURCE]
    notes: list[str] = []
    base = deps.with_commits({n: bad[n] for n in deps.names if n in bad})
    with roll.Context(base, cache, say) as ctx:
        mirror = ctx.mirror(deps[SOURCE])
        for label, sha in (("good", good_p), ("bad", bad_p)):
            if not mirror.fetch_commit(sha):
                raise UserError(f"{SOURCE}: the {label} nightly's commit {sha[:7]} is not on "
                                f"{mirror.remote.shown}")
        if good_p == bad_p:
            raise UserError(f"the good and the bad nightly pin the same {SOURCE} commit {good_p[:7]}; "
                            "nothing to bisect between them")
        if not mirror.is_ancestor(good_p, bad_p):
            raise UserError(f"{SOURCE}: the good nightly's {good_p[:7]} is not an ancestor of the bad "
                            f"nightly's {bad_p[:7]}; bisect needs good before bad on one history")
        say(f"listing {SOURCE} commits {good_p[:7]}..{bad_p[:7]}")
        line = list(reversed(mirror.first_parents(good_p, bad_p)))
        subjects = {e.sha: e.subject for e in mirror.log(good_p, bad_p)}
        tree, mates = build_tree(deps), same_trees(deps)
        pinned = {n: r.file for n in follow if isinstance(r := deps[n].roll, RollVia) and r.via in (SOURCE, *mates)}
        via_files = set(pinned.values())

        def pins_at(sha: str) -> dict[str, str]:
            ctx.new = {n: bad.get(n, deps[n].commit) for n in deps.names} | {SOURCE: sha}
            for name in follow:
                ctx.new[name] = roll.policy_for(deps[name].roll).candidate(deps[name], ctx).commit
            return dict(ctx.new)

        at_good = pins_at(good_p)
        previous = {n: good.get(n, at_good[n]) for n in deps.names}
        for name in follow:
            if name in good and good[name] != at_good[name]:
                notes.append(f"the good nightly pinned {name} {good[name][:7]}, not the "
                             f"{at_good[name][:7]} its {SOURCE} pins; candidate 1 is compared with "
                             "the good nightly's pins")
        for name in deps.names:
            if name != SOURCE and name not in follow and good.get(name) != bad.get(name):
                notes.append(f"{name} moved outside the {SOURCE} ({str(good.get(name))[:7]} -> "
                             f"{str(bad.get(name))[:7]}); every candidate keeps the bad nightly's "
                             f"{str(bad.get(name))[:7]}")
        found: list[Candidate] = []
        before_sha = good_p
        for index, sha in enumerate(line, 1):
            pins = pins_at(sha)
            code = {p for p in mirror.changed_paths(before_sha, sha) - via_files if p.startswith(tree)}
            if MODULE_FILE in code and pins_only(mirror, before_sha, sha, tuple(pinned)):
                code.discard(MODULE_FILE)  # the via deps' second pin: their move, not code
            moved = ((PLUGIN_CODE,) if code else ()) + tuple(
                n for n in follow if n not in mates and pins[n] != previous[n])
            found.append(Candidate(index, pins, subjects.get(sha, ""), moved))
            previous, before_sha = pins, sha
        for name in follow:
            if name in bad and bad[name] != found[-1].commits[name]:
                notes.append(f"the bad pins have {name} {bad[name][:7]}, not the "
                             f"{found[-1].commits[name][:7]} its {SOURCE} pins; bisecting the "
                             f"{SOURCE}'s own sets")
    return found, notes


def pins_only(mirror: Mirror, before: str, after: str, names: tuple[str, ...]) -> bool:
    """Whether MODULE.bazel moved only the ``archive_override`` of ``names`` from ``before`` to
    ``after``: jax's tree pins xla there too (roll checks it agrees with revision.bzl), so such a
    change is xla's move. Any other change, or a file absent or unparseable, is code."""
    if not names:
        return False
    old, new = (mirror.read_file(sha, MODULE_FILE) for sha in (before, after))
    if old is None or new is None:
        return False
    kept = without_overrides(old, names)
    return kept is not None and kept == without_overrides(new, names)


# ---------------------------------------------------------------- the search (pure)


NextStep = tuple[Literal["probe"], int] | tuple[Literal["done"], tuple[int, ...]]


def next_step(n: int, verdicts: Mapping[int, str]) -> NextStep:
    """``("probe", i)``: probe candidate i next; ``("done", (i, ...))``: the first bad one
    (several when skipped probes leave it open). Candidate n is taken as bad (the red
    nightly) and 0 as good until a probe says otherwise."""
    bad = min([n] + [i for i, v in verdicts.items() if v == BAD])
    good = max([0] + [i for i, v in verdicts.items() if v == GOOD and i < bad])
    open_ = [i for i in range(good + 1, bad) if i not in verdicts]
    if open_:
        # Halve what is still open (skipped candidates tell nothing, so they do not count).
        return "probe", min(open_, key=lambda i: (max(sum(j < i for j in open_), sum(j > i for j in open_)),
                                                  abs(2 * i - (good + bad)), i))
    return "done", tuple(i for i in range(good + 1, bad + 1))


# ---------------------------------------------------------------- probes


@dataclasses.dataclass(frozen=True)
class ProbeResult:
    verdict: str           # GOOD, BAD or SKIP
    step: str | None       # the step that failed or skipped: fetch, build, verify, validate, command
    log: str | None        # the log of that step
    message: str = ""

    def to_json(self) -> dict:
        return dataclasses.asdict(self)


class Probe(Protocol):
    """What tells good from bad for one candidate pin set (``CommandProbe``, ``BuildProbe``)."""

    @property
    def identity(self) -> str | None:
        """What the probe is, kept in the state: a resumed bisect must use the same one (None:
        only resume, whichever it was)."""
        ...

    def run(self, candidate: Candidate, directory: Path, say: Say) -> ProbeResult: ...


class ProbeAborted(UserError):
    """A probe could not say good, bad or skip; the bisect stops (re-run to resume)."""


class CommandProbe:
    """``--probe-command``: any shell command; exit 0 good, 125 skip, 1-127 bad."""

    def __init__(self, command: str, root: Path):
        self.command, self.root = command, Path(root)

    @property
    def identity(self) -> str:
        return f"command: {self.command}"

    def run(self, candidate: Candidate, directory: Path, say: Say) -> ProbeResult:
        log = directory / "probe.log"
        env = dict(os.environ) | probe_env(candidate, directory)
        say(f"probe {candidate.sha[:7]}: {self.command}")
        with open(log, "wb") as handle:
            code = subprocess.run(["/bin/sh", "-c", self.command], cwd=self.root, env=env,
                                  stdin=subprocess.DEVNULL, stdout=handle, stderr=subprocess.STDOUT).returncode
        if code == 0:
            return ProbeResult(GOOD, None, str(log))
        if code == 125:
            return ProbeResult(SKIP, "command", str(log), "the probe command exited 125 (skip)")
        if 0 < code < 128:
            return ProbeResult(BAD, "command", str(log), f"the probe command exited {code}")
        shown = f"was killed by signal {-code}" if code < 0 else f"exited {code}"
        raise ProbeAborted(f"probe of {candidate.sha[:7]}: the probe command {shown} (128 or more "
                           f"stops a bisect, as in git bisect run); see {log}, fix it and re-run to "
                           "resume")


class RecordedOnly:
    """``--recorded-only``: the finished bisect the state records, never a probe (the CI job that
    delivers the hold holds a write token and must run no upstream code)."""

    identity = None  # whichever probe the recorded bisect used

    def run(self, candidate: Candidate, directory: Path, say: Say) -> ProbeResult:  # noqa: ARG002
        raise UserError(f"the recorded bisect is not finished: {candidate.sha[:7]} needs a probe, and "
                        "--recorded-only never probes; run the bisect first")


def probe_env(candidate: Candidate, directory: Path) -> dict[str, str]:
    """What a probe command is told: ``BISECT_<DEP>_COMMIT`` per dep, the index and its directory."""
    env = {f"BISECT_{name.upper().replace('-', '_')}_COMMIT": sha for name, sha in candidate.commits.items()}
    return env | {"BISECT_INDEX": str(candidate.index), "BISECT_DIR": str(directory)}


class BuildProbe:
    """The release pipeline's own steps for one pin set: fetch, build, verify, validate.

    Sources go to one shared workspace (moved between probes, so checkouts and Bazel's
    cache are reused); the wheels to ``dist/bisect/<sha>/<version>/``, resumable by its
    manifest; validation runs against a private local store in ``dist/bisect/<sha>/store``.
    """

    def __init__(self, project: Project, workspace: Path, cache: Path, date: _dt.date,
                 console: Console | None = None,
                 python: str = sys.executable):
        self.project, self.workspace, self.cache = project, Path(workspace), Path(cache)
        self.date, self.console, self.python = date, console, python
        self.py = f"{sys.version_info[0]}.{sys.version_info[1]}"

    @property
    def identity(self) -> str:
        return f"build, verify and validate (Python {self.py})"

    def run(self, candidate: Candidate, directory: Path, say: Say) -> ProbeResult:
        """``catalog.JOBS["probe"]`` for the candidate's pins; which step failed is the verdict."""
        from release.build.plan import make_plan
        from release.core.output import Output
        from release.jobs import catalog
        from release.jobs.runner import JobOptions, JobRun
        from release.jobs.shared import CheckFailed
        from release.publish.stores import LocalStore
        from release.sources.git import Remote
        from release.sources.mirror import Mirror

        log = directory / "probe.log"
        deps = self.project.deps.with_commits(candidate.commits)

        def note(text: str) -> None:
            say(text)
            with open(log, "a", encoding="utf-8") as handle:
                handle.write(text + "\n")

        for dep in deps:
            with Mirror(self.cache, Remote(dep.name, dep.url)) as mirror:
                if not mirror.fetch_commit(dep.commit):
                    note(f"{dep.name} {dep.short} is not on {mirror.remote.shown}: cannot build this set")
                    return ProbeResult(SKIP, "fetch", str(log), f"{dep.name} {dep.short} not found")
        project = dataclasses.replace(self.project, deps=deps)
        plan = make_plan(project, "nightly", date=self.date, pythons=(self.py,),
                         workspace=self.workspace)
        note(f"fetch sources into {self.workspace}; build {plan.version} into {directory}")
        job_run = JobRun(project, plan.version, directory, LocalStore(directory / "store"),
                         out=Output(stream=io.StringIO()), say=note, plan=plan, console=self.console)
        options = JobOptions(workspace=self.workspace, cache=self.cache, python=self.python)
        failed: list[str] = []
        try:
            catalog.run("probe", job_run, options, on_failure=failed.append)
        except UserError as exc:
            step = failed[-1] if failed else None
            if step == "build":
                logs = sorted((job_run.directory / "logs").glob("*.log"),
                              key=lambda p: p.stat().st_mtime)
                note(f"build failed: {exc}")
                return ProbeResult(BAD, "build", str(logs[-1] if logs else log), str(exc))
            if step in ("verify", "validate") and isinstance(exc, CheckFailed):
                for finding in exc.findings:
                    note(f"{step}: {finding}")
                note(f"{step} failed: {exc}")
                return ProbeResult(BAD, step, str(log), str(exc))
            raise
        note("good: built, verified and validated")
        return ProbeResult(GOOD, None, str(log))


# ---------------------------------------------------------------- state on disk


class State:
    """``dist/bisect/state.json``: the candidates and every finished probe."""

    def __init__(self, path: Path, data: dict):
        self.path, self.data = Path(path), data

    @classmethod
    def open(cls, path: Path, *, good: dict, bad: dict, probe: str | None, reset: bool,
             date: _dt.date) -> "State":
        path = Path(path)
        if probe is None and (reset or not path.is_file()):
            raise UserError(f"{path}: no recorded bisect to report; --recorded-only resumes a finished "
                            "one and never probes")
        if path.is_file() and not reset:
            try:
                data = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError) as exc:
                raise UserError(f"{path}: unreadable ({exc.__class__.__name__}); pass --reset to "
                                "start the bisect over") from None
            if data.get("schema") != STATE_SCHEMA:
                raise UserError(f"{path}: not a schema-{STATE_SCHEMA} bisect state; pass --reset")
            same = (data["good"]["commits"] == good["commits"] and data["bad"]["commits"] == bad["commits"]
                    and probe in (None, data["probe"]))
            if not same:
                what = " ".join(str(data["probe"]).split())
                what = what if len(what) <= 60 else what[:57] + "..."
                raise UserError(f"{path}: records another bisect ({data['good']['name']}.."
                                f"{data['bad']['name']}, {what}); pass --reset to start this one")
            return cls(path, data)
        # Not saved yet: the first save records the listed candidates, so a bisect refused
        # while listing them (nothing between the nightlies, good not before bad) leaves no
        # state behind that the next bisect would have to --reset.
        return cls(path, {"schema": STATE_SCHEMA, "good": good, "bad": bad, "probe": probe,
                          "date": date.isoformat(), "candidates": None, "notes": [], "probes": {},
                          "running": None})

    def save(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(self.path, json.dumps(self.data, indent=2) + "\n")

    @property
    def candidates(self) -> list[Candidate] | None:
        raw = self.data["candidates"]
        return None if raw is None else [Candidate.from_json(c) for c in raw]

    def verdicts(self, searched: list[Candidate]) -> dict[int, str]:
        """Verdicts by 1-based position in ``searched``."""
        probes = self.data["probes"]
        return {i: probes[c.sha]["verdict"] for i, c in enumerate(searched, 1) if c.sha in probes}


# ---------------------------------------------------------------- the whole bisect


@dataclasses.dataclass
class Outcome:
    good: dict
    bad: dict
    candidates: list[Candidate]
    probes: dict                   # sha -> recorded ProbeResult JSON
    probed_now: list[str]
    first_bad: tuple[int, ...]     # candidate indices (one unless skips left it open)
    notes: list[str]
    state: Path
    changelog: str = ""
    changelog_json: dict | None = None
    reproduced: bool = True        # False: the bad end probed good

    @property
    def culprit(self) -> Candidate | None:
        if len(self.first_bad) != 1 or not self.reproduced:
            return None
        return self.candidates[self.first_bad[0] - 1]

    def to_json(self) -> dict:
        culprit = self.culprit
        found = None
        if culprit is not None:
            probe = self.probes.get(culprit.sha) or {}
            found = culprit.to_json() | {"step": probe.get("step"), "log": probe.get("log"),
                                         "message": probe.get("message")}
        return {
            "good": self.good, "bad": self.bad,
            "candidates": [c.to_json() | {"verdict": (self.probes.get(c.sha) or {}).get("verdict"),
                                          "inert": c.inert} for c in self.candidates],
            "probes_run": len(self.probed_now), "probes_total": len(self.probes),
            "first_bad": found,
            "undecided": [self.candidates[i - 1].sha for i in self.first_bad] if len(self.first_bad) > 1 else [],
            "reproduced": self.reproduced,
            "notes": self.notes, "changelog": self.changelog, "changelog_json": self.changelog_json,
            "state": str(self.state), "published": False,
        }


def run_bisect(deps: Deps, good: dict, bad: dict, probe: Probe, bisect_dir: Path, cache: Path, *,
               reset: bool = False, date: _dt.date, say: Say = lambda _: None,
               max_log_lines: int = 50, published: Sequence[tuple[str, Mapping[str, str]]] = ()) -> Outcome:
    """Bisect ``good``..``bad`` (each ``{"name", "commits"}``) with ``probe``; see the module doc.
    ``published``: ``(tag, commits)`` of the nightlies published since good, which answer the
    candidates built from their pins before any probe (``release.jobs.bisect_published``)."""
    bisect_dir = Path(bisect_dir)
    state = State.open(bisect_dir / "state.json", good=good, bad=bad, probe=probe.identity,
                       reset=reset, date=date)
    if isinstance(probe, BuildProbe):  # a resumed bisect builds the version it started with,
        probe.date = _dt.date.fromisoformat(state.data["date"])  # so half-done builds resume
    candidates = state.candidates
    if isinstance(probe, RecordedOnly) and candidates is not None:
        # The state came from a job that ran upstream code; the job reading it holds a write
        # token. Its candidates (the culprit among them) must be good..bad's, re-listed from git.
        listed, _ = list_candidates(deps, good["commits"], bad["commits"], cache, say)
        if [c.to_json() for c in listed] != [c.to_json() for c in candidates]:
            raise UserError(f"{state.path}: its candidates are not the {SOURCE} commits between "
                            f"{good['name']} and {bad['name']}; not reporting it (pass --reset and bisect again)")
    if candidates is None:
        candidates, notes = list_candidates(deps, good["commits"], bad["commits"], cache, say)
        state.data["candidates"] = [c.to_json() for c in candidates]
        state.data["notes"] = notes
        state.save()
    if published:  # the published nightlies first: build only inside the range they leave
        answered = bisect_published.answer_from_published(candidates, published, state.data["probes"], say)
        if answered:
            state.data["notes"] = list(state.data["notes"]) + answered
            state.save()
    # Only sets whose build differs from the one before are searched (see build_tree); the
    # newest of them builds what the red nightly built.
    active = [c for c in candidates if not c.inert]
    say(f"{len(candidates)} candidate pin sets between {good['name']} and {bad['name']}, "
        f"{len(active)} of them changing what is built")
    probed_now: list[str] = []
    n = len(active)
    first_bad: tuple[int, ...] = ()
    reproduced = n > 0
    # The newest first: a failure its pins do not reproduce is not bisected (one probe, not a
    # night of them taken from the nightly's runners), and when it is the answer its own probe
    # gave the log; so next_step's "done" never names an end nobody probed.
    if n and active[-1].sha not in state.data["probes"]:
        _probe(state, probe, active[-1], bisect_dir, say, probed_now)
    while n and state.verdicts(active).get(n) != GOOD:
        step = next_step(n, state.verdicts(active))
        if step[0] == "probe":
            _probe(state, probe, active[step[1] - 1], bisect_dir, say, probed_now)
            continue
        first_bad = tuple(active[i - 1].index for i in step[1])
        break
    if n and state.verdicts(active).get(n) == GOOD:
        reproduced = False
    notes = list(state.data["notes"])
    if not n:
        outside = f"outside {build_tree(deps)}" if build_tree(deps) else "no build reads"
        notes.append(f"no {SOURCE} commit between the nightlies changes what is built (only files "
                     f"{outside}) and no pin moved: the failure does not follow from the pins")
    outcome = Outcome(good, bad, candidates, dict(state.data["probes"]), probed_now, first_bad,
                      notes, state.path, reproduced=reproduced)
    if outcome.culprit is not None:
        outcome.changelog, outcome.changelog_json = step_changelog(
            deps, candidates, outcome.culprit, good["commits"], cache, max_log_lines)
    return outcome


def _probe(state: State, probe: Probe, candidate: Candidate, bisect_dir: Path, say: Say,
           probed_now: list[str]) -> None:
    directory = bisect_dir / candidate.sha
    directory.mkdir(parents=True, exist_ok=True)
    state.data["running"] = candidate.sha
    state.save()
    say(f"probe {candidate.index}/{len(state.data['candidates'])}: {candidate.sha[:7]} "
        f"{sanitize.line(candidate.subject)}")
    result = probe.run(candidate, directory, say)
    state.data["probes"][candidate.sha] = result.to_json() | {"index": candidate.index}
    state.data["running"] = None
    state.save()
    probed_now.append(candidate.sha)
    say(f"{candidate.sha[:7]} is {result.verdict}" + (f" ({result.step}: {sanitize.line(result.message)})"
                                                     if result.step else ""))


def step_changelog(deps: Deps, candidates: list[Candidate], culprit: Candidate,
                   good: Mapping[str, str], cache: Path, max_log_lines: int) -> tuple[str, dict]:
    """The changelog of the step into ``culprit`` (from the set before it), as a bump shows it."""
    from release.sources import changelog, roll

    before = dict(good) if culprit.index == 1 else dict(candidates[culprit.index - 2].commits)
    moves: list[roll.Move] = []
    with roll.Context(deps, cache) as ctx:
        for dep in deps:
            old, new = before.get(dep.name), culprit.commits[dep.name]
            if old is None or old == new:
                continue
            mirror = ctx.mirror(dep)
            if not mirror.fetch_commit(new, trees=False):
                raise UserError(f"{dep.name}: commit {new[:7]} not found on {mirror.remote.shown}")
            relation = roll.relation(mirror, old, new)
            was = dataclasses.replace(dep, commit=old)
            moves.append(relation.move(was, roll.Candidate(new, source=f"bisect step {culprit.index}"),
                                       dep.branch))
    return changelog.markdown(tuple(moves), max_log_lines), changelog.to_json(tuple(moves))
