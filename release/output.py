"""Printing: rich for people, JSON for machines, and GitHub Actions' files when set.

Every command goes through ``Output`` so ``--json`` means the same everywhere
and secrets are redacted on the way out.
"""

from __future__ import annotations

import json
import os
import sys
import uuid
from typing import Any, Callable

from rich.console import Console

from release.redact import redact


class Output:
    def __init__(self, as_json: bool = False, stream=None):
        self.as_json = as_json
        self.stream = stream or sys.stdout
        self.console = Console(file=self.stream, highlight=False, soft_wrap=True)
        self.err = Console(file=sys.stderr, highlight=False, soft_wrap=True)

    def result(self, data: Any, human: Callable[[Console], None] | None = None) -> None:
        """Print the command's result: JSON with ``--json``, else ``human(console)``."""
        if self.as_json:
            self.stream.write(redact(json.dumps(data, indent=2, default=str)) + "\n")
            self.stream.flush()
        elif human is not None:
            human(self.console)

    def line(self, text: str) -> None:
        """A progress or status line for people (stderr when JSON goes to stdout)."""
        (self.err if self.as_json else self.console).print(redact(text), markup=False)

    def progress_console(self) -> Console:
        """The console progress bars draw on (never the JSON stream)."""
        return self.err if self.as_json else self.console


def github_output(values: dict[str, Any]) -> None:
    """Append ``key=value`` pairs to ``$GITHUB_OUTPUT`` when it is set."""
    path = os.environ.get("GITHUB_OUTPUT")
    if not path:
        return
    with open(path, "a", encoding="utf-8") as handle:
        for key, value in values.items():
            text = redact(value if isinstance(value, str) else json.dumps(value))
            if "\n" in text:
                marker = f"EOF_{uuid.uuid4().hex}"
                handle.write(f"{key}<<{marker}\n{text}\n{marker}\n")
            else:
                handle.write(f"{key}={text}\n")


def step_summary(markdown: str) -> None:
    """Append Markdown to ``$GITHUB_STEP_SUMMARY`` when it is set."""
    path = os.environ.get("GITHUB_STEP_SUMMARY")
    if path:
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(redact(markdown).rstrip("\n") + "\n\n")
