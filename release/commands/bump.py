"""``release bump``: roll the pins in deps.yaml, print the changelog, commit, push, open the PR."""

from __future__ import annotations

import dataclasses
import datetime as _dt
from typing import TYPE_CHECKING

from release.commands._common import add_date_option, now_utc, project, today_utc
from release.core import flags
from release.core.errors import UserError
from release.core.output import Output, github_output, step_summary
from release.core.redact import redact

if TYPE_CHECKING:
    import argparse
    from pathlib import Path

    from rich.console import Console

HELP = "roll the pinned commits forward by their roll policies, with a changelog (and a PR)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from release.sources import changelog
    parser.add_argument("--dep", action="append", default=[], metavar="NAME",
                        help="roll only this dep (repeatable; default: all)")
    parser.add_argument("--to", metavar="SHA", help="pin the one --dep to this exact commit")
    parser.add_argument("--allow-rewind", action="store_true",
                        help="allow a move backwards or sideways (new is not a descendant of old)")
    parser.add_argument("--changelog", type=flags.output_file, metavar="FILE",
                        help="also write the Markdown changelog here")
    parser.add_argument("--max-log-lines", type=flags.non_negative_int, default=changelog.DEFAULT_MAX_LINES,
                        metavar="N",
                        help=f"commits listed per dep before '... and N more' "
                             f"(default {changelog.DEFAULT_MAX_LINES})")
    parser.add_argument("--commit", action="store_true",
                        help="commit deps.yaml on a branch bump/<date>-<deps> (work tree untouched)")
    parser.add_argument("--push", action="store_true", help="push the bump branch to origin (implies --commit)")
    parser.add_argument("--open-pr", action="store_true",
                        help="open or update the one bump PR, or close it when pins are current "
                             "(implies --push; needs GITHUB_REPOSITORY and GITHUB_TOKEN)")
    parser.add_argument("--auto-merge", action="store_true",
                        help="first merge the open bump PR when its branch is the tool's own commit and "
                             "every required check on it passed; a merge or pending checks end the run "
                             "(implies --open-pr)")
    parser.add_argument("--merge-require", action="append", default=[], metavar="NAME",
                        help="with --auto-merge: the check or status that must pass (repeatable; "
                             "default: every check present, at least one)")
    parser.add_argument("--merge-method", choices=("merge", "squash", "rebase"), default="merge",
                        help="with --auto-merge: how GitHub merges (default merge)")
    parser.add_argument("--dry-run", action="store_true", help="show what would move; write nothing")
    add_date_option(parser, "UTC date in the bump branch's name (default: today, UTC)")


