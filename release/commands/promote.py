"""``release promote``: re-version built wheels to rcN, the release or postN without rebuilding."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from release.core import flags, output
from release.core.errors import UserError

if TYPE_CHECKING:
    import argparse

    from rich.console import Console

    from release.build.promote import Promotion
    from release.core.output import Output

HELP = "re-version wheels to release, rcN or postN (raw copy of the big members, new RECORD)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("wheels", nargs="+", type=flags.existing_file, metavar="WHEEL", help="wheel files to promote")
    parser.add_argument("--to", required=True, metavar="release|rcN|postN",
                        help="the version to give them, on the same X.Y.Z line")
    parser.add_argument("--out", type=flags.creatable_dir, metavar="DIR",
                        help="where the promoted wheels go (default: next to each source wheel)")


def run(args: argparse.Namespace, out: Output) -> int:
    from release.build.promote import promote_wheel, target_version
    from release.commands.verify import byte_progress
    from release.core.naming import Identity
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
    dist_files = _complete_dist(args.out, results, out)
    data = {"to": versions[0] if len(versions) == 1 else versions,
            "wheels": [r.to_json() for r in results], "dist_files": dist_files}

    def human(console: Console) -> None:
        from rich.markup import escape
        from rich.table import Table
        table = Table(title=f"promoted to {', '.join(versions)}", title_justify="left")
        for col in ("from", "wheel", "raw copies", "rewritten"):
            table.add_column(col, overflow="fold")
        for r in results:
            table.add_row(r.old_version, escape(str(r.output)),
                          f"{len(r.copied)} ({r.copied_bytes / 1e6:.1f} MB)", str(len(r.rewritten)))
        console.print(table)
        if dist_files:
            console.print(f"{args.out}: a dist of {versions[0]} (with {', '.join(dist_files)}); "
                          f"`release publish {args.out}` ships it as it is", markup=False)

    out.result(data, human)
    output.step_summary(f"### promoted to {', '.join(versions)}\n\n"
                        + "".join(f"- `{r.output.name}`\n" for r in results))
    output.github_output({"promoted": "\n".join(str(r.output) for r in results),
                          "promoted-version": ",".join(versions)})
    return 0


def _complete_dist(out_dir: Path | None, results: list[Promotion], out: Output) -> list[str]:
    """With ``--out``, wheels of one dist (its ``revisions.json`` beside them) promoted to one
    version make ``--out`` a dist ``release publish`` takes; returns the files written."""
    from release.build.promote import complete_dist
    from release.core.naming import REVISIONS_ASSET, release_tag
    from release.core.revisions import RevisionMap

    if out_dir is None:
        return []
    sources = {r.source.parent.resolve() for r in results}
    olds = {r.old_version for r in results}
    news = {r.new_version for r in results}
    if len(sources) != 1 or len(olds) != 1 or len(news) != 1 or \
            sources == {Path(out_dir).resolve()}:
        out.line(f"note: {out_dir} holds the promoted wheels only (they do not come from one "
                 "dist directory of one version)")
        return []
    rev_path = next(iter(sources)) / REVISIONS_ASSET
    if not rev_path.is_file():
        out.line(f"note: {out_dir} holds the promoted wheels only ({rev_path}: missing, so "
                 "no revisions.json, provenance or SHA256SUMS for `release publish`)")
        return []
    try:
        before = RevisionMap.loads(rev_path.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise UserError(f"{rev_path}: not a revision map ({exc})") from None
    old = next(iter(olds))
    if before.version != old:
        raise UserError(f"{rev_path}: is for {before.version}, the wheels are {old}")
    return complete_dist(Path(out_dir), sorted(r.output.name for r in results), before,
                         next(iter(news)), release_tag(old))
