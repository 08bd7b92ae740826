"""Real git remotes for the bump and fetch-sources tests.

``RepoBuilder`` writes commits into a bare repository with ``git fast-import`` (fast and
deterministic: fixed authors and dates). ``GitHttpServer`` serves a directory of bare
repositories over smart HTTP on 127.0.0.1 (a real ``git http-backend`` behind a tiny HTTP
server), optionally demanding a token, and counts the bytes it moves.

The ``git_remotes`` session fixture builds three upstreams shaped like the real ones:
``plugin`` (master) pins ``jax`` and ``xla`` in
``jax_rocm_plugin/third_party/{jax,xla}/workspace.bzl``; ``jax`` has a merged feature
branch, a fork-only commit (only under ``refs/pull/7/head``) and a side branch; ``xla``
was force-pushed (its old tip is dangling but still fetchable, as on GitHub).
"""

from __future__ import annotations

import base64
import dataclasses
import os
import re
import shutil
import subprocess
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from tests.support.project import REPO, write_version_info
from tests.support.shared import built_once

AUTHOR = "Ada Lovelace <ada@example.com>"
JAX_BZL = "jax_rocm_plugin/third_party/jax/workspace.bzl"
XLA_BZL = "jax_rocm_plugin/third_party/xla/workspace.bzl"
BRANCH = "rocm-jaxlib-v0.9.1"


def git(*args, cwd=None, env=None, input=None) -> str:
    return subprocess.run(["git", *map(str, args)], cwd=cwd, env=env, input=input, check=True,
                          capture_output=True, text=input is None or isinstance(input, str)).stdout


class RepoBuilder:
    """Commits written straight into a bare repository with git fast-import."""

    def __init__(self, path: Path, start: int = 1_760_000_000):
        self.path = Path(path)
        git("init", "--quiet", "--bare", self.path)
        # What GitHub allows: partial clone filters and fetching any commit by SHA.
        git("config", "uploadpack.allowFilter", "true", cwd=self.path)
        git("config", "uploadpack.allowAnySHA1InWant", "true", cwd=self.path)
        self.time = start

    def commit(self, ref: str, subject: str, files: dict[str, str] | None = None, *,
               parents: tuple[str, ...] | None = None, author: str = AUTHOR) -> str:
        """One commit on ``ref``; parents default to the ref's tip (none: a root commit)."""
        if not ref.startswith("refs/"):
            ref = f"refs/heads/{ref}"
        if parents is None:
            tip = self.tip(ref)
            parents = (tip,) if tip else ()
        self.time += 60
        msg = subject.encode() + b"\n"
        out = [f"reset {ref}\n".encode()] if not parents else []
        out.append(f"commit {ref}\nauthor {author} {self.time} +0000\n"
                   f"committer {author} {self.time} +0000\ndata {len(msg)}\n".encode() + msg)
        for i, parent in enumerate(parents):
            out.append(f"{'from' if i == 0 else 'merge'} {parent}\n".encode())
        for name, text in (files or {}).items():
            data = text.encode()
            out.append(f"M 100644 inline {name}\ndata {len(data)}\n".encode() + data + b"\n")
        out.append(b"\n")
        git("fast-import", "--quiet", "--force", cwd=self.path, input=b"".join(out))
        return self.tip(ref)

    def tip(self, ref: str) -> str | None:
        if not ref.startswith("refs/"):
            ref = f"refs/heads/{ref}"
        proc = subprocess.run(["git", "rev-parse", "--verify", "--quiet", ref], cwd=self.path,
                              capture_output=True, text=True)
        return proc.stdout.strip() or None

    def set_ref(self, ref: str, sha: str) -> None:
        git("update-ref", ref if ref.startswith("refs/") else f"refs/heads/{ref}", sha, cwd=self.path)

    @property
    def url(self) -> str:
        return self.path.as_uri()



