"""Resumable steps over the on-disk manifest, and the one-job-at-a-time lock.

Real files and real processes: a step is killed with SIGKILL mid-run and the job re-run; the
lock is held by a second Python process.
"""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import textwrap
import types
from pathlib import Path

import pytest

from release.core.errors import UserError
from release.core.manifest import Manifest
from release.core.output import Output
from release.jobs.pipeline import Step, job_lock, lock_path, run_job, run_steps

REPO = Path(__file__).resolve().parents[1]


def counting_step(name: str, log: Path, *, fingerprint=None, outputs=None, fail=False) -> Step:
    """A step that appends its name to ``log`` each time it really runs."""

    def run(ctx):
        with log.open("a") as handle:
            handle.write(name + "\n")
        if fail:
            raise RuntimeError(f"{name} broke")
        return outputs(ctx) if outputs else {"made-by": name}

    return Step(name, run, fingerprint)


def ran(log: Path) -> list[str]:
    return log.read_text().split() if log.exists() else []


def quiet() -> Output:
    return Output(stream=io.StringIO())


@pytest.fixture
def dist(tmp_path) -> Path:
    path = tmp_path / "dist" / "0.9.1.dev20261122"
    path.mkdir(parents=True)
    return path


def test_runs_in_order_records_each_and_skips_them_on_rerun(tmp_path, dist):
    log = tmp_path / "log"
    steps = [counting_step(n, log) for n in ("fetch", "build", "publish")]
    first = run_steps(steps, Manifest.load(dist), quiet())
    assert [r.name for r in first] == ["fetch", "build", "publish"] and all(r.ran for r in first)
    assert ran(log) == ["fetch", "build", "publish"]

    again = run_steps(steps, Manifest.load(dist), quiet())
    assert ran(log) == ["fetch", "build", "publish"]  # nothing ran twice
    assert [r.ran for r in again] == [False, False, False]
    assert [r.outputs for r in again] == [r.outputs for r in first]


def test_later_steps_see_earlier_outputs_even_when_those_were_skipped(tmp_path, dist):
    log = tmp_path / "log"
    seen = []
    build = counting_step("build", log, outputs=lambda ctx: {"wheels": ["a.whl", "b.whl"]})

    def publish(ctx):
        seen.append(ctx["build"]["wheels"])
        return {}

    run_steps([build], Manifest.load(dist), quiet())
    run_steps([build, Step("publish", publish)], Manifest.load(dist), quiet())
    assert ran(log) == ["build"]
    assert seen == [["a.whl", "b.whl"]]


def test_a_changed_fingerprint_reruns_that_step_and_every_later_one(tmp_path, dist):
    log = tmp_path / "log"
    pins = {"xla": "aaa", "python": "3.12"}

    def steps():
        return [counting_step("fetch", log, fingerprint=lambda ctx: pins["xla"]),
                counting_step("build", log, fingerprint=lambda ctx: pins["python"]),
                counting_step("publish", log)]

    run_steps(steps(), Manifest.load(dist), quiet())
    pins["python"] = "3.13"
    run_steps(steps(), Manifest.load(dist), quiet())
    assert ran(log) == ["fetch", "build", "publish", "build", "publish"]
    pins["xla"] = "bbb"
    run_steps(steps(), Manifest.load(dist), quiet())
    assert ran(log)[5:] == ["fetch", "build", "publish"]
    run_steps(steps(), Manifest.load(dist), quiet())
    assert len(ran(log)) == 8


def test_a_failed_step_is_not_recorded_and_the_rerun_starts_there(tmp_path, dist):
    log = tmp_path / "log"
    out = Output(stream=io.StringIO())
    broken = [counting_step("fetch", log), counting_step("build", log, fail=True),
              counting_step("publish", log)]
    with pytest.raises(RuntimeError, match="build broke"):
        run_steps(broken, Manifest.load(dist), out)
    assert "build: failed" in out.stream.getvalue()
    fixed = [counting_step("fetch", log), counting_step("build", log), counting_step("publish", log)]
    results = run_steps(fixed, Manifest.load(dist), quiet())
    assert ran(log) == ["fetch", "build", "build", "publish"]
    assert [r.ran for r in results] == [False, True, True]


