"""What every job shares: its settings, the steps (fetch, build, verify, draft, validate,
publish, gc), the publishable check, and the finishing stage of a split CI run.

The steps' work lives in their own modules (sources, build, verify, publish, validate,
gc); ``release.jobs.pipeline`` runs them resumably under a lock and records them in
``dist/<version>/manifest.json``. Each job is its own module: ``release.jobs.nightly``
(skipped when nothing moved), ``release.jobs.cut`` (rc or release from a clean release branch,
then the next version), ``release.jobs.post`` (a re-spin by promotion, no rebuild).
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import sys
from pathlib import Path
from typing import Any

from rich.console import Console

from release.build import bazel
from release.build.dist import build_release
from release.build.plan import BuildPlan, move_on
from release.build.provenance import write_for_files
from release.check import verify
from release.check.validate import validate
from release.core import checksums, naming, versions
from release.core.checksums import sha256_file
from release.core.config import Project
from release.core.errors import UserError
from release.core.manifest import Manifest
from release.core.output import Output, ProgressBars, Say
from release.core.revisions import RevisionMap
from release.jobs.pipeline import Context, Step, run_job
from release.publish.drafts import previous_revisions, publish_draft, read_dist, undraft
from release.publish.gc import collect
from release.publish.retention import Retention
from release.publish.stores import Published, Release, Store
from release.sources import checkout


class CheckFailed(UserError):
    """Verification or validation found errors: the job stops, exit 1, the draft stays."""

    exit_code = 1


@dataclasses.dataclass(frozen=True)
class BuildInputs:
    """Where the shared objects come from: Bazel in a workspace, or prebuilt artifacts."""

    workspace: Path | None = None
    artifacts: Path | None = None
    cache: Path | None = None  # git mirrors for fetch-sources


@dataclasses.dataclass(frozen=True)
class JobSettings:
    dist_root: Path
    inputs: BuildInputs
    retention: Retention = Retention()  # which nightlies gc keeps (release.publish.retention)
    lock_timeout: float = 0
    python: str | None = None    # interpreter validate installs the wheels with


# ------------------------------------------------------------------ reading the store


def check_publishable(store: Store, plan_version: str, revisions: RevisionMap,
                      published: Published | None = None) -> None:
    """Refuse a version that would sort at or below what its line already published.

    ``versions.MUST_SORT_ABOVE`` says what each kind must sort above (``cut --rc 2`` after
    0.9.1 was published made 0.9.1rc2, which pip never picks). The same version already
    published is a re-run when its sources are these (publishing it again is a no-op), and
    refused when they differ: published releases are immutable.
    """
    published = published or store.published()
    blocker = versions.blocking_version(plan_version, published.versions())
    if blocker is None:
        return
    tag = naming.release_tag(plan_version)
    if blocker == plan_version:
        before = previous_revisions(store, published.find(blocker))
        if before is not None and before.same_sources(revisions):
            return
        hint = ("build tomorrow's, or switch version_info.json to nightly_scheme 'date-build' on "
                "the next version line" if versions.kind_of(plan_version) == "nightly" else
                "cut the next number, or a .postN of a release")
        raise UserError(f"{tag} is already published with other sources (releases are "
                        f"immutable); {hint}")
    move = move_on(blocker, published.versions())
    raise UserError(f"{plan_version} would sort below {blocker}, already published on "
                    f"{store.where}, so pip would never choose it; {move}")


# ------------------------------------------------------------------ the steps


def fetch_step(project: Project, workspace: Path, cache: Path | None) -> Step:
    """Check out the pins into ``workspace`` (git mirrors in ``cache``, default the project's)."""
    def run(_ctx: Context) -> dict[str, Any]:
        done = checkout.fetch_sources(project.deps, workspace, cache or checkout.cache_dir(project.root))
        return {name: c.commit for name, c in done.items()}
    pins = repr([(d.name, d.url, d.commit) for d in project.deps])
    return Step("fetch", run, lambda _: pins, "fetch sources")


def build_step(project: Project, plan: BuildPlan, settings: JobSettings, console: Console) -> Step:
    def run(_ctx: Context) -> dict[str, Any]:
        ins = settings.inputs
        result = build_release(plan, settings.dist_root, root=project.root,
                               workspace=None if ins.artifacts else ins.workspace,
                               artifacts=ins.artifacts, console=console)
        return {"wheels": sorted(result.wheels)}
    return Step("build", run, lambda _: repr(plan.to_json()), "build wheels")


def verify_dist(directory: Path, revisions: RevisionMap, say: Say,
                root: Path | None = None) -> dict[str, Any]:
    """Run every check over the wheels of a dist directory; errors stop the job."""
    options = verify.Options(runpath=tuple(bazel.configured_runpath(root)), revisions=revisions)
    reports = verify.verify_wheels(sorted(Path(directory).glob("*.whl")), options)
    errors = [f"{r.wheel.name}: {f.check}: {f.message}" for r in reports for f in r.errors]
    for report in reports:
        say(f"verify {report.wheel.name}: {'ok' if report.ok else 'FAILED'}")
    if errors:
        raise CheckFailed(f"verify found {len(errors)} error(s); first: {errors[0]}")
    return {"wheels": [r.wheel.name for r in reports]}


def verify_step(directory: Path, after: str, say: Say, root: Path) -> Step:
    """Verify the dist's wheels against its revisions.json, again whenever step ``after`` re-ran."""
    def run(_ctx: Context) -> dict[str, Any]:
        revisions = RevisionMap.loads((directory / naming.REVISIONS_ASSET).read_text(encoding="utf-8"))
        return verify_dist(directory, revisions, say, root)
    return Step("verify", run, lambda ctx: repr(ctx[after]), "verify wheels")


def draft_step(store: Store, directory: Path, say: Say, progress: ProgressBars | None) -> Step:
    def run(_ctx: Context) -> dict[str, Any]:
        result = publish_draft(store, read_dist(directory), say=say, progress=progress)
        return {"release_id": result["release_id"], "url": result.get("url")}
    return Step("draft", run, title="draft release")


def validate_step(store: Store, tag: str, settings: JobSettings, say: Say, progress: ProgressBars | None,
                   root: Path | None = None) -> Step:
    def run(_ctx: Context) -> dict[str, Any]:
        result = validate(store, tag, say=say, progress=progress,
                          python=settings.python or sys.executable,
                          runpath=tuple(bazel.configured_runpath(root)))
        if not result.ok:
            raise CheckFailed(f"validation of {tag} failed; the draft is left as it is: "
                              + "; ".join(result.to_json().get("problems", []))[:400])
        return {"validated": True}
    return Step("validate", run, title="validate draft")


def publish_step(store: Store, tag: str, say: Say) -> Step:
    def run(_ctx: Context) -> dict[str, Any]:
        result = undraft(store, tag, say=say)
        return {"url": result.get("url")}
    return Step("publish", run, title="publish release")


def gc_step(store: Store, settings: JobSettings, now: _dt.datetime, say: Say) -> Step:
    def run(_ctx: Context) -> dict[str, Any]:
        result = collect(store, settings.retention, dry_run=False, now=now, say=say)
        return {"deleted": list(result["deleted"])}
    return Step("gc", run, title="collect old nightlies")


def build_steps(project: Project, plan: BuildPlan, settings: JobSettings, store: Store, *,
                say: Say, progress: ProgressBars | None, console: Console) -> list[Step]:
    """fetch (unless artifacts are given), build, verify, draft, validate, publish."""
    directory = settings.dist_root / plan.version
    ins = settings.inputs
    steps = ([fetch_step(project, ins.workspace, ins.cache)]
             if ins.artifacts is None and ins.workspace is not None else [])
    return steps + [
        build_step(project, plan, settings, console),
        verify_step(directory, "build", say, project.root),
        draft_step(store, directory, say, progress),
        validate_step(store, plan.tag, settings, say, progress, project.root),
        publish_step(store, plan.tag, say),
    ]


# ------------------------------------------------------------------ split runs (CI stages)


def open_draft(store: Store, plan: BuildPlan, say: Say) -> Release:
    """The one draft of the plan's tag, created if missing (the matrix cells upload into it)."""
    return store.find_or_create_draft(plan.tag, name=f"jax-rocm {plan.version}",
                                      body=f"{plan.kind} {plan.version}: wheels are being built.",
                                      prerelease=plan.prerelease, say=say)


def collect_step(store: Store, tag: str, directory: Path, say: Say, progress: ProgressBars | None,
                  rocm_version: str | None = None) -> Step:
    """Bring the draft's wheels and revisions.json home and write the one SHA256SUMS and
    the one provenance over every cell's wheels.

    The cells of a split build upload their wheels to the draft concurrently, so none of
    them can write the checksums (or the provenance) of all; this runs once, after the matrix.
    """
    def run(_ctx: Context) -> dict[str, Any]:
        drafts = store.our_drafts(tag)
        if not drafts:
            raise UserError(f"{store.where}: no draft of {tag}; run the plan stage first")
        draft = drafts[0]
        directory.mkdir(parents=True, exist_ok=True)
        names = []
        for asset in store.list_assets(draft):
            if not (asset.name.endswith(".whl") or asset.name == naming.REVISIONS_ASSET):
                continue
            local = directory / asset.name
            digest = (asset.digest or "").removeprefix("sha256:")
            if not (local.is_file() and digest and sha256_file(local) == digest):
                say(f"download {asset.name}")
                store.download_asset(draft, asset, local, progress=progress)
            names.append(asset.name)
        if naming.REVISIONS_ASSET not in names or not any(n.endswith(".whl") for n in names):
            raise UserError(f"{store.where}: draft of {tag} lacks wheels or {naming.REVISIONS_ASSET}; "
                            "did every build cell publish with --partial?")
        revisions = RevisionMap.loads((directory / naming.REVISIONS_ASSET).read_text(encoding="utf-8"))
        prov = write_for_files(directory, [n for n in names if n.endswith(".whl")], revisions,
                               rocm_version=rocm_version)
        checksums.write_for(directory, [*names, prov.name])
        return {"assets": sorted(names)}
    return Step("collect", run, title="collect the matrix's wheels")


def run_finish(project: Project, kind: str, version: str, settings: JobSettings, store: Store,
               out: Output, *, now: _dt.datetime, gc: bool,
               progress: ProgressBars | None = None) -> dict[str, Any]:
    """After a split build: checksums, verify, notes, validate, publish (and gc for nightlies)."""
    tag = naming.release_tag(version)
    directory = settings.dist_root / version
    say = out.line

    steps = [collect_step(store, tag, directory, say, progress,
                           project.version_info.rocm_version),
             verify_step(directory, "collect", say, project.root),
             draft_step(store, directory, say, progress),
             validate_step(store, tag, settings, say, progress, project.root),
             publish_step(store, tag, say)]
    if gc:
        steps.append(gc_step(store, settings, now, say))
    done = run_job(kind, project.root, steps, Manifest.load(directory), out,
                   lock_timeout=settings.lock_timeout)
    return {"version": version, "tag": tag, "stage": "finish", "steps": [s.to_json() for s in done]}

