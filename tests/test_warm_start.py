"""The suite's warm starter (tests/support/warm_start.py) keeps a process's contract: a command
started through the shim ends as its cold start ends (exit status, output, its signal), sees the
caller's argv, environment, cwd, umask and descriptors, gets the signals sent to the caller,
dies with it, and keeps nothing of the command before it; what it cannot serve starts cold."""

from __future__ import annotations

import json
import os
import resource
import select
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import warm_client, warm_start

REPO = Path(__file__).resolve().parents[1]
PROBE = "tests.support.warm_probe"


@pytest.fixture(scope="module")
def zygote():
    started = warm_start.Started(PROBE)
    yield started
    started.stop()


def shaped_env(**more: str) -> dict[str, str]:
    """A minimal environment with this process's interpreter settings (so it is served warm)."""
    env = {k: v for k, v in os.environ.items()
           if k.startswith(warm_client.SHAPING_PREFIXES) or k in warm_client.SHAPING_NAMES}
    env.update(PATH=os.environ.get("PATH", "/usr/bin:/bin"), **more)
    return env


def probe(python: str, *argv: str, **kwargs) -> subprocess.CompletedProcess:
    kwargs.setdefault("cwd", REPO)
    kwargs.setdefault("capture_output", True)
    return subprocess.run([python, "-m", PROBE, *argv], text=True, timeout=120, **kwargs)


def facts(python: str, **kwargs) -> tuple[dict, int]:
    proc = subprocess.Popen([python, "-m", PROBE, "facts"], stdout=subprocess.PIPE, text=True,
                            cwd=kwargs.pop("cwd", REPO), **kwargs)
    out, _ = proc.communicate(timeout=120)
    assert proc.returncode == 0
    return json.loads(out), proc.pid


@pytest.mark.parametrize("argv", [["exit", "0"], ["exit", "3"], ["exit", "300"], ["exit", "-1"],
                                  ["exit", "not a number"], ["late"]])
def test_a_warm_command_ends_as_its_cold_start_does(zygote, argv):
    cold, warm = probe(sys.executable, *argv), probe(zygote.shim, *argv)
    assert (warm.returncode, warm.stdout, warm.stderr) == (cold.returncode, cold.stdout, cold.stderr)


def test_an_uncaught_exception_is_printed_and_exits_1(zygote):
    cold, warm = probe(sys.executable, "raise"), probe(zygote.shim, "raise")
    assert warm.returncode == cold.returncode == 1
    assert warm.stderr.splitlines()[-1] == cold.stderr.splitlines()[-1] == "RuntimeError: the probe raised"
    assert warm.stderr.startswith("Traceback (most recent call last):")


def test_a_crash_ends_the_caller_by_the_same_signal(zygote):
    cold, warm = probe(sys.executable, "abort"), probe(zygote.shim, "abort")
    assert warm.returncode == cold.returncode == -signal.SIGABRT


@pytest.mark.parametrize("to_files", [False, True])
def test_stdin_stdout_and_stderr_are_the_callers(zygote, tmp_path, to_files):
    if to_files:
        (tmp_path / "in").write_text("two\nlines\n")
        with open(tmp_path / "in") as stdin, open(tmp_path / "out", "w") as out, open(tmp_path / "err", "w") as err:
            proc = probe(zygote.shim, "echo", "5", stdin=stdin, stdout=out, stderr=err, capture_output=False)
        said = ((tmp_path / "out").read_text(), (tmp_path / "err").read_text())
    else:
        proc = probe(zygote.shim, "echo", "5", input="two\nlines\n")
        said = (proc.stdout, proc.stderr)
    assert proc.returncode == 5
    assert said == ("TWO\nLINES\n", "\nsenil\nowt")


def test_the_environment_is_replaced_whole_and_cwd_umask_zone_and_temp_dir_follow(zygote, tmp_path):
    old = os.umask(0o077)
    try:
        for zone, mark in (("UTC", "first"), ("America/New_York", "second")):
            env = shaped_env(TZ=zone, TMPDIR=str(tmp_path), MARK=mark)
            seen, pid = facts(zygote.shim, env=env, cwd=tmp_path)
            cold, _ = facts(sys.executable, env=env)  # where the probe is importable
            assert seen["pid"] != pid  # served warm
            for key in ("env", "umask", "tzname", "tempdir", "argv", "main", "stdout_line_buffered",
                        "stderr_line_buffered", "executable"):
                assert seen[key] == cold[key], key
            assert seen["cwd"] == seen["path0"] == str(tmp_path)  # -m puts the cwd first
            assert seen["env"]["MARK"] == mark and seen["umask"] == 0o077
    finally:
        os.umask(old)


