"""Whether a commit's CI passed on GitHub, and the newest green commit of a branch.

Why a module of its own: a roll that only takes green commits must read CI the way a
person reads the checks box of a commit, from two GitHub sources at once: commit
statuses (the combined status, latest per context) and check runs (GitHub Actions and
apps, latest per name). The rules live in pure functions over those API answers
(``verdict``, ``pick_green``) so tests can state them exactly; ``fetch`` is the thin HTTP part.

The rules:
- a check run passes with conclusion ``success``, ``neutral`` or ``skipped``; any other
  conclusion (``failure``, ``cancelled``, ``timed_out``, ``action_required``, ``stale``,
  ``startup_failure``) fails it; not ``completed`` (queued, in_progress, waiting, ...) is pending;
- a status passes with ``success``, fails with ``failure``/``error``, else is pending;
- ``require: green`` needs every check and status present to pass, and at least one present;
- ``require: [names]`` needs each named check (a check-run name or a status context) to pass;
  a required name that never ran on the commit counts as not green.
"""

from __future__ import annotations

import dataclasses
import os
import re
from typing import TYPE_CHECKING, Any, Callable, Iterable, Mapping, Sequence
from urllib.parse import urlsplit

from release.core.errors import UserError

if TYPE_CHECKING:
    from release.sources.github import GitHubClient

GREEN, RED, PENDING, MISSING = "green", "red", "pending", "missing"
REQUIRE_ALL = "green"
PASSING_CONCLUSIONS = frozenset({"success", "neutral", "skipped"})
TOKEN_SCOPES = "checks: read and statuses: read"


@dataclasses.dataclass(frozen=True)
class Check:
    """One CI result on a commit: a check run or a status context."""

    name: str
    kind: str    # "check" or "status"
    state: str   # "pass", "fail" or "pending"
    detail: str  # the conclusion, status or state GitHub gave


@dataclasses.dataclass(frozen=True)
class Verdict:
    """What a commit's checks say: green, red, pending or missing, and which."""

    sha: str
    state: str  # GREEN, RED, PENDING or MISSING
    failing: tuple[str, ...] = ()
    pending: tuple[str, ...] = ()
    missing: tuple[str, ...] = ()
    passed: tuple[str, ...] = ()

    @property
    def green(self) -> bool:
        return self.state == GREEN

    def describe(self) -> str:
        """``red (failing: build-rocm-7.2 / py3.12)``, ``pending (running: x)``, ``green``."""
        if self.state == GREEN:
            return "green"
        if self.state == RED:
            return f"red (failing: {', '.join(self.failing)})"
        if self.state == PENDING:
            return f"pending (running: {', '.join(self.pending)})"
        if self.missing:
            return f"not green (never ran: {', '.join(self.missing)})"
        return "not green (no checks or statuses)"

    def to_json(self) -> dict:
        return dataclasses.asdict(self)


def checks_of(statuses: Iterable[dict], check_runs: Iterable[dict]) -> list[Check]:
    """The CI results of one commit: the newest status per context and check run per name."""
    newest_status: dict[str, dict] = {}
    for status in statuses:
        ctx = status["context"]
        if ctx not in newest_status or status.get("id", 0) > newest_status[ctx].get("id", 0):
            newest_status[ctx] = status
    newest_run: dict[str, dict] = {}
    for run in check_runs:  # a re-run of a job is a new check run of the same name
        name = run["name"]
        if name not in newest_run or run.get("id", 0) > newest_run[name].get("id", 0):
            newest_run[name] = run
    found = []
    for ctx, status in sorted(newest_status.items()):
        state = status["state"]
        found.append(Check(ctx, "status", "pass" if state == "success" else
                           "fail" if state in ("failure", "error") else "pending", state))
    for name, run in sorted(newest_run.items()):
        if run.get("status") != "completed":
            found.append(Check(name, "check", "pending", run.get("status") or "unknown"))
        else:
            conclusion = run.get("conclusion") or "unknown"
            found.append(Check(name, "check", "pass" if conclusion in PASSING_CONCLUSIONS else "fail",
                               conclusion))
    return found


def verdict(sha: str, statuses: Iterable[dict], check_runs: Iterable[dict],
            require: str | Sequence[str] = REQUIRE_ALL) -> Verdict:
    """Green, red, pending or missing, for ``require`` (``"green"`` or a list of names)."""
    checks = checks_of(statuses, check_runs)
    missing: tuple[str, ...] = ()
    if require == REQUIRE_ALL:
        considered = checks
    else:
        wanted = tuple(dict.fromkeys(require))
        considered = [c for c in checks if c.name in wanted]
        present = {c.name for c in considered}
        missing = tuple(n for n in wanted if n not in present)
    failing = tuple(dict.fromkeys(c.name for c in considered if c.state == "fail"))
    pending = tuple(dict.fromkeys(c.name for c in considered if c.state == "pending"))
    passed = tuple(dict.fromkeys(c.name for c in considered if c.state == "pass"))
    if failing:
        state = RED
    elif pending:
        state = PENDING
    elif missing or not considered:
        state = MISSING
    else:
        state = GREEN
    return Verdict(sha, state, failing, pending, missing, passed)


# ---------------------------------------------------------------- walking back from the tip


