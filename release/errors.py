"""Errors a user can cause.

Every one of them ends the command with a single line on stderr and exit
status 2 (see ``release.cli``); anything else is a bug and may traceback.
"""


class UserError(Exception):
    """Bad input, bad flag, unreachable remote, missing token: one clear line, exit 2."""

    exit_code = 2


class ConfigError(UserError):
    """deps.yaml or version_info.json is unreadable or invalid.

    The message names the file, the key, the bad value and what was expected.
    """

    def __init__(self, path, key, value, expected):
        self.path, self.key, self.value, self.expected = str(path), key, value, expected
        shown = value if isinstance(value, str) else repr(value)
        where = f"{self.path}: {key}" if key else self.path
        super().__init__(f"{where}: got {shown!s}; expected {expected}")
