"""Printing: tables and lines for people, JSON for machines, and GitHub Actions' files when set.

Every command goes through ``Output`` so ``--json`` means the same everywhere and
secrets are redacted on the way out: both of its streams redact every write, so a
table, a progress line or a plain ``print(..., file=out.stream)`` cannot leak one.
The commands people run most draw their tables themselves (``result_view``: boxed on a
terminal, plain text in a log or a pipe) and write lines as they are; rich draws the
progress bars and the other commands' output, and is imported on first use: a command that
only writes JSON (``release verify --json`` in CI) never pays for it. When the output is not
a terminal (a CI log, a pipe), rich gets a wide console so no table column is cut or folded
at 80 characters.

Every JSON object a command prints names its shape first: ``"schema": "jax-rocm-release/<command>/<N>"``
(``schema_id``), the JSON Schema ``release/schemas/<command>.json`` describes; N moves when a
key is removed or changes meaning, never for a key added. A failure's object is
``jax-rocm-release/error/1``, whatever the command.
"""

from __future__ import annotations

import io
import json
import os
import sys
from typing import IO, TYPE_CHECKING, Any, Callable, Protocol, TextIO

from release.core import sanitize
from release.core.errors import UserError
from release.core.redact import redact, redact_data

if TYPE_CHECKING:
    from rich.console import Console
    from rich.progress import Progress, ProgressColumn, TaskID

    from release.core.plain import PlainConsole

# Width of the console when it is not a terminal: wide enough that a table of full
# SHAs and URLs is never cut; tables only take the width their cells need.
LOG_WIDTH = 1000

Say = Callable[[str], None]
"""A line for people (``Output.line``, or a no-op): library code takes one instead of printing."""


class ProgressBars(Protocol):
    """The part of rich's ``Progress`` that uploads, downloads and copies draw on: one task per
    file, advanced by the bytes moved. Library code takes one (or None) and never imports rich."""

    def add_task(self, description: str, start: bool = ..., total: float | None = ...,
                 completed: int = ..., visible: bool = ..., **fields: Any) -> TaskID: ...

    def advance(self, task_id: TaskID, advance: float = ...) -> None: ...

    def reset(self, task_id: TaskID, *, total: float | None = ...) -> None: ...

    def remove_task(self, task_id: TaskID) -> None: ...


class RedactingStream(io.TextIOBase, TextIO):
    """A text stream that redacts every write before passing it on.

    A text stream by type too (rich's ``Console`` takes an ``IO[str]``); it does not own the
    stream it wraps, so closing it (or collecting it) leaves that stream open.
    """

    encoding = "utf-8"  # the wrapped stream's, set per instance (shadows io's read-only one)

    def __init__(self, stream: IO[str]):
        self.stream = stream
        self.encoding = getattr(stream, "encoding", None) or "utf-8"

    def write(self, text: str) -> int:
        self.stream.write(redact(text))
        return len(text)

    def flush(self) -> None:
        self.stream.flush()

    def isatty(self) -> bool:
        return bool(getattr(self.stream, "isatty", lambda: False)())

    def fileno(self) -> int:
        return self.stream.fileno()

    def close(self) -> None:
        """Nothing to close: the wrapped stream is stdout or the caller's."""

    def __getattr__(self, name: str) -> Any:  # anything else (``getvalue`` of a StringIO) as the stream has it
        return getattr(self.stream, name)


def progress(console: Console, *columns: ProgressColumn | str) -> Progress:
    """A transient rich progress display on ``console``, drawn only on a terminal: in a CI log
    or a pipe it prints nothing at all (rich would leave a blank line behind)."""
    from rich.progress import Progress
    return Progress(*columns, console=console, transient=True, disable=not console.is_terminal)


def console_for(stream: IO[str]) -> Console:
    """A rich console on ``stream``: the terminal's width on a terminal, else ``LOG_WIDTH``. No
    emoji codes: a ``:name:`` in upstream text (a title, a branch) is printed as written, and
    rich's table of codes is never loaded."""
    from rich.console import Console
    tty = bool(getattr(stream, "isatty", lambda: False)())
    return Console(file=stream, highlight=False, soft_wrap=True, width=None if tty else LOG_WIDTH, emoji=False)


# The shape versions (``schema_id``): a command missing here is at 1. Raise one when its JSON loses
# a key or a key changes type or meaning, with its schema file's ``const`` in the same change.
SCHEMA_VERSIONS: dict[str, int] = {}


def schema_id(command: str) -> str:
    """The ``schema`` key of ``command``'s JSON (``error`` for a failure's): the name of the
    JSON Schema ``release/schemas/<command>.json`` and its version."""
    return f"jax-rocm-release/{command}/{SCHEMA_VERSIONS.get(command, 1)}"


# Environment variables with which rich may call a stream that is not a TTY a terminal.
_TERMINAL_OVERRIDES = ("TTY_COMPATIBLE", "FORCE_COLOR")


