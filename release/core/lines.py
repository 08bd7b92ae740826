"""The maintained lines: which branches of this repository publish, each with its own deps.yaml
and version_info.json (docs/lines.md).

One declared place: ``.github/lines.json`` on the default branch, a JSON list of branch names,
newest line first (``["main", "release/0.10", "release/0.9"]``). The scheduled workflows run a
matrix over it, ``release status`` shows a row per entry, and ``release line new X.Y`` adds
``release/X.Y`` to it in the one pull request a person reviews. Without the file the project has
one line: the branch checked out. A line's branch is ``release/X.Y``; its versions are the
``X.Y.*`` ones (``line_key``), which is how two lines' nightlies, drafts and tags stay apart.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import TYPE_CHECKING

from release.core import regular, versions
from release.core.errors import ConfigError, UserError

if TYPE_CHECKING:  # packaging's Version is loaded where a version is parsed (versions.parse)
    from packaging.version import Version

LINES_FILE = Path(".github") / "lines.json"
LINE_PREFIX = "release/"
MAX_LINES_BYTES = 64 << 10
MAX_LINES = 64  # a matrix GitHub runs (256 jobs) several jobs a line deep
_XY = re.compile(r"^(0|[1-9][0-9]{0,8})\.(0|[1-9][0-9]{0,8})\Z", re.ASCII)


def parse_xy(text: str, where: str = "LINE") -> str:
    """``X.Y`` of a new line (``0.10``), or one line saying what was expected."""
    value = text.strip()
    if not _XY.match(value):
        raise UserError(f"{where} {text!r}: expected the line as MAJOR.MINOR, such as 0.10")
    return value


def branch_of(xy: str) -> str:
    """The branch a line lives on: ``release/0.10``."""
    return f"{LINE_PREFIX}{xy}"


def line_key(version: str | Version) -> tuple[int, int] | None:
    """``(X, Y)`` of a version: the maintained line it belongs to (``0.10.2.post1.dev20261127``
    is line 0.10). None for text that is no version."""
    try:
        v = versions.parse(version) if isinstance(version, str) else version
    except ValueError:  # packaging's InvalidVersion: a bump's start (release.sources.repo) parses none
        return None
    release = (*v.release, 0)[:2]
    return release[0], release[1]


def parse_lines(path: Path | str, text: str) -> tuple[str, ...]:
    """The branches ``lines.json`` lists, in its order; every problem is one line naming the
    file, the entry and what was expected."""
    from release.core.config import is_branch_name  # config loads YAML: only for a lines file
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(path, None, f"not JSON ({exc.msg} at line {exc.lineno})",
                          'a JSON list of branch names, such as ["main", "release/0.10"]') from None
    if not isinstance(raw, list) or not raw:
        raise ConfigError(path, None, type(raw).__name__ if not isinstance(raw, list) else "[]",
                          'a JSON list of one or more branch names, such as ["main", "release/0.10"]')
    if len(raw) > MAX_LINES:
        raise ConfigError(path, None, f"{len(raw)} lines", f"at most {MAX_LINES}")
    seen: set[str] = set()
    for i, entry in enumerate(raw):
        if not is_branch_name(entry):
            shown = entry if isinstance(entry, str) else json.dumps(entry)
            raise ConfigError(path, f"[{i}]", shown[:80], "a branch name (letters, digits, . _ / -)")
        if entry in seen:
            raise ConfigError(path, f"[{i}]", entry, "each branch once")
        seen.add(entry)
    return tuple(raw)


def read_lines(root: Path, current: str) -> tuple[str, ...]:
    """The maintained lines of the project at ``root``: ``lines.json``, else the one branch
    ``current`` (a project with one line needs no file)."""
    path = Path(root) / LINES_FILE
    if not path.exists() and not path.is_symlink():
        return (current,)
    try:
        text = regular.read_text(path, MAX_LINES_BYTES)
    except regular.NotRegular as exc:
        raise ConfigError(path, None, f"a file that {exc.reason.partition('; ')[0]}",
                          f"a regular file of at most {MAX_LINES_BYTES:,} bytes") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(path, None, f"unreadable ({exc.__class__.__name__})", "a readable UTF-8 file") from None
    return parse_lines(path, text)


def with_line(lines: tuple[str, ...], branch: str) -> tuple[str, ...]:
    """``lines`` with ``branch`` added: after every entry that is no ``release/X.Y`` (the
    default branch, the newest line), then the ``release/X.Y`` lines newest first."""
    if branch in lines:
        return lines
    def xy(name: str) -> tuple[int, int] | None:
        tail = name[len(LINE_PREFIX):] if name.startswith(LINE_PREFIX) else ""
        return (int(tail.split(".")[0]), int(tail.split(".")[1])) if _XY.match(tail) else None
    others = [b for b in (*lines, branch) if xy(b) is None]
    released = sorted((b for b in (*lines, branch) if xy(b) is not None), key=xy, reverse=True)  # type: ignore[arg-type, return-value]
    return (*others, *released)


def render_lines(lines: tuple[str, ...]) -> str:
    """The file's text: one branch a line, so adding or retiring a line is a one-line diff."""
    return "[\n" + ",\n".join(f"  {json.dumps(b)}" for b in lines) + "\n]\n"
