"""The post-release job: re-spin a published release as ``X.Y.Z.postN`` by promoting its
wheels (no rebuild), then verify, draft, validate and publish as any release."""

from __future__ import annotations

import dataclasses
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from release.build.promote import promote_wheel
from release.build.provenance import write_for_files
from release.core import checksums, naming, versions
from release.core.config import Project
from release.core.errors import UserError
from release.core.manifest import Manifest
from release.core.revisions import RevisionMap
from release.jobs import shared
from release.jobs.pipeline import Context, Step, run_job
from release.jobs.shared import JobSettings
from release.publish.stores import Release, Store

if TYPE_CHECKING:
    from release.core.output import Output, ProgressBars, Say


def respin_step(store: Store, source: Release, version: str, directory: Path, say: Say) -> Step:
    """Download the published release's wheels and promote them to ``version`` in ``directory``."""
    def run(_ctx: Context) -> dict:
        directory.mkdir(parents=True, exist_ok=True)
        assets = store.list_assets(source)
        wheels = [a for a in assets if a.name.endswith(".whl")]
        rev_asset = next((a for a in assets if a.name == naming.REVISIONS_ASSET), None)
        if not wheels or rev_asset is None:
            raise UserError(f"{source.tag} has no wheels or no {naming.REVISIONS_ASSET} to re-spin")
        made = []
        with tempfile.TemporaryDirectory(prefix="release-respin-") as tmp:
            for asset in [*wheels, rev_asset]:
                say(f"download {asset.name} from {source.tag}")
                store.download_asset(source, asset, Path(tmp) / asset.name)
            before = RevisionMap.loads((Path(tmp) / rev_asset.name).read_text(encoding="utf-8"))
            target = "post" + version.rsplit(".post", 1)[1]
            for asset in wheels:
                promoted = promote_wheel(Path(tmp) / asset.name, target, directory)
                made.append(promoted.output.name)
        revisions = dataclasses.replace(before, version=version)
        (directory / naming.REVISIONS_ASSET).write_text(revisions.dumps(), encoding="utf-8")
        prov = write_for_files(directory, made, revisions,
                               extra_parameters={"promotedFrom": source.tag})
        checksums.write_for(directory, [*made, naming.REVISIONS_ASSET, prov.name])
        return {"from": source.tag, "wheels": sorted(made), "revisions": revisions.to_json()}
    return Step("respin", run, lambda _: f"{source.tag}->{version}", "promote the released wheels")


def run_post(project: Project, number: int, settings: JobSettings, store: Store, out: Output, *,
             base: str | None = None, progress: ProgressBars | None = None) -> dict:
    """Re-spin a published release as ``X.Y.Z.postN`` by promoting its wheels (no rebuild)."""
    published = store.published()
    if base is None:
        latest = published.latest(("release",))
        if latest is None:
            raise UserError(f"{store.where}: no published release to re-spin; pass --from X.Y.Z")
        base = naming.version_of_tag(latest.tag, ("release",))
    source = published.find(base) if versions.kind_of(base) == "release" else None
    if source is None:
        raise UserError(f"{store.where}: {naming.release_tag(base)} is not a published release")
    version = versions.post(base, number)
    if versions.blocking_version(version, published.versions()) not in (None, version):
        raise UserError(f"{version} would sort below "
                        f"{versions.blocking_version(version, published.versions())}, already "
                        f"published on {store.where}; re-spin as a higher .postN")
    tag = naming.release_tag(version)
    directory = settings.dist_root / version
    steps = [respin_step(store, source, version, directory, out.line)]

    steps += [shared.verify_step(directory, "respin", out.line, project.root),
              shared.draft_step(store, directory, out.line, progress),
              shared.validate_step(store, tag, settings, out.line, progress, project.root),
              shared.publish_step(store, tag, out.line)]
    done = run_job("cut", project.root, steps, Manifest.load(directory), out,
                   lock_timeout=settings.lock_timeout)
    return {"version": version, "tag": tag, "kind": "post", "from": source.tag,
            "steps": [s.to_json() for s in done]}
