"""deps.yaml and version_info.json: parse, validate, save.

Both files load into frozen dataclasses. Every problem is a ``ConfigError``
naming the file, the key, the bad value and what was expected. Saving changes
only the values that moved, in place in the original text, so comments, order
and layout survive and an unchanged round trip is byte-identical; the write is
atomic (temp file + rename) and re-read before it replaces the original.
"""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping

import yaml

from release.core import bounded, redact, regular
from release.core.errors import ConfigError, UserError
from release.core.project_root import DEPS_FILE as DEPS_FILE
from release.core.project_root import VERSION_FILE as VERSION_FILE
from release.core.project_root import find_root as find_root
from release.core.rolls import (  # noqa: F401 (re-exported: the roll policies are deps.yaml's)
    DEFAULT_BRANCHES,
    DEFAULT_MAX_WALK,
    REQUIRE_GREEN,
    Roll,
    RollHead,
    RollManual,
    RollSame,
    RollVia,
    check_graph,
    parse_roll,
    source_of,
)
from release.core.rolls import exact_keys as _exact_keys
from release.core.versions import NIGHTLY_SCHEMES, VersionError, line_problem, parse_next

MAX_CONFIG_BYTES = 1 << 20  # deps.yaml and version_info.json are a few kB; a bigger one is not ours
REQUIRED_DEPS = ("plugin", "jax", "xla")
DEP_KEYS = ("url", "branch", "commit", "roll")
# Written by ``release bump`` for via deps when the source file pins them (kept for the revision map);
# ``line`` only on the jax dep: ``_version`` of ``jax/version.py`` at its commit (the release line).
PIN_KEYS = ("archive_sha256", "patches", "line")
LINE_DEP = "jax"  # the dep whose version.py names the release line
LINE_FILE = "jax/version.py"
HOLD_KEYS = ("commit", "reason")
VERSION_KEYS = ("version", "rocm_version", "nightly_scheme")
# What the line builds, optional (an older file has neither): every ROCm version it builds, one a
# major (``rocm_version`` among them), and the Pythons its plugin wheels are built for.
BUILD_KEYS = ("rocm_versions", "pythons")

# Versions, shas, names and URLs are ASCII by rule (a look-alike digit such as U+0661 is not a
# digit here) and match whole (\Z, not $: "$" also matches before a final newline).
_SHA = re.compile(r"^[0-9a-f]{40}\Z", re.ASCII)
# at most 9 digits a part (a 5,000-digit part is past what Python turns into an int)
_SEMVER = re.compile(r"^(0|[1-9][0-9]{0,8})\.(0|[1-9][0-9]{0,8})\.(0|[1-9][0-9]{0,8})\Z", re.ASCII)
_BRANCH = re.compile(r"^[A-Za-z0-9._/-]+\Z", re.ASCII)
_SHA256 = re.compile(r"^[0-9a-f]{64}\Z", re.ASCII)
_URL = re.compile(r"^(https?://|file://|git://|ssh://|[\w.-]+@[\w.-]+:|/)[\x21-\x7e]+\Z", re.ASCII)


def is_branch_name(name: object) -> bool:
    """A branch name deps.yaml may hold, and so one a bump may write: ASCII letters, digits and
    ``._/-`` (a look-alike digit is no digit), not an option (``-``), none of the forms git
    refuses (``..``, ``//``, a part starting with ``.``, ending in ``/``, ``.`` or ``.lock``),
    at most 255 characters. Branch names from upstream are checked by it where they enter."""
    return isinstance(name, str) and len(name) <= 255 and bool(_BRANCH.match(name)) \
        and not name.startswith("-") and ".." not in name and "//" not in name \
        and not name.endswith(("/", ".", ".lock")) and not any(p.startswith(".") for p in name.split("/"))


@dataclasses.dataclass(frozen=True)
class Hold:
    """``hold: {commit, reason}``: a head dep's roll stops before ``commit`` until removed."""

    commit: str
    reason: str


