"""The work of each job step, one function per step: ``(run, options, context) -> outputs``.

The steps' logic lives in its stage's modules (sources, build, check, publish); these
functions only call it with what the ``JobRun`` and the step's declared options say.
``release.jobs.catalog`` puts them in order. Files between steps travel in
``dist/<version>/`` and the store, with one writer and one reader each: build, collect and
respin write the dist; verify and draft read it; validate reads the draft; publish undrafts it.
"""

from __future__ import annotations

import dataclasses
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from release.core import naming
from release.core.errors import UserError
from release.core.revisions import RevisionMap
from release.jobs.shared import CheckFailed, verify_dist

if TYPE_CHECKING:
    from release.build.plan import BuildPlan
    from release.jobs.pipeline import Context
    from release.jobs.runner import JobRun, OptionsView

Outputs = dict[str, Any]


def _plan(run: JobRun) -> BuildPlan:
    if run.plan is None:
        raise ValueError(f"{run.version}: this step needs a build plan")
    return run.plan


# ---------------------------------------------------------------- making the dist


def fetch(run: JobRun, opts: OptionsView, _ctx: Context) -> Outputs:
    """Check out the pins into the workspace (git mirrors in the cache, default the project's)."""
    from release.sources import checkout
    cache = opts.cache or checkout.cache_dir(run.project.root)
    done = checkout.fetch_sources(run.project.deps, opts.workspace, cache,
                                  lambda name, what: run.say(f"{name}: {what}"))
    return {name: c.commit for name, c in done.items()}


def fetch_fingerprint(run: JobRun, _opts: OptionsView, _ctx: Context) -> str:
    return repr([(d.name, d.url, d.commit) for d in run.project.deps])


def fetch_wanted(_run: JobRun, opts: OptionsView) -> bool:
    """Only a Bazel build fetches: not with prebuilt artifacts."""
    return opts.artifacts is None and opts.workspace is not None


def build(run: JobRun, opts: OptionsView, _ctx: Context) -> Outputs:
    from release.build.dist import build_release
    result = build_release(_plan(run), run.dist_root, root=run.project.root,
                           workspace=None if opts.artifacts else opts.workspace,
                           artifacts=opts.artifacts, console=run.console)
    return {"wheels": sorted(result.wheels)}


def build_needs(_run: JobRun, opts: OptionsView) -> None:
    """A build without ``--artifacts`` runs Bazel (on a ROCm build machine): without it on
    PATH, say so before anything is tagged or fetched, and name the way that needs neither."""
    import shutil
    if opts.artifacts is None and shutil.which("bazel") is None:
        raise UserError("build: no bazel on PATH; building the wheels needs Bazel (or bazelisk) and ROCm. "
                        "On another machine pass --artifacts DIR (the .so files a build made; "
                        "`release try` makes a sandbox with stand-ins)")


def build_fingerprint(run: JobRun, _opts: OptionsView, _ctx: Context) -> str:
    return repr(_plan(run).to_json())


def collect(run: JobRun, _opts: OptionsView, _ctx: Context) -> Outputs:
    """Bring the draft's wheels and revisions.json home and write each wheel's core metadata
    file (from the wheel, not the cell's upload), the one SHA256SUMS and the one provenance
    over every cell's wheels.

    The cells of a split build upload their wheels to the draft concurrently, so none of
    them can write the checksums (or the provenance) of all; this runs once, after the matrix.
    """
    from release.build.layouts import layout_of, provenance_parameters
    from release.build.provenance import write_for_files
    from release.core import bundles, checksums, core_metadata
    from release.core.checksums import sha256_file
    from release.core.safe_names import plain_file_name

    store, tag, directory = run.store, run.tag, run.directory
    drafts = store.our_drafts(tag)
    if not drafts:
        raise UserError(f"{store.where}: no draft of {tag}; run the plan stage first")
    draft = drafts[0]
    directory.mkdir(parents=True, exist_ok=True)
    names = []
    for asset in store.list_assets(draft):
        if not (core_metadata.is_wheel(asset.name) or asset.name == naming.REVISIONS_ASSET
                or bundles.is_bundle(asset.name)):  # the cells' attestation bundles go on with their wheels
            continue
        local = directory / plain_file_name(asset.name, f"{store.where}: asset of {tag}")
        digest = (asset.digest or "").removeprefix("sha256:")
        if not (local.is_file() and digest and sha256_file(local) == digest):
            run.say(f"download {asset.name}")
            store.download_asset(draft, asset, local, progress=run.progress)
        names.append(asset.name)
    if naming.REVISIONS_ASSET not in names or not any(core_metadata.is_wheel(n) for n in names):
        raise UserError(f"{store.where}: draft of {tag} lacks wheels or {naming.REVISIONS_ASSET}; "
                        "did every build cell publish with --partial?")
    revisions = RevisionMap.loads((directory / naming.REVISIONS_ASSET).read_text(encoding="utf-8"))
    wheels = [n for n in names if core_metadata.is_wheel(n)]
    sidecars = [core_metadata.write_beside(directory / n).name for n in wheels]  # made here, from the wheels
    info = run.project.version_info
    prov = write_for_files(directory, wheels, revisions, rocm_version=info.rocm_version,
                           extra_parameters=provenance_parameters(layout_of(run.project).name, info.rocms))
    checksums.write_for(directory, [*names, *sidecars, prov.name])
    return {"assets": sorted(names + sidecars)}


