"""The tool's one lock (``release.core.file_lock.held``): one holder at a time, across processes
and with the ``filelock`` package (an older ``release`` on the same dist waits for this one and
this one for it), released however the block ends, a bounded wait that gives up (``Busy``), and
never through a link."""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
import threading
import time

import filelock
import pytest

from release.core.errors import UserError
from release.core.file_lock import Busy, held
from release.core.manifest import Manifest


def free(path) -> bool:
    """Whether another open file could take even a shared lock on ``path`` now (not waiting)."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    finally:
        os.close(fd)
    return True


def waits_for(lock, holding, timeout=None) -> None:
    """A writer taking ``lock`` in a thread waits while ``holding`` is held, then gets it."""
    entered = threading.Event()

    def writer():
        with held(lock, timeout=timeout):
            entered.set()

    with holding:
        thread = threading.Thread(target=writer)
        thread.start()
        thread.join(0.3)
        assert not entered.is_set()  # waiting for the holder (it cannot be early, only late)
    thread.join()
    assert entered.is_set()


def test_one_holder_at_a_time_and_the_lock_is_let_go_however_the_block_ends(tmp_path):
    lock = tmp_path / ".manifest.json.lock"
    waits_for(lock, held(lock))
    with held(lock):
        assert not free(lock)
        probe = (f"import fcntl, os; fd = os.open({str(lock)!r}, os.O_RDWR); "
                 "fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)")
        assert subprocess.run([sys.executable, "-c", probe], capture_output=True).returncode != 0
    assert free(lock) and lock.is_file()  # let go, and left in place for the next writer
    with pytest.raises(KeyError), held(lock):
        raise KeyError("a failed step")
    assert free(lock)
    with held(lock):   # taken again after each
        assert not free(lock)


def test_the_filelock_package_and_this_lock_exclude_each_other(tmp_path):
    """The lock is flock(2), as filelock takes it on Unix: a writer of either kind waits."""
    lock = tmp_path / ".manifest.json.lock"
    with held(lock), pytest.raises(filelock.Timeout):
        filelock.FileLock(str(lock), timeout=0).acquire()
    waits_for(lock, filelock.FileLock(str(lock)))


@pytest.mark.parametrize("mine", [0, 0.1])
@pytest.mark.parametrize("theirs", [None, 0, 5])
def test_a_bounded_wait_gives_up_while_another_holds_it_and_takes_it_once_free(tmp_path, mine, theirs):
    """``timeout`` 0 tries once, more waits that long; exclusive whichever way either side took it."""
    lock = tmp_path / "x.lock"
    with held(lock, timeout=theirs), pytest.raises(Busy), held(lock, timeout=mine):
        pass
    assert free(lock)
    with held(lock, timeout=mine):
        assert not free(lock)


@pytest.mark.parametrize("mine", [None, -1, 30])
def test_an_unbounded_or_long_wait_gets_it_once_the_holder_lets_go(tmp_path, mine):
    lock = tmp_path / "x.lock"
    waits_for(lock, held(lock, timeout=0), timeout=mine)


def test_a_bounded_wait_is_exclusive_across_processes(tmp_path):
    """A second process waiting a while is refused while this one holds it (timed or not)."""
    lock = tmp_path / "x.lock"
    probe = ("import sys; from release.core.file_lock import Busy, held\n"
             "try:\n    held(sys.argv[1], timeout=0.1).__enter__()\nexcept Busy:\n    sys.exit(7)")
    for timeout in (None, 0.1):
        with held(lock, timeout=timeout):
            assert subprocess.run([sys.executable, "-c", probe, str(lock)]).returncode == 7
    assert subprocess.run([sys.executable, "-c", probe, str(lock)]).returncode == 0


@pytest.mark.parametrize(("hostile", "what"), [("link", "a symbolic link"), ("dangling", "a symbolic link"),
                                             ("directory", "a directory"), ("fifo", "not a regular file")])
def test_a_link_or_other_non_file_in_its_place_is_one_line_and_nothing_is_followed(tmp_path, hostile, what):
    precious = tmp_path / "notes.txt"
    precious.write_text("mine\n")
    lock = tmp_path / "dist" / ".manifest.json.lock"
    lock.parent.mkdir()
    if hostile == "link":
        lock.symlink_to(precious)
    elif hostile == "dangling":
        lock.symlink_to(tmp_path / "elsewhere")
    elif hostile == "directory":
        lock.mkdir()
    else:
        os.mkfifo(lock)
    with pytest.raises(UserError) as caught, held(lock):
        pass
    assert str(caught.value) == f"{lock}: cannot take the lock ({what}); expected a regular file or none"
    assert caught.value.why == what
    assert precious.read_text() == "mine\n" and not (tmp_path / "elsewhere").exists()
    with pytest.raises(UserError):  # a manifest write there stops the same way, before writing
        Manifest.load(lock.parent).record("publish", "p", {"asset_ids": [1]})
    assert not (lock.parent / "manifest.json").exists()


def test_a_lock_under_a_file_names_the_systems_reason_in_lower_case_on_one_line(tmp_path):
    (tmp_path / "dist").write_text("a file where the folder should be\n")
    lock = tmp_path / "dist" / ".manifest.json.lock"
    with pytest.raises(UserError) as caught, held(lock):
        pass
    assert str(caught.value) == f"{lock}: cannot take the lock (not a directory); expected a regular file or none"


@pytest.mark.parametrize("umask", [0o022, 0o077, 0])
def test_a_new_lock_file_is_made_0644_less_the_umask_and_never_executable(tmp_path, umask):
    lock = tmp_path / "x.lock"
    before = os.umask(umask)
    try:
        with held(lock):
            pass
    finally:
        os.umask(before)
    assert (lock.stat().st_mode & 0o777) == 0o644 & ~umask


def test_a_child_started_inside_the_block_does_not_keep_the_lock_after_it(tmp_path):
    """The lock's descriptor is close-on-exec: a long-lived helper process started while holding
    it (even one told to keep open descriptors) does not hold the lock once the block ends. (exec
    closes descriptors one by one after Popen may return, so the check polls for a few seconds; a
    leaked descriptor keeps the lock for the child's whole 30 s.)"""
    lock = tmp_path / "x.lock"
    with held(lock):
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"], close_fds=False)
    try:
        for _ in range(100):
            if free(lock):
                break
            time.sleep(0.05)
        assert free(lock)
    finally:
        child.kill()
        child.wait()
