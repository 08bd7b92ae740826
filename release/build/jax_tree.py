"""The jax-tree layout's Bazel commands: jax's own wheel targets, stamped with our version.

From jax 0.10 the plugin is jax's own tree, and its wheels are jax's targets
(``//jaxlib/tools:jax_rocm_plugin_wheel``, ``:jax_rocm_pjrt_wheel``, jaxlib/tools/BUILD.bazel),
run directly in the jax checkout (no ``build/build.py``), as jax's ROCm CI passes them
(ci/build_rocm_artifacts.sh): ``--bazelrc=build/rocm/rocm.bazelrc``,
``--config=rocm_release_wheel``, the Python as ``--repo_env=HERMETIC_PYTHON_VERSION``.

Bazel writes and names the wheels itself, so the version is stamped in: xla's
``python_wheel_version_suffix_repository`` appends to jax's ``_version`` ``.dev<ML_WHEEL_BUILD_DATE>``
(``ML_WHEEL_TYPE=nightly``) or ``ML_WHEEL_VERSION_SUFFIX`` (``release``). ``stamp`` turns the
plan's version into those flags (a nightly of a released line, ``X.Y.Z.postN.devD``, has no
nightly form there: it is stamped as ``release`` with the suffix ``.postN.devD``), and the
build refuses a wheel whose name says another version.

The major: ``jaxlib/rocm/rocm_version.bzl`` gives ``ROCM_MAJOR_VERSION`` (the wheel names'
N); upstream it is derived from the ROCm ``@local_config_rocm`` is pointed at, so one build a
major, each with ``--repo_env=ROCM_PATH=<that ROCm>`` (as jax's CI points it at TheRock's SDK).
A tree that writes the major as a literal builds that major only (``tree_majors``).
"""

from __future__ import annotations

import dataclasses
import os
import re
from pathlib import Path
from typing import Iterable, Mapping

from release.build import bazel
from release.core import versions
from release.core.errors import UserError

BAZELRC = "build/rocm/rocm.bazelrc"
CONFIG = "rocm_release_wheel"
TARGETS = {"pjrt": "//jaxlib/tools:jax_rocm_pjrt_wheel", "plugin": "//jaxlib/tools:jax_rocm_plugin_wheel"}
GIT_HASH_FLAG = "--//jaxlib/tools:jaxlib_git_hash"
ROCM_VERSION_FILE = "jaxlib/rocm/rocm_version.bzl"
WORKSPACE_SUBDIR = "jax"           # the jax checkout inside a fetched workspace: Bazel runs there
OVERRIDES = ("xla",)               # the pinned xla checkout, as jax's CI overrides it
_NIGHTLY = re.compile(r"\.dev(\d{8,11})\Z", re.ASCII)
_LITERAL_MAJOR = re.compile(r'^ROCM_MAJOR_VERSION\s*=\s*"(\d+)"\s*$', re.M | re.ASCII)
_DERIVED_MAJOR = re.compile(r"^ROCM_MAJOR_VERSION\s*=", re.M | re.ASCII)


def stamp(version: str, line: str, git_hash: str) -> list[str]:
    """The ``--repo_env`` flags (and jaxlib's git hash flag) that make jax's wheel rule write
    ``version``: jax's ``_version`` is ``line``, the rest is the suffix."""
    base = versions.base_of(version)
    if base != line or not version.startswith(line):
        raise UserError(f"version {version} is not on jax's line {line} (jax/version.py's _version at "
                        "the pin): Bazel stamps jax's _version plus a suffix; expected a version of that line")
    suffix = version[len(line):]
    nightly = _NIGHTLY.fullmatch(suffix)
    flags = ["--repo_env=ML_WHEEL_TYPE=" + ("nightly" if nightly else "release")]
    if nightly:
        flags.append(f"--repo_env=ML_WHEEL_BUILD_DATE={nightly.group(1)}")
    elif suffix:
        flags.append(f"--repo_env=ML_WHEEL_VERSION_SUFFIX={suffix}")
    return [*flags, f"--repo_env=ML_WHEEL_GIT_HASH={git_hash}", f"{GIT_HASH_FLAG}={git_hash}"]


def stamped_version(flags: Iterable[str], line: str) -> str:
    """The version jax's wheel rule writes under ``flags`` (xla's suffix rule, for release and
    nightly types): what the stand-in Bazel of the tests stamps, and a check of ``stamp``."""
    repo = {f.split("=", 2)[1]: f.split("=", 2)[2] for f in flags if f.startswith("--repo_env=") and f.count("=") >= 2}
    kind = repo.get("ML_WHEEL_TYPE", "snapshot")  # Bazel's repo_env, not this process's environment
    if kind == "nightly":
        return f"{line}.dev{repo['ML_WHEEL_BUILD_DATE'].replace('-', '')}"
    if kind == "release":
        return line + repo.get("ML_WHEEL_VERSION_SUFFIX", "").replace("-", "")
    return f"{line}.dev0+selfbuilt"


