"""validate's install as users install: jax (with jax's extra for the ROCm major) and jaxlib of
the line, the draft's plugin and pjrt, in one resolve, with pip and with uv, each into a fresh venv.

A user of ROCm installs jax, jaxlib and the plugin together (jax's ROCm extra: ``jaxlib`` and
``jax-rocmN-plugin`` of the same ``X.Y.Z``), with the public index for jax and jaxlib and ours
for the plugin. pip merges the indexes and takes the best version anywhere; uv takes each
package from the first index that has it (extra indexes before ``--index-url``), so the same
line can pick another build. Both are run; after each install the venv must hold jax and jaxlib
of the line, and the plugin and pjrt with exactly the draft's files (every payload file's RECORD
hash equals the draft wheel's).

A jax line not (yet) on the public index is a warning for nightlies and rcs (their users cannot
install them with jax either, until jax releases the line) and a problem for releases and posts.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from packaging.utils import canonicalize_name
from packaging.version import Version

from release.check import resolver
from release.core import naming, versions

if TYPE_CHECKING:
    from release.core.output import Say

INSTALLERS = ("pip", "uv")
TIMEOUT = 900.0  # seconds one install may take (pip's and uv's own network timeouts are shorter)

# Runs in the fresh venv: the version and RECORD of each named distribution, or null.
_PROBE = r"""
import importlib.metadata as md, json, sys
out = {}
for name in json.loads(sys.argv[1]):
    try:
        dist = md.distribution(name)
    except md.PackageNotFoundError:
        out[name] = None
        continue
    out[name] = {"version": dist.version, "record": dist.read_text("RECORD") or ""}
