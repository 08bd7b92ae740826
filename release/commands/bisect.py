"""``release bisect``: find the first bad plugin commit (and which pin moved) between two nightlies."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from release.commands._common import add_date_options, add_store_options, open_store_from_args, project, today_utc
from release.core import flags, sanitize
from release.core.errors import UserError
from release.core.output import Output, github_output, step_summary

if TYPE_CHECKING:
    import argparse

    from release.core.config import Project
    from release.jobs.bisect import Outcome
    from release.publish.stores import Store
    from release.sources.pull_requests import BumpPull
    from release.sources.repo import ReleaseRepo

# The steps a probe names as failed (release.jobs.bisect); anything else in a state file is not one.
PROBE_STEPS = ("fetch", "build", "verify", "validate", "command")

HELP = ("binary-search the plugin commits between a good and a bad nightly for the first bad pin set "
        "(build + verify + validate per probe, or --probe-command); never publishes")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--good", metavar="TAG",
                        help="tag of the last good nightly (its revisions.json gives the pins); needed "
                             "unless --plan, which takes the newest published nightly")
    bad = parser.add_mutually_exclusive_group()
    bad.add_argument("--bad", metavar="TAG",
                     help="tag of the red nightly (default: the pins in deps.yaml)")
    bad.add_argument("--bad-commit", metavar="SHA",
                     help="the pins deps.yaml had at this repository's commit SHA (the one a red "
                          "nightly ran from)")
    parser.add_argument("--plan", action="store_true",
                        help="decide what to bisect after a red nightly and change nothing: the good end "
                             "(default: the newest published nightly), the bad pins, or why there is "
                             "nothing to do (the plugin pin did not move, or a culprit already held or "
                             "proposed lies between them); outputs bisect, good and bad-commit")
    parser.add_argument("--dispatch", metavar="WORKFLOW",
                        help="with --plan: when there is something to bisect, start WORKFLOW (e.g. "
                             "bisect.yml) on the current branch with inputs good, bad-commit and "
                             "skip-known (needs GITHUB_REPOSITORY and a GITHUB_TOKEN with actions: write)")
    parser.add_argument("--skip-known", action="store_true",
                        help="do nothing (exit 0, one line) when a culprit already held or proposed "
                             "lies between good and bad: a second red night starts no second bisect")
    parser.add_argument("--recorded-only", action="store_true",
                        help="never probe: report (and --hold) the finished bisect dist/bisect/state.json "
                             "records; exit 2 when it needs a probe (the CI job that delivers the hold)")
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
    from release.publish.drafts import built_from
    published = store.published_for(tag)
    release = published or next(iter(store.drafts_for(tag)), None)
    if release is None:
        raise UserError(f"{store.where}: no release or draft {tag}; expected the tag of a nightly "
                        "whose revisions.json says what it was built from")
    return {"name": tag, "commits": built_from(store, release, tag).commits}


def _bad_endpoint(args: argparse.Namespace, proj: Project, store: Store | None,
                  repo: ReleaseRepo | None) -> dict:
    """The red end: a nightly's tag, deps.yaml at a commit of this checkout, or deps.yaml now."""
    if args.bad:
        assert store is not None
        return _endpoint(store, args.bad)
    if args.bad_commit:
        from release.core.config import parse_deps
        from release.sources.repo import ReleaseRepo
        repo = repo or ReleaseRepo(proj.root)
        deps = parse_deps(proj.deps.path, repo.text_at(args.bad_commit, proj.deps.path))
        sha = repo.rev_parse(f"{args.bad_commit}^{{commit}}")
        return {"name": f"deps.yaml at {sha[:7]}", "commits": {d.name: d.commit for d in deps},
                "commit": sha}
    return {"name": "deps.yaml", "commits": {d.name: d.commit for d in proj.deps}}


def _where(out: Output, repo: ReleaseRepo, *, required: bool) -> BumpPull | None:
    """This repository on GitHub (its hold PRs): required for --open-pr, else when configured."""
    import os

    from release.sources.github import PULL_REQUEST, GitHubClient
    from release.sources.pull_requests import BumpPull, repository_from_env
    if not required and not os.environ.get("GITHUB_REPOSITORY"):
        return None
    owner, name = repository_from_env()
    try:
        base = repo.current_branch()
    except UserError:  # a detached checkout, as CI may make: the hold PR's base is main
        base = "main"
    return BumpPull(GitHubClient.from_env(console=out.progress_console(), needs=PULL_REQUEST), owner, name, base)


def _known(proj: Project, repo: ReleaseRepo, where: BumpPull | None) -> list:
    from release.jobs.bisect import SOURCE
    from release.sources.holds import known_holds
    return known_holds(repo, proj.deps.path, SOURCE, where)


