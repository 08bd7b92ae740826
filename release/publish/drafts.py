"""Put a built ``dist/<version>/`` into a draft release, and publish a validated draft.

Idempotent and resumable by construction: every step starts from a fresh listing of
what the store holds and takes the one action that moves it closer to the wanted
state, so a re-run after a crash, a 5xx, a timeout or a racing job converges on
exactly one draft of the tag holding each asset exactly once:

- the draft is found by listing (never get-by-tag); duplicates of ours are collapsed;
- ``starter`` (interrupted) assets and assets that do not belong are deleted;
- an asset whose name, size and sha256 already match is left alone;
- an asset whose bytes differ is replaced without a window where neither copy is
  safe: the new bytes go up under a temporary name, then the old asset is deleted
  and the new one renamed (a crash in between is finished by the next run);
- a write that got no clear answer is never retried blindly: the loop re-lists first;
- a published release is immutable: re-publishing identical assets is a no-op,
  different ones are refused.
"""

from __future__ import annotations

import dataclasses
import hashlib
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from packaging.version import InvalidVersion, Version

from release.core import bundles, checksums, core_metadata, naming, pairing, sanitize, versions
from release.core.checksums import sha256_file
from release.core.errors import UserError
from release.core.revisions import RevisionMap, github_base
from release.publish import notes
from release.publish.stores import Asset, AssetExists, Release, Store, StoreError, TagTaken
from release.sources.github import UncertainWrite

if TYPE_CHECKING:
    from release.core.output import ProgressBars, Say

TEMP_SUFFIX = ".new"


@dataclasses.dataclass(frozen=True)
class LocalAsset:
    name: str
    path: Path
    size: int
    digest: str


@dataclasses.dataclass(frozen=True)
class Dist:
    """A ``dist/<version>/`` directory, checked against its own SHA256SUMS."""

    directory: Path
    version: str
    revisions: RevisionMap
    assets: tuple[LocalAsset, ...]
    checksums: str
    provenance: dict | None = None  # the parsed provenance.intoto.json (None for a partial dist)

    @property
    def tag(self) -> str:
        return naming.release_tag(self.version)

    @property
    def kind(self) -> str:
        return versions.kind_of(self.version)

    @property
    def wheels(self) -> tuple[LocalAsset, ...]:
        return tuple(a for a in self.assets if core_metadata.is_wheel(a.name))


