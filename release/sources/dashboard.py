"""The dashboard issue: one issue in the release repository that says how the roller is doing,
opened once and then edited (as Renovate's dependency dashboard), never one per failure.

Which issue is the dashboard: one written by the tool's own identity (``user.login`` is the
token's login: ``GET /user``, or ``github-actions[bot]`` for an Actions token, which may not read
``/user``; ``--author`` names another app's bot) that carries the tool's hidden marker
(``roller_report.MARKER``), its label or its title, looked for by the label and then by the
author. A person's issue never counts, whatever its title,
body or labels, so it is never edited. Of several of the tool's own (two runs that raced), the
open one with the lowest number is kept and the other open ones are closed as duplicates.

Edited only when its body changes: a re-run with nothing new sends no write. The title is
written once (a person may rename it). A dashboard a person closed stays closed and is still
kept current (Renovate reopens it on every run, which its users fight): reopening it is a
person's choice too; a new one is opened only when none of the tool's exists (deleted or
transferred).

Also here: what the report reads from GitHub and git (the open bump and hold pull requests, the
pins' commit times from the cached mirrors).
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable

from release.core import roller_report
from release.core.errors import ReleaseError, UserError
from release.core.roller_report import MARKER, Pin, Pull
from release.sources.partial import mirror_dir
from release.sources.repo import HOLD_PREFIX

if TYPE_CHECKING:
    from release.core.config import Deps
    from release.sources.github import GitHubClient

TITLE = "Release roller dashboard"
LABEL = "release-dashboard"
ACTIONS_LOGIN = "github-actions[bot]"  # who an Actions GITHUB_TOKEN writes as


@dataclasses.dataclass(frozen=True)
class IssueResult:
    """What happened to the dashboard issue: created, edited or left, and where it is."""

    action: str  # "created", "edited", "unchanged", and with --dry-run "would create", "would edit"
    number: int | None = None
    url: str | None = None
    state: str | None = None  # "open" or "closed" (a person closed it: left closed)
    closed_duplicates: tuple[int, ...] = ()
    author: str = ""

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self) | {"closed_duplicates": list(self.closed_duplicates)}

    def line(self) -> str:
        where = f"#{self.number}" if self.number is not None else "a new issue"
        said = {"created": f"dashboard issue {where} opened",
                "edited": f"dashboard issue {where} edited",
                "unchanged": f"dashboard issue {where} unchanged: nothing new, nothing sent",
                "would create": "dry run: would open the dashboard issue (none of the tool's exists)",
                "would edit": f"dry run: would edit dashboard issue {where}",
                "would leave": f"dry run: dashboard issue {where} is current; nothing would be sent"}[self.action]
        if self.state == "closed":
            said += " (closed by a person: left closed; reopen it to see it among open issues)"
        if self.closed_duplicates:
            said += "; closed duplicates " + ", ".join(f"#{n}" for n in self.closed_duplicates)
        return said


def token_login(client: GitHubClient) -> str | None:
    """The login the token writes as (``GET /user``), None for an installation token such as
    Actions' GITHUB_TOKEN, which may not read /user (it writes as ``github-actions[bot]``)."""
    from release.sources.github import GitHubRefused, fields
    try:
        user = client.request("GET", "/user", expect=dict)
    except GitHubRefused as exc:
        if exc.status == 403:
            return None
        raise
    return str(fields(user, "GET /user", login=str)["login"])


def author(client: GitHubClient, given: str | None = None) -> str:
    """The dashboard's author: ``given``, else the token's login, else ``github-actions[bot]``."""
    return given or token_login(client) or ACTIONS_LOGIN


def _labels(issue: dict) -> set[str]:
    return {str(label.get("name") if isinstance(label, dict) else label)
            for label in issue.get("labels") or () if label is not None}


def is_ours(issue: Any, login: str) -> bool:
    """An issue (not a pull request) the tool's identity wrote with its marker, label or title
    (one mark is enough: a person may take the label off or rewrite the body)."""
    return (isinstance(issue, dict) and "pull_request" not in issue
            and isinstance(issue.get("number"), int)
            and (issue.get("user") or {}).get("login") == login
            and (MARKER in str(issue.get("body") or "") or LABEL in _labels(issue)
                 or issue.get("title") == TITLE))


def dashboards(client: GitHubClient, owner: str, name: str, login: str) -> list[dict]:
    """The tool's dashboard issues, open ones first, then by number. Looked for by the label
    and, when that finds none (a person took the label off, or GitHub dropped it), by the
    author too: a miss would open a second dashboard on every run (renovatebot/renovate#44406)."""
    from release.sources import shapes

    path = f"/repos/{owner}/{name}/issues"

    def listed(params: dict) -> list[dict]:
        return [i for i in client.paginate(path, params) if is_ours(shapes.check(i, shapes.ISSUE, "issue"), login)]
    ours = listed({"state": "all", "labels": LABEL}) or listed({"state": "all", "creator": login})
    return sorted(ours, key=lambda i: (i.get("state") != "open", i["number"]))


