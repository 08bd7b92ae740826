"""A site directory written whole: staged beside it, swapped in atomically, one writer at a time.

``release index`` builds the new site in ``.SITE.new`` and exchanges it with SITE in one
``renameat2`` (or two renames whose crash in between the next run finishes), so SITE is always
either the old or the new site; a run whose bytes equal the old site's swaps nothing. SITE must
be new, empty, or a directory this tool wrote (``STATE_FILE`` marks one): never someone's files.
"""

from __future__ import annotations

import ctypes
import filecmp
import json
import os
import shutil
from pathlib import Path
from types import TracebackType

from filelock import FileLock, Timeout

from release.core.errors import UserError

STATE_FILE = ".index-state.json"  # also marks a directory as one this tool wrote
PAGE_FILES = ("index.html", "index.json")
CHANNELS = ("nightly", "stable")


def write_json(data: dict) -> bytes:
    return (json.dumps(data, indent=1, sort_keys=True) + "\n").encode()


class Tree:
    """A site being written in a staging directory."""

    def __init__(self, root: Path):
        self.root = root

    def write(self, rel: str, data: bytes) -> None:
        dest = self.root / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes(data)


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


def _same_tree(a: Path, b: Path) -> bool:
    def files(root: Path) -> dict[str, Path]:
        return {str(p.relative_to(root)): p for p in root.rglob("*") if p.is_file() or p.is_symlink()}
    fa, fb = files(a), files(b)
    if fa.keys() != fb.keys():
        return False
    for rel, pa in fa.items():
        pb = fb[rel]
        sa, sb = pa.stat(), pb.stat()
        if (sa.st_dev, sa.st_ino) == (sb.st_dev, sb.st_ino):
            continue
        if sa.st_size != sb.st_size or not filecmp.cmp(pa, pb, shallow=False):
            return False
    return True


_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


def _exchange(a: Path, b: Path) -> bool:
    """Swap two directories atomically (Linux renameat2); False when the system cannot."""
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
        self.lock = FileLock(str(self.site.with_name(f".{self.site.name}.lock")))
        self.lock_timeout = lock_timeout

    def __enter__(self) -> Staging:
        self.site.parent.mkdir(parents=True, exist_ok=True)
        try:
            self.lock.acquire(timeout=self.lock_timeout)
        except Timeout:
            raise UserError(f"{self.site}: another `release index` is still writing it (waited "
                            f"{self.lock_timeout:.0f} s for {self.lock.lock_file}); try again later") from None
        self.recover()
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if kind is not None:
            self.discard()
        self.lock.release()

    def recover(self) -> None:
        """Finish what a crash between the two renames of the fallback swap left."""
        if self.old.exists():
            if self.site.exists():
                shutil.rmtree(self.old)
            else:
                os.replace(self.old, self.site)

    def begin(self) -> Tree:
        self.recover()
        if self.new.exists():
            shutil.rmtree(self.new)
        self.new.mkdir(parents=True)
        return Tree(self.new)

    def discard(self) -> None:
        shutil.rmtree(self.new, ignore_errors=True)

    def commit(self) -> bool:
        """Swap the new tree in; False (and the new tree dropped) when it equals the old one."""
        if self.site.is_dir() and _same_tree(self.site, self.new):
            self.discard()
            return False
        if not self.site.exists():
            os.replace(self.new, self.site)
        elif _exchange(self.new, self.site):
            shutil.rmtree(self.new)
        else:
            os.replace(self.site, self.old)
            os.replace(self.new, self.site)
            shutil.rmtree(self.old)
        return True
