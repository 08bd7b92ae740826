"""The cut job's own rules: a release is cut from a clean release branch (or a pushed tag),
its tag is made once, after everything that can fail before it, and never moves, and after a
final (or post) release ``version_info.json`` moves to the line's next post release on a
branch, pushed and proposed when asked. The plan steps below are declared in
``catalog.JOBS`` (cut, cut-plan); ``release.jobs.workflows.run_cut`` runs them."""

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
    from release.jobs.runner import JobRequest, OptionsView, Planned


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


# ---------------------------------------------------------------- the cut's plan steps


def planning_a_tag(request: JobRequest, _planned: Planned) -> bool:
    """The plan stage of a pushed tag (CI's): it builds that tag, whatever HEAD's branch."""
    return request.stage == "plan" and request.tag is not None


def already_published(request: JobRequest, _opts: OptionsView, planned: Planned) -> Planned:
    """A pushed tag whose release is already published (a post re-spin made it, or a re-run
    after publishing): nothing to build; the workflow's later jobs skip."""
    from release.core import naming
    if request.tag is None or planned.listing is None:
        raise ValueError("the published check reads the tag and the store's listing")
    version = naming.version_of_tag(request.tag)
    if planned.listing.find(version) is None:
        return planned
    return dataclasses.replace(planned, version=version,
                               done=f"{request.tag}: already published; nothing to build")


def release_checkout(request: JobRequest, opts: OptionsView, planned: Planned) -> Planned:
    """The release commit: HEAD of a clean checkout of the release branch, or, for a pushed
    tag's plan stage, HEAD where the tag points."""
    if planning_a_tag(request, planned) and request.tag is not None:
        return dataclasses.replace(planned, commit=tagged_checkout(request.project.root, request.tag))
    return dataclasses.replace(planned, commit=check_release_checkout(request.project.root,
                                                                      opts.release_branch))


def cut_version(request: JobRequest, _opts: OptionsView, planned: Planned) -> Planned:
    """The rc's or release's plan; a release of version_info.json's own version already
    published from these sources is a re-run of it (it resumes), not a new post past it."""
    from release.build.plan import cut_from_tag, make_plan
    from release.jobs.shared import published_from
    project, published = request.project, planned.published()
    kind, number = request.kind, request.number
    if planning_a_tag(request, planned) and request.tag is not None:
        kind, number = cut_from_tag(request.tag, versions.next_official(project.version_info.version,
                                                                        published))
    plan = make_plan(project, kind, number=number, pythons=request.pythons,
                     release_commit=planned.commit, published=published)
    if kind == "release" and plan.version != project.version_info.version and planned.store is not None:
        again = make_plan(project, kind, pythons=request.pythons, release_commit=planned.commit)
        if published_from(planned.store, again.version, again.revisions, planned.listing):
            plan = again
    return dataclasses.replace(planned, plan=plan, kind=kind, number=number, version=plan.version,
                               revisions=plan.revisions)


def tagged_version(request: JobRequest, _opts: OptionsView, planned: Planned) -> Planned:
    """The finish stage's version: the one its plan stage tagged."""
    from release.core import naming
    if not request.tag:
        raise UserError(f"--stage finish needs --tag {naming.TAG_PREFIX}<version> "
                        "(the plan stage's output)")
    return dataclasses.replace(planned, version=naming.version_of_tag(request.tag))
