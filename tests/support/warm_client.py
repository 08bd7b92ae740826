"""The caller's half of a warm ``python -m release``: hand this process's argv, environment, cwd,
umask, limits and standard descriptors to the zygote (tests/support/warm_start.py), forward the
signals it gets, and end as the command ended (its exit status, or killed by its signal).

The generated shim imports it under ``python -IS``, so it stays at what a bare interpreter has
built in (``marshal``, ``_signal``) and ``_socket``: about 0.02 CPU-s a start, against 0.1-0.3
for importing ``release``. Whatever the zygote cannot serve as a cold start would run (another
interpreter setting, another resource limit), and a zygote that is not there, falls back to
exec'ing the real interpreter with the same argv.
"""

from __future__ import annotations

import _signal
import _socket
import marshal
import os
import sys

# What shapes an interpreter at start (sys.path, hash seed, stdio encoding, flags): a request
# whose values differ from the zygote's is served cold.
SHAPING_PREFIXES = ("PYTHON",)
SHAPING_NAMES = ("LC_ALL", "LC_CTYPE", "LANG")
FORWARDED = ("SIGTERM", "SIGINT", "SIGHUP", "SIGQUIT", "SIGUSR1", "SIGUSR2", "SIGALRM", "SIGCONT",
             "SIGWINCH")
HEAD = 8  # bytes of the body's length, sent with the descriptors


def limits() -> str:
    """This process's resource limits (a caller's ``preexec_fn`` may have lowered one): a forked
    child could not take over a lower limit for what it opened before, so a request with other
    limits than the zygote's is served cold."""
    with open("/proc/self/limits") as held:
        return held.read()


def serves(argv: list[str], module: str = "release") -> bool:
    """Only ``python -m release ...`` exactly: any interpreter flag makes it another process."""
    return argv[:2] == ["-m", module]


def send(sock: _socket.socket, body: bytes, fds: list[int]) -> None:
    rights = b"".join(fd.to_bytes(4, sys.byteorder) for fd in fds)
    ancillary = [(_socket.SOL_SOCKET, _socket.SCM_RIGHTS, rights)] if fds else []
    sock.sendmsg([len(body).to_bytes(HEAD, "big")], ancillary)
    sock.sendall(body)


class Lines:
    def __init__(self, sock: _socket.socket):
        self.sock, self.held = sock, b""

    def next(self) -> bytes:
        """The next line, or b"" once the other end has closed."""
        while b"\n" not in self.held:
            chunk = self.sock.recv(4096)
            if not chunk:
                return b""
            self.held += chunk
        line, self.held = self.held.split(b"\n", 1)
        return line + b"\n"


def connect(socket_path: str) -> _socket.socket | None:
    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        sock.connect(socket_path)
    except OSError:
        sock.close()
        return None
    return sock


def run(socket_path: str, argv: list[str], fds: tuple[int, int, int] = (0, 1, 2),
        env: dict[str, str] | None = None, cwd: str | None = None) -> int | None:
    """The command's wait status (as ``os.waitstatus_to_exitcode`` reads it), or None where the
    zygote is absent or declines (nothing was started: the caller starts the command cold)."""
    sock = connect(socket_path)
    if sock is None:
        return None
    umask = os.umask(0)
    os.umask(umask)
    request = {"argv": argv, "env": dict(os.environ) if env is None else env, "cwd": cwd or os.getcwd(),
               "umask": umask, "limits": limits()}
    try:
        send(sock, marshal.dumps(request), list(fds))
        lines = Lines(sock)
        first = lines.next()
    except OSError:
        sock.close()
        return None
    if not first.startswith(b"P "):
        sock.close()
        return None  # "C": served cold, nothing started

    def forward(signum, _frame):
        try:
            sock.sendall(b"K %d\n" % signum)
        except OSError:
            pass

    previous = {}
    for name in FORWARDED:
        signum = getattr(_signal, name, None)
        if signum is not None:
            previous[signum] = _signal.signal(signum, forward)
    try:
        while True:
            line = lines.next()
            if line.startswith(b"S "):
                return int(line.split()[1])
            if not line:  # the zygote went away with the command running
                os.write(2, b"warm start: the zygote went away while the command ran\n")
                return 1 << 8
    finally:
        for signum, handler in previous.items():
            _signal.signal(signum, handler)
        sock.close()


def end_as(status: int) -> None:
    """Exit as a process whose wait status is ``status`` would: its code, or its signal."""
    code = os.waitstatus_to_exitcode(status)
    if code >= 0:
        os._exit(code)
    import resource  # only here: no core file of the shim for the command's crash
    resource.setrlimit(resource.RLIMIT_CORE, (0, resource.getrlimit(resource.RLIMIT_CORE)[1]))
    _signal.signal(-code, _signal.SIG_DFL)
    _signal.pthread_sigmask(_signal.SIG_UNBLOCK, [-code])
    os.kill(os.getpid(), -code)
    os._exit(128 - code)  # a signal that does not end a process by default (SIGCHLD, SIGWINCH)


def main(socket_path: str, python: str, module: str = "release") -> None:
    """The shim's body: warm when served, else ``python`` with the same arguments."""
    argv = sys.argv[1:]
    if serves(argv, module):
        status = run(socket_path, argv)
        if status is not None:
            end_as(status)
    os.execv(python, [python, *argv])
