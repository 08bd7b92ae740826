"""``release bisect``: find the first bad plugin commit (and which pin moved) between two nightlies."""

from __future__ import annotations

from typing import TYPE_CHECKING

from release.commands._common import add_date_options, add_store_options, open_store_from_args, project, today_utc
from release.core import flags
from release.core.errors import UserError
from release.core.output import Output, github_output, step_summary

if TYPE_CHECKING:
    import argparse

    from release.core.config import Project
    from release.jobs.bisect import Outcome
    from release.publish.stores import Store
    from release.sources.pull_requests import BumpPull
    from release.sources.repo import ReleaseRepo

HELP = ("binary-search the plugin commits between a good and a bad nightly for the first bad pin set "
        "(build + verify + validate per probe, or --probe-command); never publishes")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--good", required=True, metavar="TAG",
                        help="tag of the last good nightly (its revisions.json gives the pins)")
    parser.add_argument("--bad", metavar="TAG",
                        help="tag of the red nightly (default: the pins in deps.yaml)")
    parser.add_argument("--probe-command", metavar="CMD",
                        help="shell command deciding each probe instead of a build: exit 0 good, "
                             "125 skip, 1-127 bad; BISECT_PLUGIN_COMMIT, BISECT_JAX_COMMIT, "
                             "BISECT_XLA_COMMIT, BISECT_INDEX and BISECT_DIR name the candidate")
    parser.add_argument("--dist", type=flags.creatable_dir, metavar="DIR",
                        help="where dist/ is (default: <root>/dist); probes go to DIR/bisect/<sha>/")
    parser.add_argument("--workspace", type=flags.creatable_dir, metavar="DIR",
                        help="checkouts the build probes share (default: <dist>/bisect/workspace)")
    parser.add_argument("--reset", action="store_true",
                        help="forget dist/bisect/state.json and start over")
    parser.add_argument("--hold", action="store_true",
                        help="commit a hold of the first bad plugin commit into deps.yaml on the branch "
                             "hold/plugin (HEAD untouched), so bumps stop before it once merged")
    parser.add_argument("--push", action="store_true",
                        help="force-push the hold branch to origin (implies --hold)")
    parser.add_argument("--open-pr", action="store_true",
                        help="open the hold's pull request, or refresh the open one, with the culprit, "
                             "the probes and the reason (implies --push; needs GITHUB_REPOSITORY and "
                             "GITHUB_TOKEN)")
    parser.add_argument("--max-log-lines", type=flags.non_negative_int, default=50, metavar="N",
                        help="commits listed per dep in the changelog of the bad step (default 50)")
    add_date_options(parser)
    add_store_options(parser)


def _endpoint(store: Store, tag: str) -> dict:
    from release.publish.drafts import previous_revisions
    published = store.published_for(tag)
    release = published or next(iter(store.drafts_for(tag)), None)
    if release is None:
        raise UserError(f"{store.where}: no release or draft {tag}; expected the tag of a nightly "
                        "whose revisions.json says what it was built from")
    revisions = previous_revisions(store, release)
    if revisions is None:
        raise UserError(f"{store.where}: {tag} has no readable revisions.json asset; cannot tell "
                        "which pins it was built from")
    return {"name": tag, "commits": revisions.commits}


def run(args: argparse.Namespace, out: Output) -> int:
    from release.jobs import bisect
    from release.jobs.pipeline import job_lock
    from release.sources.checkout import cache_dir

    proj = project(args)
    push = args.push or args.open_pr
    hold = args.hold or push
    repo: ReleaseRepo | None = None
    pull: BumpPull | None = None
    if hold:  # refuse before any work when there is no checkout to commit the hold in
        from release.sources.pull_requests import BumpPull, repository_from_env
        from release.sources.repo import ReleaseRepo
        repo = ReleaseRepo(proj.root)
        repo.head()
        if args.open_pr:  # and when the pull request could not be opened
            from release.sources.github import GitHubClient
            owner, name = repository_from_env()
            pull = BumpPull(GitHubClient.from_env(console=out.progress_console()), owner, name,
                            repo.current_branch())
    dist = (args.dist or proj.root / "dist").resolve()
    bisect_dir = dist / "bisect"
    store = open_store_from_args(args, out)
    good = _endpoint(store, args.good)
    bad = _endpoint(store, args.bad) if args.bad else {"name": "deps.yaml",
                                                       "commits": {d.name: d.commit for d in proj.deps}}
    cache = cache_dir(proj.root)
    date = args.date or today_utc()
    probe: bisect.Probe
    if args.probe_command:
        probe = bisect.CommandProbe(args.probe_command, proj.root)
    else:
        probe = bisect.BuildProbe(proj, (args.workspace or bisect_dir / "workspace").resolve(), cache,
                                  date, console=out.progress_console())
    with job_lock(proj.root, "bisect"):  # one bisect at a time: they share state.json and the workspace
        outcome = bisect.run_bisect(proj.deps, good, bad, probe, bisect_dir, cache, reset=args.reset,
                                    date=date, say=out.line, max_log_lines=args.max_log_lines)
    data = outcome.to_json()
    if repo is not None:  # --hold (or --push, --open-pr)
        data["hold"] = _hold(proj, outcome, data, repo, push=push, pull=pull)
    culprit = outcome.culprit
    github_output({"found": "true" if culprit else "false",
                   **({"first-bad": culprit.sha, "moved": ",".join(culprit.moved)} if culprit else {})})
    step_summary(_markdown(data))
    out.result(data, lambda console: console.print(_markdown(data), markup=False, highlight=False))
    return 0 if culprit is not None else 1


