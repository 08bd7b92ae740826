"""This repository's checkout as the tool writes to it: bump and next-version branches, release
tags, pushes, and the one bump pull request.

Everything here is idempotent. The commit is made with plumbing (a temporary index), so
the work tree and the checked-out branch are left alone; re-running with the same pins
reuses the same commit. On GitHub there is at most one open bump PR: a new bump
force-pushes that PR's branch and rewrites its title and body instead of opening a
second one, and a bump that finds the pins current closes it.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import os
import tempfile
from pathlib import Path

import git as gitpython

from release import naming
from release.config import Deps, RollVia, parse_deps
from release.errors import UserError
from release.git import ENV, Remote, head_of, remote_error

BRANCH_PREFIX = "bump/"
NEXT_VERSION_PREFIX = "release/next-"
# Branches the tool owns and may force-push: bump PRs and the post-release version move.
TOOL_BRANCH_PREFIXES = (BRANCH_PREFIX, NEXT_VERSION_PREFIX)
DEFAULT_IDENTITY = ("jax-rocm-release", "jax-rocm-release@users.noreply.github.com")


def branch_name(date: _dt.date, names: tuple[str, ...]) -> str:
    """``bump/2026-11-22-jax-xla``."""
    return f"{BRANCH_PREFIX}{date.isoformat()}-{'-'.join(names)}"


class ReleaseRepo:
    """The git checkout this project lives in (where deps.yaml is committed)."""

    def __init__(self, root: Path):
        try:
            self.repo = gitpython.Repo(str(root), search_parent_directories=True)
        except (gitpython.InvalidGitRepositoryError, gitpython.NoSuchPathError):
            raise UserError(f"{root}: not inside a git checkout; --commit needs one") from None
        top = self.repo.working_tree_dir
        if self.repo.bare or top is None:
            raise UserError(f"{root}: a bare repository; --commit needs a checkout")
        self.top = Path(top).resolve()
        self.g = self.repo.git
        self.g.update_environment(**ENV)

    def _run(self, *args: str, env: dict | None = None) -> tuple[int, str, str]:
        return self.g.execute(["git", *args], with_extended_output=True, with_exceptions=False,
                              env=env, strip_newline_in_stdout=False)

    def relpath(self, path: Path) -> str:
        return Path(path).resolve().relative_to(self.top).as_posix()

    def committed(self, path: Path) -> str | None:
        """The text of ``path`` at HEAD (None if HEAD lacks it)."""
        status, out, _ = self._run("show", f"HEAD:{self.relpath(path)}")
        return out if status == 0 else None

    def head(self) -> str:
        """HEAD of this checkout (``git.head_of``); a checkout with no commit yet is refused."""
        head = head_of(self.top)
        if head is None:
            raise UserError(f"{self.top}: the checkout has no commit yet; --commit needs one")
        return head

    def current_branch(self) -> str:
        status, out, _ = self._run("symbolic-ref", "--quiet", "--short", "HEAD")
        if status != 0:
            raise UserError(f"{self.top}: HEAD is detached; check out the branch a bump PR should "
                            "target (e.g. main)")
        return out.strip()

    def dirty(self) -> list[str]:
        """``git status --porcelain`` lines: changed or untracked (not ignored) files."""
        return [line for line in self._run("status", "--porcelain", "--untracked-files=normal")[1]
                .splitlines() if line.strip()]

    def tag_commit(self, tag: str) -> str | None:
        """The commit ``tag`` points at (None when there is no such tag)."""
        status, out, _ = self._run("rev-parse", "--verify", "--quiet", f"refs/tags/{tag}^{{commit}}")
        return out.strip() if status == 0 else None

    def create_tag(self, tag: str, commit: str, message: str) -> None:
        """An annotated tag at ``commit``, made with the same identity as the tool's commits."""
        status, _, err = self._run("tag", "-a", tag, commit, "-m", message, env=self._identity_env())
        if status != 0:
            raise UserError(f"{self.top}: cannot create tag {tag}: {err.strip()}")

    def push_tag(self, tag: str, remote: str = "origin") -> None:
        status, _, err = self._run("push", "--quiet", remote, f"refs/tags/{tag}")
        if status != 0:
            url = self._run("remote", "get-url", remote)[1].strip() or remote
            raise remote_error(Remote(remote, url), f"cannot push tag {tag} to", err)

    def _identity_env(self) -> dict:
        env = dict(os.environ)
        name = self._run("config", "user.name")[1].strip()
        email = self._run("config", "user.email")[1].strip()
        for kind in ("AUTHOR", "COMMITTER"):
            env.setdefault(f"GIT_{kind}_NAME", name or DEFAULT_IDENTITY[0])
            env.setdefault(f"GIT_{kind}_EMAIL", email or DEFAULT_IDENTITY[1])
        return env | ENV

    def commit_file(self, branch: str, path: Path, text: str, message: str) -> str:
        """One commit on top of HEAD changing only ``path`` to ``text``, at ``refs/heads/branch``.

        Re-running with the same content and message returns the existing commit. The message
        is redacted (it leaves the machine with the push).
        """
        from release.redact import redact
        message = redact(message)
        rel, head = self.relpath(path), self.head()
        with tempfile.TemporaryDirectory() as tmp:
            return self._commit_file(Path(tmp), branch, rel, head, text, message)

    def _commit_file(self, tmp: Path, branch: str, rel: str, head: str, text: str, message: str) -> str:
        (tmp / "content").write_text(text, encoding="utf-8")
        (tmp / "message").write_text(message, encoding="utf-8")
        status, existing, _ = self._run("rev-parse", "--verify", "--quiet", f"refs/heads/{branch}")
        blob = self._run("hash-object", "-w", "--", str(tmp / "content"))[1].strip()
        if status == 0:
            existing = existing.strip()
            same = (self._run("rev-parse", f"{existing}^")[1].strip() == head
                    and self._run("rev-parse", f"{existing}:{rel}")[1].strip() == blob
                    and self._run("log", "-1", "--format=%B", existing)[1].strip() == message.strip())
            if same:
                return existing
        env = self._identity_env() | {"GIT_INDEX_FILE": str(tmp / "index")}
        for args in (("read-tree", head), ("update-index", "--add", "--cacheinfo", f"100644,{blob},{rel}")):
            status, _, err = self._run(*args, env=env)
            if status != 0:
                raise AssertionError(f"git {args[0]} failed: {err}")
        tree = self._run("write-tree", env=env)[1].strip()
        status, sha, err = self._run("commit-tree", tree, "-p", head, "-F", str(tmp / "message"), env=env)
        if status != 0:
            raise UserError(f"{self.top}: cannot commit the bump: {err.strip().splitlines()[-1]}")
        sha = sha.strip()
        self._run("update-ref", f"refs/heads/{branch}", sha)
        return sha

    def push(self, sha: str, branch: str, remote: str = "origin") -> None:
        """Force-push ``sha`` to ``branch`` on ``remote`` (only branches the tool owns)."""
        if not branch.startswith(TOOL_BRANCH_PREFIXES):
            raise AssertionError(f"refusing to force-push {branch}: not a branch this tool owns")
        status, _, err = self._run("push", "--quiet", "--force", remote, f"{sha}:refs/heads/{branch}")
        if status != 0:
            url = self._run("remote", "get-url", remote)[1].strip() or remote
            raise remote_error(Remote(remote, url), "cannot push to", err)


