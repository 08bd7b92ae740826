"""Argument parsing and dispatch; every subcommand lives in ``release.commands.<name>``.

A command module defines ``HELP`` (one line), ``add_arguments(parser)`` and
``run(args, out) -> int``. Errors end here as one line on stderr (and, with
``--json``, an ``{"schema", "error", "exit"}`` object on stdout); the exit status says who
is at fault: 2 the caller (bad flag, file, path, token), 3 a remote (GitHub or a
git server failed or answered nonsense). Any other exception is a bug and tracebacks.
"""

from __future__ import annotations

import argparse
import errno
import importlib
import json
import os
import re
import sys
from collections.abc import Iterable
from pathlib import Path
from types import TracebackType
from typing import Any, NoReturn

from release import __version__
from release.core import flags, sanitize
from release.core.errors import ReleaseError, UserError
from release.core.output import Output, schema_id
from release.core.redact import redact

# Order is the order ``--help`` lists them in.
COMMANDS = (
    "status",
    "dashboard",
    "doctor",
    "version",
    "nightly",
    "cut",
    "bump",
    "line",
    "bisect",
    "fetch-sources",
    "build",
    "verify",
    "promote",
    "publish",
    "validate",
    "pypi-upload",
    "smoke",
    "gc",
    "yank",
    "index",
    "try",
)
MODULES = {"try": "try_"}  # a command whose name is a Python keyword
WHEEL_WRITERS = ("nightly", "cut", "build", "promote", "bisect")
# Paths the environment names (GitHub Actions' files, the git cache): a person's input too.
ENV_PATHS = ("GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY", "JAX_ROCM_RELEASE_CACHE")


class FlagError(UserError, SystemExit):
    """argparse refused a flag: the message is the whole line, with the command's name.

    Also a ``SystemExit`` (code 2), as argparse's own error is, for callers of ``build_parser``.
    """

    def __init__(self, prog: str, message: str):
        UserError.__init__(self, message)
        self.prog, self.code = prog, self.exit_code


def nearest(word: str, known: Iterable[str]) -> str | None:
    """The one of ``known`` a mistyped ``word`` most likely meant (difflib), or None."""
    import difflib  # only for a mistyped word: not on every start
    close = difflib.get_close_matches(word, list(known), n=1, cutoff=0.6)
    return close[0] if close else None


_CHOICE = re.compile(r"invalid choice: '(?P<word>[^']*)' \(choose from (?P<known>.*)\)$")


class _Formatter(argparse.HelpFormatter):
    """argparse's help, but a line never breaks inside a word (at its hyphen, or a long one):
    `release fetch-sources`, a tag (rocm-jax-v0.9.1.dev20261122), a flag or a path stays whole,
    to be copied as printed."""

    def _split_lines(self, text: str, width: int) -> list[str]:
        import textwrap
        return textwrap.wrap(" ".join(text.split()), width, break_on_hyphens=False, break_long_words=False)

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        import textwrap
        return textwrap.fill(" ".join(text.split()), width, initial_indent=indent, subsequent_indent=indent,
                             break_on_hyphens=False, break_long_words=False)


