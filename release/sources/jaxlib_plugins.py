"""Which ROCm plugin names a line's jaxlib knows, read from jax's tree at the pin.

jaxlib imports a GPU plugin's kernels by module name: ``jaxlib/plugin_support.py`` lists the
names it tries (``_PLUGIN_MODULE_NAMES["rocm"]``, e.g. ``jax_rocm7_plugin``), and from jaxlib
0.11.1 also finds any installed module a ROCm pattern there matches (``_ROCM_PLUGIN_MODULE_RE =
re.compile(r"jax_rocm(\\d+)_plugin")``, jax-ml/jax#39634). A plugin whose name its jaxlib does
not know installs and registers, yet no FFI handler is there (ROCm/TheRock:RELEASES.md: "On ROCm
10, a released jaxlib (0.10.1 through 0.11.0) does not know the jax_rocm10_plugin name").

So before a build each ROCm major's ``jax_rocm<N>_plugin`` must be a name the jaxlib at the
jax pin knows: the file is read as committed at the pin (``git show <pin>:<file>``, parsed as
Python syntax, never run), the jaxlib version from ``jax/version.py`` there (jaxlib is built at
jax's version). A major it does not know is refused in one line naming the first jaxlib among
the checkout's tags and branches that knows it; a jax tree (one with ``jax/version.py``) whose
plugin list cannot be read is refused too, since nothing could then be said.
"""

from __future__ import annotations

import ast
import dataclasses
import re
import subprocess
from pathlib import Path
from typing import Iterable

from packaging.version import InvalidVersion, Version

from release.core import bounded
from release.core.errors import UserError
from release.sources.line import parse_version_py

PLUGIN_SUPPORT = "jaxlib/plugin_support.py"
VERSION_FILE = "jax/version.py"
NAMES = "_PLUGIN_MODULE_NAMES"
REFS = ("refs/tags/jax-v*", "refs/tags/jaxlib-v*", "refs/heads", "refs/remotes")
MAX_REFS = 400  # jax has about 150 release tags; a checkout with thousands of branches is cut here


def plugin_module(major: int) -> str:
    """The module a ROCm major's plugin wheel installs: ``jax_rocm10_plugin``."""
    return f"jax_rocm{major}_plugin"


@dataclasses.dataclass(frozen=True)
class KnownNames:
    """What one jaxlib knows: the ROCm names it lists and the patterns it finds others by."""

    jaxlib: str
    names: tuple[str, ...]
    patterns: tuple[str, ...] = ()

    def knows(self, module: str) -> bool:
        return module in self.names or any(re.fullmatch(p, module) for p in self.patterns)


