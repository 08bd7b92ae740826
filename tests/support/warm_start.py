"""Warm starts of ``python -m release`` for the suite: one zygote process per pytest process has
imported every ``release`` module once, and forks a child for each command.

A cold start spends 0.1-0.3 CPU-s importing before the command does anything, and a workflow
run starts dozens. The child gets what a process started by ``subprocess`` gets: the caller's
argv, environment (``os.environ`` replaced whole, the time zone and temp directory read again),
cwd, umask and standard descriptors (passed over a Unix socket), fresh ``sys.std*`` objects,
and its exit status (or the signal that ended it) goes back to the caller. Each command is its
own process: what one registers (secrets, caches) is gone when it exits.

Tests reach it through ``python()``: the path of a shim interpreter that serves ``-m release``
warm and execs the real interpreter for anything else (``-c``, ``-m pip``, other flags), or when
the zygote is gone or the request differs in what shapes an interpreter at start (tests/support/
warm_client.py). A rule about the process itself (its imports, its death midway, a limit set in
``preexec_fn``, a terminal) keeps ``sys.executable``. ``RELEASE_TESTS_COLD=1`` turns it off.
"""

from __future__ import annotations

import ast
import atexit
import gc
import importlib
import importlib.util
import io
import marshal
import os
import pkgutil
import runpy
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from tests.support import warm_client

SUPPORT = Path(__file__).resolve().parent
REPO = SUPPORT.parents[1]
OFF = "RELEASE_TESTS_COLD"
_ENV = dict(os.environ)  # as the session started: a test's own settings never shape the zygote


# ------------------------------------------------------------------ the zygote (its own process)

def preload() -> None:
    """What ``release/__main__.py`` does before ``main()``, then every module of the package:
    none reads the environment, the cwd or the clock at import (audited), none starts a thread."""
    spec = importlib.util.find_spec("release.__main__")
    for node in ast.parse(Path(spec.origin).read_text()).body:
        if isinstance(node, ast.Assign) and [getattr(t, "id", "") for t in node.targets] == ["FORMAT_CHECKER_MODULES"]:
            for name in ast.literal_eval(node.value):
                sys.modules.setdefault(name, None)  # type: ignore[arg-type]
    import release
    for found in pkgutil.walk_packages(release.__path__, "release."):
        if not found.name.endswith(".__main__"):
            importlib.import_module(found.name)
    if threading.active_count() != 1:
        raise RuntimeError("a preloaded module started a thread: a fork would copy it half-done")


def shaping(env: dict[str, str]) -> dict[str, str]:
    return {k: v for k, v in env.items()
            if k.startswith(warm_client.SHAPING_PREFIXES) or k in warm_client.SHAPING_NAMES}


