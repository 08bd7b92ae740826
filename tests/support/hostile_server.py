"""A hostile HTTP server for tests: redirects to a second host, ``Link`` loops, answers that
drip a byte at a time, NaN and garbage headers, deeply nested JSON. Each server records every
request it got (method, path, headers), so a test can assert what a stranger never saw.

The GitHub stand-in (``fake_github``) behaves like GitHub; this one behaves like the world.
"""

from __future__ import annotations

import dataclasses
import http.server
import json
import threading
import time
from typing import Callable, Iterator

import pytest

Handler = Callable[["_Request"], None]


@dataclasses.dataclass
class Seen:
    method: str
    path: str
    headers: dict[str, str]


class _Request(http.server.BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.1"

    def _any(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            self.rfile.read(length)
        self.server.owner.seen.append(Seen(self.command, self.path, {k.lower(): v for k, v in self.headers.items()}))
        for prefix, handler in sorted(self.server.owner.routes.items(), key=lambda r: -len(r[0])):
            if self.path.split("?", 1)[0].startswith(prefix):
                try:
                    handler(self)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up: what a deadline is for
                return
        self.send(404, b'{"message": "Not Found"}')

    do_GET = do_POST = do_PATCH = do_PUT = do_DELETE = do_HEAD = _any

    def send(self, status: int, body: bytes = b"", headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        headers = {"Content-Type": "application/json", **(headers or {})}
        for key, value in headers.items():
            self.send_header(key, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


class _Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    owner: HostileServer


class HostileServer:
    """One server on 127.0.0.1; ``route(prefix, handler)`` scripts what a path answers."""

    def __init__(self, host: str = "127.0.0.1") -> None:
        self.routes: dict[str, Handler] = {}
        self.seen: list[Seen] = []
        self._server = _Server((host, 0), _Request)
        self._server.owner = self
        self.host = host
        self.port = self._server.server_port
        self.url = f"http://{host}:{self.port}"
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.02},
                                        daemon=True)
        self._thread.start()

    def route(self, prefix: str, handler: Handler) -> HostileServer:
        self.routes[prefix] = handler
        return self

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def saw_text(self, text: str) -> bool:
        """Whether any request's path or header carried ``text``."""
        return any(text in s.path or any(text in v for v in s.headers.values()) for s in self.seen)


# ---------------------------------------------------------------- behaviours


def redirect_to(base: str, status: int = 302) -> Handler:
    """Redirect every request to the same path on ``base`` (another host)."""
    def handle(req: _Request) -> None:
        req.send(status, b"", {"Location": base + req.path})
    return handle


def answer(body: object, status: int = 200, headers: dict[str, str] | None = None) -> Handler:
    """A fixed JSON answer (bytes are sent as they are)."""
    data = body if isinstance(body, bytes) else json.dumps(body).encode()

    def handle(req: _Request) -> None:
        req.send(status, data, headers)
    return handle


def link_loop(items: Callable[[int], object], *, back_to: str | None = None) -> Handler:
    """A list endpoint whose ``Link: rel="next"`` points at a page already served (``back_to``,
    default: the page itself), forever. ``items(n)`` is the n-th request's body."""
    count = [0]

    def handle(req: _Request) -> None:
        count[0] += 1
        target = back_to or req.path
        base = f"http://{req.headers.get('Host')}"
        req.send(200, json.dumps(items(count[0])).encode(), {"Link": f'<{base}{target}>; rel="next"'})
    return handle


def endless_pages() -> Handler:
    """Every page links a new next page: a list that never ends."""
    def handle(req: _Request) -> None:
        page = int(req.path.rsplit("page=", 1)[1]) if "page=" in req.path else 1
        base = f"http://{req.headers.get('Host')}{req.path.split('?', 1)[0]}"
        req.send(200, json.dumps([{"page": page}]).encode(),
                 {"Link": f'<{base}?page={page + 1}>; rel="next"'})
    return handle


def drip(body: bytes, every: float, *, status: int = 200) -> Handler:
    """Headers at once, then the body one byte every ``every`` seconds (each read returns
    something, so a per-read timeout never fires)."""
    def handle(req: _Request) -> None:
        req.send_response(status)
        req.send_header("Content-Type", "application/json")
        req.send_header("Content-Length", str(len(body)))
        req.end_headers()
        req.wfile.flush()
        for byte in body:
            req.wfile.write(bytes([byte]))
            req.wfile.flush()
            time.sleep(every)
    return handle


def nested_json(depth: int) -> bytes:
    return b"[" * depth + b"]" * depth


@pytest.fixture
def hostile_servers() -> Iterator[Callable[..., HostileServer]]:
    """Make as many hostile servers as a test needs (``host`` may be "localhost" to be another
    host name than 127.0.0.1); all are shut down after the test."""
    made: list[HostileServer] = []

    def make(host: str = "127.0.0.1") -> HostileServer:
        server = HostileServer(host)
        made.append(server)
        return server
    yield make
    for server in made:
        server.close()
