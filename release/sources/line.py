"""The release line: jax's ``_version`` in ``jax/version.py`` at the jax pin, read from its mirror.

jax's ``setup.py`` pins the plugin to jax's own version, so a plugin ``X.Y.Z`` installs only
beside jax ``X.Y.Z``: ``release bump`` reads the line here whenever the jax pin moves, records
it with the pin (deps.yaml ``jax: line:``) and moves version_info.json's version with it. The
file is parsed as Python syntax, never executed (``setup.py`` ``eval``s it; we need not).
"""

from __future__ import annotations

import ast
import dataclasses
import re
from typing import Iterable

from release.core import bounded
from release.core.config import LINE_FILE, Dep, VersionInfo
from release.core.errors import UserError
from release.core.versions import next_official, parse, parse_next
from release.sources.mirror import Mirror

# ASCII digits only (a look-alike U+0661 is no digit here), at most 9 a part (a 5,000-digit part
# is no version Python can even turn into an int), matched whole (\Z).
_LINE = re.compile(r"^(0|[1-9][0-9]{0,8})\.(0|[1-9][0-9]{0,8})\.(0|[1-9][0-9]{0,8})\Z", re.ASCII)


def parse_version_py(text: str, where: str) -> str:
    """``_version`` of a jax ``version.py``: the one module-level ``_version = "X.Y.Z"``
    (annotated or not); anything else is a one-line ``UserError`` naming ``where``."""
    try:
        module = bounded.python_module(text)
    except bounded.Unparseable as exc:
        raise UserError(f"{where}: cannot parse the file ({exc.reason})") from None
    found: list[object] = []
    for node in module.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "_version"
                                                for t in node.targets):
            found.append(node.value)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) \
                and node.target.id == "_version" and node.value is not None:
            found.append(node.value)
    values = [v.value for v in found if isinstance(v, ast.Constant)]
    if len(found) != 1 or len(values) != 1 or not isinstance(values[0], str) \
            or not _LINE.match(values[0]):
        shown = ", ".join(r if len(r := repr(v)) <= 40 else r[:36] + "...'" for v in values) or "none"
        raise UserError(f"{where}: expected one _version = \"X.Y.Z\" at module level (found "
                        f"{len(found)}: {shown})")
    return values[0]


def line_at(mirror: Mirror, sha: str, dep_name: str = "jax") -> str | None:
    """jax's line at commit ``sha``: the commit's trees fetched when the mirror has only its
    history (a ``tree:0`` mirror), then the one blob. None when the commit has no
    ``jax/version.py`` (not a jax tree: nothing to check)."""
    where = f"{dep_name}: {LINE_FILE} at {sha[:7]}"
    if not mirror.fetch_commit(sha):
        raise UserError(f"{where}: commit not found on {mirror.remote.shown}")
    text = mirror.read_file(sha, LINE_FILE)
    return None if text is None else parse_version_py(text, where)


@dataclasses.dataclass(frozen=True)
class VersionMove:
    """version_info.json's version moved to the jax pin's line (a bump's second file)."""

    old: str
    new: str
    line: str  # jax's line
    commit: str  # the jax pin it was read at

    @property
    def back(self) -> bool:
        """jax moved back to an older line (a revert onto a line that may be released)."""
        return parse(self.line) < parse(parse_next(self.old)[0])  # packaging's Version, loaded when asked

    @property
    def sentence(self) -> str:
        released = (f"; {self.line} is published, so its next post release"
                    if self.new != self.line else "")
        return (f"version: {self.old} -> {self.new}{' (back)' if self.back else ''} (jax's line: "
                f"{LINE_FILE} at {self.commit[:7]} says {self.line}{released})")

    def to_json(self) -> dict:
        return {"old": self.old, "new": self.new, "line": self.line, "commit": self.commit,
                "back": self.back}


def version_move(info: VersionInfo, jax: Dep, published: Iterable[str] = ()) -> VersionMove | None:
    """The move of ``info``'s version onto ``jax``'s recorded line, or None when it is on it
    (or no line is recorded). A new line starts unreleased (``X.Y.Z``); a line already released
    (``published``: what the public index holds; jax moved back to it) at its next ``.postN``,
    never at a version that is published."""
    if jax.line is None or info.line == jax.line:
        return None
    return VersionMove(info.version, next_official(jax.line, published), jax.line, jax.commit)
