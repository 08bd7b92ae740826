"""A command for the warm starter's own tests (tests/test_warm_start.py): run cold as ``python -m
tests.support.warm_probe WHAT ...`` and warm through a zygote serving this module, it shows what a
process sees of its start (argv, environment, cwd, umask, time zone, temp directory, stdio) and
ends in each way a process can end."""

from __future__ import annotations

import atexit
import json
import os
import resource
import signal
import sys
import tempfile
import time


def facts() -> dict:
    return {"argv": sys.argv[1:], "cwd": os.getcwd(), "path0": sys.path[0], "umask": os.umask(0o022),
            "env": dict(os.environ), "tzname": list(time.tzname), "tempdir": tempfile.gettempdir(),
            "stdout_line_buffered": sys.stdout.line_buffering, "stdout_tty": sys.stdout.isatty(),
            "stderr_line_buffered": sys.stderr.line_buffering,
            "stdout_write_through": sys.stdout.write_through, "executable": sys.executable,
            "main": __name__, "pid": os.getpid(), "fsize": list(resource.getrlimit(resource.RLIMIT_FSIZE))}


def main(argv: list[str]) -> None:
    what = argv[0]
    if what == "facts":
        print(json.dumps(facts()))
    elif what == "echo":  # stdin to stdout and stderr, then an exit status
        data = sys.stdin.read()
        sys.stdout.write(data.upper())
        sys.stderr.write(data[::-1])
        sys.exit(int(argv[1]))
    elif what == "exit":
        sys.exit(int(argv[1]) if argv[1].lstrip("-").isdigit() else argv[1])
    elif what == "raise":
        raise RuntimeError("the probe raised")
    elif what == "abort":
        os.abort()
    elif what == "late":  # unflushed output and an atexit handler: both happen at the end
        atexit.register(lambda: print("atexit ran"))
        sys.stdout.write("no newline yet")
    elif what == "wait":  # until a signal; SIGTERM's handler says so and exits 7
        signal.signal(signal.SIGTERM, lambda *_: (print("terminated", flush=True), os._exit(7)))
        with open(argv[1], "w") as ready:
            ready.write(str(os.getpid()))
        time.sleep(120)
    elif what == "secret":  # register a secret, then print the value through the redactor
        from release.core import redact
        if argv[1] == "register":
            redact.register_secret(argv[2])
        print(redact.redact(f"value={argv[2]}"))


if __name__ == "__main__":
    main(sys.argv[1:])