@dataclasses.dataclass(frozen=True)
class Dep:
    """One deps.yaml entry: where a source comes from, the commit it is pinned to and how it rolls."""

    name: str
    url: str
    branch: str
    commit: str
    roll: Roll
    archive_sha256: str | None = None  # the source's http_archive sha256, when it pins one
    patches: tuple[str, ...] = ()  # patch files the source applies on top of the commit
    hold: Hold | None = None  # never roll to this commit or past it
    line: str | None = None  # LINE_DEP only: the X.Y.Z of LINE_FILE at ``commit``, as bump read it

    @property
    def short(self) -> str:
        return self.commit[:7]


@dataclasses.dataclass(frozen=True)
class Deps:
    """The pins, in file order."""

    path: Path
    items: tuple[Dep, ...]

    def __getitem__(self, name: str) -> Dep:
        for dep in self.items:
            if dep.name == name:
                return dep
        raise KeyError(name)

    def __iter__(self) -> Iterator[Dep]:
        return iter(self.items)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(d.name for d in self.items)

    def resolution_order(self) -> tuple[Dep, ...]:
        """Deps ordered so a ``via`` or ``same`` dep comes after the dep it reads."""
        done: list[str] = []
        pending = list(self.items)
        while pending:
            for dep in pending:
                if source_of(dep.roll) in (None, *done):
                    done.append(dep.name)
                    pending.remove(dep)
                    break
            else:  # validated at load time, so this is a bug
                raise AssertionError("cycle in via or same deps")
        return tuple(self[n] for n in done)

    def with_commits(self, commits: Mapping[str, str]) -> Deps:
        """A copy with some commits moved."""
        return self.with_pins({name: {"commit": sha} for name, sha in commits.items()})

    def with_pins(self, pins: Mapping[str, Mapping[str, Any]]) -> Deps:
        """A copy with some of ``commit``, ``branch`` and the PIN_KEYS changed per dep (each value
        of its field's type: the names are checked here, the values where they are built)."""
        for name, fields in pins.items():
            self[name]
            unknown = set(fields) - {"commit", "branch", *PIN_KEYS}
            if unknown:
                raise AssertionError(f"not a pin field: {sorted(unknown)}")
        return dataclasses.replace(self, items=tuple(
            dataclasses.replace(d, **pins.get(d.name, {})) for d in self.items))


@dataclasses.dataclass(frozen=True)
class VersionInfo:
    """version_info.json: the line's next official version and the ROCm and Pythons it builds for."""

    path: Path
    version: str  # the next official version: X.Y.Z (line not released yet) or X.Y.Z.postN
    rocm_version: str
    nightly_scheme: str
    rocm_versions: tuple[str, ...] = ()  # every ROCm version the line builds; () = (rocm_version,)
    pythons: tuple[str, ...] | None = None  # the line's Pythons; None = the layout's default

    @property
    def line(self) -> str:
        """The ``X.Y.Z`` release line: jax's (``Project.line_problem`` checks it)."""
        return parse_next(self.version)[0]

    @property
    def rocm_major(self) -> int:
        """The N in ``jax-rocmN-*`` of ``rocm_version`` (the line's first major)."""
        return int(self.rocm_version.split(".")[0])

    @property
    def rocms(self) -> tuple[str, ...]:
        """Every ROCm version the line builds, one a major, ``rocm_version`` first."""
        return self.rocm_versions or (self.rocm_version,)

    @property
    def rocm_majors(self) -> tuple[int, ...]:
        """The N of every ``jax-rocmN-*`` pair the line builds, in ``rocms`` order."""
        return tuple(int(v.split(".")[0]) for v in self.rocms)


