"""The index's site directory, written whole (``release.publish.staging``): staged beside SITE and
swapped in at once, unchanged bytes swap nothing, a crash between the fallback's two renames is
finished by the next run, one writer at a time, and no link is ever followed or left.

Unit-level: each rule on real directories in a temp dir, no wheels and no pip (the whole
``release index`` flow is tests/test_index.py's and tests/test_hostile_state.py's)."""

from __future__ import annotations

import contextlib
import json
import os
import threading
from pathlib import Path
from typing import Callable, ContextManager, Iterator

import pytest

from release.core.errors import UserError
from release.core.file_lock import held
from release.publish import staging
from release.publish.staging import Staging
from tests.support.site_scans import each_scan_reads_its_tree_once  # noqa: F401  (autouse: every test here)


def files_of(root: Path) -> dict[str, bytes]:
    """Every file under ``root``, links not followed."""
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and not p.is_symlink()}


def lay_out(root: Path, files: dict[str, bytes]) -> Path:
    for rel, data in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(data)
    return root


def no_leftovers(site: Path) -> bool:
    return not [p.name for p in site.parent.iterdir() if p.name in (f".{site.name}.new", f".{site.name}.old")]


# ---------------------------------------------------------------------------------- pages' bytes


def test_a_page_is_the_same_bytes_whatever_order_its_keys_were_built_in():
    """Equal data gives equal bytes (so a re-run swaps nothing), the bytes earlier runs wrote (so
    a run of the same version rewrites no page): sorted keys, compact, a final newline."""
    one = {"versions": ["0.9.1", "0.9.0"], "meta": {"b": 2, "a": 1}, "name": "jax-rocm7-plugin"}
    other = {"name": "jax-rocm7-plugin", "meta": {"a": 1, "b": 2}, "versions": ["0.9.1", "0.9.0"]}
    assert staging.write_json(one) == staging.write_json(other)
    assert staging.write_json(other) == (b'{"meta":{"a":1,"b":2},"name":"jax-rocm7-plugin",'
                                         b'"versions":["0.9.1","0.9.0"]}\n')
    assert json.loads(staging.write_json(one)) == one


def test_a_tree_writes_pages_at_any_depth_and_many_in_one_folder(tmp_path):
    tree = staging.Tree(tmp_path / "new")
    pages = {"index.html": b"<p>top</p>", "nightly/2026-11-27/jax-rocm7-plugin/index.json": b"{}",
             "nightly/2026-11-27/jax-rocm7-plugin/index.html": b"<p>p</p>", "nightly/index.html": b"n"}
    for rel, data in pages.items():
        tree.write(rel, data)
    assert files_of(tmp_path / "new") == pages


# ---------------------------------------------------------------------------------- the state file


@pytest.mark.parametrize("text, expected", [
    ('{"wheels": {"jax_rocm7_plugin-0.9.1.whl": "sha256:ab"}, "by": "Zoë"}',
     {"wheels": {"jax_rocm7_plugin-0.9.1.whl": "sha256:ab"}, "by": "Zoë"}),
    ("{}", {}),
    ("[1, 2]", {}),  # valid JSON, not a state
    ('"state"', {}),
    ("{not json", {}),
    (b"\xff\xfe{}", {}),
    (None, {}),  # no state file: a first run
])
def test_the_state_of_the_last_run_is_its_object_or_nothing(tmp_path, text, expected):
    if text is not None:
        (tmp_path / staging.STATE_FILE).write_bytes(text if isinstance(text, bytes) else text.encode())
    assert staging.read_state(tmp_path) == expected


def test_the_state_is_read_as_utf_8_whatever_the_locale(tmp_path):
    """A runner whose locale is plain ASCII (the C locale) reads the state the last run wrote as
    UTF-8, not as nothing."""
    import locale
    (tmp_path / staging.STATE_FILE).write_bytes(json.dumps({"by": "Zoë"}, ensure_ascii=False).encode())
    before = locale.setlocale(locale.LC_CTYPE)
    locale.setlocale(locale.LC_CTYPE, "C")
    try:
        assert staging.read_state(tmp_path) == {"by": "Zoë"}
    finally:
        locale.setlocale(locale.LC_CTYPE, before)


