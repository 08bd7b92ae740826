"""A real package index for the PyPI tests: pypiserver (from the registry), in this process,
on 127.0.0.1, taking uploads through the upload API with htpasswd credentials.

In front of pypiserver's own WSGI app sits a thin recorder: it keeps every upload's form
fields (not the file) so tests can read what reached the index (the ``attestations`` field,
the digests), and ``hold(n)`` stops the n-th upload before pypiserver sees it, so a test can
kill the uploading process between two uploads. Fallback to any public index is off.
The two Trusted Publishing parties (GitHub's OIDC issuer, the index's mint endpoint) are
stood in for on the same host, since they cannot run here.

Fixture ``pypi_server`` -> ``PypiServer`` (``upload_url``, ``index_url``, ``user``,
``password``, ``uploads``, ``files()``, ``put(path)``).
"""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import io
import json
import logging
import threading
from email.parser import BytesParser
from email.policy import HTTP
from pathlib import Path
from socketserver import ThreadingMixIn
from urllib.parse import parse_qs
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

import pytest

USER = "__token__"
PASSWORD = "pypi-AgEIcHlwaS5vcmcCJDAwMDAtdGVzdC1zZWNyZXQtdG9rZW4tZm9yLXVwbG9hZHM"
# Trusted Publishing's parties, which cannot run here, stand in front of pypiserver: GitHub's
# OIDC issuer (ACTIONS_ID_TOKEN_REQUEST_URL, answering a bearer request token) and PyPI's
# /_/oidc/audience and /_/oidc/mint-token (a token for the audience -> the upload password).
OIDC_PATH = "/_test/github-oidc"
REQUEST_TOKEN = "ghs-request-token-for-the-oidc-endpoint-0123"
AUDIENCE = "test-index"


class _Quiet(WSGIRequestHandler):
    def log_message(self, *args):
        pass


class _Threading(ThreadingMixIn, WSGIServer):
    daemon_threads = True


def parse_form(content_type: str, body: bytes) -> list[tuple[str, str]]:
    """The text fields of a multipart/form-data body, in order (file parts left out)."""
    message = BytesParser(policy=HTTP).parsebytes(
        f"Content-Type: {content_type}\r\n\r\n".encode() + body)
    fields = []
    for part in message.iter_parts():
        if part.get_filename() is None:
            fields.append((part.get_param("name", header="content-disposition"),
                           part.get_payload(decode=True).decode("utf-8")))
    return fields


@dataclasses.dataclass
class PypiServer:
    root: Path
    upload_url: str
    index_url: str
    user: str = USER
    password: str = PASSWORD
    uploads: list = dataclasses.field(default_factory=list)  # [(file name, [(field, value)])]
    publisher_registered: bool = True   # False: the mint endpoint refuses every token
    echo_credentials: bool = False   # refuse uploads with a message quoting the credentials sent
    stale_pages: int = 0   # the next N project pages answer 404, as a lagging cache of the index would
    lose: set = dataclasses.field(default_factory=set)  # names of files answered 200 OK and never stored
    oidc_requests: list = dataclasses.field(default_factory=list)
    _hold_at: int | None = None
    arrived: threading.Event = dataclasses.field(default_factory=threading.Event)
    release: threading.Event = dataclasses.field(default_factory=threading.Event)
    stored: threading.Event = dataclasses.field(default_factory=threading.Event)

    def hold(self, nth: int, *, then_store: bool = False) -> None:
        """Stop the ``nth`` upload (1-based) before the index sees it: ``arrived`` is set, then it
        waits for ``release`` and is answered 502 without being stored, or (``then_store``) is
        stored late, as an index that answered nothing in time may still do (``stored`` is set)."""
        self._hold_at, self._count, self._then_store = nth, 0, then_store
        self.arrived.clear()
        self.release.clear()
        self.stored.clear()

    def files(self) -> dict[str, str]:
        """``{file name: sha256}`` of what the index stores."""
        return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in self.root.iterdir() if p.is_file()}

    def put(self, path: Path, data: bytes | None = None) -> None:
        """Store a file as if someone had uploaded it (``data``: other bytes under its name)."""
        (self.root / path.name).write_bytes(path.read_bytes() if data is None else data)


def jwt_for(audience: str) -> str:
    """The OIDC token the stand-in issuer hands out for ``audience`` (opaque to the tool)."""
    return "eyJhbGciOiJSUzI1NiJ9." + base64.urlsafe_b64encode(
        json.dumps({"aud": audience, "repository": "ROCm/rocm-jax"}).encode()).decode().rstrip("=") + ".sig"


def _json(start_response, status: str, data: dict) -> list[bytes]:
    start_response(status, [("Content-Type", "application/json")])
    return [json.dumps(data).encode()]


