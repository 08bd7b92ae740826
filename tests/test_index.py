"""``release index``: a static PEP 503/658 index that pip really installs from, served on 127.0.0.1."""

from __future__ import annotations

import functools
import hashlib
import json
import os
import subprocess
import sys
import threading
import venv
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

from release.index import build_index
from tests.support.publish_dist import gh_store, release_dist


class _Quiet(SimpleHTTPRequestHandler):
    seen: list[str] = []

    def log_message(self, *args):
        pass

    def do_GET(self):
        self.seen.append(self.path)
        super().do_GET()


def serve(directory):
    handler = type("Handler", (_Quiet,), {"seen": []})
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(handler, directory=str(directory)))
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    return server, handler.seen


def test_pip_installs_from_the_index(fake_github, make_dist, tmp_path):
    store = gh_store(fake_github)
    release_dist(store, make_dist("0.9.1.dev20261121"))
    newest = release_dist(store, make_dist("0.9.1.dev20261122"))
    release_dist(store, make_dist("0.9.2.dev20261123", requires_python=">=3.99"))
    from release.publish import publish_draft, read_dist
    publish_draft(store, read_dist(make_dist("0.9.3.dev20261124")))  # a draft: not in the index
    site = tmp_path / "site"
    result = build_index(store, site)
    assert sorted(result["projects"]) == ["jax-rocm7-pjrt", "jax-rocm7-plugin"]
    assert len(result["projects"]["jax-rocm7-plugin"]) == 3
    page = (site / "jax-rocm7-plugin" / "index.html").read_text()
    wheel = next(a for a in newest.wheels if "plugin" in a.name)
    assert f'href="{wheel.name}#sha256={wheel.digest}"' in page
    assert 'data-requires-python="&gt;=3.11"' in page and 'data-requires-python="&gt;=3.99"' in page
    metadata = (site / "jax-rocm7-plugin" / (wheel.name + ".metadata")).read_bytes()
    assert f'data-dist-info-metadata="sha256={hashlib.sha256(metadata).hexdigest()}"' in page
    assert b"Requires-Dist: jax-rocm7-pjrt==0.9.1.dev20261122" in metadata
    assert "0.9.3" not in page

    server, seen = serve(site)
    try:
        env_dir = tmp_path / "venv"
        venv.EnvBuilder(with_pip=False).create(env_dir)
        py = env_dir / "bin" / "python"
        url = f"http://127.0.0.1:{server.server_address[1]}/"
        env = {**os.environ, "PIP_CONFIG_FILE": os.devnull}
        # --index-url keeps pip off the internet; it reads the page exactly as --extra-index-url does
        proc = subprocess.run([sys.executable, "-m", "pip", "--python", str(py), "install", "--pre",
                               "--no-cache-dir", "--disable-pip-version-check", "--index-url", url,
                               "jax-rocm7-plugin"], capture_output=True, text=True, env=env)
        assert proc.returncode == 0, proc.stderr
        versions = subprocess.run([str(py), "-c", "import json, importlib.metadata as m; print(json.dumps("
                                   "{d: m.version(d) for d in ('jax-rocm7-plugin', 'jax-rocm7-pjrt')}))"],
                                  capture_output=True, text=True, check=True)
        # the newest that fits this Python: 0.9.2 needs Python >= 3.99, so pip skipped it
        assert json.loads(versions.stdout) == {"jax-rocm7-plugin": "0.9.1.dev20261122",
                                               "jax-rocm7-pjrt": "0.9.1.dev20261122"}
        assert any(p.endswith(".whl.metadata") for p in seen)  # PEP 658 metadata was used
    finally:
        server.shutdown()
        server.server_close()

    downloads = sum(1 for e in fake_github.log if e[0] == "storage")
    again = build_index(store, site)
    assert sum(1 for e in fake_github.log if e[0] == "storage") == downloads  # nothing re-fetched
    assert again["removed"] == []
    old = next(r for r in store.list_releases() if r.tag == "rocm-jax-v0.9.1.dev20261121")
    store.delete_release(old)
    gone = build_index(store, site)
    assert len(gone["removed"]) == 4 and not list(site.glob("*/*0.9.1.dev20261121*"))


def test_cli_index_on_local_store(run_cli, make_dist, tmp_path, monkeypatch):
    from release.stores import LocalStore
    monkeypatch.delenv("GITHUB_REPOSITORY", raising=False)
    release_dist(LocalStore(tmp_path / "s"), make_dist("0.9.1"))
    code, out, err = run_cli("index", "--out", tmp_path / "site", "--store-dir", tmp_path / "s", "--json")
    assert code == 0, err
    assert json.loads(out)["projects"]["jax-rocm7-pjrt"] == [
        "jax_rocm7_pjrt-0.9.1-py3-none-manylinux_2_28_x86_64.whl"]
    assert (tmp_path / "site" / "index.html").read_text().count("<a href") == 2