# ---------------------------------------------------------------------------------- --out itself


def test_out_as_a_link_is_refused_naming_where_it_points(tmp_path):
    for target in (tmp_path / "real", tmp_path / "gone"):
        link = tmp_path / f"to-{target.name}"
        if target.name == "real":
            target.mkdir()
        link.symlink_to(target)
        with pytest.raises(UserError) as err:
            staging.check_site(link)
        assert str(err.value) == (f"--out {link}: is a symbolic link (to {target}); expected a real "
                                  "directory: pass the directory it points to")


# ---------------------------------------------------------------------------------- unchanged bytes


def _same(tmp_path: Path, a: dict[str, bytes], b: dict[str, bytes]) -> bool:
    return staging._same_tree(lay_out(tmp_path / "a", a), lay_out(tmp_path / "b", b))


@pytest.mark.parametrize("names", [("index.html",), ("a/index.json", "b/index.json", "index.html")])
def test_two_trees_are_the_same_only_with_the_same_names_and_bytes(tmp_path, names):
    files = {n: f"<p>{n}</p>".encode() for n in names}
    assert _same(tmp_path / "equal", files, dict(files))
    assert not _same(tmp_path / "one-more", files, {**files, "extra/index.html": b""})
    assert not _same(tmp_path / "one-less", {**files, "extra/index.html": b""}, files)
    for n in names:  # the same size, other bytes; then another size
        assert not _same(tmp_path / f"bytes-{n}", files, {**files, n: files[n].upper()})
        assert not _same(tmp_path / f"size-{n}", files, {**files, n: files[n] + b"\n"})


def test_same_size_and_time_but_other_bytes_is_another_tree(tmp_path):
    """The bytes are compared, not the size and mtime (a page rewritten within the same second
    by a run whose clock did not move)."""
    a = lay_out(tmp_path / "a", {"index.html": b"<p>0.9.1</p>"})
    b = lay_out(tmp_path / "b", {"index.html": b"<p>0.9.2</p>"})
    os.utime(b / "index.html", ns=(os.stat(a / "index.html").st_mtime_ns,) * 2)
    assert not staging._same_tree(a, b)


@pytest.mark.parametrize("differing", ["a.whl", "m.whl", "z.whl"])
def test_a_file_both_trees_share_says_nothing_of_the_others(tmp_path, differing):
    """One inode in both trees (a hard link) is equal without reading it; every other file is
    still compared."""
    names = ["a.whl", "f.whl", "m.whl", "q.whl", "z.whl"]
    a = lay_out(tmp_path / "a", {n: n.encode() for n in names})
    b = tmp_path / "b"
    b.mkdir()
    for n in names:
        if n == differing:
            (b / n).write_bytes(n.upper().encode())
        else:
            os.link(a / n, b / n)
    assert not staging._same_tree(a, b, set(names))
    (b / differing).unlink()
    os.link(a / differing, b / differing)
    assert staging._same_tree(a, b, set(names))


@pytest.mark.parametrize("linked_side", ["a", "b", "both"])
def test_a_tree_holding_a_link_is_never_the_same(tmp_path, linked_side):
    """This tool writes no link: a link with the very bytes of the page it replaces still differs."""
    elsewhere = lay_out(tmp_path / "elsewhere", {"index.html": b"<p>x</p>"})
    trees = {}
    for side in ("a", "b"):
        trees[side] = tmp_path / side
        trees[side].mkdir()
        if linked_side in (side, "both"):
            (trees[side] / "index.html").symlink_to(elsewhere / "index.html")
        else:
            (trees[side] / "index.html").write_bytes(b"<p>x</p>")
    assert not staging._same_tree(trees["a"], trees["b"])


# ---------------------------------------------------------------------------------- the swap