def run(args: argparse.Namespace, out: Output) -> int:
    from release.core.config import (
        LINE_DEP,
        atomic_write,
        parse_version_info,
        render_deps,
        render_version_info,
        save_deps,
        save_version_info,
    )
    from release.core.roller import DRY_RUN, STOPPED
    from release.sources import changelog
    from release.sources.checkout import cache_dir
    from release.sources.line import version_move
    from release.sources.pull_requests import BumpPull, deliver_bump, repository_from_env
    from release.sources.repo import ReleaseRepo, committed_deps, committed_roller
    from release.sources.roll import roll
    from release.sources.throttle import check as check_throttle
    proj = project(args)
    roller, roller_warning = committed_roller(proj.root)  # as reviewed: committed at HEAD
    roller = roller.at(now_utc())  # a pause past its until: is running again
    if roller_warning:
        out.err.print(f"warning: {roller_warning}", markup=False)
    roller_line = roller.line()
    if roller.mode == STOPPED and roller_line:
        return _stopped(out, roller_line, {"roller": roller.mode, "roller_warning": roller_warning})
    throttle = check_throttle(roller, branch=_nightly_branch(proj.root), console=out.progress_console())
    throttle_line = throttle.line()
    # A stopped throttle rolls nothing forward and merges nothing; only the moves back that a
    # hold asks for still go through (a merged hold is how a red streak ends in a green night).
    holds_only = throttle.stops and throttle_line is not None
    stopped = {"throttle": throttle.to_json(), "roller_warning": roller_warning}
    if holds_only and not any(dep.hold for dep in proj.deps):  # before any fetch, merge or push
        return _stopped(out, throttle_line or "", stopped)
    if roller.mode == DRY_RUN:  # as --dry-run, whatever the workflow asked for
        args.dry_run, args.commit, args.push, args.open_pr, args.auto_merge = True, False, False, False, False
        args.merge_require, args.merge_method = [], "merge"
    if (args.merge_require or args.merge_method != "merge") and not args.auto_merge:
        raise UserError("--merge-require and --merge-method need --auto-merge")
    open_pr = args.open_pr or args.auto_merge
    push = args.push or open_pr
    commit = args.commit or push
    if args.dry_run and commit:
        raise UserError("--dry-run writes nothing; it cannot be combined with --commit, --push, --open-pr "
                        "or --auto-merge")
    deps = proj.deps
    repo = None
    if commit:
        repo = ReleaseRepo(proj.root)
        deps = committed_deps(repo, deps)
    pull = None
    if open_pr and repo is not None:  # (--open-pr commits) fail on a missing token first
        from release.sources.github import PULL_REQUEST, GitHubClient
        owner, name = repository_from_env()
        pull = BumpPull(GitHubClient.from_env(console=out.progress_console(), needs=PULL_REQUEST), owner, name,
                        repo.current_branch())
    if args.auto_merge and pull is not None and repo is not None and not holds_only:
        from release.sources.automerge import merge_if_green
        merged = merge_if_green(pull.client, repo, owner=pull.owner, name=pull.name, base=pull.base,
                                require=args.merge_require or "green", method=args.merge_method)
        if merged.action == "merged" or merged.checks == "pending":  # the next run rolls from there
            done = {"changed": False, "title": merged.line, "auto_merge": merged.to_json(),
                    **({"throttle": throttle.to_json()} if throttle_line else {})}
            github_output({"changed": "false", "title": merged.line, "merged": str(merged.action == "merged").lower()})
            said = [merged.line, *([throttle_line] if throttle_line else [])]  # the throttle decided too
            step_summary("## bump\n\n" + "\n\n".join(said) + "\n")
            out.result(done, lambda console: console.print("\n".join(said), markup=False))
            return 0
        auto_merge: dict | None = merged.to_json()
    else:
        auto_merge = None
    soaked_before = None
    if roller.cooldown_hours:  # by the run's clock, never the wall's when RELEASE_NOW is set
        soaked_before = int((now_utc() - _dt.timedelta(hours=roller.cooldown_hours)).timestamp())

    with out.progress_console().status("rolling pins") as status:
        result = roll(deps, cache_dir(proj.root), only=args.dep, to=args.to,
                      allow_rewind=args.allow_rewind, say=lambda text: status.update(text),
                      soaked_before=soaked_before, holds_only=holds_only)

    moves = result.moves
    if holds_only:
        if not moves:  # no pin contains a held commit: nothing rolls, as throttled
            return _stopped(out, throttle_line or "", stopped)
        throttle_line = f"{throttle_line}; only the move back a hold asks for is made"
    # The release line is jax's: version_info.json's version follows the jax pin's line, in the
    # same commit (from the committed file when committing, as deps.yaml is).
    info_text = repo.committed(proj.version_info.path) if repo is not None else None
    info = (parse_version_info(proj.version_info.path, info_text) if info_text is not None
            else proj.version_info)
    jax = result.new[LINE_DEP]
    published: tuple[str, ...] = ()
    if jax.line is not None and jax.line != info.line:  # a line may be released already: never reuse it
        from release.check.resolver import index_versions, public_index_default
        published = index_versions(info.rocm_major, public_index_default())
    vmove = version_move(info, jax, published)
    notes = result.notes + ((vmove.sentence,) if vmove else ())
    data = changelog.to_json(moves, notes)
    text = changelog.markdown(moves, args.max_log_lines, notes)
    title = changelog.title(moves) if moves else "Pins are current"
    if vmove is not None:
        back = " back" if vmove.back else ""
        title = (f"{title}; version{back} {vmove.new}" if moves else
                 f"Move the version{back} to {vmove.new} (the jax pin's line)")
        text = text if moves else changelog.notes_markdown(notes) + "The pins did not move.\n"
    if roller_line is not None:  # dry-run by roller.yaml: one line of the changelog says so
        text += f"\n{roller_line}.\n"
        data["roller"] = roller.mode
    if throttle_line is not None:  # the throttle's decision: one line of the changelog
        text += f"\n{throttle_line}.\n"
        data["throttle"] = {**throttle.to_json(), "line": throttle_line}  # as said (holds only)
    if roller_warning:
        data["roller_warning"] = roller_warning
    decisions = [line for line in (roller_line, throttle_line) if line]
    if auto_merge is not None:  # why the open PR was not merged: one line of this bump's changelog
        text += f"\n{auto_merge['line']}.\n"
        data["auto_merge"] = auto_merge
    data |= {"title": title, "changed": bool(moves or vmove),
             "version": vmove.to_json() if vmove else None}
    if not args.dry_run and (moves or vmove):
        if moves and repo is None:  # committing leaves the work tree as the person left it
            save_deps(result.new)
        if vmove is not None and repo is None:
            save_version_info(dataclasses.replace(proj.version_info, version=vmove.new))
    if repo is not None:  # --commit (or --push, --open-pr): the files as committed, with the new pins
        deps_text = repo.committed(proj.deps.path)
        also = {proj.deps.path: render_deps(result.new, deps_text)} if deps_text is not None else {}
        if vmove is not None and info_text is not None:
            also[info.path] = render_version_info(dataclasses.replace(info, version=vmove.new), info_text)
        data |= deliver_bump(repo, proj.deps.path,
                             moved=tuple(m.name for m in moves) + (("version",) if vmove else ()),
                             date=args.date or today_utc(), title=title, body=text, push=push,
                             pull=pull, also=also)
        kept = data.get("pull_request", {}).get("reason")
        if kept:  # a person's commits on the bump PR: this run pushed nothing, and says why
            text += f"\n{kept}.\n"
    if args.changelog and not args.dry_run and (moves or vmove):
        atomic_write(args.changelog, redact(f"# {title}\n\n{text}"))
    github_output({"changed": "true" if data["changed"] else "false", "title": title,
                   **({"branch": data["branch"]} if "branch" in data else {}),
                   **({"pr-number": str(data["pull_request"]["number"])}
                      if data.get("pull_request", {}).get("number") else {})})
    step_summary(f"## {title}\n\n{text}" if data["changed"] else "## bump: pins are current"
                 + (f"\n\n{kept_line}\n" if (kept_line := data.get("pull_request", {}).get("reason"))
                    and not data["changed"] else "")
                 + ("".join(f"\n\n{line}" for line in decisions) if not data["changed"] else ""))
    out.result(data, lambda console: _human(console, data, text, args.dry_run, decisions))
    return 0


