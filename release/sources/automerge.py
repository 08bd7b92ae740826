"""Merging the one bump PR without a person, only when it is the tool's and green.

Why a module of its own: the merge is the one step that changes ``main`` without review, so its
rule stands in one place: the PR's branch tip on origin is the tool's own single commit
(``ReleaseRepo.persons_tip``), every required check on that very commit passed
(``ci_status.verdict``), and GitHub merges it only while its head is still that commit (the REST
merge endpoint with ``sha``: 409 when someone pushed meanwhile, 405 when not mergeable). Anything
else is a wait, said in one line, never an error: the next run looks again.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any, Sequence

from release.sources import ci_status
from release.sources.pull_requests import open_bump_pulls

if TYPE_CHECKING:
    from release.sources.github import GitHubClient
    from release.sources.repo import ReleaseRepo

MERGE_METHODS = ("merge", "squash", "rebase")


@dataclasses.dataclass(frozen=True)
class MergeResult:
    action: str  # "merged", "waiting" (not green yet, or GitHub declined), "kept" (a person's), "none"
    line: str
    number: int | None = None
    sha: str | None = None
    checks: str | None = None  # the verdict's state when the checks decided (pending: let them finish)

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def merge_if_green(client: GitHubClient, repo: ReleaseRepo, *, owner: str, name: str, base: str,
                   require: str | Sequence[str] = ci_status.REQUIRE_ALL,
                   method: str = "merge") -> MergeResult:
    """Merge the newest open bump PR into ``base`` when it is the tool's and green."""
    from release.sources.github import GitHubError
    pulls = open_bump_pulls(client, owner, name, base)
    if not pulls:
        return MergeResult("none", "auto-merge: no open bump PR")
    pull = pulls[0]
    number, branch = pull["number"], pull["head"]["ref"]
    tip = repo.remote_tip(branch)
    if tip is None:
        return MergeResult("waiting", f"auto-merge: bump PR #{number} not merged: its branch {branch} "
                           "is gone from origin", number)
    who = repo.persons_tip(branch, tip)
    if who is not None:
        return MergeResult("kept", f"auto-merge: bump PR #{number} not merged: {who}; a person merges it",
                           number, tip)
    statuses, runs = ci_status.fetch(client, owner, name, tip)
    verdict = ci_status.verdict(tip, statuses, runs, require)
    if verdict.state != ci_status.GREEN:
        return MergeResult("waiting", f"auto-merge: bump PR #{number} not merged: checks on {tip[:12]} are "
                           f"{verdict.describe()}", number, tip, verdict.state)
    try:
        client.merge_pull(owner, name, number, sha=tip, method=method)
    except GitHubError as exc:
        if exc.status in (405, 409):  # not mergeable, or the head moved since we judged it
            return MergeResult("waiting", f"auto-merge: bump PR #{number} not merged: GitHub said "
                               f"{exc.status}", number, tip)
        raise
    return MergeResult("merged", f"auto-merge: merged bump PR #{number} at {tip[:12]} (the tool's own "
                       "commit, every required check green)", number, tip, verdict.state)
