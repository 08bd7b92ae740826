"""Secret-shaped strings in bytes: what must never ship inside a wheel.

A wheel is public the moment it is published; a token packed into one (the build environment
through a link to ``/proc/self/environ``, a credentials file copied by mistake) is leaked for
good. ``verify`` looks for the shapes the issuers document, in every member that is not a
compiled object, while the scan streams it (``Finder`` keeps a short tail between chunks so a token cut
by a chunk boundary is still seen). Only the kind of secret is ever reported, never its text.
"""

from __future__ import annotations

import re

# Each: (what a person reads, the literal words it starts with, the shape from there). Lengths are
# the issuers' minimums, so words such as "ghp_" in documentation or "pypi-upload" are not taken
# for tokens. The words are found with bytes.find (memchr speed) and the shape is matched only
# where one is: a regex searched at every position of a member runs at a few MB/s.
SHAPES: tuple[tuple[str, tuple[bytes, ...], bytes], ...] = (
    ("a GitHub token", (b"ghp_", b"gho_", b"ghu_", b"ghs_", b"ghr_"),
     rb"(?<![A-Za-z0-9_])gh[pousr]_[A-Za-z0-9]{36,}"),
    ("a GitHub fine-grained token", (b"github_pat_",), rb"(?<![A-Za-z0-9_])github_pat_[A-Za-z0-9_]{40,}"),
    ("a PyPI token", (b"pypi-",), rb"(?<![A-Za-z0-9_-])pypi-[A-Za-z0-9_-]{50,}"),
    ("an AWS access key id", (b"AKIA", b"ASIA", b"ABIA", b"ACCA"),
     rb"(?<![A-Za-z0-9])(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}(?![A-Za-z0-9])"),
    ("an AWS secret access key", (b"aws_secret_access_key",),  # found in the lower-cased bytes
     rb"(?i:aws_secret_access_key)[\"']?\s*[:=]\s*[\"']?[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+])"),
    ("a private key", (b"-----BEGIN ",), rb"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"),
)
_COMPILED = tuple((kind, anchors, re.compile(shape)) for kind, anchors, shape in SHAPES)
_TAIL = 256  # longer than the longest prefix a shape needs to be recognised


def find(data: bytes) -> str | None:
    """The kind of a secret-shaped string in ``data`` (the first shape that has one), or None."""
    lowered: bytes | None = None
    for kind, anchors, shape in _COMPILED:
        hay = data
        if kind == "an AWS secret access key":
            hay = lowered = lowered if lowered is not None else data.lower()
        for anchor in anchors:
            at = hay.find(anchor)
            while at >= 0:
                if shape.match(data, at):
                    return kind
                at = hay.find(anchor, at + 1)
    return None


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
