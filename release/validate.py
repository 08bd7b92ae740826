"""Validate a draft release as a user would receive it, before it can be published.

The assets are downloaded from the store (not taken from the local dist directory),
checked against SHA256SUMS, run through ``release.verify``, pip-installed into a
fresh virtual environment and imported there: ``__version__`` and the revision map
(``commit_info.commits``) of both wheels must match the tag and ``revisions.json``.
Only when all of that passes is the draft marked validated (a comment in its notes
naming the SHA256SUMS digest, which ``publish --undraft`` checks). A failure changes
nothing and lists every reason.
"""

from __future__ import annotations

import dataclasses
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Callable

from packaging.utils import parse_wheel_filename

from release import naming, provenance
from release.errors import UserError
from release import checksums
from release.checksums import sha256_file
from release.publish import with_validated
from release.revisions import RevisionMap
from release.stores import Release, Store

_WHEEL = re.compile(r"^jax_rocm(\d+)_(pjrt|plugin)-")

# Runs inside the fresh venv: load version.py and commit_info.py of an installed package by
# path, so the package's __init__ (which may import jax) does not run.
_PROBE = r"""
import importlib.util, json, sys, sysconfig
from pathlib import Path
out = {}
for key, package in json.loads(sys.argv[1]).items():
    found = {}
    for lib in {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}:
        base = Path(lib, package)
        if base.is_dir():
            for name in ("version", "commit_info"):
                spec = importlib.util.spec_from_file_location(f"_probe_{key}_{name}", base / f"{name}.py")
                module = importlib.util.module_from_spec(spec)
                spec.loader.exec_module(module)
                found[name] = module
    out[key] = {"installed": bool(found),
                "version": getattr(found.get("version"), "__version__", None),
                "commits": getattr(found.get("commit_info"), "commits", None)}
print(json.dumps(out))
"""


@dataclasses.dataclass
class Validation:
    tag: str
    release_id: int | None
    problems: list[str] = dataclasses.field(default_factory=list)
    checked: list[str] = dataclasses.field(default_factory=list)
    marked: bool = False

    @property
    def ok(self) -> bool:
        return not self.problems

    def to_json(self) -> dict:
        return dataclasses.asdict(self) | {"ok": self.ok}


def find_target(store: Store, tag: str) -> tuple[Release, bool]:
    """The draft of ``tag`` (or its published release, validated read-only)."""
    drafts = [d for d in store.drafts_for(tag) if d.ours]
    if drafts:
        return drafts[0], True
    published = store.published_for(tag)
    if published is not None:
        return published, False
    raise UserError(f"{store.where}: no draft or release of {tag}; run `release publish` first")


def validate(store: Store, tag: str, *, say: Callable[[str], None] = lambda t: None, progress=None,
             python: str = sys.executable, mark: bool = True,
             runpath: tuple[str, ...] = ()) -> Validation:
    """Check the draft (or published release) of ``tag``; ``python`` is the interpreter the
    wheels are installed for (its plugin wheel is the one installed); ``runpath`` the entries
    every shared object must carry (the Bazel config's)."""
    version = naming.version_from_tag(tag)
    if version is None:
        raise UserError(f"tag {tag}: expected {naming.TAG_PREFIX}<version>")
    release, is_draft = find_target(store, tag)
    result = Validation(tag, release.id)
    with tempfile.TemporaryDirectory(prefix="release-validate-") as tmp:
        folder = Path(tmp) / "assets"
        folder.mkdir()
        assets = store.list_assets(release)
        for asset in assets:
            say(f"download {asset.name}")
            store.download_asset(release, asset, folder / asset.name, progress=progress)
        files = {a.name: folder / a.name for a in assets}
        revisions = _check_files(files, version, result)
        result.problems += provenance.check_assets(files, version, revisions)
        result.checked.append("provenance")
        wheels = [files[n] for n in sorted(files) if n.endswith(".whl")]
        if wheels:
            _verify(wheels, revisions, result, say, runpath)
            _install_and_import(wheels, version, revisions, Path(tmp), python, result, say)
        if result.ok and is_draft and mark:
            digest = sha256_file(files[naming.CHECKSUMS_ASSET])
            current = next(r for r in store.list_releases() if r.id == release.id)
            store.update_release(current, body=with_validated(current.body, digest))
            result.marked = True
    return result


