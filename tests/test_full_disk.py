"""A full disk or an unusable directory ends in one line and exit 2 with nothing half done:
publish checks the dist can record its outcome before the store is touched, and a write that
runs out of space (RLIMIT_FSIZE in a subprocess) in publish, promote and index names a path,
never a traceback."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.publish_dist import make_dist  # noqa: F401 (fixture)

VERSION = "0.9.1.dev20261121"


def _release(*argv: object, limit: int | None = None, cwd: Path) -> subprocess.CompletedProcess:
    def cap() -> None:
        if limit is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    env = {**os.environ, "RELEASE_GITHUB_WRITE_INTERVAL": "0"}
    env.pop("GITHUB_REPOSITORY", None)
    return subprocess.run([sys.executable, "-m", "release", *map(str, argv)], capture_output=True, text=True,
                          cwd=cwd, env=env, preexec_fn=cap, timeout=120)


def _one_line(proc: subprocess.CompletedProcess) -> None:
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr, proc.stderr


def test_publish_of_a_dist_that_cannot_record_is_refused_before_the_store(make_dist, tmp_path, project_dir):
    dist = make_dist(VERSION)
    (dist / "manifest.json").unlink(missing_ok=True)
    (dist / "manifest.json").mkdir()
    store = tmp_path / "store"
    proc = _release("publish", dist, "--store", "local", "--store-dir", store, cwd=project_dir)
    _one_line(proc)
    assert "manifest.json" in proc.stderr and "nothing was sent" in proc.stderr
    assert not list(store.rglob("release.json"))  # no draft, no asset


@pytest.mark.parametrize("fraction", [0.05, 0.5, 0.95])
def test_publish_into_a_full_disk_is_one_line_naming_the_store(make_dist, tmp_path, project_dir, fraction):
    dist = make_dist(VERSION)
    limit = int(max(p.stat().st_size for p in dist.iterdir() if p.is_file()) * fraction)
    store = tmp_path / "store"
    proc = _release("publish", dist, "--store", "local", "--store-dir", store, limit=limit, cwd=project_dir)
    _one_line(proc)
    assert str(store) in proc.stderr and "size limit" in proc.stderr


def test_promote_into_a_full_disk_is_one_line_and_leaves_no_wheel(make_dist, tmp_path, project_dir):
    dist = make_dist(VERSION)
    out = tmp_path / "out"
    proc = _release("promote", *sorted(dist.glob("*.whl")), "--to", "rc1", "--out", out, limit=300,
                    cwd=project_dir)
    _one_line(proc)
    assert str(out) in proc.stderr
    assert not list(out.glob("*.whl"))


def test_index_into_a_full_disk_names_the_site_not_the_store(make_dist, tmp_path, project_dir):
    dist = make_dist(VERSION)
    store = tmp_path / "store"
    published = _release("publish", dist, "--store", "local", "--store-dir", store, "--json", cwd=project_dir)
    assert published.returncode == 0, published.stderr
    tag = json.loads(published.stdout)["tag"]
    assert _release("publish", "--undraft", tag, "--store", "local", "--store-dir", store,
                    cwd=project_dir).returncode in (0, 2)
    site = tmp_path / "site"
    proc = _release("index", "--out", site, "--store", "local", "--store-dir", store, limit=1_000,
                    cwd=project_dir)
    if proc.returncode == 0:
        pytest.skip("nothing published to index (undraft needs a validated draft)")
    _one_line(proc)
    assert str(site) in proc.stderr