CRASHING_JOB = textwrap.dedent("""
    import os, signal, sys
    from pathlib import Path
    from release.core.manifest import Manifest
    from release.core.output import Output
    from release.jobs.pipeline import Step, run_steps

    work, kill_in = Path(sys.argv[1]), sys.argv[2]

    def make(name):
        def run(ctx):
            with open(work / "log", "a") as handle:
                handle.write(name + "\\n")
            (work / f"{name}.partial").write_text("half-written")
            if name == kill_in:
                os.kill(os.getpid(), signal.SIGKILL)
            (work / f"{name}.partial").rename(work / f"{name}.out")
            return {"file": f"{name}.out"}
        return run

    steps = [Step(n, make(n)) for n in ("fetch", "build", "upload", "publish")]
    results = run_steps(steps, Manifest.load(work / "dist"), Output(as_json=True))
    print([r.name for r in results if r.ran])
""")


def test_a_job_killed_midway_resumes_at_the_killed_step(tmp_path):
    script = tmp_path / "job.py"
    script.write_text(CRASHING_JOB)
    (tmp_path / "dist").mkdir()

    def job(kill_in: str):
        return subprocess.run([sys.executable, str(script), str(tmp_path), kill_in],
                              capture_output=True, text=True, cwd=REPO, timeout=60)

    killed = job("upload")
    assert killed.returncode == -signal.SIGKILL
    assert ran(tmp_path / "log") == ["fetch", "build", "upload"]

    resumed = job("none")
    assert resumed.returncode == 0, resumed.stderr
    assert resumed.stdout.strip() == "['upload', 'publish']"
    assert ran(tmp_path / "log") == ["fetch", "build", "upload", "upload", "publish"]
    assert {p.name for p in tmp_path.glob("*.out")} == {"fetch.out", "build.out", "upload.out",
                                                         "publish.out"}
    assert job("none").stdout.strip() == "[]"


def test_progress_and_status_lines_stay_off_the_json_stream(tmp_path, dist, capsys):
    stream = io.StringIO()
    run_steps([counting_step("fetch", tmp_path / "log")], Manifest.load(dist),
              Output(as_json=True, stream=stream))
    assert stream.getvalue() == ""
    assert "fetch: done" in capsys.readouterr().err


def test_step_names_are_unique_and_plain():
    with pytest.raises(ValueError):
        Step("bad name", lambda ctx: None)
    with pytest.raises(ValueError, match="duplicate"):
        run_steps([Step("a", lambda ctx: None), Step("a", lambda ctx: None)], None, quiet())


# --- the job lock -----------------------------------------------------------------------------

HOLDER = textwrap.dedent("""
    import sys
    from pathlib import Path
    from release.jobs.pipeline import job_lock
    with job_lock(Path(sys.argv[1]), sys.argv[2]):
        print("held", flush=True)
        sys.stdin.read()
""")


