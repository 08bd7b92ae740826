"""The PyPI step: a published GitHub release's exact validated bytes go to a package index,
the pjrt wheel first, both wheels or neither.

Which bytes: the release's assets must be the ones ``release validate`` marked in its notes
(the mark is one digest over every asset's name and sha256), every wheel's line in
``SHA256SUMS`` must agree, and every file sent must hash to its asset's sha256; a wheel is
taken from ``dist/<version>/`` when it matches, else downloaded from the release. Never a rebuild.

Before anything is uploaded: the release is published and of a kind that goes to PyPI
(releases and post releases: nightlies would fill the project's quota, and an rc is below
the release ``jax[rocm]`` asks for, so none of its users would get it), it holds one pjrt
wheel and plugin wheels of its version (no local label, which PyPI refuses), every file fits
the index's per-file limit and each project's total its per-project limit (``pypi_budget``:
what would not fit is one line, exit 2), every attestation asked for is there and names its wheel, and the index
is asked what it holds: a file there with other bytes stops the run (exit 3).

Then the pjrt wheel, then each plugin: a plugin visible without its pjrt breaks
``jax[rocm]`` for everyone. A file already there with the same sha256 is skipped, so a re-run
after any failure uploads only what is missing. After each upload the index is asked what it
lists before the next file goes (an index may answer 200 and not list the file): until it lists
that file with its sha256, waiting ``READBACK_WAITS`` between asks, then exit 3 with nothing more
sent. The run says done only when the index lists every file, and the release notes say what
reached it (``update_notes``; a published release's notes may change).
"""

from __future__ import annotations

import dataclasses
import re
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Sequence

import requests
from packaging.version import Version

from release.core import core_metadata, naming, pairing, versions
from release.core.checksums import parse as parse_sums
from release.core.checksums import sha256_file
from release.core.errors import RemoteError, UserError
from release.core.redact import display_url
from release.core.safe_names import plain_file_name
from release.publish import attestations, notes, pypi_budget
from release.publish.drafts import assets_digest
from release.publish.pypi_budget import (  # noqa: F401 (the sizes' names, as they were here)
    DEFAULT_FILE_LIMIT,
    MIB,
    ProjectLimits,
    parse_size,
    project_limits_default,
    show_size,
)
from release.publish.pypi_index import Repository, index_files, upload, upload_fields, with_credentials

if TYPE_CHECKING:
    from release.core.output import ProgressBars, Say
    from release.publish.stores import Release, Store

KINDS_FOR_PYPI = ("release", "post")
FILE_LIMIT_ENV = "RELEASE_PYPI_FILE_LIMIT"


READBACK_WAITS = (1.0, 2.0, 4.0, 8.0, 15.0, 30.0)  # seconds between asks of a listing that lacks a file


class IndexConflict(RemoteError):
    """The index holds a file of this name with other bytes: nothing more is uploaded, exit 3."""


class NotListed(RemoteError):
    """The index took a file (2xx) but does not list it: nothing more is uploaded, exit 3."""


@dataclasses.dataclass(frozen=True)
class Wheel:
    """One file of the release, as it goes to the index."""

    name: str
    sha256: str
    project: str      # the distribution name
    role: str         # "pjrt" | "plugin"
    pyversion: str    # the upload API's python tag field
    path: Path | None = None  # the staged bytes, once they are here
    size: int | None = None


@dataclasses.dataclass(frozen=True)
class ReleaseFiles:
    tag: str
    version: str
    release: Release
    wheels: tuple[Wheel, ...]  # pjrt first, then the plugins by name
    provenance: dict
    work: Path


def _order(wheel: Wheel) -> tuple[int, str]:
    return (0 if wheel.role == "pjrt" else 1, wheel.name)


