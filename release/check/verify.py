"""Named checks over a built wheel: findings (error or warning), never a change.

The wheel is read once by ``release.core.scan`` (every member inflated and hashed in one
streaming pass, ELF facts and small text members kept); the checks here are pure
functions of that ``Scan``, so they are cheap to test and cannot disagree about what
the wheel holds. ``fold`` and the summaries turn findings into the few lines a person
reads.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import re
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Sequence

from packaging.tags import parse_tag
from packaging.utils import canonicalize_name

from release.check.findings import ERROR, WARNING, Finding, Options
from release.check.loadable import check_glibc, check_needed, check_symbols
from release.check.runpath import check_runpath, native
from release.core import naming, regular
from release.core.errors import UserError
from release.core.naming import Identity
from release.core.revisions import LEGACY_KEYS, RevisionMap, is_revision
from release.core.scan import Headers, Member, Progress, Scan, module_constants, scan_wheel

CHECKS = ("zip", "size", "record", "paths", "layout", "names", "purelib", "glibc", "symbols",
          "runpath", "needed", "version", "revisions", "requires", "secrets", "pair")
_SHA = re.compile(r"^[0-9a-f]{40}\Z", re.ASCII)
DEFAULTS = Options()  # no RUNPATH entry required, no revision map, the ROCm version the wheel names


@dataclasses.dataclass
class Report:
    wheel: Path
    findings: list[Finding]
    skipped: dict[str, str]  # check -> why it does not apply

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == ERROR]

    @property
    def ok(self) -> bool:
        return not self.errors

    def status(self, check: str) -> str:
        if check in self.skipped:
            return "n/a"
        mine = [f for f in self.findings if f.check == check]
        if any(f.severity == ERROR for f in mine):
            return ERROR
        return WARNING if mine else "ok"

    def to_json(self) -> dict[str, Any]:
        return {
            "wheel": str(self.wheel),
            "ok": self.ok,
            "checks": {c: self.status(c) for c in CHECKS},
            "skipped": self.skipped,
            "findings": [f.to_json() for f in self.findings],
        }


# ---------------------------------------------------------------- what the wheel says


def _package_dirs(ident: Identity, scan: Scan) -> tuple[str, ...]:
    """Top-level directories the payload may live in: the jax-rocm packages, or what another
    wheel's top_level.txt names."""
    if ident.kind == "pjrt" and ident.rocm_major is not None:
        return (naming.pjrt_package(ident.rocm_major),)
    if ident.kind == "plugin" and ident.rocm_major is not None:
        return (naming.plugin_package(ident.rocm_major),)
    dist_info = _dist_info_dir(scan)
    top = scan.get(f"{dist_info}/top_level.txt") if dist_info else None
    if top is not None and top.text is not None:
        return tuple(line.strip() for line in top.text.decode("utf-8", "replace").splitlines()
                     if line.strip())
    return ()


def _dist_info_dir(scan: Scan) -> str | None:
    dirs = sorted({m.name.split("/", 1)[0] for m in scan.members
                   if "/" in m.name and m.name.split("/", 1)[0].endswith(".dist-info")})
    return dirs[0] if len(dirs) == 1 else None


def _headers(member: Member | None) -> Headers | None:
    if member is None or member.text is None:
        return None
    return Headers(member.text.decode("utf-8", "replace"))


def _payload(scan: Scan, ident: Identity, basename: str) -> list[Member]:
    dirs = _package_dirs(ident, scan)
    return [m for m in scan.files() if m.name.rsplit("/", 1)[-1] == basename
            and (not dirs or any(m.name.startswith(d + "/") for d in dirs))]


def _kept(scan: Scan, ident: Identity, basename: str) -> list[tuple[Member, bytes]]:
    """The payload's ``basename`` files whose text the scan kept, with that text."""
    return [(m, m.text) for m in _payload(scan, ident, basename) if m.text is not None]


# ---------------------------------------------------------------- the checks


def check_zip(scan: Scan, _ident: Identity, _opts: Options) -> Iterator[Finding]:
    for member, problem in scan.zip_errors:
        yield Finding("zip", ERROR, problem, member)


def check_size(scan: Scan, _ident: Identity, _opts: Options) -> Iterator[Finding]:
    for member, problem in scan.oversize:
        yield Finding("size", ERROR, problem, member)


