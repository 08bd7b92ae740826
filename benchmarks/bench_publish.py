"""Upload a 500 MB asset: ``GitHubClient.upload`` (streamed) vs the read-it-all-then-POST
pattern release scripts use (``requests.post(url, data=path.read_bytes())``), and the cost
of loading GitHub's OpenAPI description the test suite's stand-in validates against.

Both uploads go to the same local sink (a plain HTTP server on 127.0.0.1 that reads and
discards the body and answers like GitHub's uploads host), each from a child process
whose wall time and peak RSS (``wait4``) are measured. The anchor is not ``gh`` (it
cannot talk to a plain-HTTP host); it is the naive pattern ``gh``'s streaming replaced.

    python benchmarks/bench_publish.py [--size-mb 500] [--openapi PATH]

Goal: peak RSS of the streamed upload independent of the asset size (well under 100 MB
for a 500 MB asset) at a wall time no worse than the anchor's.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


class Sink(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_POST(self):
        left = int(self.headers.get("Content-Length", 0))
        while left:
            left -= len(self.rfile.read(min(left, 1 << 20)))
        body = json.dumps({"id": 1, "name": "a.whl", "size": 0, "state": "uploaded",
                           "url": "x", "browser_download_url": "x"}).encode()
        self.send_response(201)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def child(code: str) -> tuple[float, float]:
    """Run ``code`` in a fresh interpreter; (wall seconds, peak RSS MB)."""
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-c", code], cwd=REPO)
    _, status, usage = os.wait4(proc.pid, 0)
    if status != 0:
        raise SystemExit(f"child failed: {status}")
    return time.perf_counter() - start, usage.ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size-mb", type=int, default=500)
    parser.add_argument("--openapi", type=Path, default=REPO / ".cache/node/node_modules/@octokit/"
                        "openapi/generated/api.github.com.json")
    args = parser.parse_args()
    server = ThreadingHTTPServer(("127.0.0.1", 0), Sink)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/repos/o/r/releases/1/assets{{?name,label}}"
    with tempfile.TemporaryDirectory() as tmp:
        asset = Path(tmp) / "asset.whl"
        block = os.urandom(1 << 20)
        with open(asset, "wb") as handle:
            for _ in range(args.size_mb):
                handle.write(block)
        ours = textwrap.dedent(f"""
            from release.github import GitHubClient
            c = GitHubClient("bench-token-0000", "http://127.0.0.1:1", write_interval=0)
            c.upload({url!r}, {str(asset)!r}, "asset.whl")
        """)
        anchor = textwrap.dedent(f"""
            import requests
            from pathlib import Path
            r = requests.post({url.split('{')[0]!r}, params={{"name": "asset.whl"}},
                              data=Path({str(asset)!r}).read_bytes(),
                              headers={{"Content-Type": "application/octet-stream",
                                        "Authorization": "Bearer bench-token-0000"}})
            r.raise_for_status()
        """)
        a_wall, a_rss = child(anchor)
        o_wall, o_rss = child(ours)
    server.shutdown()
    print(f"upload {args.size_mb} MB   anchor (read all, POST): {a_wall:6.2f} s  peak RSS {a_rss:7.1f} MB")
    print(f"upload {args.size_mb} MB   release.github (stream): {o_wall:6.2f} s  peak RSS {o_rss:7.1f} MB")
    print(f"ratio anchor/ours: wall {a_wall / o_wall:.2f}x, peak RSS {a_rss / o_rss:.1f}x")
    if args.openapi.is_file():
        load = textwrap.dedent(f"""
            import time
            from tests.support.fake_github import load_openapi
            t = time.perf_counter()
            load_openapi({str(args.openapi)!r})
            print(f"  (load itself: {{time.perf_counter() - t:.2f}} s)")
        """)
        wall, rss = child(load)
        print(f"OpenAPI description load (spec validation off): {wall:.2f} s with interpreter start, "
              f"peak RSS {rss:.1f} MB")
    else:
        print(f"OpenAPI description not found at {args.openapi}; run ./scripts/test once")


if __name__ == "__main__":
    main()
