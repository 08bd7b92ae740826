"""Errors that end a command with one line, typed by who is at fault.

The exit status says whose move it is (see ``release.cli`` and the README):
2 for a ``UserError`` (bad input, flag, file, path, token or permission: fix the
call), 3 for a ``RemoteError`` (a remote failed: 5xx after retries, no answer, a
malformed answer, a rate limit past the deadline: retry later). Anything else is
a bug and may traceback.
"""

from __future__ import annotations

USER_EXIT = 2
REMOTE_EXIT = 3


class ReleaseError(Exception):
    """A failure the command reports as one line; ``exit_code`` says who is at fault."""

    exit_code = 1


class UserError(ReleaseError):
    """Bad input, bad flag, missing file or token, refused credentials: one clear line, exit 2."""

    exit_code = USER_EXIT


class RemoteError(ReleaseError):
    """A remote (GitHub, a git server) failed or answered nonsense: one line, exit 3; retry later."""

    exit_code = REMOTE_EXIT


class ConfigError(UserError):
    """deps.yaml or version_info.json is unreadable or invalid.

    The message names the file, the key, the bad value and what was expected.
    """

    def __init__(self, path: object, key: str | None, value: object, expected: str):
        self.path, self.key, self.value, self.expected = str(path), key, value, expected
        shown = value if isinstance(value, str) else repr(value)
        where = f"{self.path}: {key}" if key else self.path
        super().__init__(f"{where}: got {shown!s}; expected {expected}")