def check_record(scan: Scan, _ident: Identity, _opts: Options) -> Iterator[Finding]:
    dist_info = _dist_info_dir(scan)
    record = scan.get(f"{dist_info}/RECORD") if dist_info else None
    if record is None or record.text is None:
        yield Finding("record", ERROR, "no RECORD in the dist-info directory")
        return
    rows: dict[str, tuple[str, str]] = {}
    try:
        for row in csv.reader(io.StringIO(record.text.decode("utf-8"))):
            if not row:
                continue
            if len(row) != 3:
                yield Finding("record", ERROR, f"RECORD row {row!r} has {len(row)} fields; "
                              "expected path,hash,size")
                continue
            if row[0] in rows:
                yield Finding("record", ERROR, "listed twice in RECORD", row[0])
            rows[row[0]] = (row[1], row[2])
    except (UnicodeDecodeError, csv.Error) as exc:
        yield Finding("record", ERROR, f"RECORD is not UTF-8 CSV ({exc})")
        return
    for member in scan.files():
        if member.name not in rows:
            yield Finding("record", ERROR, "in the archive but not in RECORD", member.name)
            continue
        hash_field, size_field = rows.pop(member.name)
        if member.name == record.name:
            if hash_field or size_field:
                yield Finding("record", WARNING, "RECORD lists a hash for itself", member.name)
            continue
        if not hash_field.startswith("sha256="):
            yield Finding("record", ERROR, f"hash {hash_field!r} is not sha256=...", member.name)
        elif member.sha256 is not None and hash_field[7:] != member.sha256:
            yield Finding("record", ERROR, f"RECORD says {hash_field}, the content is "
                          f"sha256={member.sha256}", member.name)
        if size_field != str(member.read_size if member.read_size is not None else member.size):
            yield Finding("record", ERROR, f"RECORD says size {size_field!r}, the content is "
                          f"{member.read_size if member.read_size is not None else member.size} "
                          "bytes", member.name)
    for missing in rows:
        yield Finding("record", ERROR, "in RECORD but not in the archive", missing)


def check_paths(scan: Scan, _ident: Identity, _opts: Options) -> Iterator[Finding]:
    for member in scan.members:
        name = member.name
        parts = name.split("/")
        if name.startswith("/") or re.match(r"^[A-Za-z]:", name):
            yield Finding("paths", ERROR, "absolute path", name)
        if ".." in parts:
            yield Finding("paths", ERROR, "path contains '..'", name)
        if "\\" in name:
            yield Finding("paths", ERROR, "path contains a backslash", name)


def check_secrets(scan: Scan, _ident: Identity, _opts: Options) -> Iterator[Finding]:
    """No text member holds a secret-shaped string (a published wheel leaks it for good); the
    finding names the member and the kind of secret, never the secret."""
    for member in scan.files():
        if member.secret is not None:
            yield Finding("secrets", ERROR, f"holds what looks like {member.secret}; a wheel must "
                          "never carry a credential (revoke it if it is real)", member.name)


def check_layout(scan: Scan, ident: Identity, _opts: Options) -> Iterator[Finding]:
    dist_infos = {m.name.split("/", 1)[0] for m in scan.members
                  if m.name.split("/", 1)[0].endswith(".dist-info")}
    if len(dist_infos) > 1:
        yield Finding("layout", ERROR, f"{len(dist_infos)} dist-info directories: "
                      f"{', '.join(sorted(dist_infos))}")
    dirs = _package_dirs(ident, scan)
    for member in scan.files():
        top = member.name.split("/", 1)[0]
        if top in dist_infos:
            continue
        if top.endswith(".data"):
            yield Finding("layout", ERROR, "outside the package directories (a .data directory "
                          "installs files elsewhere)", member.name)
        elif dirs and not any(member.name.startswith(d + "/") for d in dirs):
            if ident.kind == "pjrt" and member.name == "jax_plugins/__init__.py":
                yield Finding("layout", ERROR, "jax_plugins is a namespace package; an "
                              "__init__.py there shadows other plugins", member.name)
            else:
                yield Finding("layout", ERROR, f"outside the package directories "
                              f"({', '.join(d + '/' for d in dirs)}) and the dist-info",
                              member.name)