class Zygote:
    """The single-threaded server loop; ``serve()`` returns only in a forked child (its request)
    or when the pytest process that started it has gone (None)."""

    def __init__(self, path: str, module: str):
        self.module, self.path = module, path
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind(path)
        self.listener.listen(64)
        with open("/proc/self/environ", "rb") as held:  # as exec'd, before the interpreter's own
            initial = dict(os.fsdecode(pair).split("=", 1) for pair in held.read().split(b"\0") if b"=" in pair)
        self.shaping = shaping(initial)
        # what the interpreter added at start (LC_CTYPE when it coerced a C locale): a cold
        # start from the same settings adds the same
        self.added = {k: v for k, v in os.environ.items() if k not in initial}
        self.limits = warm_client.limits()
        self.running: dict[int, tuple[socket.socket, int]] = {}  # pidfd -> (connection, pid)
        self.orphaned: set[int] = set()  # pidfds whose caller has gone (killed, not yet reaped)
        self.cpu = 0.0  # of the children reaped so far (and theirs they waited for)

    def serve(self) -> dict | None:
        while True:
            conns = {conn.fileno(): pidfd for pidfd, (conn, _) in self.running.items()
                     if pidfd not in self.orphaned}
            ready, _, _ = select.select([0, self.listener, *conns, *self.running], [], [])
            for fd in ready:
                if fd == 0:
                    if not os.read(0, 4096):  # the lifeline: pytest has gone
                        self.stop()
                        shutil.rmtree(os.path.dirname(self.path), ignore_errors=True)  # its own
                        return None
                elif fd is self.listener:
                    request = self.accept()
                    if request is not None:
                        return request
                elif fd in self.running:
                    self.reap(fd)
                elif fd in conns and conns[fd] in self.running:
                    self.from_caller(conns[fd])

    def accept(self) -> dict | None:
        conn, _ = self.listener.accept()
        conn.settimeout(30)
        try:
            head, fds, _, _ = socket.recv_fds(conn, warm_client.HEAD, 3)
            body = bytearray()
            size = int.from_bytes(head, "big") if len(head) == warm_client.HEAD else 0
            while len(body) < size:
                chunk = conn.recv(size - len(body))
                if not chunk:
                    break
                body.extend(chunk)
            request = marshal.loads(bytes(body)) if size else {}
        except (OSError, ValueError):
            conn.close()
            return None
        if request.get("ask") == "cpu":
            own = os.times()
            conn.sendall(b"T %r\n" % (own.user + own.system + self.cpu))
            conn.close()
            return None
        if (len(fds) != 3 or not warm_client.serves(request["argv"], self.module)
                or shaping(request["env"]) != self.shaping or request["limits"] != self.limits):
            for fd in fds:
                os.close(fd)
            conn.sendall(b"C\n")  # the caller starts it cold
            conn.close()
            return None
        pid = os.fork()
        if pid == 0:
            self.become(conn, fds, request)
            return request
        for fd in fds:
            os.close(fd)
        conn.settimeout(None)
        self.running[os.pidfd_open(pid)] = (conn, pid)
        try:
            conn.sendall(b"P %d\n" % pid)
        except OSError:
            os.kill(pid, signal.SIGKILL)  # the caller is already gone
        return None

    def from_caller(self, pidfd: int) -> None:
        conn, pid = self.running[pidfd]
        try:
            line = conn.recv(64)
        except OSError:
            line = b""
        if not line:  # the caller died (a timeout's kill): so does the command, as with a cold start
            os.kill(pid, signal.SIGKILL)
            self.orphaned.add(pidfd)
            return
        for message in line.split(b"\n"):
            if message.startswith(b"K "):
                os.kill(pid, int(message.split()[1]))

    def reap(self, pidfd: int) -> None:
        conn, pid = self.running.pop(pidfd)
        self.orphaned.discard(pidfd)
        os.close(pidfd)
        _, status, usage = os.wait4(pid, 0)
        self.cpu += usage.ru_utime + usage.ru_stime
        try:
            conn.sendall(b"S %d\n" % status)
        except OSError:
            pass
        conn.close()

    def stop(self) -> None:
        for pidfd, (_, pid) in list(self.running.items()):
            os.kill(pid, signal.SIGKILL)
            self.reap(pidfd)

    def become(self, conn: socket.socket, fds: list[int], request: dict) -> None:
        """In the child: the caller's process, as far as a fresh interpreter could tell."""
        self.listener.close()
        conn.close()
        for pidfd, (other, _) in self.running.items():
            os.close(pidfd)
            other.close()
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
        for fd in set(fds) - {0, 1, 2}:
            os.close(fd)
        os.chdir(request["cwd"])
        os.umask(request["umask"])
        os.environ.clear()
        os.environ.update({**self.added, **request["env"]})
        time.tzset()  # TZ is read at import of time; a cold start reads the caller's
        tempfile.tempdir = None  # gettempdir() caches TMPDIR
        sys.path[0] = os.getcwd()  # as -m puts the cwd first
        sys.argv[:] = ["-m", *request["argv"][2:]]  # run_module puts the module's file first
        fresh_stdio()


def fresh_stdio() -> None:
    """sys.std* as a cold start makes them for these descriptors: stdout line-buffered on a
    terminal only, stderr always, both unbuffered under PYTHONUNBUFFERED; the encoding and the
    buffering are the zygote's (its interpreter settings equal the caller's)."""
    for fd, name in enumerate(("stdin", "stdout", "stderr")):
        old = getattr(sys, name)
        raw = io.FileIO(fd, "rb" if fd == 0 else "wb", closefd=False)
        unbuffered = fd > 0 and old.write_through
        buffer = raw if unbuffered else io.BufferedReader(raw) if fd == 0 else io.BufferedWriter(raw)
        new = io.TextIOWrapper(buffer, encoding=old.encoding, errors=old.errors, newline="\n",
                               line_buffering=not unbuffered and fd > 0 and (raw.isatty() or fd == 2),
                               write_through=unbuffered)
        setattr(sys, name, new)
        setattr(sys, f"__{name}__", new)