def parse_plugin_support(text: str, where: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """``(names, patterns)`` of a ``plugin_support.py``: the string list under ``"rocm"`` in the
    module-level ``_PLUGIN_MODULE_NAMES`` dict, and every module-level ``re.compile("...")``
    whose pattern names rocm (the finder of later majors). Anything else is one line."""
    try:
        module = bounded.python_module(text)
    except bounded.Unparseable as exc:
        raise UserError(f"{where}: cannot parse the file ({exc.reason})") from None
    names: tuple[str, ...] | None = None
    patterns: list[str] = []
    for node in module.body:
        targets = node.targets if isinstance(node, ast.Assign) else \
            [node.target] if isinstance(node, ast.AnnAssign) and node.value is not None else []
        value = getattr(node, "value", None)
        if any(isinstance(t, ast.Name) and t.id == NAMES for t in targets):
            names = _rocm_names(value, where)
        elif targets and _is_compile(value):
            assert isinstance(value, ast.Call)
            pattern = value.args[0]
            if isinstance(pattern, ast.Constant) and isinstance(pattern.value, str) \
                    and "rocm" in pattern.value:
                patterns.append(pattern.value)
    if names is None:
        raise UserError(f"{where}: no module-level {NAMES} = {{\"rocm\": [...], ...}}; cannot tell "
                        "which ROCm plugin names this jaxlib knows")
    return names, tuple(patterns)


def _rocm_names(value: ast.expr | None, where: str) -> tuple[str, ...]:
    if isinstance(value, ast.Dict):
        for key, item in zip(value.keys, value.values):
            if isinstance(key, ast.Constant) and key.value == "rocm":
                if isinstance(item, (ast.List, ast.Tuple)) and all(
                        isinstance(e, ast.Constant) and isinstance(e.value, str) for e in item.elts):
                    return tuple(e.value for e in item.elts)  # type: ignore[attr-defined]
                break
    raise UserError(f"{where}: {NAMES} is not a dict literal with \"rocm\": a list of module names; "
                    "cannot tell which ROCm plugin names this jaxlib knows")


def _is_compile(value: object) -> bool:
    return (isinstance(value, ast.Call) and len(value.args) >= 1
            and isinstance(value.func, ast.Attribute) and value.func.attr == "compile"
            and isinstance(value.func.value, ast.Name) and value.func.value.id == "re")


def _show(checkout: Path, revs: list[str]) -> list[str | None]:
    """The text of each ``<rev>:<path>`` in the checkout's repository (None: not there), in one
    ``git cat-file --batch``."""
    if not revs:
        return []
    try:
        done = subprocess.run(["git", "-C", str(checkout), "cat-file", "--batch"],
                              input=("\n".join(revs) + "\n").encode(), capture_output=True, check=True, timeout=120)
    except (OSError, subprocess.SubprocessError) as exc:
        raise UserError(f"{checkout}: cannot read jax's tree with git ({type(exc).__name__}); "
                        "fetch the sources first (release fetch-sources)") from None
    out, at = done.stdout, 0
    texts: list[str | None] = []
    for _ in revs:
        end = out.index(b"\n", at)
        header = out[at:end].split()
        if len(header) == 2 and header[1] == b"missing":
            texts.append(None)
            at = end + 1
            continue
        size = int(header[2])
        texts.append(out[end + 1:end + 1 + size].decode("utf-8", "replace") if header[1] == b"blob" else None)
        at = end + 1 + size + 1
    return texts


def known_at(checkout: Path, rev: str) -> KnownNames | None:
    """What the jaxlib at ``rev`` of the jax checkout knows; None when ``rev`` has no
    ``jax/version.py`` (not a jax tree: nothing to check, as ``release.sources.line`` says); a
    one-line ``UserError`` when jax's tree has no plugin list that can be read."""
    support, version = _show(checkout, [f"{rev}:{PLUGIN_SUPPORT}", f"{rev}:{VERSION_FILE}"])
    short = rev[:12]
    if version is None:
        return None
    if support is None:
        raise UserError(f"{checkout}: no {PLUGIN_SUPPORT} at {short}; cannot tell which ROCm plugin "
                        "names the line's jaxlib knows")
    names, patterns = parse_plugin_support(support, f"{PLUGIN_SUPPORT} at {short}")
    return KnownNames(parse_version_py(version, f"{VERSION_FILE} at {short}"), names, patterns)


def first_knowing(checkout: Path, module: str) -> tuple[str, str] | None:
    """``(jaxlib version, ref)`` of the oldest jaxlib among the checkout's release tags and
    branches that knows ``module``; None when none does."""
    try:
        listed = subprocess.run(["git", "-C", str(checkout), "for-each-ref", "--format=%(refname)", *REFS],
                                capture_output=True, text=True, check=True, timeout=60).stdout.split()
    except (OSError, subprocess.SubprocessError):
        return None
    refs = [r for r in listed if not r.endswith("/HEAD")][:MAX_REFS]
    texts = _show(checkout, [f"{r}:{f}" for r in refs for f in (PLUGIN_SUPPORT, VERSION_FILE)])
    found: list[tuple[Version, str, str]] = []
    for i, ref in enumerate(refs):
        support, version = texts[2 * i], texts[2 * i + 1]
        if support is None or version is None:
            continue
        try:
            names, patterns = parse_plugin_support(support, ref)
            jaxlib = parse_version_py(version, ref)
            if KnownNames(jaxlib, names, patterns).knows(module):
                found.append((Version(jaxlib), jaxlib, ref.split("/", 2)[-1]))
        except (UserError, InvalidVersion):
            continue
    return min(found)[1:] if found else None


def check_majors(checkout: Path, pin: str, majors: Iterable[int], line: str | None = None) -> KnownNames | None:
    """Every major's plugin name is one the jaxlib at ``pin`` knows, else one line naming the
    major, the jaxlib, what it knows and the first jaxlib that knows the name (None: ``pin``
    is no jax tree, nothing checked)."""
    known = known_at(checkout, pin)
    if known is None:
        return None
    for major in sorted(set(majors)):
        module = plugin_module(major)
        if known.knows(module):
            continue
        first = first_knowing(checkout, module)
        later = (f"jaxlib {first[0]} ({first[1]}) is the first that knows it" if first else
                 "no jaxlib in the checkout's tags and branches knows it yet")
        cell = f"line {line}: " if line else ""
        raise UserError(f"{cell}rocm{major} cell: jaxlib {known.jaxlib} (jax {pin[:12]}) does not know "
                        f"{module} ({PLUGIN_SUPPORT} lists {', '.join(known.names) or 'no ROCm names'}), so "
                        f"the wheel would install without its GPU kernels; {later}")
    return known
