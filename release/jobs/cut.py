"""The cut job's own rules: a release is cut from a clean release branch (or a pushed tag),
its tag is made once and never moves, and after a final (or post) release ``version_info.json``
moves to the line's next post release on a branch, pushed and proposed when asked. The job's
steps are ``catalog.JOBS["cut"]``."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from typing import TYPE_CHECKING, Mapping

from release.core import versions
from release.core.config import Project, parse_version_info, render_version_info
from release.core.errors import UserError
from release.sources.repo import NEXT_VERSION_PREFIX, ReleaseRepo

if TYPE_CHECKING:
    from release.core.output import Output


def check_release_checkout(root: Path, branch: str) -> str:
    """The HEAD commit of a clean checkout on ``branch``; anything else is refused."""
    repo = ReleaseRepo(root)
    current = repo.current_branch()
    if current != branch:
        raise UserError(f"{repo.top}: on branch {current}; a release is cut from {branch} "
                        "(check it out, or pass --release-branch)")
    dirty = repo.dirty()
    if dirty:
        raise UserError(f"{repo.top}: the working tree is not clean ({dirty[0].strip()} ...); "
                        "commit or stash before cutting a release")
    return repo.head()


def tagged_checkout(root: Path, tag: str) -> str:
    """The HEAD commit, when ``tag`` exists and points at it (a CI run started by a tag push)."""
    repo = ReleaseRepo(root)
    target = repo.tag_commit(tag)
    if target is None:
        raise UserError(f"{repo.top}: no tag {tag}; push it first, or run `release cut` on the "
                        "release branch to make it")
    head = repo.head()
    if target != head:
        raise UserError(f"{repo.top}: tag {tag} points at {target[:12]} but HEAD is "
                        f"{head[:12]}; check out the tag")
    return head


def tag_release(root: Path, tag: str, commit: str, *, push: bool, remote: str = "origin") -> dict:
    """Create (and optionally push) the release tag at ``commit``; idempotent, and a tag that
    points elsewhere is refused (a release tag never moves)."""
    repo = ReleaseRepo(root)
    existing = repo.tag_commit(tag)
    if existing is not None and existing != commit:
        raise UserError(f"tag {tag} already points at {existing[:12]}, not at HEAD "
                        f"{commit[:12]}; a release tag never moves")
    if existing is None:
        repo.create_tag(tag, commit, f"jax-rocm {tag}")
    if push:
        repo.push_tag(tag, remote)
    return {"tag": tag, "commit": commit, "pushed": push}


def commit_next_version(project: Project, released: str) -> dict:
    """Commit version_info.json moved to the line's next post release on a branch (the
    follow-up PR's head): the line is jax's, so only ``release bump`` starts a new one."""
    repo = ReleaseRepo(project.root)
    nxt = versions.next_after(released)
    path = project.version_info.path
    committed = repo.committed(path)
    if committed is None:
        raise UserError(f"{path}: not committed; commit it before cutting a release")
    info = parse_version_info(path, committed)
    new_text = render_version_info(dataclasses.replace(info, version=nxt), committed)
    branch = f"{NEXT_VERSION_PREFIX}{nxt}"
    sha = repo.commit_file(branch, path, new_text,
                           f"Move the next version to {nxt} after releasing {released}\n\n"
                           f"Nightlies of the line from here on are {nxt}.devYYYYMMDD and sort "
                           f"above {released}; the next release of the line is {nxt}.")
    return {"next_version": nxt, "branch": branch, "commit": sha}


def finish_release(project: Project, released: str, *, push: bool, open_pr: bool, out: Output,
                   base_branch: str = "main", env: Mapping[str, str] | None = None) -> dict:
    """After a final release: the next-version commit, pushed and proposed when asked."""
    result = commit_next_version(project, released)
    if push or open_pr:
        ReleaseRepo(project.root).push(result["commit"], result["branch"])
        result["pushed"] = True
    if open_pr:
        from release.sources.github import PULL_REQUEST, GitHubClient
        from release.sources.pull_requests import next_version_pull, repository_from_env
        env = os.environ if env is None else env
        owner, name = repository_from_env(env)
        client = GitHubClient.from_env(env, console=out.progress_console(), needs=PULL_REQUEST)
        result["pull"] = next_version_pull(client, owner, name, released=released,
                                           next_version=result["next_version"],
                                           branch=result["branch"], base=base_branch)
        out.line(f"next-version pull request #{result['pull']['number']} ({result['pull']['action']})")
    return result
