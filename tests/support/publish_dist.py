"""Small but real ``dist/<version>/`` directories for the publishing tests.

What ``release build`` leaves behind, minus the native payload: the PJRT wheel and
one plugin wheel for the running Python (so pip can install both here), each with
``version.py`` and ``commit_info.py`` as the release tool writes them, each wheel's PEP 658
``<wheel>.metadata``, then
``revisions.json``, ``provenance.intoto.json`` and ``SHA256SUMS``. Wheels are written with ``zipfile`` so the
publishing tests do not depend on the build code; they pass ``release.check.verify``.

Fixture ``make_dist(version, commits=None, requires_python=">=3.11") -> Path``: builds one under a
session temp dir; ``commits`` overrides dep commits (``{"xla": "<sha>"}``).
"""

from __future__ import annotations

import base64
import hashlib
import shutil
import sys
import zipfile
from pathlib import Path

import pytest

from release.build import provenance
from release.core import core_metadata, naming
from release.core.config import load_deps
from release.core.revisions import RevisionMap

REPO_ROOT = Path(__file__).resolve().parents[2]
ROCM_MAJOR = 7
PYTHON = f"{sys.version_info.major}.{sys.version_info.minor}"


def _record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def write_wheel(path: Path, dist: str, version: str, tag: str, files: dict[str, str | bytes],
                requires: list[str] = (), requires_python: str = ">=3.11",
                provides_extra: tuple[str, ...] = ()) -> Path:
    di = f"{naming.wheel_filename(dist, version, None).split('-')[0]}-{version}.dist-info"
    meta = (f"Metadata-Version: 2.1\nName: {dist}\nVersion: {version}\n"
            f"Summary: test build of {dist}\nRequires-Python: {requires_python}\n"
            + "".join(f"Provides-Extra: {e}\n" for e in provides_extra)
            + "".join(f"Requires-Dist: {r}\n" for r in requires))
    wheel = f"Wheel-Version: 1.0\nGenerator: tests\nRoot-Is-Purelib: false\nTag: {tag}\n"
    members = {**files, f"{di}/METADATA": meta, f"{di}/WHEEL": wheel}
    record = []
    tmp = path.with_name(path.name + ".part")
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, text in members.items():
            data = text if isinstance(text, bytes) else text.encode()
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            info.external_attr = 0o644 << 16
            zf.writestr(info, data, zipfile.ZIP_DEFLATED)
            record.append(_record_line(name, data))
        record.append(f"{di}/RECORD,,")
        info = zipfile.ZipInfo(f"{di}/RECORD", date_time=(1980, 1, 1, 0, 0, 0))
        info.external_attr = 0o644 << 16
        zf.writestr(info, "\n".join(record) + "\n")
    tmp.replace(path)
    return path


def _version_py(version: str) -> str:
    base = version.split(".dev")[0].split("rc")[0].split(".post")[0]
    return (f'_version = "{base}"\n_release_version = "{version}"\n_git_hash = None\n'
            "__version__ = _release_version or _version\n")


