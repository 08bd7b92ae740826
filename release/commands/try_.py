"""``release try``: the whole release flow in a local sandbox, in one command, nothing leaving this machine."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from release.commands._common import today_utc
from release.core import flags
from release.core.output import Output

if TYPE_CHECKING:
    import argparse

    from rich.console import Console

HELP = ("walk bump, a nightly, the pip index and page, an rc, the release and a post release in a "
        "local sandbox (generated upstream repositories, stand-in .so files, a local store, no "
        "public index), then print the page and the pip and uv commands that install the nightly")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--dir", type=flags.creatable_dir, metavar="DIR",
                        help="a new or empty directory for the sandbox (default: <root>/.cache/sandbox/<date>, "
                             "or <date>-2, -3, ... when that one is taken)")


def run(args: argparse.Namespace, out: Output) -> int:
    from release.jobs.sandbox import fresh_directory, tool_checkout, walk

    tool = tool_checkout(args.root, Path.cwd())
    day = today_utc().isoformat()
    directory = Path(args.dir) if args.dir else fresh_directory(tool / ".cache" / "sandbox", day)
    result = walk(directory, Path(tool), day, say=out.line)

    def human(console: Console) -> None:
        console.print(f"nightly {result['nightly']}, rc {result['rc']}, release {result['release']}, "
                      f"post {result['post']} published to the local store {result['store']}", markup=False)
        console.print(f"the page: {Path(result['page']).as_uri()}", markup=False)
        console.print("install tonight's nightly (into a fresh venv; add jax from the public index first):",
                      markup=False)
        for command in result["install"].values():
            console.print(f"  {command}", markup=False)
        console.print(f"the project the steps ran in: {result['project']} (deps.yaml, dist/, git log)",
                      markup=False)
    out.result(result, human)
    return 0