def read_release(store: Store, tag: str, work: Path, *, say: Say, progress: ProgressBars | None = None,
                 majors: Sequence[int] | None = None) -> ReleaseFiles:
    """The published release of ``tag``: its validated SHA256SUMS, wheels and provenance,
    checked (module docstring). Wheels are not fetched yet (``stage``)."""
    from release.build import provenance as provenance_file

    version = naming.version_of_tag(tag)
    kind = versions.kind_of(version)
    if kind not in KINDS_FOR_PYPI:
        why = ("an rc sorts below the release jax[rocm] asks for, so it would reach nobody but fill the "
               "project's quota" if kind == "rc" else "nightlies would fill the project's quota in weeks")
        raise UserError(f"{tag}: a {kind}; PyPI gets releases and post releases only ({why})")
    if Version(version).local:
        raise UserError(f"{tag}: version {version} has a local label, which PyPI refuses")
    release = store.published_for(tag)
    if release is None:
        hint = " (a draft exists: validate and publish it first)" if store.our_drafts(tag) else ""
        raise UserError(f"{store.where}: {tag} is not published{hint}; PyPI gets only published releases")
    marked = notes.of(release).validated
    if marked is None:
        raise UserError(f"{store.where}: {tag}'s notes carry no validated mark; only bytes that passed "
                        "`release validate` go to PyPI")
    assets = {a.name: a for a in store.list_assets(release)}
    if assets_digest({name: a.digest for name, a in assets.items()}) != marked:
        raise UserError(f"{store.where}: {tag}'s assets are not the ones `release validate` marked "
                        "(or the store does not report their sha256); nothing was uploaded")
    digests = {name: (a.digest or "").removeprefix("sha256:") for name, a in assets.items()}
    for needed in (naming.CHECKSUMS_ASSET, naming.PROVENANCE_ASSET):
        if needed not in digests:
            raise UserError(f"{store.where}: {tag} has no {needed}; the upload checks against it")
    work.mkdir(parents=True, exist_ok=True)
    sums_path = _fetch(store, release, assets, naming.CHECKSUMS_ASSET, digests[naming.CHECKSUMS_ASSET],
                       work, work, say, progress)
    sums = parse_sums(sums_path.read_text(encoding="utf-8"), f"{tag} {naming.CHECKSUMS_ASSET}")
    prov_path = _fetch(store, release, assets, naming.PROVENANCE_ASSET, digests[naming.PROVENANCE_ASSET],
                       work, work, say, progress)
    wheels = []
    for name, digest in sorted(digests.items()):
        if not name.endswith(".whl"):
            continue
        if sums.get(name) != digest:
            raise UserError(f"{tag}: {naming.CHECKSUMS_ASSET} says {str(sums.get(name))[:12]}... for {name}, "
                            f"the release holds {str(digest)[:12]}...; nothing was uploaded")
        ident = naming.Identity.of(name)
        if ident.kind is None or ident.version != version:
            raise UserError(f"{tag}: {name} is not a jax-rocm wheel of {version}")
        tags = sorted({t.split("-")[0] for t in ident.tags})
        wheels.append(Wheel(name, digest, str(ident.dist), ident.kind, ".".join(tags), size=assets[name].size))
    by_major: dict[int, list[str]] = {}
    for w in wheels:  # each a jax-rocm wheel (checked above), so of a major
        by_major.setdefault(naming.Identity.of(w.name).rocm_major or 0, []).append(w.role)
    for major, roles in sorted(by_major.items()) or [(0, [])]:
        if roles.count("pjrt") != 1 or "plugin" not in roles:
            raise UserError(f"{tag}: {roles.count('pjrt')} pjrt and {roles.count('plugin')} plugin wheels"
                            f"{f' of ROCm {major}' if major else ''}; PyPI gets each ROCm major's one pjrt "
                            "wheel with its plugins, both or neither")
    half = pairing.problems([(w.name, None) for w in wheels], majors)
    if half:
        raise UserError(f"{tag} is not a whole release, so nothing goes to PyPI: {half[0]}")
    return ReleaseFiles(tag, version, release, tuple(sorted(wheels, key=_order)),
                        provenance_file.load(prov_path), work)