class _Parser(argparse.ArgumentParser):
    """argparse, but a bad flag is one line (what, where, expected, the nearest valid one) and exit 2."""

    def __init__(self, *args: Any, **kwargs: Any):
        kwargs.setdefault("formatter_class", _Formatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:  # noqa: D401 - argparse API
        found = _CHOICE.search(message)
        if found:  # a mistyped command or choice: name the nearest
            guess = nearest(found["word"], re.findall(r"'([^']*)'", found["known"]))
            message = (message[:found.start()] + f"invalid choice: {found['word']!r}"
                       + (f"; did you mean {guess}?" if guess else "") + f" (choose from {found['known']})")
        raise FlagError(self.prog, f"{message} (see {self.prog} --help)")

    def unknown(self, extra: list[str]) -> NoReturn:
        """Arguments this (sub)command does not take: each mistyped option with its nearest."""
        options = [o for action in self._actions for o in action.option_strings if o.startswith("--")]
        said = []
        for arg in extra:
            guess = nearest(arg.split("=", 1)[0], options) if arg.startswith("-") else None
            said.append(f"{arg} (did you mean {guess}?)" if guess else arg)
        self.error(f"unrecognized arguments: {' '.join(said)}")


TOP_LEVEL = ("-h", "--help", "--version")  # the only options written before the command


def options_before_the_command(argv: list[str]) -> FlagError | None:
    """``release --json status``: a command's options written before it. argparse would take
    ``--root``'s value for the command, or offer ``--json`` as the nearest to itself; instead one
    line says where they go, with the whole command as it should be written (it runs as printed)."""
    at = next((i for i, word in enumerate(argv) if word in COMMANDS), None)
    if not at or not argv[0].startswith("-") or argv[0] == "--" or set(argv[:at]) & set(TOP_LEVEL):
        return None
    import shlex  # only for this mistake: not on every start
    command = argv[at]
    written = shlex.join(["release", command, *argv[at + 1:], *argv[:at]])
    return FlagError(f"release {command}", f"{shlex.join(argv[:at])} before the command: options go after it, "
                                           f"as in {written} (see release {command} --help)")


def common_options() -> _Parser:
    common = _Parser(add_help=False)
    common.add_argument("--root", type=flags.existing_dir, metavar="DIR",
                        help="directory holding deps.yaml and version_info.json "
                             "(default: the nearest one at or above the current directory)")
    common.add_argument("--json", action="store_true", help="print machine-readable JSON")
    return common


def build_parser(only: str | None = None, *, arguments: bool = True) -> argparse.ArgumentParser:
    """The parser; ``only`` imports just that command's module (startup cost is per module).

    ``arguments=False``: the commands' one-line help only, no flags (what ``release --help``
    lists); a command module imports what it uses when it runs, so listing them is cheap."""
    parser = _Parser(prog="release", description="Release aggregator for the JAX ROCm plugin: "
                     "pins, bumps, wheels, verification and publishing.",
                     epilog="exit status: 0 done, 1 checks failed (verify, validate), "
                            "2 bad input (fix the call), 3 a remote failed (retry later)")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    common = common_options()
    for name in (only,) if only in COMMANDS else COMMANDS:
        module = importlib.import_module(f"release.commands.{MODULES.get(name, name.replace('-', '_'))}")
        child = sub.add_parser(name, help=module.HELP, description=module.HELP, parents=[common])
        if arguments:
            module.add_arguments(child)
        child.set_defaults(_run=module.run)
    return parser


def _redacted_traceback(kind: type[BaseException], value: BaseException, tb: TracebackType | None) -> None:
    """A bug's traceback, as Python prints it, but through ``redact``: a traceback quotes
    arguments, URLs and file text, and must not carry a secret past the masking."""
    import traceback
    sys.stderr.write(redact("".join(traceback.format_exception(kind, value, tb))))


def main(argv: list[str] | None = None) -> int:
    sys.excepthook = _redacted_traceback
    argv = list(sys.argv[1:] if argv is None else argv)
    words = [a for a in argv if not a.startswith("-")]
    as_json = "--json" in argv
    prog = f"release {words[0]}" if words and words[0] in COMMANDS else "release"
    try:
        misplaced = options_before_the_command(argv)
        if misplaced is not None:
            raise misplaced
        # ``release --help`` lists the commands only: no command's flags, so no command's imports
        parser = build_parser(words[0] if words else None, arguments=bool(words))
        args, extra = parser.parse_known_args(argv)
        prog = f"release {args.command}"
        if extra:  # named against the command's own options and help, not the top level's
            _command_parser(parser, args.command).unknown(extra)
        flags.check_paths(_command_parser(parser, args.command), args)
        _check_environment(args.command)
        return int(args._run(args, Output(as_json=args.json, command=args.command)) or 0)
    except FlagError as exc:
        return _fail(exc.prog, str(exc), exc.exit_code, as_json)
    except ReleaseError as exc:
        return _fail(prog, str(exc), exc.exit_code, as_json, getattr(exc, "findings", None))
    except OSError as exc:
        shown = _user_path_error(exc, locals().get("args")) or _no_space(exc, locals().get("args"))
        if shown is None:
            raise  # not about a path a person gave: a bug
        return _fail(prog, shown, UserError.exit_code, as_json)
    except KeyboardInterrupt:
        sys.stderr.write("interrupted\n")
        return 130


def _command_parser(parser: argparse.ArgumentParser, command: str) -> _Parser:
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return sub.choices[command]


def _fail(prog: str, message: str, code: int, as_json: bool,
          findings: list[str] | None = None) -> int:
    """The one line on stderr (never cut); with ``--json`` also ``{"schema", "error", "exit"}`` on
    stdout, and ``"findings"`` (each one whole) when a check failed."""
    # one line, whatever the message held; upstream text in it (GitHub's messages) acts on nothing
    line = sanitize.line(redact(" ".join(str(message).split())))
    sys.stderr.write(f"{prog}: error: {line}\n")
    if as_json:
        data: dict = {"schema": schema_id("error"), "error": line, "exit": code}
        if findings:
            data["findings"] = [redact(f) for f in findings]
        sys.stdout.write(json.dumps(data) + "\n")
        sys.stdout.flush()
    return code


def _check_environment(command: str) -> None:
    """The environment's inputs, checked before any work (a bad one would otherwise fail after
    the work is done): ``$GITHUB_OUTPUT``/``$GITHUB_STEP_SUMMARY`` must name files we can append
    to; ``$SOURCE_DATE_EPOCH`` must be a time a wheel can hold, for the commands that write wheels."""
    if command in WHEEL_WRITERS and os.environ.get("SOURCE_DATE_EPOCH"):
        from release.core.wheelfile import source_date_epoch
        source_date_epoch()
    for name in ENV_PATHS[:2]:
        value = os.environ.get(name)
        if not value:
            continue
        try:
            flags.output_file.check(Path(value))
        except argparse.ArgumentTypeError as exc:
            raise UserError(f"${name}: {exc}") from None


_NO_SPACE = (errno.ENOSPC, errno.EFBIG, errno.EDQUOT, errno.EROFS)


def _no_space(exc: OSError, args: argparse.Namespace | None) -> str | None:
    """One line for a write the machine refused (a full disk, a quota, a file-size limit, a
    read-only file system): where it was writing (the file, else the places the command was
    told to write), never a traceback."""
    if exc.errno not in _NO_SPACE:
        return None
    reason = (exc.strerror or os.strerror(exc.errno or 0)).lower()
    if exc.filename:
        return f"{os.fsdecode(exc.filename)}: cannot be written ({reason}: a full disk or a size limit)"
    places = [str(v) for k, v in (vars(args).items() if args is not None else ())
              if k in ("out", "store_dir", "dist", "out_dir", "changelog") and isinstance(v, Path)]
    where = " or ".join(places) or "the output"
    return f"writing under {where} failed ({reason}: a full disk or a size limit); re-run when there is room"


def _user_path_error(exc: OSError, args: argparse.Namespace | None) -> str | None:
    """One line for an OSError on a path the person gave (a flag or the environment), else None."""
    given = []
    for key, value in (vars(args).items() if args is not None else ()):
        if key == "root":
            continue  # files under --root are deps.yaml and friends: config.py reports those
        for item in value if isinstance(value, (list, tuple)) else (value,):
            if isinstance(item, Path):
                given.append(item)
    given += [Path(os.environ[n]) for n in ENV_PATHS if os.environ.get(n)]
    for name in (exc.filename, exc.filename2):
        if not name:
            continue
        failed = Path(os.fsdecode(name)).absolute()
        for path in given:
            mine = path.absolute()
            if failed == mine or mine in failed.parents or failed in mine.parents:
                reason = exc.strerror or type(exc).__name__
                return f"{path}: {reason.lower()} ({os.fsdecode(name)})" if failed != mine \
                    else f"{path}: {reason.lower()}"
    return None