def respin(run: JobRun, _opts: OptionsView, _ctx: Context) -> Outputs:
    """Download the published release's wheels and promote them to this version (no rebuild)."""
    from release.build.promote import complete_dist, promote_wheel
    from release.core.safe_names import plain_file_name

    source, store, directory = run.source, run.store, run.directory
    if source is None:
        raise ValueError("respin needs the release it re-spins")
    directory.mkdir(parents=True, exist_ok=True)
    assets = store.list_assets(source)
    wheels = [a for a in assets if a.name.endswith(".whl")]
    rev_asset = next((a for a in assets if a.name == naming.REVISIONS_ASSET), None)
    if not wheels or rev_asset is None:
        raise UserError(f"{source.tag} has no wheels or no {naming.REVISIONS_ASSET} to re-spin")
    made = []
    with tempfile.TemporaryDirectory(prefix="release-respin-") as tmp:
        for asset in [*wheels, rev_asset]:
            run.say(f"download {asset.name} from {source.tag}")
            local = Path(tmp) / plain_file_name(asset.name, f"{store.where}: asset of {source.tag}")
            store.download_asset(source, asset, local)
        before = RevisionMap.loads((Path(tmp) / rev_asset.name).read_text(encoding="utf-8"))
        target = "post" + run.version.rsplit(".post", 1)[1]
        for asset in wheels:
            promoted = promote_wheel(Path(tmp) / asset.name, target, directory)
            made.append(promoted.output.name)
    complete_dist(directory, made, before, run.version, source.tag)
    revisions = dataclasses.replace(before, version=run.version)
    return {"from": source.tag, "wheels": sorted(made), "revisions": revisions.to_json()}


def respin_fingerprint(run: JobRun, _opts: OptionsView, _ctx: Context) -> str:
    return f"{run.source.tag if run.source else '?'}->{run.version}"


# ---------------------------------------------------------------- the tail every job shares


def verify(run: JobRun, _opts: OptionsView, _ctx: Context) -> Outputs:
    """Verify the dist's wheels against its revisions.json."""
    text = (run.directory / naming.REVISIONS_ASSET).read_text(encoding="utf-8")
    return verify_dist(run.directory, RevisionMap.loads(text), run.say, run.project.root)


def dist_as_it_is(run: JobRun, _opts: OptionsView, ctx: Context) -> str:
    """What verify reads, as it is now: each wheel's and revisions.json's name, size and
    modification time, and the earlier steps' outputs. A wheel built again (a recorded one
    went missing) is verified again even when the build's inputs did not change."""
    files = sorted([*run.directory.glob("*.whl"), run.directory / naming.REVISIONS_ASSET])
    seen = [(p.name, st.st_size, st.st_mtime_ns) for p in files if (st := _stat(p)) is not None]
    return json.dumps({"files": seen, "before": {name: dict(ctx[name]) for name in ctx}},
                      sort_keys=True, default=str)


def _stat(path: Path) -> os.stat_result | None:
    try:
        return path.stat()
    except FileNotFoundError:
        return None


def draft(run: JobRun, _opts: OptionsView, _ctx: Context) -> Outputs:
    from release.publish.drafts import publish_draft, read_dist
    result = publish_draft(run.store, read_dist(run.directory), say=run.say, progress=run.progress)
    return {"release_id": result["release_id"], "url": result.get("url")}


def validate(run: JobRun, opts: OptionsView, _ctx: Context) -> Outputs:
    """Validate the draft as users get it; every problem is listed, none is cut."""
    from release.build import bazel
    from release.check.runpath import layout_runpath
    from release.check.validate import line_of_project
    from release.check.validate import validate as validate_draft
    from release.core import cells
    root = run.project.root
    # every cell the plan built must be in the draft; without a plan (a re-spin), the line's majors
    majors, pythons = ((tuple(g.major for g in run.plan.majors), run.plan.pythons) if run.plan is not None
                       else (line_of_project(run.project, run.version)[0], None))
    result = validate_draft(run.store, run.tag, say=run.say, progress=run.progress,
                            python=opts.python or sys.executable,
                            runpath=layout_runpath(root) or tuple(bazel.configured_runpath(root)),
                            public_index=opts.public_index,
                            require_all_pythons=opts.require_all_pythons,
                            line_majors=majors, line_pythons=pythons)
    for warning in result.warnings:  # "untested Pythons: 3.14 (...)" among them
        run.say(f"warning: {warning}")
    if not result.ok:
        for problem in result.problems:
            run.say(f"  - {problem}")
        raise CheckFailed(f"validation of {run.tag} failed with {len(result.problems)} "
                          "problem(s); the draft is left as it is: "
                          + "; ".join(result.problems), findings=result.problems)
    # how each cell's with-rocm line (jax[rocmN], TheRock's runtime wheels) resolved; records of before lack it
    with_rocm = [cells.to_json(c) | result.cells[c]["with_rocm"] for c in sorted(result.cells, key=cells.sort_key)
                 if "with_rocm" in result.cells[c]]
    return {"validated": True, "untested_cells": [cells.to_json(c) for c in result.untested_cells],
            "untested_pythons": result.untested, "warnings": list(result.warnings), "with_rocm": with_rocm}