def copied_builders(upstreams, root: Path) -> dict[str, RepoBuilder]:
    """The plugin, jax and xla builders of ``upstreams`` (anything with ``root`` and those three
    attributes), their directory copied to ``root`` (not there yet): each builder at its copy,
    with its clock where the original's is, so commits made in the copy never touch the original."""
    shutil.copytree(upstreams.root, root, symlinks=True)
    moved = {}
    for name in ("plugin", "jax", "xla"):
        repo = getattr(upstreams, name)
        moved[name] = builder = RepoBuilder.__new__(RepoBuilder)
        builder.path, builder.time = Path(root) / repo.path.relative_to(upstreams.root), repo.time
    return moved

def workspace_bzl(var: str, sha: str) -> str:
    return (f'"""Pinned by the plugin; rolled by the release tool."""\n\n'
            f'{var} = "{sha}"\n{var.replace("COMMIT", "SHA256")} = ""\n')


# ---------------------------------------------------------------- smart HTTP


class GitHttpServer:
    """``git http-backend`` for every bare repository under ``root``, on 127.0.0.1:<ephemeral>."""

    def __init__(self, root: Path, token: str | None = None, config: dict[str, str] | None = None,
                 delay: float = 0.0):
        self.root = Path(root)
        self.token = token
        # Seconds each request waits before it is answered: a network's round trip, which a
        # server on 127.0.0.1 hides (the bump benchmark's --delay-ms).
        self.delay = delay
        # Server-side git config for every request (e.g. allow filters on repos we may not edit).
        self.config = " ".join(f"'{k}={v}'" for k, v in (config or {}).items())
        self.bytes_in = self.bytes_out = self.requests = 0
        # Every request answered, in order: (method, path, what it asked). What: the service of
        # a ref advertisement (``GET .../info/refs?service=git-upload-pack``) or the protocol v2
        # command of a POST (``ls-refs``, ``fetch``; ``upload-pack`` for protocol v0's).
        self.log: list[tuple[str, str, str]] = []
        self._lock = threading.Lock()
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self.httpd.daemon_threads = True
        # stop() waits for the loop to look: every 20 ms, not the default half second
        self._thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02},
                                        daemon=True)

    def start(self) -> "GitHttpServer":
        self._thread.start()
        return self

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self._thread.join(timeout=10)

    def url(self, name: str, *, user: str | None = None, password: str | None = None) -> str:
        cred = f"{user}:{password}@" if user else ""
        return f"http://{cred}127.0.0.1:{self.httpd.server_address[1]}/{name}"

    def reset_counts(self) -> None:
        with self._lock:
            self.bytes_in = self.bytes_out = self.requests = 0
            self.log = []

    def count(self, got: int, sent: int, asked: tuple[str, str, str] = ("", "", "")) -> None:
        with self._lock:
            self.bytes_in += got
            self.bytes_out += sent
            self.requests += 1
            self.log.append(asked)

    def asked(self, command: str, repo: str | None = None) -> list[tuple[str, str, str]]:
        """The logged requests that asked ``command`` (``ls-refs``, ``fetch``, ``info/refs``),
        of the repository whose path ends with ``repo`` when given."""
        return [entry for entry in self.log if entry[2] == command
                and (repo is None or entry[1].split("/info/refs")[0].split("/git-upload-pack")[0].endswith(repo))]


def _what(method: str, path: str, body: bytes, encoding: str) -> str:
    """What a smart-HTTP request asks: ``info/refs`` (the advertisement), a protocol v2
    ``command=`` (``ls-refs``, ``fetch``), or ``upload-pack`` (protocol v0's negotiation)."""
    if method == "GET":
        return "info/refs"
    if encoding == "gzip":
        import gzip
        body = gzip.decompress(body)
    found = re.match(rb"[0-9a-f]{4}command=([a-z-]+)", body)
    return found.group(1).decode() if found else path.rsplit("/", 1)[-1]


