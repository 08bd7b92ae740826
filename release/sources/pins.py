"""Read the pin of one repository out of a Bazel workspace file (``third_party/*/workspace.bzl``).

Upstream changed these files' shape more than once: ``COMMIT``/``SHA`` feeding an
``http_archive`` whose URL is built from the commit (with ``patch_file``s), then
``JAX_COMMIT`` in a ``git_repository(commit = ...)`` (with ``patches``); xla says
``XLA_COMMIT``/``XLA_SHA256``. So the pin is found by structure, not by one variable name:
the repository rule named like the dep (or the only one), its ``commit`` or the commit its
archive URL is built from, its ``sha256`` and its patch list. The file is parsed as Python
syntax (what these Starlark files use), never executed. A ``var`` named in deps.yaml still
wins for the commit. A file of plain variables and no rule (jax's ``third_party/xla/revision.bzl``:
``XLA_COMMIT``, ``XLA_SHA256``) gives the archive sha256 of the ``*_SHA256`` beside the commit's.
"""

from __future__ import annotations

import ast
import dataclasses
import re

from release.core import bounded
from release.core.errors import UserError

_SHA = re.compile(r"^[0-9a-f]{40}\Z", re.ASCII)
_SHA256 = re.compile(r"^[0-9a-f]{64}\Z", re.ASCII)
_IN_URL = re.compile(r"(?<![0-9a-f])([0-9a-f]{40})(?![0-9a-f])")
_GITHUB_ARCHIVE = re.compile(r"^(https://github\.com/[^/]+/[^/]+?)(?:\.git)?/archive/")
_ASSIGN = r'^[ \t]*{var}[ \t]*=[ \t]*(["\'])(.*?)\1'
PATCH_KEYWORDS = ("patches", "patch_file")
_FORMAT_SPEC = re.compile(r"\{[^{}]*[:!\[.]")  # "{x:>99999999}" pads to any size; pins use plain {x}
MAX_DEPTH = 50         # a pin's expression is a few levels deep: a name, a "+", a .format()
MAX_VALUE = 1 << 16    # characters: a URL or a patch list, never more


@dataclasses.dataclass(frozen=True)
class Pin:
    """What a workspace .bzl pins: commit, variable, repository, archive and patches."""

    commit: str
    var: str | None  # the variable that holds the commit, when there is one
    url: str | None  # the repository the rule fetches from (remote, or the archive URL's repo)
    sha256: str | None  # the archive's sha256 (http_archive only)
    patches: tuple[str, ...]  # patch files applied on top, as labels


def read_pin(text: str, *, name: str, where: str, var: str | None = None) -> Pin:
    """The pin of repository ``name`` in ``text``; ``var`` (from deps.yaml) overrides the commit."""
    try:
        module = bounded.python_module(text)
    except bounded.Unparseable as exc:
        if var and len(text) <= bounded.MAX_SOURCE:  # an unparsable file can still hold a plain assignment
            return Pin(read_var(text, var, where), var, None, None, ())
        raise UserError(f"{where}: cannot parse the file ({exc.reason})") from None
    consts = _constants(module)
    rule = _rule(module, name, consts, where)
    commit: str | None = None
    found_var: str | None = None
    url: str | None = None
    sha256: str | None = None
    patches: tuple[str, ...] = ()
    if rule is not None:
        kw = {k.arg: k.value for k in rule.keywords if k.arg}
        commit, found_var = _commit_of(kw, consts)
        url = _repo_url(kw, consts)
        value = _eval(kw["sha256"], consts) if "sha256" in kw else None
        sha256 = value if isinstance(value, str) and _SHA256.match(value) else None
        for key in PATCH_KEYWORDS:
            value = _eval(kw[key], consts) if key in kw else None
            if isinstance(value, list) and all(isinstance(p, str) for p in value):
                patches = tuple(value)
    if var:
        commit, found_var = read_var(text, var, where), var
    elif commit is None:
        commit, found_var = _lone_commit_constant(consts, where)
    if not _SHA.match(commit):
        raise UserError(f"{where}: {found_var or 'commit'} = {commit!r}; expected a full commit SHA "
                        "(40 hex digits)")
    if rule is None and found_var and found_var.endswith("COMMIT"):  # jax's revision.bzl: XLA_SHA256 beside
        beside = consts.get(found_var.removesuffix("COMMIT") + "SHA256")
        sha256 = beside if isinstance(beside, str) and _SHA256.match(beside) else None
    return Pin(commit, found_var, url, sha256, patches)


def read_var(text: str, var: str, where: str) -> str:
    """The value of ``VAR = "<sha>"`` in a Starlark/Python file."""
    m = re.search(_ASSIGN.format(var=re.escape(var)), text, re.M)
    if not m:
        raise UserError(f"{where}: no {var} = \"<sha>\" in the file (drop var: from deps.yaml to find "
                        "the pin by structure)")
    value = m.group(2)
    if not _SHA.match(value):
        raise UserError(f"{where}: {var} = {value!r}; expected a full commit SHA (40 hex digits)")
    return value