@pytest.fixture
def holder(tmp_path):
    """Start a second process that holds a job's lock until its stdin closes."""
    procs = []

    def start(job: str = "nightly") -> subprocess.Popen:
        proc = subprocess.Popen([sys.executable, "-c", HOLDER, str(tmp_path), job], cwd=REPO,
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        procs.append(proc)
        assert proc.stdout.readline().strip() == "held"
        return proc

    yield start
    for proc in procs:
        if proc.poll() is None:
            proc.kill()
        proc.wait()


def test_a_second_nightly_is_refused_with_one_line_naming_the_holder(tmp_path, holder):
    proc = holder()
    with pytest.raises(UserError) as err:
        with job_lock(tmp_path, "nightly"):
            pass
    message = str(err.value)
    assert "\n" not in message
    assert "another nightly is running" in message
    assert f"pid {proc.pid}" in message
    assert str(lock_path(tmp_path, "nightly")) in message
    assert "--lock-timeout" in message


def test_other_jobs_do_not_share_the_lock(tmp_path, holder):
    holder("nightly")
    with job_lock(tmp_path, "cut") as path:
        assert path == tmp_path / ".cache" / "locks" / "cut.lock"


@pytest.fixture
def attempts(monkeypatch):
    """Every try the lock makes to take the file, in order, with whether it got it; ``hooks``
    run after each try (a test uses them to end the holder while the lock is waiting)."""
    from release.core import file_lock
    tried: list[bool] = []
    hooks: list = []
    real = file_lock._attempt

    def counting(fd):
        tried.append(real(fd))
        for hook in hooks:
            hook(len(tried))
        return tried[-1]

    monkeypatch.setattr(file_lock, "_attempt", counting)
    return type("Attempts", (), {"tried": tried, "hooks": hooks})


def test_without_a_timeout_the_lock_is_tried_once(tmp_path, holder, attempts):
    holder()
    with pytest.raises(UserError):
        with job_lock(tmp_path, "nightly"):
            pass
    assert attempts.tried == [False]


def test_a_timeout_waits_and_then_says_so(tmp_path, holder, attempts):
    """It waited (tried again after the first refusal) before it gave up, and says how long."""
    holder()
    with pytest.raises(UserError, match=r"after waiting 0\.3 s"):
        with job_lock(tmp_path, "nightly", timeout=0.3):
            pass
    assert len(attempts.tried) >= 2 and not any(attempts.tried)


def test_the_lock_is_taken_once_the_running_job_finishes(tmp_path, holder, attempts):
    """The holder finishes only after the first refused try: the waiting job then takes it."""
    proc = holder()

    def finish_holder(n):
        if n == 1:
            proc.stdin.close()
            assert proc.wait(timeout=60) == 0

    attempts.hooks.append(finish_holder)
    with job_lock(tmp_path, "nightly", timeout=60):
        assert attempts.tried[0] is False and attempts.tried[-1] is True


def test_run_job_refuses_to_start_while_another_run_holds_the_lock(tmp_path, dist, holder):
    log = tmp_path / "log"
    holder()
    with pytest.raises(UserError, match="another nightly is running"):
        run_job("nightly", tmp_path, [counting_step("fetch", log)], Manifest.load(dist), quiet())
    assert ran(log) == []
    assert Manifest.load(dist).outputs("fetch") is None


def test_a_killed_holder_never_blocks_the_next_run(tmp_path, holder):
    proc = holder()
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    with job_lock(tmp_path, "nightly"):
        info = json.loads((tmp_path / ".cache" / "locks" / "nightly.holder.json").read_text())
        assert info["pid"] == os.getpid()
    assert not (tmp_path / ".cache" / "locks" / "nightly.holder.json").exists()


# --- what a run records and says -----------------------------------------------------------------

def test_a_manifest_an_earlier_release_recorded_is_still_honoured(tmp_path, dist):
    """The recorded fingerprints are a format on disk: a step's own inputs chained to every earlier
    step's, as releases before this one wrote them (these values), so upgrading the tool between a
    crash and its re-run resumes the job instead of redoing it."""
    log = tmp_path / "log"
    first = run_steps([counting_step("fetch", log, fingerprint=lambda ctx: "pins-1"), counting_step("build", log)],
                      Manifest.load(dist), quiet())
    assert [r.fingerprint for r in first] == [
        "5f4dad0f33adaec6beb755980e8f5960b735c313fecefa4d16461449e998f45c",
        "618aaae810d9eb24ca8f824e2f5c21ddc7cf17c9bd85a2ea20300197c49eefd3"]
    again = run_steps([counting_step("fetch", log, fingerprint=lambda ctx: "pins-1"), counting_step("build", log)],
                      Manifest.load(dist), quiet())
    assert [(r.name, r.ran, r.fingerprint) for r in again] == [(r.name, False, r.fingerprint) for r in first]
    assert [r.to_json() for r in again] == [
        {"step": r.name, "status": "skipped", "fingerprint": r.fingerprint, "outputs": {"made-by": r.name}}
        for r in first]
    assert first[0].to_json()["status"] == "ran"


def test_a_fingerprint_reads_the_earlier_steps_outputs(tmp_path, dist):
    log = tmp_path / "log"

    def steps(pins):
        return [counting_step("fetch", log, outputs=lambda ctx: {"pins": pins}),
                counting_step("build", log, fingerprint=lambda ctx: repr(dict(ctx["fetch"])))]
    first = run_steps(steps("a"), Manifest.load(dist), quiet())
    run_steps(steps("b"), Manifest.load(dist), quiet())     # fetch has no fingerprint: it runs once
    assert ran(log) == ["fetch", "build"]
    (dist / "manifest.json").unlink()
    second = run_steps(steps("b"), Manifest.load(dist), quiet())
    assert first[1].fingerprint != second[1].fingerprint


def test_each_step_says_done_skipped_or_failed_with_its_title_and_time(tmp_path, dist, monkeypatch):
    clock = iter([100.0, 102.25, 200.0])
    monkeypatch.setattr("release.jobs.pipeline.time", types.SimpleNamespace(monotonic=lambda: next(clock)))
    out = Output(stream=io.StringIO())
    log = tmp_path / "log"
    titled = Step("fetch", counting_step("fetch", log).run, title="fetch the sources")
    run_steps([titled], Manifest.load(dist), out)
    failed: list[str] = []
    with pytest.raises(RuntimeError):
        broken = Step("build", counting_step("build", log, fail=True).run, title="build the wheels")
        run_steps([titled, broken], Manifest.load(dist), out, on_failure=failed.append)
    assert out.stream.getvalue().splitlines() == [
        "+ fetch the sources: done in 2.2 s", "- fetch the sources: done before, skipped",
        "x build the wheels: failed (re-run to resume from here)"]
    assert failed == ["build"]


def test_the_bar_counts_the_steps_and_names_the_running_one(tmp_path, dist, monkeypatch):
    """On a terminal, the bar shows each step's title while it runs and counts finished ones of all."""
    from rich.console import Console
    screen = io.StringIO()
    console = Console(file=screen, force_terminal=True, width=100)
    out = Output(stream=io.StringIO())
    monkeypatch.setattr(out, "progress_console", lambda: console)
    seen: list[str] = []

    def step(name):
        def run(ctx):
            console.file.flush()
            seen.append(screen.getvalue())
            return {}
        return Step(name, run, title=f"the {name} step")
    from rich.progress import Progress
    for name in ("update", "advance"):               # draw at once, not on rich's timer
        real = getattr(Progress, name)
        monkeypatch.setattr(Progress, name, lambda self, *a, _real=real, **k: (_real(self, *a, **k), self.refresh())[0])
    run_steps([step("fetch"), step("build")], Manifest.load(dist), out)
    assert "the fetch step" in seen[0] and "0/2" in seen[0]
    assert "the build step" in seen[1].rpartition("the fetch step")[2] and "1/2" in seen[1]


def test_run_job_runs_the_steps_holding_the_jobs_lock_and_lets_it_go(tmp_path, dist):
    log = tmp_path / "log"
    held: list[str] = []

    def check(ctx):
        holder = json.loads((tmp_path / ".cache" / "locks" / "nightly.holder.json").read_text())
        held.append(holder["job"])
        with pytest.raises(UserError, match="another nightly is running"):
            with job_lock(tmp_path, "nightly"):
                pass
        return {"checked": True}
    out = Output(stream=io.StringIO())
    steps = [counting_step("fetch", log), Step("check", check)]
    results = run_job("nightly", tmp_path, steps, Manifest.load(dist), out)
    assert [(r.name, r.ran, dict(r.outputs)) for r in results] == [
        ("fetch", True, {"made-by": "fetch"}), ("check", True, {"checked": True})]
    assert held == ["nightly"] and "+ fetch: done" in out.stream.getvalue()
    assert Manifest.load(dist).outputs("check") == {"checked": True}
    with job_lock(tmp_path, "nightly"):                     # given back
        pass


def test_run_job_by_default_refuses_at_once_without_waiting(tmp_path, dist, holder, attempts):
    holder()
    with pytest.raises(UserError) as refused:
        run_job("nightly", tmp_path, [], Manifest.load(dist), quiet())
    assert attempts.tried == [False] and "after waiting" not in str(refused.value)
    with pytest.raises(UserError, match=r"after waiting 0\.2 s"):
        run_job("nightly", tmp_path, [], Manifest.load(dist), quiet(), lock_timeout=0.2)


def test_the_holder_is_named_with_its_job_pid_host_and_utc_start(tmp_path, monkeypatch):
    import datetime as dt
    import socket
    import time as _time
    monkeypatch.setenv("TZ", "Asia/Kolkata")      # local time 5:30 off UTC: the record must not follow it
    _time.tzset()
    try:
        with job_lock(tmp_path, "cut"):
            info = json.loads((tmp_path / ".cache" / "locks" / "cut.holder.json").read_text())
    finally:
        monkeypatch.delenv("TZ")
        _time.tzset()
    assert sorted(info) == ["host", "job", "pid", "since"]
    assert (info["job"], info["pid"], info["host"]) == ("cut", os.getpid(), socket.gethostname())
    since = dt.datetime.strptime(info["since"], "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=dt.timezone.utc)
    assert abs(since - dt.datetime.now(dt.timezone.utc)) < dt.timedelta(hours=1)


@pytest.mark.parametrize("record", [None, "not json", '{"pid": 1}', '["a list"]'])
def test_a_holder_that_left_no_readable_record_is_another_process(tmp_path, holder, record):
    holder()
    recorded = tmp_path / ".cache" / "locks" / "nightly.holder.json"
    if record is None:
        recorded.unlink()
    else:
        recorded.write_text(record)
    with pytest.raises(UserError, match=r"\.lock is held by another process; wait for it"):
        with job_lock(tmp_path, "nightly"):
            pass


@pytest.mark.parametrize("name", ["fetch", "open-draft", "next_version", "a1"])
def test_a_step_name_of_letters_digits_dashes_and_underscores_is_taken(name):
    assert Step(name, lambda ctx: None).name == name


@pytest.mark.parametrize("name", ["", "bad name", "a/b", "a.b", "-", "_"])
def test_any_other_step_name_is_refused_saying_what_a_name_is(name):
    with pytest.raises(ValueError, match=r"must be letters, digits, - or _$"):
        Step(name, lambda ctx: None)
