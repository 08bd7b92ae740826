"""An upstream's cached partial clone: bare, blob-filtered, shallow, and its fetches.

A mirror holds only the commits and trees a question needs (``--filter=blob:none`` or
``--filter=tree:0``, ``--depth``, ``--shallow-since``, deepened on demand), so answering
"what changed between two pins" never clones a whole history. Blobs arrive one at a time,
lazily, when a file is read or a commit is checked out. These stay on the git command:
GitPython has no partial clone (``--filter``, ``promisor`` remotes, lazy blob fetches) and
no shallow bookkeeping of its own, and over smart HTTP it runs the same git process anyway.
History questions over a mirror (ancestry, counts, logs) are ``release.sources.mirror``.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Self

from release.core.errors import RemoteError, UserError
from release.core.redact import redact
from release.sources.git import _SHA, Remote, batch_objects, remote_error, run_git, run_git_bytes

if TYPE_CHECKING:
    from contextlib import AbstractContextManager

FILTER = "--filter=blob:none"  # a commit with its trees: to read a file or check it out
HISTORY_FILTER = "--filter=tree:0"  # commits only: ancestry, counts and logs need nothing more
FIRST_DEPTH = 64  # commits of a branch fetched the first time; deepened x4 when a question needs more
# How far below the newest cut-off commit a history question first fetches, by date (at least
# twice the time between the two commits asked about), doubled each round after. Commits only cost
# ~300 bytes each: a round trip (a fetch, then walks to check what it left) costs more than
# thousands of extra commits, so the window is wide and grows fast.
FIRST_WINDOW = 60 * 86400


def mirror_dir(cache: Path, url: str) -> Path:
    """Where the mirror of ``url`` lives under ``cache``: readable name plus a hash of the URL
    without credentials (a rotated token keeps its mirror)."""
    bare = re.sub(r"(?<=://)[^/@\s]+@", "", url)
    tail = re.sub(r"\.git$", "", bare.rstrip("/").rsplit("/", 1)[-1]) or "repo"
    tail = re.sub(r"[^A-Za-z0-9._-]", "_", tail)
    import hashlib  # here: naming a mirror is the only hash this module takes
    return Path(cache) / f"{tail}-{hashlib.sha256(bare.encode()).hexdigest()[:12]}.git"


class PartialMirror:
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
        self._held: AbstractContextManager[None] | None = None
        self._depth = 0  # entered this many times (nested: one lock, taken once)
        self.fetches = 0  # how many times this object talked to the remote (for tests and logs)
        # What this run learnt of objects, none of which changes: a mirror only gains objects
        # (no gc), and a commit's parents and time are in its object. Asked once, not per question.
        self._here: set[str] = set()  # objects known to be here
        self._trees: set[str] = set()  # commits known to be here with their root trees
        self._parents: dict[str, list[str]] = {}  # commit -> parents as its object records them
        self._committed: dict[str, int] = {}  # commit -> committer time
        self._entries: dict[tuple[str, str], str | None] = {}  # (commit, path) -> blob id (None: no file)
        self._texts: dict[str, str] = {}  # blob id -> its text as read_file gives it (fetch_files read it)
        # Tracking refs a fetch of a SHA set this run (``+SHA:ref`` forces the ref to SHA once git
        # says the fetch worked): read back from here, not from a git process.
        self._set_refs: dict[str, str] = {}
        # Made by this opening and no git process run in it since: nothing is here, no process asks.
        self._empty = False
        # Made by this opening and no blob asked for since (every fetch filters blobs out, only a
        # file read or a checkout brings one): which blobs are here needs no process.
        self._blobless = False

    def __enter__(self) -> Self:
        """Take the mirror's lock (``release.core.file_lock``: a run that only reads pins never
        makes one) and open the mirror; entered again inside, it is already held."""
        if self._depth:
            self._depth += 1
            return self
        from release.core.file_lock import held
        self.path.parent.mkdir(parents=True, exist_ok=True)
        lock = held(str(self.path) + ".lock")
        lock.__enter__()
        try:
            self._open()
        except BaseException as exc:
            lock.__exit__(type(exc), exc, exc.__traceback__)
            raise
        self._held, self._depth = lock, 1
        return self

    def __exit__(self, *exc: object) -> None:
        self._depth -= 1
        if self._depth == 0 and self._held is not None:
            lock, self._held = self._held, None
            lock.__exit__(None, None, None)

    def _open(self) -> None:
        if not (self.path / "HEAD").is_file():
            tmp = self.path.with_name(self.path.name + ".new")
            if tmp.exists():
                import shutil
                shutil.rmtree(tmp)
            status, _, err = run_git(["init", "--quiet", "--bare", str(tmp)])
            if status != 0:
                raise AssertionError(f"git init failed in {tmp}: {err}")
            _write_partial_config(tmp / "config", self.remote.bare_url)
            os.replace(tmp, self.path)  # a crash mid-init leaves no half mirror behind
            created = True
        else:
            created = False
        self._env = self.remote.auth_env()
        self._empty = created
        self._blobless = created
        if created:
            return
        url = origin_url_as_written((self.path / "config").read_text(encoding="utf-8", errors="replace"))
        if url is None:  # not as this module writes it: git reads it
            url = self._config("remote.origin.url")
        if url != self.remote.bare_url:  # also scrubs an old token
            self._run("config", "remote.origin.url", self.remote.bare_url)

    # ---------------------------------------------------------------- plumbing

    def _run(self, *args: str, check: bool = True, input: str | None = None,
             encoding: str = "utf-8") -> tuple[int, str, str]:
        self._empty = False  # a fetch (or any other process) may have brought objects
        status, out, err = run_git(list(args), self.path, self._env, input, encoding)
        if check and status != 0:
            raise AssertionError(redact(f"git {' '.join(args)} failed in {self.path}: {err}"))
        return status, out, err

    def _config(self, key: str) -> str | None:
        status, out, _ = self._run("config", "--get", key, check=False)
        return out if status == 0 else None

    def _fetch(self, *args: str, filter: str = HISTORY_FILTER, negotiate: str = "",
               lone: bool = False, head: bool = False, only: set[str] | None = None) -> tuple[int, str]:
        """One fetch from origin. Depth-limited fetches mark the commits they stop at as
        shallow even when this mirror already has their parents (git shortens history);
        such marks are dropped again so history once fetched is never fetched twice.
        ``lone``: the fetch sends one commit (depth 1) into a mirror that held nothing, so no
        parent of it is here and its mark stays, unasked. ``head``: git writes FETCH_HEAD
        (what a fetch by name got). ``only``: the commits a fetch at depth 1 asks for; into a mirror
        that held nothing they are all that is here after it, so which parents are here is known
        without asking git."""
        self.fetches += 1
        if lone and self._empty:
            status, _, err = self._run(*self._fetch_args(args, filter, negotiate, head), check=False)
            return status, err
        known = only if only is not None and self._empty else None
        before = self.shallow()
        status, _, err = self._run(*self._fetch_args(args, filter, negotiate, head), check=False)
        self._keep_history(self.shallow() - before, known)
        return status, err

    @staticmethod
    def _fetch_args(args: tuple[str, ...], filter: str, negotiate: str, head: bool = False) -> tuple[str, ...]:
        how = ("-c", f"fetch.negotiationAlgorithm={negotiate}") if negotiate else ()
        return (*how, "fetch", "--no-tags", *(() if head else ("--no-write-fetch-head",)), "--quiet", filter, *args)

    def _fetch_below(self, how: str, tips: Iterable[str]) -> tuple[int, str]:
        """A fetch of history below ``tips`` (commits here): ``how`` is ``--deepen=N`` or
        ``--shallow-since=T``. The tips are also the negotiation's: offered as what this mirror
        has, a want the server sees among the haves makes it answer at once ("ready"), where the
        newest commits of every branch here (git's default) often do not, and git then asks a
        second time to say it is done (a round trip each deepening)."""
        tips = sorted(set(tips))
        return self._fetch(how, *(f"--negotiation-tip={t}" for t in tips), "origin", *tips, negotiate="skipping")

    def _keep_history(self, marked: set[str], here: set[str] | None = None) -> None:
        """Drop the marks of commits whose parents are all here. ``here``: every commit here,
        when known (a fetch into a mirror that held nothing)."""
        # A fetch by date may also mark commits it did not send: only those here are read
        # (reading one that is not would fetch it, with its trees).
        parents = self._parents_here(marked)
        marked = set(parents)
        if not marked:
            return
        wanted = set().union(*parents.values())
        present = wanted & here if here is not None else self._present(wanted)
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

    def _parents_here(self, shas: set[str]) -> dict[str, list[str]]:
        """``{commit: parents}`` for those of these commits that are here, the parents as the
        commit objects record them (a shallow mark hides them from a walk; the raw format shows
        them), in one git process and without the lazy fetch a missing one would cause."""
        ask = shas - self._parents.keys()
        if ask and not self._empty:
            out = self._run("rev-list", "--no-walk", "--missing=print", "--ignore-missing", "--pretty=raw", "--stdin",
                            input="".join(f"{sha}\n" for sha in sorted(ask)), encoding="latin-1")[1]
            parents: dict[str, list[str]] = {}
            current: list[str] = []
            sha = ""
            for line in out.split("\n"):  # headers start at column 0; message lines are indented
                if line.startswith("commit ") and _SHA.match(line[7:]):
                    sha = line[7:]
                    current = parents.setdefault(sha, [])
                elif line.startswith("parent ") and _SHA.match(line[7:]):
                    current.append(line[7:])
                elif line.startswith("committer ") and sha in parents and sha not in self._committed:
                    when = line.rsplit(" ", 2)[-2:-1]
                    if when and when[0].isdigit():
                        self._committed[sha] = int(when[0])
            found = {sha: got for sha, got in parents.items() if sha in ask}
            self._parents.update(found)
            self._here.update(found)
        return {sha: self._parents[sha] for sha in shas if sha in self._parents}

    def _present(self, shas: set[str]) -> set[str]:
        """Which of these objects (commits, blobs) are here, in one git process and without the
        lazy fetch a partial repository would do for a missing one."""
        ask = shas - self._here
        if ask and not self._empty:
            out = self._run("rev-list", "--missing=print", "--ignore-missing", "--no-walk", "--stdin",
                            input="".join(f"{sha}\n" for sha in sorted(ask)))[1]
            self._here.update(set(out.split()) & ask)
        return shas & self._here

    def shallow(self) -> set[str]:
        path = self.path / "shallow"
        return set(path.read_text().split()) if path.is_file() else set()

    # ---------------------------------------------------------------- questions

    def has_commit(self, sha: str) -> bool:
        """Whether the commit is here, without the lazy fetch a partial repository would do."""
        if sha in self._here:
            return True
        if self._empty:
            return False
        status, out, _ = self._run("rev-list", "--missing=print", "--no-walk", sha, check=False)
        if status == 0 and out.strip() == sha:
            self._here.add(sha)
            return True
        return False

    def tracking_ref(self, branch: str) -> str:
        return f"refs/remotes/origin/{branch}"

    def branch_tip(self, branch: str) -> str | None:
        if self._empty:
            return None
        if self.tracking_ref(branch) in self._set_refs:
            return self._set_refs[self.tracking_ref(branch)]
        status, out, _ = self._run("rev-parse", "--verify", "--quiet", self.tracking_ref(branch), check=False)
        return out.strip() if status == 0 else None

    def fetch_branch(self, branch: str, tip: str | None = None) -> str:
        """Bring the branch up to date: shallow the first time, incremental after. Returns its tip.

        ``tip``: the branch's tip as the remote listed it a moment ago; it is asked for by its
        SHA, which spares git listing the remote's refs again (a round trip). Gone by now (a
        force-push since), the branch is asked for by name."""
        spec = f"+{tip or f'refs/heads/{branch}'}:{self.tracking_ref(branch)}"
        args = (spec,) if self.branch_tip(branch) else (f"--depth={self.first_depth}", spec)
        status, err = self._fetch("origin", *args)
        if status != 0 and tip and not_there(err):
            return self.fetch_branch(branch)
        if status != 0:
            if "couldn't find remote ref" in err.lower():
                raise UserError(f"{self.remote.label}: no branch '{branch}' on {self.remote.shown}")
            raise remote_error(self.remote, "cannot fetch from", err)
        if tip:
            self.set_by_fetch(branch, tip)
            return tip
        self._set_refs.pop(self.tracking_ref(branch), None)  # by name: where it is now, git says
        tip = self.branch_tip(branch)
        if tip is None:  # git said the fetch worked, yet the branch is not there
            raise RemoteError(f"{self.remote.label}: fetching '{branch}' from {self.remote.shown} "
                              "left no branch")
        return tip

    @property
    def empty(self) -> bool:
        """Made by this opening, and nothing run in it since: it holds nothing."""
        return self._empty

    def fetch_tip(self, branch: str) -> str | None:
        """The tip of the remote's ``branch``, brought with its trees (depth 1) into a mirror that
        holds nothing (``empty``), by name: git lists that one ref and fetches it in one process
        (its ref advertisement, ``ls-refs``, ``fetch``), where a listing then a fetch by SHA are two
        processes and a ref advertisement more on the critical path of a cold bump.

        None when the fetch failed otherwise than for a missing branch or its deadline: the
        caller lists the branch (``refs.ls_remote``), which says why in the listing's words."""
        status, err = self._fetch("--depth=1", "origin", f"refs/heads/{branch}", filter=FILTER, lone=True, head=True)
        path = self.path / "FETCH_HEAD"
        if status != 0:
            if "couldn't find remote ref" in err.lower():
                raise UserError(f"{self.remote.label}: no branch '{branch}' on {self.remote.shown}")
            if status == 124:  # past its deadline: a listing would wait as long again
                raise remote_error(self.remote, "cannot list", err)
            return None
        try:
            tip = path.read_text(encoding="utf-8", errors="replace")[:40]
            path.unlink()  # names the remote's URL; nothing else reads it
        except FileNotFoundError:
            return None
        if not _SHA.match(tip):
            return None
        self._here.add(tip)
        self._trees.add(tip)
        return tip

    def set_by_fetch(self, branch: str, sha: str) -> None:
        """Note that a fetch that git said worked set ``branch``'s tracking ref to the commit
        ``sha`` it asked for by SHA (``branch_tip`` and ``resolve`` then ask no process)."""
        self._set_refs[self.tracking_ref(branch)] = sha

    def has_tree(self, sha: str) -> bool:
        """Whether the commit's root tree is here (a commit fetched for its history has none)."""
        return self._commit_and_tree(sha)[1]

    def _commit_and_tree(self, sha: str) -> tuple[bool, bool]:
        """(``has_commit``, ``has_tree``) in one git process: the commit is listed first, then its
        root tree, ``?``-marked when it is not here."""
        if sha in self._trees:
            return True, True
        if self._empty:
            return False, False
        status, out, _ = self._run("rev-list", "--missing=print", "--objects", "--no-walk",
                                   "--filter=tree:1", sha, check=False)
        lines = out.splitlines()
        present = status == 0 and bool(lines) and lines[0].strip() == sha
        complete = present and not any(line.startswith("?") for line in lines)
        if present:
            self._here.add(sha)
        if complete:
            self._trees.add(sha)
        return present, complete

    def fetch_commit(self, sha: str, *, trees: bool = True) -> bool:
        """Make sure ``sha`` is here, with its trees (to read files or check out) or without
        (enough for history questions). False when the remote lacks it."""
        present, complete = self._commit_and_tree(sha) if trees else (self.has_commit(sha), True)
        if present and complete:
            return True
        # --refetch: a present commit makes the server assume its trees are here too.
        extra = ("--refetch",) if present else ()
        status, err = self._fetch("--depth=1", *extra, "origin", sha, filter=FILTER if trees else HISTORY_FILTER,
                                  lone=True)
        if status != 0:
            if not_there(err):
                return False
            raise remote_error(self.remote, "cannot fetch from", err)
        # git fetched what it was asked for by SHA (a commit it could not send fails the fetch)
        self._here.add(sha)
        if trees:
            self._trees.add(sha)
        return True

    def fetch_commits(self, shas: Iterable[str], *, trees: bool = True) -> set[str]:
        """``fetch_commit`` for several commits in one fetch (one round trip, not one each: a
        roll needs both pins); returns those the remote lacks. When the remote refuses the
        batch (one of them is not there), each is asked alone to tell which."""
        wanted = list(dict.fromkeys(shas))
        here = self._present(set(wanted))
        missing = [sha for sha in wanted if sha not in here or (trees and not self.has_tree(sha))]
        if len(missing) < 2:
            return {sha for sha in missing if not self.fetch_commit(sha, trees=trees)}
        extra = ("--refetch",) if here.intersection(missing) else ()
        status, err = self._fetch("--depth=1", *extra, "origin", *missing,
                                  filter=FILTER if trees else HISTORY_FILTER, only=set(missing))
        if status == 0:
            return set(missing) - self._present(set(missing))
        if not_there(err):  # one of them spoilt the batch: each alone tells which
            return {sha for sha in missing if not self.fetch_commit(sha, trees=trees)}  # which are gone
        raise remote_error(self.remote, "cannot fetch from", err)

    def commit_time(self, sha: str) -> int:
        """Committer time of a commit that is here (seconds since the epoch)."""
        return self._times({sha})[sha]

    def _times(self, shas: set[str]) -> dict[str, int]:
        """Committer times of commits that are here, in one git process."""
        ask = shas - self._committed.keys()
        if ask:
            out = self._run("log", "--no-walk=unsorted", "--format=%H %ct", "--stdin",
                            input="".join(f"{sha}\n" for sha in sorted(ask)))[1]
            self._committed.update((sha, int(t)) for sha, t in (line.split() for line in out.splitlines()))
        return {sha: self._committed[sha] for sha in shas if sha in self._committed}

    def resolve(self, rev: str) -> str:
        """The commit a local name or SHA stands for here (what a fetch may ask the remote for)."""
        if _SHA.match(rev):
            return rev
        if rev in self._set_refs:
            return self._set_refs[rev]
        return self._run("rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}")[1].strip()

    def changed_paths(self, old: str, new: str) -> set[str]:
        """Paths whose content differs between two commits (trees only: no blob is fetched)."""
        out = self._run("diff-tree", "-r", "--no-renames", "--name-only", "-z", old, new)[1]
        return {name for name in out.split("\x00") if name}

    def read_file(self, sha: str, path: str) -> str | None:
        """The text of ``path`` at commit ``sha`` (fetches that one blob if needed); None if absent."""
        blob = self._blobs(sha, [path])[path]
        if blob is None:
            return None
        if blob in self._texts:
            return self._texts[blob]
        self._blobless = False  # git fetches it when it is not here
        status, text, err = self._run("cat-file", "blob", blob, check=False)
        if status != 0:
            raise remote_error(self.remote, "cannot fetch a file from", err)
        return text

    def fetch_files(self, sha: str, paths: Iterable[str]) -> None:
        """Bring the blobs of ``paths`` at ``sha`` (a commit here with its trees) that are not
        here in one fetch, so ``read_file`` reads them without fetching each alone (a round trip
        per file: a via dep's pin file and MODULE.bazel, for each dep pinned in one source)."""
        blobs = {blob for blob in self._blobs(sha, sorted(set(paths))).values() if blob}
        missing = set(blobs) if self._blobless else blobs - self._present(blobs)
        if len(missing) > 1:  # one: the read below fetches it, the same round trip
            # A blob has no history: nothing to negotiate (git's own lazy fetch says the same).
            status, err = self._fetch("origin", *sorted(missing), filter=FILTER, negotiate="noop")
            if status != 0:
                raise remote_error(self.remote, "cannot fetch files from", err)
        if blobs - self._texts.keys():  # read in one process, not one each as read_file would
            self._read_texts(blobs - self._texts.keys())

    def _read_texts(self, blobs: set[str]) -> None:
        """The texts of these blobs (here) in one ``cat-file --batch``, as ``read_file`` gives each:
        UTF-8 (undecodable bytes replaced), line ends as text mode reads them, one final newline
        less. A blob git does not print (missing after all) is left to ``read_file``."""
        self._empty = self._blobless = False  # git fetches what is not here
        status, out = run_git_bytes(["cat-file", "--batch"], self.path, self._env,
                                    "".join(f"{b}\n" for b in sorted(blobs)).encode())
        for name, kind, raw in batch_objects(out) if status == 0 else ():
            if kind == "missing":
                continue
            if kind != "blob" or name not in blobs or raw is None:
                return
            text = raw.decode("utf-8", errors="replace").replace("\r\n", "\n").replace("\r", "\n")
            self._texts[name] = text.removesuffix("\n")

    def _blobs(self, sha: str, paths: list[str]) -> dict[str, str | None]:
        """``{path: blob id}`` at commit ``sha`` (its trees here), None where the path is no file
        there; the paths not asked before in one git process (``fetch_files`` asks for those
        ``read_file`` reads next)."""
        ask = [p for p in paths if (sha, p) not in self._entries]
        if ask:
            found: dict[str, str] = {}
            for entry in self._run("ls-tree", "-z", sha, "--", *ask)[1].split("\x00"):
                meta, _, name = entry.partition("\t")
                if meta.split()[1:2] == ["blob"]:
                    found[name] = meta.split()[2]
            self._entries.update(((sha, p), found.get(p)) for p in ask)
        return {p: self._entries[(sha, p)] for p in paths}

    # ---------------------------------------------------------------- checkouts

    def checkout(self, sha: str, dest: Path) -> None:
        """Make ``dest`` a detached worktree of this mirror at ``sha`` (blobs fetched lazily, once)."""
        dest = Path(dest)
        self._blobless = False
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


