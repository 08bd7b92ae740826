"""What pip would install: the draft's wheels as a local index, merged with the public one.

Users install with ``pip install --pre jax-rocmN-plugin --extra-index-url <our index>``, so
what they get is decided by pip's resolver across our index and the public one: a version
line that sorts at or below what is already public loses (0.10.2 from the public index beats
tonight's 0.9.1.devN). ``staged_index`` serves wheel files as an index (``release.publish.index``'s
pages) on 127.0.0.1,
``pip_install`` reads pip's ``--report`` (written once pip has resolved, before it installs) to
learn which file pip took or would take, and
``newest_published`` asks the public index (PEP 691 JSON, else PEP 503 HTML) for the newest
version of a project, so ``status`` and the nightly plan warn before anything is built.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator, Mapping, Sequence

from packaging.version import InvalidVersion, Version

from release.core.errors import UserError
from release.core.public_index import (  # noqa: F401 (re-exported: the flag is the resolver's input)
    NO_PUBLIC_INDEX,
    PIP_DEFAULT,
    PUBLIC_INDEX_ENV,
    add_public_index_option,
    check_index_flag,
)

if TYPE_CHECKING:
    import argparse
    import subprocess


def public_index_default(env: Mapping[str, str] | None = None) -> str | None:
    """``$RELEASE_PUBLIC_INDEX`` (a URL or ``none``), else ``PIP_DEFAULT``."""
    value = (os.environ if env is None else env).get(PUBLIC_INDEX_ENV, "").strip()
    return check_index_flag(value, f"${PUBLIC_INDEX_ENV}") if value else PIP_DEFAULT


# ---------------------------------------------------------------- staging our wheels


@contextlib.contextmanager
def serve(directory: Path) -> Iterator[str]:
    """Serve ``directory`` over HTTP on 127.0.0.1 (a free port); yields its base URL. The HTTP
    server is imported here: the commands that only read this module's versions never load it."""
    import http.server
    import threading

    class _Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
            pass

    handler = functools.partial(_Quiet, directory=str(directory))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    # Looked at every 20 ms (not 0.5 s): leaving the index waits for the loop's next look, each validate.
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, name="staged-index",
                              daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


@contextlib.contextmanager
def staged_index(wheels: Sequence[Path], root: Path) -> Iterator[str]:
    """``wheels`` as a PEP 503 index (``release.publish.index``'s pages) served on 127.0.0.1; yields
    the index URL."""
    from release.publish.index import write_index
    root.mkdir(parents=True, exist_ok=True)
    write_index(root / "simple", wheels)
    with serve(root) as base:
        yield f"{base}/simple/"


# ---------------------------------------------------------------- what pip would pick


@dataclasses.dataclass(frozen=True)
class Pick:
    """One distribution pip would install: its version and where the file comes from."""

    name: str
    version: str
    url: str
    sha256: str | None


@dataclasses.dataclass(frozen=True)
class Resolution:
    """What pip resolved (and installed) for one install line, or its error."""

    ok: bool
    picks: dict[str, Pick]  # canonical name -> pick (what pip resolved, even if installing failed)
    error: str | None = None  # pip's own last error line when it failed
    resolved: bool = False  # pip got past resolving (its report was written); False: it could not


def index_args(draft_index: str, public_index: str | None) -> list[str]:
    """pip's index flags for the documented install line.

    ``PIP_DEFAULT``: exactly the README's ``--extra-index-url <ours>``, with the user's pip
    configuration (its index, its find-links). A URL: ``--isolated``, that index and ours only.
    ``none``: our index alone.
    """
    if public_index is PIP_DEFAULT:
        return ["--extra-index-url", draft_index]
    if public_index == NO_PUBLIC_INDEX:
        return ["--isolated", "--index-url", draft_index]
    return ["--isolated", "--index-url", public_index, "--extra-index-url", draft_index]


PIP_DEADLINE = 1800.0  # seconds for one pip run (a resolve or an install of ~200 MB of wheels)