def test_the_exchange_swaps_two_directories_whole(tmp_path):
    a = lay_out(tmp_path / "a", {"index.html": b"new"})
    b = lay_out(tmp_path / "b", {"index.html": b"old", "gone.html": b""})
    assert staging._exchange(a, b) is True  # Linux has renameat2
    assert files_of(a) == {"index.html": b"old", "gone.html": b""} and files_of(b) == {"index.html": b"new"}
    assert staging._exchange(a, tmp_path / "absent") is False  # nothing to exchange with: the caller falls back
    assert files_of(a) == {"index.html": b"old", "gone.html": b""}


def test_without_renameat2_the_exchange_says_so(tmp_path, monkeypatch):
    import ctypes

    def no_libc(*args, **kwargs):
        raise OSError("no C library")
    monkeypatch.setattr(ctypes, "CDLL", no_libc)
    a, b = lay_out(tmp_path / "a", {"x": b"1"}), lay_out(tmp_path / "b", {"x": b"2"})
    assert staging._exchange(a, b) is False
    assert files_of(a) == {"x": b"1"}


def _run(site: Path, pages: dict[str, bytes], **kwargs) -> bool:
    with Staging(site, **kwargs) as stage:
        tree = stage.begin()
        for rel, data in pages.items():
            tree.write(rel, data)
        return stage.commit()


@pytest.mark.parametrize("exchange", ["renameat2", "two renames"])
def test_commit_puts_the_new_site_in_place_and_leaves_nothing_beside_it(tmp_path, monkeypatch, exchange):
    if exchange == "two renames":
        monkeypatch.setattr(staging, "_exchange", lambda a, b: False)
    site = tmp_path / "deep" / "er" / "site"  # its parents are made
    first = {"index.html": b"1", "nightly/index.html": b"n1"}
    second = {"index.html": b"2", "stable/index.html": b"s2"}
    assert _run(site, first) is True and files_of(site) == first and no_leftovers(site)
    assert _run(site, first) is False and files_of(site) == first and no_leftovers(site)  # nothing to swap
    assert _run(site, second) is True and files_of(site) == second and no_leftovers(site)
    assert _run(site, first) is True and files_of(site) == first and no_leftovers(site)


def _open_descriptors() -> set[str]:
    return set(os.listdir("/proc/self/fd"))


@pytest.mark.parametrize("ending", ["swapped", "unchanged", "failed"])
def test_a_run_holds_no_descriptor_of_its_tree_once_it_is_swapped_in_or_dropped(tmp_path, ending):
    """A tree creates its files through its folders' descriptors; whether the run's tree goes in,
    equals the site, or the run fails, none is left open (a long process writes many sites)."""
    site = tmp_path / "site"
    pages = {"index.html": b"1", "nightly/a/index.html": b"a", "nightly/b/index.json": b"b", "stable/index.html": b"s"}
    if ending == "unchanged":
        _run(site, pages)
    before = _open_descriptors()
    with pytest.raises(RuntimeError) if ending == "failed" else contextlib.nullcontext(), Staging(site) as stage:
        tree = stage.begin()
        for rel, data in pages.items():
            tree.write(rel, data)
        assert len(_open_descriptors() - before) >= 4  # the tree's folders (and the lock)
        if ending == "failed":
            raise RuntimeError("a wheel could not be read")
        assert stage.commit() is (ending == "swapped")
    assert _open_descriptors() <= before, _open_descriptors() - before
    if ending != "failed":
        assert files_of(site) == pages


