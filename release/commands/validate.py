"""``release validate TAG``: download a draft's assets, check, install and import them."""

from __future__ import annotations

import sys
from pathlib import Path

from release import flags
from release.commands._common import add_store_options, open_store_from_args, transfer_progress
from release.output import github_output, step_summary
from release.bazel import configured_runpath
from release.validate import validate

HELP = "validate the draft of TAG: checksums, verify, pip install into a fresh venv, import"


def add_arguments(parser) -> None:
    parser.add_argument("tag", metavar="TAG", help="release tag, e.g. rocm-jax-v0.9.1")
    parser.add_argument("--python", type=flags.executable, metavar="PATH",
                        default=Path(sys.executable),
                        help="interpreter to install the wheels for (default: this one)")
    add_store_options(parser)


def run(args, out) -> int:
    store = open_store_from_args(args, out)
    with transfer_progress(out) as progress:
        result = validate(store, args.tag, say=out.line, progress=progress, python=str(args.python),
                          runpath=tuple(configured_runpath(args.root)))
    github_output({"validated": "true" if result.ok else "false"})
    step_summary(f"**validate {args.tag}**: " + ("passed" if result.ok else
                 "FAILED\n\n" + "\n".join(f"- {p}" for p in result.problems)))

    def human(console):
        if result.ok:
            console.print(f"{args.tag}: valid ({', '.join(result.checked)}); "
                          + ("draft marked validated" if result.marked else "published, not marked"),
                          markup=False)
        else:
            console.print(f"{args.tag}: NOT valid; the draft is unchanged", markup=False)
            for problem in result.problems:
                console.print(f"  - {problem}", markup=False)
    out.result(result.to_json(), human)
    return 0 if result.ok else 1