@dataclasses.dataclass(frozen=True)
class JaxTreeStep:
    """One ``bazel build`` of one of jax's wheel targets: a major's PJRT wheel, or its plugin
    wheel for one Python."""

    kind: str
    major: int
    python: str
    workspace: Path          # the fetched workspace (jax and xla checkouts in it)
    rocm_path: str
    stamp: tuple[str, ...]
    bazel: str = "bazel"

    @property
    def target(self) -> str:
        return TARGETS[self.kind]

    @property
    def flags(self) -> list[str]:
        return [f"--config={CONFIG}", f"--repo_env=HERMETIC_PYTHON_VERSION={self.python}",
                f"--repo_env=ROCM_PATH={self.rocm_path}", *self.stamp]

    @property
    def overrides(self) -> list[str]:
        return [f"--override_repository={name}={self.workspace / name}" for name in OVERRIDES] + \
               [f"--override_module={name}={self.workspace / name}" for name in OVERRIDES]

    @property
    def startup(self) -> list[str]:
        return [self.bazel, f"--bazelrc={BAZELRC}"]

    @property
    def bazel_workspace(self) -> Path:
        return self.workspace / WORKSPACE_SUBDIR

    def argv(self) -> list[str]:
        return [*self.startup, "build", *self.flags, self.target, *self.overrides]

    def cquery_argv(self) -> list[str]:
        return [*self.startup, "cquery", *self.flags, self.target, *self.overrides, "--output=files"]

    def info_argv(self) -> list[str]:
        return [*self.startup, "info", *self.flags, *self.overrides, "execution_root"]

    def cwd(self) -> Path:
        return check_workspace(self.workspace)


ROCM_PATHS_ENV = "RELEASE_ROCM_PATHS"


def rocm_paths(rocm_versions: Iterable[str], environ: Mapping[str, str] | None = None) -> dict[int, str]:
    """Each major's ROCm, as ``--repo_env=ROCM_PATH`` gives it to Bazel: ``/opt/rocm-A.B.C``,
    or what ``$RELEASE_ROCM_PATHS`` says (``10=/srv/therock-10 7=/opt/rocm-7.2.0``: TheRock's SDK
    root, as ``rocm-sdk path --root`` prints it). A word that is not ``MAJOR=/absolute/dir`` is
    one line naming it."""
    environ = os.environ if environ is None else environ
    paths = {int(v.split(".")[0]): f"/opt/rocm-{v}" for v in rocm_versions}
    for word in environ.get(ROCM_PATHS_ENV, "").replace(",", " ").split():
        major, sep, path = word.partition("=")
        if not sep or not major.isdigit() or not path.startswith("/") or len(word) > 4096:
            raise UserError(f"${ROCM_PATHS_ENV}: {word[:80]!r} is not MAJOR=/absolute/dir; expected words "
                            "such as 10=/opt/rocm-10.0.0, one a ROCm major")
        if int(major) in paths:
            paths[int(major)] = path
    return paths


def check_rocm_paths(paths: Mapping[int, str]) -> None:
    """Before any build: each major's ROCm is a directory here (else Bazel fails late, or finds
    another ROCm)."""
    for major, path in sorted(paths.items()):
        if not Path(path).is_dir():
            raise UserError(f"{path}: no such directory; expected ROCm {major} for the rocm{major} wheels "
                            f"(point ${ROCM_PATHS_ENV}={major}=DIR at it)")


def build_steps(workspace: Path, rocm_versions: Iterable[str], pythons: Iterable[str], stamp_flags: Iterable[str],
                *, rocm_paths: Mapping[int, str] | None = None, bazel: str = "bazel") -> list[JaxTreeStep]:
    """Per major (``rocm_versions`` order): its PJRT wheel once (with the first Python), then
    its plugin wheel per Python. ``rocm_paths``: each major's ROCm (default ``/opt/rocm-A.B.C``)."""
    pythons = list(pythons)
    if not pythons:
        raise UserError("no Python versions to build for; expected at least one --python 3.X")
    workspace = Path(workspace).resolve()
    flags = tuple(stamp_flags)
    steps = []
    for rocm in rocm_versions:
        major = int(rocm.split(".")[0])
        path = (rocm_paths or {}).get(major) or f"/opt/rocm-{rocm}"
        steps.append(JaxTreeStep("pjrt", major, pythons[0], workspace, path, flags, bazel))
        steps += [JaxTreeStep("plugin", major, py, workspace, path, flags, bazel) for py in pythons]
    return steps


def tree_majors(text: str | None) -> tuple[int, ...] | None:
    """The majors a jax tree's ``rocm_version.bzl`` builds: None for any (derived from the ROCm
    it is pointed at), ``(N,)`` for a literal ``ROCM_MAJOR_VERSION = "N"``, ``()`` for a tree
    without the file or the name (it builds no ``jax_rocmN`` wheels)."""
    if text is None:
        return ()
    literal = _LITERAL_MAJOR.search(text)
    if literal:
        return (int(literal.group(1)),)
    return None if _DERIVED_MAJOR.search(text) else ()


def check_tree_majors(jax_checkout: Path, majors: Iterable[int]) -> None:
    """Refuse, before any build, a major the jax tree at ``jax_checkout`` does not build."""
    path = Path(jax_checkout) / ROCM_VERSION_FILE
    try:
        text: str | None = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        text = None
    except (OSError, UnicodeDecodeError) as exc:
        raise UserError(f"{path}: cannot read it ({exc.__class__.__name__}); expected jax's ROCm "
                        "version file") from None
    built = tree_majors(text)
    if built is None:
        return
    for major in majors:
        if major not in built:
            has = f"ROCm {built[0]} only (ROCM_MAJOR_VERSION)" if built else "no ROCM_MAJOR_VERSION"
            raise UserError(f"{path}: the jax tree builds {has}; the line names ROCm {major} "
                            "(version_info.json rocm_versions): expected a jax pin whose tree builds it")


def check_workspace(workspace: Path) -> Path:
    """The jax checkout inside ``workspace`` (a Bazel workspace) with the xla checkout beside it."""
    return bazel.check_workspace(workspace, WORKSPACE_SUBDIR, OVERRIDES, "jax")
