"""Secret-shaped strings in bytes: what must never ship inside a wheel.

A wheel is public the moment it is published; a token packed into one (the build environment
through a link to ``/proc/self/environ``, a credentials file copied by mistake) is leaked for
good. ``verify`` looks for the shapes the issuers document, in every member that is not a
compiled object, while the scan streams it (``Finder`` keeps a short tail between chunks so a token cut
by a chunk boundary is still seen). Only the kind of secret is ever reported, never its text.
"""

from __future__ import annotations

import re

# Each: (what a person reads, the shape). Lengths are the issuers' minimums, so words such as
# "ghp_" in documentation or "pypi-upload" are not taken for tokens.
SHAPES: tuple[tuple[str, bytes], ...] = (
    ("a GitHub token", rb"(?<![A-Za-z0-9_])gh[pousr]_[A-Za-z0-9]{36,}"),
    ("a GitHub fine-grained token", rb"(?<![A-Za-z0-9_])github_pat_[A-Za-z0-9_]{40,}"),
    ("a PyPI token", rb"(?<![A-Za-z0-9_-])pypi-[A-Za-z0-9_-]{50,}"),
    ("an AWS access key id", rb"(?<![A-Za-z0-9])(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}(?![A-Za-z0-9])"),
    ("an AWS secret access key",
     rb"(?i:aws_secret_access_key)[\"']?\s*[:=]\s*[\"']?[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+])"),
    ("a private key", rb"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"),
)
_ANY = re.compile(b"|".join(b"(" + shape + b")" for _, shape in SHAPES))
_TAIL = 256  # longer than the longest prefix a shape needs to be recognised


def find(data: bytes) -> str | None:
    """The kind of the first secret-shaped string in ``data``, or None."""
    match = _ANY.search(data)
    if match is None:
        return None
    return SHAPES[(match.lastindex or 1) - 1][0]


def looks_compiled(head: bytes) -> bool:
    """A member's first bytes say it is a compiled object (ELF), not text. NUL bytes alone do
    not: ``/proc/self/environ``, the file a link would pack, separates its entries with them."""
    return head[:4] == b"\x7fELF"


class Finder:
    """``find`` over a stream fed chunk by chunk; ``found`` is the first kind seen."""

    def __init__(self) -> None:
        self.found: str | None = None
        self._tail = b""

    def feed(self, chunk: bytes) -> None:
        if self.found is not None:
            return
        window = self._tail + chunk
        self.found = find(window)
        self._tail = window[-_TAIL:]