@dataclasses.dataclass(frozen=True)
class Project:
    """The two files of one checkout of this repository."""

    root: Path
    deps: Deps
    version_info: VersionInfo

    @property
    def jax_line(self) -> str | None:
        """jax's line at the jax pin, as deps.yaml records it (None: not recorded)."""
        return self.deps[LINE_DEP].line

    def line_problem(self) -> str | None:
        """Why version_info.json's version is not on the jax pin's line (None when it is, or
        when deps.yaml records no line: ``release bump`` records it)."""
        return line_problem(self.version_info.version, self.jax_line, self.deps[LINE_DEP].commit)


# ---------------------------------------------------------------- finding


def load_project(root: Path | None = None, *, search: bool = True) -> Project:
    """Load both files from ``root`` (or from the nearest root above the current directory)."""
    if root is not None and not search:
        base = Path(root)
    elif root is not None:
        base = Path(root)
        if not (base / DEPS_FILE).is_file() or not (base / VERSION_FILE).is_file():
            raise UserError(f"--root {base}: expected a directory holding {DEPS_FILE} and "
                            f"{VERSION_FILE}")
    else:
        base = find_root()
    return Project(base.resolve(), load_deps(base / DEPS_FILE), load_version_info(base / VERSION_FILE))


# ---------------------------------------------------------------- deps.yaml


def _read_text(path: Path) -> str:
    try:
        return regular.read_text(path, MAX_CONFIG_BYTES)
    except FileNotFoundError:
        raise ConfigError(path, None, "no such file", "an existing file") from None
    except regular.NotRegular as exc:
        raise ConfigError(path, None, f"a file that {exc.reason.partition('; ')[0]}",
                          f"a regular file of at most {MAX_CONFIG_BYTES:,} bytes") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(path, None, f"unreadable ({exc.__class__.__name__})",
                          "a readable UTF-8 file") from None


# Texts composed this process, with their node trees (read, never changed): a bump reads deps.yaml,
# then renders and checks its save against the same text; PyYAML's pure-Python composer is most of
# the CPU a save costs (issue 36 item 4: the last steps of a cold bump's wall).
_COMPOSED: dict[str, yaml.Node | None] = {}


def _compose_yaml(path: Path, text: str) -> yaml.Node | None:
    """The node tree of a config text: plain YAML data within bounds (``release.core.bounded``)."""
    if text in _COMPOSED:
        return _COMPOSED[text]
    try:
        node = bounded.yaml_compose(text)
    except bounded.DuplicateKey as exc:
        raise ConfigError(path, exc.key, "a second value", "each key once") from None
    except bounded.Unparseable as exc:
        raise ConfigError(path, exc.where, exc.reason, "well-formed YAML of plain data") from None
    if len(_COMPOSED) >= 8:
        _COMPOSED.clear()
    _COMPOSED[text] = node
    return node


def parse_deps(path: Path, text: str) -> Deps:
    """Validate the text of deps.yaml into ``Deps``."""
    node = _compose_yaml(path, text)
    try:
        data = bounded.yaml_data(node)
    except bounded.Unparseable as exc:
        raise ConfigError(path, exc.where, exc.reason, "well-formed YAML of plain data") from None
    if not isinstance(data, dict):
        raise ConfigError(path, None, _kind(data), "a mapping with the key 'deps'")
    _exact_keys(path, "", data, ("deps",), ("deps",))
    deps = data["deps"]
    if not isinstance(deps, dict):
        raise ConfigError(path, "deps", _kind(deps), f"a mapping of {', '.join(REQUIRED_DEPS)}")
    _exact_keys(path, "deps", deps, REQUIRED_DEPS, REQUIRED_DEPS)
    items = tuple(_parse_dep(path, name, deps[name]) for name in deps)
    check_graph(path, items)
    return Deps(Path(path), items)


