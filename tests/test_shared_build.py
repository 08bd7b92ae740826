"""``built_once`` (tests/support/shared.py): what a session fixture builds from nothing is built
once in the run, however many xdist workers ask, and a build that failed midway is never read."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.support.shared import built_once

REPO = Path(__file__).resolve().parents[1]


class Factory:
    """What ``built_once`` reads of pytest's ``tmp_path_factory``: a worker's base temporary directory."""

    def __init__(self, base: Path):
        self.base = base

    def getbasetemp(self) -> Path:
        return self.base


def test_every_worker_of_a_run_gets_the_one_build(tmp_path, monkeypatch):
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw0")
    builds = []

    def build(d: Path) -> dict:
        builds.append(d)
        (d / "sub").mkdir()
        (d / "sub" / "a.so").write_bytes(b"\x7fELF")
        return {"so": d / "sub" / "a.so", "dir": d, "shas": {"P0": "abc"}, "n": [1, "two"]}

    first = built_once(Factory(tmp_path / "popen-gw0"), "thing", build)
    second = built_once(Factory(tmp_path / "popen-gw1"), "thing", build)
    assert len(builds) == 1 and first == second
    assert first["so"].read_bytes() == b"\x7fELF" and first["so"].parent.parent == first["dir"]
    assert first["dir"].parent.parent == tmp_path  # under the run's directory, not a worker's
    assert (first["shas"], first["n"]) == ({"P0": "abc"}, [1, "two"])
    other = built_once(Factory(tmp_path / "popen-gw0"), "other", lambda d: d)
    assert other != first["dir"]  # each name its own build


def test_a_build_that_failed_is_built_again_and_never_read_half_done(tmp_path):
    def broken(d: Path):
        (d / "half").write_text("half")
        raise RuntimeError("compiler died")

    with pytest.raises(RuntimeError):
        built_once(Factory(tmp_path), "thing", broken)
    got = built_once(Factory(tmp_path), "thing", lambda d: sorted(p.name for p in d.iterdir()))
    assert got == []  # a fresh directory: nothing of the failed build


def test_workers_asking_at_once_wait_for_the_one_that_builds(tmp_path):
    """Two processes (as two workers are) ask together: one builds, the other waits and reads it."""
    code = textwrap.dedent(f"""
        import os, sys, time
        from pathlib import Path
        sys.path.insert(0, {str(REPO)!r})
        os.environ["PYTEST_XDIST_WORKER"] = sys.argv[1]
        from tests.support.shared import built_once
        from tests.test_shared_build import Factory
        base = Path({str(tmp_path)!r})
        go = base / "go"
        while not go.exists():
            time.sleep(0.01)
        def build(d):
            with open(base / "builds.log", "a") as log:
                log.write(sys.argv[1] + "\\n")
            time.sleep(0.5)  # long enough for the other to arrive while this one builds
            (d / "x").write_text("built")
            return d / "x"
        print(built_once(Factory(base / ("popen-" + sys.argv[1])), "thing", build).read_text())
    """)
    procs = [subprocess.Popen([sys.executable, "-c", code, w], stdout=subprocess.PIPE, text=True)
             for w in ("gw0", "gw1")]
    (tmp_path / "go").touch()
    outs = [p.communicate(timeout=120)[0] for p in procs]
    assert [p.returncode for p in procs] == [0, 0]
    assert outs == ["built\n", "built\n"]
    assert len((tmp_path / "builds.log").read_text().splitlines()) == 1


@pytest.mark.parametrize("listed", [True, False])
def test_the_registry_is_asked_once_per_run_whatever_the_workers(listed, tmp_path, monkeypatch):
    """Each worker is its own process; the first to run a ``network`` test asks pip (about 1 CPU-s)
    and the others read its answer, reachable or not."""
    import types

    from tests.support import registry
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw0")
    monkeypatch.delenv("RELEASE_TESTS_OFFLINE", raising=False)
    asked = []

    def pip(*args, timeout):
        asked.append(args)
        return types.SimpleNamespace(returncode=0, stdout=f"{registry.PUBLISHED[0]} ({registry.PUBLISHED_VERSION})"
                                     if listed else "")
    monkeypatch.setattr(registry, "_pip", pip)
    answers = []
    for worker in ("popen-gw0", "popen-gw1", "popen-gw2"):
        monkeypatch.setattr(registry, "_reachable", None)  # a fresh process
        answers.append(registry.registry_reachable(Factory(tmp_path / worker)))
    assert answers == [listed] * 3 and asked == [("index", "versions", registry.PUBLISHED[0])]