def _hold(proj: Project, outcome: Outcome, data: dict, repo: ReleaseRepo, *, push: bool,
          pull: BumpPull | None) -> dict:
    """Hold the culprit in deps.yaml on ``hold/plugin`` (HEAD untouched); push it and open or
    refresh its PR as asked (``release.sources.holds``)."""
    from release.core.config import Hold
    from release.jobs.bisect import SOURCE
    from release.sources import holds

    culprit = outcome.culprit
    if culprit is None:
        raise UserError("--hold needs one first bad commit; this bisect did not find one")
    probe = outcome.probes.get(culprit.sha) or {}
    hold = Hold(culprit.sha, holds.hold_reason(outcome.good["name"], outcome.bad["name"], culprit.moved,
                                               probe.get("step")))
    done = holds.deliver_hold(repo, proj.deps.path, SOURCE, hold, changelog=outcome.changelog,
                              report=_markdown(data), push=push, pull=pull)
    line = done["line"] + f"; committed {done['commit'][:12]} on {done['branch']}"
    if done.get("pushed"):
        line += ", pushed"
    if done.get("pull_request"):
        pr = done["pull_request"]
        line += f"; pull request {pr['action']}: {pr.get('url') or '#%d' % pr['number']}"
    return {"dep": SOURCE, "commit": culprit.sha, "reason": hold.reason, "branch": done["branch"],
            "sha": done["commit"], "pushed": bool(done.get("pushed")),
            **({"pull_request": done["pull_request"]} if "pull_request" in done else {}), "line": line}


def _markdown(data: dict) -> str:
    """The result as a person reads it first: the culprit, what moved, the log, then the table."""
    lines = [f"## bisect {data['good']['name']}..{data['bad']['name']}", ""]
    found = data["first_bad"]
    if found:
        moved = ", ".join(found["moved"]) or "nothing (same pins)"
        lines.append(f"**First bad:** plugin `{found['plugin'][:12]}` {found['subject']} "
                     f"(candidate {found['index']} of {len(data['candidates'])}); moved: {moved}")
        if found.get("step"):
            lines.append(f"Failing step: {found['step']}: {found.get('message') or ''}".rstrip(": "))
        if found.get("log"):
            lines.append(f"Log: `{found['log']}`")
    elif not data["reproduced"]:
        lines.append("**Not reproduced:** the bad end probed good; the red nightly's failure does "
                     "not follow from its pins (flaky, or outside the pins)")
    else:
        shas = ", ".join(s[:7] for s in data["undecided"])
        lines.append(f"**Undecided:** the first bad commit is one of {shas} (skipped probes)")
    if data.get("hold"):
        lines.append(f"Hold committed: {data['hold']['line']}")
    for note in data["notes"]:
        lines.append(f"- note: {note}")
    lines += ["", "| # | plugin | moved | verdict | subject |", "|---|---|---|---|---|"]
    for c in data["candidates"]:
        moved = ", ".join(c["moved"]) or "- (outside the build)"
        lines.append(f"| {c['index']} | `{c['plugin'][:7]}` | {moved} | {c['verdict'] or ''} | "
                     f"{c['subject']} |")
    lines += ["", f"Probes: {data['probes_run']} run now, {data['probes_total']} in total "
                  f"(state: `{data['state']}`); nothing was published."]
    if found and data["changelog"]:
        lines += ["", "### The bad step", "", data["changelog"].rstrip()]
    return "\n".join(lines) + "\n"
