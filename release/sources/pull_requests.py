"""The tool's pull requests on GitHub, both flows in one place: the one bump PR (opened, updated
in place, or closed when the pins are current) and the PR that moves ``version_info.json`` on
after a final release.

On GitHub there is at most one open bump PR: a new bump force-pushes that PR's branch and
rewrites its title and body instead of opening a second one, and a bump that finds the pins
current closes it. A person's commit is never overwritten: when someone pushed to the bump
branch (its tip is not the tool's own commit, ``ReleaseRepo.person_pushed``), that PR is kept as
it is, said so once in a comment, and no roll is pushed or opened until it is merged or closed.
The commits and pushes themselves are ``release.sources.repo``'s.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping

from release.core import naming, sanitize
from release.core.errors import UserError
from release.sources.repo import BUMP_PREFIX, ReleaseRepo, bump_branch

# Marks the tool's comment on a bump PR a person pushed to, so it is written once.
KEPT_MARK = "<!-- jax-rocm-release: a person pushed here -->"

if TYPE_CHECKING:   # for annotations only: a bump without --open-pr never loads requests
    from release.sources.github import GitHubClient


@dataclasses.dataclass(frozen=True)
class PullResult:
    action: str  # "opened", "updated", "closed", "kept" (a person pushed to it), "none"
    number: int | None = None
    url: str | None = None
    branch: str | None = None
    closed: tuple[int, ...] = ()
    reason: str | None = None  # for "kept": one line saying why nothing was pushed
    head: str | None = None  # the PR's head after this run (not pushed when unchanged)

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self) | {"closed": list(self.closed)}


def repository_from_env(env: Mapping[str, str] | None = None, *, flag: str | None = None) -> tuple[str, str]:
    """``(owner, name)`` of this repository on GitHub, from ``GITHUB_REPOSITORY``; ``flag``:
    the command's own way to name it (``--repo``), said first when neither is given."""
    env = os.environ if env is None else env
    full = env.get("GITHUB_REPOSITORY", "")
    owner, _, name = full.partition("/")
    if not full.strip():
        raise UserError(f"no GitHub repository named: pass {flag} OWNER/NAME or set GITHUB_REPOSITORY "
                        "(GitHub Actions sets it)" if flag else "GITHUB_REPOSITORY is not set; expected "
                        "OWNER/NAME of this repository (GitHub Actions sets it)")
    if not owner or not name or "/" in name:
        raise UserError(f"GITHUB_REPOSITORY {full!r}: expected OWNER/NAME of this repository")
    return owner, name


def open_bump_pulls(client: GitHubClient, owner: str, name: str, base: str) -> list[dict[str, Any]]:
    """Open PRs into ``base`` from this repository's ``bump/`` branches, newest first."""
    pulls = client.list_pulls(owner, name, state="open", base=base)
    mine = [p for p in pulls if p["head"]["ref"].startswith(BUMP_PREFIX)
            and (p["head"].get("label") or f"{owner}:").split(":")[0] == owner]
    return sorted(mine, key=lambda p: -p["number"])


def sync_pull(client: GitHubClient, repo: ReleaseRepo, *, owner: str, name: str, base: str, sha: str | None,
              branch: str, title: str, body: str) -> PullResult:
    """Open, update or close the one bump PR. ``sha`` None means the pins are current."""
    pulls = open_bump_pulls(client, owner, name, base)
    for pull in pulls:  # newest first: the one a person wrote on waits for them
        who = repo.person_pushed(pull["head"]["ref"])
        if who is not None:
            return keep_for_person(client, owner, name, pull, who)
    if sha is None:
        for pull in pulls:
            client.update_pull(owner, name, pull["number"], state="closed")
        return PullResult("closed" if pulls else "none", closed=tuple(p["number"] for p in pulls))
    if pulls:
        keep, extra = pulls[0], pulls[1:]
        # The same roll on the same base as the PR's head is not pushed again: a push restarts
        # its checks (and a green one would wait for them again) for no change.
        head = repo.unchanged_tip(keep["head"]["ref"], sha)
        if head is None:
            repo.push(sha, keep["head"]["ref"])
        pull = client.update_pull(owner, name, keep["number"], title=title, body=body)
        for dup in extra:  # left over from some earlier tool; one bump PR is the rule
            client.update_pull(owner, name, dup["number"], state="closed")
        return PullResult("updated", pull["number"], pull.get("html_url"), keep["head"]["ref"],
                          tuple(p["number"] for p in extra), head=head or sha)
    branch = free_branch(repo, branch)
    repo.push(sha, branch)
    pull = create_or_withdraw(client, repo, owner=owner, name=name, title=title, branch=branch,
                              base=base, body=body)
    return PullResult("opened", pull["number"], pull.get("html_url"), branch, head=sha)


