"""The package registry for tests marked ``network``: skip them cleanly when it is unreachable.

Whether it is reachable is asked once per run (the workers share the answer), and only when a
``network`` test is about to run, by asking pip (with a short timeout and no retries) for the
versions of the PJRT wheel. Set ``RELEASE_TESTS_OFFLINE=1`` to skip them without asking. The
published jax-rocm7 wheels are downloaded once per run, by pip, into the run's temporary directory.

``local_index(wheels)``: a package index on 127.0.0.1 standing in for the public one (PEP 691
JSON and PEP 503 HTML), for resolver tests that must not touch the internet.
"""

from __future__ import annotations

import html
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.shared import built_once

PUBLISHED = ("jax-rocm7-pjrt", "jax-rocm7-plugin")
PUBLISHED_VERSION = "0.10.2"
_reachable: bool | None = None


def _pip(*args: str, timeout: float) -> subprocess.CompletedProcess | None:
    env = dict(os.environ, PIP_DISABLE_PIP_VERSION_CHECK="1")
    try:
        return subprocess.run([sys.executable, "-m", "pip", *args, "--timeout", "10",
                               "--retries", "0"], capture_output=True, text=True, timeout=timeout,
                              env=env)
    except subprocess.TimeoutExpired:
        return None


def ask_registry(_directory: Path | None = None) -> bool:
    """pip (the user's configuration: index, certificate, proxy) lists the published version."""
    proc = _pip("index", "versions", PUBLISHED[0], timeout=30)
    return proc is not None and proc.returncode == 0 and PUBLISHED_VERSION in proc.stdout


def registry_reachable(tmp_path_factory: pytest.TempPathFactory | None = None) -> bool:
    """Asked once per run (``built_once``: every xdist worker reads the first one's answer; a pip
    run costs about 1 CPU-s), or once per process without the run's temporary directory."""
    global _reachable
    if _reachable is None:
        if os.environ.get("RELEASE_TESTS_OFFLINE"):
            _reachable = False
        elif tmp_path_factory is None:
            _reachable = ask_registry()
        else:
            _reachable = bool(built_once(tmp_path_factory, "registry-reachable", ask_registry))
    return _reachable


def pytest_runtest_setup(item):
    if item.get_closest_marker("network") and not registry_reachable(getattr(item.config, "_tmp_path_factory", None)):
        pytest.skip("package registry unreachable (test marked network)")


@pytest.fixture(scope="session")
def published_wheels(tmp_path_factory) -> dict[str, Path]:
    """The published jax-rocm7 0.10.2 wheels (PJRT, and the plugin for Python 3.11), downloaded
    once in the run, whatever the number of workers (tests/support/shared.py)."""
    if not registry_reachable(tmp_path_factory):
        pytest.skip("package registry unreachable")
    found = built_once(tmp_path_factory, "published-wheels", _download_published)
    if isinstance(found, str):
        pytest.skip(found)
    return found


def _download_published(dest: Path) -> dict[str, Path] | str:
    """The wheels by kind, or why they could not be had (each worker skips with it)."""
    proc = _pip("download", "--no-deps", "--only-binary=:all:", "--python-version", "3.11",
                "--platform", "manylinux_2_27_x86_64", "--dest", str(dest),
                *(f"{name}=={PUBLISHED_VERSION}" for name in PUBLISHED), timeout=900)
    if proc is None or proc.returncode != 0:
        return ("could not download the published wheels: "
                + ((proc.stderr.strip().splitlines() or ["timeout"])[-1] if proc else "timeout"))
    found = {}
    for name in PUBLISHED:
        prefix = name.replace("-", "_") + f"-{PUBLISHED_VERSION}-"
        found[name.rsplit("-", 1)[1]] = next(dest.glob(prefix + "*.whl"))
    return found


# ---------------------------------------------------------------- a local "public" index