def _read_chunked(rfile) -> bytes:
    body = bytearray()
    while True:
        size = int(rfile.readline().split(b";")[0].strip(), 16)
        if size == 0:
            while rfile.readline().strip():
                pass
            return bytes(body)
        body += rfile.read(size)
        rfile.readline()


def _handler(server: GitHttpServer):
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def _serve(self):
            if server.delay:
                time.sleep(server.delay)
            if server.token is not None:
                expected = "Basic " + base64.b64encode(f"x-access-token:{server.token}".encode()).decode()
                if self.headers.get("Authorization") != expected:
                    self.send_response(401)
                    self.send_header("WWW-Authenticate", 'Basic realm="git"')
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    server.count(0, 0, (self.command, urlsplit(self.path).path, "401"))
                    return
            if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
                body = _read_chunked(self.rfile)
            else:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            url = urlsplit(self.path)
            env = {
                "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
                "GIT_PROJECT_ROOT": str(server.root), "GIT_HTTP_EXPORT_ALL": "1",
                "REQUEST_METHOD": self.command, "PATH_INFO": url.path, "QUERY_STRING": url.query,
                "CONTENT_TYPE": self.headers.get("Content-Type", ""), "CONTENT_LENGTH": str(len(body)),
                "REMOTE_ADDR": "127.0.0.1", "REMOTE_USER": "x-access-token",
                "GIT_PROTOCOL": self.headers.get("Git-Protocol", ""),
                "HTTP_CONTENT_ENCODING": self.headers.get("Content-Encoding", ""),
            }
            if server.config:
                env["GIT_CONFIG_PARAMETERS"] = server.config
            proc = subprocess.run(["git", "http-backend"], input=body, env=env, capture_output=True,
                                  timeout=120)  # bounded: a stuck backend fails the test
            head, _, payload = proc.stdout.partition(b"\r\n\r\n")
            if not _:
                head, _, payload = proc.stdout.partition(b"\n\n")
            status, headers = 200, []
            for line in head.decode("latin-1").splitlines():
                key, _, value = line.partition(":")
                if key.lower() == "status":
                    status = int(value.split()[0])
                elif key:
                    headers.append((key, value.strip()))
            self.send_response(status)
            for key, value in headers:
                self.send_header(key, value)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)
            server.count(len(body), len(payload), (self.command, url.path, _what(
                self.command, url.path, body, self.headers.get("Content-Encoding", ""))))

        do_GET = do_POST = _serve

    return Handler


# ---------------------------------------------------------------- the three upstreams


@dataclasses.dataclass
class Remotes:
    root: Path
    plugin: RepoBuilder
    jax: RepoBuilder
    xla: RepoBuilder
    c: dict[str, str]  # named commits

    def url(self, name: str, http: GitHttpServer | None = None) -> str:
        return http.url(f"{name}.git") if http else getattr(self, name).url

    def copy(self, root: Path) -> Remotes:
        """The same three repositories, files copied to ``root``, for a test that commits into
        them: what ``build_remotes(root)`` gives, without its 60-odd git processes (0.8 CPU-s)."""
        moved = copied_builders(self, root)
        return Remotes(Path(root), moved["plugin"], moved["jax"], moved["xla"], dict(self.c))


