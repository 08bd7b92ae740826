"""The local store's files (``store.json``, ``<id>/release.json``) read as data from outside:
a person or a crash may have changed them, so each is parsed within bounds and its shape
checked before any member is used. A bad one is one ``UserError`` line naming the file and
what was expected, never a traceback.
"""

from __future__ import annotations

import datetime as _dt
import errno
import os
import stat
from pathlib import Path
from typing import Any, BinaryIO

from release.core import bounded, regular
from release.core.errors import UserError

RECORD_LIMIT = regular.DEFAULT_LIMIT  # a record and its release notes are far smaller
_RELEASE_TYPES: dict[str, tuple[type, ...]] = {
    "id": (int,), "tag": (str,), "draft": (bool,), "prerelease": (bool,), "assets": (list,),
}
_RELEASE_OPTIONAL: dict[str, tuple[type, ...]] = {
    "name": (str, type(None)), "body": (str, type(None)), "target": (str, type(None)),
    "created_at": (str, type(None)), "published_at": (str, type(None)), "make_latest": (str, type(None)),
}
_ASSET_TYPES: dict[str, tuple[type, ...]] = {"id": (int,), "name": (str,), "size": (int,)}
_ASSET_OPTIONAL: dict[str, tuple[type, ...]] = {"digest": (str, type(None))}


class BadRecord(UserError):
    """A local store file that is not what the tool writes."""


def _kind(value: object) -> str:
    return "nothing" if value is None else type(value).__name__


def _well_typed(data: dict, required: dict[str, tuple[type, ...]], optional: dict[str, tuple[type, ...]]) -> bool:
    """Every member of its type, no integer below 0: what parsed JSON holds is exactly a dict,
    list, str, int, float, bool or None, so ``type() in`` decides (a bool is no int here)."""
    for key, types in required.items():
        value = data.get(key, _check)  # a function: of no JSON type
        if type(value) not in types or (type(value) is int and value < 0):
            return False
    for key, types in optional.items():
        if key in data:
            value = data[key]
            if type(value) not in types or (type(value) is int and value < 0):
                return False
    return True


def _check(path: Path, what: str, data: Any, required: dict[str, tuple[type, ...]],
           optional: dict[str, tuple[type, ...]]) -> None:
    if isinstance(data, dict) and _well_typed(data, required, optional):
        _check_times(path, what, data)
        return
    if not isinstance(data, dict):
        raise BadRecord(f"{path}: {what} is a JSON {_kind(data)}; expected an object (a tampered "
                        "or broken local store record)")
    for key, types in (*required.items(), *optional.items()):
        if key not in data and key in optional:
            continue
        value = data.get(key)
        bad_bool = isinstance(value, bool) and bool not in types
        if key not in data or not isinstance(value, types) or bad_bool:
            raise BadRecord(f"{path}: {what} has {_kind(value) if key in data else 'no'} {key!r}; "
                            f"expected {' or '.join(t.__name__ for t in types if t is not type(None))}")
        if isinstance(value, int) and not isinstance(value, bool) and value < 0:
            raise BadRecord(f"{path}: {what} has {key!r} {value}; expected 0 or more")
    _check_times(path, what, data)


def _check_times(path: Path, what: str, data: dict) -> None:
    for key in ("created_at", "published_at"):
        if data.get(key) is not None:
            try:
                _dt.datetime.fromisoformat(str(data[key]).replace("Z", "+00:00"))
            except ValueError:
                raise BadRecord(f"{path}: {what} has {key!r} that is not an ISO 8601 time") from None


def read_json(path: Path) -> Any:
    """A store file's JSON, parsed within bounds; unreadable or not JSON is one line."""
    try:
        text = regular.read_text(path, RECORD_LIMIT)
    except regular.NotRegular as exc:
        raise BadRecord(f"{path}: cannot be read (it {exc.reason})") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise BadRecord(f"{path}: cannot be read ({getattr(exc, 'strerror', None) or type(exc).__name__})") from None
    try:
        return bounded.json_loads(text)
    except bounded.Unparseable as exc:
        raise BadRecord(f"{path}: {exc.reason}; expected the JSON the local store writes") from None


def release_record(path: Path) -> dict:
    """``<id>/release.json``: an object with the members the store reads, each of its type."""
    data = read_json(path)
    _check(path, "the release record", data, _RELEASE_TYPES, _RELEASE_OPTIONAL)
    if str(data["id"]) != path.parent.name:
        raise BadRecord(f"{path}: the release record has id {data['id']}; expected {path.parent.name}, "
                        "its directory's name")
    for asset in data["assets"]:
        if not _plain_asset(asset):
            _check(path, "an asset record", asset, _ASSET_TYPES, _ASSET_OPTIONAL)
    return data


def _plain_asset(asset: Any) -> bool:
    """An asset record as the store writes it (``id``, ``name``, ``size``, ``digest`` of their
    types, no time), which ``_check`` passes, said in one expression: a season has 12,000 of
    them; any other record takes ``_check``, which passes it or says what is wrong."""
    return (type(asset) is dict and type(asset.get("id")) is int and asset["id"] >= 0
            and type(asset.get("name")) is str and type(asset.get("size")) is int and asset["size"] >= 0
            and type(asset.get("digest")) in _DIGEST_TYPES and "created_at" not in asset
            and "published_at" not in asset)


_DIGEST_TYPES = (str, type(None))