class LocalIndex:
    """A package index on 127.0.0.1 standing in for the public one: PEP 691 JSON when asked
    for it (``json=True``), else PEP 503 HTML, with sha256 fragments; ``log`` holds every path
    requested. ``metadata``: as PyPI, each wheel's METADATA at its URL + ``.metadata``, its
    sha256 named in both formats (PEP 658/714), and each file's ``size`` in the JSON (PEP 700).
    Written here, independently of the tool's own index code."""

    def __init__(self, wheels, *, json_api: bool = True, metadata: bool = False):
        import hashlib
        import http.server
        import threading
        import zipfile
        from email.parser import HeaderParser

        from packaging.utils import canonicalize_name, parse_wheel_filename

        self.files: dict[str, bytes] = {}
        self.projects: dict[str, list[dict]] = {}
        self.log: list[str] = []
        for wheel in map(Path, wheels):
            data = wheel.read_bytes()
            name, version, _, _ = parse_wheel_filename(wheel.name)
            with zipfile.ZipFile(wheel) as zf:
                meta = next(n for n in zf.namelist() if n.endswith(".dist-info/METADATA"))
                meta_bytes = zf.read(meta)
                requires = HeaderParser().parsestr(meta_bytes.decode()).get("Requires-Python")
            self.files[wheel.name] = data
            entry = {"filename": wheel.name, "url": f"../../files/{wheel.name}",
                     "hashes": {"sha256": hashlib.sha256(data).hexdigest()},
                     "requires-python": requires, "version": str(version)}
            if metadata:
                self.files[wheel.name + ".metadata"] = meta_bytes
                entry["core-metadata"] = {"sha256": hashlib.sha256(meta_bytes).hexdigest()}
                entry["size"] = len(data)
            self.projects.setdefault(canonicalize_name(name), []).append(entry)
        index = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                index.log.append(self.path)
                parts = [p for p in self.path.split("?")[0].split("/") if p]
                if len(parts) == 2 and parts[0] == "files" and parts[1] in index.files:
                    return self._send(index.files[parts[1]], "application/octet-stream")
                if len(parts) == 2 and parts[0] == "simple" and parts[1] in index.projects:
                    files = index.projects[parts[1]]
                    if json_api and "application/vnd.pypi.simple.v1+json" in self.headers.get("Accept", ""):
                        body = json.dumps({
                            "meta": {"api-version": "1.1"}, "name": parts[1],
                            "versions": sorted({f["version"] for f in files}),
                            "files": [{k: f[k] for k in ("filename", "url", "hashes", "requires-python",
                                                          "core-metadata", "size") if k in f}
                                      for f in files]}).encode()
                        return self._send(body, "application/vnd.pypi.simple.v1+json")
                    links = "".join(
                        f'<a href="{f["url"]}#sha256={f["hashes"]["sha256"]}"'
                        + (f' data-requires-python="{html.escape(f["requires-python"])}"'
                           if f["requires-python"] else "")
                        + (f' data-core-metadata="sha256={f["core-metadata"]["sha256"]}"'
                           if "core-metadata" in f else "")
                        + f'>{f["filename"]}</a><br/>\n'
                        for f in files)
                    return self._send(f"<!DOCTYPE html><html><body>\n{links}</body></html>".encode(),
                                      "text/html")
                self.send_error(404)

            do_HEAD = do_GET  # as real indexes answer it (uv asks HEAD before a ranged read)

            def _send(self, body: bytes, kind: str):
                self.send_response(200)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(body)

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
        self.thread.start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/simple/"

    def close(self):
        self.server.shutdown()
        self.server.server_close()
        self.thread.join()


@pytest.fixture
def local_index():
    """``local_index(wheels, json_api=True) -> LocalIndex``; every one is closed afterwards."""
    made = []

    def make(wheels, **kwargs) -> LocalIndex:
        made.append(LocalIndex(wheels, **kwargs))
        return made[-1]
    yield make
    for index in made:
        index.close()
