"""The git edge: remotes and their errors, cached mirrors, history questions.

Knows nothing of releases. A remote is a URL plus a label for messages (the caller's
name for it). Mirrors are bare, blob-filtered (``--filter=blob:none``) and shallow: a
mirror holds only the commits and trees a question needs, deepened on demand, so
answering "what changed between two pins" never clones a whole history. Blobs arrive
one at a time, lazily, when a file is read or a commit is checked out.

Every git process runs with ``GIT_TERMINAL_PROMPT=0`` (never prompts). Failures a user
can cause (unreachable remote, missing branch, refused credentials) become one-line
``UserError``s naming the label and the URL with credentials stripped.

Credentials in a remote URL (``https://x-access-token:TOKEN@host/...``) never reach disk
or argv: git gets the URL without them, and the credentials as an ``Authorization``
header in the environment of each command (``GIT_CONFIG_COUNT``), so a mirror's config
holds the bare URL and a rotated token keeps working with the same mirror. git sends that
header after a redirect too, whatever the new host: a remote with credentials is never
followed to another place (``http.followRedirects=false``); the error says to name the new URL.
"""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import os
import re
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING

from release.core.errors import RemoteError, UserError
from release.core.redact import display_url, redact, register_secret, url_credentials

if TYPE_CHECKING:
    from filelock import FileLock

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
FILTER = "--filter=blob:none"  # a commit with its trees: to read a file or check it out
HISTORY_FILTER = "--filter=tree:0"  # commits only: ancestry, counts and logs need nothing more
FIRST_DEPTH = 64  # commits of a branch fetched the first time; deepened x4 when a question needs more
# How far below the newest cut-off commit a history question first fetches, by date (at least
# twice the time between the two commits asked about), doubled each round after. Commits only cost
# ~300 bytes each: a round trip (a fetch, then walks to check what it left) costs more than
# thousands of extra commits, so the window is wide and grows fast.
FIRST_WINDOW = 60 * 86400
TIMEOUT = 1800.0
SKEW = 2 * 86400  # clock skew allowed between a commit and its descendants when bounding by date
_SHA = re.compile(r"^[0-9a-f]{40}\Z", re.ASCII)
# A fetch by date that selects no commit: git says so over file:// and ssh; over smart HTTP the
# server's words are lost (stateless: it just ends the shallow-info section), and the client
# reports the section it could not read. Both mean "nothing that new here".
_NOTHING_SINCE = ("no commits selected for shallow requests", "error processing shallow info")


def nothing_since(stderr: str) -> bool:
    """Whether a ``--shallow-since`` fetch failed only because no commit is that new (any transport)."""
    low = (stderr or "").lower()
    return any(s in low for s in _NOTHING_SINCE)


@dataclasses.dataclass(frozen=True)
class Remote:
    label: str  # who is asking, for messages ("xla")
    url: str

    def __post_init__(self) -> None:
        url_credentials(self.url)  # registers any credentials in it as secrets

    @property
    def shown(self) -> str:
        """The URL safe to print."""
        return display_url(self.url)

    @property
    def bare_url(self) -> str:
        """The URL without credentials: what git is given and what a mirror's config keeps."""
        return url_credentials(self.url)[0]

    def auth_env(self) -> dict[str, str]:
        """The URL's credentials as an ``Authorization`` header for one git process's environment
        (none when the URL has none)."""
        bare, user, password = url_credentials(self.url)
        if user is None:
            return {}
        basic = base64.b64encode(f"{user}:{password or ''}".encode()).decode()
        register_secret(basic)
        parts = bare.split("/", 3)
        origin = "/".join(parts[:3]) + "/"  # scheme://host[:port]/: every path of this remote
        # git applies the header to every request of the process, including those after a
        # redirect to another host: with credentials, a redirect is refused instead of followed.
        return {"GIT_CONFIG_COUNT": "2", "GIT_CONFIG_KEY_0": f"http.{origin}.extraHeader",
                "GIT_CONFIG_VALUE_0": f"Authorization: Basic {basic}",
                "GIT_CONFIG_KEY_1": "http.followRedirects", "GIT_CONFIG_VALUE_1": "false"}


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
_REDIRECT = re.compile(r"returned error: 30[1278]\b")
_MISSING = re.compile(r"repository .*not found|does not appear to be a git repository|returned error: 404\b"
                      r"|no such file or directory")