def test_a_trees_folders_are_its_own_alone_and_never_reached_through_a_link(tmp_path):
    """The folders' descriptors are not inherited by a program the run starts (close-on-exec),
    and a folder that is a link (the tree makes its folders: anybody else put it there) is
    refused, for a file and for a hard link alike: nothing is written where it points."""
    import fcntl
    outside, new = tmp_path / "outside", tmp_path / "new"
    outside.mkdir()
    new.mkdir()
    (new / "nightly").symlink_to(outside)
    def live() -> set[int]:  # open descriptors, but the listing's own (closed once listed)
        def is_open(fd: int) -> bool:
            with contextlib.suppress(OSError):
                return os.fstat(fd) is not None
            return False
        return {int(fd) for fd in _open_descriptors() if is_open(int(fd))}
    before = live()
    tree = staging.Tree(new)
    try:
        tree.write("index.html", b"1")
        tree.write("stable/a/index.html", b"a")
        tree.write("stable/a/index.json", b"{}")  # a folder's second file: its descriptor again
        opened = live() - before
        assert len(opened) == 2  # the folders of its files: its root and stable/a
        assert all(fcntl.fcntl(fd, fcntl.F_GETFD) & fcntl.FD_CLOEXEC for fd in opened)
        with pytest.raises(OSError):
            tree.write("nightly/index.html", b"x")
        assert tree.link("nightly/a.whl", new / "index.html") is False
        assert list(outside.iterdir()) == [] and (new / "stable" / "a" / "index.html").read_bytes() == b"a"
    finally:
        tree.close()
    assert live() <= before


def test_a_tree_links_an_old_sites_plain_file_where_it_is_asked_and_nothing_else(tmp_path, monkeypatch):
    """A hard link of the old site's plain file (the same inode: no byte read or written) at its
    place in the tree, folders made as for a file; a link, a folder or a missing file is not
    linked (False: the caller writes the bytes)."""
    old, new = tmp_path / "old", tmp_path / "new"
    old.mkdir()
    new.mkdir()
    (old / "a.whl").write_bytes(b"wheel")
    (old / "sub").mkdir()
    (old / "to-a").symlink_to(old / "a.whl")
    monkeypatch.chdir(tmp_path)  # a name linked outside the tree would land here
    tree = staging.Tree(new)
    try:
        assert tree.link("nightly/jax/a.whl", old / "a.whl") is True
        assert tree.link("b.whl", old / "a.whl") is True
        for src in (old / "to-a", old / "sub", old / "gone.whl"):
            assert tree.link("nightly/jax/c.whl", src) is False
    finally:
        tree.close()
    assert os.stat(new / "nightly" / "jax" / "a.whl").st_ino == os.stat(new / "b.whl").st_ino == os.stat(
        old / "a.whl").st_ino
    assert sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*") if p.is_file() or p.is_symlink()) == [
        "new/b.whl", "new/nightly/jax/a.whl", "old/a.whl", "old/to-a"]


def test_a_run_that_fails_before_its_tree_is_begun_raises_its_own_error(tmp_path):
    """Nothing to let go of: the run's error is what comes out, and the site is as it was."""
    site = tmp_path / "site"
    _run(site, {"index.html": b"1"})
    with pytest.raises(RuntimeError, match="^the store could not be read$"), Staging(site):
        raise RuntimeError("the store could not be read")
    assert files_of(site) == {"index.html": b"1"} and no_leftovers(site)


def test_a_failed_run_leaves_the_site_as_it_was_and_no_staging(tmp_path):
    site = tmp_path / "site"
    _run(site, {"index.html": b"1"})
    with pytest.raises(RuntimeError), Staging(site) as stage:
        stage.begin().write("index.html", b"half")
        raise RuntimeError("a wheel could not be read")
    assert files_of(site) == {"index.html": b"1"} and no_leftovers(site)


@pytest.mark.parametrize("became", ["link", "file"])
def test_a_site_replaced_while_the_index_was_written_is_refused_and_kept(tmp_path, became):
    site, theirs = tmp_path / "site", lay_out(tmp_path / "theirs", {"notes.txt": b"keep"})
    _run(site, {"index.html": b"1"})
    with pytest.raises(UserError) as err, Staging(site) as stage:
        stage.begin().write("index.html", b"2")
        import shutil
        shutil.rmtree(site)
        if became == "link":
            site.symlink_to(theirs)
        else:
            site.write_bytes(b"someone's")
        stage.commit()
    what = f"a symbolic link (to {theirs})" if became == "link" else "not a directory"
    assert str(err.value) == (f"--out {site}: became {what} while the index was written; expected the "
                              "site's real directory (nothing was changed)")
    assert files_of(theirs) == {"notes.txt": b"keep"} and no_leftovers(site)
    assert site.is_symlink() if became == "link" else site.read_bytes() == b"someone's"