def check_names(scan: Scan, ident: Identity, _opts: Options) -> Iterator[Finding]:
    if ident.name_error or ident.dist is None:  # Identity sets one or the other
        yield Finding("names", ERROR, f"file name: {ident.name_error}")
        return
    dist_info = _dist_info_dir(scan)
    if dist_info is None:
        yield Finding("names", ERROR, "no single .dist-info directory")
        return
    expected_dir = f"{canonicalize_name(ident.dist).replace('-', '_')}-{ident.version}.dist-info"
    di_name, _, di_version = dist_info[:-len(".dist-info")].rpartition("-")
    if canonicalize_name(di_name) != ident.dist or di_version != ident.version:
        yield Finding("names", ERROR, f"dist-info directory {dist_info} does not match the file "
                      f"name (expected {expected_dir})")
    meta = _headers(scan.get(f"{dist_info}/METADATA"))
    if meta is None:
        yield Finding("names", ERROR, "no METADATA", f"{dist_info}/METADATA")
    else:
        name, version = meta.get("Name"), meta.get("Version")
        if name is None or canonicalize_name(name) != ident.dist:
            yield Finding("names", ERROR, f"METADATA Name {name!r} does not match the file name "
                          f"({ident.dist})")
        if version != ident.version:
            yield Finding("names", ERROR, f"METADATA Version {version!r} does not match the file "
                          f"name ({ident.version})")
    wheel = _headers(scan.get(f"{dist_info}/WHEEL"))
    if wheel is None:
        yield Finding("names", ERROR, "no WHEEL file", f"{dist_info}/WHEEL")
        return
    tags = set()
    for tag in wheel.get_all("Tag") or ():
        tags |= {str(t) for t in parse_tag(tag)}
    if tags != set(ident.tags):
        yield Finding("names", ERROR, f"WHEEL Tag {sorted(tags)} does not match the file name's "
                      f"tags {sorted(ident.tags)}")


def check_purelib(scan: Scan, _ident: Identity, _opts: Options) -> Iterator[Finding]:
    dist_info = _dist_info_dir(scan)
    wheel = _headers(scan.get(f"{dist_info}/WHEEL")) if dist_info else None
    if wheel is None:
        return  # reported by the names check
    purelib = (wheel.get("Root-Is-Purelib") or "").strip().lower()
    shared = native(scan)
    if shared and purelib != "false":
        yield Finding("purelib", ERROR, f"Root-Is-Purelib is {purelib or 'missing'} but the wheel "
                      f"carries native libraries ({shared[0].name}); it must be false",
                      f"{dist_info}/WHEEL")


def _release_version(text: bytes) -> tuple[bool, object]:
    try:
        values = module_constants(text.decode("utf-8"))
    except (SyntaxError, UnicodeDecodeError, ValueError):
        return False, None
    return "_release_version" in values, values.get("_release_version")


def check_version(scan: Scan, ident: Identity, _opts: Options) -> Iterator[Finding]:
    files = _kept(scan, ident, "version.py")
    if not files:
        if ident.kind:
            yield Finding("version", ERROR, "no version.py in the package")
        return
    for member, text in files:
        found, value = _release_version(text)
        if not found:
            yield Finding("version", ERROR, "no _release_version assignment", member.name)
        elif value is None:
            yield Finding("version", ERROR, f"_release_version is None, so __version__ is computed "
                          f"at run time (<base>.dev<today>) instead of {ident.version}", member.name)
        elif value != ident.version:
            yield Finding("version", ERROR, f"_release_version is {value!r}; the wheel is "
                          f"{ident.version}", member.name)


def check_revisions(scan: Scan, ident: Identity, opts: Options) -> Iterator[Finding]:
    if opts.revisions is not None:
        yield from _git_hash_findings(scan, ident, opts.revisions)
    files = _kept(scan, ident, "commit_info.py")
    if not files:
        if ident.kind or opts.revisions is not None:
            yield Finding("revisions", ERROR, "no revision map (commit_info.py) in the package")
        return
    for member, text in files:
        try:
            values = module_constants(text.decode("utf-8"))
        except (SyntaxError, UnicodeDecodeError, ValueError) as exc:
            yield Finding("revisions", ERROR, f"not valid Python ({exc.__class__.__name__})",
                          member.name)
            continue
        yield from _revision_findings(values, ident, opts.revisions, member.name)