def smoke_wanted(_run: JobRun, opts: OptionsView) -> bool:
    return bool(opts.smoke)


def smoke(run: JobRun, opts: OptionsView, _ctx: Context) -> Outputs:
    """The ROCm gate (``release.check.smoke``) over the validated draft; its verdict goes into
    the draft's notes, and a failure stops the job before publishing."""
    from release.check.smoke import smoke_draft
    result = smoke_draft(run.store, run.tag, public_index=opts.public_index, say=run.say)
    if not result.ok:
        raise CheckFailed(f"the ROCm smoke test of {run.tag} failed; the draft is not published: "
                          + "; ".join(result.problems), findings=result.problems)
    return {"rocm_devices": result.rocm_devices,
            "cells": [{"rocm_major": c.rocm_major, "python": c.python, "ok": c.ok} for c in result.cells]}


def publish(run: JobRun, _opts: OptionsView, _ctx: Context) -> Outputs:
    """Undraft; then say so to the workflow at once (output ``published``: the tag), so the
    PyPI job follows a published release even when a later step (the next-version PR) fails."""
    from release.core.output import github_output
    from release.publish.drafts import undraft
    result = undraft(run.store, run.tag, say=run.say, majors=run.project.version_info.rocm_majors)
    github_output({"published": run.tag})
    return {"url": result.get("url")}


def gc(run: JobRun, opts: OptionsView, _ctx: Context) -> Outputs:
    from release.publish.gc import collect as collect_garbage
    from release.publish.retention import Retention
    if run.now is None:
        raise ValueError("gc needs the run's clock")
    result = collect_garbage(run.store, opts.retention or Retention(), dry_run=False, now=run.now,
                             say=run.say)
    return {"deleted": list(result["deleted"])}


def open_draft(run: JobRun, _opts: OptionsView, _ctx: Context) -> Outputs:
    """A split run's plan stage: the one draft of the plan's tag, created if missing, which
    the build matrix's cells upload into."""
    from release.jobs.shared import open_draft as find_or_open
    return {"draft": find_or_open(run.store, _plan(run), run.say).tag}


# ---------------------------------------------------------------- cut's own


def tag(run: JobRun, opts: OptionsView, _ctx: Context) -> Outputs:
    from release.jobs.cut import tag_release
    if run.commit is None:
        raise ValueError("tag needs the release commit")
    return tag_release(run.project.root, run.tag, run.commit, push=opts.push)


def tag_fingerprint(run: JobRun, opts: OptionsView, _ctx: Context) -> str:
    return f"{run.commit}{opts.push}"


def moves_the_line_on(run: JobRun, _opts: OptionsView) -> bool:
    """After the release or post release version_info.json names as the line's next (a cut,
    or a ``cut --post`` re-spin of it; not an rc, nor a post of another number), the line's
    next post release is committed, so its nightlies sort above what it just published."""
    from release.core import versions
    return (versions.kind_of(run.version) in ("release", "post")
            and run.version == versions.release(run.project.version_info.version))


def next_version(run: JobRun, opts: OptionsView, _ctx: Context) -> Outputs:
    """After a release or post release: version_info.json moved on, on a branch; pushed and
    proposed when asked."""
    from release.jobs.cut import finish_release
    return finish_release(run.project, run.version, push=opts.push, open_pr=opts.open_pr,
                          out=run.out, base_branch=opts.release_branch)


def next_version_fingerprint(_run: JobRun, opts: OptionsView, _ctx: Context) -> str:
    return repr((opts.push, opts.open_pr, opts.release_branch))


def pypi_wanted(run: JobRun, opts: OptionsView) -> bool:
    """Asked for (``--pypi``), and a release or post release: rcs and nightlies never go."""
    from release.core import versions
    from release.publish.pypi import KINDS_FOR_PYPI
    return bool(opts.pypi) and versions.kind_of(run.version) in KINDS_FOR_PYPI


def pypi(run: JobRun, _opts: OptionsView, _ctx: Context) -> Outputs:
    """The published release's validated wheels to the index twine's settings name, pjrt first
    (``release.publish.pypi``); the notes then say what reached it."""
    from release.publish.pypi import PypiSettings, file_limit_default, publish_to_pypi
    result = publish_to_pypi(run.store, run.tag, PypiSettings(dist_root=run.dist_root,
                                                              file_limit=file_limit_default(),
                                                              majors=run.project.version_info.rocm_majors),
                             say=run.say, progress=run.progress)
    return {"uploaded": list(result.get("uploaded", [])), "complete": bool(result.get("complete"))}
