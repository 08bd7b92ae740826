"""``release gc``: delete nightly prereleases beyond retention."""

from __future__ import annotations

import datetime as _dt

from release import flags
from release.commands._common import add_store_options, open_store_from_args
from release.gc import collect
from release.output import github_output, step_summary

HELP = "delete nightly prereleases (and their tags) beyond the newest N; never a release or rc"


def add_arguments(parser) -> None:
    parser.add_argument("--keep", type=flags.positive_int, required=True, metavar="N",
                        help="how many of the newest nightlies to keep (at least 1)")
    parser.add_argument("--older-than", type=flags.days, metavar="DAYS",
                        help="only delete nightlies published more than DAYS days ago")
    parser.add_argument("--dry-run", action="store_true", help="print what would be deleted")
    add_store_options(parser)


def run(args, out) -> int:
    store = open_store_from_args(args, out, read_only=True)
    result = collect(store, args.keep, args.older_than, dry_run=args.dry_run,
                     now=_dt.datetime.now(_dt.timezone.utc), say=out.line)
    github_output({"deleted": result["deleted"]})
    step_summary(f"### gc: {'would delete' if args.dry_run else 'deleted'} {len(result['deleted'])} "
                 f"nightlies, kept {len(result['kept'])}\n\n"
                 + "".join(f"- `{tag}`\n" for tag in result["deleted"]))

    def human(console):
        verb = "would delete" if args.dry_run else "deleted"
        console.print(f"{verb} {len(result['deleted'])} nightlies, kept {len(result['kept'])}",
                      markup=False)
    out.result(result, human)
    return 0