_UNREACHABLE = re.compile(r"could not resolve|connection refused|failed to connect|timed out"
                          r"|network is unreachable|couldn't connect")


def remote_error(remote: Remote, what: str, stderr: str) -> UserError | RemoteError:
    """A one-line error for a git failure talking to ``remote``: the remote's fault (exit 3) when
    it could not be reached, else the caller's (credentials, URL, branch: exit 2)."""
    # Classify on the message without URLs, so a port like :40123 is never read as a 401.
    low = re.sub(r"\S+://\S+", "<url>", stderr or "").lower()
    if _REDIRECT.search(low):
        why = ("it redirects elsewhere, and credentials go only to the host deps.yaml names "
               "(put the URL it moved to in deps.yaml)")
    elif _AUTH.search(low):
        why = "authentication failed (check the token or credentials)"
    elif _MISSING.search(low):
        why = "no repository there"
    elif _UNREACHABLE.search(low) or "unable to access" in low:
        why = "remote unreachable"
    else:
        lines = [line.strip() for line in (stderr or "").splitlines() if line.strip()]
        why = f"git failed ({lines[-1] if lines else 'no message'})"
    kind = RemoteError if why == "remote unreachable" else UserError
    return kind(redact(f"{remote.label}: {what} {remote.shown}: {why}"))


