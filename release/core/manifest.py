"""``dist/<version>/manifest.json``: which steps are done, so a re-run skips them.

A step is done when it was recorded with the same inputs fingerprint and every
output it recorded is still there with the recorded size. Recording re-reads the
file under a lock and replaces it atomically, so steps of other commands (build,
publish, validate) can record into the same manifest and a crash never leaves a
torn file.

    m = Manifest.load(version_dir)
    fp = fingerprint({"version": v, "inputs": {...}})       # any JSON-able value -> sha256 hex
    if not m.done("wheel_pjrt", fp):
        ... do the work ...
        m.record("wheel_pjrt", fp, {"wheel": path_of_wheel, "tag": "py3-none-..."})
    m.outputs("wheel_pjrt") -> {"wheel": Path(...), "tag": "..."}   (None if never recorded)
    m.file_hashes("wheel_pjrt") -> {"wheel": "<sha256 hex>"}

Outputs that are ``Path``s are files: recorded with sha256 and size (paths relative to
the manifest's directory when inside it) and checked by ``done``; other values must be
JSON-able and are kept as they are. ``done(step, fp, verify=True)`` also re-hashes files.
On disk: ``{"schema": 1, "steps": {name: {"fingerprint", "files": {name: {"path",
"sha256", "size"}}, "values": {...}, "recorded_at"}}}``.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any, Callable, Mapping

from release.core import bounded, regular
from release.core.atomic import atomic_write
from release.core.checksums import sha256_file
from release.core.errors import UserError

FILENAME = "manifest.json"
SCHEMA = 1


def fingerprint(value: Any) -> str:
    """sha256 of the canonical JSON of ``value``: the identity of a step's inputs."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class Manifest:
    def __init__(self, directory: Path, steps: dict | None = None):
        self.directory = Path(directory)
        self.steps: dict[str, dict] = steps or {}

    @property
    def path(self) -> Path:
        return self.directory / FILENAME

    @classmethod
    def load(cls, directory: Path) -> "Manifest":
        """The manifest in ``directory`` (empty if there is none yet)."""
        manifest = cls(directory)
        manifest.steps = manifest._read()
        return manifest

    def _read(self) -> dict:
        try:
            data = bounded.json_loads(regular.read_text(self.path))
        except FileNotFoundError:
            return {}
        except (OSError, UnicodeDecodeError, bounded.Unparseable):
            return {}  # unreadable means nothing is known to be done: steps re-run
        if not isinstance(data, dict) or data.get("schema") != SCHEMA:
            return {}
        steps = data.get("steps")
        return steps if isinstance(steps, dict) else {}

    def _resolve(self, stored: str) -> Path:
        path = Path(stored)
        return path if path.is_absolute() else self.directory / path

    def done(self, step: str, fp: str, *, verify: bool = False) -> bool:
        entry = self.steps.get(step)
        if not entry or entry.get("fingerprint") != fp:
            return False
        for out in entry.get("files", {}).values():
            path = self._resolve(out["path"])
            try:
                if path.stat().st_size != out["size"]:
                    return False
            except OSError:
                return False
            if verify and sha256_file(path) != out["sha256"]:
                return False
        return True

    def outputs(self, step: str) -> dict[str, Any] | None:
        """What a recorded step produced: its values, with files as ``Path``s (None if unknown)."""
        entry = self.steps.get(step)
        if entry is None:
            return None
        result = dict(entry.get("values", {}))
        result.update({name: self._resolve(f["path"]) for name, f in entry.get("files", {}).items()})
        return result

    def file_hashes(self, step: str) -> dict[str, str]:
        """``{name: sha256 hex}`` of a recorded step's files."""
        return {name: f["sha256"] for name, f in self.steps.get(step, {}).get("files", {}).items()}

    def record(self, step: str, fp: str, outputs: Mapping[str, Any] | None = None, *,
               hashes: Mapping[str, str] | None = None) -> None:
        """Record ``step`` as done, atomically.

        ``outputs`` maps names to ``Path``s (files: recorded with sha256 and size, and
        checked by ``done``) or to JSON-able values (recorded as they are). ``hashes``
        gives known sha256 hex digests of files, to save re-reading them.
        """
        files, values = {}, {}
        for name, value in (outputs or {}).items():
            if not isinstance(value, Path):
                values[name] = value
                continue
            digest = (hashes or {}).get(name) or sha256_file(value)
            try:
                stored = str(value.resolve().relative_to(self.directory.resolve()))
            except ValueError:
                stored = str(value.resolve())
            files[name] = {"path": stored, "sha256": digest, "size": value.stat().st_size}
        entry = {"fingerprint": fp, "files": files, "values": values,
                 "recorded_at": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")}
        self._update(lambda steps: steps.__setitem__(step, entry))

    def check_writable(self, before: str) -> None:
        """One ``UserError`` unless the manifest can be recorded here: checked ``before`` a step
        that changes the world (a publish), so an unwritable dist stops it before anything is sent."""
        problem = None
        if self.path.exists() and not self.path.is_file():
            problem = f"{FILENAME} is not a file"
        else:
            try:
                fd, probe = tempfile.mkstemp(prefix=f".{FILENAME}.", suffix=".probe", dir=self.directory)
                os.close(fd)
                os.unlink(probe)
            except OSError as exc:
                problem = (exc.strerror or type(exc).__name__).lower()
        if problem:
            raise UserError(f"{self.directory}: cannot record {FILENAME} there ({problem}); {before} "
                            "records where the assets went: fix the directory first (nothing was sent)")

    def _update(self, change: Callable[[dict], None]) -> None:
        """Re-read under the lock, apply ``change(steps)``, replace the file atomically."""
        self.directory.mkdir(parents=True, exist_ok=True)
        from release.core.file_lock import held  # loaded when a step is recorded

        with held(self.directory / f".{FILENAME}.lock"):
            steps = self._read()
            change(steps)
            text = json.dumps({"schema": SCHEMA, "steps": steps}, indent=2, sort_keys=True) + "\n"
            atomic_write(self.path, text)
            self.steps = steps
