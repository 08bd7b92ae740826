"""A site directory written whole: staged beside it, swapped in atomically, one writer at a time.

``release index`` builds the new site in ``.SITE.new`` and exchanges it with SITE in one
``renameat2`` (or two renames whose crash in between the next run finishes), so SITE is always
either the old or the new site; a run whose bytes equal the old site's swaps nothing. SITE must
be new, empty, or a directory this tool wrote (``STATE_FILE`` marks one): never someone's files.

No symbolic link is ever followed or left: SITE is checked again (``lstat``) just before the
swap, so one put in its place mid-run is refused (one line, nothing changed), and a link found
where ``.SITE.new``, ``.SITE.old`` or ``.SITE.lock`` go (a swap an older version followed, or
a hostile neighbour) is removed itself, never what it points to.
"""

from __future__ import annotations

import contextlib
import filecmp
import json
import os
import shutil
import stat
import weakref
from collections.abc import Collection
from pathlib import Path
from types import TracebackType

from release.core import file_lock
from release.core.errors import UserError

STATE_FILE = ".index-state.json"  # also marks a directory as one this tool wrote
PAGE_FILES = ("index.html", "index.json")
CHANNELS = ("nightly", "stable")
_WRITE = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC


def write_json(data: dict) -> bytes:
    """Compact, keys sorted: without ``indent`` json runs its C encoder (indented, its Python one
    took a tenth of a run over a year of nightlies)."""
    return (json.dumps(data, sort_keys=True, separators=(",", ":")) + "\n").encode()


class Tree:
    """A site being written in a staging directory. Its files are created through a descriptor of
    their folder, held from the folder's first file to ``close`` (the kernel resolves one name,
    not the whole path again: a run from empty creates thousands in a few dozen folders)."""

    def __init__(self, root: Path):
        self.root = root
        self._folders: dict[str, int] = {}  # rel folder -> its descriptor, made and opened once a run
        self.linked: set[str] = set()  # files hard-linked in (the swap's comparison reads none of them)
        self._sources: dict[str, int] = {}  # folder of files linked in -> its descriptor
        self._finalizer = weakref.finalize(self, _close_all, self._folders, self._sources)

    def _folder(self, rel_folder: str) -> int:
        """The descriptor of ``rel_folder`` in the tree (made, if need be, and opened once)."""
        fd = self._folders.get(rel_folder)
        if fd is None:
            path = os.path.join(self.root, rel_folder) if rel_folder else os.fspath(self.root)
            os.makedirs(path, exist_ok=True)
            fd = self._folders[rel_folder] = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
        return fd

    def write(self, rel: str, data: bytes) -> None:
        """``data`` at ``rel``: one ``open`` in its folder, the writes, one ``close`` (a file object
        costs three more syscalls and pathlib a ``mkdir`` a file; a run from empty writes thousands)."""
        folder, _, name = rel.rpartition("/")
        fd = os.open(name, _WRITE, 0o666, dir_fd=self._folder(folder))
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
        finally:
            os.close(fd)

    def link(self, rel: str, src: str | os.PathLike[str]) -> bool:
        """Put the old site's file ``src`` at ``rel`` as a hard link (no bytes read or written,
        and the swap's comparison skips it); False when ``src`` is not a plain file we can link.
        Through a descriptor of ``src``'s folder, opened once a run like the tree's own (a re-run
        links thousands: a whole path resolved twice a file was most of their cost)."""
        folder, _, name = rel.rpartition("/")
        src_folder, src_name = os.path.split(os.fspath(src))
        try:
            fd = self._sources.get(src_folder)
            if fd is None:
                flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
                fd = self._sources[src_folder] = os.open(src_folder or os.curdir, flags)
            if not stat.S_ISREG(os.stat(src_name, dir_fd=fd, follow_symlinks=False).st_mode):
                return False
            os.link(src_name, name, src_dir_fd=fd, dst_dir_fd=self._folder(folder), follow_symlinks=False)
        except OSError:
            return False
        self.linked.add(rel)
        return True

    def close(self) -> None:
        """Let go of the folders' descriptors (the tree is swapped in or dropped whole next)."""
        self._finalizer()


def _close_all(*held: dict[str, int]) -> None:
    for folders in held:
        for fd in folders.values():
            os.close(fd)
        folders.clear()