def _parse_dep(path: Path, name: str, raw: object) -> Dep:
    where = f"deps.{name}"
    if not isinstance(raw, dict):
        raise ConfigError(path, where, _kind(raw), "a mapping with " + ", ".join(DEP_KEYS))
    _exact_keys(path, where, raw, DEP_KEYS, DEP_KEYS + PIN_KEYS + ("hold",))
    url = raw["url"]
    if not isinstance(url, str) or not _URL.match(url):
        raise ConfigError(path, f"{where}.url", url, "a git URL (https://, file://, git://, ssh)")
    if "?" in url or "#" in url:  # a token there would be shown and stored: user:token@ is masked
        raise ConfigError(path, f"{where}.url", redact.display_url(url), "a git URL without a query or "
                          "fragment (credentials go in https://USER:TOKEN@HOST/...)")
    branch = raw["branch"]
    if not is_branch_name(branch):
        raise ConfigError(path, f"{where}.branch", branch, "a branch name")
    commit = raw["commit"]
    if not isinstance(commit, str) or not _SHA.match(commit):
        raise ConfigError(path, f"{where}.commit", commit, "a full commit SHA (40 lowercase hex digits)")
    sha256 = raw.get("archive_sha256")
    if sha256 is not None and not (isinstance(sha256, str) and _SHA256.match(sha256)):
        raise ConfigError(path, f"{where}.archive_sha256", sha256, "a sha256 (64 lowercase hex digits)")
    patches = raw.get("patches", [])
    if not isinstance(patches, list) or not all(isinstance(p, str) and p for p in patches):
        raise ConfigError(path, f"{where}.patches", patches, "a list of patch file labels")
    line = raw.get("line")
    if line is not None and name != LINE_DEP:
        raise ConfigError(path, f"{where}.line", line, f"no line here: only deps.{LINE_DEP} records "
                          f"one ({LINE_FILE}'s _version at its commit)")
    if line is not None and not (isinstance(line, str) and _SEMVER.match(line)):
        raise ConfigError(path, f"{where}.line", line, "X.Y.Z in quotes, as jax/version.py says it")
    roll = parse_roll(path, f"{where}.roll", raw["roll"])
    hold = _parse_hold(path, f"{where}.hold", raw["hold"], roll) if "hold" in raw else None
    return Dep(name, url, branch, commit, roll, sha256, tuple(patches), hold, line)


def _parse_hold(path: Path, where: str, raw: object, roll: Roll) -> Hold:
    if not isinstance(raw, dict):
        raise ConfigError(path, where, raw, "a mapping {commit: <sha>, reason: \"...\"}")
    _exact_keys(path, where, raw, HOLD_KEYS, HOLD_KEYS)
    if not isinstance(raw["commit"], str) or not _SHA.match(raw["commit"]):
        raise ConfigError(path, f"{where}.commit", raw["commit"], "a full commit SHA (40 lowercase hex digits)")
    if not isinstance(raw["reason"], str) or not raw["reason"].strip():
        raise ConfigError(path, f"{where}.reason", raw["reason"], "a non-empty string saying why")
    if not isinstance(roll, RollHead):
        raise ConfigError(path, where, f"a hold on a '{roll}' dep", "holds only on deps that roll by "
                          "head (hold a via dep's source commit instead)")
    return Hold(raw["commit"], raw["reason"].strip())


def load_deps(path: Path) -> Deps:
    return parse_deps(Path(path), _read_text(path))


def render_deps(deps: Deps, text: str) -> str:
    """The text of deps.yaml with only the moved values replaced in place: ``commit`` and
    ``branch`` where they are; the PIN_KEYS rewritten as one line each after ``commit``
    (added, replaced or dropped)."""
    node = _compose_yaml(deps.path, text)
    old = parse_deps(deps.path, text)
    deps_node = _mapping_at(node, "deps")
    edits = []  # (start, end, replacement), non-overlapping
    for dep in deps:
        was = old[dep.name]
        dep_node = _mapping_at(deps_node, dep.name)
        for key in ("commit", "branch"):
            if getattr(dep, key) != getattr(was, key):
                scalar = _mapping_get(dep_node, key)
                start, end = scalar.start_mark.index, scalar.end_mark.index
                edits.append((start, end, text[start:end].replace(getattr(was, key), getattr(dep, key))))
        if all(getattr(dep, k) == getattr(was, k) for k in PIN_KEYS):
            continue
        commit_key = next(k for k, _ in dep_node.value if k.value == "commit")
        commit_end = _mapping_get(dep_node, "commit").end_mark
        edits += _pin_removals(text, dep_node)
        if dep_node.flow_style:
            at, piece = commit_end.index, "".join(f", {k}: {v}" for k, v in _pin_lines(dep))
        else:
            indent = " " * commit_key.start_mark.column
            at = _line_span(text, commit_key.start_mark, commit_end)[1]
            piece = "".join(f"{indent}{k}: {v}\n" for k, v in _pin_lines(dep))
            if at == len(text) and not text.endswith("\n") and piece:
                piece = "\n" + piece  # the commit is the file's last line, without a newline
        edits.append((at, at, piece))
    for start, end, piece in sorted(edits, key=lambda e: (e[0], e[1]), reverse=True):
        text = text[:start] + piece + text[end:]
    return text