print(json.dumps(out))
"""


@dataclasses.dataclass
class Outcome:
    """How one installer did: problems fail validation, warnings are said."""

    installer: str
    problems: list[str] = dataclasses.field(default_factory=list)
    warnings: list[str] = dataclasses.field(default_factory=list)
    # what pip took from the public index (pip's --report), once the install checked out
    public: list[resolver.Pick] = dataclasses.field(default_factory=list)
    report: dict | None = None  # pip's installation report of a pip install that passed (the lock's source)

    @property
    def tested(self) -> bool:
        return not self.problems and not self.warnings


def line_of(version: str) -> str:
    """The jax line of a wheel version: ``X.Y.Z`` of a release, rc, nightly or post."""
    return Version(version).base_version


def user_extra(major: int) -> str:
    """The extra of jax users of ROCm ``major`` type with the ROCm they have (``jax[rocm7-local]``,
    jax's setup.py: jaxlib of the line and that major's plugin)."""
    return f"rocm{major}-local"


def requirements(major: int, version: str) -> list[str]:
    """The user's install line: jax of the line with its extra for ``major`` (an index whose jax
    lacks the extra installs plain jax: pip and uv warn, and jaxlib is pinned beside it anyway),
    jaxlib of the line, and the plugin pinned."""
    line = line_of(version)
    return [f"jax[{user_extra(major)}]=={line}", f"jaxlib=={line}", f"{naming.plugin_dist(major)}=={version}"]


def extra_provided(report: dict, extra: str) -> str | None:
    """``extra`` when jax in pip's installation report provides it, else None (the public jax
    predates it: what users typing it get is plain jax)."""
    for item in report.get("install", []) or []:
        meta = item.get("metadata") or {} if isinstance(item, dict) else {}
        if canonicalize_name(str(meta.get("name", ""))) == "jax":
            provided = meta.get("provides_extra") or []
            return extra if isinstance(provided, list) and extra in provided else None
    return None


def find_uv() -> str | None:
    """uv on PATH, else beside this interpreter (a venv with uv installed)."""
    found = shutil.which("uv")
    if found:
        return found
    beside = Path(sys.executable).parent / "uv"
    return str(beside) if beside.is_file() and os.access(beside, os.X_OK) else None


def installer_env() -> dict[str, str]:
    """The user's environment (their proxy, their pip configuration) for a pip or uv run: pip
    neither prompts nor checks its own version, uv draws no progress bars, and the draft's index
    (local) is never asked through a proxy."""
    env = dict(os.environ, PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_NO_INPUT="1", UV_NO_PROGRESS="1")
    for key in ("NO_PROXY", "no_proxy"):
        env[key] = ",".join(filter(None, [env.get(key, ""), "127.0.0.1", "localhost"]))
    return env


def _run(argv: list[str]) -> subprocess.CompletedProcess | str:
    try:
        return subprocess.run(argv, capture_output=True, text=True, env=installer_env(), timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        return f"{Path(argv[0]).name} did not finish within {TIMEOUT:.0f} s"


def install_argv(installer: str, python: Path, reqs: Sequence[str], draft_index: str,
                 public_index: str | None, uv: str | None = None, report: Path | None = None) -> list[str]:
    """The install command a user runs: the public index plus ours as an extra one (pip also
    writes its ``--report`` to ``report``: which files it took, from where, with their sha256).
    pip is this tool's own, started in the venv's interpreter at once (``pip --python`` would
    start a second pip process first, about 0.35 s of CPU per install). pip byte-compiles nothing
    (``--no-compile``, uv's default): the venv is dropped after one import, which compiles what it
    loads; compiling all of jax, jaxlib, numpy and scipy first cost four times the install's CPU."""
    if installer == "pip":
        return [*resolver.pip_argv(python), "install", "--pre", "--no-compile",
                "--no-cache-dir", "--quiet", *(["--report", str(report)] if report else []),
                *resolver.index_args(draft_index, public_index), *reqs]
    public = public_index if public_index is not None else resolver.pip_configured_index()
    argv = [uv or "uv", "pip", "install", "--python", str(python), "--no-config", "--no-cache",
            "--prerelease", "allow", "--extra-index-url", draft_index]
    if public:
        argv += ["--index-url", public]
    return [*argv, *reqs]


def _error_line(stderr: str) -> str:
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    picked = [line for line in lines if line.startswith(("ERROR:", "error:", "×", "Because"))]
    return (picked or lines or ["failed without a message"])[-1][:300]


def missing_line(stderr: str, line: str) -> bool:
    """Whether the installer failed because jax or jaxlib ``line`` is on no index."""
    pin = r"(?:\[[^\]]*\])?" + re.escape(f"=={line}")  # jax with its extra, as users type it
    return bool(re.search(rf"No matching distribution found for jax(lib)?{pin}\b", stderr)
                or re.search(rf"no version of jax(lib)?{pin}\b", stderr, re.I)
                or re.search(r"\bjax(lib)? was not found in the package registr", stderr))


def record_hashes(text: str) -> dict[str, str]:
    """path -> hash of the payload rows of a RECORD (the .dist-info's own files left out:
    installers add INSTALLER, REQUESTED, direct_url.json)."""
    rows = {}
    for row in csv.reader(io.StringIO(text)):
        if len(row) >= 2 and row[1] and ".dist-info/" not in row[0]:
            rows[row[0]] = row[1]
    return rows


def wheel_record(wheel: Path) -> dict[str, str]:
    with zipfile.ZipFile(wheel) as zf:
        name = next(n for n in zf.namelist() if n.count("/") == 1 and n.endswith(".dist-info/RECORD"))
        return record_hashes(zf.read(name).decode("utf-8", "replace"))


def check_installed(python: Path, line: str, draft: dict[str, tuple[str, Path]]) -> list[str]:
    """jax and jaxlib of ``line``, and each of ``draft`` (dist -> (version, wheel)) installed
    from exactly the draft's file, in the venv of ``python``."""
    names = ["jax", "jaxlib", *draft]
    done = _run([str(python), "-c", _PROBE, json.dumps(names)])
    if isinstance(done, str) or done.returncode != 0:
        return [f"reading the installed distributions failed: "
                f"{done if isinstance(done, str) else _error_line(done.stderr)}"]
    found = json.loads(done.stdout)
    problems = []
    for name in ("jax", "jaxlib"):
        got = found.get(name)
        if got is None or got["version"] != line:
            problems.append(f"{name} is {got['version'] if got else 'not installed'}, not the line's {line}")
    for dist, (version, wheel) in draft.items():
        got = found.get(dist)
        if got is None or got["version"] != version:
            problems.append(f"{dist} is {got['version'] if got else 'not installed'}, not the draft's "
                            f"{version}")
        elif record_hashes(got["record"]) != wheel_record(wheel):
            problems.append(f"{dist} {version} was installed from another file than the draft's "
                            f"{wheel.name}")
    return problems


def install_as_users(interp_path: str, python_version: str, major: int, version: str,
                     draft: dict[str, tuple[str, Path]], draft_index: str, public_index: str | None,
                     work: Path, say: Say, installers: Sequence[str] = INSTALLERS) -> list[Outcome]:
    """Each installer: a fresh venv, the user's install line in one resolve, then the check."""
    reqs = requirements(major, version)
    line = line_of(version)
    early = versions.kind_of(version) in ("nightly", "rc")
    outcomes = []
    for installer in installers:
        outcome = Outcome(installer)
        outcomes.append(outcome)
        uv = find_uv() if installer == "uv" else None
        if installer == "uv" and uv is None:
            outcome.warnings.append("uv is not installed here: the uv install was not tried")
            continue
        env_dir = work / f"{installer}-venv"
        made = _run([interp_path, "-m", "venv", "--without-pip", str(env_dir)])
        if isinstance(made, str) or made.returncode != 0:
            outcome.problems.append(f"{interp_path} -m venv failed")
            continue
        python = env_dir / "bin" / "python"
        say(f"Python {python_version}: {installer} install {' '.join(reqs)}")
        report = work / f"{installer}-report.json" if installer == "pip" else None
        done = _run(install_argv(installer, python, reqs, draft_index, public_index, uv, report))
        if isinstance(done, str):
            outcome.problems.append(done)
        elif done.returncode != 0:
            if missing_line(done.stderr, line) and early:
                outcome.warnings.append(f"jax {line} is not on the public index yet, so users cannot "
                                        f"install this {versions.kind_of(version)} with jax either")
            else:
                outcome.problems.append(f"{installer} cannot install {' '.join(reqs)} from the draft's "
                                        f"index and the public one: {_error_line(done.stderr)}")
        else:
            outcome.problems += check_installed(python, line, draft)
            if report is not None and not outcome.problems:
                from release.check.public_set import from_report
                try:
                    outcome.public = from_report(report, draft_index)
                except (OSError, ValueError):
                    pass  # validate says that nothing was recorded
                outcome.report = _read_report(report)
    return outcomes


def _read_report(path: Path) -> dict | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def draft_files(wheels: Sequence[Path], plugin: Path, major: int, version: str) -> dict[str, tuple[str, Path]]:
    """dist -> (version, wheel) of the pjrt wheel and ``plugin`` (this Python's)."""
    pjrt = next(w for w in wheels if naming.Identity.of(w).kind == "pjrt")
    return {canonicalize_name(naming.plugin_dist(major)): (version, plugin),
            canonicalize_name(naming.pjrt_dist(major)): (version, pjrt)}
