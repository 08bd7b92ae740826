"""The git edge (GitPython): ask remotes for branch tips, keep cached mirrors, walk history.

Knows nothing of releases. A remote is a URL plus a label for messages (the caller's
name for it). Mirrors are bare, blob-filtered (``--filter=blob:none``) and shallow: a
mirror holds only the commits and trees a question needs, deepened on demand, so
answering "what changed between two pins" never clones a whole history. Blobs arrive
one at a time, lazily, when a file is read or a commit is checked out.

Every git process runs with ``GIT_TERMINAL_PROMPT=0`` (never prompts). Failures a user
can cause (unreachable remote, missing branch, refused credentials) become one-line
``UserError``s naming the label and the URL with credentials stripped.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import re
from pathlib import Path

import git as gitpython
from filelock import FileLock

from release.errors import UserError
from release.redact import redact, register_secret

# Never ask a person for anything: fail instead.
ENV = {
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_ASKPASS": "true",
    "SSH_ASKPASS": "true",
    "GCM_INTERACTIVE": "never",
    "GIT_SSH_COMMAND": "ssh -o BatchMode=yes",
    "GIT_HTTP_LOW_SPEED_LIMIT": "1000",
    "GIT_HTTP_LOW_SPEED_TIME": "60",
    "LC_ALL": "C",
}
FILTER = "--filter=blob:none"
FIRST_DEPTH = 64  # commits of a branch fetched the first time; deepened x4 when a question needs more
TIMEOUT = 1800.0
_SHA = re.compile(r"^[0-9a-f]{40}$")


@dataclasses.dataclass(frozen=True)
class Remote:
    label: str  # who is asking, for messages ("xla")
    url: str

    def __post_init__(self):
        m = re.match(r"^[a-z+]+://[^/@\s:]+:([^/@\s]+)@", self.url)
        if m:
            register_secret(m.group(1))

    @property
    def shown(self) -> str:
        """The URL safe to print."""
        return redact(self.url)


@dataclasses.dataclass(frozen=True)
class LogEntry:
    sha: str
    date: str  # committer date, ISO 8601
    author: str
    subject: str

    @property
    def short(self) -> str:
        return self.sha[:7]


_AUTH = re.compile(r"authentication failed|could not read (username|password)|terminal prompts disabled"
                   r"|returned error: 40[13]\b|permission denied|access denied")
_MISSING = re.compile(r"repository .*not found|does not appear to be a git repository|returned error: 404\b"
                      r"|no such file or directory")
_UNREACHABLE = re.compile(r"could not resolve|connection refused|failed to connect|timed out"
                          r"|network is unreachable|couldn't connect")


def remote_error(remote: Remote, what: str, stderr: str) -> UserError:
    """A one-line error for a git failure talking to ``remote``."""
    # Classify on the message without URLs, so a port like :40123 is never read as a 401.
    low = re.sub(r"\S+://\S+", "<url>", stderr or "").lower()
    if _AUTH.search(low):
        why = "authentication failed (check the token or credentials)"
    elif _MISSING.search(low):
        why = "no repository there"
    elif _UNREACHABLE.search(low) or "unable to access" in low:
        why = "remote unreachable"
    else:
        lines = [line.strip() for line in (stderr or "").splitlines() if line.strip()]
        why = f"git failed ({lines[-1] if lines else 'no message'})"
    return UserError(redact(f"{remote.label}: {what} {remote.shown}: {why}"))


def _git(cwd: Path | None = None) -> gitpython.Git:
    g = gitpython.Git(str(cwd) if cwd else None)
    g.update_environment(**ENV)
    return g


def ls_remote(remote: Remote, branch: str) -> str:
    """The commit at the tip of ``branch`` on ``remote``, asked without cloning."""
    status, out, err = _git().execute(
        ["git", "ls-remote", "--", remote.url, f"refs/heads/{branch}"],
        with_extended_output=True, with_exceptions=False, kill_after_timeout=TIMEOUT)
    if status != 0:
        raise remote_error(remote, "cannot list", err)
    for line in out.splitlines():
        sha, _, ref = line.partition("\t")
        if ref == f"refs/heads/{branch}" and _SHA.match(sha):
            return sha
    raise UserError(f"{remote.label}: no branch '{branch}' on {remote.shown}")


def mirror_dir(cache: Path, url: str) -> Path:
    """Where the mirror of ``url`` lives under ``cache``: readable name plus a hash of the URL
    without credentials (a rotated token keeps its mirror)."""
    bare = re.sub(r"(?<=://)[^/@\s]+@", "", url)
    tail = re.sub(r"\.git$", "", bare.rstrip("/").rsplit("/", 1)[-1]) or "repo"
    tail = re.sub(r"[^A-Za-z0-9._-]", "_", tail)
    return Path(cache) / f"{tail}-{hashlib.sha256(bare.encode()).hexdigest()[:12]}.git"


class Mirror:
    """A cached bare, blob-filtered, shallow mirror of one remote, reused between runs.

    Use as a context manager: it holds a file lock so two runs never fetch into one
    mirror at once.
    """

    def __init__(self, cache: Path, remote: Remote):
        self.remote = remote
        self.path = mirror_dir(cache, remote.url)
        self._lock = FileLock(str(self.path) + ".lock")
        self.fetches = 0  # how many times this object talked to the remote (for tests and logs)

    def __enter__(self) -> "Mirror":
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock.acquire()
        try:
            self._open()
        except BaseException:
            self._lock.release()
            raise
        return self

    def __exit__(self, *exc) -> None:
        self._lock.release()

    def _open(self) -> None:
        if not (self.path / "HEAD").is_file():
            tmp = self.path.with_name(self.path.name + ".new")
            if tmp.exists():
                import shutil
                shutil.rmtree(tmp)
            gitpython.Repo.init(str(tmp), bare=True)
            g = _git(tmp)
            for key, value in (("remote.origin.promisor", "true"),
                               ("remote.origin.partialclonefilter", "blob:none"),
                               ("core.repositoryformatversion", "1"),
                               ("extensions.partialclone", "origin"),
                               ("gc.auto", "0"), ("maintenance.auto", "false")):
                g.config(key, value)
            g.config("remote.origin.url", self.remote.url)
            os.replace(tmp, self.path)  # a crash mid-init leaves no half mirror behind
        self._g = _git(self.path)
        if self._config("remote.origin.url") != self.remote.url:
            self._g.config("remote.origin.url", self.remote.url)

    # ---------------------------------------------------------------- plumbing

    def _run(self, *args: str, check: bool = True) -> tuple[int, str, str]:
        status, out, err = self._g.execute(["git", *args], with_extended_output=True,
                                           with_exceptions=False, kill_after_timeout=TIMEOUT)
        if check and status != 0:
            raise AssertionError(redact(f"git {' '.join(args)} failed in {self.path}: {err}"))
        return status, out, err

    def _config(self, key: str) -> str | None:
        status, out, _ = self._run("config", "--get", key, check=False)
        return out if status == 0 else None

    def _fetch(self, *args: str) -> tuple[int, str]:
        self.fetches += 1
        status, _, err = self._run("fetch", "--no-tags", "--no-write-fetch-head", "--quiet", FILTER,
                                   *args, check=False)
        return status, err

    def shallow(self) -> set[str]:
        path = self.path / "shallow"
        return set(path.read_text().split()) if path.is_file() else set()

    # ---------------------------------------------------------------- questions

    def has_commit(self, sha: str) -> bool:
        """Whether the commit is here, without the lazy fetch a partial repository would do."""
        status, out, _ = self._run("rev-list", "--missing=print", "--no-walk", sha, check=False)
        return status == 0 and out.strip() == sha

    def tracking_ref(self, branch: str) -> str:
        return f"refs/remotes/origin/{branch}"

    def branch_tip(self, branch: str) -> str | None:
        status, out, _ = self._run("rev-parse", "--verify", "--quiet", self.tracking_ref(branch), check=False)
        return out.strip() if status == 0 else None

    def fetch_branch(self, branch: str) -> str:
        """Bring the branch up to date: shallow the first time, incremental after. Returns its tip."""
        spec = f"+refs/heads/{branch}:{self.tracking_ref(branch)}"
        args = (spec,) if self.branch_tip(branch) else (f"--depth={FIRST_DEPTH}", spec)
        status, err = self._fetch("origin", *args)
        if status != 0:
            if "couldn't find remote ref" in err.lower():
                raise UserError(f"{self.remote.label}: no branch '{branch}' on {self.remote.shown}")
            raise remote_error(self.remote, "cannot fetch from", err)
        return self.branch_tip(branch)

    def fetch_commit(self, sha: str) -> bool:
        """Make sure ``sha`` is here (one commit, shallow, no blobs). False when the remote lacks it."""
        if self.has_commit(sha):
            return True
        status, err = self._fetch("--depth=1", "origin", sha)
        if status != 0:
            low = err.lower()
            if any(s in low for s in ("not our ref", "no such remote ref", "couldn't find remote ref",
                                      "unadvertised object", "bad object", "upload-pack: not our")):
                return False
            raise remote_error(self.remote, "cannot fetch from", err)
        return self.has_commit(sha)

    def _range(self, desc: str, anc: str | None) -> list[str]:
        args = ["rev-list", "--missing=allow-promisor", desc] + ([f"^{anc}"] if anc else [])
        return self._run(*args)[1].split()

    def complete(self, desc: str, anc: str | None = None) -> list[str]:
        """The commits reachable from ``desc`` but not ``anc``, deepening until none is cut off.

        A shallow mirror may hide part of the range behind its boundary; deepen (x4 each
        round) until no commit of the range sits on the boundary.
        """
        depth = FIRST_DEPTH
        while True:
            commits = self._range(desc, anc)
            boundary = self.shallow().intersection(commits)
            if not boundary:
                return commits
            before = self.shallow()
            status, err = self._fetch(f"--deepen={depth}", "origin", desc)
            if status != 0:
                raise remote_error(self.remote, "cannot fetch from", err)
            if self.shallow() == before:  # the remote has nothing older to give
                return commits
            depth *= 4

    def is_ancestor(self, anc: str, desc: str) -> bool:
        """Whether ``anc`` is reachable from ``desc``. Both must be here (see ``fetch_commit``)."""
        if self._run("merge-base", "--is-ancestor", anc, desc, check=False)[0] == 0:
            return True
        self.complete(desc, anc)
        return self._run("merge-base", "--is-ancestor", anc, desc, check=False)[0] == 0

    def on_branch(self, sha: str, branch: str) -> bool:
        """Whether ``sha`` (already here) is reachable from the remote's ``branch`` as it is now."""
        return self.is_ancestor(sha, self.fetch_branch(branch))

    def log(self, old: str | None, new: str) -> list[LogEntry]:
        """Commits in ``old..new``, newest first (the full range, deepening as needed)."""
        self.complete(new, old)
        fmt = "%H%x00%cI%x00%an%x00%s%x00"
        args = ["rev-list", "--missing=allow-promisor", "--no-commit-header", f"--format={fmt}", new]
        out = self._run(*args + ([f"^{old}"] if old else []))[1]
        fields = out.split("\x00")
        entries = []
        for i in range(0, len(fields) - 4, 4):
            sha, date, author, subject = (f.strip("\n") for f in fields[i:i + 4])
            entries.append(LogEntry(sha, date, author, subject))
        return entries

    def read_file(self, sha: str, path: str) -> str | None:
        """The text of ``path`` at commit ``sha`` (fetches that one blob if needed); None if absent."""
        out = self._run("ls-tree", "-z", sha, "--", path)[1]
        entry = out.split("\x00")[0]
        if not entry:
            return None
        meta, _, name = entry.partition("\t")
        mode, kind, blob = meta.split()
        if kind != "blob" or name != path:
            return None
        status, text, err = self._run("cat-file", "blob", blob, check=False)
        if status != 0:
            raise remote_error(self.remote, "cannot fetch a file from", err)
        return text

    # ---------------------------------------------------------------- checkouts

    def checkout(self, sha: str, dest: Path) -> None:
        """Make ``dest`` a detached worktree of this mirror at ``sha`` (blobs fetched lazily, once)."""
        dest = Path(dest)
        if (dest / ".git").exists():
            status, _, err = _git(dest).execute(["git", "checkout", "--quiet", "--detach", sha],
                                                with_extended_output=True, with_exceptions=False,
                                                kill_after_timeout=TIMEOUT)
        else:
            self._run("worktree", "prune")
            status, _, err = self._run("worktree", "add", "--quiet", "--detach", "--force", str(dest), sha,
                                       check=False)
        if status != 0:
            raise remote_error(self.remote, f"cannot check out {sha[:7]} from", err)
        self.fetches += 1  # a checkout may fetch the blobs it lacks


def head_of(path: Path) -> str | None:
    """The commit checked out in the work tree at ``path``, or None if it is not one."""
    if not (Path(path) / ".git").exists():
        return None
    status, out, _ = _git(path).execute(["git", "rev-parse", "--verify", "--quiet", "HEAD"],
                                        with_extended_output=True, with_exceptions=False)
    return out.strip() if status == 0 else None


def repo_head(path: Path) -> str | None:
    """HEAD of the checkout that contains ``path`` (None outside one, or before a commit)."""
    start = Path(path).resolve()
    for candidate in (start, *start.parents):
        if (candidate / ".git").exists():
            return head_of(candidate)
    return None


def common_dir(path: Path) -> Path | None:
    """The repository a work tree belongs to (its mirror, for worktrees), or None."""
    status, out, _ = _git(path).execute(["git", "rev-parse", "--path-format=absolute", "--git-common-dir"],
                                        with_extended_output=True, with_exceptions=False)
    return Path(out.strip()).resolve() if status == 0 else None