def build_dist(out_root: Path, version: str, commits: dict[str, str] | None = None,
               requires_python: str = ">=3.11", pythons: tuple[str, ...] = (PYTHON,),
               version_py: str | None = None, release_commit: str = "0" * 40,
               rocm_version: str | None = None, majors: tuple[int, ...] = (ROCM_MAJOR,),
               with_rocm: dict[int, tuple[str, ...]] | None = None) -> Path:
    """``pythons``: one plugin wheel for each; ``version_py``: the text of both wheels'
    ``version.py`` instead of the one the release tool writes; ``release_commit``: this
    repository's commit the wheels were built from; ``rocm_version``: the provenance's;
    ``majors``: the ROCm majors, each with its PJRT wheel and a plugin wheel per Python;
    ``with_rocm``: major -> the requirements of its plugin's ``with-rocm`` extra (none without)."""
    deps = load_deps(REPO_ROOT / "deps.yaml")
    if commits:
        deps = deps.with_commits(commits)
    revisions = RevisionMap.from_deps(deps, version, release_commit)
    out = Path(out_root) / version
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    common = {"version.py": version_py if version_py is not None else _version_py(version),
              "commit_info.py": revisions.commit_info_py()}
    pjrts, plugins = [], []
    extra = with_rocm or {}
    for major in majors:
        pjrt_pkg, plugin_pkg = naming.pjrt_package(major), naming.plugin_package(major)
        pjrts.append(write_wheel(out / naming.pjrt_wheel(major, version), naming.pjrt_dist(major),
                                 version, naming.wheel_tag(None),
                                 {f"{pjrt_pkg}/__init__.py": "from .version import __version__\n",
                                  **{f"{pjrt_pkg}/{k}": v for k, v in common.items()}},
                                 requires_python=requires_python))
        plugins += [write_wheel(out / naming.plugin_wheel(major, version, python),
                                naming.plugin_dist(major), version, naming.wheel_tag(python),
                                {f"{plugin_pkg}/__init__.py": "from .version import __version__\n",
                                 **{f"{plugin_pkg}/{k}": v for k, v in common.items()}},
                                requires=[f"{naming.pjrt_dist(major)}=={version}",
                                          *(f'{r}; extra == "with-rocm"' for r in extra.get(major, ()))],
                                provides_extra=("with-rocm",) if major in extra else (),
                                requires_python=requires_python) for python in pythons]
    (out / naming.REVISIONS_ASSET).write_text(revisions.dumps())
    sidecars = [core_metadata.write_beside(w) for w in (*pjrts, *plugins)]  # PEP 658, as the build writes them
    prov = provenance.write_dist(out, {p.name: hashlib.sha256(p.read_bytes()).hexdigest()
                                       for p in (*pjrts, *plugins)}, revisions, rocm_version=rocm_version,
                                 invocation=provenance.Invocation.from_env({}, host="test-host"))
    sums = "".join(f"{hashlib.sha256(p.read_bytes()).hexdigest()}  {p.name}\n"
                   for p in sorted([*pjrts, *plugins, *sidecars, out / naming.REVISIONS_ASSET, prov]))
    (out / naming.CHECKSUMS_ASSET).write_text(sums)
    return out


@pytest.fixture
def make_dist(tmp_path):
    """Each call builds into a directory of its own (``<tmp>/dist-<n>/<version>``)."""
    count = iter(range(1, 1 << 30))

    def make(version: str, commits: dict[str, str] | None = None, **kwargs) -> Path:
        return build_dist(tmp_path / f"dist-{next(count)}", version, commits, **kwargs)
    return make


def gh_store(fake, clock=None):
    """A ``GitHubStore`` on a ``FakeGitHub`` whose waits are instant (recorded in ``clock.sleeps``
    when a ``FakeClock`` is given)."""
    from release.publish.stores import GitHubStore
    from release.sources.github import GitHubClient
    from tests.support.fake_github import FakeClock

    clock = clock or FakeClock()
    client = GitHubClient(fake.token, fake.api_url, sleep=clock.sleep, clock=clock.time,
                          write_interval=1.0)
    return GitHubStore(client, *fake.repo.split("/"))


def mark_validated(store, tag):
    """What a passing ``release validate`` leaves on the draft (without installing anything)."""
    from release.publish import notes
    from release.publish.drafts import current_assets_digest

    draft = store.drafts_for(tag)[0]
    digest = current_assets_digest(store, draft)
    assert digest is not None
    return store.update_release(draft, body=notes.changed(draft, validated=digest))


def release_dist(store, path):
    """Publish ``path`` all the way: draft, validated mark, undraft. Returns the ``Dist``."""
    from release.publish.drafts import publish_draft, read_dist, undraft

    dist = read_dist(path)
    publish_draft(store, dist)
    mark_validated(store, dist.tag)
    undraft(store, dist.tag)
    return dist


def without_index_facts(store, tag):
    """A published release's notes as publish wrote them before they recorded each wheel's
    index facts (``release.publish.wheel_record``): the index reads those wheels."""
    from release.publish import notes

    release = store.published_for(tag)
    return store.update_release(release, body=notes.changed(release, index_facts=None))