def not_there(err: str) -> bool:
    """Whether a failed fetch says the remote lacks what was asked for (not a failure to reach it)."""
    low = err.lower()
    return any(s in low for s in ("not our ref", "no such remote ref", "couldn't find remote ref",
                                  "unadvertised object", "bad object", "upload-pack: not our"))


_SECTION = re.compile(r"^[ \t]*\[([^\]]*)\][ \t]*$")
_URL = re.compile(r"^[ \t]*url[ \t]*=[ \t]*([!-~]+)[ \t]*$", re.IGNORECASE)
_OURS = ("core", "extensions", "gc", "maintenance")  # the sections git init and this module write


def origin_url_as_written(text: str) -> str | None:
    """remote.origin.url from a mirror's config file when the file holds it as ``git init``,
    ``_write_partial_config`` and ``git config`` write it: only their sections, one ``url = VALUE``
    line in the one ``[remote "origin"]``, a plain value (no quote, backslash or comment
    character), no continued line. Anything else is None, and git is asked (a process less on
    every warm bump when it is not)."""
    if "\\" in text:  # a continued line or an escape: git's reading, not this one
        return None
    sections, urls, section = 0, [], None
    for line in text.split("\n"):  # git's lines (splitlines would break at more than a newline)
        if line.lstrip().startswith("["):
            header = _SECTION.match(line)
            if header is None or header.group(1) not in (*_OURS, 'remote "origin"'):
                return None
            section = header.group(1)
            sections += section == 'remote "origin"'
        elif section == 'remote "origin"' and line.strip()[:3].lower() == "url":
            match = _URL.match(line)
            if match is None or any(c in match.group(1) for c in '"#;'):
                return None
            urls.append(match.group(1))
    return urls[0] if sections == 1 and len(urls) == 1 else None


