"""``release promote``: re-version built wheels to rcN, the release or postN without rebuilding.

The work is ``release.jobs.promote.run_promote``; this module turns flags into its options
and prints its result."""

from __future__ import annotations

from typing import TYPE_CHECKING

from release.core import flags, output

if TYPE_CHECKING:
    import argparse

    from rich.console import Console

    from release.core.output import Output
    from release.core.plain import PlainConsole

HELP = "re-version wheels to release, rcN or postN (raw copy of the big members, new RECORD)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("wheels", nargs="+", type=flags.existing_file, metavar="WHEEL", help="wheel files to promote")
    parser.add_argument("--to", required=True, metavar="release|rcN|postN",
                        help="the version to give them, on the same X.Y.Z line")
    parser.add_argument("--out", type=flags.creatable_dir, metavar="DIR",
                        help="where the promoted wheels go (default: next to each source wheel)")


def run(args: argparse.Namespace, out: Output) -> int:
    from release.commands._progress import byte_progress
    from release.jobs.promote import PromoteOptions, run_promote
    options = PromoteOptions(tuple(args.wheels), args.to, args.out)
    with byte_progress(out, "promoting", sum(w.stat().st_size for w in args.wheels)) as bar:
        result = run_promote(options, bar, out.line)

    def human(console: Console | PlainConsole) -> None:  # rich on a terminal, else plain text
        from release.core.plain import PlainConsole, new_table
        plain = isinstance(console, PlainConsole)
        if not plain:
            from rich.markup import escape
        table = new_table(console, f"promoted to {', '.join(result.versions)}")
        for col in ("from", "wheel", "raw copies", "rewritten"):
            table.add_column(col, overflow="fold")
        for r in result.promotions:
            table.add_row(r.old_version, str(r.output) if plain else escape(str(r.output)),
                          f"{len(r.copied)} ({r.copied_bytes / 1e6:.1f} MB)", str(len(r.rewritten)))
        console.print(table)
        if result.dist_files:
            console.print(f"{args.out}: a dist of {result.versions[0]} (with {', '.join(result.dist_files)}); "
                          f"`release publish {args.out}` ships it as it is", markup=False)

    out.result_view(result.to_json(), human)
    output.step_summary(result.summary())
    output.github_output(result.outputs())
    return 0
