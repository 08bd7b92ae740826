"""Delivering a hold: the deps.yaml commit that stops a dep's rolls before a culprit, pushed to
its own branch and proposed as its own pull request.

Why its own branch (``hold/<dep>``) and not a ``bump/`` one: the bump flow keeps exactly one PR
from ``bump/`` branches and force-pushes each day's roll over it (or closes it when the pins are
current), so a hold there would be overwritten or closed before anyone merged it.

One hold PR per culprit, never a second for the same failure. deps.yaml takes one hold per dep,
so at most one hold PR per dep is open, and its body carries a mark naming the culprit
(``HOLD_MARK``). Delivering a culprit:

- already held in deps.yaml at HEAD (its hold PR merged), or named by a hold PR that is open,
  merged, or closed unmerged (a person said no): nothing is written, no commit, push, PR or
  comment; the line says where it is held;
- another culprit's hold PR is open: that PR is refreshed to hold the new culprit (the newer
  bisect's finding replaces the older: it was made from a later good nightly or found the older
  culprit good, and a hold cuts off every commit after the held one anyway), with one comment
  saying so; unless a person pushed to its branch, then it is kept as they left it;
- none: the hold is committed, pushed and its PR opened.

Every step is idempotent: the same HEAD, hold and message give the same commit
(``ReleaseRepo.commit_file``), and the PR is found by its mark, never opened twice.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from release.core import sanitize
from release.core.config import Hold, parse_deps, render_hold
from release.core.errors import UserError
from release.core.lines import LINE_PREFIX
from release.core.redact import redact
from release.sources.pull_requests import BumpPull, PullResult, create_or_withdraw, free_branch
from release.sources.repo import HOLD_PREFIX, NEXT_VERSION_PREFIX, ReleaseRepo

if TYPE_CHECKING:
    from release.sources.github import GitHubClient

# In a hold PR's body: which dep and culprit it holds, so a later run finds it by its culprit.
_MARK = "<!-- jax-rocm-release hold: {dep} {commit} -->"
_MARK_RE = re.compile(r"<!-- jax-rocm-release hold: ([A-Za-z0-9_.-]+) ([0-9a-f]{40}) -->")
# The one comment saying a hold PR now holds another culprit (its sha in the mark).
_MOVED = "<!-- jax-rocm-release hold moved: {commit} -->"
# The one comment saying a person pushed to the hold branch, so the tool leaves it.
_KEPT = "<!-- jax-rocm-release: a person pushed to this hold -->"


def hold_branch(dep: str, base: str = "") -> str:
    """``hold/plugin``: one branch (and one open PR) per held dep; on a maintained line's branch
    ``release/X.Y``, ``hold/X.Y/plugin``, so two lines holding the same dep never share one."""
    line = base[len(LINE_PREFIX):] if base.startswith(LINE_PREFIX) and not base.startswith(NEXT_VERSION_PREFIX) else ""
    return f"{HOLD_PREFIX}{line + '/' if line else ''}{dep}"


def hold_mark(dep: str, commit: str) -> str:
    return _MARK.format(dep=dep, commit=commit)


def marked_hold(body: object) -> tuple[str, str] | None:
    """``(dep, commit)`` a hold PR's body names (None: not one of the tool's hold PRs)."""
    found = _MARK_RE.search(str(body or ""))
    return (found.group(1), found.group(2)) if found else None


def hold_reason(good: str, bad: str, moved: tuple[str, ...], step: str | None) -> str:
    """Why the hold is there, in the words that go into deps.yaml, the commit and the PR."""
    return (f"first bad between {good} and {bad} by release bisect "
            f"({', '.join(moved) or 'nothing'} moved; {step or 'probe'} failed)")


def hold_line(dep: str, hold: Hold) -> str:
    return f"{dep}: held before {hold.commit[:7]} ({hold.reason})"


@dataclasses.dataclass(frozen=True)
class KnownHold:
    """A culprit already named: held in deps.yaml at HEAD, or in a hold PR (any state)."""

    dep: str
    commit: str
    state: str               # "held" (deps.yaml at HEAD), "open", "merged", "closed" (unmerged)
    number: int | None = None
    url: str | None = None
    branch: str | None = None  # the PR's head branch (hold/<dep>, or hold/<dep>-2 ...)

    @property
    def where(self) -> str:
        if self.state == "held":
            return "deps.yaml at HEAD holds it"
        what = {"open": "is open", "merged": "was merged", "closed": "was closed unmerged"}[self.state]
        return f"hold PR #{self.number} {what}"

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self) | {"where": self.where}


def held_at_head(repo: ReleaseRepo, deps_path: Path, dep: str) -> KnownHold | None:
    """The hold deps.yaml has on ``dep`` as committed at HEAD (a merged hold PR's)."""
    committed = repo.committed(deps_path)
    if committed is None:
        return None
    deps = parse_deps(deps_path, committed)
    hold = deps[dep].hold if dep in deps.names else None
    return None if hold is None else KnownHold(dep, hold.commit, "held")


def hold_pulls(client: GitHubClient, owner: str, name: str, dep: str, base: str = "") -> list[KnownHold]:
    """The tool's hold PRs for ``dep`` on the line ``base``, newest first, by their marks: every
    one from ``hold/<dep>`` (any state), and the open ones from the names a person's work moved it
    to (``hold/<dep>-2``...)."""
    branch = hold_branch(dep, base)
    pulls = {p["number"]: p for p in client.list_pulls(owner, name, state="all", head=f"{owner}:{branch}")}
    for pull in client.list_pulls(owner, name, state="open"):
        if str(pull["head"].get("ref", "")).startswith(f"{branch}-") and \
                str(pull["head"].get("label") or f"{owner}:").split(":")[0] == owner:
            pulls.setdefault(pull["number"], pull)
    found = []
    for pull in pulls.values():
        mark = marked_hold(pull.get("body"))
        if mark is None or mark[0] != dep:
            continue
        state = "open" if pull.get("state") == "open" else "merged" if pull.get("merged_at") else "closed"
        found.append(KnownHold(dep, mark[1], state, int(pull["number"]), pull.get("html_url"),
                               str(pull["head"]["ref"])))
    return sorted(found, key=lambda k: -(k.number or 0))


def known_holds(repo: ReleaseRepo, deps_path: Path, dep: str, where: BumpPull | None) -> list[KnownHold]:
    """The culprits already named for ``dep``: HEAD's hold first, then the hold PRs (with
    ``where``; without it only HEAD is read)."""
    head = held_at_head(repo, deps_path, dep)
    pulls = hold_pulls(where.client, where.owner, where.name, dep, where.base) if where is not None else []
    return ([head] if head else []) + pulls


def commit_hold(repo: ReleaseRepo, deps_path: Path, dep: str, hold: Hold, details: str,
                branch: str | None = None) -> dict:
    """Commit deps.yaml as committed at HEAD plus ``dep``'s hold, on ``branch`` (default
    ``hold/<dep>``; HEAD and the work tree untouched). Returns ``branch``, ``commit``, ``title``."""
    committed = repo.committed(deps_path)
    if committed is None:
        raise UserError(f"{deps_path}: not committed at HEAD; --hold commits on top of it")
    text = render_hold(deps_path, committed, dep, hold)
    if branch is None:
        try:
            branch = hold_branch(dep, repo.current_branch())
        except UserError:  # detached (a job's checkout of a commit): the default branch's name
            branch = hold_branch(dep)
    title = f"Hold {dep} before {hold.commit[:7]}"
    message = f"{title}\n\n{hold_line(dep, hold)}\n\n{details}".rstrip() + "\n"
    return {"branch": branch, "commit": repo.commit_file(branch, deps_path, text, message), "title": title}


def _said(client: GitHubClient, owner: str, name: str, number: int, mark: str) -> bool:
    return any(mark in str(c.get("body") or "") for c in client.issue_comments(owner, name, number))


def deliver_hold(repo: ReleaseRepo, deps_path: Path, dep: str, hold: Hold, *, changelog: str,
                 report: str, push: bool, pull: BumpPull | None = None) -> dict:
    """Hold ``hold.commit`` by the rules of the module doc: commit the hold (message: the hold
    and ``changelog``, the bad step's); with ``push`` force-push its branch; with ``pull`` also
    open its PR or refresh the open one (title: the hold; body: the hold, then ``report``).
    Returns ``line`` and what was done: ``branch``, ``commit``, ``pushed``, ``pull_request``,
    ``known`` (the hold already there, when nothing was written)."""
    line = hold_line(dep, hold)
    head = held_at_head(repo, deps_path, dep)
    if head is not None and head.commit == hold.commit:
        return _nothing(line, head)
    if pull is None:
        done = commit_hold(repo, deps_path, dep, hold, changelog)
        done.pop("title")
        if push:
            repo.push(done["commit"], done["branch"])
            done["pushed"] = True
        return done | {"line": line}
    client, owner, name = pull.client, pull.owner, pull.name
    known = hold_pulls(client, owner, name, dep, pull.base)
    same = next((k for k in known if k.commit == hold.commit), None)
    if same is not None:
        return _nothing(line, same)
    body = redact(f"{hold_mark(dep, hold.commit)}\n{sanitize.markdown(line)}\n\nMerging this stops every bump "
                  f"of {dep} "
                  "before the culprit (and moves a pin that contains it back) until the `hold:` line "
                  f"is removed.\n\n{report}")
    opened = next((k for k in known if k.state == "open"), None)
    if opened is not None:
        return _refresh(repo, deps_path, dep, hold, pull, opened, changelog=changelog, body=body) | {"line": line}
    branch = free_branch(repo, hold_branch(dep, pull.base))  # a closed PR's branch a person wrote on stays theirs
    done = commit_hold(repo, deps_path, dep, hold, changelog, branch)
    repo.push(done["commit"], branch)
    created = create_or_withdraw(client, repo, owner=owner, name=name, title=done["title"], branch=branch,
                                 base=pull.base, body=body)
    result = PullResult("opened", created["number"], created.get("html_url"), branch)
    return {"branch": branch, "commit": done["commit"], "pushed": True, "line": line,
            "pull_request": result.to_json()}


def _nothing(line: str, known: KnownHold) -> dict:
    return {"line": line, "known": known.to_json(), "pushed": False}


def _refresh(repo: ReleaseRepo, deps_path: Path, dep: str, hold: Hold, pull: BumpPull, opened: KnownHold,
             *, changelog: str, body: str) -> dict:
    """The open hold PR of another culprit now holds ``hold.commit``; said once on it. A branch a
    person pushed to is left as it is (said once too)."""
    client, owner, name = pull.client, pull.owner, pull.name
    number = opened.number or 0
    branch = opened.branch or hold_branch(dep, pull.base)
    who = repo.person_pushed(branch)
    if who is not None:
        reason = (f"hold PR #{number} kept as it is: {who}; it still holds {opened.commit[:7]}, not "
                  f"{hold.commit[:7]}")
        if not _said(client, owner, name, number, _KEPT):
            client.comment(owner, name, number, f"{_KEPT}\n{sanitize.markdown(who)}, so the tool will not "
                           f"force-push `{sanitize.code(branch)}`. A later bisect named "
                           f"`{sanitize.code(hold.commit[:12])}` as the first bad {dep} commit; hold it by "
                           "hand, or merge or close this pull request.")
        return {"pushed": False, "pull_request": PullResult("kept", number, opened.url, branch,
                                                            reason=reason).to_json()}
    done = commit_hold(repo, deps_path, dep, hold, changelog, branch)
    repo.push(done["commit"], branch)
    updated = client.update_pull(owner, name, number, title=done["title"], body=body)
    mark = _MOVED.format(commit=hold.commit)
    if not _said(client, owner, name, number, mark):
        client.comment(owner, name, number, f"{mark}\nA later bisect named `{sanitize.code(hold.commit[:12])}` "
                       f"as the first bad {dep} commit; this pull request now holds it instead of "
                       f"`{sanitize.code(opened.commit[:12])}` (one hold per dep: the newer finding replaces "
                       "the older).")
    result = PullResult("updated", number, updated.get("html_url"), branch,
                        reason=f"replaced the hold of {opened.commit[:7]}")
    return {"branch": branch, "commit": done["commit"], "pushed": True, "pull_request": result.to_json()}