# ---------------------------------------------------------------- the pull request


@dataclasses.dataclass(frozen=True)
class PullResult:
    action: str  # "opened", "updated", "closed", "none"
    number: int | None = None
    url: str | None = None
    branch: str | None = None
    closed: tuple[int, ...] = ()

    def to_json(self) -> dict:
        return dataclasses.asdict(self) | {"closed": list(self.closed)}


def repository_from_env(env=None) -> tuple[str, str]:
    env = os.environ if env is None else env
    full = env.get("GITHUB_REPOSITORY", "")
    owner, _, name = full.partition("/")
    if not owner or not name or "/" in name:
        raise UserError(f"GITHUB_REPOSITORY is {full!r}; expected owner/name of this repository "
                        "(GitHub Actions sets it)")
    return owner, name


def open_bump_pulls(client, owner: str, name: str, base: str) -> list[dict]:
    """Open PRs into ``base`` from this repository's ``bump/`` branches, newest first."""
    pulls = client.list_pulls(owner, name, state="open", base=base)
    mine = [p for p in pulls if p["head"]["ref"].startswith(BRANCH_PREFIX)
            and p["head"].get("label", f"{owner}:").split(":")[0] == owner]
    return sorted(mine, key=lambda p: -p["number"])


def sync_pull(client, repo: ReleaseRepo, *, owner: str, name: str, base: str, sha: str | None,
              branch: str, title: str, body: str) -> PullResult:
    """Open, update or close the one bump PR. ``sha`` None means the pins are current."""
    pulls = open_bump_pulls(client, owner, name, base)
    if sha is None:
        for pull in pulls:
            client.update_pull(owner, name, pull["number"], state="closed")
        return PullResult("closed" if pulls else "none", closed=tuple(p["number"] for p in pulls))
    if pulls:
        keep, extra = pulls[0], pulls[1:]
        repo.push(sha, keep["head"]["ref"])
        pull = client.update_pull(owner, name, keep["number"], title=title, body=body)
        for dup in extra:  # left over from some earlier tool; one bump PR is the rule
            client.update_pull(owner, name, dup["number"], state="closed")
        return PullResult("updated", pull["number"], pull.get("html_url"), keep["head"]["ref"],
                          tuple(p["number"] for p in extra))
    repo.push(sha, branch)
    pull = client.create_pull(owner, name, title=title, head=branch, base=base, body=body)
    return PullResult("opened", pull["number"], pull.get("html_url"), branch)


