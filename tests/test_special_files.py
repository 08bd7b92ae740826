"""Special files where the tool reads or appends: a FIFO blocks until its other end opens, and a
device such as /dev/zero never ends. Every file the tool reads from a person, the environment or
a store is read only when it is a regular file, within a size bound, and every special one is
one line at once (exit 2), never a hang or a memory blow-up. (The path flags get the same
special files in tests/test_flags.py.)"""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from release.build.wheel_specs import MANIFEST, PLUGIN_DIR, load_specs, plugin_dir
from release.check.verify import expected_revisions
from release.core import config, output, regular, rocm_runtime, roller
from release.core.errors import UserError
from release.publish import local_records, pypi_index


def _fifo(path: Path) -> Path:
    os.mkfifo(path)
    return path


def _zero(path: Path) -> Path:
    path.symlink_to("/dev/zero")  # a link to a device: what the link names is checked
    return path


def _huge(path: Path) -> Path:
    with open(path, "wb") as handle:  # sparse: the size says it all, nothing is read
        handle.truncate(regular.DEFAULT_LIMIT * 4)
    return path


SPECIALS = {"fifo": _fifo, "dev-zero": _zero, "huge": _huge}


def _readers(tmp_path: Path):
    """(file name, read it) for every file the tool reads whole from outside."""
    plugin = tmp_path / PLUGIN_DIR
    return {
        "deps.yaml": ("deps.yaml", lambda p: config.load_deps(p)),
        "version_info.json": ("version_info.json", lambda p: config.load_version_info(p)),
        "roller.yaml": (roller.ROLLER_FILE, lambda p: roller.load_roller(p.parent)),
        ".pypirc": (".pypirc", lambda p: pypi_index._pypirc(p)),
        "release.json": ("release.json", lambda p: local_records.release_record(p)),
        "wheels.json": (f"{PLUGIN_DIR}/{MANIFEST}", lambda p: load_specs(plugin.parent)),
        "rocm_runtime.json": ("rocm_runtime.json", lambda p: rocm_runtime._releases(p)),
        "revisions.json": ("revisions.json", lambda p: expected_revisions(revisions_file=p)),
    }


@pytest.mark.parametrize("special", list(SPECIALS))
@pytest.mark.parametrize("reader", ["deps.yaml", "version_info.json", "roller.yaml", ".pypirc",
                                    "release.json", "wheels.json", "rocm_runtime.json", "revisions.json"])
def test_a_special_or_huge_file_the_tool_reads_is_one_line(tmp_path, reader, special):
    if reader == "wheels.json":
        import shutil
        shutil.copytree(plugin_dir(), tmp_path / PLUGIN_DIR)
        (tmp_path / PLUGIN_DIR / MANIFEST).unlink()
    name, read = _readers(tmp_path)[reader]
    path = SPECIALS[special](tmp_path / name)
    with pytest.raises(UserError) as caught:
        read(path)
    text = str(caught.value)
    assert "\n" not in text and str(path.name) in text, text
    why = {"fifo": "named pipe", "dev-zero": "character device", "huge": "bytes"}[special]
    assert why in text, text


def test_the_reader_refuses_what_is_not_regular_and_reads_what_is(tmp_path):
    good = tmp_path / "good"
    good.write_bytes(b"x" * 10)
    assert regular.read_bytes(good, 10) == b"x" * 10
    with pytest.raises(regular.NotRegular, match="more than 9 bytes|10 bytes"):
        regular.read_bytes(good, 9)
    link = tmp_path / "link"
    link.symlink_to(good)
    assert regular.read_bytes(link) == b"x" * 10
    with pytest.raises(regular.NotRegular, match="symbolic link"):
        regular.read_bytes(link, follow_symlinks=False)
    # a /proc file reports size 0 and still holds bytes: the bound holds by reading, not by stat
    with pytest.raises(regular.NotRegular, match="more than 4 bytes"):
        regular.read_bytes("/proc/self/status", 4)
    with pytest.raises(FileNotFoundError):
        regular.read_bytes(tmp_path / "missing")


@pytest.mark.parametrize("name", ["GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY"])
@pytest.mark.parametrize("special", ["fifo", "dev-zero"])
def test_a_special_github_file_refuses_even_release_version_at_once(run_cli, project_dir, tmp_path,
                                                                    monkeypatch, name, special):
    path = SPECIALS[special](tmp_path / "gh-file")
    monkeypatch.setenv(name, str(path))
    code, out, err = run_cli("version", "--kind", "rc", "--root", project_dir)
    assert code == 2 and out == "", (out, err)
    assert err.startswith(f"release version: error: ${name}: ") and len(err.splitlines()) == 1, err
    assert ("named pipe" if special == "fifo" else "character device") in err


@pytest.mark.parametrize("write", [lambda: output.github_output({"k": "v"}),
                                   lambda: output.step_summary("# hi")], ids=["output", "summary"])
