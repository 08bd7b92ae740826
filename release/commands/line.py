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
    parser.add_argument("--default", metavar="BRANCH", default=None,
                        help="with base: the default branch, the base when the tag's release/X.Y "
                             "does not hold it (empty: main)")


# What each action reads; anything else given is refused (one line, exit 2), never ignored.
_USES = {"list": (), "base": ("tag", "default"),
         "new": ("line", "plugin_branch", "push", "open_pr", "dry_run")}
_SPELLED = {"line": "X.Y", "plugin_branch": "--plugin-branch", "push": "--push", "open_pr": "--open-pr",
            "dry_run": "--dry-run", "tag": "--tag", "default": "--default"}


def run(args: argparse.Namespace, out: Output) -> int:
    unused = [spelled for key, spelled in _SPELLED.items()
              if key not in _USES[args.action] and getattr(args, key) not in (None, False)]
    if unused:
        raise UserError(f"line {args.action} takes no {', '.join(unused)}")
    return {"list": _list, "base": _base, "new": _new}[args.action](args, out)


def _list(args: argparse.Namespace, out: Output) -> int:
    import json

    from release.core.lines import read_lines
    from release.core.project_root import find_root
    from release.jobs.lines import current_branch
    root = args.root or find_root()
    lines = read_lines(root, current_branch(root))
    output.github_output({"lines": json.dumps(list(lines))})
    output.step_summary("## maintained lines\n\n" + "\n".join(f"- `{b}`" for b in lines) + "\n")
    out.result({"lines": list(lines)}, lambda console: console.print("\n".join(lines), markup=False))
    return 0


def _base(args: argparse.Namespace, out: Output) -> int:
    """The next-version PR's base for ``--tag``, as ``base=`` in ``$GITHUB_OUTPUT``."""
    from pathlib import Path

    from release.jobs.lines import line_base
    if not args.tag:
        raise UserError("line base needs --tag, such as: release line base --tag rocm-jax-v0.9.1.post2")
    base = line_base(args.root or Path.cwd(), args.tag.strip(), args.default or "")
    output.github_output({"base": base})
    out.result({"tag": args.tag.strip(), "base": base}, lambda console: console.print(base, markup=False))
    return 0


def _new(args: argparse.Namespace, out: Output) -> int:
    from release.commands._common import project
    from release.commands._line_view import new_line_view
    from release.core.lines import parse_xy
    from release.jobs.lines import LineNewOptions, run_line_new
    if args.line is None:
        raise UserError("line new needs the line, such as: release line new 0.10")
    options = LineNewOptions(parse_xy(args.line, "line new"), args.plugin_branch or "", push=args.push,
                             open_pr=args.open_pr, dry_run=args.dry_run)
    with out.progress_console().status("reading the line's branch") as status:
        plan, data = run_line_new(project(args), options, console=out.progress_console(),
                                  say=lambda text: status.update(text))
    output.github_output({"line": plan.xy, "branch": plan.branch, "version": plan.version,
                          **({"pr-number": str(data["pull_request"]["number"])} if data.get("pull_request") else {})})
    output.step_summary(f"## line {plan.xy}: {data['action']} {plan.branch} ({plan.version})\n")
    out.result(data, lambda console: new_line_view(console, data))
    return 0