def _git_hash_findings(scan: Scan, ident: Identity, expected: RevisionMap) -> Iterator[Finding]:
    """``version.py`` ``_git_hash`` (jax's contract: the commit the package was built from) must
    be the plugin pin; when either side is unknown, say that no comparison was made."""
    pin = expected.commits.get("plugin")
    files = _kept(scan, ident, "version.py")
    if pin is None:
        yield Finding("revisions", WARNING, "_git_hash not compared: the expected revisions "
                      "have no plugin pin", files[0][0].name if files else None)
        return
    if not files:
        yield Finding("revisions", WARNING, f"_git_hash not compared with the plugin pin "
                      f"{pin[:12]}: no version.py in the package")
        return
    for member, text in files:
        try:
            values = module_constants(text.decode("utf-8"))
        except (SyntaxError, UnicodeDecodeError, ValueError):
            yield Finding("revisions", WARNING, f"_git_hash not compared with the plugin pin "
                          f"{pin[:12]}: version.py is not valid Python", member.name)
            continue
        value = values.get("_git_hash")
        if not isinstance(value, str) or not value:
            yield Finding("revisions", WARNING, f"_git_hash not compared with the plugin pin "
                          f"{pin[:12]}: it is {value!r}", member.name)
        elif value != pin:
            yield Finding("revisions", ERROR, f"_git_hash is {value}; the plugin pin is {pin}",
                          member.name)


def _revision_findings(values: dict[str, Any], ident: Identity, expected: RevisionMap | None,
                       where: str) -> Iterator[Finding]:
    commits = values.get("commits")
    if not isinstance(commits, dict) or not commits or not all(
            isinstance(k, str) and isinstance(v, str) and _SHA.match(v) for k, v in commits.items()):
        yield Finding("revisions", ERROR, "commits is not a map of repository -> full commit SHA",
                      where)
        return
    full = values.get("revisions")
    if full is not None:
        if not isinstance(full, dict) or not all(is_revision(r) for r in full.values()):
            yield Finding("revisions", ERROR, "revisions is not a map of dep -> {url, branch, "
                          "commit}", where)
            return
        legacy = {LEGACY_KEYS.get(n, n): r["commit"] for n, r in full.items()}
        if legacy != commits:
            yield Finding("revisions", ERROR, "commits and revisions disagree", where)
    version = values.get("version")
    if version is not None and version != ident.version:
        yield Finding("revisions", ERROR, f"revision map version {version!r}; the wheel is "
                      f"{ident.version}", where)
    if expected is None:
        return
    want = expected.legacy_commits()
    for key in sorted(set(want) | set(commits)):
        if want.get(key) != commits.get(key):
            yield Finding("revisions", ERROR, f"{key}: wheel has {commits.get(key) or 'nothing'}, "
                          f"expected {want.get(key) or 'nothing'}", where)
    if full is not None:
        for name, rev in expected.revisions:
            got = full.get(name)
            if got and (got["url"], got["branch"]) != (rev.url, rev.branch):
                yield Finding("revisions", ERROR, f"{name}: wheel has {got['url']} "
                              f"{got['branch']}, expected {rev.url} {rev.branch}", where)


def check_requires(scan: Scan, ident: Identity, _opts: Options) -> Iterator[Finding]:
    from packaging.requirements import InvalidRequirement, Requirement  # only plugin wheels
    dist_info = _dist_info_dir(scan)
    meta = _headers(scan.get(f"{dist_info}/METADATA")) if dist_info else None
    if meta is None or ident.rocm_major is None:  # the names check reports a missing METADATA
        return
    pjrt = naming.pjrt_dist(ident.rocm_major)
    pins: list[Requirement] = []
    for line in meta.get_all("Requires-Dist") or ():
        try:
            req = Requirement(line)
        except InvalidRequirement:
            yield Finding("requires", ERROR, f"Requires-Dist {line!r} is not a valid requirement")
            continue
        if canonicalize_name(req.name) == pjrt and not (req.marker and "extra" in str(req.marker)):
            pins.append(req)
    if not pins:
        yield Finding("requires", ERROR, f"no Requires-Dist on {pjrt}; the plugin needs the "
                      f"matching PJRT wheel")
        return
    want = f"=={ident.version}"
    for req in pins:
        if str(req.specifier) != want:
            yield Finding("requires", ERROR, f"Requires-Dist {req} should pin {pjrt}{want} exactly "
                          "(a wildcard or range lets a mismatched PJRT wheel in)")