def next_version_pull(client, owner: str, name: str, *, released: str, next_version: str,
                      branch: str, base: str) -> dict:
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
    client: object
    owner: str
    name: str
    base: str


def committed_deps(repo: ReleaseRepo, deps: Deps) -> Deps:
    """deps.yaml as committed at HEAD, which a committing bump rolls from, so a re-run after a
    crash (file written, nothing committed yet) still commits. Uncommitted edits besides
    what a bump writes (pins; for via deps also branch, archive sha256 and patches) are refused."""
    committed = repo.committed(deps.path)
    if committed is None:
        raise UserError(f"{deps.path}: not committed at HEAD; --commit needs it committed")
    base = parse_deps(deps.path, committed)
    pins: dict[str, dict[str, object]]  # per dep, the pin fields a bump writes
    pins = {d.name: {"commit": d.commit} | ({"branch": d.branch, "archive_sha256": d.archive_sha256,
                                            "patches": d.patches} if isinstance(d.roll, RollVia) else {})
            for d in deps}
    if base.with_pins(pins) != deps:
        raise UserError(f"{deps.path}: has uncommitted edits besides pins; commit or revert them "
                        "before --commit")
    return base


def deliver_bump(repo: ReleaseRepo, deps_path: Path, *, moved: tuple[str, ...], date: _dt.date,
                 title: str, body: str, push: bool, pull: BumpPull | None = None) -> dict:
    """Commit deps.yaml (as written) on ``bump/<date>-<moved>`` and push it, or sync the one
    bump PR (which pushes); with nothing ``moved``, close that PR. Returns what was done:
    ``branch``, ``commit``, ``pushed``, ``pull_request`` (each only when it happened)."""
    done: dict = {}
    if moved:
        branch = branch_name(date, moved)
        sha = repo.commit_file(branch, deps_path, deps_path.read_text(encoding="utf-8"),
                               f"{title}\n\n{body}")
        done |= {"branch": branch, "commit": sha}
        if pull is not None:
            pr = sync_pull(pull.client, repo, owner=pull.owner, name=pull.name, base=pull.base,
                           sha=sha, branch=branch, title=title, body=body)
            done |= {"pull_request": pr.to_json(), "branch": pr.branch}
        elif push:
            repo.push(sha, branch)
            done["pushed"] = True
    elif pull is not None:
        done["pull_request"] = sync_pull(pull.client, repo, owner=pull.owner, name=pull.name,
                                         base=pull.base, sha=None, branch="", title=title,
                                         body=body).to_json()
    return done
