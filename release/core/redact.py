"""Keep secrets out of everything we print, log, raise, write or send.

Code that reads a secret registers it here. Every text that leaves the process passes
through ``redact``: what the CLI prints (``release.core.output`` wraps its streams), error
lines, GitHub Actions' files, bodies sent to GitHub (``release.sources.github``), commit
messages and files the tool writes. URLs are rendered for people and files by
``display_url`` only, which drops the credentials instead of masking them, so a
token in a deps.yaml URL never reaches a changelog, a wheel or a release note.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit, urlunsplit

_SECRETS: set[str] = set()
# Token shapes GitHub issues, in case one arrives by a path we did not register.
_TOKEN_SHAPES = re.compile(r"\b(gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})\b")
_URL_CREDENTIALS = re.compile(r"(?<=://)[^/@\s:]+(:[^/@\s]*)?@")
# A credential in a URL's query or fragment (?access_token=..., #token=..., a signed URL's signature).
_QUERY_SECRET = re.compile(r"(?i)([?&#;](?:access_token|private_token|token|password|passwd|pwd|secret|"
                           r"client_secret|api[-_]?key|key|sig|signature|x-amz-signature|x-amz-credential|"
                           r"x-amz-security-token|auth|authorization|jwt)=)[^&#;\s]+")
MASK = "***"


def register_secret(value: str | None) -> None:
    if value and len(value) >= 4:
        _SECRETS.add(value)


def secrets_known() -> int:
    """How many secrets are registered: ``redact``'s answers change only when this does (they
    are only ever added), so an answer may be kept with it."""
    return len(_SECRETS)


def _mask_secrets(text: str) -> str:
    for secret in sorted(_SECRETS, key=len, reverse=True):
        text = text.replace(secret, MASK)
    return _TOKEN_SHAPES.sub(MASK, text)


def redact(text: str) -> str:
    """``text`` with every registered secret, token-shaped word and URL user:password masked."""
    masked = _URL_CREDENTIALS.sub(MASK + "@", _mask_secrets(text))
    return _QUERY_SECRET.sub(lambda m: m.group(1) + MASK, masked)


def redact_data(data: Any) -> Any:
    """``data`` (JSON-like) with every string redacted; keys and other values as they are."""
    if isinstance(data, str):
        return redact(data)
    if isinstance(data, dict):
        return {k: redact_data(v) for k, v in data.items()}
    if isinstance(data, (list, tuple)):
        return [redact_data(v) for v in data]
    return data


def url_credentials(url: str) -> tuple[str, str | None, str | None]:
    """``(url without credentials, user, password)``; user and password are registered as secrets
    when a password is present, or when an http(s) URL carries a user alone (a bare token)."""
    try:
        parts = urlsplit(url)
        user, password, host = parts.username, parts.password, parts.hostname
        port = parts.port
    except ValueError:  # not a URL we can take apart: mask whatever looks like credentials
        return _URL_CREDENTIALS.sub("", url), None, None
    if user is None or not parts.scheme or host is None:
        return url, None, None
    if password is None and parts.scheme not in ("http", "https"):
        return url, None, None  # ssh://git@host: a user name, not a secret
    netloc = (f"[{host}]" if ":" in host else host) + (f":{port}" if port else "")
    if password is not None:
        register_secret(password)
    else:
        register_secret(user)
    return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment)), user, password


def display_url(url: str) -> str:
    """The one way a URL is rendered for people, files, commits, wheels and release notes:
    without user and password, query and fragment (not masked: dropped; a token may sit in
    any of them, and a git remote needs none of them to be named)."""
    bare, user, password = url_credentials(url)
    try:
        parts = urlsplit(bare)
    except ValueError:
        parts = None
    if parts is not None and (parts.query or parts.fragment):
        for value in re.split(r"[&;=]", parts.query + "&" + parts.fragment):
            if len(value) >= 8:  # names and flags are short; a token is not
                register_secret(value)
        bare = urlunsplit((parts.scheme, parts.netloc, parts.path, "", ""))
    if user is None and password is None and urlsplit(bare).scheme in ("ssh", "git+ssh"):
        return _mask_secrets(bare)  # ssh://git@host names a login, not a secret
    return redact(bare)