@functools.cache
def _pip_runner() -> str | None:
    """The script ``pip --python`` starts in the target interpreter to run this pip there
    (only ``pip`` itself made importable); None where this pip has none."""
    import importlib.util
    spec = importlib.util.find_spec("pip")
    for folder in (spec.submodule_search_locations or []) if spec else []:
        runner = Path(folder) / "__pip-runner__.py"
        if runner.is_file():
            return str(runner)
    return None


def pip_argv(python: Path) -> list[str]:
    """This tool's own pip, run for the target venv (which has none): no ensurepip per venv.
    Started in that venv's interpreter at once, as ``pip --python`` starts it after a first pip
    process has only read its command line (a third of each small run's CPU)."""
    runner = _pip_runner()
    return [str(python), runner] if runner else [sys.executable, "-m", "pip", "--python", str(python)]


def _pip(python: Path, args: list[str]) -> subprocess.CompletedProcess:
    import subprocess  # only where pip runs: the commands that read this module's versions never start one
    env = dict(os.environ, PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_NO_INPUT="1")
    for key in ("NO_PROXY", "no_proxy"):  # the draft's index is local: never via a proxy
        env[key] = ",".join(filter(None, [env.get(key, ""), "127.0.0.1", "localhost"]))
    argv = [*pip_argv(python), *args]
    try:
        return subprocess.run(argv, capture_output=True, text=True, env=env, timeout=PIP_DEADLINE)
    except subprocess.TimeoutExpired:  # an index dripping its answers holds pip: a failure, not a hang
        return subprocess.CompletedProcess(argv, 124, "", f"ERROR: pip did not finish within {PIP_DEADLINE:g} s")


