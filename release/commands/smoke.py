"""``release smoke TAG|DIR``: install the draft's wheels with jax and jaxlib of their line and
prove the plugin registers: ROCm devices listed, a jitted computation matching NumPy (a ROCm
machine's gate between validate and publish); the verdict goes into the draft's notes."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from release.check import interpreters, smoke
from release.check.resolver import add_public_index_option, public_index_from_args
from release.check.validate import carried_pythons, find_target
from release.commands._common import add_store_options, open_store_from_args
from release.core import flags, naming
from release.core.errors import UserError
from release.core.output import Output, github_output, step_summary
from release.core.safe_names import file_name_problem
from release.publish.drafts import with_smoke

if TYPE_CHECKING:
    import argparse

    from rich.console import Console

HELP = ("on a ROCm machine: install the draft's wheels (TAG, or a dist DIR) with jax and jaxlib of "
        "their line, then jax.devices() must list ROCm devices and a jitted computation match NumPy")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("target", metavar="TAG|DIR",
                        help="a release tag (its draft's wheels; the verdict goes into its notes), "
                             "or a directory of wheels")
    parser.add_argument("--python", metavar="PATH", type=flags.executable, default=None,
                        help="the interpreter to install with (default: one of a Python the "
                             "wheels carry: this one, python3.X on PATH, pyenv, uv)")
    add_public_index_option(parser, "jax and jaxlib come from (the wheels' own index is merged in)")
    add_store_options(parser)


def _interpreter(wheels: list[Path], given: str | None) -> interpreters.Interpreter:
    carried = list(carried_pythons(wheels))
    if given is not None:
        [interp] = interpreters.given([given])
        if interp.version not in carried:
            raise UserError(f"--python {given} is Python {interp.version}; the wheels carry "
                            f"{', '.join(carried) or 'no plugin wheel'}")
        return interp
    for py in carried:
        found = interpreters.find(py)
        if found is not None:
            return found
    raise UserError(f"no interpreter here for any Python the wheels carry "
                    f"({', '.join(carried) or 'no plugin wheel'}); pass --python PATH")


def run(args: argparse.Namespace, out: Output) -> int:
    target = Path(args.target)
    work = Path(tempfile.mkdtemp(prefix="release-smoke-"))
    try:
        store = release = None
        if target.is_dir():
            wheels = sorted(target.glob("*.whl"))
            version = next((naming.Identity.of(w).version for w in wheels), None) or "?"
        else:
            version = naming.version_of_tag(args.target, flag="TAG")
            store = open_store_from_args(args, out)
            release, _ = find_target(store, args.target)
            wheels = [store.download_asset(release, a, work / a.name) for a in store.list_assets(release)
                      if a.name.endswith(".whl") and file_name_problem(a.name) is None]
        result = smoke.run_smoke(wheels, _interpreter(wheels, args.python and str(args.python)),
                                 public_index_from_args(args), work, out.line)
        if store is not None and release is not None and release.draft:
            current = next(r for r in store.list_releases() if r.id == release.id)
            store.update_release(current, body=with_smoke(current.body, result.markdown(version)))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    github_output({"smoke-ok": "true" if result.ok else "false"})
    step_summary(result.markdown(version))

    def human(console: Console) -> None:
        console.print(f"{args.target}: smoke {'passed' if result.ok else 'FAILED'} on Python "
                      f"{result.python}; ROCm devices: {', '.join(result.rocm_devices) or 'none'}",
                      markup=False)
        for problem in result.problems:
            console.print(f"  - {problem}", markup=False)
    out.result(result.to_json(), human)
    return 0 if result.ok else 1