def _write_partial_config(path: Path, url: str) -> None:
    """A new mirror's settings written into the config ``git init`` made, in one write: a
    promisor remote of ``url`` filtering blobs (format version 1 with ``extensions.partialclone``,
    as ``git clone --filter`` sets), no automatic gc or maintenance. Seven ``git config`` runs
    did this (a process each, 16 of a cold bump's 100). The URL is written as git writes a
    value (printable ASCII without spaces: deps.yaml's URL rule)."""
    text = path.read_text(encoding="utf-8")
    text, done = re.subn(r"(?m)^([ \t]*repositoryformatversion[ \t]*=[ \t]*)0[ \t]*$", r"\g<1>1", text)
    if done != 1:
        raise AssertionError(f"{path}: git init wrote no repositoryformatversion = 0")
    quoted = url.replace("\\", "\\\\").replace('"', '\\"')
    quoted = f'"{quoted}"' if any(c in url for c in "#;") else quoted  # as git config writes it
    path.write_text(text + f'[remote "origin"]\n\turl = {quoted}\n\tpromisor = true\n'
                    "\tpartialclonefilter = blob:none\n[extensions]\n\tpartialclone = origin\n"
                    "[gc]\n\tauto = 0\n[maintenance]\n\tauto = false\n", encoding="utf-8")