def pip_error_line(stderr: str) -> str:
    """The line of pip's output that says what went wrong."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("ERROR:")]
    return (errors or lines or ["pip failed without a message"])[-1]


def pip_install(python: Path, requirement: str, indexes: list[str], work: Path, *,
                dry_run: bool, fresh: bool = False) -> Resolution:
    """``pip install --pre <requirement>`` for the venv of ``python`` with ``indexes``;
    with ``dry_run`` nothing is installed; ``fresh``: resolved as in an empty venv, whatever this
    one holds (``--ignore-installed``). Either way the ``--report`` says what pip resolved: pip
    writes it after resolving and before installing, so a failed run with a report could be
    resolved and failed to install, and one without could not be resolved."""
    report = work / ("pip-dry-run.json" if dry_run else "pip-install.json")
    report.unlink(missing_ok=True)  # an earlier run's report never stands for this one's
    args = ["install", "--pre", "--no-cache-dir", "--quiet", "--report", str(report),
            *indexes, requirement]
    if dry_run:
        args.insert(1, "--dry-run")
    if fresh:
        args.insert(1, "--ignore-installed")
    done = _pip(python, args)
    try:
        data = json.loads(report.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        if done.returncode != 0:
            return Resolution(False, {}, pip_error_line(done.stderr))
        return Resolution(False, {}, f"pip wrote no readable report ({exc})")
    from packaging.utils import canonicalize_name
    picks: dict[str, Pick] = {}
    for item in data.get("install", []):
        meta = item.get("metadata", {})
        info = item.get("download_info", {})
        hashes = (info.get("archive_info") or {}).get("hashes") or {}
        name = canonicalize_name(meta.get("name", ""))
        picks[name] = Pick(name, str(meta.get("version")), str(info.get("url", "")),
                           hashes.get("sha256"))
    if done.returncode != 0:
        return Resolution(False, picks, pip_error_line(done.stderr), resolved=True)
    return Resolution(True, picks, resolved=True)


def wrong_picks(resolution: Resolution, wanted: dict[str, tuple[str, str]], draft_index: str,
                public_label: str) -> str | None:
    """One line naming what pip would take instead of the draft's files, or None when it
    takes exactly them. ``wanted``: canonical name -> (version, sha256) of the draft's file
    for this Python, the requirement first."""
    base = draft_index.rsplit("/simple/", 1)[0] + "/"
    missing, wrong = [], []
    for name, (version, digest) in wanted.items():
        pick = resolution.picks.get(name)
        if pick is None:
            missing.append(name)
            continue
        ours = pick.url.startswith(base)
        where = "the draft's index" if ours else public_label
        if pick.version != version:
            wrong.append((f"{name} {pick.version}", where))
        elif not ours or (pick.sha256 is not None and pick.sha256 != digest):
            wrong.append((f"{name} {pick.version} ({pick.url.rsplit('/', 1)[-1]}, another file)",
                          where))
    if not wrong and not missing:
        return None
    version = next(iter(wanted.values()))[0]
    places = {where for _, where in wrong}
    if len(places) == 1:
        said = " and ".join(what for what, _ in wrong) + f" from {places.pop()}"
    else:
        said = " and ".join(f"{what} from {where}" for what, where in wrong)
    if missing:
        said = (said + " and " if said else "") + "no " + " or ".join(missing)
    newer = any(_is_version(p.version) and Version(p.version) > Version(version)
                for p in resolution.picks.values() if p.name in wanted)
    hint = "; move version_info.json's version past it" if newer else ""
    return f"pip would install {said}, not the draft's {version}{hint}"


def line_requirements(project: str, version: str, newer_line: str | None, public_index: str | None) -> list[str]:
    """The install lines validate resolves, as the line's users install: the line pinned
    (``jax-rocmN-plugin==X.Y.Z.*``, with ``--pre``: a maintenance line's users pin it), and,
    for the newest line only (no ``newer_line`` on the public index), the unpinned
    ``pip install --pre jax-rocmN-plugin`` too; not without a public index (``none``): the draft's
    index alone (``--isolated``) holds one version of the plugin, the tag's, which the pinned line
    resolved, so the unpinned line can resolve nothing else and would only repeat it."""
    pinned = f"{project}=={Version(version).base_version}.*"
    return [pinned] if newer_line is not None or public_index == NO_PUBLIC_INDEX else [pinned, project]


def unpinned_settled(project: str, version: str, public_index: str | None, *, timeout: float = 10.0) -> bool:
    """Whether the public index's page of ``project`` shows that the unpinned ``pip install --pre
    <project>`` can only take what the pinned ``<project>==X.Y.Z.*`` took: every file on it is a
    wheel of ``project`` in ``version``'s line or a lower one. pip ranks candidates by version,
    and every lower line's version sorts below every one of this line, so the unpinned resolve
    tries the pinned one's candidates in the same order before any other, and ends where it ended.
    False (pip must answer) with pip's own configuration (it may add indexes and find-links this
    page does not show), an unreachable page, or any file this reading cannot place (an sdist,
    a build tag): pip might take it."""
    if public_index == NO_PUBLIC_INDEX:
        return True  # the draft's index alone holds one version of the plugin, the tag's
    if public_index is PIP_DEFAULT:
        return False
    from packaging.utils import canonicalize_name

    from release.core.naming import Identity
    from release.publish.pypi_index import IndexUnavailable, index_files
    try:
        files = index_files(public_index, project, timeout=timeout)
    except IndexUnavailable:
        return False
    line = Version(Version(version).base_version)
    for name in files:
        ident = Identity.of(name)
        if ident.dist is None or ident.version is None or canonicalize_name(ident.dist) != canonicalize_name(project):
            return False
        try:
            if Version(Version(ident.version).base_version) > line:
                return False
        except InvalidVersion:
            return False
    return True


def newer_line(version: str, projects: Sequence[str], index_url: str | None, *,
               timeout: float = 10.0) -> str | None:
    """The newest line above ``version``'s that ``index_url`` publishes of ``projects`` (so
    ``version``'s is a maintenance line), or None (the newest line, no index, unreachable)."""
    check = version_line_warnings({"draft": version}, projects, index_url, timeout=timeout)
    return check["lines"].get("draft", {}).get("newer_line")


# ---------------------------------------------------------------- the public index


@dataclasses.dataclass(frozen=True)
class Published:
    """The newest version of a project on an index; ``error`` when it could not be asked."""

    project: str
    newest: str | None
    error: str | None = None
    versions: tuple[str, ...] = ()  # every version the index lists, in PEP 440 order


# What pip's configuration files are chosen by (pip reads no other place): one answer per set of them.
_PIP_CONFIG_PLACES = ("PIP_CONFIG_FILE", "HOME", "XDG_CONFIG_HOME", "XDG_CONFIG_DIRS", "VIRTUAL_ENV")
PIP_CONFIG_DEADLINE = 60.0  # seconds for ``pip config get``: local files only, so a stall is a fault


