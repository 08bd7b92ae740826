"""The stamp checks: what the build wrote into the wheel about where it came from and what it
installs with: ``version.py``'s release version and git hash, the embedded revision map
(``commit_info.py``) against the expected one, and the plugin's exact pin on its PJRT wheel."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Iterator

from packaging.utils import canonicalize_name

from release.check.findings import ERROR, WARNING, Finding, Options
from release.check.wheel_parts import dist_info_dir, headers, kept, payload
from release.core import naming, regular
from release.core.errors import UserError
from release.core.naming import Identity
from release.core.revisions import LEGACY_KEYS, RevisionMap, is_revision
from release.core.scan import Scan, module_constants

_SHA = re.compile(r"^[0-9a-f]{40}\Z", re.ASCII)


def _release_version(text: bytes) -> tuple[bool, object]:
    try:
        values = module_constants(text.decode("utf-8"))
    except (SyntaxError, UnicodeDecodeError, ValueError):
        return False, None
    return "_release_version" in values, values.get("_release_version")


def check_version(scan: Scan, ident: Identity, _opts: Options) -> Iterator[Finding]:
    files = kept(scan, ident, "version.py")
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
    files = kept(scan, ident, "commit_info.py")
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
    files = kept(scan, ident, "version.py")
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
    dist_info = dist_info_dir(scan)
    meta = headers(scan.get(f"{dist_info}/METADATA")) if dist_info else None
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



def commit_info(scan: Scan, ident: Identity) -> dict[str, Any] | None:
    """The constants of the payload's ``commit_info.py`` (the embedded revision map); None when
    it is missing, too large to keep, or not Python."""
    for member in payload(scan, ident, "commit_info.py"):
        if member.text is None:
            return None
        try:
            return module_constants(member.text.decode("utf-8"))
        except (SyntaxError, UnicodeDecodeError, ValueError):
            return None
    return None


def commits_of(scan: Scan, ident: Identity) -> dict[str, Any] | None:
    """The embedded revision map's ``commits`` (repository -> commit), None when unreadable."""
    commits = (commit_info(scan, ident) or {}).get("commits")
    return commits if isinstance(commits, dict) else None


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
