"""Argument parsing and dispatch; every subcommand lives in ``release.commands.<name>``.

A command module defines ``HELP`` (one line), ``add_arguments(parser)`` and
``run(args, out) -> int``. User errors end here as one line and exit 2.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from pathlib import Path

from release import __version__
from release.errors import UserError
from release.output import Output
from release.redact import redact

# Order is the order ``--help`` lists them in.
COMMANDS = (
    "status",
    "version",
    "nightly",
    "cut",
    "bump",
    "fetch-sources",
    "build",
    "verify",
    "promote",
    "publish",
    "validate",
    "gc",
    "index",
)


class _Parser(argparse.ArgumentParser):
    """argparse, but a bad flag is one line (what, where, expected) and exit 2."""

    def error(self, message: str):  # noqa: D401 - argparse API
        sys.stderr.write(f"{self.prog}: error: {message} (see {self.prog} --help)\n")
        raise SystemExit(2)


def common_options() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--root", type=Path, metavar="DIR",
                        help="directory holding deps.yaml and version_info.json "
                             "(default: the nearest one at or above the current directory)")
    common.add_argument("--json", action="store_true", help="print machine-readable JSON")
    return common


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser; ``only`` imports just that command's module (startup cost is per module)."""
    parser = _Parser(prog="release", description="Release aggregator for the JAX ROCm plugin: "
                     "pins, bumps, wheels, verification and publishing.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    common = common_options()
    for name in (only,) if only in COMMANDS else COMMANDS:
        module = importlib.import_module(f"release.commands.{name.replace('-', '_')}")
        child = sub.add_parser(name, help=module.HELP, description=module.HELP, parents=[common])
        module.add_arguments(child)
        child.set_defaults(_run=module.run)
    return parser


def main(argv: list[str] | None = None) -> int:
    words = [a for a in (sys.argv[1:] if argv is None else argv) if not a.startswith("-")]
    parser = build_parser(words[0] if words else None)
    args = parser.parse_args(argv)
    out = Output(as_json=args.json)
    try:
        return int(args._run(args, out) or 0)
    except UserError as exc:
        sys.stderr.write(f"release {args.command}: error: {redact(str(exc))}\n")
        return exc.exit_code
    except KeyboardInterrupt:
        sys.stderr.write("interrupted\n")
        return 130