class Output:
    def __init__(self, as_json: bool = False, stream: IO[str] | None = None, command: str | None = None):
        self.as_json = as_json
        self.command = command  # names the JSON's shape (``schema_id``); None: a nested run's, unnamed
        self.stream = RedactingStream(stream or sys.stdout)
        self._err_stream = RedactingStream(sys.stderr)
        self._console: Console | None = None
        self._err: Console | None = None

    @property
    def console(self) -> Console:
        """The rich console on ``stream`` (made, and rich imported, on first use)."""
        if self._console is None:
            self._console = console_for(self.stream)
        return self._console

    @property
    def err(self) -> Console:
        """The rich console on stderr (made on first use)."""
        if self._err is None:
            self._err = console_for(self._err_stream)
        return self._err

    def result(self, data: Any, human: Callable[[Console], None] | None = None) -> None:
        """Print the command's result: JSON with ``--json``, its ``schema`` key first, else
        ``human(console)``."""
        if self.as_json:
            if self.command is not None and isinstance(data, dict):
                data = {"schema": schema_id(self.command), **data}
            self.stream.write(json.dumps(redact_data(data), indent=2, default=str) + "\n")
            self.stream.flush()
        elif human is not None:
            human(self.console)

    def result_view(self, data: Any, human: Callable[[Console | PlainConsole], None]) -> None:
        """``result`` for a command whose people output is tables and lines, drawn without rich
        (importing it was a third of ``release status --offline``'s start-up): boxed on a terminal
        (``release.core.boxes``), plain text in a log or a pipe (``release.core.plain``)."""
        if self.as_json:
            self.result(data)
            return
        if is_terminal(self.stream):
            from release.core.boxes import TermConsole
            human(TermConsole(self.stream, columns(self.stream), color=colour()))
        else:
            from release.core.plain import PlainConsole
            human(PlainConsole(self.stream))
        self.stream.flush()

    def result_text(self, data: Any, text: Callable[[], str]) -> None:
        """``result`` for a command whose result needs no table or colour: JSON with ``--json``,
        else ``text()`` written as it is, each line made safe for a terminal, and rich is never
        imported (a tenth of a small ``release build``'s CPU)."""
        if self.as_json:
            self.result(data)
            return
        lines = text().split("\n")
        self.stream.write("\n".join(sanitize.line(part) for part in lines) + "\n")
        self.stream.flush()

    def line(self, text: str) -> None:
        """A progress or status line for people (stderr when JSON goes to stdout). Lines carry
        upstream words (commit subjects, branch and tag names): each line is made safe for a
        terminal (``sanitize.line``: no escape sequences), whatever the caller passed."""
        safe = "\n".join(sanitize.line(part) for part in str(text).split("\n"))
        stream = self._err_stream if self.as_json else self.stream
        stream.write(safe + "\n")  # what rich wrote, on a terminal or not, without importing it
        stream.flush()

    def progress_console(self) -> Console:
        """The console progress bars draw on (never the JSON stream)."""
        return self.err if self.as_json else self.console

    def draws_progress(self) -> bool:
        """Whether a progress bar would draw (rich's ``is_terminal`` on ``progress_console``),
        answered without importing rich."""
        return is_terminal(self._err_stream if self.as_json else self.stream)


def _isatty(stream: IO[str]) -> bool:
    try:
        return stream.isatty()
    except ValueError:  # a closed stream (rich says "not a terminal" too)
        return False


def is_terminal(stream: IO[str]) -> bool:
    """Whether ``stream`` is a terminal, as rich's ``is_terminal`` says: ``TTY_COMPATIBLE=1`` yes,
    ``=0`` no; else ``FORCE_COLOR`` set and not empty yes (set and empty no); else whether it is a TTY."""
    compatible = os.environ.get("TTY_COMPATIBLE", "")
    if compatible in ("0", "1"):
        return compatible == "1"
    force = os.environ.get("FORCE_COLOR")
    return force != "" if force is not None else _isatty(stream)


def columns(stream: IO[str]) -> int:
    """The terminal's width: ``COLUMNS`` when it is a number, else the terminal's own, else (a
    stream said to be a terminal that is none) ``LOG_WIDTH``, so no table is squeezed into a log."""
    said = os.environ.get("COLUMNS", "")
    if said.isdigit() and int(said) > 0:
        return int(said)
    try:
        return os.get_terminal_size(stream.fileno()).columns or 80
    except (OSError, ValueError, AttributeError):  # io.UnsupportedOperation is an OSError
        return LOG_WIDTH


def colour() -> bool:
    """Whether a terminal gets colours and bold: not with ``NO_COLOR`` set and not empty
    (no-color.org), nor on a ``TERM=dumb`` terminal."""
    return os.environ.get("NO_COLOR", "") == "" and os.environ.get("TERM", "").lower() not in ("dumb", "unknown")


def _append(path: str, name: str) -> TextIO:
    """GitHub Actions' file opened to append; a FIFO or device there is one line, exit 2, at
    once (a pipe nobody reads would hang even ``release version``)."""
    from release.core import regular
    try:
        return regular.open_append(path)
    except regular.NotRegular as exc:
        raise UserError(f"${name}: {exc}") from None


def github_output(values: dict[str, Any]) -> None:
    """Append ``key=value`` pairs to ``$GITHUB_OUTPUT`` when it is set."""
    path = os.environ.get("GITHUB_OUTPUT")
    if not path:
        return
    with _append(path, "GITHUB_OUTPUT") as handle:
        for key, value in values.items():
            text = redact(value if isinstance(value, str) else json.dumps(value))
            if "\n" in text:
                import uuid  # only here: most runs never write a multi-line output
                marker = f"EOF_{uuid.uuid4().hex}"
                handle.write(f"{key}<<{marker}\n{text}\n{marker}\n")
            else:
                handle.write(f"{key}={text}\n")


def step_summary(markdown: str) -> None:
    """Append Markdown to ``$GITHUB_STEP_SUMMARY`` when it is set."""
    path = os.environ.get("GITHUB_STEP_SUMMARY")
    if path:
        with _append(path, "GITHUB_STEP_SUMMARY") as handle:
            handle.write(redact(markdown).rstrip("\n") + "\n\n")