def _applies(check: str, ident: Identity) -> str | None:
    """Why ``check`` does not apply to this wheel, or None when it does."""
    if check in ("requires", "pair") and ident.kind != "plugin":
        return "only the plugin wheel pins the PJRT wheel"
    if check == "pair":
        return "no PJRT wheel given alongside"
    return None


_CHECK_FUNCTIONS: dict[str, Callable[[Scan, Identity, Options], Iterable[Finding]]] = {
    "zip": check_zip, "size": check_size, "record": check_record, "paths": check_paths, "layout": check_layout,
    "names": check_names, "purelib": check_purelib, "glibc": check_glibc, "symbols": check_symbols,
    "runpath": check_runpath, "version": check_version, "revisions": check_revisions,
    "requires": check_requires, "secrets": check_secrets,
}


def required_runpath(given: Sequence[str] | None, root: Path | None) -> tuple[tuple[str, ...], str | None]:
    """The RUNPATH entries every .so must carry: ``given`` (``--runpath``), else the entries
    the line's layout links in (jax-tree: ``runpath.JAX_TREE_RUNPATH``; rocm-jax: the
    ``rocm_build`` config's); and, when that config cannot be read, why no entry
    is required (said out loud by the caller, never a silent "require nothing")."""
    if given is not None:
        return tuple(given), None
    from release.check.runpath import layout_runpath
    jax_tree = layout_runpath(root)
    if jax_tree is not None:
        return jax_tree, None
    from release.build.bazel import configured_runpath
    try:
        return tuple(configured_runpath(root)), None
    except UserError as exc:
        return (), f"no RUNPATH entry is required: the rocm_build config could not be read ({exc})"


def check_scan(scan: Scan, options: Options = DEFAULTS, together: Sequence[Scan] = ()) -> Report:
    """Run every named check over a scan (pure: no I/O); ``together``: the scans of the wheels
    installed with it, whose objects its NEEDED may resolve to (default: itself alone)."""
    ident = Identity.of(scan.path)
    findings: list[Finding] = []
    skipped: dict[str, str] = {}
    for name in CHECKS:
        why = _applies(name, ident)
        if why:
            skipped[name] = why
        elif name == "needed":
            findings.extend(check_needed(scan, ident, options, together))
        else:
            findings.extend(_CHECK_FUNCTIONS[name](scan, ident, options))
    return Report(scan.path, findings, skipped)


def verify_wheel(path: Path, options: Options = DEFAULTS,
                 progress: Progress | None = None) -> Report:
    """Scan ``path`` once and run every check over it."""
    return check_scan(scan_wheel(path, progress), options)


def _commits(scan: Scan, ident: Identity) -> dict[str, Any] | None:
    for member in _payload(scan, ident, "commit_info.py"):
        if member.text is None:
            return None
        try:
            commits = module_constants(member.text.decode("utf-8")).get("commits")
        except (SyntaxError, UnicodeDecodeError, ValueError):
            return None
        return commits if isinstance(commits, dict) else None
    return None


def check_pairs(scans: Sequence[Scan], reports: Sequence[Report]) -> None:
    """The ``pair`` check: a plugin wheel and the PJRT wheel given with it must install together
    (same version, the pin matching) and come from the same sources (same revision map)."""
    idents = [Identity.of(s.path) for s in scans]
    pjrts = {i.rocm_major: (i, s) for i, s in zip(idents, scans) if i.kind == "pjrt"}
    for ident, scan, report in zip(idents, scans, reports):
        if ident.kind != "plugin" or ident.rocm_major not in pjrts:
            continue
        report.skipped.pop("pair", None)
        pjrt, pjrt_scan = pjrts[ident.rocm_major]
        if pjrt.version != ident.version:
            report.findings.append(Finding("pair", ERROR, f"the PJRT wheel given is {pjrt.version}; "
                                           f"this plugin {ident.version} pins its own version, so "
                                           "pip cannot install the two together"))
        mine, theirs = _commits(scan, ident), _commits(pjrt_scan, pjrt)
        if mine is not None and theirs is not None and mine != theirs:
            differ = sorted(k for k in set(mine) | set(theirs) if mine.get(k) != theirs.get(k))
            report.findings.append(Finding("pair", ERROR, f"revision map differs from the PJRT "
                                           f"wheel's for {', '.join(differ)}"))