def _fetch(store: Store, release: Release, assets: dict, name: str, sha256: str, local_dir: Path,
           work: Path, say: Say, progress: ProgressBars | None) -> Path:
    """``name`` with exactly ``sha256``: from ``local_dir`` or ``work`` when it matches there,
    else downloaded from the release into ``work`` and checked. ``name`` comes from the store:
    a plain file name, or one line (exit 2) before it is joined to a folder."""
    dest = work / plain_file_name(name, f"{store.where}: {release.tag}'s asset")
    if dest.is_file() and sha256_file(dest) == sha256:
        return dest
    local = local_dir / name
    if local_dir != work and local.is_file() and sha256_file(local) == sha256:
        return _place(local, dest)
    asset = assets.get(name)
    if asset is None:
        raise UserError(f"{store.where}: release {release.tag} has no asset {name}")
    say(f"download {name}")
    store.download_asset(release, asset, dest, progress=progress)
    found = sha256_file(dest)
    if found != sha256:
        dest.unlink()
        raise RemoteError(f"{store.where}: {release.tag}'s {name} hashes to {found[:12]}..., not the "
                          f"validated {sha256[:12]}...; nothing was uploaded")
    return dest


def _place(source: Path, dest: Path) -> Path:
    """``source`` at ``dest`` (a hard link, else a copy, renamed into place): the work directory
    holds every wheel, so Sigstore signs, and the upload sends, the files checked there."""
    import os
    import shutil
    tmp = dest.with_name(dest.name + ".part")
    tmp.unlink(missing_ok=True)
    try:
        os.link(source, tmp)
    except OSError:
        shutil.copyfile(source, tmp)
    os.replace(tmp, dest)
    return dest


def stage(store: Store, files: ReleaseFiles, dist_dir: Path, *, say: Say,
          progress: ProgressBars | None = None) -> ReleaseFiles:
    """Every wheel's exact bytes in the work directory (from ``dist_dir`` when they match, else
    downloaded), with the statements Sigstore signs written beside them
    (``attestations.write_for_signing``)."""
    assets = {a.name: a for a in store.list_assets(files.release)}
    staged = []
    for wheel in files.wheels:
        path = _fetch(store, files.release, assets, wheel.name, wheel.sha256, dist_dir, files.work, say, progress)
        staged.append(dataclasses.replace(wheel, path=path, size=path.stat().st_size))
    attestations.write_for_signing(files.work, files.provenance, {w.name: w.sha256 for w in staged})
    return dataclasses.replace(files, wheels=tuple(staged))


def _held(index_url: str, projects: set[str], session: requests.Session) -> dict[str, str | None]:
    held: dict[str, str | None] = {}
    for project in sorted(projects):
        held.update(index_files(index_url, project, session=session))
    return held


def _conflicts(wheels: tuple[Wheel, ...], held: dict[str, str | None]) -> list[str]:
    """Files the index lists under a wheel's name without that wheel's sha256 (a listing
    without a hash cannot prove the same bytes, so it counts as other bytes)."""
    return [f"{w.name} (index: {str(held[w.name])[:12]}..., release: {w.sha256[:12]}...)"
            if held[w.name] else f"{w.name} (the index gives no sha256 to compare)"
            for w in wheels if w.name in held and held[w.name] != w.sha256]


def _refuse(index_url: str, conflicts: list[str], done: list[str]) -> IndexConflict:
    sent = f"; uploaded before this: {', '.join(done)}" if done else "; nothing was uploaded"
    return IndexConflict(f"{display_url(index_url)} already holds other bytes for {'; '.join(conflicts)}"
                         f"{sent}. A file name on PyPI is never reused: publish a .postN")


