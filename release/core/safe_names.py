"""File names that come from outside (store assets, store records) checked before they touch a path.

An asset name from the GitHub API or from a local store's ``release.json`` is data anyone who
can write there controls. Joined to a folder as given, ``../x`` or ``/etc/x`` writes outside it.
One rule for every such name: a plain file name, nothing that a path join could turn into
another directory, a hidden file or a device.
"""

from __future__ import annotations

import re

from release.core.errors import UserError

_MAX = 255  # bytes: the longest name common file systems take
_CONTROL = re.compile("[\x00-\x1f\x7f]")  # C0 controls and DEL


# a name only of these ASCII characters, not starting with a dot, has none of the problems below
_PLAIN = re.compile(r"[\w+-][\w.+~-]{0,%d}" % (_MAX - 1), re.ASCII)


# Names found plain in this process, by their exact text: the index checks each asset name of a
# season when the store lists it, again when it lists the wheel and again when it reads the file.
_PASSED: set[str] = set()


def file_name_problem(name: object) -> str | None:
    """Why ``name`` is not a plain file name, or None when it is one. A wheel's name is answered
    by one match, and a name already answered (exactly that text) by one lookup."""
    if type(name) is str and name in _PASSED:
        return None
    problem = None if isinstance(name, str) and _PLAIN.fullmatch(name) else _problem(name)
    if problem is None and type(name) is str and len(_PASSED) < 1 << 16:
        _PASSED.add(name)
    return problem


def _problem(name: object) -> str | None:
    if not isinstance(name, str):
        return f"expected a string, got {type(name).__name__}"
    if not name:
        return "it is empty"
    if "/" in name or "\\" in name:
        return "it contains a path separator"
    if _CONTROL.search(name):
        return "it contains a control character"
    if name.startswith("."):
        return "it starts with a dot"  # '.', '..', hidden files, our own '.NAME.part' temps
    if name != name.strip():
        return "it starts or ends with whitespace"
    try:
        size = len(name.encode("utf-8"))
    except UnicodeEncodeError:
        return "it is not valid UTF-8"
    if size > _MAX:
        return f"it is {size} bytes long (at most {_MAX})"
    return None


def plain_file_name(name: object, where: str) -> str:
    """``name`` unchanged when it is a plain file name, else a ``UserError`` naming ``where``."""
    problem = file_name_problem(name)
    if problem is None and isinstance(name, str):  # file_name_problem refuses every non-string
        return name
    raise UserError(f"{where}: file name {name!r} refused: {problem}; expected a plain file "
                    "name (no path separators, no leading dot, no control characters)")