def _pin_removals(text: str, dep_node: yaml.MappingNode) -> list[tuple[int, int, str]]:
    """Edits that drop a dep's PIN_KEYS pairs, whatever style they are written in: a block
    pair's whole lines to the end of its value (a block list's last item, not the next key),
    keeping the comment lines among them; in a flow mapping ``, key: value`` (or a leading
    run of pins up to the first other key), so no two edits overlap."""
    pairs = dep_node.value
    edits = []
    if not dep_node.flow_style:
        for key_node, value_node in pairs:
            if key_node.value in PIN_KEYS:
                start, end = _line_span(text, key_node.start_mark, _last_mark(value_node))
                kept = "".join(line for line in text[start:end].splitlines(keepends=True)
                               if line.lstrip().startswith("#"))
                edits.append((start, end, kept))
        return edits
    lead = next(i for i, (k, _) in enumerate(pairs) if k.value not in PIN_KEYS)  # "commit" at least
    if lead:
        edits.append((pairs[0][0].start_mark.index, pairs[lead][0].start_mark.index, ""))
    for i in range(lead + 1, len(pairs)):
        if pairs[i][0].value in PIN_KEYS:  # "{..., key: value}": from the end of the previous value
            edits.append((pairs[i - 1][1].end_mark.index, pairs[i][1].end_mark.index, ""))
    return edits


def render_hold(path: Path, text: str, name: str, hold: Hold | None) -> str:
    """The text of deps.yaml with dep ``name``'s ``hold:`` line added, replaced or removed
    (one line after the dep's ``roll``; comments and everything else kept)."""
    node = _compose_yaml(path, text)
    dep_node = _mapping_at(_mapping_at(node, "deps"), name)
    if dep_node.flow_style:
        raise UserError(f"{path}: deps.{name} is written as a flow mapping {{...}}; write it as a "
                        "block mapping to add a hold")
    pairs = {k.value: (k, v) for k, v in dep_node.value}
    piece = ""
    if hold is not None:
        indent = " " * pairs["roll"][0].start_mark.column
        piece = (f"{indent}hold: {{commit: {hold.commit}, reason: "
                 f"{json.dumps(' '.join(hold.reason.split()))}}}\n")
    if "hold" in pairs:
        start, end = _line_span(text, pairs["hold"][0].start_mark, _last_mark(pairs["hold"][1]))
    else:
        start = end = _line_span(text, pairs["roll"][0].start_mark, _last_mark(pairs["roll"][1]))[1]
    new = text[:start] + piece + text[end:]
    if parse_deps(path, new)[name].hold != (hold and Hold(hold.commit, " ".join(hold.reason.split()))):
        raise AssertionError("deps.yaml hold did not round-trip")
    return new


def _last_mark(node: yaml.Node) -> yaml.Mark:
    """Where a value's own text ends (a block collection's end mark is the next key's start)."""
    if isinstance(node, (yaml.MappingNode, yaml.SequenceNode)) and not node.flow_style and node.value:
        last = node.value[-1]
        return _last_mark(last[1] if isinstance(node, yaml.MappingNode) else last)
    return node.end_mark