def read_back(index_url: str, wheels: tuple[Wheel, ...], done: list[str], session: requests.Session, *,
              say: Say, sleep: Callable[[float], None]) -> dict[str, str | None]:
    """What the index lists of ``wheels``' projects once it lists every one of ``wheels`` with
    its sha256, asking again after each of ``READBACK_WAITS``; other bytes under a name are
    ``IndexConflict`` at once, and a file still missing after the last wait ``NotListed``."""
    waits = iter(READBACK_WAITS)
    waited = 0.0
    while True:
        listed = _held(index_url, {w.project for w in wheels}, session)
        conflicts = _conflicts(wheels, listed)
        if conflicts:
            raise _refuse(index_url, conflicts, done)
        missing = [w.name for w in wheels if w.name not in listed]
        if not missing:
            return listed
        pause = next(waits, None)
        if pause is None:
            sent = f"uploaded: {', '.join(done)}" if done else "nothing was uploaded"
            raise NotListed(f"{display_url(index_url)} does not list {', '.join(missing)} after {waited:g} s "
                            f"though it accepted the upload ({sent}); nothing more was sent, so no plugin is "
                            "there without its pjrt: re-run `release pypi-upload` once the index lists it")
        say(f"the index does not list {', '.join(missing)} yet; asking again in {pause:g} s")
        sleep(pause)
        waited += pause


def upload_release(files: ReleaseFiles, repository: Repository, *, attach: bool, dry_run: bool,
                   say: Say, progress: ProgressBars | None = None,
                   session: requests.Session | None = None,
                   sleep: Callable[[float], None] = time.sleep) -> dict[str, Any]:
    """Upload the staged wheels that the index lacks, pjrt first, each listed by the index
    before the next goes (``read_back``); skip what it holds with the same sha256; refuse
    (``IndexConflict``) a file it holds with other bytes."""
    session = session or requests.Session()
    proofs = {w.name: (attestations.load_attestations(files.work, w.name, w.sha256, files.provenance)
                       if attach else []) for w in files.wheels}
    missing_proof = [name for name, found in proofs.items() if attach and not found]
    if missing_proof:
        raise UserError(f"--attestations: no {missing_proof[0]}.<kind>.attestation in {files.work} "
                        f"({len(missing_proof)} wheel(s) lack one); sign the staged wheels first")
    index_url = repository.index_url
    projects = {w.project for w in files.wheels}
    held = _held(index_url, projects, session)
    conflicts = _conflicts(files.wheels, held)
    if conflicts:
        raise _refuse(index_url, conflicts, [])
    rows: list[dict[str, Any]] = []
    done: list[str] = []
    if not dry_run and any(w.name not in held for w in files.wheels):
        repository = with_credentials(repository, session=session)
    for wheel in files.wheels:
        assert wheel.path is not None
        if wheel.name in held:
            say(f"{wheel.name}: on the index with the same sha256; skipped")
            rows.append(_row(wheel, "present"))
            continue
        if dry_run:
            rows.append(_row(wheel, "would upload"))
            continue
        say(f"upload {wheel.name} ({show_size(wheel.size or 0)}) to {repository.shown()}")
        meta = core_metadata.read(wheel.path)
        fields = upload_fields(wheel.path, meta, wheel.pyversion, wheel.sha256, proofs[wheel.name])
        answer = upload(repository, wheel.path, fields, session=session, progress=progress)
        if answer.outcome == "exists":  # a run that got no answer stored it, or someone else did
            now = index_files(index_url, wheel.project, session=session)
            if now.get(wheel.name) != wheel.sha256:
                raise _refuse(index_url, _conflicts((wheel,), now) or [f"{wheel.name} ({answer.reason})"],
                              done)
            rows.append(_row(wheel, "present"))
            continue
        done.append(wheel.name)
        rows.append(_row(wheel, "uploaded", attestations=len(proofs[wheel.name])))
        read_back(index_url, (wheel,), done, session, say=say, sleep=sleep)  # before the next file
    listed = held if dry_run else read_back(index_url, files.wheels, done, session, say=say, sleep=sleep)
    for row in rows:
        row["listed"] = row["name"] in listed
    complete = all(row["listed"] for row in rows)
    return {"tag": files.tag, "version": files.version, "index": display_url(index_url),
            "repository": repository.shown(), "credentials": repository.source, "dry_run": dry_run,
            "files": rows, "uploaded": done, "complete": complete, "work": str(files.work)}


def _row(wheel: Wheel, action: str, attestations: int = 0) -> dict[str, Any]:
    return {"name": wheel.name, "project": wheel.project, "role": wheel.role, "sha256": wheel.sha256,
            "size": wheel.size, "action": action, "attestations": attestations}