def build_remotes(root: Path) -> Remotes:
    root.mkdir(parents=True, exist_ok=True)
    c: dict[str, str] = {}
    jax = RepoBuilder(root / "jax.git")
    c["J0"] = jax.commit(BRANCH, "Initial jax", {"jax/__init__.py": "v = 0\n"})
    c["J1"] = jax.commit(BRANCH, "Add ROCm kernels", {"jaxlib/rocm/k.cc": "int k;\n"})
    c["F1"] = jax.commit("feature", "Feature work", {"jax/feature.py": "f = 1\n"}, parents=(c["J1"],))
    c["J2"] = jax.commit(BRANCH, "Unrelated fix", {"jax/fix.py": "x = 1\n"})
    # fast-import does not merge trees: the merge commit carries the merged file itself.
    c["J3"] = jax.commit(BRANCH, "Merge branch 'feature'", {"jax/feature.py": "f = 1\n"},
                         parents=(c["J2"], c["F1"]))
    c["J4"] = jax.commit(BRANCH, "Bump version", {"jax/__init__.py": "v = 1\n"},
                         author="Grace Hopper <grace@example.com>")
    # A fork's commit, reachable only from a pull-request ref (as GitHub serves them).
    c["JF"] = jax.commit("refs/pull/7/head", "Fork-only change", {"jax/fork.py": "f = 1\n"},
                         parents=(c["J3"],))
    c["JS"] = jax.commit("experimental", "Side branch", {"jax/side.py": "s = 1\n"}, parents=(c["J0"],))

    xla = RepoBuilder(root / "xla.git")
    c["X0"] = xla.commit(BRANCH, "Initial xla", {"xla/BUILD": "# xla\n"})
    c["X1"] = xla.commit(BRANCH, "GPU support", {"xla/gpu.cc": "int g;\n"})
    c["X2"] = xla.commit(BRANCH, "Commit later force-pushed away", {"xla/bad.cc": "int b;\n"})
    xla.set_ref(f"refs/heads/{BRANCH}", c["X1"])  # the force push: X2 is now dangling
    for i in range(2, 32):
        c[f"Y{i}"] = xla.commit(BRANCH, f"Rewritten change {i}", {"xla/gpu.cc": f"int g{i};\n"})
    c["Y_TIP"] = c["Y31"]

    plugin = RepoBuilder(root / "plugin.git")
    c["P0"] = plugin.commit("master", "Initial plugin", {
        JAX_BZL: workspace_bzl("JAX_COMMIT", c["J1"]), XLA_BZL: workspace_bzl("XLA_COMMIT", c["X1"]),
        "README.md": "plugin\n"})
    c["P1"] = plugin.commit("master", "Roll jax", {JAX_BZL: workspace_bzl("JAX_COMMIT", c["J4"])})
    c["P2"] = plugin.commit("master", "Roll xla", {XLA_BZL: workspace_bzl("XLA_COMMIT", c["Y_TIP"])})
    # Branches whose tips hold bad pins, for the refusals.
    c["P_FORK"] = plugin.commit("forky", "Pin a fork-only jax commit",
                                {JAX_BZL: workspace_bzl("JAX_COMMIT", c["JF"])}, parents=(c["P2"],))
    c["P_NOVAR"] = plugin.commit("novar", "Drop the xla pin", {XLA_BZL: "# moved elsewhere\n"},
                                 parents=(c["P2"],))
    return Remotes(root, plugin, jax, xla, c)


def deps_yaml(remotes: Remotes, *, http: GitHttpServer | None = None, plugin_branch: str = "master",
              commits: dict[str, str] | None = None, urls: dict[str, str] | None = None,
              rolls: dict[str, str] | None = None, order=("plugin", "jax", "xla")) -> str:
    """A deps.yaml pinning the fixture remotes (default pins: P0, J1, X1)."""
    pins = {"plugin": remotes.c["P0"], "jax": remotes.c["J1"], "xla": remotes.c["X1"], **(commits or {})}
    urls = {n: remotes.url(n, http) for n in ("plugin", "jax", "xla")} | (urls or {})
    rolls = {"plugin": "head",
             "jax": f"{{via: plugin, file: {JAX_BZL}}}",
             "xla": f"{{via: plugin, file: {XLA_BZL}}}"} | (rolls or {})
    branches = {"plugin": plugin_branch, "jax": BRANCH, "xla": BRANCH}
    lines = ["# pins for the test (this comment must survive a bump)", "deps:"]
    for name in order:
        lines += [f"  {name}:  # {name} upstream", f"    url: {urls[name]}", f"    branch: {branches[name]}",
                  f"    commit: {pins[name]}", f"    roll: {rolls[name]}"]
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="session")
def git_remotes(tmp_path_factory, remotes_template) -> Remotes:
    """The remotes a test reads (no test writes to them): each worker's own copy of the template."""
    return remotes_template.copy(tmp_path_factory.mktemp("remotes") / "repos")