@pytest.mark.parametrize("reader", [False, True, "dev-zero"], ids=["nobody-reads", "a-reader", "dev-zero"])
def test_appending_to_a_fifo_is_refused_whether_or_not_someone_reads_it(tmp_path, monkeypatch, write,
                                                                         reader):
    """The start-up check can be raced (the file swapped after it): the write itself refuses."""
    if reader == "dev-zero":
        zero = _zero(tmp_path / "gh")
        for name in ("GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY"):
            monkeypatch.setenv(name, str(zero))
        with pytest.raises(UserError, match="character device"):
            write()
        return
    fifo = _fifo(tmp_path / "gh")
    for name in ("GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY"):
        monkeypatch.setenv(name, str(fifo))
    held = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK) if reader else None
    try:
        with pytest.raises(UserError, match="named pipe"):
            write()
        if held is not None:
            assert os.read(held, 100) == b""  # nothing was written into the pipe
    finally:
        if held is not None:
            os.close(held)


def test_github_files_that_are_regular_or_dev_null_are_appended_to(tmp_path, monkeypatch, run_cli,
                                                                   project_dir):
    out_file = tmp_path / "out"
    monkeypatch.setenv("GITHUB_OUTPUT", str(out_file))
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", os.devnull)
    output.github_output({"k": "v"})
    output.github_output({"j": "w"})
    output.step_summary("# hi")
    assert out_file.read_text() == "k=v\nj=w\n"
    code, _, err = run_cli("version", "--kind", "rc", "--root", project_dir)
    assert code == 0, err


def test_the_refusals_say_what_the_file_is_and_keep_os_error_s_fields(tmp_path):
    fifo = _fifo(tmp_path / "fifo")
    good = tmp_path / "good"
    good.write_text("x")
    assert regular.refusal(fifo) == "is a named pipe (FIFO); expected a regular file"
    assert regular.refusal(good) is None and regular.refusal(tmp_path / "missing") is None
    assert regular.kind(0) == "not a regular file"  # a mode of no known type
    assert regular.is_devnull(os.devnull) and not regular.is_devnull(good)
    assert not regular.is_devnull(tmp_path / "missing")
    with pytest.raises(regular.NotRegular) as caught:
        regular.read_bytes(fifo)
    assert (caught.value.errno, caught.value.filename, caught.value.strerror) == \
        (errno.EINVAL, str(fifo), "is a named pipe (FIFO); expected a regular file")
    assert str(caught.value) == f"{fifo}: is a named pipe (FIFO); expected a regular file"
    with pytest.raises(IsADirectoryError) as dir_error:
        regular.read_bytes(tmp_path)
    assert (dir_error.value.errno, dir_error.value.filename) == (errno.EISDIR, str(tmp_path))
    assert dir_error.value.strerror == os.strerror(errno.EISDIR)


def test_without_following_links_a_fifo_is_still_refused_and_a_missing_file_is_missing(tmp_path):
    fifo = _fifo(tmp_path / "fifo")
    with pytest.raises(regular.NotRegular, match="named pipe"):
        regular.read_bytes(fifo, follow_symlinks=False)  # O_NOFOLLOW keeps O_NONBLOCK: never blocks
    with pytest.raises(FileNotFoundError):
        regular.read_bytes(tmp_path / "missing", follow_symlinks=False)
    link = tmp_path / "link"
    link.symlink_to(fifo)
    with pytest.raises(regular.NotRegular) as caught:
        regular.read_text(link, follow_symlinks=False)
    assert caught.value.reason == "is a symbolic link; expected a regular file"


def test_read_text_keeps_the_bound_and_a_file_of_several_chunks_whole(tmp_path):
    big = tmp_path / "big"
    data = bytes(range(256)) * (3 * regular.MIB // 256 + 7)
    big.write_bytes(data)
    assert regular.read_bytes(big, len(data)) == data  # more than one read, joined as it was
    small = tmp_path / "small"
    small.write_text("héllo")
    assert regular.read_text(small, 6) == "héllo"
    with pytest.raises(regular.NotRegular, match="expected at most 5"):
        regular.read_text(small, 5)


def test_a_github_file_is_created_as_any_file_is_and_written_as_utf_8(tmp_path, monkeypatch):
    monkeypatch.setenv("GITHUB_OUTPUT", str(tmp_path / "out"))
    old = os.umask(0o022)
    try:
        output.github_output({"k": "ü"})
    finally:
        os.umask(old)
    assert (tmp_path / "out").stat().st_mode & 0o777 == 0o644
    assert (tmp_path / "out").read_bytes() == "k=ü\n".encode()
    with pytest.raises(regular.NotRegular) as caught:
        with regular.open_append(_fifo(tmp_path / "fifo")):
            pass
    assert caught.value.reason == "is a named pipe (FIFO); expected a regular file"
