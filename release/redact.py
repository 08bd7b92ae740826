"""Keep secrets out of everything we print, log or raise.

Code that reads a secret registers it here; every line the CLI prints and every
error message passes through ``redact``.
"""

from __future__ import annotations

import re

_SECRETS: set[str] = set()
# Token shapes GitHub issues, in case one arrives by a path we did not register.
_TOKEN_SHAPES = re.compile(r"\b(gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})\b")
_URL_CREDENTIALS = re.compile(r"(?<=://)[^/@\s:]+(:[^/@\s]*)?@")


def register_secret(value: str | None) -> None:
    if value and len(value) >= 4:
        _SECRETS.add(value)


def redact(text: str) -> str:
    for secret in sorted(_SECRETS, key=len, reverse=True):
        text = text.replace(secret, "***")
    text = _TOKEN_SHAPES.sub("***", text)
    return _URL_CREDENTIALS.sub("***@", text)