def run_git(args: list[str], cwd: Path | None = None, env: dict[str, str] | None = None,
            input: str | None = None, encoding: str = "utf-8") -> tuple[int, str, str]:
    """One git process: ``(status, stdout, stderr)``, never raising for git's own failures.

    Runs with ``ENV`` (never prompts) over this process's environment, plus ``env`` (a
    remote's credentials); stdout and stderr lose one trailing newline, as a shell's ``$(...)``
    would. A process still running after ``TIMEOUT`` is killed and reported as timed out.
    ``encoding="latin-1"`` keeps one character per byte (to follow sizes git gives in bytes).
    """
    try:
        stdin = {"input": input} if input is not None else {"stdin": subprocess.DEVNULL}
        proc = subprocess.run(["git", *args], cwd=str(cwd) if cwd else None, **stdin,
                              env={**os.environ, **ENV, **(env or {})}, capture_output=True,
                              encoding=encoding, errors="replace", timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        return 124, "", f"fatal: git {args[0]} timed out after {TIMEOUT:.0f} s"
    return proc.returncode, proc.stdout.removesuffix("\n"), proc.stderr.removesuffix("\n")


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
    mirror at once. ``first_depth``: commits of a branch fetched the first time (a small one
    makes every history question deepen, as a long history does); ``first_window``: seconds
    of history below the newest cut a question first fetches by date (0: by count only).
    """

    def __init__(self, cache: Path, remote: Remote, *, first_depth: int = FIRST_DEPTH,
                 first_window: int = FIRST_WINDOW):
        self.remote = remote
        self.first_depth = first_depth
        self.first_window = first_window
        self.path = mirror_dir(cache, remote.url)
        self._filelock: FileLock | None = None
        self.fetches = 0  # how many times this object talked to the remote (for tests and logs)
        # Pairs whose ranges were found whole: a fetch only ever adds history (``_keep_history``),
        # so they stay whole and are not walked again.
        self._whole: dict[tuple[str, str | None], tuple[list[str], list[str]]] = {}

    @property
    def _lock(self) -> FileLock:
        """The mirror's lock, made when first taken (a command that only reads pins never loads it)."""
        if self._filelock is None:
            from filelock import FileLock
            self._filelock = FileLock(str(self.path) + ".lock")
        return self._filelock

    def __enter__(self) -> Mirror:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock.acquire()
        try:
            self._open()
        except BaseException:
            self._lock.release()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self._lock.release()

    def _open(self) -> None:
        if not (self.path / "HEAD").is_file():
            tmp = self.path.with_name(self.path.name + ".new")
            if tmp.exists():
                import shutil
                shutil.rmtree(tmp)
            status, _, err = run_git(["init", "--quiet", "--bare", str(tmp)])
            if status != 0:
                raise AssertionError(f"git init failed in {tmp}: {err}")
            for key, value in (("remote.origin.promisor", "true"),
                               ("remote.origin.partialclonefilter", "blob:none"),
                               ("core.repositoryformatversion", "1"),
                               ("extensions.partialclone", "origin"),
                               ("gc.auto", "0"), ("maintenance.auto", "false"),
                               ("remote.origin.url", self.remote.bare_url)):
                run_git(["config", key, value], cwd=tmp)
            os.replace(tmp, self.path)  # a crash mid-init leaves no half mirror behind
        self._env = self.remote.auth_env()
        if self._config("remote.origin.url") != self.remote.bare_url:  # also scrubs an old token
            self._run("config", "remote.origin.url", self.remote.bare_url)

    # ---------------------------------------------------------------- plumbing

    def _run(self, *args: str, check: bool = True, input: str | None = None,
             encoding: str = "utf-8") -> tuple[int, str, str]:
        status, out, err = run_git(list(args), self.path, self._env, input, encoding)
        if check and status != 0:
            raise AssertionError(redact(f"git {' '.join(args)} failed in {self.path}: {err}"))
        return status, out, err

    def _config(self, key: str) -> str | None:
        status, out, _ = self._run("config", "--get", key, check=False)
        return out if status == 0 else None

    def _fetch(self, *args: str, filter: str = HISTORY_FILTER) -> tuple[int, str]:
        """One fetch from origin. Depth-limited fetches mark the commits they stop at as
        shallow even when this mirror already has their parents (git shortens history);
        such marks are dropped again so history once fetched is never fetched twice."""
        self.fetches += 1
        before = self.shallow()
        status, _, err = self._run("fetch", "--no-tags", "--no-write-fetch-head", "--quiet", filter,
                                   *args, check=False)
        self._keep_history(self.shallow() - before)
        return status, err

    def _keep_history(self, marked: set[str]) -> None:
        # A fetch by date may also mark commits it did not send: only those here are read
        # (reading one that is not would fetch it, with its trees).
        marked = self._present(marked)
        if not marked:
            return
        parents = self._raw_parents(marked)
        present = self._present(set().union(*parents.values()))
        keep = {sha for sha in marked if present.issuperset(parents[sha])}
        if keep:
            path = self.path / "shallow"
            rest = sorted(self.shallow() - keep)
            if rest:
                tmp = path.with_name("shallow.new")
                tmp.write_text("".join(f"{sha}\n" for sha in rest))
                os.replace(tmp, path)
            else:
                path.unlink()

    def _raw_parents(self, shas: set[str]) -> dict[str, list[str]]:
        """Parents of commits that are here, as their objects record them (a shallow mark hides
        them from rev-list), in one git process."""
        out = self._run("cat-file", "--batch", input="".join(f"{sha}\n" for sha in sorted(shas)),
                        encoding="latin-1")[1]  # sizes are in bytes
        parents: dict[str, list[str]] = {}
        pos = 0
        while pos < len(out):
            header, _, rest = out[pos:].partition("\n")
            sha, _, size = header.split()
            body = rest[:int(size)]
            parents[sha] = [line.split()[1] for line in body.split("\n\n", 1)[0].splitlines()
                            if line.startswith("parent ")]
            pos += len(header) + 1 + int(size) + 1
        return parents

    def _present(self, shas: set[str]) -> set[str]:
        """Which of these commits are here, in one git process and without the lazy fetch a
        partial repository would do for a missing one."""
        if not shas:
            return set()
        out = self._run("rev-list", "--missing=print", "--ignore-missing", "--no-walk", "--stdin",
                        input="".join(f"{sha}\n" for sha in sorted(shas)))[1]
        return set(out.split()) & shas

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
        args = (spec,) if self.branch_tip(branch) else (f"--depth={self.first_depth}", spec)
        status, err = self._fetch("origin", *args)
        if status != 0:
            if "couldn't find remote ref" in err.lower():
                raise UserError(f"{self.remote.label}: no branch '{branch}' on {self.remote.shown}")
            raise remote_error(self.remote, "cannot fetch from", err)
        tip = self.branch_tip(branch)
        if tip is None:  # git said the fetch worked, yet the branch is not there
            raise RemoteError(f"{self.remote.label}: fetching '{branch}' from {self.remote.shown} "
                              "left no branch")
        return tip

    def has_tree(self, sha: str) -> bool:
        """Whether the commit's root tree is here (a commit fetched for its history has none)."""
        status, out, _ = self._run("rev-list", "--missing=print", "--objects", "--no-walk",
                                   "--filter=tree:1", sha, check=False)
        return status == 0 and not any(line.startswith("?") for line in out.splitlines())

    def fetch_commit(self, sha: str, *, trees: bool = True) -> bool:
        """Make sure ``sha`` is here, with its trees (to read files or check out) or without
        (enough for history questions). False when the remote lacks it."""
        if self.has_commit(sha) and (not trees or self.has_tree(sha)):
            return True
        # --refetch: a present commit makes the server assume its trees are here too.
        extra = ("--refetch",) if self.has_commit(sha) else ()
        status, err = self._fetch("--depth=1", *extra, "origin", sha, filter=FILTER if trees else HISTORY_FILTER)
        if status != 0:
            low = err.lower()
            if any(s in low for s in ("not our ref", "no such remote ref", "couldn't find remote ref",
                                      "unadvertised object", "bad object", "upload-pack: not our")):
                return False
            raise remote_error(self.remote, "cannot fetch from", err)
        return self.has_commit(sha)

    def commit_time(self, sha: str) -> int:
        """Committer time of a commit that is here (seconds since the epoch)."""
        return int(self._run("log", "-1", "--format=%ct", sha)[1].strip())

    def branch_contains(self, branch: str, sha: str, since: int, tip: str | None = None) -> bool:
        """Whether the remote ``branch`` as it is now contains ``sha`` (here); see ``containing``."""
        return branch in self.containing((branch,), sha, since, {branch: tip} if tip else None)

    def containing(self, branches: tuple[str, ...], sha: str, since: int,
                   listed: dict[str, str] | None = None) -> set[str]:
        """Which of the remote ``branches`` as they are now contain ``sha`` (here), in one fetch of
        only their commits newer than ``since`` (a time before ``sha`` was committed), no trees.

        A descendant is committed after its ancestors, so the part of a branch newer than
        ``since`` holds every path from its tip to ``sha``. git cuts a merge whose other parent
        is older than ``since`` off whole, so a boundary commit newer than ``since`` is deepened
        until none is left (an upstream sync merges months-old commits). A branch whose whole
        history is older, or that is gone, holds nothing.

        ``listed``: the tips the remote listed a moment ago. When every branch is still where this
        mirror last fetched it and its history is here back past ``since``, nothing is fetched:
        a pin re-checked each day against a branch that did not move costs no fetch.
        """
        if not branches:
            return set()
        specs = [f"+refs/heads/{b}:{self.tracking_ref(b)}" for b in branches]
        covered = self._covers_all(branches, since)
        if covered and listed is not None:
            here = self._tips()
            if all(listed.get(b) is not None and here.get(b) == listed[b] for b in branches):
                return {b for b in self._holding(sha) if b in branches}
        status, err = self._fetch("origin", *(() if covered else (f"--shallow-since={since}",)), *specs)
        if status != 0:
            low = err.lower()
            if nothing_since(low) or "couldn't find remote ref" in low:
                if len(branches) > 1:  # one branch spoilt the batch: ask each alone
                    return {b for b in branches if self.branch_contains(b, sha, since)}
                return set()
            raise remote_error(self.remote, "cannot fetch from", err)
        tips = {b: t for b, t in self._tips().items() if b in branches}
        step = max(self.first_depth, 1)
        while True:  # one git process per question for all branches, one fetch per deepening
            holding = self._holding(sha)
            rest = {t for b, t in tips.items() if b not in holding}
            if not rest:
                break
            reached = self._run("rev-list", "--missing=allow-promisor", *sorted(rest), f"^{sha}")[1].split()
            edge = self.shallow().intersection(reached)
            if not any(t >= since for t in self._times(edge).values()):
                break
            before = self.shallow()
            status, err = self._fetch(f"--deepen={step}", "origin", *sorted(rest))
            if status != 0:
                raise remote_error(self.remote, "cannot fetch from", err)
            if self.shallow() == before:
                break
            step *= 2
        return {b for b in tips if b in holding}

    def _tips(self) -> dict[str, str]:
        """``{branch: tip}`` of every remote-tracking branch here, in one git process."""
        out = self._run("for-each-ref", "--format=%(refname) %(objectname)", "refs/remotes/origin/")[1]
        pairs = (line.split() for line in out.splitlines())
        return {ref.removeprefix("refs/remotes/origin/"): sha for ref, sha in pairs}

    def _holding(self, sha: str) -> set[str]:
        """Remote-tracking branches here whose history (as far as it is here) holds ``sha``."""
        out = self._run("for-each-ref", "--contains", sha, "--format=%(refname)", "refs/remotes/origin/")[1]
        return {ref.removeprefix("refs/remotes/origin/") for ref in out.split()}

    def _covers_all(self, branches: tuple[str, ...], since: int) -> bool:
        """Whether this mirror already has every branch's history back past ``since``."""
        tips = self._tips()
        if any(b not in tips for b in branches):
            return False
        # A boundary commit no older than ``since`` has descendants no older than ``since - SKEW``
        # all the way up to the tip: a walk stopping below that finds every one.
        reached = self._reach(*sorted({tips[b] for b in branches}), since=since - SKEW)
        edge = self.shallow().intersection(reached)
        return all(t < since for t in self._times(edge).values())

    def _range(self, desc: str, anc: str | None) -> list[str]:
        args = ["rev-list", "--missing=allow-promisor", desc] + ([f"^{anc}"] if anc else [])
        return self._run(*args)[1].split()

    def complete(self, desc: str, anc: str | None = None) -> list[str]:
        """The commits reachable from ``desc`` but not ``anc``, deepening until none is cut off."""
        return self.complete_between(desc, anc)[0]

    def complete_between(self, a: str, b: str | None) -> tuple[list[str], list[str]]:
        """Deepen until ``b..a`` and ``a..b`` are whole, and return them (their merge-base and
        counts are then exact).

        First by date, both sides in one fetch: every commit of either history newer than the
        newest cut-off commit less a window (at least twice the time between ``a`` and ``b``,
        whose merge-base is seldom further below the older one), the window doubling each round. A
        date reaches down every merged side line at once, where a depth would go that many
        commits down each of them. When a round by date brings nothing (a cut-off parent older
        than the window: a merge of months-old commits), rounds by count take over: only the
        side whose cut-off history is newest, as git's own merge-base walk goes, its step
        doubling each time. Each round walks both ranges once (``a...b``); a pair found whole
        is not walked again (a fetch only ever adds history, ``_keep_history``).

        Either side may be a local name (``refs/remotes/origin/<branch>``): the remote is asked
        for the commit it names here, never for the name, which only this mirror has.
        """
        a = self.resolve(a)
        b = self.resolve(b) if b else b
        if (a, b) in self._whole:
            known = self._whole[(a, b)]
            return list(known[0]), list(known[1])
        window = 0
        if self.first_window > 0:
            ends = self._times({a, b} if b else {a})
            window = max(self.first_window, 2 * (max(ends.values()) - min(ends.values())))
        depth: dict[str, int] = {}
        done: set[str] = set()  # sides the remote has nothing older for
        while True:
            left, right = self._sides(a, b)
            shallow = self.shallow()
            cuts: dict[str, set[str]] = {}
            for desc, anc, inside in ((a, b, left), (b, a, right)):
                if desc and desc not in done:
                    cut = shallow.intersection(inside)  # parents, maybe in the range, not here
                    if cut:
                        cuts[desc] = cut
                if anc and desc and anc not in done and desc not in cuts:
                    hidden = self._hiding(inside, anc, shallow)
                    if hidden:
                        cuts[anc] = cuts.get(anc, set()) | hidden
            if not cuts:
                self._whole[(a, b)] = (list(left), list(right))
                if b:
                    self._whole[(b, a)] = (list(right), list(left))
                return list(left), list(right)
            times = self._times(set().union(*cuts.values()))
            before = self.shallow()
            if window:
                since = max(times.values()) - window
                status, err = self._fetch(f"--shallow-since={since}", "origin", *sorted(cuts))
                if status != 0 and not nothing_since(err):
                    raise remote_error(self.remote, "cannot fetch from", err)
                if status == 0 and self.shallow() != before:
                    window *= 2
                    continue
                window = 0  # nothing newer left to bring: by count from here
            tip = max(cuts, key=lambda t: max(times[c] for c in cuts[t]))
            depth[tip] = depth[tip] * 2 if tip in depth else max(self.first_depth, 1)
            status, err = self._fetch(f"--deepen={depth[tip]}", "origin", tip)
            if status != 0:
                raise remote_error(self.remote, "cannot fetch from", err)
            if self.shallow() == before:
                done.add(tip)

    def _sides(self, a: str, b: str | None) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
        """``b..a`` and ``a..b`` as far as they are here, each commit with its parents, newest
        first, in one walk (``a...b``; without ``b``, all of ``a``'s history and nothing)."""
        args = ["rev-list", "--missing=allow-promisor", "--parents"]
        if b is None:
            lines = self._run(*args, a)[1].splitlines()
            return {line.split()[0]: line.split()[1:] for line in lines}, {}
        left: dict[str, list[str]] = {}
        right: dict[str, list[str]] = {}
        for line in self._run(*args, "--left-right", f"{a}...{b}")[1].splitlines():
            sha, *parents = line[1:].split()
            (left if line[0] == "<" else right)[sha] = parents
        return left, right

    def _hiding(self, inside: dict[str, list[str]], anc: str, shallow: set[str]) -> set[str]:
        """Boundary commits of ``anc``'s history that may hide ancestors of the range ``inside``
        (``anc..desc`` with parents).

        A commit of the range whose parents are all outside it sits on ``anc``'s history; it is
        truly in the range only if no cut-off part of ``anc``'s history reaches it. Whatever does
        is older than the boundary commit hiding it (committer dates, with ``SKEW`` for clocks),
        so only boundary commits no older than the range's lowest commits are returned.
        """
        bottoms = {sha for sha, parents in inside.items() if not any(p in inside for p in parents)}
        if not bottoms or not shallow:
            return set()
        shallow = self._present(shallow)  # dates of the others would be fetched
        times = self._times(shallow | bottoms)
        lowest = min(times[c] for c in bottoms)
        near = {s for s in shallow if times[s] + SKEW >= lowest}
        # Only those on ``anc``'s history: every commit between it and one of them is a
        # descendant, so no older than ``lowest - 2 * SKEW``; the walk stops below that.
        return near.intersection(self._reach(anc, since=lowest - 2 * SKEW)) if near else set()

    def _reach(self, *tips: str, since: int) -> list[str]:
        """Commits reachable from ``tips`` through commits no older than ``since`` (a walk that
        stops at older ones: git prunes by date only when nothing is excluded)."""
        return self._run("rev-list", "--missing=allow-promisor", f"--max-age={since}", *tips)[1].split()

    def _times(self, shas: set[str]) -> dict[str, int]:
        """Committer times of commits that are here, in one git process."""
        if not shas:
            return {}
        out = self._run("log", "--no-walk=unsorted", "--format=%H %ct", "--stdin",
                        input="".join(f"{sha}\n" for sha in sorted(shas)))[1]
        return {sha: int(t) for sha, t in (line.split() for line in out.splitlines())}

    def resolve(self, rev: str) -> str:
        """The commit a local name or SHA stands for here (what a fetch may ask the remote for)."""
        if _SHA.match(rev):
            return rev
        return self._run("rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}")[1].strip()

    def merge_base(self, a: str, b: str) -> str | None:
        """The best common ancestor of two commits that are here (deepening as needed)."""
        self.complete_between(a, b)
        status, out, _ = self._run("merge-base", a, b, check=False)
        return out.strip() or None if status == 0 else None

    def count(self, desc: str, anc: str | None = None) -> int:
        """How many commits ``anc..desc`` holds (deepening as needed)."""
        return len(self.complete(desc, anc))

    def is_ancestor(self, anc: str, desc: str) -> bool:
        """Whether ``anc`` is reachable from ``desc``. Both must be here (see ``fetch_commit``)."""
        if self._run("merge-base", "--is-ancestor", anc, desc, check=False)[0] == 0:
            return True
        return not self.complete_between(anc, desc)[0]  # nothing of anc's history lacks from desc's

    def on_branch(self, sha: str, branch: str) -> bool:
        """Whether ``sha`` (already here) is reachable from the remote's ``branch`` as it is now."""
        return self.is_ancestor(sha, self.fetch_branch(branch))

    def log(self, old: str | None, new: str) -> list[LogEntry]:
        """Commits in ``old..new``, newest first (the full range, deepening as needed)."""
        self.complete_between(new, old)
        fmt = "%H%x00%cI%x00%an%x00%s%x00"
        args = ["rev-list", "--missing=allow-promisor", "--no-commit-header", f"--format={fmt}", new]
        out = self._run(*args + ([f"^{old}"] if old else []))[1]
        fields = out.split("\x00")
        entries = []
        for i in range(0, len(fields) - 4, 4):
            sha, date, author, subject = (f.strip("\n") for f in fields[i:i + 4])
            entries.append(LogEntry(sha, date, author, subject))
        return entries

    def first_parents(self, old: str, new: str, limit: int | None = None) -> list[str]:
        """The first-parent line of ``new`` back to (not including) ``old``, newest first.

        What a branch's own history is (merged side branches are one step): the commits a
        bisect probes and a green roll walks. ``limit`` caps the count (from the tip).
        """
        self.complete(new, old)
        args = ["rev-list", "--missing=allow-promisor", "--first-parent", new, f"^{old}"]
        args += [f"--max-count={limit}"] if limit is not None else []
        return self._run(*args)[1].split()

    def first_parent(self, sha: str) -> str | None:
        """The first parent of a commit that is here (None for a root commit)."""
        status, out, _ = self._run("rev-parse", "--verify", "--quiet", f"{sha}^1", check=False)
        if status != 0:
            self._fetch("--deepen=1", "origin", sha, filter=HISTORY_FILTER)
            status, out, _ = self._run("rev-parse", "--verify", "--quiet", f"{sha}^1", check=False)
        return out.strip() if status == 0 else None

    def changed_paths(self, old: str, new: str) -> set[str]:
        """Paths whose content differs between two commits (trees only: no blob is fetched)."""
        out = self._run("diff-tree", "-r", "--no-renames", "--name-only", "-z", old, new)[1]
        return {name for name in out.split("\x00") if name}

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
            # blobs it lacks come from the remote: with its credentials
            status, _, err = run_git(["checkout", "--quiet", "--detach", sha], dest, self._env)
        else:
            self._run("worktree", "prune")
            status, _, err = self._run("worktree", "add", "--quiet", "--detach", "--force", str(dest), sha,
                                       check=False)
        if status != 0:
            raise remote_error(self.remote, f"cannot check out {sha[:7]} from", err)
        self.fetches += 1  # a checkout may fetch the blobs it lacks


def head_of(path: Path, *, enclosing: bool = False) -> str | None:
    """The one reader of HEAD: the commit checked out in the work tree at ``path``.

    With ``enclosing`` the checkout that contains ``path`` (this project's own, for a
    root below its top); without, ``path`` itself must be a work tree (a dep's checkout
    in the workspace, never the project around it). None outside a checkout or before
    its first commit.
    """
    start = Path(path).resolve()
    for candidate in (start, *start.parents) if enclosing else (start,):
        if (candidate / ".git").exists():
            status, out, _ = run_git(["rev-parse", "--verify", "--quiet", "HEAD"], candidate)
            return out.strip() if status == 0 else None
    return None


def common_dir(path: Path) -> Path | None:
    """The repository a work tree belongs to (its mirror, for worktrees), or None."""
    status, out, _ = run_git(["rev-parse", "--path-format=absolute", "--git-common-dir"], path)
    return Path(out.strip()).resolve() if status == 0 else None