@pytest.fixture(scope="session")
def remotes_template(tmp_path_factory) -> Remotes:
    """``build_remotes``' repositories, built once in the run (tests/support/shared.py) and never
    handed to a test: a test that commits into its upstreams takes
    ``remotes_template.copy(its own directory)``."""
    def build(root: Path) -> dict:
        remotes = build_remotes(root)
        return {"root": root, "c": remotes.c, "time": {n: getattr(remotes, n).time for n in ("plugin", "jax", "xla")}}
    built = built_once(tmp_path_factory, "remotes", build)
    root = built["root"]
    repos = {}
    for name in ("plugin", "jax", "xla"):
        repos[name] = builder = RepoBuilder.__new__(RepoBuilder)
        builder.path, builder.time = root / f"{name}.git", built["time"][name]
    return Remotes(root, repos["plugin"], repos["jax"], repos["xla"], built["c"])


@pytest.fixture(scope="module")
def shared_git_cache(tmp_path_factory) -> Path:
    """One git cache (``JAX_ROCM_RELEASE_CACHE``) for a module's runs over ``git_remotes``, which
    no test writes to: a mirror answers alike cold or warm, so each test need not fetch the same
    upstreams again (a rule about a cold cache keeps a cache of its own)."""
    return tmp_path_factory.mktemp("git-cache")


@pytest.fixture(scope="session")
def git_http(git_remotes):
    server = GitHttpServer(git_remotes.root).start()
    yield server
    server.stop()


@pytest.fixture
def bump_project(tmp_path, git_remotes):
    """Make a project dir (deps.yaml for the fixture remotes + version_info.json); returns a maker."""

    def make(**kwargs) -> Path:
        root = tmp_path / "proj"
        root.mkdir(exist_ok=True)
        write_version_info(root)
        (root / "deps.yaml").write_text(deps_yaml(git_remotes, **kwargs))
        return root

    return make


def release_repo(root: Path) -> Path:
    """A new checkout of this repository at ``root``: git on main with the bot's identity and the
    plugin's build config (jax_rocm_plugin/); deps.yaml and version_info.json are the caller's."""
    root.mkdir()
    git("init", "--quiet", "-b", "main", cwd=root)
    git("config", "user.name", "Release Bot", cwd=root)
    git("config", "user.email", "bot@example.com", cwd=root)
    shutil.copytree(REPO / "jax_rocm_plugin", root / "jax_rocm_plugin")
    return root


def push_to_origin(root: Path, origin: Path, *paths: str, message: str = "pins") -> str:
    """Commit ``paths`` of ``root`` (all when none; a directory that is no checkout yet becomes
    one on main) and push main to a new bare repository ``origin``; returns the commit."""
    if not (root / ".git").exists():
        git("init", "--quiet", "-b", "main", cwd=root)
    git("add", *(paths or ("-A",)), cwd=root)
    git("commit", "--quiet", "-m", message, cwd=root)
    git("init", "--quiet", "--bare", "-b", "main", origin)
    git("remote", "add", "origin", origin.as_uri(), cwd=root)
    git("push", "--quiet", "origin", "main", cwd=root)
    return git("rev-parse", "HEAD", cwd=root).strip()


@pytest.fixture
def release_checkout(bump_project, tmp_path):
    """The project as a git checkout on main, with a bare origin; returns (root, origin)."""
    root = bump_project()
    origin = tmp_path / "origin.git"
    push_to_origin(root, origin, "deps.yaml", "version_info.json")
    return root, origin
