"""``release bisect`` as one job: the ends, whether a culprit is already known, the probe, the
search (``release.jobs.bisect``) and the hold's delivery.

The order is the rule: a hold or ``skip_known`` needs this checkout (and ``open_pr`` the
repository on GitHub), refused before the store is read or anything probed; ``skip_known``
bisects nothing when a culprit already held or proposed lies between the ends (a second red
night starts no second bisect); one bisect runs at a time (they share ``state.json`` and the
workspace); a hold is delivered only for one first bad commit (``release.sources.holds``:
found again, nothing is written).

``markdown`` is how a person reads the result first, in the step summary, on a terminal and in
the hold PR; every word in it came from outside and is shown as words.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Mapping

from release.core import sanitize
from release.core.errors import UserError
from release.jobs.bisect import SOURCE

if TYPE_CHECKING:
    from rich.console import Console

    from release.core.config import Project
    from release.core.output import Say
    from release.jobs.bisect import Candidate, Outcome, Probe
    from release.publish.stores import Store
    from release.sources.holds import KnownHold
    from release.sources.pull_requests import BumpPull
    from release.sources.repo import ReleaseRepo

# The steps a probe names as failed (release.jobs.bisect); anything else in a state file is not one.
PROBE_STEPS = ("fetch", "build", "verify", "validate", "command")


@dataclasses.dataclass(frozen=True)
class BisectOptions:
    good: str | None                 # the last good nightly's tag (needed)
    date: _dt.date                   # the day a build probe's nightly version is dated
    dist: Path                       # probes go to <dist>/bisect/<sha>/, the state to <dist>/bisect/state.json
    bad: str | None = None           # the red nightly's tag (else bad_commit, else deps.yaml now)
    bad_commit: str | None = None
    skip_known: bool = False
    recorded_only: bool = False      # never probe: report the finished bisect the state records
    probe_command: str | None = None
    workspace: Path | None = None    # the build probes' checkouts (default <dist>/bisect/workspace)
    reset: bool = False
    hold: bool = False               # commit the culprit's hold on hold/plugin
    push: bool = False               # and push it (implies hold)
    open_pr: bool = False            # and open or refresh its PR (implies push)
    max_log_lines: int = 50

    @property
    def pushes(self) -> bool:
        return self.push or self.open_pr

    @property
    def holds(self) -> bool:
        return self.hold or self.pushes


@dataclasses.dataclass(frozen=True)
class BisectResult:
    """A bisect, or ``skipped``: why none ran (one line, as it came; ``known`` the culprit
    already named). ``hold``: what delivering the hold did."""

    good: dict
    bad: dict
    outcome: Outcome | None = None
    skipped: str | None = None
    known: KnownHold | None = None
    hold: dict | None = None

    @property
    def culprit(self) -> Candidate | None:
        return None if self.outcome is None else self.outcome.culprit

    @property
    def exit_status(self) -> int:
        """0: a culprit found, or nothing to do; 1: none found (undecided, not reproduced)."""
        return 0 if self.skipped is not None or self.culprit is not None else 1

    def to_json(self) -> dict[str, Any]:
        if self.outcome is None:
            return {"good": self.good, "bad": self.bad, "known": self.known.to_json() if self.known else None,
                    "line": sanitize.line(self.skipped or "")}
        return self.outcome.to_json() | ({"hold": self.hold} if self.hold is not None else {})

    def outputs(self) -> dict[str, str]:
        """The ``$GITHUB_OUTPUT`` keys: found, and first-bad and moved, or known."""
        culprit = self.culprit
        if self.outcome is None:
            return {"found": "false", **({"known": self.known.commit} if self.known else {})}
        return {"found": "true" if culprit else "false",
                **({"first-bad": culprit.sha, "moved": ",".join(culprit.moved)} if culprit else {})}

    def markdown(self) -> str:
        if self.outcome is None:
            return sanitize.markdown(self.skipped or "") + "\n"
        return markdown(self.to_json())

    def text(self) -> str:
        """What a person reads on a terminal."""
        return sanitize.line(self.skipped or "") if self.outcome is None else markdown(self.to_json())


def run_bisect_job(project: Project, options: BisectOptions, store: Callable[[], Store], *,
                   env: Mapping[str, str], console: Console | None = None,
                   say: Say = lambda _: None) -> BisectResult:
    """The bisect ``options`` ask for (see the module doc); ``store`` is opened only once the
    checkout and the repository a hold needs are found."""
    from release.jobs import bisect
    from release.jobs.bisect_plan import bad_end, hold_pulls, known, known_in_range, nightly_end
    from release.jobs.bisect_published import published_after
    from release.jobs.pipeline import job_lock
    from release.sources.checkout import cache_dir
    from release.sources.github import PULL_REQUEST, READ_PULLS

    if not options.good:
        raise UserError("--good TAG is needed (the last good nightly), or --plan to choose it")
    repo: ReleaseRepo | None = None
    pull: BumpPull | None = None
    if options.holds or options.skip_known:  # refuse before any work: no checkout to commit the hold in
        from release.sources.repo import ReleaseRepo
        repo = ReleaseRepo(project.root)
        repo.head()
        if options.open_pr or options.skip_known:
            pull = hold_pulls(repo, required=options.open_pr, env=env, console=console,
                              needs=PULL_REQUEST if options.open_pr else READ_PULLS)
    bisect_dir = options.dist.resolve() / "bisect"
    opened = store()
    good = nightly_end(opened, options.good)
    bad = bad_end(project, lambda: opened, repo, tag=options.bad, commit=options.bad_commit)
    cache = cache_dir(project.root)
    if options.skip_known:
        assert repo is not None
        hit = known_in_range(project.deps, good["commits"], bad["commits"], known(project, repo, pull), cache)
        if hit is not None:
            return BisectResult(good, bad, skipped=(
                f"nothing to do: {SOURCE} {hit.commit[:7]}, between {good['name']} and {bad['name']}, "
                f"is already the culprit ({hit.where})"), known=hit)
    probe: Probe
    if options.recorded_only:
        probe = bisect.RecordedOnly()
    elif options.probe_command:
        probe = bisect.CommandProbe(options.probe_command, project.root)
    else:
        probe = bisect.BuildProbe(project, (options.workspace or bisect_dir / "workspace").resolve(), cache,
                                  options.date, console=console)
    # A build probe is answered first by the nightlies published since good (their pins built green).
    published = published_after(opened, good["name"]) if isinstance(probe, bisect.BuildProbe) else ()
    with job_lock(project.root, "bisect"):  # one bisect at a time: they share state.json and the workspace
        outcome = bisect.run_bisect(project.deps, good, bad, probe, bisect_dir, cache, reset=options.reset,
                                    date=options.date, say=say, max_log_lines=options.max_log_lines,
                                    published=published)
    held = None
    if options.holds:
        assert repo is not None
        held = deliver(project, outcome, repo, push=options.pushes, pull=pull if options.open_pr else None)
    return BisectResult(good, bad, outcome, hold=held)


def deliver(project: Project, outcome: Outcome, repo: ReleaseRepo, *, push: bool,
            pull: BumpPull | None) -> dict:
    """Hold the culprit in deps.yaml on ``hold/plugin`` (HEAD untouched); push it and open or
    refresh its PR as asked (``release.sources.holds``). The PR's body is the bisect's report."""
    from release.core.config import Hold
    from release.sources import holds

    culprit = outcome.culprit
    if culprit is None:
        raise UserError("--hold needs one first bad commit; this bisect did not find one")
    probe = outcome.probes.get(culprit.sha) or {}
    step = probe.get("step") if probe.get("step") in PROBE_STEPS else None  # state.json is data
    hold = Hold(culprit.sha, holds.hold_reason(outcome.good["name"], outcome.bad["name"], culprit.moved, step))
    done = holds.deliver_hold(repo, project.deps.path, SOURCE, hold, changelog=outcome.changelog,
                              report=markdown(outcome.to_json()), push=push, pull=pull)
    line = done["line"]
    if "known" in done:  # already held or proposed: nothing written
        line += f": already the culprit ({done['known']['where']}); nothing written"
    elif done.get("commit"):
        line += f"; committed {done['commit'][:12]} on {done['branch']}"
    if done.get("pushed"):
        line += ", pushed"
    if done.get("pull_request"):
        pr = done["pull_request"]
        line += f"; pull request {pr['action']}: {pr.get('url') or '#%d' % pr['number']}"
        if pr.get("reason"):
            line += f" ({pr['reason']})"
    return {"dep": SOURCE, "commit": culprit.sha, "reason": hold.reason, "branch": done.get("branch"),
            "sha": done.get("commit"), "pushed": bool(done.get("pushed")),
            **{key: done[key] for key in ("pull_request", "known") if key in done}, "line": line}


def markdown(data: dict) -> str:
    """The result (``Outcome.to_json``, with ``hold`` once delivered) as a person reads it
    first: the culprit, what moved, the log, then the table. Every word in it came from outside
    (upstream subjects, the store's tag names, a state.json a probe job wrote): each goes
    through ``release.core.sanitize``, so it reads as the same words on a terminal, in the step
    summary and in the hold PR, and does nothing else."""
    from release.sources.changelog import shortened

    def md(text: object) -> str:
        return sanitize.markdown(shortened(text))

    lines = [f"## bisect {md(data['good']['name'])}..{md(data['bad']['name'])}", ""]
    found = data["first_bad"]
    if found:
        moved = md(", ".join(map(str, found["moved"])) or "nothing (same pins)")
        lines.append(f"**First bad:** plugin `{sanitize.code(str(found['plugin'])[:12])}` {md(found['subject'])} "
                     f"(candidate {md(found['index'])} of {len(data['candidates'])}); moved: {moved}")
        if found.get("step"):
            lines.append(md(f"Failing step: {found['step']}: {found.get('message') or ''}".rstrip(": ")))
        if found.get("log"):
            lines.append(f"Log: `{sanitize.code(found['log'])}`")
    elif not data["reproduced"]:
        lines.append("**Not reproduced:** the bad end probed good; the red nightly's failure does "
                     "not follow from its pins (flaky, or outside the pins)")
    else:
        shas = md(", ".join(str(s)[:7] for s in data["undecided"]))
        lines.append(f"**Undecided:** the first bad commit is one of {shas} (skipped probes)")
    if data.get("hold"):
        lines.append(f"Hold committed: {md(data['hold']['line'])}")
    for note in data["notes"]:
        lines.append(f"- note: {md(note)}")
    lines += ["", "| # | plugin | moved | verdict | subject |", "|---|---|---|---|---|"]
    for c in data["candidates"]:
        moved = md(", ".join(map(str, c["moved"])) or "- (outside the build)")
        lines.append(f"| {md(c['index'])} | `{sanitize.code(str(c['plugin'])[:7], in_table=True)}` | {moved} | "
                     f"{md(c['verdict'] or '')} | {md(c['subject'])} |")
    lines += ["", f"Probes: {data['probes_run']} run now, {data['probes_total']} in total "
                  f"(state: `{sanitize.code(data['state'])}`); nothing was published."]
    if found and data["changelog"]:
        lines += ["", "### The bad step", "", data["changelog"].rstrip()]  # changelog.markdown's: sanitised
    return "\n".join(line.rstrip() for line in lines) + "\n"  # a line's trailing spaces are no hard break