@dataclasses.dataclass(frozen=True)
class GreenPick:
    """The outcome of walking back from a branch tip to its newest green commit."""

    name: str
    tip: str
    chosen: str | None          # None: no green commit found, keep the pin
    behind: int                 # first-parent commits between the tip and ``chosen``
    verdicts: tuple[Verdict, ...]
    stopped: str                # "green", "pin" (reached the pin), "limit" or "current" (pin = tip)
    pin: str

    def line(self) -> str:
        """One line for the changelog and the PR body."""
        tip = self.verdicts[0] if self.verdicts else None
        tip_text = f"tip {self.tip[:7]} is {tip.describe() if tip else 'not checked'}"
        if self.stopped == "current":
            return f"{self.name}: the pin {self.pin[:7]} is the tip"
        if self.chosen is not None:
            if self.behind == 0:
                return f"{self.name}: tip {self.tip[:7]} is green"
            return (f"{self.name}: {tip_text}, rolled to {self.chosen[:7]} "
                    f"({self.behind} behind the tip, green)")
        if self.stopped == "pin":
            return (f"{self.name}: {tip_text}; no green commit newer than the pin "
                    f"{self.pin[:7]}, kept it")
        return (f"{self.name}: {tip_text}; no green commit in the newest {len(self.verdicts)} "
                f"first-parent commits, kept {self.pin[:7]}")

    def to_json(self) -> dict:
        return {"tip": self.tip, "chosen": self.chosen, "behind": self.behind,
                "stopped": self.stopped, "line": self.line(),
                "checked": [v.to_json() for v in self.verdicts]}


def pick_green(name: str, candidates: Sequence[str], pin: str, verdict_of: Callable[[str], Verdict],
               max_walk: int) -> GreenPick:
    """The newest green commit of ``candidates`` (first-parent, newest first, from the tip).

    Checks at most ``max_walk`` commits and never the pin or anything older (the list
    stops there); when none is green the pin is kept.
    """
    if not candidates:  # the pin is the tip
        return GreenPick(name, pin, None, 0, (), "current", pin)
    seen: list[Verdict] = []
    for index, sha in enumerate(candidates):
        if sha == pin:
            return GreenPick(name, candidates[0], None, index, tuple(seen), "pin", pin)
        if index >= max_walk:
            return GreenPick(name, candidates[0], None, index, tuple(seen), "limit", pin)
        result = verdict_of(sha)
        seen.append(result)
        if result.green:
            return GreenPick(name, candidates[0], sha, index, tuple(seen), "green", pin)
    return GreenPick(name, candidates[0], None, len(candidates), tuple(seen), "pin", pin)


# ---------------------------------------------------------------- the GitHub edge


def github_repository(url: str, env: Mapping[str, str] | None = None) -> tuple[str, str] | None:
    """``(owner, name)`` of a GitHub remote URL (github.com or ``$GITHUB_SERVER_URL``'s host)."""
    env = os.environ if env is None else env
    hosts = {"github.com"}
    server = env.get("GITHUB_SERVER_URL")
    if server:
        hosts.add(urlsplit(server).hostname or "")
    m = (re.match(r"^(?:https?|ssh|git)://(?:[^/@]+@)?([^/:]+)(?::\d+)?/([^/]+)/([^/]+?)(?:\.git)?/?$", url)
         or re.match(r"^[\w.-]+@([^:/]+):([^/]+)/([^/]+?)(?:\.git)?/?$", url))
    if not m or m.group(1).lower() not in hosts:
        return None
    return m.group(2), m.group(3)


def require_github(dep_name: str, url: str, env: Mapping[str, str] | None = None) -> tuple[str, str]:
    """The dep's GitHub repository, or the one-line refusal ``require`` gets elsewhere."""
    found = github_repository(url, env)
    if found is None:
        from release.core.redact import redact
        raise UserError(redact(f"{dep_name}: roll requires green CI, but {url} is not a GitHub "
                               "repository (CI results are read from GitHub's API); pin a GitHub "
                               "URL or drop 'require' from its roll"))
    return found


def client_from_env(dep_name: str, env: Mapping[str, str] | None = None, **kwargs: Any) -> GitHubClient:
    """A ``GitHubClient`` for CI reads (``GITHUB_TOKEN``, ``GITHUB_API_URL``)."""
    from release.sources.github import CHECK_RUNS, GitHubClient
    env = os.environ if env is None else env
    if not env.get("GITHUB_TOKEN"):
        raise UserError(f"{dep_name}: roll requires green CI, but GITHUB_TOKEN is not set; it "
                        f"needs a token with {TOKEN_SCOPES}")
    return GitHubClient.from_env(env, needs=CHECK_RUNS, **kwargs)


def fetch(client: GitHubClient, owner: str, repo: str, sha: str) -> tuple[list[dict], list[dict]]:
    """The statuses (combined, all pages) and the latest check run per name (all pages)."""
    from release.sources import shapes
    from release.sources.github import GitHubError
    base = f"/repos/{owner}/{repo}/commits/{sha}"
    try:
        statuses = [shapes.check(s, shapes.STATUS, "commit status")
                    for s in client.paginate(f"{base}/status", key="statuses")]
        runs = [shapes.check(r, shapes.CHECK_RUN, "check run")
                for r in client.paginate(f"{base}/check-runs", {"filter": "latest"}, key="check_runs")]
    except GitHubError as exc:
        if exc.status in (401, 403, 404):
            raise UserError(f"{exc}; reading CI results of {owner}/{repo} needs a token with "
                            f"{TOKEN_SCOPES}") from None
        raise
    return statuses, runs


def verdict_reader(client: GitHubClient, owner: str, repo: str,
                   require: str | Sequence[str]) -> Callable[[str], Verdict]:
    """``sha -> Verdict`` over GitHub, for ``pick_green``."""
    def read(sha: str) -> Verdict:
        statuses, runs = fetch(client, owner, repo, sha)
        return verdict(sha, statuses, runs, require)
    return read