def _check_files(files: dict[str, Path], version: str, result: Validation) -> RevisionMap | None:
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
            if name == naming.CHECKSUMS_ASSET:
                continue
            if name not in sums:
                result.problems.append(f"{name} is not listed in {naming.CHECKSUMS_ASSET}")
            elif sha256_file(path) != sums[name]:
                result.problems.append(f"{name} does not match its {naming.CHECKSUMS_ASSET} entry")
        for name in sums:
            if name not in files:
                result.problems.append(f"{naming.CHECKSUMS_ASSET} lists {name}, which is not an asset")
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
    kinds = [m.group(2) for n in files if (m := _WHEEL.match(n))]
    if kinds.count("pjrt") != 1 or not kinds.count("plugin"):
        result.problems.append(f"expected one pjrt wheel and at least one plugin wheel, found "
                               f"{kinds.count('pjrt')} and {kinds.count('plugin')}")
    for name in files:
        if name.endswith(".whl") and str(parse_wheel_filename(name)[1]) != version:
            result.problems.append(f"{name} is not version {version}")
    return revisions


def _verify(wheels: list[Path], revisions: RevisionMap | None, result: Validation, say,
            runpath: tuple[str, ...] = ()) -> None:
    try:
        from release import verify
    except ImportError:  # pragma: no cover - verify ships with the tool
        return
    options = verify.Options(runpath=tuple(runpath), revisions=revisions)
    reports = verify.verify_wheels(wheels, options, on_wheel=lambda w: say(f"verify {w.name}"))
    for report in reports:  # verified together, so the pjrt/plugin pair check runs too
        for finding in report.errors:
            where = f" [{finding.member}]" if finding.member else ""
            result.problems.append(f"verify {report.wheel.name}: {finding.check}: "
                                   f"{finding.message}{where}")
    result.checked.append("verify")


def _install_and_import(wheels, version, revisions, tmp: Path, python: str, result, say) -> None:
    env_dir = tmp / "venv"
    say(f"create a fresh venv with {python}")
    made = subprocess.run([python, "-m", "venv", "--without-pip", str(env_dir)],
                          capture_output=True, text=True)
    if made.returncode != 0:
        raise UserError(f"{python} -m venv failed: "
                        f"{(made.stderr.strip().splitlines() or ['?'])[-1]}; expected a Python 3 interpreter")
    env_python = env_dir / "bin" / "python"
    probe_py = subprocess.run([str(env_python), "-c", "import sys; print(f'{sys.version_info[0]}."
                               "{sys.version_info[1]}')"], capture_output=True, text=True, check=True)
    py = probe_py.stdout.strip()
    tag = naming.python_tag(py)
    pjrt = [w for w in wheels if _WHEEL.match(w.name).group(2) == "pjrt"]
    plugin = [w for w in wheels if _WHEEL.match(w.name).group(2) == "plugin" and f"-{tag}-" in w.name]
    if not plugin:
        result.problems.append(f"no plugin wheel for Python {py} (the validating interpreter)")
        return
    say(f"pip install {pjrt[0].name} {plugin[0].name}")
    # This tool's own pip installs into the fresh venv (which has none): fast, and offline.
    pip = subprocess.run([sys.executable, "-m", "pip", "--python", str(env_python), "install", "--no-index",
                          "--no-deps", "--disable-pip-version-check", "--quiet",
                          str(pjrt[0]), str(plugin[0])], capture_output=True, text=True)
    if pip.returncode != 0:
        tail = (pip.stderr.strip().splitlines() or ["?"])[-1]
        result.problems.append(f"pip install failed: {tail}")
        return
    result.checked.append("install")
    major = _WHEEL.match(pjrt[0].name).group(1)
    packages = {"pjrt": naming.pjrt_package(int(major)), "plugin": naming.plugin_package(int(major))}
    probe = subprocess.run([str(env_python), "-c", _PROBE, json.dumps(packages)],
                           capture_output=True, text=True)
    if probe.returncode != 0:
        tail = (probe.stderr.strip().splitlines() or ["?"])[-1]
        result.problems.append(f"importing the installed wheels failed: {tail}")
        return
    found = json.loads(probe.stdout)
    for key, info in found.items():
        if not info["installed"]:
            result.problems.append(f"{key}: {packages[key]} is not installed")
            continue
        if info["version"] != version:
            result.problems.append(f"{key}: __version__ is {info['version']!r}, expected {version}")
        if revisions is not None and info["commits"] != revisions.legacy_commits():
            result.problems.append(f"{key}: commit_info.commits {info['commits']!r} differs from "
                                   f"{naming.REVISIONS_ASSET}")
    result.checked.append("import")
