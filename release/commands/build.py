"""``release build``: the wheels of one version, from Bazel or from prebuilt artifacts."""

from __future__ import annotations

from typing import TYPE_CHECKING

from release.commands._arguments import add_build_input_options
from release.commands._common import project, today_utc
from release.commands._version_arguments import add_kind_options, add_python_option
from release.core import output

if TYPE_CHECKING:
    import argparse
    from collections.abc import Iterable

    from release.core.output import Output

HELP = "build the pjrt wheel and one plugin wheel per Python into dist/<version>/ (resumable)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from release.build.wheel_specs import KINDS
    add_kind_options(parser, force=True)
    add_python_option(parser)
    parser.add_argument("--wheel", action="append", choices=KINDS, dest="wheels",
                        help="build only this wheel, repeatable (default: pjrt and plugin)")
    add_build_input_options(parser)
    parser.add_argument("--bazel", default="bazel", metavar="PATH",
                        help="the Bazel (or bazelisk) executable (default: bazel on PATH)")


def run(args: argparse.Namespace, out: Output) -> int:
    from release.build.dist import build_release
    from release.build.plan import make_plan
    from release.build.wheel_specs import KINDS
    from release.sources.git import head_of
    proj = project(args)
    today = today_utc()
    plan = make_plan(proj, args.kind, date=args.date or today, number=args.number,
                     build_number=args.build_number, pythons=args.pythons,
                     release_commit=head_of(proj.root, enclosing=True), today=today, force=args.force)
    artifacts = args.artifacts
    workspace = None if artifacts is not None else (args.workspace or proj.root / "workspace")
    result = build_release(plan, args.dist or proj.root / "dist", root=proj.root,
                           workspace=workspace, artifacts=artifacts,
                           kinds=tuple(dict.fromkeys(args.wheels or KINDS)),
                           console=out.progress_console() if out.draws_progress() else None,
                           bazel_exe=args.bazel)
    data = result.to_json()
    output.github_output({"version": result.version, "dist": str(result.directory),
                          "wheels": list(result.wheels)})
    output.step_summary(f"### wheels {result.version}\n\n"
                        + "".join(f"- `{name}`\n" for name in result.wheels))
    out.result_text(data, lambda: summary(result.directory, result.steps, result.wheels))
    return 0


def summary(directory: object, steps: list[tuple[str, str]], wheels: Iterable[str]) -> str:
    """What a person reads: the directory, each step and whether it ran, the wheels there."""
    width = max([len("step"), *(len(step) for step, _ in steps)])
    rows = [f"{'step':<{width}}  status", *(f"{step:<{width}}  {status}" for step, status in steps)]
    return "\n".join([f"dist {directory}", *rows, *(f"  {name}" for name in wheels)])