def read_state(site: Path) -> dict:
    """The state the last run kept in SITE (``{}`` when there is none or it is unreadable)."""
    try:
        data = json.loads((site / STATE_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _is_legacy_project_dir(path: Path) -> bool:
    return path.is_dir() and all(p.is_file() and (p.suffix in (".whl", ".metadata") or p.name in PAGE_FILES)
                                 for p in path.iterdir())


def check_site(site: Path) -> None:
    """SITE must be new, empty, or a site this tool wrote (never someone's directory)."""
    if site.is_symlink():  # the new site is swapped in by rename: the link would become a directory
        raise UserError(f"--out {site}: is a symbolic link (to {os.readlink(site)}); expected a real "
                        "directory: pass the directory it points to")
    if site.exists() and not site.is_dir():
        raise UserError(f"--out {site}: is a file; expected a directory for the site")
    if not site.exists():
        return
    if (site / STATE_FILE).is_file():
        return
    for child in site.iterdir():
        if child.name in PAGE_FILES or child.name in CHANNELS or _is_legacy_project_dir(child):
            continue
        raise UserError(f"--out {site}: holds {child.name}, which this tool did not write; "
                        "expected an empty directory or a site written by `release index`")


def remove(path: Path) -> None:
    """Remove ``path`` without following it: a link or file is unlinked, a directory removed
    whole (``shutil.rmtree`` never descends into a link inside it); nothing there is fine."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return
    if stat.S_ISDIR(mode):
        shutil.rmtree(path)
    else:
        os.unlink(path)


def _real_directory(path: Path) -> bool | None:
    """True for a directory (never a link to one), False for anything else, None when absent."""
    try:
        return stat.S_ISDIR(os.lstat(path).st_mode)
    except FileNotFoundError:
        return None


def _files(root: Path) -> dict[str, int] | None:
    """Every file under ``root`` by relative path with its inode number as its folder lists it
    (no ``stat`` a file: a year of nightlies is thousands, listed at every run); None when a link
    is there (this tool writes no link: a tree holding one is not the one it wrote). ``os.scandir``,
    not pathlib."""
    found: dict[str, int] = {}
    pending = [""]
    while pending:
        rel = pending.pop()
        with os.scandir(os.path.join(root, rel)) as entries:
            for entry in entries:
                path = f"{rel}/{entry.name}" if rel else entry.name
                if entry.is_symlink():
                    return None
                if entry.is_dir(follow_symlinks=False):
                    pending.append(path)
                else:
                    found[path] = entry.inode()
    return found


def _same_tree(a: Path, b: Path, linked: Collection[str] = ()) -> bool:
    """Whether ``a`` and ``b`` hold the same names with the same bytes. A file of ``linked`` (one
    ``b``'s writer hard-linked from ``a``'s file of the same name) whose folders list it with the
    same inode is equal unread; every other file is compared byte for byte (its size first)."""
    fa, fb = _files(a), _files(b)
    if fa is None or fb is None or fa.keys() != fb.keys():
        return False
    for rel, ino in fa.items():
        if rel in linked and fb[rel] == ino:
            continue
        if not filecmp.cmp(a / rel, b / rel, shallow=False):
            return False
    return True


_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


def _exchange(a: Path, b: Path) -> bool:
    """Swap two directories atomically (Linux renameat2); False when the system cannot."""
    import ctypes  # here: a run that swaps nothing (or into an empty place) never loads it

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        fn = libc.renameat2
    except (OSError, AttributeError):
        return False
    fn.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    if fn(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    return False


class Staging:
    """``.SITE.new`` beside SITE, swapped in whole; leftovers of a crashed run are cleared.

    Used as a context manager it holds ``.SITE.lock`` (one writer at a time; a second run
    waits up to ``lock_timeout`` seconds) and drops the new tree when the block fails.
    """

    def __init__(self, site: Path, lock_timeout: float = 600):
        self.site = Path(site).absolute()
        self.new = self.site.with_name(f".{self.site.name}.new")
        self.old = self.site.with_name(f".{self.site.name}.old")
        self.lock = self.site.with_name(f".{self.site.name}.lock")
        self.lock_timeout = lock_timeout
        self._held = contextlib.ExitStack()  # the lock while the block runs
        self._tree: Tree | None = None

    def __enter__(self) -> Staging:
        self.site.parent.mkdir(parents=True, exist_ok=True)
        if self.lock.is_symlink():  # never ours (the lock is a plain file): the lock would refuse it
            os.unlink(self.lock)
        try:
            self._held.enter_context(file_lock.held(self.lock, timeout=self.lock_timeout))
        except file_lock.Busy:
            raise UserError(f"{self.site}: another `release index` is still writing it (waited "
                            f"{self.lock_timeout:.0f} s for {self.lock}); try again later") from None
        except file_lock.Refused as exc:
            raise UserError(f"{self.site}: cannot take the lock {self.lock} ({exc.why}); "
                            "nothing was changed") from None
        try:
            self.recover()
        except BaseException:
            self._held.close()
            raise
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        try:
            if kind is not None:
                self.discard()
        finally:
            self._held.close()

    def recover(self) -> None:
        """Finish what a crash between the two renames of the fallback swap left; a link where
        a staging directory goes is removed, never followed, and never becomes SITE."""
        old = _real_directory(self.old)
        if old is None:
            return
        if old and _real_directory(self.site) is None:
            os.replace(self.old, self.site)
        else:
            remove(self.old)

    def begin(self) -> Tree:
        self.recover()
        remove(self.new)
        self.new.mkdir(parents=True)
        self._tree = Tree(self.new)
        return self._tree

    def _done(self) -> None:
        if self._tree is not None:
            self._tree.close()

    def discard(self) -> None:
        self._done()
        try:
            remove(self.new)
        except OSError:
            pass  # the next run's begin() removes it

    def _check_site(self) -> bool:
        """Whether SITE exists, checked again just before the swap: a link or file put in its
        place while the index was written is refused, so the swap never follows or replaces it."""
        real = _real_directory(self.site)
        if real is False:
            what = (f"a symbolic link (to {os.readlink(self.site)})" if self.site.is_symlink()
                    else "not a directory")
            raise UserError(f"--out {self.site}: became {what} while the index was written; expected "
                            "the site's real directory (nothing was changed)")
        return bool(real)

    def commit(self) -> bool:
        """Swap the new tree in; False (and the new tree dropped) when it equals the old one."""
        self._done()
        exists = self._check_site()
        if exists and _same_tree(self.site, self.new, self._tree.linked if self._tree else ()):
            self.discard()
            return False
        if not exists:
            os.replace(self.new, self.site)
        elif _exchange(self.new, self.site):
            remove(self.new)  # the old site (a link swapped in after the check: the link alone)
        else:
            os.replace(self.site, self.old)
            os.replace(self.new, self.site)
            remove(self.old)
        return True
