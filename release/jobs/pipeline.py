"""The jobs as ordered, resumable steps, recorded in a manifest on disk; one job at a time.

A job (nightly, cut) is a list of ``Step``s. ``run_steps`` runs them in order and records each
finished one in the manifest (``dist/<version>/manifest.json``) with a fingerprint of its
inputs, so a re-run after a crash skips what finished and re-runs the step that died midway.
A step's recorded fingerprint also covers every step before it: when an earlier step's inputs
change, everything after it runs again. ``job_lock`` keeps a second run of the same job out.

This module knows nothing about what the steps do: ``release.jobs.catalog`` declares the
jobs' steps and ``release.jobs.runner`` binds them to a run.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as _dt
import hashlib
import json
import os
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from release.core.atomic import atomic_write
from release.core.errors import UserError

if TYPE_CHECKING:
    from release.core.output import Output

LOCK_DIR = Path(".cache") / "locks"


class Manifest(Protocol):
    """What the pipeline needs of ``release.core.manifest.Manifest``."""

    def done(self, step: str, fingerprint: str) -> bool: ...

    def record(self, step: str, fingerprint: str, outputs: Mapping[str, Any]) -> None: ...

    def outputs(self, step: str) -> Mapping[str, Any] | None: ...


class Context(Mapping[str, Mapping[str, Any]]):
    """The outputs of the steps before this one, by step name (read-only)."""

    def __init__(self, outputs: dict[str, Mapping[str, Any]]):
        self._outputs = outputs

    def __getitem__(self, name: str) -> Mapping[str, Any]:
        return self._outputs[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._outputs)

    def __len__(self) -> int:
        return len(self._outputs)


@dataclasses.dataclass(frozen=True)
class Step:
    """One unit of a job.

    ``run(context)`` does the work and returns its outputs (JSON-able, recorded in the
    manifest and handed to later steps). ``fingerprint(context)`` describes the inputs: a
    recorded step whose fingerprint is unchanged is skipped. Without one the step runs once.
    Steps that change the world must be idempotent: a step killed midway runs again.
    """

    name: str
    run: Callable[[Context], Mapping[str, Any] | None]
    fingerprint: Callable[[Context], str] | None = None
    title: str = ""

    def __post_init__(self) -> None:
        if not self.name or not self.name.replace("-", "").replace("_", "").isalnum():
            raise ValueError(f"step name {self.name!r} must be letters, digits, - or _")


@dataclasses.dataclass(frozen=True)
class StepResult:
    name: str
    ran: bool  # False: done before with the same fingerprint, skipped
    fingerprint: str
    outputs: Mapping[str, Any]

    def to_json(self) -> dict:
        return {"step": self.name, "status": "ran" if self.ran else "skipped",
                "fingerprint": self.fingerprint, "outputs": dict(self.outputs)}


def chain(previous: str, name: str, own: str) -> str:
    """The recorded fingerprint: this step's inputs and every earlier step's, hashed."""
    return hashlib.sha256(json.dumps([previous, name, own]).encode()).hexdigest()


def run_steps(steps: Iterable[Step], manifest: Manifest, out: Output, *,
              on_failure: Callable[[str], None] | None = None) -> list[StepResult]:
    """Run ``steps`` in order, skipping the ones the manifest has as done; record each one.

    A step is recorded only after it returns, so a crash or kill leaves it unrecorded and the
    next run starts there. Exceptions propagate after a line naming the failed step (and
    ``on_failure(name)``, for callers that judge by which step failed).
    """
    steps = list(steps)
    names = [s.name for s in steps]
    if len(set(names)) != len(names):
        raise ValueError(f"duplicate step names in {names}")
    outputs: dict[str, Mapping[str, Any]] = {}
    results: list[StepResult] = []
    previous = ""
    with _progress(out, len(steps)) as advance:
        for step in steps:
            ctx = Context(dict(outputs))
            own = step.fingerprint(ctx) if step.fingerprint else ""
            fingerprint = chain(previous, step.name, own)
            label = step.title or step.name
            recorded = manifest.outputs(step.name) if manifest.done(step.name, fingerprint) else None
            if recorded is not None:
                result = StepResult(step.name, False, fingerprint, dict(recorded))
                out.line(f"- {label}: done before, skipped")
            else:
                advance(label)
                started = time.monotonic()
                try:
                    produced = dict(step.run(ctx) or {})
                except BaseException:
                    out.line(f"x {label}: failed (re-run to resume from here)")
                    if on_failure is not None:
                        on_failure(step.name)
                    raise
                manifest.record(step.name, fingerprint, produced)
                result = StepResult(step.name, True, fingerprint, produced)
                out.line(f"+ {label}: done in {time.monotonic() - started:.1f} s")
            advance(None)
            outputs[step.name] = result.outputs
            results.append(result)
            previous = fingerprint
    return results


@contextlib.contextmanager
def _progress(out: Output, total: int) -> Iterator[Callable[[str | None], None]]:
    """A bar over the steps on the people console; ``advance(label)`` names the current step,
    ``advance(None)`` counts one finished."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    console = out.progress_console()
    progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                        TimeElapsedColumn(), console=console, transient=True,
                        disable=not console.is_terminal)
    with progress:
        task = progress.add_task("steps", total=total)

        def advance(label: str | None) -> None:
            if label is None:
                progress.advance(task)
            else:
                progress.update(task, description=label)

        yield advance