def _trusted_publishing(environ, start_response, server: PypiServer):
    path, method = environ.get("PATH_INFO", ""), environ["REQUEST_METHOD"]
    if path == "/_/oidc/audience" and method == "GET":
        return _json(start_response, "200 OK", {"audience": AUDIENCE})
    if path == OIDC_PATH and method == "GET":
        query = parse_qs(environ.get("QUERY_STRING", ""))
        server.oidc_requests.append(query)
        if environ.get("HTTP_AUTHORIZATION") != f"bearer {REQUEST_TOKEN}":
            return _json(start_response, "401 Unauthorized", {"message": "bad request token"})
        return _json(start_response, "200 OK", {"value": jwt_for(query.get("audience", [""])[0])})
    if path == "/_/oidc/mint-token" and method == "POST":
        body = json.loads(environ["wsgi.input"].read(int(environ.get("CONTENT_LENGTH") or 0)) or b"{}")
        if not server.publisher_registered or body.get("token") != jwt_for(AUDIENCE):
            return _json(start_response, "422 Unprocessable Entity", {
                "message": "Token request failed", "errors": [
                    {"code": "invalid-publisher",
                     "description": "valid token, but no corresponding publisher"}]})
        return _json(start_response, "200 OK", {"success": True, "token": server.password})
    return None


def _file_name(environ, body: bytes) -> str | None:
    message = BytesParser(policy=HTTP).parsebytes(
        f"Content-Type: {environ.get('CONTENT_TYPE', '')}\r\n\r\n".encode() + body)
    return next((part.get_filename() for part in message.iter_parts() if part.get_filename()), None)


def _recorder(app, server: PypiServer):
    def wrapped(environ, start_response):
        answered = _trusted_publishing(environ, start_response, server)
        if answered is not None:
            return answered
        if environ["REQUEST_METHOD"] == "GET" and environ.get("PATH_INFO", "").startswith("/simple/") \
                and server.stale_pages > 0:
            server.stale_pages -= 1
            start_response("404 Not Found", [("Content-Type", "text/plain")])
            return [b"not in the cache yet"]
        if environ["REQUEST_METHOD"] == "POST":
            length = int(environ.get("CONTENT_LENGTH") or 0)
            body = environ["wsgi.input"].read(length)
            environ["wsgi.input"] = io.BytesIO(body)
            fields = parse_form(environ.get("CONTENT_TYPE", ""), body)
            names = [f for f in fields if f[0] == "name"]
            server._count = getattr(server, "_count", 0) + 1
            if server.echo_credentials:  # an index (or proxy) that quotes what it was sent
                sent = base64.b64decode(environ.get("HTTP_AUTHORIZATION", "Basic ").split()[-1] or b"")
                start_response("400 Bad Request", [("Content-Type", "text/plain")])
                return [b"invalid credentials " + sent]
            if server._hold_at is not None and server._count == server._hold_at:
                server.arrived.set()
                server.release.wait(timeout=30)
                if getattr(server, "_then_store", False):
                    answer = app(environ, start_response)
                    server.stored.set()
                    return answer
                start_response("502 Bad Gateway", [("Content-Type", "text/plain")])
                return [b"held by the test"]
            server.uploads.append((names[0][1] if names else None, fields))
            if _file_name(environ, body) in server.lose:  # an index that takes a file and loses it
                start_response("200 OK", [("Content-Type", "text/plain")])
                return [b"OK"]
        return app(environ, start_response)
    return wrapped


@pytest.fixture
def pypi_server(tmp_path):
    import pypiserver
    from passlib.apache import HtpasswdFile

    logging.getLogger("pypiserver").setLevel(logging.WARNING)
    root = tmp_path / "index-packages"
    root.mkdir()
    htpasswd = tmp_path / "htpasswd"
    users = HtpasswdFile(str(htpasswd), new=True)
    users.set_password(USER, PASSWORD)
    users.save()
    app = pypiserver.app(roots=[root], authenticate=["update"], password_file=str(htpasswd),
                         disable_fallback=True, hash_algo="sha256")
    state = PypiServer(root, "", "")
    httpd = make_server("127.0.0.1", 0, _recorder(app, state), server_class=_Threading, handler_class=_Quiet)
    base = f"http://127.0.0.1:{httpd.server_address[1]}"
    state.upload_url, state.index_url = f"{base}/", f"{base}/simple/"
    # shutdown() waits for the loop to look: at the default half second, that was most of the
    # wall time of a PyPI test, spent idle in its teardown
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.02}, name="pypiserver",
                              daemon=True)
    thread.start()
    try:
        yield state
    finally:
        state.release.set()
        httpd.shutdown()
        httpd.server_close()
        thread.join()