def run(args: argparse.Namespace, out: Output) -> int:
    from release.jobs import bisect
    from release.jobs.pipeline import job_lock
    from release.sources.checkout import cache_dir

    proj = project(args)
    if args.dispatch and not args.plan:
        raise UserError("--dispatch starts the bisect --plan decides on; pass --plan with it")
    if args.plan:
        return _plan(args, out, proj)
    if not args.good:
        raise UserError("--good TAG is needed (the last good nightly), or --plan to choose it")
    push = args.push or args.open_pr
    hold = args.hold or push
    repo: ReleaseRepo | None = None
    pull: BumpPull | None = None
    if hold or args.skip_known:  # refuse before any work when there is no checkout to commit the hold in
        from release.sources.repo import ReleaseRepo
        repo = ReleaseRepo(proj.root)
        repo.head()
        pull = _where(out, repo, required=args.open_pr) if (args.open_pr or args.skip_known) else None
    dist = (args.dist or proj.root / "dist").resolve()
    bisect_dir = dist / "bisect"
    store = open_store_from_args(args, out, writes=False)
    good = _endpoint(store, args.good)
    bad = _bad_endpoint(args, proj, store, repo)
    cache = cache_dir(proj.root)
    if args.skip_known:
        from release.jobs.bisect_plan import known_in_range
        assert repo is not None
        hit = known_in_range(proj.deps, good["commits"], bad["commits"], _known(proj, repo, pull), cache)
        if hit is not None:
            line = (f"nothing to do: {bisect.SOURCE} {hit.commit[:7]}, between {good['name']} and "
                    f"{bad['name']}, is already the culprit ({hit.where})")
            github_output({"found": "false", "known": hit.commit})
            step_summary(sanitize.markdown(line) + "\n")
            line = sanitize.line(line)
            out.result({"good": good, "bad": bad, "known": hit.to_json(), "line": line},
                       lambda console: console.print(line, markup=False, highlight=False))
            return 0
    date = args.date or today_utc()
    probe: bisect.Probe
    if args.recorded_only:
        probe = bisect.RecordedOnly()
    elif args.probe_command:
        probe = bisect.CommandProbe(args.probe_command, proj.root)
    else:
        probe = bisect.BuildProbe(proj, (args.workspace or bisect_dir / "workspace").resolve(), cache,
                                  date, console=out.progress_console())
    with job_lock(proj.root, "bisect"):  # one bisect at a time: they share state.json and the workspace
        outcome = bisect.run_bisect(proj.deps, good, bad, probe, bisect_dir, cache, reset=args.reset,
                                    date=date, say=out.line, max_log_lines=args.max_log_lines)
    data = outcome.to_json()
    if hold:
        assert repo is not None
        data["hold"] = _hold(proj, outcome, data, repo, push=push, pull=pull if args.open_pr else None)
    culprit = outcome.culprit
    github_output({"found": "true" if culprit else "false",
                   **({"first-bad": culprit.sha, "moved": ",".join(culprit.moved)} if culprit else {})})
    step_summary(_markdown(data))
    out.result(data, lambda console: console.print(_markdown(data), markup=False, highlight=False))
    return 0 if culprit is not None else 1


def _plan(args: argparse.Namespace, out: Output, proj: Project) -> int:
    """``--plan``: what to bisect after a red nightly (``release.jobs.bisect_plan``); with
    ``--dispatch``, start the bisect workflow with it."""
    from release.jobs.bisect_plan import AfterRed, after_red_nightly, probe_reproducible
    from release.sources.checkout import cache_dir
    from release.sources.repo import ReleaseRepo

    repo = ReleaseRepo(proj.root)
    repo.head()
    where = _where(out, repo, required=bool(args.dispatch))
    store = open_store_from_args(args, out, writes=False)
    bad = _bad_endpoint(args, proj, store, repo)
    # In the red run itself (the nightly's bisect job): only a failure a probe reproduces.
    run_id = os.environ.get("GITHUB_RUN_ID", "") if args.dispatch and where is not None else ""
    why_not = probe_reproducible(where.client, where.owner, where.name, run_id) if where and run_id else None
    if why_not is not None:
        decided = AfterRed(False, why_not, bad=bad)
    else:
        decided = after_red_nightly(store, proj.deps, bad, _known(proj, repo, where), cache_dir(proj.root),
                                    good_tag=args.good, say=out.line)
    data = decided.to_json()
    outputs = {"bisect": "true" if decided.bisect else "false"}
    if decided.good:
        outputs["good"] = decided.good["name"]
    if bad.get("commit"):
        outputs["bad-commit"] = bad["commit"]
    if decided.bisect and args.dispatch:
        assert where is not None
        inputs = {"good": decided.good["name"] if decided.good else "", "skip_known": "true",
                  **({"bad_commit": bad["commit"]} if bad.get("commit") else {}),
                  **({"bad": args.bad} if args.bad else {})}
        where.client.dispatch_workflow(where.owner, where.name, args.dispatch, ref=where.base, inputs=inputs)
        data["dispatched"] = {"workflow": args.dispatch, "ref": where.base, "inputs": inputs}
        data["line"] = decided.line + f"; started {args.dispatch} on {where.base}"
    github_output(outputs)
    step_summary(sanitize.markdown(data["line"]) + "\n")
    out.result(data, lambda console: console.print(sanitize.line(data["line"]), markup=False, highlight=False))
    return 0


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
    step = probe.get("step") if probe.get("step") in PROBE_STEPS else None  # state.json is data
    hold = Hold(culprit.sha, holds.hold_reason(outcome.good["name"], outcome.bad["name"], culprit.moved, step))
    done = holds.deliver_hold(repo, proj.deps.path, SOURCE, hold, changelog=outcome.changelog,
                              report=_markdown(data), push=push, pull=pull)
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


def _markdown(data: dict) -> str:
    """The result as a person reads it first: the culprit, what moved, the log, then the table.
    Every word in it came from outside (upstream subjects, the store's tag names, a state.json
    a probe job wrote): each goes through ``release.core.sanitize``, so it reads as the same
    words on a terminal, in the step summary and in the hold PR, and does nothing else."""
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
