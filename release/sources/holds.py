"""Delivering a hold: the deps.yaml commit that stops a dep's rolls before a culprit, pushed to
its own branch and proposed as its own pull request.

Why its own branch (``hold/<dep>``) and not a ``bump/`` one: the bump flow keeps exactly one PR
from ``bump/`` branches and force-pushes each day's roll over it (or closes it when the pins are
current), so a hold there would be overwritten or closed before anyone merged it. There is one
hold PR per dep: a re-run, or a later bisect naming another culprit, refreshes the open one.

Every step is idempotent: the same HEAD, hold and message give the same commit
(``ReleaseRepo.commit_file``), pushing it again changes nothing, and the open PR from the
branch is updated in place instead of a second one being opened.
"""

from __future__ import annotations

from pathlib import Path

from release.core.config import Hold, render_hold
from release.core.errors import UserError
from release.core.redact import redact
from release.sources.pull_requests import BumpPull, PullResult
from release.sources.repo import HOLD_PREFIX, ReleaseRepo


def hold_branch(dep: str) -> str:
    """``hold/plugin``: one branch (and one PR) per held dep."""
    return f"{HOLD_PREFIX}{dep}"


def hold_reason(good: str, bad: str, moved: tuple[str, ...], step: str | None) -> str:
    """Why the hold is there, in the words that go into deps.yaml, the commit and the PR."""
    return (f"first bad between {good} and {bad} by release bisect "
            f"({', '.join(moved) or 'nothing'} moved; {step or 'probe'} failed)")


def hold_line(dep: str, hold: Hold) -> str:
    return f"{dep}: held before {hold.commit[:7]} ({hold.reason})"


def commit_hold(repo: ReleaseRepo, deps_path: Path, dep: str, hold: Hold, details: str) -> dict:
    """Commit deps.yaml as committed at HEAD plus ``dep``'s hold, on ``hold/<dep>`` (HEAD and the
    work tree untouched). Returns ``branch``, ``commit`` and ``title``."""
    committed = repo.committed(deps_path)
    if committed is None:
        raise UserError(f"{deps_path}: not committed at HEAD; --hold commits on top of it")
    text = render_hold(deps_path, committed, dep, hold)
    branch = hold_branch(dep)
    title = f"Hold {dep} before {hold.commit[:7]}"
    message = f"{title}\n\n{hold_line(dep, hold)}\n\n{details}".rstrip() + "\n"
    return {"branch": branch, "commit": repo.commit_file(branch, deps_path, text, message), "title": title}


def sync_hold_pull(where: BumpPull, *, branch: str, title: str, body: str) -> PullResult:
    """Open the one PR from ``branch``, or refresh the title and body of the open one."""
    client, owner, name = where.client, where.owner, where.name
    body = redact(body)
    open_ones = client.list_pulls(owner, name, state="open", head=f"{owner}:{branch}")
    if open_ones:
        pull = client.update_pull(owner, name, open_ones[0]["number"], title=title,
                                  body=body)
        return PullResult("updated", pull["number"], pull.get("html_url"), branch)
    pull = client.create_pull(owner, name, title=title, head=branch, base=where.base,
                              body=body)
    return PullResult("opened", pull["number"], pull.get("html_url"), branch)


def deliver_hold(repo: ReleaseRepo, deps_path: Path, dep: str, hold: Hold, *, changelog: str,
                 report: str, push: bool, pull: BumpPull | None = None) -> dict:
    """Commit the hold (message: the hold and ``changelog``, the bad step's, so a re-run makes
    the same commit); with ``push`` force-push its branch; with ``pull`` also open or refresh
    its PR (title: the hold; body: the hold, then ``report``: the culprit, probes and changelog).
    Returns what was done: ``branch``, ``commit``, ``line``, ``pushed``, ``pull_request``."""
    done = commit_hold(repo, deps_path, dep, hold, changelog)
    title = done.pop("title")
    done["line"] = hold_line(dep, hold)
    if push or pull is not None:
        repo.push(done["commit"], done["branch"])
        done["pushed"] = True
    if pull is not None:
        body = f"{done['line']}\n\nMerging this stops every bump of {dep} before the culprit " \
               f"(and moves a pin that contains it back) until the `hold:` line is removed.\n\n{report}"
        done["pull_request"] = sync_hold_pull(pull, branch=done["branch"], title=title, body=body).to_json()
    return done