# ---------------------------------------------------------------------------------- a crashed swap


def test_a_crash_after_the_site_was_moved_aside_is_finished_by_the_next_run(tmp_path):
    """The fallback renamed SITE to .SITE.old and died before the new one went in: the next run
    puts the old site back first (it is what users were served)."""
    site, old = tmp_path / "site", tmp_path / ".site.old"
    lay_out(old, {"index.html": b"served"})
    with Staging(site):
        assert files_of(site) == {"index.html": b"served"} and not old.exists()


def test_a_crash_after_the_new_site_went_in_drops_the_old_one(tmp_path):
    site, old = tmp_path / "site", tmp_path / ".site.old"
    lay_out(site, {"index.html": b"new"})
    lay_out(old, {"index.html": b"old"})
    with Staging(site):
        assert files_of(site) == {"index.html": b"new"} and not old.exists()


@pytest.mark.parametrize("site_there", [False, True])
def test_an_old_site_that_is_a_file_or_link_is_removed_not_moved_in(tmp_path, site_there):
    site, old = tmp_path / "site", tmp_path / ".site.old"
    theirs = lay_out(tmp_path / "theirs", {"notes.txt": b"keep"})
    if site_there:
        lay_out(site, {"index.html": b"mine"})
    for planted in ("file", "link"):
        if planted == "file":
            old.write_bytes(b"x")
        else:
            old.symlink_to(theirs)
        with Staging(site):
            assert not os.path.lexists(old)
            assert files_of(site) == {"index.html": b"mine"} if site_there else not os.path.lexists(site)
    assert files_of(theirs) == {"notes.txt": b"keep"}


# ---------------------------------------------------------------------------------- one writer


@contextlib.contextmanager
def held_elsewhere(take: Callable[[], ContextManager], let_go_after: float = 10.0) -> Iterator[None]:
    """The lock ``take()`` holds, held by another thread while the block runs and let go after
    ``let_go_after`` seconds at the latest: a writer that waits past its own ``lock_timeout`` (or
    forever) then gets the lock and its test fails, where it would otherwise hang."""
    taken, done = threading.Event(), threading.Event()

    def hold() -> None:
        with take():
            taken.set()
            done.wait(let_go_after)

    holder = threading.Thread(target=hold, daemon=True)
    holder.start()
    try:
        assert taken.wait(let_go_after), "the other holder never took the lock"
        yield
    finally:
        done.set()
        holder.join()


def test_a_second_writer_gives_up_after_its_wait_in_one_line(tmp_path):
    """The lock is ``.SITE.lock`` beside SITE (where an older release takes it too)."""
    site = tmp_path / "site"
    with held_elsewhere(lambda: held(tmp_path / ".site.lock")):
        with pytest.raises(UserError) as err, Staging(site, lock_timeout=0.2):
            pass
    assert str(err.value) == (f"{site}: another `release index` is still writing it (waited 0 s for "
                              f"{tmp_path / '.site.lock'}); try again later")
    assert _run(site, {"index.html": b"1"}) is True  # the lock is free again


@pytest.mark.parametrize("timeouts", [(600, 0), (0, 0), (0.2, 0.1)])
def test_two_writers_of_one_site_exclude_each_other_whatever_their_waits(tmp_path, timeouts):
    """The lock is exclusive, not shared, also when each side waits only a while."""
    site = tmp_path / "site"
    first, second = timeouts
    with held_elsewhere(lambda: Staging(site, lock_timeout=first)), pytest.raises(UserError, match="still writing it"):
        with Staging(site, lock_timeout=second):
            pass
    with Staging(site, lock_timeout=second):  # and free again once the first is done
        pass


