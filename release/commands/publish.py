"""``release publish``: put dist/<version> into a draft release, or publish a validated draft."""

from __future__ import annotations

from typing import TYPE_CHECKING

from release.commands._common import PUBLISHES, add_store_options, open_store_from_args, transfer_progress
from release.commands._project_reads import line_majors
from release.core import flags
from release.core.errors import UserError
from release.core.output import Output, github_output, step_summary

if TYPE_CHECKING:
    import argparse

    from rich.console import Console

HELP = "upload dist/<version> into its draft release (resumable), or --undraft TAG to publish it"
TOKEN = PUBLISHES


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("dist", nargs="?", type=flags.existing_dir, metavar="dist/<version>",
                        help="directory `release build` wrote")
    parser.add_argument("--partial", action="store_true",
                        help="one build cell's share: add its wheels and revisions.json to the draft, "
                             "leave every other asset (and the notes) alone")
    parser.add_argument("--undraft", metavar="TAG",
                        help="publish the draft of TAG (it must have passed `release validate`)")
    add_store_options(parser)


def run(args: argparse.Namespace, out: Output) -> int:
    from release.publish.drafts import publish_draft, publish_partial, read_dist, record_upload, undraft
    if (args.dist is None) == (args.undraft is None):
        raise UserError("give either dist/<version> or --undraft TAG (exactly one)")
    if args.partial and args.undraft:
        raise UserError("--partial uploads a dist directory; it does not go with --undraft")
    dist = read_dist(args.dist, partial=args.partial) if args.dist is not None else None
    if dist is not None:  # where the outcome is recorded must take it before the store is touched
        from release.core.manifest import Manifest
        Manifest.load(dist.directory).check_writable("publish")
    store = open_store_from_args(args, out, needs=TOKEN)
    if args.undraft or dist is None:
        result = undraft(store, args.undraft, say=out.line, majors=line_majors(args))
    else:
        step = publish_partial if args.partial else publish_draft
        with transfer_progress(out) as progress:
            result = step(store, dist, say=out.line, progress=progress)
        record_upload(dist, store, result)
    changed = result.get("changed", True)
    github_output({"tag": result["tag"], "release_id": str(result["release_id"]),
                   "release_url": result.get("url") or "", "status": result["status"],
                   "changed": str(changed).lower()})
    step_summary(f"**{result['tag']}**: {result['status']} in {store.kind} store "
                 f"{store.where} ({result.get('url') or ''})"
                 + ("" if changed else "; nothing changed (a re-run)"))

    def human(console: Console) -> None:
        console.print(f"{result['tag']}: {result['status']} (release {result['release_id']}, "
                      f"{store.kind} {store.where})"
                      + ("" if changed else "; nothing changed, it already held exactly this"),
                      markup=False)
        if result.get("url"):
            console.print(f"  {result['url']}", markup=False)
        for action in result.get("actions", []):
            console.print(f"  {action['action']} {action['asset']}", markup=False)
    out.result(result, human)
    return 0

