"""What to bisect after a red nightly, so the workflow computes nothing in shell.

The good end is the last green nightly: the newest published one (a red nightly is never
published), with the pins of its ``revisions.json``. The bad end is what the red nightly built:
deps.yaml at the commit it ran from. There is nothing to do when the plugin pin did not move
between them (a bisect walks plugin commits), and when a culprit already named for this failure
lies between them (``known_in_range``): held in deps.yaml at HEAD, or in a hold PR, open, merged
or closed. So a second red night after a first one whose bisect named a culprit the pins still
contain starts no second bisect. Nor does a red night whose failure no probe can reproduce: a
probe builds, verifies and validates, so only a failure there is bisected (``probe_reproducible``,
from the run's jobs), never a smoke, upload or publish failure or a cell that got no runner.

Also here, as ``release bisect`` uses them too: the two ends (``nightly_end``, ``bad_end``), where
the hold PRs are on GitHub (``hold_pulls``) and the culprits already named (``known``).
``plan_bisect`` is ``release bisect --plan [--dispatch WORKFLOW]`` as one job.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

from release.core import sanitize
from release.core.errors import UserError
from release.jobs.bisect import SOURCE
from release.publish.drafts import built_from

if TYPE_CHECKING:
    from rich.console import Console

    from release.core.config import Deps, Project
    from release.core.output import Say
    from release.publish.stores import Release, Store
    from release.sources.github import GitHubClient, Permission
    from release.sources.holds import KnownHold
    from release.sources.pull_requests import BumpPull
    from release.sources.repo import ReleaseRepo


@dataclasses.dataclass(frozen=True)
class AfterRed:
    """The decision: ``bisect`` good..bad, or not, and ``line``, the one line saying why (what a
    report of why a bisect did or did not run shows)."""

    bisect: bool
    line: str
    good: dict | None = None   # {"name": tag, "commits": {...}}
    bad: dict | None = None    # {"name": "deps.yaml at <sha7>", "commits": {...}}
    known: KnownHold | None = None

    def to_json(self) -> dict[str, Any]:
        return {"bisect": self.bisect, "line": self.line, "good": self.good, "bad": self.bad,
                "known": self.known.to_json() if self.known else None}


def known_in_range(deps: Deps, good: Mapping[str, str], bad: Mapping[str, str],
                   known: Sequence[KnownHold], cache: Path) -> KnownHold | None:
    """The first of ``known`` whose culprit the bad pins contain and the good ones do not: the
    failure between them already has its bisect and hold. A culprit the plugin's remote does
    not have is no answer."""
    from release.sources.git import Remote
    from release.sources.mirror import Mirror

    mine = [k for k in known if k.dep == SOURCE]
    if not mine or SOURCE not in deps.names or SOURCE not in good or SOURCE not in bad:
        return None
    dep = deps[SOURCE]
    with Mirror(cache, Remote(dep.name, dep.url)) as mirror:
        for end in (good[SOURCE], bad[SOURCE]):
            if not mirror.fetch_commit(end, trees=False):
                raise UserError(f"{SOURCE}: commit {end[:7]} is not on {mirror.remote.shown}")
        for hold in mine:
            if not mirror.fetch_commit(hold.commit, trees=False):
                continue
            if mirror.is_ancestor(hold.commit, bad[SOURCE]) and not mirror.is_ancestor(hold.commit, good[SOURCE]):
                return hold
    return None


def probe_reproducible(client: GitHubClient, owner: str, name: str, run_id: str, *,
                       line: str | None = None) -> str | None:
    """None when the red run ``run_id`` failed where a bisect probe can fail again (its build,
    verify or validate: ``nightly_runs.PROBED_GATES``) in ``line``'s jobs (the run holds every
    line's: ``nightly_runs.of_line``; None: every job), else the line saying why not to bisect
    (the smoke test, an upload, publishing, a cell that never got a runner, another line's
    failure). Runs read from GitHub; a run whose jobs cannot be read is decided by the pins alone."""
    from release.core import sanitize
    from release.sources.github import GitHubError
    from release.sources.nightly_runs import PROBED_GATES, RED, judge_failed
    try:
        jobs = client.paginate(f"/repos/{owner}/{name}/actions/runs/{run_id}/jobs",
                               {"per_page": 100, "filter": "latest"}, key="jobs")
        outcome, why = judge_failed(jobs, PROBED_GATES, line=line)
    except GitHubError:
        return None
    if outcome == RED:
        return None
    return (f"not bisecting: run {sanitize.line(run_id)[:20]} has {why}, so no probe would fail again "
            "(a failed smoke test, upload or publish, or a cell without a runner, is not the pins'); "
            "see the run's log")


def _branch(repo: ReleaseRepo) -> str | None:
    """The line the checkout is (the bisect job checks out its line's branch); None when detached."""
    from release.core.errors import UserError
    try:
        return repo.current_branch()
    except UserError:
        return None


def after_red_nightly(store: Store, deps: Deps, bad: dict, known: Sequence[KnownHold], cache: Path, *,
                      good_tag: str | None = None, say: Say = lambda _: None, line: str | None = None) -> AfterRed:
    """Decide what to bisect after a red nightly whose pins are ``bad`` (see the module doc);
    ``line`` (``X.Y.Z``): the last green nightly is that line's (another maintained line's
    nightly is no green end of this one's pins)."""
    release: Release | None
    if good_tag is None:
        last = store.published().latest(("nightly",), line=line)
        if last is None:
            return AfterRed(False, f"nothing to bisect: {store.where} has no published nightly, so "
                                   "no green end to start from", bad=bad)
        good_tag, release = last.tag, last
    else:
        release = store.published_for(good_tag)
        if release is None:
            raise UserError(f"{store.where}: no published release {good_tag}; expected the tag of the "
                            "last green nightly")
    commits: dict[str, str] = dict(built_from(store, release, good_tag).commits)
    good = {"name": good_tag, "commits": commits}
    if commits.get(SOURCE) == bad["commits"].get(SOURCE):
        return AfterRed(False, f"nothing to bisect: the {SOURCE} pin is {bad['commits'].get(SOURCE, '?')[:7]} "
                               f"in {good_tag} and in {bad['name']}; bisect walks {SOURCE} commits, so "
                               "this failure is not one of them (see the nightly's log)", good, bad)
    say(f"looking for a culprit already named between {good_tag} and {bad['name']}")
    hold = known_in_range(deps, commits, bad["commits"], known, cache)
    if hold is not None:
        return AfterRed(False, f"nothing to do: {SOURCE} {hold.commit[:7]}, between {good_tag} and "
                               f"{bad['name']}, is already the culprit ({hold.where})", good, bad, hold)
    return AfterRed(True, f"bisect {good_tag}..{bad['name']}: the last green nightly and the red one's pins "
                          f"({SOURCE} {commits[SOURCE][:7]}..{bad['commits'][SOURCE][:7]})",
                    good, bad)


# ---------------------------------------------------------------- the ends, the holds known


def nightly_end(store: Store, tag: str) -> dict:
    """``{"name": tag, "commits": ...}`` of a nightly, published or still a draft (a red one)."""
    published = store.published_for(tag)
    release = published or next(iter(store.drafts_for(tag)), None)
    if release is None:
        raise UserError(f"{store.where}: no release or draft {tag}; expected the tag of a nightly "
                        "whose revisions.json says what it was built from")
    return {"name": tag, "commits": built_from(store, release, tag).commits}


def bad_end(project: Project, store: Callable[[], Store], repo: ReleaseRepo | None, *,
            tag: str | None = None, commit: str | None = None) -> dict:
    """The red end: a nightly's ``tag``, deps.yaml at ``commit`` of this checkout (the one a red
    nightly ran from, whatever main pins since: ``"commit"`` holds its full sha), or deps.yaml now."""
    if tag:
        return nightly_end(store(), tag)
    if commit:
        from release.core.config import parse_deps
        from release.sources.repo import ReleaseRepo
        repo = repo or ReleaseRepo(project.root)
        deps = parse_deps(project.deps.path, repo.text_at(commit, project.deps.path))
        sha = repo.rev_parse(f"{commit}^{{commit}}")
        return {"name": f"deps.yaml at {sha[:7]}", "commits": {d.name: d.commit for d in deps},
                "commit": sha}
    return {"name": "deps.yaml", "commits": {d.name: d.commit for d in project.deps}}


def hold_pulls(repo: ReleaseRepo, *, required: bool, env: Mapping[str, str], needs: Permission,
               console: Console | None = None) -> BumpPull | None:
    """This repository on GitHub (its hold PRs), from ``$GITHUB_REPOSITORY``: when ``required``
    (a missing one is a user's error), else when it is set. Their base is the checkout's branch,
    or main in a detached checkout (as CI may make). ``needs``: what the caller does there, for
    the line a missing token gets (reading the hold PRs only asks ``pull-requests: read``)."""
    from release.sources.github import GitHubClient
    from release.sources.pull_requests import BumpPull, repository_from_env
    if not required and not env.get("GITHUB_REPOSITORY"):
        return None
    owner, name = repository_from_env(env)
    try:
        base = repo.current_branch()
    except UserError:
        base = "main"
    return BumpPull(GitHubClient.from_env(env, console=console, needs=needs), owner, name, base)


def known(project: Project, repo: ReleaseRepo, where: BumpPull | None) -> list[KnownHold]:
    """The culprits already named: held in deps.yaml at HEAD, or in a hold PR of ``where``."""
    from release.sources.holds import known_holds
    return known_holds(repo, project.deps.path, SOURCE, where)


# ---------------------------------------------------------------- release bisect --plan


@dataclasses.dataclass(frozen=True)
class PlanOptions:
    good: str | None = None        # the good end's tag (None: the newest published nightly)
    bad: str | None = None         # the red nightly's tag
    bad_commit: str | None = None  # or this repository's commit the red nightly ran from
    dispatch: str | None = None    # start this workflow when there is something to bisect
    run_id: str = ""               # $GITHUB_RUN_ID: the red run itself, when it dispatches


@dataclasses.dataclass(frozen=True)
class BisectPlan:
    """What ``plan_bisect`` decided and did: ``decided.line`` says why a bisect runs or not."""

    decided: AfterRed
    bad: dict
    dispatched: dict | None = None  # {"workflow", "ref", "inputs"} of the bisect started

    @property
    def line(self) -> str:
        if self.dispatched is None:
            return self.decided.line
        return self.decided.line + f"; started {self.dispatched['workflow']} on {self.dispatched['ref']}"

    @property
    def exit_status(self) -> int:
        return 0

    def to_json(self) -> dict[str, Any]:
        data = self.decided.to_json()
        if self.dispatched is not None:
            data |= {"dispatched": self.dispatched, "line": self.line}
        return data

    def said(self) -> str:
        """One line: started or not run, then why (the plan's own line)."""
        if self.dispatched is not None:
            return sanitize.line(f"started {self.dispatched['workflow']}: {self.decided.line}")
        return sanitize.line(f"not run: {self.decided.line}")

    def markdown(self) -> str:
        return sanitize.markdown(self.line) + "\n"

    def text(self) -> str:
        return sanitize.line(self.line)

    def outputs(self) -> dict[str, str]:
        """The ``$GITHUB_OUTPUT`` keys: bisect, said (the dashboard's line: whether it started
        and why), and good and bad-commit when known."""
        outputs = {"bisect": "true" if self.decided.bisect else "false", "said": self.said()}
        if self.decided.good:
            outputs["good"] = self.decided.good["name"]
        if self.bad.get("commit"):
            outputs["bad-commit"] = self.bad["commit"]
        return outputs


def plan_bisect(project: Project, options: PlanOptions, store: Callable[[], Store], *,
                env: Mapping[str, str], console: Console | None = None,
                say: Say = lambda _: None) -> BisectPlan:
    """What to bisect after a red nightly (see the module doc); with ``dispatch``, start the
    bisect workflow on the checkout's branch with inputs good, bad-commit and skip-known.
    ``store`` is opened after the checkout is found (no checkout: refused first)."""
    from release.sources.checkout import cache_dir
    from release.sources.github import BISECT_DISPATCH, READ_PULLS
    from release.sources.repo import ReleaseRepo

    repo = ReleaseRepo(project.root)
    repo.head()
    where = hold_pulls(repo, required=bool(options.dispatch), env=env, console=console,
                       needs=BISECT_DISPATCH if options.dispatch else READ_PULLS)
    opened = store()
    bad = bad_end(project, lambda: opened, repo, tag=options.bad, commit=options.bad_commit)
    # In the red run itself (the nightly's bisect job): only a failure a probe reproduces.
    run_id = options.run_id if options.dispatch and where is not None else ""
    why_not = (probe_reproducible(where.client, where.owner, where.name, run_id, line=_branch(repo))
               if where and run_id else None)
    if why_not is not None:
        decided = AfterRed(False, why_not, bad=bad)
    else:
        decided = after_red_nightly(opened, project.deps, bad, known(project, repo, where),
                                    cache_dir(project.root), good_tag=options.good, say=say,
                                    line=project.version_info.line)
    if not (decided.bisect and options.dispatch):
        return BisectPlan(decided, bad)
    assert where is not None
    inputs = {"good": decided.good["name"] if decided.good else "", "skip_known": "true",
              **({"bad_commit": bad["commit"]} if bad.get("commit") else {}),
              **({"bad": options.bad} if options.bad else {})}
    where.client.dispatch_workflow(where.owner, where.name, options.dispatch, ref=where.base, inputs=inputs)
    return BisectPlan(decided, bad, {"workflow": options.dispatch, "ref": where.base, "inputs": inputs})
