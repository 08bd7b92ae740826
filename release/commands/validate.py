"""``release validate TAG``: download a draft's assets, check, resolve, install and import them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from release.commands._common import add_store_options, open_store_from_args, project, transfer_progress
from release.core import flags
from release.core.output import Output, github_output, step_summary

if TYPE_CHECKING:
    import argparse

    from rich.console import Console

HELP = ("validate the draft of TAG: checksums, verify, then the README's pip install line against "
        "the draft's index and the public one, for every (ROCm major, Python) cell it carries")
TOKEN = ("recording validate's verdict in a draft's notes", "contents: write")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from release.core.public_index import add_public_index_option, add_rocm_index_option
    parser.add_argument("tag", metavar="TAG", help="release tag, e.g. rocm-jax-v0.9.1")
    parser.add_argument("--python", metavar="PATH", action="append", dest="pythons", default=[],
                        type=flags.executable,
                        help="an interpreter to install with, repeatable (others are found per "
                             "Python the draft carries: this one, python3.X on PATH, pyenv installs, uv)")
    add_public_index_option(parser, "the draft's index is merged with, as users resolve")
    add_rocm_index_option(parser)
    parser.add_argument("--require-all-pythons", action="store_true",
                        help="fail when a Python the draft carries has no interpreter here "
                             "(default: a warning naming it, unless "
                             "$RELEASE_REQUIRE_ALL_PYTHONS is 1)")
    add_store_options(parser)


def run(args: argparse.Namespace, out: Output) -> int:
    from release.build.bazel import configured_runpath
    from release.check.resolver import public_index_from_args
    from release.check.validate import line_of_project, validate
    from release.core import naming
    from release.core.errors import UserError
    from release.core.public_index import rocm_index_from_args
    version = naming.version_of_tag(args.tag, flag="tag")
    try:  # the checkout's line says which cells a draft of it must hold; none here: the draft's own
        majors, pythons = line_of_project(project(args), version)
    except UserError:
        majors, pythons = None, None
    store = open_store_from_args(args, out, needs=TOKEN)
    with transfer_progress(out) as progress:
        result = validate(store, args.tag, say=out.line, progress=progress,
                          pythons=[str(p) for p in args.pythons],
                          runpath=tuple(configured_runpath(args.root)),
                          public_index=public_index_from_args(args),
                          require_all_pythons=args.require_all_pythons or None,
                          line_majors=majors, line_pythons=pythons,
                          rocm_index=rocm_index_from_args(args))
    github_output({"validated": "true" if result.ok else "false",
                   "untested_pythons": " ".join(result.untested),
                   "untested_cells": " ".join(f"rocm{m}-py{py}" for m, py in result.untested_cells)})
    step_summary(f"**validate {args.tag}**: " + ("passed" if result.ok else
                 "FAILED\n\n" + "\n".join(f"- {p}" for p in result.problems))
                 + "".join(f"\n\n> warning: {w}" for w in result.warnings))

    from release.core import cells

    def human(console: Console) -> None:
        if result.ok:
            tested = "; ".join(cells.label(c) for c, info in result.cells.items() if info.get("tested"))
            console.print(f"{args.tag}: valid ({', '.join(result.checked)}"
                          + (f"; {tested}" if tested else "") + "); "
                          + ("draft marked validated" if result.marked else "published, not marked"),
                          markup=False)
        else:
            console.print(f"{args.tag}: NOT valid; the draft is unchanged", markup=False)
            for problem in result.problems:
                console.print(f"  - {problem}", markup=False)
        for warning in result.warnings:
            console.print(f"  warning: {warning}", markup=False)
    out.result(result.to_json(), human)
    return 0 if result.ok else 1
