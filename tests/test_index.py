"""``release index``: per-channel PEP 503/691 indexes that real pip installs from, and a site that
is never lost: a mistyped or empty store is refused with SITE untouched, writes are swapped in whole,
and a re-run with no change rewrites nothing."""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import os
import re
import subprocess
import sys
import urllib.request
import venv
from pathlib import Path

import pytest

from release.index import JSON_TYPE, build_site, write_index
from release.stores import LocalStore
from tests.support.index_server import serve
from tests.support.publish_dist import gh_store, release_dist

PLUGIN, PJRT = "jax-rocm7-plugin", "jax-rocm7-pjrt"


def tree(site: Path) -> dict[str, tuple[str, int]]:
    """Every file of a site: sha256 and mtime, so 'untouched' and 'rewrote nothing' are checkable."""
    return {str(p.relative_to(site)): (hashlib.sha256(p.read_bytes()).hexdigest(), p.stat().st_mtime_ns)
            for p in sorted(site.rglob("*")) if p.is_file()}


def pip_install(tmp_path, url, *args, name="env"):
    """Real pip into a fresh venv; returns (returncode, {dist: version}, stderr)."""
    env_dir = tmp_path / name
    venv.EnvBuilder(with_pip=False).create(env_dir)
    py = env_dir / "bin" / "python"
    env = {**os.environ, "PIP_CONFIG_FILE": os.devnull}
    proc = subprocess.run([sys.executable, "-m", "pip", "--python", str(py), "install", "--no-cache-dir",
                           "--disable-pip-version-check", "--index-url", url, *args],
                          capture_output=True, text=True, env=env)
    if proc.returncode:
        return proc.returncode, {}, proc.stderr
    got = subprocess.run([str(py), "-c", "import json, importlib.metadata as m; print(json.dumps("
                          "{d.metadata['Name']: d.version for d in m.distributions()}))"],
                         capture_output=True, text=True, check=True)
    return 0, json.loads(got.stdout), proc.stderr


def every_link_resolves(site: Path) -> None:
    for page in site.rglob("index.html"):
        for href in re.findall(r'href="([^"#]+)', page.read_text()):
            if href.startswith(("http://", "https://", "file:")):
                continue
            target = (page.parent / href)
            assert target.exists(), f"{page.relative_to(site)} links {href}, which is not there"


class Clock:
    """Publishing times for the local store: one hour apart, never the wall clock."""

    def __init__(self):
        self.now = _dt.datetime(2026, 11, 1, 4, tzinfo=_dt.timezone.utc)

    def __call__(self):
        self.now += _dt.timedelta(hours=1)
        return self.now


# ------------------------------------------------------------------ an index of given wheel files


def test_write_index_of_wheel_files_is_installed_by_pip_over_json_and_html(make_dist, tmp_path):
    dist = make_dist("0.9.1.dev20261122")
    wheels = sorted(dist.glob("*.whl"))
    out = tmp_path / "staged"
    result = write_index(out, wheels)
    assert result["changed"] and sorted(result["projects"]) == [PJRT, PLUGIN]
    page = (out / PLUGIN / "index.html").read_text()
    plugin = next(w for w in wheels if "plugin" in w.name)
    digest = hashlib.sha256(plugin.read_bytes()).hexdigest()
    meta = (out / PLUGIN / (plugin.name + ".metadata")).read_bytes()
    meta_digest = hashlib.sha256(meta).hexdigest()
    assert f'href="{plugin.name}#sha256={digest}"' in page
    assert 'data-requires-python="&gt;=3.11"' in page
    assert f'data-dist-info-metadata="sha256={meta_digest}"' in page
    assert f'data-core-metadata="sha256={meta_digest}"' in page

    for negotiate in (True, False):
        served = serve(out, negotiate=negotiate)
        try:
            code, installed, err = pip_install(tmp_path, served.url + "/", "--pre", PLUGIN,
                                               name=f"env-{negotiate}")
            assert code == 0, err
            assert installed[PLUGIN] == installed[PJRT] == "0.9.1.dev20261122"
            kinds = {kind for path, kind in served.seen if path == f"/{PLUGIN}/"}
            # pip asks for JSON first: a negotiating server gives it JSON, a plain host HTML
            assert kinds == ({JSON_TYPE} if negotiate else {"text/html"})
            assert any(p.endswith(".whl.metadata") for p, _ in served.seen)  # PEP 658 used
        finally:
            served.close()

    before = tree(out)
    again = write_index(out, wheels)
    assert not again["changed"] and tree(out) == before  # same bytes, same files, nothing rewritten
