"""``release smoke TAG|DIR``: install the draft's wheels with jax and jaxlib of their line and prove the
plugin registers (ROCm devices listed, a jitted computation matching NumPy): a ROCm machine's gate
between validate and publish, its verdict put in the draft's notes. ``--record FILE TAG`` puts one made
on the ROCm runner (``--json``) there; ``--no-gpu``: the gate without an AMD GPU (records nothing)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from release.commands._common import READS, add_store_options, open_store_from_args
from release.core import flags
from release.core.output import Output, github_output, step_summary

if TYPE_CHECKING:   # the work is imported in run: `release --help` loads none of it
    import argparse

    from rich.console import Console

    from release.check import smoke

HELP = ("on a ROCm machine: install the draft's wheels (TAG, or a dist DIR) with jax and jaxlib of "
        "their line, each (ROCm major, Python) cell in its own venv, then jax.devices() must list ROCm "
        "devices and a jitted computation match NumPy")
TOKEN = ("recording the smoke verdict in a draft's notes", "contents: write")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from release.core.public_index import add_public_index_option, add_rocm_index_option
    parser.add_argument("target", metavar="TAG|DIR",
                        help="a release tag (its draft's wheels; the verdict goes into its notes), "
                             "or a directory of wheels")
    parser.add_argument("--python", metavar="PATH", type=flags.executable, default=None,
                        help="the interpreter to install with, for its Python's cells only (default: "
                             "every Python the wheels carry with an interpreter here: this one, "
                             "python3.X on PATH, pyenv, uv)")
    # A plain path: the verdict file is made by the job before (checked when read, exit 2).
    either = parser.add_mutually_exclusive_group()  # a recorded verdict is the ROCm gate's
    either.add_argument("--record", metavar="FILE", type=Path, default=None,
                        help="run nothing: put the verdict FILE (`release smoke DIR --json` on the "
                             "ROCm runner) into the notes of TAG's draft; exit 1 if it failed")
    either.add_argument("--no-gpu", action="store_true", help="without an AMD GPU: jax must import, list the "
                        "CPU and jit, the plugin say at most one warning (nothing goes into the notes)")
    add_public_index_option(parser, "jax and jaxlib come from (the wheels' own index is merged in)")
    add_rocm_index_option(parser, with_rocm_flag=True)
    add_store_options(parser)


def _verdict(args: argparse.Namespace, out: Output) -> tuple[smoke.Smoke | smoke.Verdict, str]:
    import shutil
    import tempfile

    from release.check import smoke
    from release.check.resolver import public_index_from_args
    from release.core import naming
    from release.core.errors import UserError
    from release.core.public_index import rocm_index_from_args
    target = Path(args.target)
    if args.record is not None:
        version = naming.version_of_tag(args.target, flag="TAG")
        result = smoke.read_verdict(args.record)
        store = open_store_from_args(args, out, needs=TOKEN)
        if not smoke.record(store, args.target, result):
            raise UserError(f"{store.where}: no draft of {args.target} to record the verdict in")
        return result, version
    if target.is_dir():
        wheels = sorted(target.glob("*.whl"))
        version = next((naming.Identity.of(w).version for w in wheels), None) or "?"
        work = Path(tempfile.mkdtemp(prefix="release-smoke-"))
        try:
            return smoke.run_cells(wheels, public_index_from_args(args), work, out.line,
                                   python=args.python and str(args.python), no_gpu=args.no_gpu,
                                   with_rocm=args.with_rocm, rocm_index=rocm_index_from_args(args)), version
        finally:
            shutil.rmtree(work, ignore_errors=True)
    version = naming.version_of_tag(args.target, flag="TAG")
    store = open_store_from_args(args, out, needs=READS if args.no_gpu else TOKEN)
    return smoke.smoke_draft(store, args.target, public_index=public_index_from_args(args),
                             python=args.python and str(args.python), say=out.line, no_gpu=args.no_gpu,
                             with_rocm=args.with_rocm, rocm_index=rocm_index_from_args(args)), version


def run(args: argparse.Namespace, out: Output) -> int:
    from release.check import smoke
    result, version = _verdict(args, out)
    github_output({"smoke-ok": "true" if result.ok else "false"})
    if not args.no_gpu:  # the section is the ROCm gate's verdict
        step_summary(result.markdown(version))

    def human(console: Console) -> None:
        gate = "no-GPU gate" if args.no_gpu else "smoke"
        console.print(f"{args.target}: {gate} {'passed' if result.ok else 'FAILED'}", markup=False)
        for cell in result.cells if isinstance(result, smoke.Verdict) else [result]:
            console.print(f"  {cell.label}: {'passed' if cell.ok else 'FAILED'}; ROCm devices: "
                          f"{', '.join(cell.rocm_devices) or 'none'}", markup=False)
            for line in [*cell.problems, *(f"warning: {w}" for w in cell.warnings)]:
                console.print(f"    - {line}", markup=False)
    out.result(result.to_json(), human)
    return 0 if result.ok else 1
