"""Files and directories from an unlucky operator or a hostile upstream: concurrent writers of
one wheel, a gc killed mid-delete, a symlinked --out, nested JSON in provenance and in a
public index's answer. Each is one line or handled, never a traceback or a lasting mess."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from release.build import provenance
from release.core.errors import UserError
from release.core.wheelfile import WheelWriter
from release.publish import staging
from release.publish.pypi_index import parse_simple_page
from release.publish.stores import LocalStore


def test_two_writers_of_one_wheel_never_share_a_temp_file(tmp_path):
    """Concurrent promote runs wrote one ``.part`` name and broke each other's wheel."""
    target = tmp_path / "jax_rocm7_pjrt-0.9.1rc1-py3-none-manylinux_2_28_x86_64.whl"
    first = WheelWriter(target, "jax_rocm7_pjrt-0.9.1rc1.dist-info")
    second = WheelWriter(target, "jax_rocm7_pjrt-0.9.1rc1.dist-info")
    assert first._part != second._part
    barrier = threading.Barrier(2)
    errors: list[BaseException] = []

    def write(writer: WheelWriter, payload: bytes) -> None:
        try:
            barrier.wait()
            writer.add_bytes("jax_plugins/xla_rocm7/__init__.py", payload)
            writer.close()
        except BaseException as exc:  # noqa: BLE001 - the test reports it
            errors.append(exc)
    threads = [threading.Thread(target=write, args=(w, p)) for w, p in ((first, b"a" * 5000), (second, b"b" * 5000))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert sorted(p.name for p in tmp_path.iterdir()) == [target.name]  # one finished wheel, no temp left
    import zipfile
    with zipfile.ZipFile(target) as zf:
        assert zf.testzip() is None


def test_a_gc_killed_mid_delete_leaves_nothing_behind_for_long(tmp_path):
    store = LocalStore(tmp_path / "store")
    for n in (1, 2):
        store.create_draft(f"rocm-jax-v0.9.1.dev2026112{n}", name="x", body="", prerelease=True)
    # what a kill between the rename and the end of rmtree leaves:
    (store.directory / ".deleted-7" / "assets").mkdir(parents=True)
    (store.directory / ".deleted-7" / "assets" / "half.whl").write_bytes(b"x" * 10)
    release = store.list_releases()[0]
    store.delete_release(release)
    assert not list(store.directory.glob(".deleted-*"))
    (store.directory / ".deleted-9").mkdir()
    store.create_draft("rocm-jax-v0.9.1.dev20261123", name="x", body="", prerelease=True)
    assert not list(store.directory.glob(".deleted-*"))


def test_index_out_that_is_a_symlink_is_refused_and_kept(tmp_path, run_cli):
    real = tmp_path / "real-site"
    real.mkdir()
    link = tmp_path / "site"
    link.symlink_to(real)
    with pytest.raises(UserError, match="symbolic link"):
        staging.check_site(link)
    assert link.is_symlink() and list(real.iterdir()) == []


_SITE_LAYOUTS = {  # path -> file text, or None for a folder
    "absent": None,
    "empty": {},
    "pages and channels": {"index.html": "", "index.json": "{}", "nightly/2026-11-27/": None, "stable/": None},
    "an older version's project folders": {"index.html": "", "jax-rocm7-plugin/x.whl": "",
                                            "jax-rocm7-plugin/x.whl.metadata": "", "jax-rocm7-plugin/index.html": ""},
    "anything, beside the state file": {staging.STATE_FILE: "{}", "notes.txt": "", "other/": None},
}
_STRANGE = {  # layout, the name refused
    "a stranger's file among the pages": ({"index.html": "", "notes.txt": ""}, "notes.txt"),
    "a project folder holding more than wheels": ({"jax-rocm7-plugin/x.whl": "", "jax-rocm7-plugin/README": ""},
                                                  "jax-rocm7-plugin"),
    "a stranger's folder": ({"nightly/": None, "photos/2026/": None}, "photos"),
}


def _lay_out(site: Path, layout: dict[str, str | None]) -> None:
    site.mkdir()
    for rel, text in layout.items():
        if text is None:
            (site / rel).mkdir(parents=True)
        else:
            (site / rel).parent.mkdir(parents=True, exist_ok=True)
            (site / rel).write_text(text)


@pytest.mark.parametrize("layout", list(_SITE_LAYOUTS))
def test_index_out_that_is_new_empty_or_only_what_the_tool_writes_is_accepted(tmp_path, layout):
    site = tmp_path / "site"
    if _SITE_LAYOUTS[layout] is not None:
        _lay_out(site, _SITE_LAYOUTS[layout])
    staging.check_site(site)


@pytest.mark.parametrize("case", list(_STRANGE))
def test_index_out_holding_what_the_tool_did_not_write_is_refused_naming_it(tmp_path, case):
    layout, name = _STRANGE[case]
    site = tmp_path / "site"
    _lay_out(site, layout)
    with pytest.raises(UserError) as exc:
        staging.check_site(site)
    assert str(exc.value) == (f"--out {site}: holds {name}, which this tool did not write; "
                              "expected an empty directory or a site written by `release index`")
    (tmp_path / "file").write_text("")
    with pytest.raises(UserError, match=r"^--out .*file: is a file; expected a directory for the site$"):
        staging.check_site(tmp_path / "file")


@given(depth=st.integers(65, 50_000), where=st.sampled_from(["top", "predicate", "subject"]))
def test_deeply_nested_provenance_is_one_problem(tmp_path_factory, depth, where):
    path = tmp_path_factory.mktemp("prov") / "provenance.intoto.json"
    nested = "[" * depth + "]" * depth
    text = {"top": nested, "predicate": '{"predicate": ' + nested + "}",
            "subject": '{"subject": [{"name": "a", "digest": ' + nested + "}]}"}[where]
    path.write_text(text)
    with pytest.raises(ValueError, match="not JSON we can read") as caught:
        provenance.load(path)
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize("body", ["[" * 100_000, '{"files": ' + "[" * 5000 + "]" * 5000 + "}",
                                  '{"files": [{"filename": "a", "size": ' + "9" * 5000 + "}]}"])
def test_a_public_index_answering_nested_json_is_a_value_error(body):
    """The caller turns a ValueError into "not a simple API answer" (not checked, never a failure)."""
    with pytest.raises(ValueError):
        parse_simple_page("application/vnd.pypi.simple.v1+json", body)


def test_provenance_still_loads_a_normal_file(tmp_path):
    path = Path(tmp_path / "p.json")
    path.write_text('{"_type": "https://in-toto.io/Statement/v1", "subject": []}')
    assert provenance.load(path)["subject"] == []


def _sleeper(tmp_path: Path) -> Path:
    script = tmp_path / "sleeper"
    script.write_text("#!/bin/sh\nexec sleep 30\n")
    script.chmod(0o755)
    return script


def test_a_wheel_whose_import_never_returns_fails_validation_in_time(tmp_path, monkeypatch):
    import time

    from release.check import validate_install as validate
    monkeypatch.setattr(validate, "IMPORT_DEADLINE", 0.3)
    started = time.monotonic()
    problems = validate.step_import(_sleeper(tmp_path), 7, "0.9.1", None)
    assert time.monotonic() - started < 5
    assert problems and "did not finish" in problems[0]


def test_a_pip_run_held_by_a_dripping_index_is_a_failure_in_time(tmp_path, monkeypatch):
    import time

    from release.check import resolver
    monkeypatch.setattr(resolver, "PIP_DEADLINE", 0.3)
    sleeper = _sleeper(tmp_path)  # pip, however it is started: in the venv's python or through ours
    monkeypatch.setattr(resolver.sys, "executable", str(sleeper))
    started = time.monotonic()
    done = resolver._pip(sleeper, ["install", "x"])
    assert time.monotonic() - started < 5
    assert done.returncode != 0 and "did not finish" in resolver.pip_error_line(done.stderr)
