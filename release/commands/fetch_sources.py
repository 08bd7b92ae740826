"""``release fetch-sources``: the pinned plugin, jax and xla checked out for a build."""

from __future__ import annotations

from typing import TYPE_CHECKING

from release.commands._common import project
from release.core import flags, output
from release.core.output import Output, github_output, step_summary

if TYPE_CHECKING:
    import argparse

    from rich.console import Console

HELP = "check out the pinned plugin, jax and xla commits into a workspace (cached, least transfer)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--workspace", type=flags.creatable_dir, metavar="DIR",
                        help="where DIR/plugin, DIR/jax and DIR/xla go (default: <root>/workspace)")


def run(args: argparse.Namespace, out: Output) -> int:
    from rich.progress import SpinnerColumn, TextColumn, TimeElapsedColumn

    from release.core.project_root import default_workspace
    from release.sources.checkout import cache_dir, fetch_sources, workspace_paths
    proj = project(args)
    workspace = (args.workspace or default_workspace(proj.root)).absolute()
    names = tuple(workspace_paths(workspace))
    with output.progress(out.progress_console(), SpinnerColumn(), TextColumn("{task.description}"),
                         TimeElapsedColumn()) as progress:
        tasks = {n: progress.add_task(f"{n}: waiting", total=1) for n in names}

        def step(name: str, what: str) -> None:
            progress.update(tasks[name], description=f"{name}: {what}",
                            completed=1 if what in ("at pin", "already at pin") else 0)

        done = fetch_sources(proj.deps, workspace, cache_dir(proj.root), step)
    data = {"workspace": str(workspace), "sources": {n: c.to_json() for n, c in done.items()}}
    github_output({"workspace": str(workspace)})
    step_summary(f"### sources in `{workspace}`\n\n" + "".join(
        f"- {name} `{c.commit[:12]}` ({'fetched' if c.fetched else 'already at pin'})\n"
        for name, c in done.items()))

    def human(console: Console) -> None:
        for name, c in done.items():
            state = "fetched" if c.fetched else "already at pin"
            console.print(f"{name:7} {c.commit[:12]}  {c.path}  ({state})", markup=False)

    out.result(data, human)
    return 0