def run_job(job: str, root: Path, steps: Iterable[Step], manifest: Manifest, out: Output, *,
            lock_timeout: float = 0) -> list[StepResult]:
    """``run_steps`` under the job's lock: what ``release nightly`` and ``release cut`` run."""
    with job_lock(root, job, timeout=lock_timeout):
        return run_steps(steps, manifest, out)


# --- one job at a time ------------------------------------------------------------------------

def lock_path(root: Path, job: str) -> Path:
    return Path(root) / LOCK_DIR / f"{job}.lock"


def _holder_path(lock: Path) -> Path:
    # beside the lock, not in it: an older release (the filelock package) truncated the lock file
    # each time it tried to take it
    return lock.with_suffix(".holder.json")


@contextlib.contextmanager
def job_lock(root: Path, job: str, *, timeout: float = 0) -> Iterator[Path]:
    """Hold ``<root>/.cache/locks/<job>.lock`` for the duration: one ``job`` at a time.

    ``timeout`` seconds to wait for a running one to finish (0: fail at once, negative: wait
    forever). The operating system drops the lock when the holder exits, even when killed, so
    a crashed run never blocks the next one. Raises ``UserError`` naming the holder.
    """
    from release.core.file_lock import Busy, held

    path = lock_path(root, job)
    path.parent.mkdir(parents=True, exist_ok=True)
    with contextlib.ExitStack() as lock:
        try:
            lock.enter_context(held(path, timeout=timeout, poll=0.2))
        except Busy:
            waited = "" if timeout == 0 else f" after waiting {timeout:g} s"
            raise UserError(f"another {job} is running{waited}: {path} is held by "
                            f"{_describe_holder(_holder_path(path))}; wait for it to finish or pass "
                            f"--lock-timeout SECONDS") from None
        holder = _holder_path(path)
        try:
            _write_holder(holder, job)
            yield path
        finally:
            with contextlib.suppress(FileNotFoundError):
                holder.unlink()


def _write_holder(path: Path, job: str) -> None:
    import socket  # only when a job takes its lock: a dry run never loads it
    info = {"job": job, "pid": os.getpid(), "host": socket.gethostname(),
            "since": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")}
    atomic_write(path, json.dumps(info) + "\n")


def _describe_holder(path: Path) -> str:
    try:
        info = json.loads(path.read_text())
        return f"pid {info['pid']} on {info['host']} since {info['since']}"
    except (OSError, ValueError, KeyError, TypeError):
        return "another process"
