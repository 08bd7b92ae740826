"""Materialise the pinned commits of plugin, jax and xla as work trees for a build.

Each ``<workspace>/<dep>`` is a detached worktree of the dep's cached mirror (see
``release.sources.git``): the pinned commit is fetched exactly and shallowly (one commit, its
trees, then only the blobs the checkout needs), so transfer is the least git allows and
a mirror warmed by ``bump`` is reused. A re-run whose pins did not move touches no
network; a moved pin fetches only what changed. Every HEAD is verified against its pin.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Callable

from release.core.config import Dep, Deps
from release.core.errors import UserError
from release.core.project_root import CACHE_ENV as CACHE_ENV  # re-exported: the cache is where checkouts come from
from release.core.project_root import cache_dir as cache_dir
from release.sources.git import Remote, common_dir, head_of
from release.sources.mirror import Mirror
from release.sources.partial import mirror_dir

SOURCE_DEPS = ("plugin", "jax", "xla")


def workspace_paths(workspace: Path) -> dict[str, Path]:
    """``{"plugin": ws/plugin, "jax": ws/jax, "xla": ws/xla}``: what ``release build`` consumes."""
    return {name: Path(workspace) / name for name in SOURCE_DEPS}


@dataclasses.dataclass(frozen=True)
class Checkout:
    """A source's work tree at its pin, and whether it had to be fetched."""

    name: str
    path: Path
    commit: str
    fetched: bool  # False when the work tree was already at the pin

    def to_json(self) -> dict:
        return {"path": str(self.path), "commit": self.commit, "fetched": self.fetched}


def fetch_sources(deps: Deps, workspace: Path, cache: Path,
                  step: Callable[[str, str], None] = lambda _name, _what: None) -> dict[str, Checkout]:
    """Check out every source dep at its pin under ``workspace``; returns what was done."""
    result = {}
    for name, path in workspace_paths(workspace).items():
        result[name] = _materialise(deps[name], path, Path(cache), step)
    return result


def _materialise(dep: Dep, path: Path, cache: Path, step: Callable[[str, str], None]) -> Checkout:
    path = path.absolute()
    if head_of(path) == dep.commit and _ours(path, cache, dep):
        step(dep.name, "already at pin")
        return Checkout(dep.name, path, dep.commit, False)
    if path.exists() and not _ours(path, cache, dep):
        pointer = path / ".git"
        if pointer.is_file() and not Path(pointer.read_text().partition("gitdir:")[2].strip()).exists():
            raise UserError(f"{path}: a checkout whose repository is gone (was the cache {cache} "
                            f"removed?); remove {path} to fetch it again")
        if any(path.iterdir()):
            raise UserError(f"{path}: exists and is not a checkout made by fetch-sources for "
                            f"{dep.name}; remove it or pass another --workspace")
        path.rmdir()
    path.parent.mkdir(parents=True, exist_ok=True)
    with Mirror(cache, Remote(dep.name, dep.url)) as mirror:
        step(dep.name, f"fetching {dep.short}")
        if not mirror.fetch_commit(dep.commit):
            raise UserError(f"{dep.name}: pinned commit {dep.short} not found on {mirror.remote.shown}")
        step(dep.name, f"checking out {dep.short}")
        mirror.checkout(dep.commit, path)
    check_at_pin(path, dep.name, dep.commit, "after checkout")
    step(dep.name, "at pin")
    return Checkout(dep.name, path, dep.commit, True)


def check_at_pin(path: Path, name: str, pin: str, when: str = "") -> None:
    """``path`` is a git checkout whose HEAD is ``pin``; else a one-line ``UserError``."""
    head = head_of(path)
    if head != pin:
        found = f"HEAD is {head}" if head else "not a git checkout"
        raise UserError(f"{path}: {found}{' ' + when if when else ''}, expected the {name} pin "
                        f"{pin}; run 'release fetch-sources' to check the pins out")


def check_workspace(workspace: Path, pins: dict[str, str]) -> None:
    """Every source checkout of ``workspace`` is at its pin (``{dep: commit}``), before a build
    spends hours on the wrong sources."""
    for name, path in workspace_paths(workspace).items():
        if name in pins:
            check_at_pin(path, name, pins[name])


def _ours(path: Path, cache: Path, dep: Dep) -> bool:
    """Whether ``path`` is a worktree of this dep's mirror (so we may move it)."""
    if not (path / ".git").is_file():
        return False
    found = common_dir(path)
    return found is not None and found == mirror_dir(cache, dep.url).resolve()
