"""``release yank``: mark a published release yanked (PEP 592) instead of deleting it, or undo that."""

from __future__ import annotations

from typing import TYPE_CHECKING

from release.commands._common import add_store_options, open_store_from_args
from release.core.output import Output, github_output, step_summary

if TYPE_CHECKING:
    import argparse

    from rich.console import Console

HELP = ("mark a published release yanked (PEP 592): it stays published, pins on its exact version "
        "still install, the next `release index` marks its wheels yanked; --undo removes the mark")
TOKEN = ("editing releases (the yank mark in a release's notes)", "contents: write")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("tag", metavar="TAG", help="the release's tag or version (rocm-jax-v0.9.1.dev20261122)")
    parser.add_argument("--reason", default="", metavar="TEXT",
                        help="one line saying why, shown by pip and uv when someone installs it by pin")
    parser.add_argument("--undo", action="store_true", help="remove the yank")
    add_store_options(parser)


def run(args: argparse.Namespace, out: Output) -> int:
    from release.core.errors import UserError
    from release.publish.yank import yank

    if args.undo and args.reason:
        raise UserError("--undo takes no --reason")
    store = open_store_from_args(args, out, read_only=True, needs=TOKEN)
    result = yank(store, args.tag, args.reason, undo=args.undo)
    github_output({"tag": result["tag"], "changed": str(result["changed"]).lower()})
    verb = "yanked" if result["yanked"] else "no longer yanked"
    step_summary(f"### {result['tag']} {verb}\n\n{result['reason'] or ''}\n")

    def human(console: Console) -> None:
        what = f"{result['tag']} {verb}" + (f": {result['reason']}" if result["reason"] else "")
        if not result["changed"]:
            what += " (already so; nothing changed)"
        console.print(what, markup=False)
        console.print("run `release index` to mark it in the pip indexes", markup=False)
    out.result(result, human)
    return 0