def test_the_lock_waits_ten_minutes_by_default(tmp_path):
    assert Staging(tmp_path / "site").lock_timeout == 600


def test_a_lock_that_cannot_be_taken_is_one_line_and_changes_nothing(tmp_path):
    """A lock path that is a directory (or unwritable): one line naming it, nothing written."""
    site = tmp_path / "site"
    (tmp_path / ".site.lock").mkdir()
    with pytest.raises(UserError) as err, Staging(site, lock_timeout=0.2):
        pass
    assert str(err.value) == (f"{site}: cannot take the lock {tmp_path / '.site.lock'} (a directory); "
                              "nothing was changed")
    assert not site.exists()


def test_a_link_where_the_lock_goes_is_removed_and_its_target_kept(tmp_path):
    site, theirs = tmp_path / "site", lay_out(tmp_path / "theirs", {"notes.txt": b"keep"})
    (tmp_path / ".site.lock").symlink_to(theirs / "notes.txt")
    assert _run(site, {"index.html": b"1"}) is True
    assert not (tmp_path / ".site.lock").is_symlink() and files_of(theirs) == {"notes.txt": b"keep"}


def test_a_failed_recovery_releases_the_lock(tmp_path, monkeypatch):
    site = tmp_path / "site"

    def broken(self):
        raise OSError("disk gone")
    monkeypatch.setattr(Staging, "recover", broken)
    with pytest.raises(OSError), Staging(site):
        pass
    monkeypatch.undo()
    assert _run(site, {"index.html": b"1"}, lock_timeout=0.2) is True


def test_a_file_written_again_holds_only_its_new_bytes(tmp_path):
    """The second write of a path replaces the first whole, also when shorter (no tail of the old)."""
    tree = staging.Tree(tmp_path / "new")
    tree.write("nightly/jax/index.json", b'{"files":["a","b","c"]}\n')
    tree.write("nightly/jax/index.json", b"{}\n")
    big = bytes(range(256)) * 40_000  # 10 MB: more than one write() may take
    tree.write("nightly/jax/index.html", big)
    assert files_of(tmp_path / "new") == {"nightly/jax/index.json": b"{}\n", "nightly/jax/index.html": big}


def test_a_written_file_has_the_mode_the_umask_gives_any_new_file(tmp_path):
    """A static host reading as another user serves the pages: a page is as readable as any file
    the user creates (0o666 less the umask), never private to the writer."""
    old = os.umask(0o022)
    try:
        tree = staging.Tree(tmp_path / "new")
        tree.write("stable/jax/index.html", b"<p>p</p>")
        (tmp_path / "plain").write_bytes(b"x")
    finally:
        os.umask(old)
    made = (tmp_path / "new" / "stable" / "jax" / "index.html").stat().st_mode & 0o777
    assert made == (tmp_path / "plain").stat().st_mode & 0o777 == 0o644


def test_a_link_where_a_file_goes_is_never_written_through(tmp_path):
    """The staging tree is this run's own; a link in it (someone else's) is refused, and what it
    points to keeps its bytes."""
    tree = staging.Tree(tmp_path / "new")
    tree.write("nightly/jax/index.html", b"one")
    target = tmp_path / "elsewhere"
    target.write_bytes(b"keep")
    (tmp_path / "new" / "nightly" / "jax" / "index.json").symlink_to(target)
    with pytest.raises(OSError):
        tree.write("nightly/jax/index.json", b"{}")
    assert target.read_bytes() == b"keep"