def _pin_lines(dep: Dep) -> Iterator[tuple[str, str]]:
    if dep.archive_sha256:
        yield "archive_sha256", json.dumps(dep.archive_sha256)  # quoted: digits alone read as a number
    if dep.patches:
        yield "patches", json.dumps(list(dep.patches))  # a YAML flow sequence on one line
    if dep.line:
        yield "line", json.dumps(dep.line)  # quoted: 0.10 alone would read as a number


def _line_span(text: str, start: yaml.Mark, end: yaml.Mark) -> tuple[int, int]:
    """From the start of ``start``'s line to just after the line holding ``end``."""
    first = text.rfind("\n", 0, start.index) + 1
    last = end.index if end.column > 0 else max(end.index - 1, start.index)
    stop = text.find("\n", last)
    return first, len(text) if stop < 0 else stop + 1


def save_deps(deps: Deps) -> bool:
    """Write moved commits into ``deps.path`` atomically. Returns whether the file changed."""
    text = _read_text(deps.path)
    new_text = render_deps(deps, text)
    if new_text == text:
        return False
    if parse_deps(deps.path, new_text) != deps:
        raise UserError(f"{deps.path}: only pins (commit, branch, {', '.join(PIN_KEYS)}) can be changed by a "
                        "save; edit other keys by hand")
    from release.core.atomic import atomic_write  # only a command that writes loads tempfile
    atomic_write(deps.path, new_text)
    return True


def _mapping_get(node: yaml.Node | None, key: str) -> yaml.Node:
    """The value node of ``key`` in a mapping node."""
    if not isinstance(node, yaml.MappingNode):  # the text parsed as valid deps first: a bug
        raise AssertionError(f"not a mapping where {key} was looked up")
    for key_node, value_node in node.value:
        if key_node.value == key:
            return value_node
    raise KeyError(key)


def _mapping_at(node: yaml.Node | None, key: str) -> yaml.MappingNode:
    """The mapping node under ``key`` (a dep, the deps) in a document already parsed as valid deps."""
    value = _mapping_get(node, key)
    if not isinstance(value, yaml.MappingNode):
        raise AssertionError(f"{key} is not a mapping")
    return value


# ---------------------------------------------------------------- version_info.json


def parse_version_info(path: Path, text: str) -> VersionInfo:
    try:
        data = bounded.json_loads(text, object_pairs_hook=_no_duplicate_pairs(path))
    except bounded.Unparseable as exc:
        raise ConfigError(path, exc.where, exc.reason, "a JSON object") from None
    if not isinstance(data, dict):
        raise ConfigError(path, None, _kind(data), "a JSON object with " + ", ".join(VERSION_KEYS))
    _exact_keys(path, "", data, VERSION_KEYS, VERSION_KEYS + BUILD_KEYS)
    try:
        parse_next(data["version"])
    except VersionError:
        raise ConfigError(path, "version", data["version"], "X.Y.Z, or X.Y.Z.postN once the line is "
                          "released (numbers without leading zeros, N >= 1)") from None
    rocm = data["rocm_version"]
    if not isinstance(rocm, str) or not _SEMVER.match(rocm) or rocm.startswith("0."):
        raise ConfigError(path, "rocm_version", rocm, "A.B.C with a major of 1 or more, such as 7.2.0")
    if data["nightly_scheme"] not in NIGHTLY_SCHEMES:
        raise ConfigError(path, "nightly_scheme", data["nightly_scheme"],
                          "'date' (.devYYYYMMDD) or 'date-build' (.devYYYYMMDDBBB)")
    return VersionInfo(Path(path), data["version"], rocm, data["nightly_scheme"],
                       _parse_rocm_versions(path, data.get("rocm_versions"), rocm),
                       _parse_pythons(path, data.get("pythons")))


_PYTHON = re.compile(r"^3\.(0|[1-9][0-9]?)\Z", re.ASCII)