def read_dist(directory: Path, partial: bool = False) -> Dist:
    """Load and check a dist directory; refuses one whose files do not match SHA256SUMS.

    Each wheel comes with its PEP 658 core metadata file (``<wheel>.metadata``, an asset of its
    own). ``partial``: one build cell's share (its wheels, their metadata files and
    revisions.json); SHA256SUMS and the
    provenance, when present, still have to match, but they are not assets (the finish stage
    writes the ones covering every cell). A whole dist's provenance must cover exactly its
    wheels and pins (``release.build.provenance.check``).
    """
    directory = Path(directory)
    if not directory.is_dir():
        raise UserError(f"{directory}: no such directory; expected dist/<version> from `release build`")
    rev_path = directory / naming.REVISIONS_ASSET
    sums_path = directory / naming.CHECKSUMS_ASSET
    prov_path = directory / naming.PROVENANCE_ASSET
    for path in (rev_path, sums_path, prov_path):
        if partial and path in (sums_path, prov_path):
            continue
        if not path.is_file():
            raise UserError(f"{path}: missing; expected `release build` to have written it")
    try:
        revisions = RevisionMap.loads(rev_path.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise UserError(f"{rev_path}: not a revision map ({exc})") from None
    version = revisions.version
    try:
        Version(version)
    except InvalidVersion:
        raise UserError(f"{rev_path}: version {version!r} is not a PEP 440 version") from None
    sums_text = sums_path.read_text(encoding="utf-8") if sums_path.is_file() else ""
    sums = checksums.parse(sums_text, str(sums_path))
    wheels = sorted(directory.glob("*.whl"))
    if not wheels:
        raise UserError(f"{directory}: no wheels; expected the pjrt and plugin wheels of {version}")
    for wheel in wheels:
        if f"-{version}-" not in wheel.name:
            raise UserError(f"{wheel}: not a wheel of version {version} (from {rev_path.name})")
    sidecars = _core_metadata_files(directory, wheels)
    attested = _bundle_files(wheels)
    assets = []
    for path in [*wheels, *sidecars, *attested, rev_path, *([prov_path] if prov_path.is_file() else [])]:
        digest = sha256_file(path)
        # a cell's bundle is written after its build's SHA256SUMS (the finish stage's lists it)
        if path.name not in sums and not (partial and (not sums_text or bundles.is_bundle(path.name))):
            raise UserError(f"{sums_path}: does not list {path.name}")
        if path.name in sums and sums[path.name] != digest:
            raise UserError(f"{sums_path}: says {sums[path.name][:12]}... for {path.name} but the file "
                            f"hashes to {digest[:12]}...; rebuild or fix the dist directory")
        if not (partial and path == prov_path):
            assets.append(LocalAsset(path.name, path, path.stat().st_size, digest))
    for name in sums:
        if not (directory / name).is_file():
            raise UserError(f"{sums_path}: lists {name}, which is not in {directory}")
    statement = None
    if not partial:
        assets.append(LocalAsset(sums_path.name, sums_path, sums_path.stat().st_size,
                                 sha256_file(sums_path)))
        statement = _checked_provenance(prov_path, assets, version, revisions)
    return Dist(directory, version, revisions, tuple(assets), sums_text, statement)


def _core_metadata_files(directory: Path, wheels: list[Path]) -> list[Path]:
    """Each wheel's PEP 658 core metadata file, which `release build` writes beside it: refused
    when one is missing, is not its wheel's METADATA, or has no wheel."""
    sidecars = []
    for wheel in wheels:
        sidecar = wheel.with_name(core_metadata.file_name(wheel.name))
        if not sidecar.is_file():
            raise UserError(f"{sidecar}: missing; expected the PEP 658 metadata of {wheel.name} "
                            "(`release build` writes it beside the wheel)")
        sidecars.append(sidecar)
    found = core_metadata.problems({p.name: p for p in [*wheels, *sidecars,
                                                        *directory.glob("*.whl" + core_metadata.SUFFIX)]})
    if found:
        raise UserError(f"{directory}: {found[0]}; rebuild the dist directory")
    return sidecars


def _bundle_files(wheels: list[Path]) -> list[Path]:
    """Each wheel's attestation bundles (``<wheel>.jsonl``, ``release.core.bundles``) where the
    upload job wrote them beside it; refused when one does not attest its wheel."""
    found = []
    for wheel in wheels:
        path = wheel.with_name(bundles.file_name(wheel.name))
        if not path.is_file():
            continue
        wrong = bundles.problems(path.name, path.read_text(encoding="utf-8", errors="replace"), sha256_file(wheel))
        if wrong:
            raise UserError(f"{path.parent}: {wrong[0]}; attest the wheel again")
        found.append(path)
    return found


def _checked_provenance(path: Path, assets: list[LocalAsset], version: str,
                        revisions: RevisionMap) -> dict:
    """The dist's provenance, refused when it does not cover exactly its wheels and pins."""
    from release.build import provenance

    try:
        statement = provenance.load(path)
    except ValueError as exc:
        raise UserError(f"{path}: {exc}; rebuild the dist directory") from None
    problems = provenance.check(statement, wheels={a.name: a.digest for a in assets
                                                   if core_metadata.is_wheel(a.name)},
                                version=version, revisions=revisions)
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise UserError(f"{path}: {problems[0]}{more}; rebuild the dist directory")
    return statement


# ------------------------------------------------------------------ release notes


def previous_release(releases: list[Release], version: str) -> Release | None:
    """The newest published release of the same kind (nightly, rc, release, post) below ``version``."""
    from release.publish.stores import Published
    return Published.of(releases).latest((versions.kind_of(version),), below=version)


def changelog_markdown(previous: Release | None, before: RevisionMap | None, now: RevisionMap) -> str:
    if previous is None:
        return "First release of its kind: no earlier one to compare with.\n"
    if before is None:
        return f"Since {previous.tag}: its {naming.REVISIONS_ASSET} could not be read.\n"
    link = previous.html_url if (previous.html_url or "").startswith("https://") else None
    tag = sanitize.markdown(previous.tag)  # a store's record: data, never markup or a script link
    lines = [f"Since [{tag}]({sanitize.code(link).replace(')', '%29').replace(' ', '%20')}):" if link
             else f"Since {tag}:", ""]
    old = before.commits
    for name, rev in now.revisions:
        was = old.get(name)
        if was == rev.commit:
            lines.append(f"- {name}: unchanged (`{rev.commit[:12]}`)")
            continue
        base = github_base(rev.url)
        if was and base:
            lines.append(f"- {name}: [`{was[:12]}...{rev.commit[:12]}`]({base}/compare/{was}...{rev.commit})")
        else:
            lines.append(f"- {name}: `{(was or 'none')[:12]}` -> `{rev.commit[:12]}`")
    return "\n".join(lines) + "\n"


def render_body(dist: Dist, changelog: str) -> str:
    """A draft's notes: what people read, marked as this tool's (``release.publish.notes``),
    with what the index lists of each wheel (``release.publish.wheel_record``)."""
    from release.publish import stored_provenance, wheel_record

    by_name = {a.name: a.digest for a in dist.assets}

    def bound(wheel: str) -> tuple[str | None, str | None]:  # both, or neither
        pair = (by_name.get(bundles.file_name(wheel)), by_name.get(stored_provenance.file_name(wheel)))
        return pair if None not in pair else (None, None)
    facts = wheel_record.to_text(wheel_record.of_wheel(a.path, a.digest, *bound(a.name)) for a in dist.wheels)
    return notes.write(notes.Notes(ours=True, index_facts=facts, text=(
        f"## jax-rocm {dist.version} ({dist.kind})\n\n"
        f"### Revisions\n\n{dist.revisions.markdown()}\n"
        f"### Changes\n\n{changelog}\n"
        f"### Checksums (SHA256SUMS)\n\n```\n{dist.checksums.rstrip()}\n```\n\n"
        f"{provenance_markdown(dist)}")))


def provenance_markdown(dist: Dist) -> str:
    """The notes' provenance section: the asset, and how to check GitHub's attestations."""
    from release.build.provenance import attestation_commands, signing_note

    if dist.provenance is None:
        return ""
    text = (f"### Provenance\n\n`{naming.PROVENANCE_ASSET}`: an in-toto statement with SLSA "
            "provenance v1 for every wheel (`release verify WHEEL... --provenance "
            f"{naming.PROVENANCE_ASSET}` checks it).\n\n")
    commands = attestation_commands(dist.provenance)
    if commands:
        text += ("GitHub attested each wheel's build (Sigstore); verify with the GitHub CLI:\n\n"
                 "```\n" + "\n".join(commands) + "\n```\n\n")
    else:
        text += f"The wheels carry no GitHub attestation: {signing_note(dist.provenance)}.\n\n"
    attested = [a.name for a in dist.assets if bundles.is_bundle(a.name)]
    if attested:
        text += ("Each attestation is also an asset beside its wheel (`<wheel>.jsonl`, one Sigstore bundle "
                 "a line): verify it offline, without a GitHub token, e.g. `sigstore verify github "
                 "--bundle <wheel>.jsonl --repository OWNER/NAME <wheel>`.\n\n")
    return text


def built_from(store: Store, release: Release, tag: str) -> RevisionMap:
    """The pins ``tag`` was built from (its revisions.json), or one line saying why not: what a
    bisect needs of each end."""
    revisions = previous_revisions(store, release)
    if revisions is None:
        raise UserError(f"{store.where}: {tag} has no readable revisions.json asset; cannot tell "
                        "which pins it was built from")
    return revisions


def previous_revisions(store: Store, previous: Release | None) -> RevisionMap | None:
    if previous is None:
        return None
    asset = next((a for a in store.list_assets(previous) if a.name == naming.REVISIONS_ASSET), None)
    if asset is None:
        return None
    with tempfile.TemporaryDirectory() as tmp:
        path = store.download_asset(previous, asset, Path(tmp) / asset.name)
        try:
            return RevisionMap.loads(path.read_text(encoding="utf-8"))
        except ValueError:
            return None


def assets_digest(digests: dict[str, str | None]) -> str | None:
    """One sha256 over every asset's name and sha256, in name order: the validated mark.
    Covering every asset (not only SHA256SUMS) means that replacing, adding or removing any asset
    after validation changes it; an asset whose digest the store does not know gives None."""
    if any(d is None for d in digests.values()):
        return None
    lines = "".join(f"{name}\0{digests[name]}\n" for name in sorted(digests))
    return hashlib.sha256(lines.encode("utf-8")).hexdigest()


# ------------------------------------------------------------------ assets


def _same(store: Store, release: Release, remote: Asset, local: LocalAsset) -> bool:
    if remote.state != "uploaded" or remote.size != local.size:
        return False
    if remote.digest is not None:
        return remote.digest == local.digest
    with tempfile.TemporaryDirectory() as tmp:  # a store that gives no digest: hash it ourselves
        return sha256_file(store.download_asset(release, remote, Path(tmp) / "asset")) == local.digest


def next_action(store: Store, release: Release, remote: list[Asset],
                wanted: tuple[LocalAsset, ...], prune: bool = True) -> tuple[str, Asset | LocalAsset, str] | None:
    """The one change that moves ``remote`` toward ``wanted``; None when they match.

    ``("delete", asset, why)``, ``("rename", asset, new name)`` or ``("upload", local, name)``.

    ``prune=False`` (a partial dist: one build cell of many) touches only the names in
    ``wanted`` and their temporary names; the other cells' assets are left alone.
    """
    by_name = {a.name: a for a in remote}
    want = {a.name: a for a in wanted}

    def base_of(name: str) -> str | None:
        return name[:-len(TEMP_SUFFIX)] if name.endswith(TEMP_SUFFIX) else None

    def mine(name: str) -> bool:
        return prune or name in want or base_of(name) in want
    for asset in remote:
        if asset.state != "uploaded" and mine(asset.name):
            return ("delete", asset, f"{asset.state} asset (interrupted upload)")
    for asset in remote:
        base = base_of(asset.name)
        if not mine(asset.name) or asset.state != "uploaded":
            continue
        if asset.name not in want and (base is None or base not in want
                                       or not _same(store, release, asset, want[base])):
            return ("delete", asset, "not part of this release")
    for local in wanted:
        current = by_name.get(local.name)
        staged = by_name.get(local.name + TEMP_SUFFIX)
        if current is not None and _same(store, release, current, local):
            if staged is not None:
                return ("delete", staged, "leftover of a finished replacement")
            continue
        if staged is not None:  # new bytes are safe under the temporary name
            if current is not None:
                return ("delete", current, "replaced by new bytes")
            return ("rename", staged, local.name)
        if current is not None:
            return ("upload", local, local.name + TEMP_SUFFIX)
        return ("upload", local, local.name)
    return None


def sync_assets(store: Store, release: Release, wanted: tuple[LocalAsset, ...], *,
                say: Say, progress: ProgressBars | None = None, prune: bool = True) -> list[dict]:
    """Converge the release's assets on ``wanted``; returns what was done."""
    done: list[dict] = []
    budget = 6 * len(wanted) + 10
    for _ in range(budget):
        action = next_action(store, release, store.list_assets(release), wanted, prune)
        if action is None:
            return done
        verb, subject, detail = action
        try:
            if isinstance(subject, LocalAsset):  # upload: the local file, under the name ``detail``
                say(f"upload {detail} ({subject.size} bytes)")
                stored = store.upload_asset(release, subject.path, detail, progress=progress)
                if stored.name != detail:
                    raise StoreError(f"{store.where} stored {detail} as {stored.name} (GitHub renames "
                                     "special characters such as '+'); a version with a local label "
                                     "cannot be published under its own file name")
                if stored.digest is not None and stored.digest != subject.digest:
                    raise StoreError(f"{subject.path}: changed while being published (sha256 "
                                     f"{stored.digest[:12]}..., expected {subject.digest[:12]}...)")
            elif verb == "delete":
                say(f"delete {subject.name}: {detail}")
                store.delete_asset(release, subject)
            else:  # rename to ``detail``
                say(f"rename {subject.name} -> {detail}")
                store.rename_asset(release, subject, detail)
        except (UncertainWrite, AssetExists) as exc:
            say(f"{verb} {subject.name}: {exc}; re-listing before going on")
        done.append({"action": verb, "asset": subject.name if verb != "upload" else detail,
                     "detail": str(detail)})
    raise StoreError(f"{store.where}: assets of {release.tag} did not settle after {budget} changes")


# ------------------------------------------------------------------ the two entry points


def with_stored_provenance(dist: Dist, directory: Path) -> Dist:
    """``dist`` with the PEP 740 provenance object of each wheel's bundle as an asset of its own
    (``release.publish.stored_provenance``: the index copies it), written under ``directory``."""
    from release.publish import stored_provenance

    made = stored_provenance.made(((a.name, a.digest) for a in dist.wheels),
                                  {a.name: a.path for a in dist.assets if bundles.is_bundle(a.name)})
    extra = []
    for name, data in sorted(made.items()):
        (directory / name).write_bytes(data)  # a fresh folder of ours
        extra.append(LocalAsset(name, directory / name, len(data), hashlib.sha256(data).hexdigest()))
    return dataclasses.replace(dist, assets=(*dist.assets, *extra)) if extra else dist


def publish_draft(store: Store, dist: Dist, *, say: Say = lambda _: None,
                  progress: ProgressBars | None = None) -> dict:
    """Make the draft of ``dist.tag`` hold exactly ``dist``'s assets (with the provenance objects
    made of its bundles) and notes."""
    with tempfile.TemporaryDirectory(prefix="release-publish-") as tmp:
        return _publish_draft(store, with_stored_provenance(dist, Path(tmp)), {a.name for a in dist.assets},
                              say=say, progress=progress)


def _publish_draft(store: Store, dist: Dist, given: set[str], *, say: Say,
                   progress: ProgressBars | None) -> dict:
    releases = store.list_releases()
    published = next((r for r in releases if not r.draft and r.tag == dist.tag), None)
    if published is not None:
        return _already_published(store, published, dist, say, given)
    previous = previous_release(releases, dist.version)
    body = render_body(dist, changelog_markdown(previous, previous_revisions(store, previous), dist.revisions))
    name = f"jax-rocm {dist.version}"
    draft = store.find_or_create_draft(dist.tag, name=name, body=body,
                                       prerelease=versions.is_prerelease(dist.kind),
                                       target=dist.revisions.release_commit, say=say)
    notes_updated = not notes.same_text(draft.body, body, f"{dist.tag}'s notes") or draft.name != name
    if notes_updated:
        say(f"update the notes of draft {draft.id}")
        kept = notes.of(draft).smoke  # the smoke gate's verdict stays with the draft
        draft = store.update_release(draft, name=name,
                                     body=notes.write(dataclasses.replace(notes.read(body), smoke=kept)))
    actions = sync_assets(store, draft, dist.assets, say=say, progress=progress)
    remote = {a.name: a for a in store.list_assets(draft)}
    if sorted(remote) != sorted(a.name for a in dist.assets) or not all(
            remote[a.name].digest in (a.digest, None) and remote[a.name].size == a.size for a in dist.assets):
        raise StoreError(f"{store.where}: draft {draft.id} of {dist.tag} does not hold the dist's assets")
    return {"status": "draft", "tag": dist.tag, "version": dist.version, "store": store.kind,
            "where": store.where, "release_id": draft.id, "url": draft.html_url,
            "previous": previous.tag if previous else None, "actions": actions,
            "changed": bool(actions) or notes_updated, "assets": _asset_rows(dist)}


def _asset_rows(dist: Dist) -> list[dict]:
    return [{"name": a.name, "size": a.size, "sha256": a.digest} for a in dist.assets]


def publish_partial(store: Store, dist: Dist, *, say: Say = lambda _: None,
                    progress: ProgressBars | None = None) -> dict:
    """Add one build cell's wheels (and revisions.json) to the draft; never remove other assets.

    The cells of a split build share the draft; each re-runs safely. revisions.json must be
    identical across cells: a cell built from other pins is refused.
    """
    if store.published_for(dist.tag) is not None:
        raise UserError(f"{store.where}: release {dist.tag} is already published and immutable; "
                        "a partial upload cannot change it")
    draft = store.find_or_create_draft(dist.tag, name=f"jax-rocm {dist.version}",
                                       body=f"{dist.kind} {dist.version}: wheels are being built.",
                                       prerelease=versions.is_prerelease(dist.kind),
                                       target=dist.revisions.release_commit, say=say)
    theirs = next((a for a in store.list_assets(draft) if a.name == naming.REVISIONS_ASSET), None)
    ours = next(a for a in dist.assets if a.name == naming.REVISIONS_ASSET)
    if theirs is not None and theirs.state == "uploaded" and not _same(store, draft, theirs, ours):
        raise UserError(f"{store.where}: the draft of {dist.tag} holds a different "
                        f"{naming.REVISIONS_ASSET}: this cell was built from other pins than the others")
    actions = sync_assets(store, draft, dist.assets, say=say, progress=progress, prune=False)
    return {"status": "partial", "tag": dist.tag, "version": dist.version, "store": store.kind,
            "where": store.where, "release_id": draft.id, "url": draft.html_url, "actions": actions,
            "changed": bool(actions), "assets": _asset_rows(dist)}


def _already_published(store: Store, published: Release, dist: Dist, say: Say, given: set[str]) -> dict:
    """Nothing to do when the release holds the dist's assets; the provenance objects publish
    makes (not in ``given``) may be missing: a release published before them has none."""
    remote = {a.name: a for a in store.list_assets(published)}
    differ = sorted({a.name for a in dist.assets if (a.name not in remote and a.name in given)
                     or (a.name in remote and not _same(store, published, remote[a.name], a))}
                    | (set(remote) - {a.name for a in dist.assets}))
    if differ:
        raise UserError(f"{store.where}: release {dist.tag} is published and immutable, and "
                        f"{', '.join(differ)} differ from {dist.directory}; publish a new version "
                        "(for a release, a .postN) instead")
    for draft in store.our_drafts(dist.tag):
        say(f"delete leftover draft {draft.id} of published {dist.tag}")
        store.delete_release(draft)
    say(f"{dist.tag} is already published with these exact assets; nothing to do")
    return {"status": "published", "tag": dist.tag, "version": dist.version, "store": store.kind,
            "where": store.where, "release_id": published.id, "url": published.html_url,
            "actions": [], "changed": False, "assets": [{"name": a.name, "size": a.size, "sha256": a.digest}
                                      for a in dist.assets if a.name in remote]}


def current_assets_digest(store: Store, release: Release) -> str | None:
    return assets_digest({a.name: a.digest for a in store.list_assets(release)})


def record_upload(dist: Dist, store: Store, result: dict) -> None:
    """Note in dist/<version>/manifest.json where the assets went (what a resumed job reads):
    step ``publish`` (or ``publish_partial``), fingerprinted by the store and the assets."""
    from release.core.manifest import Manifest, fingerprint
    step = "publish_partial" if result["status"] == "partial" else "publish"
    Manifest.load(dist.directory).record(
        step, fingerprint({"store": store.kind, "where": store.where,
                           "assets": {a.name: a.digest for a in dist.assets}}),
        {"tag": result["tag"], "release_id": result["release_id"], "store": store.kind,
         "where": store.where, "status": result["status"]})


def undraft(store: Store, tag: str, *, say: Say = lambda _: None, majors: Sequence[int] | None = None) -> dict:
    """Publish the validated draft of ``tag``: prerelease for nightlies and rcs, latest for releases.
    ``majors``: the ROCm majors the line builds, every one of which the draft must hold whole
    (``release.core.pairing``)."""
    version = naming.version_of_tag(tag, flag="--undraft")
    kind = versions.kind_of(version)
    published = store.published_for(tag)
    drafts = store.our_drafts(tag)
    if published is not None:
        for draft in drafts:
            say(f"delete leftover draft {draft.id} of published {tag}")
            store.delete_release(draft)
        say(f"{tag} is already published; nothing to do")
        return {"status": "published", "tag": tag, "release_id": published.id, "changed": False,
                "url": published.html_url, "store": store.kind, "where": store.where}
    if not drafts:
        raise UserError(f"{store.where}: no draft of {tag}; run `release publish dist/{version}` first")
    draft, *extra = drafts
    for dup in extra:
        say(f"delete duplicate draft {dup.id} of {tag}")
        store.delete_release(dup)
    record = notes.of(draft)
    marked = record.validated
    actual = current_assets_digest(store, draft)
    if marked is None or marked != actual:
        raise UserError(f"{store.where}: draft {draft.id} of {tag} has not passed "
                        f"`release validate {tag}` with its current assets; validate it first")
    if record.smoke_verdict == "FAILED":
        raise UserError(f"{store.where}: draft {draft.id} of {tag} failed the ROCm smoke test "
                        "(see its notes); it is not published")
    half = pairing.problems([(a.name, None) for a in store.list_assets(draft) if core_metadata.is_wheel(a.name)],
                            majors)
    if half:
        raise UserError(f"{store.where}: draft {draft.id} of {tag} is not a whole release, so it is "
                        f"not published: {half[0]}")
    prerelease, latest = versions.is_prerelease(kind), versions.is_latest(kind)
    try:
        result = store.publish(draft, prerelease=prerelease, make_latest=latest)
    except TagTaken:
        now = store.published_for(tag)
        if now is None or now.id != draft.id:
            raise
        result = now  # an earlier attempt that got no answer did publish it
    say(f"published {tag}" + (" (prerelease)" if prerelease else " (latest)" if latest else ""))
    return {"status": "published", "tag": tag, "release_id": result.id, "url": result.html_url,
            "changed": True, "prerelease": prerelease, "make_latest": latest, "store": store.kind, "where": store.where}