def pip_configured_index() -> str | None:
    """The index URL pip would use: ``$PIP_INDEX_URL``, pip's configuration, pip's default.
    pip's configuration is asked once a process for the same configuration places (a validate
    asks for each cell's uv line, each major's newer line and the public files: a pip start each)."""
    env = os.environ.get("PIP_INDEX_URL", "").split()
    if env:
        return env[0]
    configured = _pip_config_index(tuple(os.environ.get(name) for name in _PIP_CONFIG_PLACES))
    if configured:
        return configured
    try:  # pip's built-in default; pip is how users install, so it is the authority
        from pip._internal.models.index import PyPI
    except ImportError:
        return None
    return PyPI.simple_url


@functools.lru_cache(maxsize=8)
def _pip_config_index(places: tuple[str | None, ...]) -> str | None:  # noqa: ARG001 - the key
    """``pip config get global.index-url`` for these configuration places (the argument is the
    cache's key; pip reads them from the environment itself)."""
    import subprocess
    try:
        done = subprocess.run([sys.executable, "-m", "pip", "config", "get", "global.index-url"],
                              capture_output=True, text=True, timeout=PIP_CONFIG_DEADLINE)
    except subprocess.TimeoutExpired:  # never guess an index: the user names one instead
        raise UserError(f"pip config get global.index-url did not answer within {PIP_CONFIG_DEADLINE:g} s: "
                        "name the public index with --public-index URL") from None
    if done.returncode == 0 and done.stdout.strip():
        return done.stdout.split()[0]
    return None


def _versions_from_files(project: str, files: list[str]) -> set[Version]:
    from packaging.utils import canonicalize_name

    from release.core.naming import Identity
    found = set()
    for name in files:
        ident = Identity.of(name)
        if ident.dist is None or ident.version is None:
            continue
        if canonicalize_name(ident.dist) == canonicalize_name(project):
            found.add(Version(ident.version))
    return found


def newest_published(index_url: str, project: str, *, timeout: float = 10.0) -> Published:
    """Ask ``index_url`` for ``project`` (PEP 691 JSON preferred, PEP 503 HTML understood),
    through the tool's one HTTP stack (``release.publish.pypi_index.index_files``).

    A project the index does not know is ``newest=None``; an index that cannot be reached
    or answers nonsense is ``error`` (the caller says it could not check, never fails).
    """
    from release.publish.pypi_index import IndexUnavailable, index_files
    try:
        files = index_files(index_url, project, timeout=timeout)
    except IndexUnavailable as exc:
        return Published(project, None, f"unreachable or not an index: {exc}")
    ordered = sorted(_versions_from_files(project, list(files)))
    return Published(project, str(ordered[-1]) if ordered else None, None,
                     tuple(str(v) for v in ordered))


def projects_of(rocm_majors: int | Sequence[int]) -> tuple[str, ...]:
    """Both projects (plugin, pjrt) of every ROCm major a line builds: a line of ROCm 7 and 10
    is published as four projects, and a version any of them holds is taken."""
    from release.core import naming
    majors = (rocm_majors,) if isinstance(rocm_majors, int) else tuple(rocm_majors)
    return tuple(p for m in majors for p in (naming.plugin_dist(m), naming.pjrt_dist(m)))


def index_versions(rocm_majors: int | Sequence[int], index_url: str | None, *,
                   timeout: float = 10.0) -> tuple[str, ...]:
    """Every version the public index lists of any wheel of the ROCm majors ``rocm_majors``
    (what the next ``.postN`` is counted from, with the store's); none when the index is
    ``none``, pip names none, or it cannot be reached (the store alone then decides; validate
    still checks)."""
    if index_url == NO_PUBLIC_INDEX:
        return ()
    if index_url is PIP_DEFAULT:
        index_url = pip_configured_index()
        if index_url is None:
            return ()
    found: list[str] = []
    for project in projects_of(rocm_majors):
        found += newest_published(index_url, project, timeout=timeout).versions
    return tuple(dict.fromkeys(found))


def _is_version(text: object) -> bool:
    try:
        Version(str(text))
    except InvalidVersion:
        return False
    return True


