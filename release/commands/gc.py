"""``release gc``: delete nightly prereleases the retention rule lets go, and stale nightly drafts of this tool."""

from __future__ import annotations

from typing import TYPE_CHECKING

from release.commands._arguments import add_retention_options
from release.commands._common import READS, add_store_options, now_utc, open_store_from_args
from release.commands._project_reads import retention_from_args
from release.core.output import Output, github_output, step_summary

if TYPE_CHECKING:
    import argparse

    from rich.console import Console

HELP = ("delete nightly prereleases (and their tags) beyond the newest N, unless protected, and this "
        "tool's stale nightly drafts by the same rule; never a release or rc")
TOKEN = ("deleting releases and their assets", "contents: write")  # --dry-run only reads


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_retention_options(parser, keep_required=True, what="to keep (at least 1)")
    parser.add_argument("--dry-run", action="store_true", help="print what would be deleted")
    add_store_options(parser)


def run(args: argparse.Namespace, out: Output) -> int:
    from release.publish.gc import collect
    rule = retention_from_args(args)
    store = open_store_from_args(args, out, read_only=True,
                                 needs=READS if args.dry_run else TOKEN)
    result = collect(store, rule, dry_run=args.dry_run, now=now_utc(), say=out.line)
    github_output({"deleted": result["deleted"], "deleted_drafts": result["deleted_drafts"]})
    step_summary(f"### gc: {'would delete' if args.dry_run else 'deleted'} {len(result['deleted'])} "
                 f"nightlies and {len(result['deleted_drafts'])} stale drafts, kept {len(result['kept'])}\n\n"
                 + "".join(f"- `{tag}`\n" for tag in result["deleted"])
                 + "".join(f"- draft `{tag}`\n" for tag in result["deleted_drafts"]))

    def human(console: Console) -> None:
        verb = "would delete" if args.dry_run else "deleted"
        protected = f" ({len(result['protected'])} protected)" if result["protected"] else ""
        console.print(f"{verb} {len(result['deleted'])} nightlies, kept {len(result['kept'])}{protected}; "
                      f"{verb} {len(result['deleted_drafts'])} stale drafts, kept {len(result['kept_drafts'])}",
                      markup=False)
    out.result(result, human)
    return 0
