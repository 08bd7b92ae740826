"""``release line``: the maintained lines (docs/lines.md). ``list`` prints the branches
``.github/lines.json`` names (the scheduled workflows' matrix); ``new X.Y`` starts a line as one
pull request a person reviews; ``base --tag TAG`` names the branch a pushed tag's next-version PR
goes to (release.yml's finish job)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from release.core import output
from release.core.errors import UserError

if TYPE_CHECKING:
    import argparse
    from pathlib import Path

    from rich.console import Console

    from release.core.output import Output

HELP = "the maintained lines: list them (the workflows' matrix), or start one as a reviewed PR"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("action", choices=("list", "new", "base"),
                        help="list the lines, start a new one, or name a tag's next-version PR base")
    parser.add_argument("line", nargs="?", metavar="X.Y", help="with new: the line, such as 0.10")
    parser.add_argument("--plugin-branch", metavar="BRANCH",
                        help="with new: the plugin's working branch of the line (default rocm-jaxlib-vX.Y.x)")
    parser.add_argument("--push", action="store_true",
                        help="with new: push the line's branch (only when absent) and the PR's branch")
    parser.add_argument("--open-pr", action="store_true",
                        help="with new: open or keep the one PR adding the line to .github/lines.json "
                             "(implies --push; needs GITHUB_REPOSITORY and GITHUB_TOKEN)")
    parser.add_argument("--dry-run", action="store_true", help="with new: show the line's files; write nothing")
    parser.add_argument("--tag", metavar="TAG", help="with base: the pushed rc, release or post tag")
    parser.add_argument("--default", metavar="BRANCH", default="",
                        help="with base: the default branch, the base when the tag's release/X.Y "
                             "does not hold it (empty: main)")


def run(args: argparse.Namespace, out: Output) -> int:
    if args.action == "list":
        return _list(args, out)
    if args.action == "base":
        return _base(args, out)
    return _new(args, out)


def current_branch(root: Path) -> str:
    """The line this checkout is: ``$GITHUB_REF_NAME`` on a branch's run, else the branch checked
    out (``main`` when detached)."""
    import os
    import subprocess
    name = os.environ.get("GITHUB_REF_NAME", "").strip()
    if name and not os.environ.get("GITHUB_HEAD_REF"):
        return name
    got = subprocess.run(["git", "rev-parse", "--abbrev-ref", "HEAD"], cwd=root, capture_output=True, text=True)
    branch = got.stdout.strip()
    return branch if got.returncode == 0 and branch and branch != "HEAD" else "main"


def _list(args: argparse.Namespace, out: Output) -> int:
    import json

    from release.core.config import find_root
    from release.core.lines import read_lines
    if args.line or args.plugin_branch or args.push or args.open_pr or args.dry_run:
        raise UserError("line list takes no X.Y, --plugin-branch, --push, --open-pr or --dry-run")
    root = args.root or find_root()
    lines = read_lines(root, current_branch(root))
    output.github_output({"lines": json.dumps(list(lines))})
    output.step_summary("## maintained lines\n\n" + "\n".join(f"- `{b}`" for b in lines) + "\n")
    out.result({"lines": list(lines)}, lambda console: console.print("\n".join(lines), markup=False))
    return 0


def _base(args: argparse.Namespace, out: Output) -> int:
    """The next-version PR's base for ``--tag``, as ``base=`` in ``$GITHUB_OUTPUT``."""
    from pathlib import Path

    from release.core.config import is_branch_name
    from release.jobs.lines import next_version_base
    from release.sources.repo import ReleaseRepo
    if not args.tag:
        raise UserError("line base needs --tag, such as: release line base --tag rocm-jax-v0.9.1.post2")
    default = args.default.strip() or "main"
    if not is_branch_name(default):
        raise UserError(f"line base --default {args.default!r}: expected a branch name, such as main")
    base = next_version_base(ReleaseRepo(args.root or Path.cwd()), args.tag.strip(), default)
    output.github_output({"base": base})
    out.result({"tag": args.tag.strip(), "base": base}, lambda console: console.print(base, markup=False))
    return 0


def _new(args: argparse.Namespace, out: Output) -> int:
    from release.commands._common import project
    from release.core.config import parse_version_info
    from release.core.lines import parse_xy
    from release.jobs.lines import WORKING_BRANCH, deliver_new_line, plan_new_line
    from release.sources.checkout import cache_dir
    from release.sources.repo import ReleaseRepo, committed_deps
    if args.line is None:
        raise UserError("line new needs the line, such as: release line new 0.10")
    xy = parse_xy(args.line, "line new")
    if args.dry_run and (args.push or args.open_pr):
        raise UserError("--dry-run writes nothing; it cannot be combined with --push or --open-pr")
    push = args.push or args.open_pr
    proj = project(args)
    repo = ReleaseRepo(proj.root)
    deps = committed_deps(repo, proj.deps)  # the files as committed: what the line's branch starts from
    deps_text = repo.committed(proj.deps.path) or ""
    info_text = repo.committed(proj.version_info.path)
    if info_text is None:
        raise UserError(f"{proj.version_info.path}: not committed at HEAD; line new starts from the committed files")
    info = parse_version_info(proj.version_info.path, info_text)
    base = repo.current_branch()
    pull = None
    if args.open_pr:  # a missing token or repository before anything is fetched or pushed
        from release.sources.github import PULL_REQUEST, GitHubClient
        from release.sources.pull_requests import repository_from_env
        owner, name = repository_from_env()
        pull = (GitHubClient.from_env(console=out.progress_console(), needs=PULL_REQUEST), owner, name)

    def published(line: str) -> tuple[str, ...]:
        from release.check.resolver import index_versions, public_index_default
        return tuple(v for v in index_versions(info.rocm_major, public_index_default()) if v.startswith(line))
    import dataclasses
    with out.progress_console().status("reading the line's branch") as status:
        plan = plan_new_line(dataclasses.replace(proj, deps=deps, version_info=info), deps_text, info_text, xy,
                             args.plugin_branch or WORKING_BRANCH.format(xy=xy), cache_dir(proj.root),
                             published, say=lambda text: status.update(text))
    data = plan.to_json() | {"dry_run": bool(args.dry_run)}
    if args.dry_run:
        data |= {"action": "planned"}
    else:
        data |= deliver_new_line(repo, plan, base=base, push=push, pull=pull)
    output.github_output({"line": xy, "branch": plan.branch, "version": plan.version,
                          **({"pr-number": str(data["pull_request"]["number"])} if data.get("pull_request") else {})})
    output.step_summary(f"## line {xy}: {data['action']} {plan.branch} ({plan.version})\n")
    out.result(data, lambda console: _human(console, data))
    return 0


def _human(console: Console, data: dict) -> None:
    said = {"planned": "would start", "exists": "already maintained:", "committed": "committed (not pushed)",
            "pushed": "pushed", "opened": "opened the PR for", "updated": "updated the PR for",
            "kept": "kept the PR (a person pushed to it) for"}[data["action"]]
    console.print(f"line {data['line']}: {said} {data['branch']} ({data['version']}, jax {data['jax_line']}, "
                  f"the plugin on {data['plugin_branch']})", markup=False)
    for name, pin in data["pins"].items():
        console.print(f"  {name}: {pin['branch']} {pin['commit'][:12]} {pin['url']}", markup=False)
    if data.get("reason"):
        console.print(data["reason"], markup=False)
    if data.get("pull_request"):
        console.print(f"pull request #{data['pull_request']['number']}: {data['pull_request'].get('url') or ''}",
                      markup=False)
