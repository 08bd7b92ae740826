"""Upload a 500 MB asset: ``GitHubClient.upload`` vs a streaming ``requests`` client, and the
cost of loading GitHub's OpenAPI description the test suite's stand-in validates against.

The anchor is the strongest simple alternative: ``requests.post(url, data=<open file>)`` with
``Content-Length``, which streams the file without reading it into memory (not the naive
``data=path.read_bytes()``). Both upload to the same local sink (a plain HTTP server on
127.0.0.1 that reads and discards the body and answers like GitHub's uploads host), each
from a child process whose wall time, CPU time (user + sys) and peak RSS (``wait4``) are
measured; the two run interleaved, ``--runs`` times, and medians are compared. The
``gh`` CLI is not the anchor: it cannot talk to a plain-HTTP host.

    python benchmarks/bench_publish.py [--size-mb 500] [--runs 5] [--openapi PATH]

Goal: peak RSS independent of the asset size (well under 100 MB for a 500 MB asset) at a
CPU and wall time no worse than the streaming anchor's.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
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


def child(code: str) -> tuple[float, float, float]:
    """Run ``code`` in a fresh interpreter; (wall s, CPU s, peak RSS MB)."""
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-c", code], cwd=REPO)
    _, status, usage = os.wait4(proc.pid, 0)
    if status != 0:
        raise SystemExit(f"child failed: {status}")
    return (time.perf_counter() - start, usage.ru_utime + usage.ru_stime,
            usage.ru_maxrss / 1024)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size-mb", type=int, default=500)
    parser.add_argument("--runs", type=int, default=5, help="interleaved runs of each side")
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
            from release.sources.github import GitHubClient
            c = GitHubClient("bench-token-0000", "http://127.0.0.1:1", write_interval=0)
            c.upload({url!r}, {str(asset)!r}, "asset.whl")
        """)
        anchor = textwrap.dedent(f"""
            import os, requests
            path = {str(asset)!r}
            with open(path, "rb") as body:
                r = requests.post({url.split('{')[0]!r}, params={{"name": "asset.whl"}}, data=body,
                                  headers={{"Content-Type": "application/octet-stream",
                                            "Content-Length": str(os.path.getsize(path)),
                                            "Authorization": "Bearer bench-token-0000"}})
            r.raise_for_status()
        """)
        runs = {"anchor": [], "ours": []}
        for _ in range(args.runs):  # interleaved: a busy spell slows both sides alike
            runs["anchor"].append(child(anchor))
            runs["ours"].append(child(ours))
    server.shutdown()
    med = {k: [statistics.median(r[i] for r in v) for i in range(3)] for k, v in runs.items()}
    print(f"upload {args.size_mb} MB, {args.runs} interleaved runs each, medians; "
          f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}")
    for name, label in (("anchor", "requests, streamed file"), ("ours", "release.sources.github upload")):
        wall, cpu, rss = med[name]
        print(f"  {label:24} CPU {cpu:6.2f} s   wall {wall:6.2f} s   peak RSS {rss:6.1f} MB")
    (a_wall, a_cpu, a_rss), (o_wall, o_cpu, o_rss) = med["anchor"], med["ours"]
    print(f"ratio anchor/ours: CPU {a_cpu / o_cpu:.2f}x, wall {a_wall / o_wall:.2f}x, "
          f"peak RSS {a_rss / o_rss:.2f}x")
    if args.openapi.is_file():
        load = textwrap.dedent(f"""
            import time
            from tests.support.fake_github import load_openapi
            t = time.perf_counter()
            load_openapi({str(args.openapi)!r})
            print(f"  (load itself: {{time.perf_counter() - t:.2f}} s)")
        """)
        wall, _, rss = child(load)
        print(f"OpenAPI description load (spec validation off): {wall:.2f} s with interpreter start, "
              f"peak RSS {rss:.1f} MB")
    else:
        print(f"OpenAPI description not found at {args.openapi}; run ./scripts/test once")


if __name__ == "__main__":
    from _results import record_run
    raise SystemExit(record_run(main))