# ---------------------------------------------------------------- the parts


Value = str | list[str]  # what a pin's expression evaluates to


def _constants(module: ast.Module) -> dict[str, Value]:
    """Top-level ``NAME = <string or list of strings>``, evaluated in order."""
    consts: dict[str, Value] = {}
    for stmt in module.body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            value = _eval(stmt.value, consts)
            if value is not None:
                consts[stmt.targets[0].id] = value
    return consts


def _eval(node: ast.AST, consts: dict[str, Value], depth: int = 0) -> Value | None:
    """The value of the few expression forms pins are written in, or None; also None for an
    expression nested deeper than ``MAX_DEPTH`` or a value longer than ``MAX_VALUE`` (a file
    that doubles a string forty times would otherwise fill memory)."""
    value = _eval_bounded(node, consts, depth)
    if isinstance(value, str) and len(value) > MAX_VALUE \
            or isinstance(value, list) and sum(map(len, value)) > MAX_VALUE:
        return None
    return value


def _eval_bounded(node: ast.AST, consts: dict[str, Value], depth: int) -> Value | None:
    if depth > MAX_DEPTH:
        return None
    depth += 1
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.Name):
        return consts.get(node.id)
    if isinstance(node, (ast.List, ast.Tuple)):
        items = [_eval(e, consts, depth) for e in node.elts]
        strings = [i for i in items if isinstance(i, str)]
        return strings if len(strings) == len(items) else None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _eval(node.left, consts, depth), _eval(node.right, consts, depth)
        return left + right if isinstance(left, str) and isinstance(right, str) else None
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format"
            and not node.args):
        template = _eval(node.func.value, consts, depth)
        values = {k.arg: _eval(k.value, consts, depth) for k in node.keywords if k.arg}
        given = {k: v for k, v in values.items() if isinstance(v, str)}
        grows = sum(map(len, given.values())) * template.count("{") if isinstance(template, str) else 0
        if isinstance(template, str) and len(given) == len(values) and not _FORMAT_SPEC.search(template) \
                and len(template) + grows <= MAX_VALUE:
            try:
                return template.format(**given)
            except (KeyError, IndexError, ValueError):
                return None
    return None


def _rule(module: ast.Module, name: str, consts: dict[str, Value], where: str) -> ast.Call | None:
    """The repository rule call for ``name``: the one with ``name = "<name>"``, else the only one."""
    rules = [n for n in ast.walk(module) if isinstance(n, ast.Call)
             and {k.arg for k in n.keywords} & {"commit", "urls", "url", "remote"}]
    named = [r for r in rules for k in r.keywords if k.arg == "name" and _eval(k.value, consts) == name]
    if named:
        return named[0]
    if len(rules) > 1:
        raise UserError(f"{where}: {len(rules)} repository rules and none has name = \"{name}\"")
    return rules[0] if rules else None


def _commit_of(kw: dict[str, ast.expr], consts: dict[str, Value]) -> tuple[str | None, str | None]:
    """``commit = X``, or the commit an archive URL is built from (``.../archive/{commit}.tar.gz``)."""
    if "commit" in kw:
        value = _eval(kw["commit"], consts)
        if isinstance(value, str):
            return value, kw["commit"].id if isinstance(kw["commit"], ast.Name) else None
    for key in ("urls", "url"):
        value = _eval(kw[key], consts) if key in kw else None
        for url in ([value] if isinstance(value, str) else value or []):
            m = _IN_URL.search(url)
            if m:
                names = [n.id for n in ast.walk(kw[key]) if isinstance(n, ast.Name)
                         and consts.get(n.id) == m.group(1)]
                return m.group(1), names[0] if names else None
    return None, None


def _repo_url(kw: dict[str, ast.expr], consts: dict[str, Value]) -> str | None:
    remote = _eval(kw["remote"], consts) if "remote" in kw else None
    if isinstance(remote, str):
        return re.sub(r"\.git$", "", remote)
    for key in ("urls", "url"):
        value = _eval(kw[key], consts) if key in kw else None
        for url in ([value] if isinstance(value, str) else value or []):
            m = _GITHUB_ARCHIVE.match(url)
            if m:
                return m.group(1)
    return None


def _lone_commit_constant(consts: dict[str, Value], where: str) -> tuple[str, str]:
    """No rule names a commit: accept exactly one ``*COMMIT = "<sha>"`` constant."""
    found = [(v, k) for k, v in consts.items() if k.endswith("COMMIT") and isinstance(v, str)]
    if len(found) == 1:
        return found[0]
    raise UserError(f"{where}: no pinned commit found (expected a repository rule with commit = ... or "
                    "an archive URL built from a commit, or one *_COMMIT = \"<sha>\")")
