"""``release index``: a static pip index (PEP 503 + PEP 658) of the published wheels."""

from __future__ import annotations

from release import flags
from release.commands._common import add_store_options, open_store_from_args, transfer_progress
from release.index import build_index
from release.output import github_output

HELP = "write a static PEP 503/658 pip index of the published wheels into --out DIR"


def add_arguments(parser) -> None:
    parser.add_argument("--out", type=flags.creatable_dir, required=True, metavar="DIR",
                        help="directory to write (serve it; pass its URL to --extra-index-url)")
    add_store_options(parser)


def run(args, out) -> int:
    store = open_store_from_args(args, out)
    with transfer_progress(out) as progress:
        result = build_index(store, args.out, say=out.line, progress=progress)
    github_output({"index_dir": str(args.out)})

    def human(console):
        for project, files in result["projects"].items():
            console.print(f"{project}: {len(files)} wheels", markup=False)
        console.print(f"index written to {args.out}", markup=False)
    out.result(result, human)
    return 0