def zygote_main(path: str, module: str) -> None:
    if module == "release":  # the starter's own tests serve a probe that needs none of it (1.2 CPU-s each)
        preload()
    zygote = Zygote(path, module)
    gc.freeze()  # a child's collections skip the preloaded heap: its pages stay shared
    os.write(1, b"ready\n")
    if zygote.serve() is None:
        return
    run_command(module)


def run_command(module: str) -> None:
    """``python -m release`` in this child, ended as the interpreter would end it, less the
    teardown of every module (most of a cold start's cost here: it would write to each shared
    page): an uncaught exception printed, ``SystemExit``'s code, threads joined, cycles
    collected, atexit handlers run, stdout and stderr flushed (120 when that fails)."""
    code, interrupted = 0, False
    try:
        runpy.run_module(module, run_name="__main__", alter_sys=True)
    except SystemExit as exc:
        code = exit_code(exc.code)
    except BaseException as exc:  # noqa: BLE001 (what the interpreter does with any of them)
        sys.excepthook(type(exc), exc, exc.__traceback__)
        code, interrupted = 1, isinstance(exc, KeyboardInterrupt)
    threading._shutdown()  # type: ignore[attr-defined]
    gc.collect()
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            code = 120
    if interrupted:  # as a cold start ends on an uncaught KeyboardInterrupt: killed by SIGINT
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGINT)
    os._exit(code & 0xFF)


def exit_code(code: object) -> int:
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    try:
        print(code, file=sys.stderr)
    except Exception:  # noqa: BLE001
        pass
    return 1


# ------------------------------------------------------------------ the pytest side

def write_shim(path: str, socket_path: str, module: str = "release") -> str:
    """An executable that stands in for this interpreter: ``-m module`` goes to the zygote at
    ``socket_path`` when it answers, anything else to this interpreter."""
    Path(path).write_text(
        f"#!{sys.executable} -IS\n"
        "import sys\n"
        f"sys.path.insert(0, {str(SUPPORT)!r})\n"
        "import warm_client\n"
        f"warm_client.main({socket_path!r}, {sys.executable!r}, {module!r})\n")
    os.chmod(path, 0o755)
    return path


class Started:
    """A zygote of this process (ended with it) and its shim; ``module`` is what it serves
    (another than ``release`` only for the starter's own tests)."""

    def __init__(self, module: str = "release", env: dict[str, str] | None = None):
        self.dir = tempfile.mkdtemp(prefix="release-zygote-")
        self.socket = os.path.join(self.dir, "s")
        self.proc = subprocess.Popen([sys.executable, "-m", "tests.support.warm_start", self.socket, module], cwd=REPO,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=_ENV if env is None else env)
        if self.proc.stdout.readline() != b"ready\n":
            raise RuntimeError(f"the zygote did not start (exit status {self.proc.wait()})")
        self.proc.stdout.close()
        self.shim = write_shim(os.path.join(self.dir, "python"), self.socket, module)
        self.last = 0.0

    def cpu(self) -> float:
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
                sock.connect(self.socket)
                warm_client.send(sock, marshal.dumps({"ask": "cpu"}), [])
                self.last = float(sock.makefile("rb").readline().split()[1])
        except (OSError, IndexError, ValueError):
            pass  # gone: what it had used when last asked
        return self.last

    def stop(self) -> None:
        self.proc.stdin.close()  # the lifeline
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        shutil.rmtree(self.dir, ignore_errors=True)


_started: Started | None = None


def python() -> str:
    """The interpreter a test starts ``-m release`` with when the rule is not about the process."""
    global _started
    if os.environ.get(OFF):
        return sys.executable
    if _started is None:
        _started = Started()
        atexit.register(stop)
    return _started.shim


def served_cpu() -> float:
    """CPU-s the zygote has used so far: its own (the preload) and its commands' (with the
    processes they waited for), which the pytest process's own counts never see."""
    return _started.cpu() if _started is not None else 0.0


def stop() -> None:
    global _started
    if _started is not None:
        _started, started = None, _started
        started.stop()


if __name__ == "__main__":
    zygote_main(sys.argv[1], sys.argv[2])
