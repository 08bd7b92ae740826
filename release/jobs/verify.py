"""``release verify`` as a function: every named check over the wheels (``release.check.verify``)
and, with a provenance file, that it covers exactly these wheels (``release.build.provenance``);
the result says how many errors, for the command to print and turn into exit 1."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from release.check.verify import Report
    from release.core.revisions import RevisionMap
    from release.jobs.promote import Bar


@dataclasses.dataclass(frozen=True)
class VerifyOptions:
    """What ``release verify`` checks the wheels against."""

    wheels: tuple[Path, ...]
    deps: Path | None = None               # the revision map must pin these commits
    revisions: Path | None = None          # the revision map must equal this one
    provenance: Path | None = None         # must cover exactly these wheels
    rocm_version: str | None = None        # whose runtime NEEDED resolves in
    runpath: tuple[str, ...] | None = None  # entries every .so must carry (None: the config's)
    root: Path | None = None


@dataclasses.dataclass(frozen=True)
class VerifyResult:
    """Every wheel's report, the RUNPATH required and the provenance's verdict."""

    reports: list[Report]
    runpath: tuple[str, ...]
    runpath_note: str | None               # why no RUNPATH entry is required, when none is
    provenance: dict[str, Any] | None      # file, ok, problems

    @property
    def errors(self) -> int:
        return sum(len(r.errors) for r in self.reports) + len(
            self.provenance["problems"] if self.provenance else [])

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"ok": self.errors == 0, "errors": self.errors,
                                "runpath": list(self.runpath),
                                "wheels": [r.to_json() for r in self.reports]}
        if self.runpath_note:
            data["runpath_note"] = self.runpath_note
        if self.provenance is not None:
            data["provenance"] = self.provenance
        return data

    def outputs(self) -> dict[str, str]:
        return {"verify-ok": str(self.errors == 0).lower(), "verify-errors": str(self.errors)}

    def summary(self) -> str:
        from release.check.verify import summary_markdown
        prov = self.provenance
        return "## release verify\n\n" + summary_markdown(self.reports) + (
            "" if prov is None else f"\n\n**{prov['file']}**: " + (
                "ok" if prov["ok"] else "FAILED\n\n" + "\n".join(f"- {p}" for p in prov["problems"])))


def required_runpath(options: VerifyOptions) -> tuple[tuple[str, ...], str | None]:
    """The RUNPATH entries required, and why none is when the config cannot be read (said
    before the wheels are read, so a long run does not hide it)."""
    from release.check.verify import required_runpath as required
    return required(options.runpath, options.root)


def run_verify(options: VerifyOptions, bar: Bar,
               runpath: tuple[tuple[str, ...], str | None] | None = None) -> VerifyResult:
    """Verify the wheels (and the provenance); a ``rocm_version`` without a runtime list is
    refused first (exit 2)."""
    from release.check.sbom_check import line_rocms
    from release.check.verify import Options, expected_revisions, verify_wheels
    from release.core import rocm_runtime
    entries, note = runpath or required_runpath(options)
    if options.rocm_version is not None:
        rocm_runtime.load(options.rocm_version, options.root)
    rocms = line_rocms(options.root)  # a line's wheels carry an SBOM naming its own releases
    checks = Options(runpath=entries, revisions=expected_revisions(options.deps, options.revisions),
                     rocm_version=options.rocm_version, rocm_root=options.root,
                     sbom_required=rocms is not None, line_rocms=rocms or ())
    reports = verify_wheels(list(options.wheels), checks, progress=bar.advance,
                            on_wheel=lambda w: bar.describe(f"verifying {w.name}"))
    prov = None if options.provenance is None else check_provenance(options, checks.revisions)
    return VerifyResult(reports, tuple(checks.runpath), note, prov)


def check_provenance(options: VerifyOptions, revisions: RevisionMap | None) -> dict[str, Any]:
    """The provenance check: one problem line per mismatch."""
    from release.build import provenance
    from release.core.naming import Identity
    if options.provenance is None:
        raise ValueError("no provenance file to check")
    found = {Identity.of(wheel).version for wheel in options.wheels} - {None}
    problems = provenance.check_files(options.provenance, options.wheels,
                                      version=found.pop() if len(found) == 1 else None,
                                      revisions=revisions, exact=options.deps is None)
    return {"file": str(options.provenance), "ok": not problems, "problems": problems}
