"""Named checks over a built wheel: findings (error or warning), never a change.

The wheel is read once by ``release.core.scan`` (every member inflated and hashed in one
streaming pass, ELF facts and small text members kept); the checks are pure functions of that
``Scan``, each in the module of its concept (``archive``: the zip, RECORD, paths and names;
``loadable`` and ``runpath``: will the objects load; ``stamps``: version, revision map and the
PJRT pin), so they are cheap to test and cannot disagree about what the wheel holds. This module
runs them, pairs a plugin with its PJRT wheel, and says the result in the few lines a person reads
(``folding``).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

from release.check.archive import (
    check_layout,
    check_names,
    check_paths,
    check_purelib,
    check_record,
    check_secrets,
    check_size,
    check_zip,
)
from release.check.findings import ERROR, NOTE, WARNING, Finding, Options
from release.check.folding import Fold, fold
from release.check.loadable import check_glibc, check_needed, check_symbols
from release.check.runpath import check_runpath
from release.check.sbom_check import check_sbom
from release.check.stamps import check_requires, check_revisions, check_version, commits_of, expected_revisions
from release.check.with_rocm import check_with_rocm
from release.core.errors import UserError
from release.core.naming import Identity
from release.core.scan import Progress, Scan, scan_wheel

__all__ = ["CHECKS", "DEFAULTS", "ERROR", "NOTE", "WARNING", "Finding", "Fold", "Options", "Report",
           "check_pairs", "check_scan", "expected_revisions", "fold", "required_runpath",
           "summary_line", "summary_markdown", "verify_wheel", "verify_wheels"]

CHECKS = ("zip", "size", "record", "paths", "layout", "names", "purelib", "glibc", "symbols",
          "runpath", "needed", "with-rocm", "version", "revisions", "sbom", "requires", "secrets", "pair")
DEFAULTS = Options()  # no RUNPATH entry required, no revision map, the ROCm version the wheel names


@dataclasses.dataclass
class Report:
    """A wheel's findings, and the checks that did not apply to it, with why."""

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
        mine = [f for f in self.findings if f.check == check and f.severity != NOTE]
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


def _applies(check: str, ident: Identity) -> str | None:
    """Why ``check`` does not apply to this wheel, or None when it does."""
    if check in ("requires", "pair") and ident.kind != "plugin":
        return "only the plugin wheel pins the PJRT wheel"
    if check == "with-rocm" and ident.kind != "plugin":
        return "only the plugin wheel has the with-rocm extra"
    if check == "pair":
        return "no PJRT wheel given alongside"
    return None


_CHECK_FUNCTIONS: dict[str, Callable[[Scan, Identity, Options], Iterable[Finding]]] = {
    "zip": check_zip, "size": check_size, "record": check_record, "paths": check_paths, "layout": check_layout,
    "names": check_names, "purelib": check_purelib, "glibc": check_glibc, "symbols": check_symbols,
    "runpath": check_runpath, "version": check_version, "revisions": check_revisions, "sbom": check_sbom,
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
        elif name == "with-rocm":
            found, why = check_with_rocm(scan, ident, options, together)
            findings.extend(found)
            if why:
                skipped[name] = why
        else:
            findings.extend(_CHECK_FUNCTIONS[name](scan, ident, options))
    return Report(scan.path, findings, skipped)


def verify_wheel(path: Path, options: Options = DEFAULTS,
                 progress: Progress | None = None) -> Report:
    """Scan ``path`` once and run every check over it."""
    return check_scan(scan_wheel(path, progress), options)


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
        mine, theirs = commits_of(scan, ident), commits_of(pjrt_scan, pjrt)
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


def summary_line(report: Report) -> str:
    """``<wheel>: ok`` / ``ok, N warnings`` / ``FAILED (N errors, M warnings)``: one line."""
    errors, warnings = len(report.errors), sum(f.severity == WARNING for f in report.findings)
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