def verify_wheels(paths: Sequence[Path], options: Options = DEFAULTS,
                  progress: Progress | None = None,
                  on_wheel: Callable[[Path], None] | None = None) -> list[Report]:
    """Verify each wheel (their NEEDED resolved across all of them, as installed together),
    then check plugin and PJRT wheels given together as a pair."""
    scans: list[Scan] = []
    for path in paths:
        if on_wheel:
            on_wheel(Path(path))
        scans.append(scan_wheel(path, progress))
    reports = [check_scan(scan, options, scans) for scan in scans]
    check_pairs(scans, reports)
    return reports


def expected_revisions(deps_file: Path | None = None,
                       revisions_file: Path | None = None) -> RevisionMap | None:
    """The revision map ``--deps`` or ``--revisions`` names (``UserError`` when unreadable)."""
    if deps_file is not None:
        from release.core.config import load_deps
        return RevisionMap.from_deps(load_deps(Path(deps_file)), "")
    if revisions_file is not None:
        path = Path(revisions_file)
        try:
            return RevisionMap.loads(regular.read_text(path))
        except FileNotFoundError:
            raise UserError(f"{path}: no such revisions file") from None
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            raise UserError(f"{path}: not a revisions.json ({exc}); expected the file "
                            "`release` writes") from None
    return None


@dataclasses.dataclass(frozen=True)
class Fold:
    """Findings that read the same across members: one line for a person."""

    check: str
    severity: str
    what: str                   # the group, or the message when the findings are identical
    messages: tuple[str, ...]   # distinct messages, in order
    members: tuple[str, ...]    # distinct members, in order ("" for the wheel as a whole)

    def line(self, shown: int = 3) -> str:
        names = [m.rsplit("/", 1)[-1] for m in self.members if m]
        where = ""
        if names:
            listed = ", ".join(names[:shown]) + (f" and {len(names) - shown} more"
                                                 if len(names) > shown else "")
            where = f" in {len(names)} files ({listed})" if len(names) > 1 else f" ({listed})"
        if len(self.messages) == 1:
            return f"{self.check} {self.severity}: {self.messages[0]}{where}"
        return (f"{self.check} {self.severity}: {len(self.messages)} x {self.what}{where}; "
                f"first: {self.messages[0]}")


def fold(findings: Iterable[Finding]) -> list[Fold]:
    """Group findings by check, severity and group (or identical message), in first-seen order,
    so the 95-entry RUNPATH of 9 shared objects reads as a handful of lines."""
    groups: dict[tuple[str, str, str], tuple[dict[str, None], dict[str, None]]] = {}
    for f in findings:
        key = (f.check, f.severity, f.group or f.message)
        messages, members = groups.setdefault(key, ({}, {}))
        messages[f.message] = None
        members[f.member or ""] = None
    return [Fold(check, severity, what, tuple(messages), tuple(members))
            for (check, severity, what), (messages, members) in groups.items()]


def summary_line(report: Report) -> str:
    """``<wheel>: ok`` / ``ok, N warnings`` / ``FAILED (N errors, M warnings)``: one line."""
    errors, warnings = len(report.errors), len(report.findings) - len(report.errors)
    applied = len(CHECKS) - len(report.skipped)
    if errors:
        return f"{report.wheel.name}: FAILED ({errors} errors, {warnings} warnings)"
    tail = f", {warnings} warnings" if warnings else ""
    return f"{report.wheel.name}: ok ({applied} checks{tail})"


def summary_markdown(reports: Iterable[Report]) -> str:
    lines = ["| wheel | check | severity | finding |", "|---|---|---|---|"]
    for report in reports:
        for f in fold(report.findings):
            lines.append(f"| {report.wheel.name} | {f.check} | {f.severity} | "
                         f"{f.line().split(': ', 1)[1].replace('|', '/')} |")
        if not report.findings:
            lines.append(f"| {report.wheel.name} | all | ok | |")
    return "\n".join(lines)


