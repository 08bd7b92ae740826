"""A local HTTP server for a static index directory, negotiating like a real index (PEP 691).

``serve(directory, negotiate=True)`` -> ``Served`` (``url``, ``seen``, ``close()``). A request for a
directory is answered with its ``index.json`` as ``application/vnd.pypi.simple.v1+json`` or its
``index.html`` as ``application/vnd.pypi.simple.v1+html`` / ``text/html``, whichever the Accept
header prefers by q-value (406 when none is acceptable), with ``Vary: Accept``; this is what the
README's server configuration does. ``negotiate=False`` is a plain static host (HTML only).
``seen`` records ``(path, content type served)`` of every answered request.
"""

from __future__ import annotations

import dataclasses
import functools
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

JSON_TYPE = "application/vnd.pypi.simple.v1+json"
HTML_TYPE = "application/vnd.pypi.simple.v1+html"


def parse_accept(header: str | None) -> list[tuple[str, float]]:
    """``[(media type, q)]`` of an Accept header, q > 0 only; a missing header accepts anything."""
    if not header:
        return [("*/*", 1.0)]
    out = []
    for part in header.split(","):
        fields = [f.strip() for f in part.split(";")]
        media, q = fields[0].lower(), 1.0
        for param in fields[1:]:
            if param.lower().startswith("q="):
                try:
                    q = float(param[2:])
                except ValueError:
                    q = 0.0
        if media and q > 0:
            out.append((media, q))
    return out


def choose(header: str | None) -> str | None:
    """The content type to serve a simple page as, or None (406)."""
    offers = [JSON_TYPE, HTML_TYPE, "text/html"]
    best, best_q = None, 0.0
    for offer in offers:  # on a tie the server's order wins (JSON first, as PyPI does)
        q = max((q for media, q in parse_accept(header)
                 if media in (offer, "*/*") or (media.endswith("/*") and offer.startswith(media[:-1]))),
                default=0.0)
        if q > best_q:
            best, best_q = offer, q
    return best


class _Handler(SimpleHTTPRequestHandler):
    seen: list
    negotiate = True

    def log_message(self, *args):
        pass

    def do_GET(self):
        path = Path(self.translate_path(self.path))
        if path.is_dir() and self.path.split("?")[0].endswith("/"):
            kind = choose(self.headers.get("Accept")) if self.negotiate else "text/html"
            if kind is None:
                self.send_error(406, "no acceptable simple API format")
                self.seen.append((self.path, "406"))
                return
            page = path / ("index.json" if kind == JSON_TYPE else "index.html")
            if not page.is_file():
                self.send_error(404)
                return
            data = page.read_bytes()
            self.send_response(200)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(data)))
            self.send_header("Vary", "Accept")
            self.end_headers()
            self.wfile.write(data)
            self.seen.append((self.path, kind))
            return
        self.seen.append((self.path, "file"))
        super().do_GET()


@dataclasses.dataclass
class Served:
    url: str
    seen: list
    server: ThreadingHTTPServer

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def serve(directory: Path, negotiate: bool = True) -> Served:
    handler = type("Handler", (_Handler,), {"seen": [], "negotiate": negotiate})
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(handler, directory=str(directory)))
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    return Served(f"http://127.0.0.1:{server.server_address[1]}", handler.seen, server)