def state_record(path: Path) -> dict:
    """``store.json``: ``next_id`` (a positive integer) and ``burned_tags`` (a list of tags)."""
    data = read_json(path)
    _check(path, "the store state", data, {"next_id": (int,), "burned_tags": (list,)}, {})
    if data["next_id"] < 1 or not all(isinstance(t, str) for t in data["burned_tags"]):
        raise BadRecord(f"{path}: the store state is not one the tool writes (next_id 1 or more, "
                        "burned_tags a list of tags)")
    return data


def not_linked(folder: Path, where: str) -> None:
    """A release directory is never a symbolic link: reading or deleting through one reaches
    files outside the store, so the store is refused (one line) until a person looks."""
    if folder.name.isdigit() and folder.is_symlink():
        raise BadRecord(f"{where}: release directory {folder.name} is a symbolic link (to "
                        f"{os.readlink(folder)}); expected a directory this tool wrote (nothing was "
                        "read or deleted: remove the link, or move the directory in)")


def remove_link(path: Path) -> None:
    """Unlink ``path`` when it is a symbolic link (a lock or leftover name this tool owns, which
    it never makes a link): the link alone goes, never what it points to."""
    if path.is_symlink():
        path.unlink()


def open_assets(directory: Path, release_id: int) -> int | None:
    """A descriptor of a release's ``assets`` directory, opened without following a link (so what
    is opened through it is in the store, not where a link swapped in later points), or None
    when it cannot be opened so (a link, no directory, missing): the per-file checks of
    ``_asset_fd`` then say why. The index reads or vouches for every wheel of a release through
    one: a name resolved in its directory, not a whole path and a link check per file."""
    try:
        return os.open(os.path.join(directory, str(release_id), "assets"),
                       os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    except OSError:
        return None


def regular_names(folder: int) -> frozenset[str]:
    """The names in an ``open_assets`` directory that are regular files: one scan, each entry's
    type as the directory gives it, links not followed (a link, a FIFO, a directory is left out)."""
    with os.scandir(folder) as entries:
        return frozenset(e.name for e in entries if e.is_file(follow_symlinks=False))


def _asset_fd(directory: Path, release_id: int, name: str, where: str, folder: int | None = None) -> int:
    """A descriptor of an asset's file, for reading, never through a link: neither its
    ``assets`` directory nor the file may be one (the release directory is ``not_linked``), and
    it must be a regular file; else one line naming it. ``name`` is a plain file name.
    ``folder``: the ``open_assets`` descriptor of its directory, opened through; a failure other
    than a link there is taken again by path, so it reads as it always did."""
    from release.core.safe_names import plain_file_name
    plain_file_name(name, where)
    if folder is not None:
        try:
            fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=folder)
        except OSError as exc:
            if exc.errno != errno.ELOOP:
                return _asset_fd(directory, release_id, name, where)
            raise BadRecord(f"{where}: asset {name} of release {release_id} is a symbolic link (to "
                            f"{os.readlink(name, dir_fd=folder)}); expected a file this tool wrote "
                            "(nothing was read)") from None
        return _regular(fd, release_id, name, where)
    # strings, not Paths: the index opens every wheel of a season here
    path = os.path.join(directory, str(release_id), "assets", name)
    if os.path.islink(os.path.dirname(path)):
        raise BadRecord(f"{where}: {release_id}/assets is a symbolic link; expected the directory "
                        "this tool wrote (nothing was read through it)")
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError as exc:
        if exc.errno != errno.ELOOP:
            raise
        raise BadRecord(f"{where}: asset {name} of release {release_id} is a symbolic link (to "
                        f"{os.readlink(path)}); expected a file this tool wrote (nothing was read)") from None
    return _regular(fd, release_id, name, where)


def _regular(fd: int, release_id: int, name: str, where: str) -> int:
    """``fd`` when it is a regular file's, else closed and one line saying what it is."""
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        raise BadRecord(f"{where}: asset {name} of release {release_id} is {regular.kind(mode)}; expected a "
                        "file this tool wrote")
    return fd


def vouch_asset(directory: Path, release_id: int, name: str, where: str) -> None:
    """An asset listed without being read (the index's recorded facts) is still checked as a read
    would check it (``_asset_fd``: no link, a regular file), so a link never reaches a site."""
    os.close(_asset_fd(directory, release_id, name, where))


def open_asset(directory: Path, release_id: int, name: str, where: str) -> BinaryIO:
    """An asset's file of a release directory, for reading (``_asset_fd``'s checks)."""
    fd = _asset_fd(directory, release_id, name, where)
    os.set_blocking(fd, True)
    return os.fdopen(fd, "rb")


def read_asset_range(directory: Path, release_id: int, name: str, where: str, start: int, length: int,
                     folder: int | None = None) -> bytes:
    """``length`` bytes of an asset from ``start`` (fewer at its end), with ``_asset_fd``'s checks
    (through ``folder`` when given): one ``pread`` on the descriptor, no file object (the index
    reads a range of every wheel and bundle of a season: each syscall saved is thousands saved)."""
    fd = _asset_fd(directory, release_id, name, where, folder)
    try:
        chunks = []
        while length > 0:
            got = os.pread(fd, length, start)
            if not got:
                break
            chunks.append(got)
            start += len(got)
            length -= len(got)
        return b"".join(chunks)
    finally:
        os.close(fd)
