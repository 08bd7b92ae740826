"""The second pin of a repository in jax's tree: ``MODULE.bazel``'s ``archive_override``.

jax pins XLA twice: ``third_party/xla/revision.bzl`` (``XLA_COMMIT``, ``XLA_SHA256``, hex) and
``MODULE.bazel`` (``archive_override(module_name = "xla", integrity = "sha256-<base64>",
strip_prefix = "xla-<commit>", urls = [".../<commit>.tar.gz"])``). A Bzlmod build takes the
second, a WORKSPACE build the first: when they disagree, which XLA the wheels hold depends on
how they are built, so a roll is refused (one line naming both files and both values) rather
than recorded. The file is parsed as Python syntax (Starlark's), never executed.
"""

from __future__ import annotations

import ast
import base64
import binascii
import dataclasses
import re
from typing import Iterable

from release.core.errors import UserError
from release.sources.pins import Pin

MODULE_FILE = "MODULE.bazel"
_IN_URL = re.compile(r"(?<![0-9a-f])([0-9a-f]{40})(?![0-9a-f])")
_ROWS = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")
_SRI = re.compile(r"^sha256-([A-Za-z0-9+/]{43}=)\Z", re.ASCII)


@dataclasses.dataclass(frozen=True)
class ModulePin:
    """What a MODULE.bazel archive override pins: commit, sha256 and integrity."""

    commit: str | None  # from the archive URL (or strip_prefix) it names
    sha256: str | None  # hex, decoded from the SRI ``integrity``
    integrity: str | None  # as written


def sri_to_hex(integrity: str) -> str | None:
    """``sha256-<base64>`` as 64 hex digits, or None when it is not one."""
    m = _SRI.match(integrity)
    if m is None:
        return None
    try:
        raw = base64.b64decode(m.group(1), validate=True)
    except (binascii.Error, ValueError):
        return None
    return raw.hex() if len(raw) == 32 else None


def hex_to_sri(sha256: str) -> str:
    return "sha256-" + base64.b64encode(bytes.fromhex(sha256)).decode()


def archive_override(text: str, module: str) -> ModulePin | None:
    """The ``archive_override(module_name = module, ...)`` of a MODULE.bazel text, or None when
    the file has none for ``module`` (or is not parseable: another build's business)."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return None
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                and node.func.id == "archive_override"):
            continue
        kw = {k.arg: k.value for k in node.keywords if k.arg}
        if _string(kw.get("module_name")) != module:
            continue
        integrity = _string(kw.get("integrity"))
        urls = kw.get("urls")
        texts = [_string(e) for e in urls.elts] if isinstance(urls, (ast.List, ast.Tuple)) else [_string(urls)]
        texts.append(_string(kw.get("strip_prefix")))
        commits = [m.group(1) for t in texts if t for m in [_IN_URL.search(t)] if m]
        return ModulePin(commits[0] if commits else None,
                         sri_to_hex(integrity) if integrity else None, integrity)
    return None


def without_overrides(text: str, modules: Iterable[str]) -> str | None:
    """``text`` less the ``archive_override`` calls of ``modules`` (each cut out exactly as
    written), or None when it is not parseable: two MODULE.bazel texts equal so differ only in
    those pins (bisect: a commit moving only xla's second pin is xla's move, not code)."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return None
    wanted = set(modules)
    spans = sorted(((node.lineno, node.col_offset, node.end_lineno, node.end_col_offset)
                    for node in ast.walk(tree)
                    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                    and node.func.id == "archive_override"
                    and _string({k.arg: k.value for k in node.keywords}.get("module_name")) in wanted),
                   reverse=True)
    starts = [0]  # each line's byte offset (ast's columns count UTF-8 bytes)
    for row in _ROWS.findall(text):  # the lines as ast counts them (not str.splitlines')
        starts.append(starts[-1] + len(row.encode()))
    raw = text.encode()
    for first, col, last, end_col in spans:  # last first: earlier offsets stay valid
        if last is not None and end_col is not None:
            raw = raw[:starts[first - 1] + col] + raw[starts[last - 1] + end_col:]
    return raw.decode()


def _string(node: ast.AST | None) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def check_agrees(pin: Pin, module_text: str, *, name: str, file: str, at: str) -> None:
    """Refuse when ``MODULE.bazel`` pins ``name`` to another commit or digest than ``file`` does
    (``pin``, read from it); nothing to check when it does not pin ``name``."""
    other = archive_override(module_text, name)
    if other is None:
        return
    where = f"{name}: {file} and {MODULE_FILE} at {at} disagree"
    if other.commit is not None and other.commit != pin.commit:
        raise UserError(f"{where}: {pin.var or 'commit'} {pin.commit} in {file}, archive_override "
                        f"commit {other.commit} in {MODULE_FILE}; refusing to roll")
    if other.integrity is not None and other.sha256 is None:
        raise UserError(f"{where}: integrity {other.integrity!r} in {MODULE_FILE} is no sha256-<base64> "
                        "of 32 bytes; refusing to roll")
    if pin.sha256 is not None and other.sha256 is not None and other.sha256 != pin.sha256:
        raise UserError(f"{where}: sha256 {pin.sha256} in {file}, integrity {other.integrity} "
                        f"(= {other.sha256}) in {MODULE_FILE}; refusing to roll")