def index_state(files: ReleaseFiles, index_url: str, session: requests.Session | None = None) -> dict[str, Any]:
    """What the index holds of the release, as the notes record it (no credentials needed)."""
    held = _held(index_url, {w.project for w in files.wheels}, session or requests.Session())
    rows = [{"name": w.name, "sha256": w.sha256, "listed": held.get(w.name) == w.sha256,
             "other_bytes": w.name in held and held[w.name] != w.sha256} for w in files.wheels]
    return {"index": display_url(index_url), "files": rows, "complete": all(r["listed"] for r in rows)}


def notes_section(state: dict[str, Any]) -> str:
    """The release notes' PyPI section (``Notes.pypi``): each wheel and whether the index holds
    exactly it."""
    rows = [f"| `{r['name']}` | `{r['sha256'][:16]}...` | "
            + ("yes" if r["listed"] else "OTHER BYTES" if r.get("other_bytes") else "not yet") + " |"
            for r in state["files"]]
    verdict = ("Both wheels are on the index." if state["complete"] else
               "Not every wheel is on the index yet; a re-run of `release pypi-upload` completes it.")
    return (f"### PyPI\n\n{verdict} Index: {state['index']}\n\n"
            "| file | sha256 | on the index |\n|---|---|---|\n" + "\n".join(rows))


def update_notes(store: Store, release: Release, state: dict[str, Any], say: Say) -> str:
    """Write the PyPI section into the published release's notes: ``updated`` or ``unchanged``."""
    body = notes.changed(release, pypi=notes_section(state))
    if body == release.body:
        return "unchanged"
    store.update_release(release, body=body)
    say(f"release notes of {release.tag}: PyPI section updated")
    return "updated"


@dataclasses.dataclass(frozen=True)
class PypiSettings:
    """What ``release pypi-upload`` and the cut job's PyPI step take (flags of the same names)."""

    dist_root: Path
    repository_url: str | None = None   # else $TWINE_REPOSITORY_URL, else ~/.pypirc
    repository: str | None = None       # the ~/.pypirc section (default pypi)
    config_file: Path | None = None     # default ~/.pypirc
    index_url: str | None = None        # the simple API to ask (default: from the upload URL)
    file_limit: int = DEFAULT_FILE_LIMIT
    project_limits: ProjectLimits | None = None  # else $RELEASE_PYPI_PROJECT_LIMIT, else PyPI's
    attach: bool = False                # upload <wheel>.*.attestation with each wheel
    dry_run: bool = False
    notes: str = "update"               # "update" | "skip" | "only"
    work: Path | None = None            # default <dist>/<version>/pypi
    majors: tuple[int, ...] | None = None  # the line's ROCm majors, each whole (None: each major present)


def file_limit_default(env: dict[str, str] | None = None) -> int:
    import os
    text = (os.environ if env is None else env).get(FILE_LIMIT_ENV, "").strip()
    return parse_size(text, f"${FILE_LIMIT_ENV}") if text else DEFAULT_FILE_LIMIT


def default_dist_root(root: Path | None) -> Path:
    """Where the jobs wrote ``dist/<version>/``: ``<root>/dist`` of the project here, else ``./dist``."""
    from release.core.project_root import find_root
    if root is not None:
        return root / "dist"
    try:
        return find_root() / "dist"
    except UserError:
        return Path("dist")


def outputs_of(result: dict[str, Any]) -> dict[str, str]:
    """``$GITHUB_OUTPUT`` of an upload: what went up, whether both wheels are listed, the work dir."""
    return {"uploaded": " ".join(result.get("uploaded", [])),
            "complete": str(result.get("complete", False)).lower(), "work": result.get("work", "")}


def summary_of(result: dict[str, Any]) -> str:
    """The run's summary: each file and what happened to it."""
    return f"### PyPI: {result['tag']}\n\n" + "".join(
        f"- `{f['name']}`: {f.get('action', 'listed' if f.get('listed') else 'not listed')}\n"
        for f in result.get("files", []))