def _stopped(out: Output, line: str, extra: dict) -> int:
    """The roller rolls nothing this run (stopped, or throttled): one line everywhere."""
    github_output({"changed": "false", "title": line})
    step_summary(f"## bump\n\n{line}\n")
    data = {"changed": False, "title": line, **{k: v for k, v in extra.items() if v is not None}}
    out.result(data, lambda console: console.print(line, markup=False))
    return 0


def _nightly_branch(root: Path) -> str | None:
    """The branch whose nightly runs the throttle reads: the one checked out (the bump PR's
    base); None (every branch) on a detached HEAD or outside a checkout."""
    from release.sources.repo import ReleaseRepo
    try:
        return ReleaseRepo(root).current_branch()
    except UserError:
        return None


def _human(console: Console, data: dict, text: str, dry_run: bool, decisions: list[str]) -> None:
    if not data["changed"]:
        console.print(text.rstrip() if data.get("notes") else "pins are current", markup=False)
        if not data.get("notes"):  # the text (with notes) already ends with these lines
            for line in decisions:
                console.print(line, markup=False)
    else:
        from rich.markup import escape  # a branch name in the title is text, not markup
        console.print(f"[bold]{escape(data['title'])}[/bold]" + (" (dry run: nothing written)" if dry_run else ""))
        console.print(text, markup=False, highlight=False)
    pr = data.get("pull_request")
    if "commit" in data and not (pr and pr["action"] == "kept"):
        console.print(f"committed {data['commit'][:12]} on {data['branch']}", markup=False)
    if pr and pr["action"] == "kept":
        if not data["changed"]:  # a changed bump's text already ends with this line
            console.print(pr["reason"], markup=False)
    elif pr and pr["action"] != "none":
        console.print(f"pull request {pr['action']}: "
                      f"{pr.get('url') or ', '.join('#%d' % n for n in pr['closed'])}", markup=False)