def version_line_warnings(versions: dict[str, str], projects: Sequence[str],
                          index_url: str | None, *, timeout: float = 10.0) -> dict:
    """Whether each planned version (kind -> version, e.g. ``{"nightly": "0.9.1.dev20261122"}``)
    wins where its line's users install it from ``index_url``:
    ``{"index", "checked", "newest": {project: v}, "warnings": [...], "lines": {kind: ...}}``.

    The line's users pin it (``pip install --pre jax-rocmN-plugin==X.Y.Z.*``), so a version
    loses, and validate is certain to fail, when the index has a version *of its line* at or
    above it: that is a warning (the plan stage fails on it). A newer line on the index makes
    this a maintenance line (``lines[kind]["newer_line"]``), never a warning: only the newest
    line must also win an unpinned ``pip install --pre``, and a version above everything of
    its own line then does. An unreachable index is a ``note`` saying it could not be
    checked, never a failure."""
    if index_url == NO_PUBLIC_INDEX:
        return {"index": None, "checked": False, "newest": {}, "warnings": [], "lines": {},
                "note": f"public index not checked (it is {NO_PUBLIC_INDEX!r})"}
    if index_url is PIP_DEFAULT:
        index_url = pip_configured_index()
        if index_url is None:
            return {"index": None, "checked": False, "newest": {}, "warnings": [], "lines": {},
                    "note": "could not check the public index: pip names none"}
    newest, errors, listed = {}, [], []
    for project in projects:
        found = newest_published(index_url, project, timeout=timeout)
        if found.error:
            errors.append(found.error)
        elif found.newest is not None:
            newest[project] = found.newest
            listed += [(project, Version(v)) for v in found.versions]
    warnings, lines = [], {}
    for kind, version in versions.items():
        mine = Version(version)
        line = mine.base_version
        newer = max((v.base_version for _, v in listed if Version(v.base_version) > Version(line)),
                    key=Version, default=None)
        lines[kind] = {"line": line, "newer_line": newer}
        beaten = [(project, v) for project, v in listed if v.base_version == line and v >= mine]
        if beaten:
            project, top = max(beaten, key=lambda item: item[1])
            warnings.append(f"the {kind} version {version} sorts at or below {project} {top} on "
                            f"{index_url}: `pip install --pre {project}=={line}.*` (how the "
                            f"line's users install) would install {top}; "
                            f"{move_past(str(top), [str(v) for _, v in listed])}")
    result = {"index": index_url, "checked": not errors, "newest": newest, "warnings": warnings,
              "lines": lines}
    if errors:
        result["note"] = "could not check the public index: " + "; ".join(errors)
    return result


def move_past(top: str, listed: Sequence[str]) -> str:
    """What to do when a public ``top`` of our line beats a planned version: past the line's
    newest final release, onto its next post release (the line's next official version)."""
    line = Version(top).base_version
    finals = [Version(v) for v in listed if Version(v).base_version == line
              and not Version(v).is_prerelease and Version(v).local is None]
    if not finals:
        return "move version_info.json's version past it"
    from release.core.versions import next_after
    last = max(finals)
    return f"move version_info.json's version to {next_after(str(last))} (the line published {last})"


def check_planned_versions(versions: dict[str, str], rocm_majors: int | Sequence[int],
                           index: str | None) -> dict:
    """``version_line_warnings`` for both wheels of every ROCm major of ``rocm_majors``
    (``status`` and the nightly plan call this before anything is built)."""
    return version_line_warnings(versions, projects_of(rocm_majors), index)


def refuse_losing_versions(versions: dict[str, str], rocm_majors: int | Sequence[int], index: str | None) -> dict:
    """``check_planned_versions`` for a plan stage (nightly's, its dry run, cut's): a version
    the public index already beats on its own line would fail ``validate`` after the build,
    so it is refused now, one line and exit 2; returns the check otherwise."""
    check = check_planned_versions(versions, rocm_majors, index)
    if check["warnings"]:
        raise UserError(f"{check['warnings'][0]} (validate would fail after the build)")
    return check


def public_index_from_args(args: argparse.Namespace) -> str | None:
    return args.public_index if args.public_index else public_index_default()