def _parse_rocm_versions(path: Path, raw: object, rocm: str) -> tuple[str, ...]:
    """``rocm_versions``: a list of ``A.B.C``, one a major, holding ``rocm_version`` (which old
    readers take as the line's ROCm); returned with ``rocm_version`` first, the rest as written."""
    if raw is None:
        return ()
    expected = f'a list of ROCm versions A.B.C, one a major, among them rocm_version {rocm}, such as ["{rocm}"]'
    if not isinstance(raw, list) or not raw:
        raise ConfigError(path, "rocm_versions", raw, expected)
    majors: dict[str, str] = {}
    for i, item in enumerate(raw):
        if not isinstance(item, str) or not _SEMVER.match(item) or item.startswith("0."):
            raise ConfigError(path, f"rocm_versions[{i}]", item, "A.B.C with a major of 1 or more, such as 7.2.0")
        major = item.split(".")[0]
        if major in majors:
            raise ConfigError(path, f"rocm_versions[{i}]", item, f"one ROCm version a major ({majors[major]} "
                              f"is ROCm {major} already): jax-rocm{major}-* is one pair of wheels")
        majors[major] = item
    if rocm not in raw:
        raise ConfigError(path, "rocm_versions", raw, f"a list holding rocm_version {rocm} (the ROCm "
                          "version readers of rocm_version take)")
    return (rocm, *(v for v in raw if v != rocm))


def _parse_pythons(path: Path, raw: object) -> tuple[str, ...] | None:
    """``pythons``: distinct ``3.X`` strings, in ascending order (the lowest is Requires-Python)."""
    if raw is None:
        return None
    if not isinstance(raw, list) or not raw:
        raise ConfigError(path, "pythons", raw, 'a list of Pythons 3.X, such as ["3.12", "3.13"]')
    for i, item in enumerate(raw):
        if not isinstance(item, str) or not _PYTHON.match(item):
            raise ConfigError(path, f"pythons[{i}]", item, 'a Python 3.X in quotes, such as "3.12"')
    minors = [int(p.split(".")[1]) for p in raw]
    if minors != sorted(set(minors)):
        raise ConfigError(path, "pythons", raw, "each Python once, in ascending order")
    return tuple(raw)


def load_version_info(path: Path) -> VersionInfo:
    return parse_version_info(Path(path), _read_text(path))


def render_version_info(info: VersionInfo, text: str) -> str:
    """The text of version_info.json with only the changed values replaced in place."""
    old = parse_version_info(info.path, text)
    for key in VERSION_KEYS:
        before, after = getattr(old, key), getattr(info, key)
        if before != after:
            pattern = re.compile(r'("%s"\s*:\s*")%s(")' % (re.escape(key), re.escape(before)))
            def swap(match: re.Match[str], new: str = after) -> str:
                return match.group(1) + new + match.group(2)
            text, count = pattern.subn(swap, text)
            if count != 1:
                raise UserError(f"{info.path}: cannot find \"{key}\": \"{before}\" to replace")
    if parse_version_info(info.path, text) != info:
        raise AssertionError("version_info.json did not round-trip")
    return text


def save_version_info(info: VersionInfo) -> bool:
    """Write changed values into ``info.path`` in place, atomically. Returns whether it changed."""
    text = _read_text(info.path)
    new_text = render_version_info(info, text)
    if new_text == text:
        return False
    from release.core.atomic import atomic_write
    atomic_write(info.path, new_text)
    return True


# ---------------------------------------------------------------- helpers



def _no_duplicate_pairs(path: Path) -> Callable[[list[tuple[str, Any]]], dict[str, Any]]:
    def hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        seen: dict[str, Any] = {}
        for key, value in pairs:
            if key in seen:
                raise ConfigError(path, key, "a second value", "each key once")
            seen[key] = value
        return seen
    return hook


def _kind(value: object) -> str:
    if value is None:
        return "an empty document"
    return f"a {type(value).__name__} ({value!r:.40})"