def publish_to_pypi(store: Store, tag: str, settings: PypiSettings, *, say: Say,
                    progress: ProgressBars | None = None, session: requests.Session | None = None) -> dict[str, Any]:
    """The whole step: read and check the release, stage its bytes, check the limit, upload
    what the index lacks (pjrt first), then record in the notes what the index holds."""
    from release.publish.pypi_index import find_repository

    session = session or requests.Session()
    version = naming.version_of_tag(tag)
    work = settings.work or settings.dist_root / version / "pypi"
    repository = find_repository(url=settings.repository_url, name=settings.repository,
                                 index_url=settings.index_url, config_file=settings.config_file)
    files = read_release(store, tag, work, say=say, progress=progress, majors=settings.majors)
    result: dict[str, Any] = {"tag": tag, "version": version, "index": display_url(repository.index_url)}
    if settings.notes != "only":
        limits = settings.project_limits or project_limits_default()
        # both limits by the sizes the release lists: before any download, before any upload
        budget = pypi_budget.check(files.wheels, repository.index_url, settings.file_limit, limits,
                                   session=session)
        listed = {w.name: w.size for w in files.wheels}
        files = stage(store, files, settings.dist_root / version, say=say, progress=progress)
        if any(listed[w.name] != w.size for w in files.wheels):  # a store that lists no or other sizes
            budget = pypi_budget.check(files.wheels, repository.index_url, settings.file_limit, limits,
                                       session=session)
        result = upload_release(files, repository, attach=settings.attach, dry_run=settings.dry_run,
                                say=say, progress=progress, session=session)
        result["budget"] = [use.to_json() for use in budget]
    if settings.notes == "skip" or settings.dry_run:
        result["notes"] = "skipped"
        return result
    state = index_state(files, repository.index_url, session)
    result.setdefault("files", state["files"])
    result["complete"] = state["complete"]
    result["notes"] = update_notes(store, files.release, state, say)
    return result


def presence(index_url: str | None, projects: Sequence[str], version_list: list[str], *,
             timeout: float = 10.0, session: requests.Session | None = None) -> dict[str, Any]:
    """Which of ``version_list`` the index holds, per version: ``both``, ``pjrt only``,
    ``plugin only`` (a broken ``jax[rocm]``) or ``none``; ``projects``: (pjrt, plugin) of each ROCm
    major the line builds, and with several majors ``both`` means every major's pair, else each
    major is said (``ROCm 7: both; ROCm 10: none``). One request per project, each whole page
    within ``timeout`` seconds; an index that cannot be asked is a note, never a failure
    (``release status``)."""
    from release.core.naming import Identity
    from release.publish.pypi_index import IndexUnavailable

    if not index_url:
        return {"index": None, "checked": False, "versions": {}, "note": "PyPI not checked (no index)"}
    session = session or requests.Session()
    found: dict[tuple[str, int | None], set[str]] = {}
    majors: list[int | None] = []
    try:
        for n, project in enumerate(projects):
            role = ("pjrt", "plugin")[n % 2]
            named = re.match(r"jax-rocm(\d+)-", project)
            major = int(named.group(1)) if named else None
            if major not in majors:
                majors.append(major)
            for name in index_files(index_url, project, session=session, timeout=timeout, deadline=timeout):
                parsed = Identity.of(name).version
                if parsed is None:
                    continue
                found.setdefault((parsed, major), set()).add(role)
    except IndexUnavailable as exc:
        return {"index": display_url(index_url), "checked": False, "versions": {},
                "note": f"PyPI not checked: {exc}"}
    def state(roles: set[str]) -> str:
        return "both" if roles == {"pjrt", "plugin"} else f"{next(iter(roles))} only" if roles else "none"
    shown = {}
    for version in version_list:
        states = [(m, state(found.get((str(Version(version)), m), set()))) for m in majors]
        shown[version] = ("both" if all(s == "both" for _, s in states) else states[0][1] if len(states) == 1
                          else "; ".join(f"ROCm {m}: {s}" for m, s in states))
    return {"index": display_url(index_url), "checked": True, "versions": shown}