def keep_for_person(client: GitHubClient, owner: str, name: str, pull: dict[str, Any],
                    who: str) -> PullResult:
    """Leave the bump PR a person pushed to as it is; say so on it once (the tool's earlier
    comment, found by its mark, is not repeated)."""
    number, branch = pull["number"], pull["head"]["ref"]
    reason = (f"bump PR #{number} kept as it is: {who}; the roller does not force-push it and rolls "
              "again once it is merged or closed")
    if not any(KEPT_MARK in str(c.get("body") or "") for c in client.issue_comments(owner, name, number)):
        client.comment(owner, name, number, f"{KEPT_MARK}\n{sanitize.markdown(who)}, so the roller will not "
                       f"force-push `{sanitize.code(branch)}` again. Merge or close this pull request; the "
                       "next roll opens on a new branch after that.")
    return PullResult("kept", number, pull.get("html_url"), branch, reason=reason)


def free_branch(repo: ReleaseRepo, branch: str) -> str:
    """``branch``, or ``branch-2``, ``-3``... when a person's commits sit on that name (a closed
    PR of the same day and deps): the next roll never lands on their work."""
    name, n = branch, 1
    while repo.person_pushed(name) is not None:
        n += 1
        name = f"{branch}-{n}"
    return name


def create_or_withdraw(client: GitHubClient, repo: ReleaseRepo, *, owner: str, name: str, title: str,
                       branch: str, base: str, body: str) -> dict[str, Any]:
    """Open the PR of the just-pushed ``branch``; when GitHub refuses it, delete the branch again
    (nothing is left behind) and say what to change when the refusal is Actions' PR right."""
    from release.sources.github import GitHubError
    try:
        return client.create_pull(owner, name, title=title, head=branch, base=base, body=body)
    except GitHubError as exc:
        gone = repo.delete_remote_branch(branch)
        left = "deleted it again" if gone else f"could not delete it: delete {branch} by hand"
        if exc.status == 403 and "not permitted to create" in str(exc):
            raise UserError(f"GitHub refused the pull request from {branch} ({left}): allow GitHub "
                            "Actions to create pull requests (Settings > Actions > General > Workflow "
                            "permissions), or give the job a BUMP_TOKEN; see `release doctor`") from None
        if isinstance(exc, UserError):
            raise UserError(f"{exc} (pushed {branch}, {left})") from None
        raise


def next_version_pull(client: GitHubClient, owner: str, name: str, *, released: str, next_version: str,
                      branch: str, base: str) -> dict[str, Any]:
    """The one pull request that moves version_info.json on after ``released``: kept when
    one from ``branch`` is open (a re-run), opened otherwise."""
    pulls = client.list_pulls(owner, name, state="open", head=f"{owner}:{branch}")
    if pulls:
        pull, action = pulls[0], "kept"
    else:
        pull = client.create_pull(
            owner, name, title=f"Move the next version to {next_version} after {released}", head=branch,
            base=base, body=(f"{naming.release_tag(released)} is published. This moves `version_info.json` to "
                             f"`{next_version}` so nightlies sort above the release."))
        action = "opened"
    return {"number": pull["number"], "url": pull.get("html_url"), "action": action}


@dataclasses.dataclass(frozen=True)
class BumpPull:
    """Where the one bump PR lives: the API client, ``owner/name`` and the base branch."""

    client: GitHubClient
    owner: str
    name: str
    base: str


def deliver_bump(repo: ReleaseRepo, deps_path: Path, *, moved: tuple[str, ...], date: _dt.date,
                 title: str, body: str, push: bool, pull: BumpPull | None = None,
                 also: Mapping[Path, str] | None = None) -> dict[str, Any]:
    """Commit deps.yaml (as written), and the files in ``also`` (path -> text: version_info.json
    when the jax line moved), on ``bump/<date>-<moved>`` and push it, or sync the one bump PR
    (which pushes); with nothing ``moved``, close that PR. Returns what was done:
    ``branch``, ``commit``, ``pushed``, ``pull_request`` (each only when it happened)."""
    done: dict[str, Any] = {}
    if moved:
        branch = bump_branch(date, moved, pull.base if pull is not None else repo.current_branch())
        files = {deps_path: deps_path.read_text(encoding="utf-8"), **(also or {})}
        sha = repo.commit_files(branch, files, f"{title}\n\n{body}")
        done |= {"branch": branch, "commit": sha}
        if pull is not None:
            pr = sync_pull(pull.client, repo, owner=pull.owner, name=pull.name, base=pull.base,
                           sha=sha, branch=branch, title=title, body=body)
            done |= {"pull_request": pr.to_json(), "branch": pr.branch}
            if pr.head is not None:  # the PR's head: the commit made now, or the same change kept
                done["commit"] = pr.head
        elif push:
            repo.push(sha, branch)
            done["pushed"] = True
    elif pull is not None:
        done["pull_request"] = sync_pull(pull.client, repo, owner=pull.owner, name=pull.name,
                                         base=pull.base, sha=None, branch="", title=title,
                                         body=body).to_json()
    return done