def sync_issue(client: GitHubClient, owner: str, name: str, body: str, *, login: str,
               dry_run: bool = False, may_open: bool = True, found: list[dict] | None = None) -> IssueResult:
    """Open the dashboard once, edit it when ``body`` differs, else send nothing. ``may_open``
    False (a person's token naming another author with ``--author``): edit that author's
    dashboard, never open one as the person (the workflows would not find it: a second one).
    ``found``: ``dashboards`` as the caller listed them already (None: listed here)."""
    body = roller_report.bound(body)
    found = dashboards(client, owner, name, login) if found is None else found
    if not found:
        if not may_open:
            raise UserError(f"no dashboard issue by {login} in {owner}/{name} to edit, and this token "
                            f"writes as someone else: the workflows open it with their GITHUB_TOKEN")
        if dry_run:
            return IssueResult("would create", author=login)
        made = client.request("POST", f"/repos/{owner}/{name}/issues",
                              json={"title": TITLE, "body": body, "labels": [LABEL]}, expect=dict)
        return IssueResult("created", made.get("number"), made.get("html_url"), "open", author=login)
    keep, extra = found[0], [i for i in found[1:] if i.get("state") == "open"]
    state = str(keep.get("state") or "open")
    changed = str(keep.get("body") or "") != body
    if dry_run:
        return IssueResult("would edit" if changed else "would leave", keep["number"], keep.get("html_url"),
                           state, tuple(i["number"] for i in extra), login)
    for dup in extra:
        client.request("PATCH", f"/repos/{owner}/{name}/issues/{dup['number']}",
                       json={"state": "closed", "state_reason": "not_planned"}, expect=dict)
    if changed:
        client.request("PATCH", f"/repos/{owner}/{name}/issues/{keep['number']}", json={"body": body},
                       expect=dict)
    return IssueResult("edited" if changed else "unchanged", keep["number"], keep.get("html_url"), state,
                       tuple(i["number"] for i in extra), login)


# ------------------------------------------------------------------ what the report reads

def _pull(data: dict) -> Pull:
    return Pull(int(data["number"]), str(data.get("title") or ""), data.get("html_url"),
                str(data["head"]["ref"]))


def open_pulls(client: GitHubClient, owner: str, name: str, base: str) -> tuple[Pull | None, tuple[Pull, ...]]:
    """The open bump PR into ``base`` (the newest, as the bump flow keeps one) and the open hold
    PRs into any branch (one per held dep and line: ``hold/X.Y/<dep>`` into ``release/X.Y``, so a
    maintenance line's hold shows on the one dashboard too), both from this repository's own
    branches."""
    from release.sources.pull_requests import open_bump_pulls
    bumps = open_bump_pulls(client, owner, name, base)
    holds = [p for p in client.list_pulls(owner, name, state="open")
             if p["head"]["ref"].startswith(HOLD_PREFIX)
             and (p["head"].get("label") or f"{owner}:").split(":")[0] == owner]
    return (_pull(bumps[0]) if bumps else None), tuple(_pull(p) for p in sorted(holds, key=lambda p: p["number"]))


def pin_times(deps: Deps, cache: Path, *, fetch: bool) -> tuple[tuple[Pin, ...], tuple[str, ...]]:
    """Each pin with its commit's committer time from the cached mirror; ``fetch``: a commit
    the mirror lacks is fetched (history only, one commit deep), else its time is unknown.
    Returns the pins and a line for each time that could not be read."""
    pins, unread = [], []
    for dep in deps:
        when: _dt.datetime | None = None
        present = cache.is_dir() and (mirror_dir(cache, dep.url) / "HEAD").is_file()  # no cache: no mirror
        if present or fetch:
            from release.sources.git import Remote  # a mirror is opened only when there is one
            from release.sources.mirror import Mirror
            try:
                with Mirror(cache, Remote(dep.name, dep.url)) as mirror:
                    if mirror.has_commit(dep.commit) or (fetch and mirror.fetch_commit(dep.commit, trees=False)):
                        when = _dt.datetime.fromtimestamp(mirror.commit_time(dep.commit), _dt.timezone.utc)
                    elif fetch:
                        unread.append(f"{dep.name}'s pin {dep.short}: not on its remote")
            except ReleaseError as exc:
                unread.append(f"{dep.name}'s commit time: {exc}")
        pins.append(Pin(dep.name, dep.commit, dep.branch, str(dep.roll), when))
    missing = [p.name for p in pins if p.committed is None]
    if missing and not fetch and not unread:
        unread.append(f"commit time of {', '.join(missing)}: not in the git cache (`release bump` or "
                      "`release dashboard` fetches it)")
    return tuple(pins), tuple(unread)


def runs_shown(runs: Iterable[Any], versions_by_day: dict[str, str] | None = None) -> tuple[roller_report.Run, ...]:
    """Workflow runs (``release.sources.nightly_runs.NightlyRun``) as the report shows them, each
    nightly with the version published from its day (``YYYY-MM-DD`` -> version), if any."""
    days = versions_by_day or {}
    return tuple(roller_report.Run(r.run_number, r.outcome, r.created_at, r.html_url, r.conclusion,
                                   days.get(r.created_at.strftime("%Y-%m-%d"))) for r in runs)
