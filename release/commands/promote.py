"""``release promote``: re-version built wheels to rcN, the release or postN without rebuilding."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.markup import escape
from rich.table import Table

from release.build.promote import promote_wheel, target_version
from release.commands.verify import byte_progress
from release.core import flags, output
from release.core.naming import Identity

if TYPE_CHECKING:
    import argparse

    from rich.console import Console

    from release.core.output import Output

HELP = "re-version wheels to release, rcN or postN (raw copy of the big members, new RECORD)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("wheels", nargs="+", type=flags.existing_file, metavar="WHEEL", help="wheel files to promote")
    parser.add_argument("--to", required=True, metavar="release|rcN|postN",
                        help="the version to give them, on the same X.Y.Z line")
    parser.add_argument("--out", type=flags.creatable_dir, metavar="DIR",
                        help="where the promoted wheels go (default: next to each source wheel)")


def run(args: argparse.Namespace, out: Output) -> int:
    for wheel in args.wheels:  # refuse a bad --to before writing anything
        version = Identity.of(wheel).version
        if version:
            target_version(version, args.to)
    results = []
    with byte_progress(out, "promoting", sum(w.stat().st_size for w in args.wheels)) as bar:
        for wheel in args.wheels:
            bar.describe(f"promoting {wheel.name}")
            results.append(promote_wheel(wheel, args.to, args.out, progress=bar.advance))
    versions = sorted({r.new_version for r in results})
    data = {"to": versions[0] if len(versions) == 1 else versions,
            "wheels": [r.to_json() for r in results]}

    def human(console: Console) -> None:
        table = Table(title=f"promoted to {', '.join(versions)}", title_justify="left")
        for col in ("from", "wheel", "raw copies", "rewritten"):
            table.add_column(col, overflow="fold")
        for r in results:
            table.add_row(r.old_version, escape(str(r.output)),
                          f"{len(r.copied)} ({r.copied_bytes / 1e6:.1f} MB)", str(len(r.rewritten)))
        console.print(table)

    out.result(data, human)
    output.step_summary(f"### promoted to {', '.join(versions)}\n\n"
                        + "".join(f"- `{r.output.name}`\n" for r in results))
    output.github_output({"promoted": "\n".join(str(r.output) for r in results),
                          "promoted-version": ",".join(versions)})
    return 0