@pytest.mark.parametrize("unbuffered", [False, True])
def test_stdio_is_buffered_as_the_interpreter_settings_say(unbuffered):
    """stderr line-buffered, stdout block-buffered into a pipe; neither under PYTHONUNBUFFERED."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    if unbuffered:
        env["PYTHONUNBUFFERED"] = "1"
    started = warm_start.Started(PROBE, env=env)
    try:
        (seen, pid), (cold, _) = facts(started.shim, env=env), facts(sys.executable, env=env)
    finally:
        started.stop()
    assert seen["pid"] != pid
    assert (seen["stdout_line_buffered"], seen["stderr_line_buffered"], seen["stdout_write_through"]) == \
        (cold["stdout_line_buffered"], cold["stderr_line_buffered"], cold["stdout_write_through"]) == \
        (False, not unbuffered, unbuffered)


def test_secrets_one_command_registers_never_mask_the_next_ones_output(zygote):
    value = "0123456789abcdef"
    assert probe(zygote.shim, "secret", "register", value).stdout == "value=***\n"
    assert probe(zygote.shim, "secret", "show", value).stdout == f"value={value}\n"


def _started_waiting(zygote, tmp_path) -> tuple[subprocess.Popen, int]:
    ready = tmp_path / "pid"
    proc = subprocess.Popen([zygote.shim, "-m", PROBE, "wait", str(ready)], cwd=REPO, stdout=subprocess.PIPE,
                            text=True)
    fd = os.pidfd_open(proc.pid)
    try:
        while not ready.exists() or not ready.read_text():
            select.select([fd], [], [], 0.05)
            assert proc.poll() is None, "the command ended before it was ready"
    finally:
        os.close(fd)
    return proc, int(ready.read_text())


def test_a_signal_to_the_caller_reaches_the_command(zygote, tmp_path):
    proc, pid = _started_waiting(zygote, tmp_path)
    assert pid != proc.pid  # a warm child, not the shim become cold
    proc.send_signal(signal.SIGTERM)
    out, _ = proc.communicate(timeout=60)
    assert (proc.returncode, out) == (7, "terminated\n")


def test_a_killed_caller_takes_the_command_with_it(zygote, tmp_path):
    proc, pid = _started_waiting(zygote, tmp_path)
    fd = os.pidfd_open(pid)
    try:
        proc.kill()
        proc.wait(timeout=60)
        assert select.select([fd], [], [], 60)[0], "the command outlived its caller"
    finally:
        os.close(fd)
        proc.stdout.close()


def test_what_the_zygote_cannot_serve_starts_cold(zygote, tmp_path):
    served, pid = facts(zygote.shim, env=shaped_env())
    assert served["pid"] != pid
    for env in (shaped_env(PYTHONHASHSEED="7"), shaped_env(LC_ALL="C")):  # interpreter settings
        seen, pid = facts(zygote.shim, env=env)
        assert seen["pid"] == pid  # the shim exec'd the interpreter itself
    other = subprocess.run([zygote.shim, "-c", "import sys; print(sys.executable)"], capture_output=True,
                           text=True, timeout=60)
    assert other.stdout.strip() == sys.executable
    limited, pid = facts(zygote.shim, preexec_fn=_lower_file_limit)  # a full disk's test does this
    assert limited["pid"] == pid and limited["fsize"][0] == 1 << 20


def _lower_file_limit():
    resource.setrlimit(resource.RLIMIT_FSIZE, (1 << 20, resource.getrlimit(resource.RLIMIT_FSIZE)[1]))


def test_without_its_zygote_the_shim_starts_cold(tmp_path):
    shim = warm_start.write_shim(str(tmp_path / "python"), str(tmp_path / "no-such-socket"), PROBE)
    seen, pid = facts(shim)
    assert seen["pid"] == pid
    assert probe(shim, "exit", "9").returncode == 9


def test_the_zygote_ends_with_its_starter_and_counts_what_it_ran():
    started = warm_start.Started(PROBE)
    before = started.cpu()
    assert probe(started.shim, "exit", "0").returncode == 0
    assert started.cpu() > before
    started.stop()
    assert started.proc.returncode == 0 and not Path(started.socket).exists()


def test_a_release_command_warm_says_what_it_says_cold(tmp_path):
    """The real thing: ``release`` itself, with the clock the environment gives each call."""
    nightly = ["version", "--kind", "nightly", "--root", str(REPO)]
    for argv, now in ((["--bogus"], "2026-01-02T03:00:00Z"), (nightly, "2026-01-02T03:00:00Z"),
                      (nightly, "2026-03-04T03:00:00Z")):
        env = {**os.environ, "RELEASE_NOW": now}
        cold, warm = (subprocess.run([python, "-m", "release", *argv], capture_output=True, text=True, env=env,
                                     cwd=tmp_path, timeout=120) for python in (sys.executable, warm_start.python()))
        assert (warm.returncode, warm.stdout, warm.stderr) == (cold.returncode, cold.stdout, cold.stderr)
        if argv == nightly:
            assert now[:10].replace("-", "") in warm.stdout
