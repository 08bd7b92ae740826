"""Validate a draft release as a user would receive it, before it can be published.

Named steps, in order; each adds to one ``Validation`` (problems, warnings, what was checked):

1. ``download``: the assets from the store (not the local dist directory); a name that is not
   a plain file name (``../x``, ``.x``, NUL) is refused before it is joined to a path.
2. ``check_files``: SHA256SUMS, revisions.json, per ROCm major one PJRT wheel and plugin
   wheels, all of the tag's version, and nothing that is not a jax-rocm wheel; the set is whole
   (``release.core.pairing``: every plugin's ``Requires-Dist`` PJRT is in the draft, every major
   of the line there) and holds every (major, Python) cell of the line; each
   ``<wheel>.metadata`` is its wheel's METADATA byte for byte (``release.core.core_metadata``).
   ``provenance``: the in-toto statement's subjects and dependencies match (``release.build.provenance``).
3. ``verify``: ``release.check.verify`` over the wheels together (every check, the pair check, the
   Bazel config's RUNPATH, and the bound on inflated size, so a zip bomb never reaches pip).
4. ``install`` (``release.check.validate_install``): only when everything above passed. The
   draft's wheels are served as a PEP 503 index on 127.0.0.1 and, for every (ROCm major,
   Python) cell the draft carries a plugin wheel for, each in venvs of its own, the README's
   install lines of the line (``pip install --pre jax-rocmN-plugin==X.Y.Z.*``, as the line's
   users pin it, and for the newest line only, where there is a public index, also the unpinned
   ``pip install --pre jax-rocmN-plugin``: ``resolver.line_requirements``), with that index merged with the public
   one, are resolved in a fresh venv of an interpreter of that version, each once: the pinned
   line installs for real, the unpinned one is a dry run (``--ignore-installed``: as in an empty
   venv); pip's ``--report`` of each must name the draft's files, not a version of the line from
   the public index. Then ``__version__`` and ``commit_info.commits`` of both installed packages
   must match the tag and revisions.json. Then, with a public index, as users install
   (``release.check.user_install``): jax with the extra jax documents for the cell's major
   (``jax[rocmN-local]``), jaxlib of the line and the cell's pair in one resolve, with pip and
   with uv, each into a fresh venv; the files pip took from the public
   index (its ``--report``) are described as that index names them (``release.check.public_set``)
   and recorded with the mark, for the channel indexes. Then the line users without a system ROCm
   type (``jax[rocmN]``, the plugin's ``with-rocm`` extra, TheRock's runtime wheels from
   ``rocm_index``) is resolved from metadata alone with pip and uv (``release.check.with_rocm_path``)
   and kept in the cell's ``with_rocm``. Results are keyed by the cell. A Python
   with no interpreter on this machine leaves its cells untested: a warning; a problem with ``require_all_pythons`` (or
   ``$RELEASE_REQUIRE_ALL_PYTHONS=1``, as CI sets where its image has every Python).
5. ``lock``: only when all passed, one PEP 751 lock per cell installed as users install
   (``pylock.rocmN-py3X.toml``, ``release.core.locks``: pip's report of that install, every file
   with its sha256) goes on the draft; locks are validate's own assets (not in SHA256SUMS).
6. ``mark``: only when all passed, the draft's notes get the SHA256SUMS digest (``publish
   --undraft`` checks it) and each cell's with-rocm line (``release.publish.with_rocm_notes``,
   which status and the page read). A failure changes nothing and lists every reason.

Each run works in ``<tmp>/release-validate-<pid>-*``; folders of runs whose process is gone
(a killed validate leaves its venvs) are removed by the next run.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from packaging.version import Version

from release.build import provenance
from release.check import interpreters, resolver
from release.check.validate_install import InstallOptions, step_install
from release.check.validation import Validation
from release.core import bundles, cells, checksums, core_metadata, locks, naming, pairing
from release.core.checksums import sha256_file
from release.core.errors import UserError
from release.core.naming import Identity
from release.core.processes import alive
from release.core.public_index import check_rocm_index, rocm_index_default
from release.core.revisions import RevisionMap
from release.core.safe_names import file_name_problem
from release.core.scan import Headers
from release.publish import notes, stored_provenance
from release.publish.drafts import LocalAsset, assets_digest, sync_assets
from release.publish.stores import Release, Store

if TYPE_CHECKING:
    from release.core.config import Project
    from release.core.output import ProgressBars, Say

WORKDIR_PREFIX = "release-validate-"
REQUIRE_ALL_PYTHONS_ENV = "RELEASE_REQUIRE_ALL_PYTHONS"  # "1": an untested Python fails
FROM_ENV = "from-env"  # public_index default: $RELEASE_PUBLIC_INDEX, else pip's own index

def find_target(store: Store, tag: str) -> tuple[Release, bool]:
    """The draft of ``tag`` (or its published release, validated read-only)."""
    drafts = store.our_drafts(tag)
    if drafts:
        return drafts[0], True
    published = store.published_for(tag)
    if published is not None:
        return published, False
    raise UserError(f"{store.where}: no draft or release of {tag}; run `release publish` first")


def line_of_project(project: Project, version: str) -> tuple[tuple[int, ...] | None, tuple[str, ...] | None]:
    """(ROCm majors, Pythons) the project's line builds, as ``validate`` checks a draft of
    ``version`` against (version_info.json's ``rocm_versions`` and ``pythons``); (None, None) for a
    draft of another line (its own branch says what it builds)."""
    info = project.version_info
    if Version(version).base_version != Version(info.version).base_version:
        return None, None
    return info.rocm_majors, info.pythons


def validate(store: Store, tag: str, *, say: Say = lambda _: None, progress: ProgressBars | None = None,
             python: str | None = None, pythons: Sequence[str] = (), mark: bool = True,
             runpath: tuple[str, ...] = (), public_index: str | None = FROM_ENV,
             require_all_pythons: bool | None = None, search_path: str | None = None,
             workdir_root: Path | None = None, line_majors: Sequence[int] | None = None,
             line_pythons: Sequence[str] | None = None, rocm_index: str | None = FROM_ENV) -> Validation:
    """Check the draft (or published release) of ``tag``.

    ``python``/``pythons``: interpreters to install with (others are looked for per Python
    the draft carries); ``runpath``: entries every shared object must carry (the Bazel
    config's); ``public_index``: the index the draft's is merged with (a URL, ``"none"``,
    ``None`` for pip's own; default ``$RELEASE_PUBLIC_INDEX`` else pip's own); ``line_majors``
    and ``line_pythons``: what the tag's line builds (``line_of_project``): the draft must hold
    every such (ROCm major, Python) cell (None: the draft's own majors, each for every Python any
    of them has); ``rocm_index``: the index TheRock's runtime wheels come from for the ``with-rocm``
    path (default ``$RELEASE_ROCM_INDEX``, else the public index alone).
    """
    version = naming.version_of_tag(tag, flag="tag")
    given = interpreters.given([*([python] if python else []), *pythons])  # bad paths: exit 2
    if public_index == FROM_ENV:
        public_index = resolver.public_index_default()
    elif public_index is not None:
        public_index = resolver.check_index_flag(public_index)
    if require_all_pythons is None:
        require_all_pythons = os.environ.get(REQUIRE_ALL_PYTHONS_ENV, "").strip() == "1"
    if rocm_index == FROM_ENV:
        rocm_index = rocm_index_default()
    elif rocm_index is not None:
        rocm_index = check_rocm_index(rocm_index)
    options = InstallOptions(tuple(given), public_index, require_all_pythons, search_path, rocm_index)
    release, is_draft = find_target(store, tag)
    result = Validation(tag, release.id)
    root = Path(workdir_root or tempfile.gettempdir())
    for stale in clean_stale_workdirs(root):
        say(f"removed {stale.name}, left by a validate that was killed")
    work = Path(tempfile.mkdtemp(prefix=f"{WORKDIR_PREFIX}{os.getpid()}-", dir=root))
    try:
        files = step_download(store, release, work / "assets", result, say, progress)
        revisions = step_check_files(files, version, result, line_majors, line_pythons)
        step_provenance(files, version, revisions, result)
        wheels = [files[n] for n in sorted(files) if n.endswith(".whl")]
        if wheels:
            step_verify(wheels, revisions, result, say, runpath)
        if wheels and result.ok:
            step_install(wheels, version, revisions, work, result, say, options)
        elif wheels:
            result.problems.append("install not tried: pip never gets wheels that failed the "
                                   "checks above")
        if result.ok and is_draft and mark:
            files |= step_lock(store, release, wheels, files, work / "locks", result, say)
            step_mark(store, release, files, result)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return result


# ---------------------------------------------------------------- the steps


def step_download(store: Store, release: Release, folder: Path, result: Validation, say: Say,
                  progress: ProgressBars | None) -> dict[str, Path]:
    """Every asset with a plain file name, downloaded into ``folder``; the rest are problems."""
    folder.mkdir(parents=True)
    files: dict[str, Path] = {}
    for asset in store.list_assets(release):
        problem = file_name_problem(asset.name)
        if problem is not None:
            result.problems.append(f"asset {asset.name!r} refused: {problem}; expected a plain "
                                   "file name")
            continue
        say(f"download {asset.name}")
        files[asset.name] = store.download_asset(release, asset, folder / asset.name,
                                                 progress=progress)
    return files


def step_check_files(files: dict[str, Path], version: str, result: Validation,
                     line_majors: Sequence[int] | None = None,
                     line_pythons: Sequence[str] | None = None) -> RevisionMap | None:
    """SHA256SUMS and revisions.json agree with the assets; the wheels are jax-rocm pairs (per
    ROCm major one PJRT wheel and plugin wheels) of the tag's version, holding every cell of the
    line (``line_majors`` x ``line_pythons``)."""
    sums_path = files.get(naming.CHECKSUMS_ASSET)
    if sums_path is None:
        result.problems.append(f"no {naming.CHECKSUMS_ASSET} asset")
    else:
        try:
            sums = checksums.parse(sums_path.read_text(encoding="utf-8"), naming.CHECKSUMS_ASSET)
        except (UserError, UnicodeDecodeError) as exc:
            result.problems.append(str(exc))
            sums = {}
        for name, path in files.items():
            if name == naming.CHECKSUMS_ASSET or locks.is_lock(name):  # validate's own: written after SHA256SUMS
                continue
            if stored_provenance.is_stored(name):  # publish's, made of two listed files: checked in step_bundles
                continue
            if name not in sums:
                result.problems.append(f"{name} is not listed in {naming.CHECKSUMS_ASSET}")
            elif sha256_file(path) != sums[name]:
                result.problems.append(f"{name} does not match its {naming.CHECKSUMS_ASSET} entry")
        for name in sums:
            if name not in files:
                result.problems.append(f"{naming.CHECKSUMS_ASSET} lists {name}, which is not "
                                       "an asset")
        result.checked.append("checksums")
    revisions = None
    rev_path = files.get(naming.REVISIONS_ASSET)
    if rev_path is None:
        result.problems.append(f"no {naming.REVISIONS_ASSET} asset")
    else:
        try:
            revisions = RevisionMap.loads(rev_path.read_text(encoding="utf-8"))
        except (ValueError, UnicodeDecodeError) as exc:
            result.problems.append(f"{naming.REVISIONS_ASSET}: {exc}")
        else:
            if revisions.version != version:
                result.problems.append(f"{naming.REVISIONS_ASSET} is for {revisions.version}, "
                                       f"the tag for {version}")
    kinds: list[tuple[str, int | None]] = []
    for name in sorted(n for n in files if n.endswith(".whl")):
        ident = Identity.of(Path(name))
        if ident.name_error is not None:
            result.problems.append(f"{name}: not a valid wheel file name ({ident.name_error})")
        elif ident.kind is None:
            result.problems.append(f"{name}: not a jax-rocm wheel; a release carries only "
                                   "jax_rocmN_pjrt and jax_rocmN_plugin wheels")
        else:
            kinds.append((ident.kind, ident.rocm_major))
            if ident.version != version:
                result.problems.append(f"{name} is not version {version}")
    majors: list[int | None] = [*sorted({m for _, m in kinds if m is not None})] or [None]
    for major in majors:
        pjrt, plugin = kinds.count(("pjrt", major)), kinds.count(("plugin", major))
        if pjrt != 1 or not plugin:
            of = f" of ROCm {major}" if major is not None else ""
            result.problems.append(f"expected one pjrt wheel and at least one plugin wheel{of}, found "
                                   f"{pjrt} and {plugin}")
    wheel_names = [name for name in sorted(files) if name.endswith(".whl")]
    result.problems += pairing.problems([(name, requires_dist(files[name])) for name in wheel_names],
                                        line_majors)
    named = [(m, py) for m in line_majors or () for py in line_pythons or ()]
    held = cells.of_wheels(wheel_names)
    for cell in cells.missing(named, held):
        # pairing names a whole major missing, and a Python another major of the draft has
        if cell[0] in {m for _, m in kinds} and cell[1] not in {py for _, py in held}:
            result.problems.append(f"no {naming.plugin_dist(cell[0])} wheel for Python {cell[1]}: the line "
                                   f"builds {cells.label(cell)}, and the draft has no wheel of that cell")
    result.checked.append("pairing")
    step_core_metadata(files, result)
    step_bundles(files, result)
    return revisions


def step_core_metadata(files: dict[str, Path], result: Validation) -> None:
    """Each ``<wheel>.metadata`` asset is exactly its wheel's METADATA (the index names its hash
    and pip and uv resolve from it without the wheel). A wheel without one is a warning: the
    index lists it without the attribute, and resolvers download the wheel instead."""
    result.problems += core_metadata.problems(files)
    for wheel in core_metadata.missing(files):
        result.warnings.append(f"{wheel}: no {core_metadata.file_name(wheel)} asset (PEP 658); "
                               "resolvers download the whole wheel to read its dependencies")
    result.checked.append("core-metadata")


def step_bundles(files: dict[str, Path], result: Validation) -> None:
    """Each ``<wheel>.jsonl`` asset is Sigstore bundles attesting exactly its wheel's sha256
    (``release.core.bundles``; the signatures are Sigstore's to verify, offline, by anybody), and
    each ``<wheel>.provenance`` the PEP 740 object of those (``release.publish.stored_provenance``)."""
    found = [name for name in sorted(files) if bundles.is_bundle(name)]
    for name in found:
        wheel = files.get(bundles.wheel_of(name))
        text = files[name].read_text(encoding="utf-8", errors="replace")
        result.problems += bundles.problems(name, text, sha256_file(wheel) if wheel is not None else None)
    result.problems += stored_provenance.problems(files)  # what the index copies: exactly its bundle's
    if found:
        result.checked.append("attestation-bundles")


def requires_dist(wheel: Path) -> list[str] | None:
    """The ``Requires-Dist`` lines of a wheel's METADATA (None when it has no readable one)."""
    try:
        text = core_metadata.read(wheel).decode("utf-8", "replace")
    except (OSError, UserError):
        return None
    return Headers(text).get_all("Requires-Dist") or []


def step_provenance(files: dict[str, Path], version: str, revisions: RevisionMap | None,
                    result: Validation) -> None:
    """The provenance statement's subjects are exactly the assets, with their digests, and its
    dependencies equal revisions.json (``release.build.provenance``)."""
    result.problems += provenance.check_assets(files, version, revisions)
    result.checked.append("provenance")


def step_verify(wheels: list[Path], revisions: RevisionMap | None, result: Validation, say: Say,
                runpath: tuple[str, ...] = ()) -> None:
    """Every verify check, the wheels verified together (so the pjrt/plugin pair check runs)."""
    from release.check import verify
    options = verify.Options(runpath=tuple(runpath), revisions=revisions)
    reports = verify.verify_wheels(wheels, options, on_wheel=lambda w: say(f"verify {w.name}"))
    for report in reports:
        for finding in report.errors:
            where = f" [{finding.member}]" if finding.member else ""
            result.problems.append(f"verify {report.wheel.name}: {finding.check}: "
                                   f"{finding.message}{where}")
    result.checked.append("verify")


def step_lock(store: Store, release: Release, wheels: list[Path], files: dict[str, Path], folder: Path,
              result: Validation, say: Say) -> dict[str, Path]:
    """One ``pylock.rocmN-py3X.toml`` per (major, Python) cell installed as users install
    (``release.core.locks``), put on the draft; a lock of an earlier run for a cell not installed
    now is deleted. Returns the lock files the draft now carries (the validated mark covers them)."""
    folder.mkdir(parents=True, exist_ok=True)
    remote = {a.name: a for a in store.list_assets(release)}
    relink = {name: locks.published_url(remote[name].url, release.tag) for name in files if name in remote}
    marker = locks.environment([w.name for w in wheels])
    wanted: list[LocalAsset] = []
    for (major, py), report in sorted(result.reports.items(), key=lambda kv: cells.sort_key(kv[0])):
        try:
            text = locks.render(locks.from_report(report, relink), py, environment_marker=marker)
        except locks.LockError as exc:
            result.warnings.append(f"{cells.label((major, py))}: no lock written: {exc}")
            continue
        path = folder / locks.lock_name(major, py)
        path.write_text(text, encoding="utf-8")
        wanted.append(LocalAsset(path.name, path, path.stat().st_size, sha256_file(path)))
    for name in sorted(n for n in remote if locks.is_lock(n) and n not in {a.name for a in wanted}):
        say(f"delete {name}: no install of this run made it")
        store.delete_asset(release, remote[name])
        files.pop(name, None)
    sync_assets(store, release, tuple(wanted), say=say, prune=False)
    result.locks = [a.name for a in wanted]
    if wanted:
        result.checked.append("lock")
    return {a.name: a.path for a in wanted}


def step_mark(store: Store, release: Release, files: dict[str, Path], result: Validation) -> None:
    """Note in the draft's body the digest of every asset that passed, as downloaded
    (``--undraft`` publishes only while the draft's assets still give that digest)."""
    digest = assets_digest({name: sha256_file(path) for name, path in files.items()})
    assert digest is not None  # every downloaded file has a digest
    current = next(r for r in store.list_releases() if r.id == release.id)
    store.update_release(current, body=notes.changed(current, validated=digest,
                                                     validated_with=result.validated_with,
                                                     with_rocm=result.with_rocm))
    result.marked = True


# ---------------------------------------------------------------- leftovers of killed runs



def clean_stale_workdirs(root: Path, *, now: float | None = None,
                         legacy_age: float = 6 * 3600) -> list[Path]:
    """Remove ``release-validate-<pid>-*`` folders (ours) whose process is gone, and folders
    of the older unnamed form (``release-validate-<random>``) older than ``legacy_age``
    seconds; returns what was removed."""
    now = time.time() if now is None else now
    removed: list[Path] = []
    try:
        children = list(Path(root).glob(WORKDIR_PREFIX + "*"))
    except OSError:
        return removed
    for child in children:
        try:
            info = child.lstat()
        except OSError:
            continue
        if not child.is_dir() or child.is_symlink() or info.st_uid != os.getuid():
            continue
        m = re.fullmatch(re.escape(WORKDIR_PREFIX) + r"(\d+)-.+", child.name)
        if m:
            if alive(int(m.group(1))):
                continue
        elif now - info.st_mtime < legacy_age:
            continue
        shutil.rmtree(child, ignore_errors=True)
        if not child.exists():
            removed.append(child)
    return removed
