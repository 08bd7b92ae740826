"""``release index``: the nightly and stable pip indexes (PEP 503/691/658/700), per jax line too, and the page."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from release.commands._arguments import add_retention_options
from release.commands._common import READS, add_store_options, now_utc, open_store_from_args, transfer_progress
from release.commands._project_reads import retention_from_args
from release.core import flags
from release.core.output import Output, github_output, step_summary

if TYPE_CHECKING:
    import argparse

    from rich.console import Console

    from release.core.plain import PlainConsole

HELP = ("write SITE/nightly/ and SITE/stable/ pip indexes (HTML + JSON) linking the published wheels "
        "where the store keeps them, the same per jax line (SITE/X.Y/nightly/, SITE/X.Y/stable/), "
        "and SITE/index.html, a page of every release")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", type=flags.creatable_dir, required=True, metavar="SITE",
                        help="the site directory (new, empty, or written by this command before)")
    add_retention_options(parser, what="listed in nightly/ (older ones stay on disk, unlisted): "
                                       "what `release gc` with the same flags keeps")
    parser.add_argument("--count-commits", action="store_true",
                        help="count the commits each dep moved between releases with the git mirrors "
                             "under <root>/.cache/git (fetches what is missing; counts are kept in SITE)")
    parser.add_argument("--url", metavar="URL",
                        help="where SITE is served, for the install lines on the page")
    parser.add_argument("--project-status", type=Path, metavar="FILE",
                        help="retired projects and lines, PEP 792 markers on their index pages and on the "
                             "page (default: .github/project-status.json of the repository, when there)")
    parser.add_argument("--asset-url", metavar="URL",
                        help="local store only: where its directory is served; wheels link "
                             "URL/<release id>/assets/<file> (default: file:// paths, for this machine)")
    add_store_options(parser)


def run(args: argparse.Namespace, out: Output) -> int:
    from release.core.errors import UserError
    from release.publish.index import build_site

    if args.url is not None and not args.url.startswith(("https://", "http://", "file://")):
        raise UserError(f"--url {args.url}: expected the http(s) address SITE is served from")
    if args.asset_url is not None and not args.asset_url.startswith(("https://", "http://")):
        raise UserError(f"--asset-url {args.asset_url}: expected the http(s) address the local store is served from")
    rule = retention_from_args(args)
    counter = None
    if args.count_commits:
        from release.core.project_root import find_root
        from release.publish.site import mirror_counter
        from release.sources.checkout import cache_dir
        root = args.root
        if root is None:
            try:
                root = find_root()
            except UserError:
                root = Path.cwd()
        counter = mirror_counter(cache_dir(root), say=out.line)
    from release.publish import project_status
    given = args.project_status is not None
    retired = project_status.load(args.project_status if given else Path(args.root or ".") / project_status.STATUS_FILE,
                                  given=given)
    store = open_store_from_args(args, out, read_only=True, needs=READS)
    with transfer_progress(out) as progress:
        result = build_site(store, args.out, rule=rule, now=now_utc(), site_url=args.url,
                            asset_base=args.asset_url, count_commits=counter, say=out.line,
                            progress=progress, retired=retired)
    github_output({"index_dir": str(args.out), "changed": str(result["changed"]).lower()})
    lines = [f"- `{ch}/`: " + ", ".join(f"{p} ({len(files)} files)" for p, files in projects.items())
             for ch, projects in result["channels"].items()]
    step_summary(f"### pip index: {args.out}\n\n" + "\n".join(lines) + "\n")

    def human(console: Console | PlainConsole) -> None:
        for channel, projects in result["channels"].items():
            for project, files in projects.items():
                console.print(f"{channel}/{project}: {len(files)} wheels listed", markup=False)
        for name, line in result["lines"].items():
            state = "current" if line["current"] else f"retired ({line['status'] or 'not maintained'})"
            console.print(f"line {name} ({state}): " + ", ".join(line["channels"]), markup=False)
        if result["hidden"]:
            console.print(f"{len(result['hidden'])} older nightly wheels not listed (still published; "
                          "`release gc` with the same flags deletes their releases)", markup=False)
        if result["yanked"]:
            console.print(f"yanked (PEP 592): {', '.join(result['yanked'])}", markup=False)
        if result["without_core_metadata"]:
            console.print(f"{len(result['without_core_metadata'])} listed wheels have no PEP 658 metadata "
                          "file (older releases): resolvers download them to read their dependencies",
                          markup=False)
        verb = "written to" if result["changed"] else "unchanged:"
        console.print(f"index {verb} {args.out}", markup=False)
    out.result_view(result, human)  # lines only: rich is never loaded for them
    return 0