@pytest.mark.parametrize("page", ["index.html", "nightly/p/index.html", "stable/p/index.html"])
def test_the_files_the_writer_linked_are_not_read_when_both_trees_list_their_inode(tmp_path, monkeypatch, page):
    """A re-run hard-links each provenance file from the old site: the swap's comparison takes
    them as equal from the folders' listings (no file read, no stat a file); a page it wrote is
    still compared byte for byte."""
    names = ["nightly/p/a.whl.provenance", "nightly/q/b.whl.provenance", "stable/p/a.whl.provenance"]
    old = lay_out(tmp_path / "old", {**{n: n.encode() for n in names}, page: b"<p>1</p>"})
    for text in (b"<p>1</p>", b"<p>2</p>"):
        new = tmp_path / f"new-{text[3:4].decode()}"
        tree = staging.Tree(new)
        for n in names:
            assert tree.link(n, old / n)
        tree.write(page, text)
        tree.close()
        read: list[str] = []
        cmp = staging.filecmp.cmp

        def counted(a, b, shallow=True, read=read, cmp=cmp):
            read.append(os.path.relpath(a, old))
            return cmp(a, b, shallow)
        monkeypatch.setattr(staging.filecmp, "cmp", counted)
        assert staging._same_tree(old, new, tree.linked) is (text == b"<p>1</p>")
        assert read == [page]
        monkeypatch.undo()


@pytest.mark.parametrize("replaced", ["nightly/p/a.whl.provenance", "stable/p/a.whl.provenance"])
def test_a_linked_file_the_old_tree_no_longer_holds_is_compared(tmp_path, replaced):
    """Linked names are a hint, not a verdict: a file of the old tree replaced after the link (another
    inode) is read, and other bytes make another tree."""
    names = ["nightly/p/a.whl.provenance", "stable/p/a.whl.provenance"]
    old = lay_out(tmp_path / "old", {n: n.encode() for n in names})
    tree = staging.Tree(tmp_path / "new")
    for n in names:
        assert tree.link(n, old / n)
    tree.close()
    (old / replaced).unlink()
    (old / replaced).write_bytes(replaced.encode())  # the same bytes, another inode: still the same tree
    assert staging._same_tree(old, tmp_path / "new", tree.linked)
    (old / replaced).unlink()
    (old / replaced).write_bytes(replaced.upper().encode())
    assert not staging._same_tree(old, tmp_path / "new", tree.linked)


@pytest.mark.parametrize("where", ["nightly/jax"])
def test_a_file_is_not_linked_through_an_old_folder_become_a_link(tmp_path, where):
    """The old site's folder the file is listed in must be a real one: a link put in its place
    (to someone's files) is not followed, and the caller writes the bytes instead."""
    old, new, elsewhere = tmp_path / "old", tmp_path / "new", tmp_path / "elsewhere"
    lay_out(elsewhere, {"jax/a.whl.provenance": b"theirs", "a.whl.provenance": b"theirs"})
    lay_out(old, {"stable/jax/a.whl.provenance": b"ours"})
    (old / where).parent.mkdir(parents=True, exist_ok=True)
    (old / where).symlink_to(elsewhere / ("." if where == "nightly" else "jax"))
    new.mkdir()
    tree = staging.Tree(new)
    try:
        assert tree.link("nightly/jax/a.whl.provenance", old / "nightly" / "jax" / "a.whl.provenance") is False
        assert tree.link("stable/jax/a.whl.provenance", old / "stable" / "jax" / "a.whl.provenance") is True
    finally:
        tree.close()
    assert files_of(new) == {"stable/jax/a.whl.provenance": b"ours"} and tree.linked == {"stable/jax/a.whl.provenance"}


def test_a_tree_opens_each_old_folder_once_and_keeps_no_descriptor(tmp_path):
    """Files linked from one old folder share its descriptor (one a folder, not one a file: a year
    of nightlies links 2,855), and closing the tree lets go of every one."""
    names = [f"nightly/jax/{n}.whl.provenance" for n in "abcde"]
    old = lay_out(tmp_path / "old", {n: n.encode() for n in names})
    before = set(os.listdir("/proc/self/fd"))
    tree = staging.Tree(tmp_path / "new")
    for n in names:
        assert tree.link(n, old / n)
    opened = set(os.listdir("/proc/self/fd")) - before
    assert len(opened) == 2  # the old folder and the new one
    tree.close()
    assert set(os.listdir("/proc/self/fd")) <= before
