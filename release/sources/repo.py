"""This repository's checkout as the tool writes to it: commits, release tags, and force-pushes
of the branches the tool owns (bump, next-version, hold), through GitPython, the library the
product is specified with (imported only when a checkout is opened, never at start-up).

Everything here is idempotent. A commit is made from HEAD's tree in memory, so the work tree,
the index and the checked-out branch are left alone; re-running with the same content and message reuses
the same commit. The pull requests those branches become are ``release.sources.pull_requests``.
"""

from __future__ import annotations

import datetime as _dt
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping

from release.core.config import LINE_DEP, Deps, RollSame, RollVia, parse_deps
from release.core.errors import UserError
from release.core.lines import LINE_PREFIX as LINE_BRANCH_PREFIX
from release.core.redact import redact
from release.sources.git import ENV, TIMEOUT, Remote, remote_error

if TYPE_CHECKING:
    from git import Actor, Commit, GitCommandError

    from release.core.roller import Roller

BUMP_PREFIX = "bump/"
NEXT_VERSION_PREFIX = "release/next-"
HOLD_PREFIX = "hold/"  # release.sources.holds: one branch per held dep, never a bump/ one
LINE_PR_PREFIX = "line/"  # release.jobs.lines: the PR that lists a new maintained line
# Branches the tool owns and may force-push: bump PRs, the post-release version move, holds.
TOOL_BRANCH_PREFIXES = (BUMP_PREFIX, NEXT_VERSION_PREFIX, HOLD_PREFIX, LINE_PR_PREFIX)
DEFAULT_IDENTITY = ("jax-rocm-release", "jax-rocm-release@users.noreply.github.com")
# The mark of the tool's own commits: this trailer in the message, and the same identity as
# author and committer (an amend, rebase or cherry-pick by a person makes them differ).
TOOL_TRAILER = "Release-Tool: jax-rocm-release"


def bump_branch(date: _dt.date, names: tuple[str, ...], base: str = "") -> str:
    """``bump/2026-11-22-jax-xla``; on a maintained line's branch ``release/X.Y``,
    ``bump/X.Y/2026-11-22-jax-xla``, so two lines rolling the same deps the same day never push
    to one branch (docs/lines.md)."""
    line = base[len(LINE_BRANCH_PREFIX):] if base.startswith(LINE_BRANCH_PREFIX) \
        and not base.startswith(NEXT_VERSION_PREFIX) else ""
    return f"{BUMP_PREFIX}{line + '/' if line else ''}{date.isoformat()}-{'-'.join(names)}"


class ReleaseRepo:
    """The git checkout this project lives in (where deps.yaml is committed), through GitPython:
    its commits, branches, tags and pushes, and its files at a commit. GitPython is imported
    when one is made, so a command that never commits never loads it (tests/test_startup.py).
    The few questions GitPython has no model for (a porcelain status, ``ls-remote``, a
    one-commit-deep fetch into a shallow clone) go to its git command runner (``_run``)."""

    def __init__(self, root: Path):
        import git
        try:
            repo = git.Repo(root, search_parent_directories=True)
        except (git.InvalidGitRepositoryError, git.NoSuchPathError):
            raise UserError(f"{root}: not inside a git checkout; --commit needs one") from None
        if repo.bare or not repo.working_tree_dir:
            raise UserError(f"{root}: a bare repository; --commit needs a checkout")
        repo.git.update_environment(**ENV)
        self.repo = repo
        self.top = Path(repo.working_tree_dir).resolve()

    def _run(self, *args: str, env: dict | None = None, timeout: float | None = None) -> tuple[int, str, str]:
        """One git process in this checkout: ``(status, stdout, stderr)``, stdout as git wrote it."""
        status, out, err = self.repo.git.execute(["git", *args], with_extended_output=True, with_exceptions=False,
                                                 env=env, kill_after_timeout=timeout,
                                                 strip_newline_in_stdout=False)
        if timeout is not None and status != 0 and "Timeout:" in err:
            return 124, "", f"git {args[0]} timed out after {timeout:.0f} s"
        return status, out, err.removesuffix("\n")

    def _commit(self, rev: str) -> Commit | None:
        """The commit ``rev`` names here, or None. GitPython takes a full hex name on trust and
        fails only when the object is first read: read it here, so an absent commit is None."""
        import git
        try:
            commit = self.repo.commit(rev)
            commit.tree  # noqa: B018 - reads the object: a missing one raises here, not later
            return commit
        except (git.BadName, git.BadObject, ValueError, IndexError):
            return None

    def _text(self, commit: Commit, path: Path) -> str | None:
        """The text of ``path`` in ``commit`` (None when it has no such file)."""
        try:
            blob = commit.tree / self.relpath(path)
        except KeyError:
            return None
        return blob.data_stream.read().decode("utf-8", "replace") if blob.type == "blob" else None

    def rev_parse(self, rev: str) -> str:
        """The commit ``rev`` names in this checkout (empty when none)."""
        found = self._commit(rev)
        return found.hexsha if found is not None else ""

    def relpath(self, path: Path) -> str:
        return Path(path).resolve().relative_to(self.top).as_posix()

    def committed(self, path: Path) -> str | None:
        """The text of ``path`` at HEAD (None if HEAD lacks it)."""
        head = self._commit("HEAD")
        return None if head is None else self._text(head, path)

    def text_at(self, commit: str, path: Path) -> str:
        """The text of ``path`` at ``commit`` of this checkout (a red nightly's deps.yaml)."""
        found = self._commit(commit)
        if found is None:
            raise UserError(f"{self.top}: no commit {commit[:40]!r} in this checkout; fetch it "
                            "(CI: actions/checkout with fetch-depth: 0)")
        text = self._text(found, path)
        if text is None:
            raise UserError(f"{self.top}: {self.relpath(path)} is not in commit {found.hexsha[:12]}")
        return text

    def head(self) -> str:
        """HEAD of this checkout; a checkout with no commit yet is refused."""
        head = self._commit("HEAD")
        if head is None:
            raise UserError(f"{self.top}: the checkout has no commit yet; --commit needs one")
        return head.hexsha

    def current_branch(self) -> str:
        if self.repo.head.is_detached:
            raise UserError(f"{self.top}: HEAD is detached; check out the branch a bump PR should "
                            "target (e.g. main)")
        return self.repo.head.reference.name

    def dirty(self) -> list[str]:
        """``git status --porcelain`` lines: changed or untracked (not ignored) files."""
        return [line for line in self._run("status", "--porcelain", "--untracked-files=normal")[1]
                .splitlines() if line.strip()]

    def tag_commit(self, tag: str) -> str | None:
        """The commit ``tag`` points at (None when there is no such tag)."""
        found = self._commit(f"refs/tags/{tag}")
        return found.hexsha if found is not None else None

    def create_tag(self, tag: str, commit: str, message: str) -> None:
        """An annotated tag at ``commit``, made with the same identity as the tool's commits."""
        import git
        author, committer = self._identity()
        try:
            with self.repo.git.custom_environment(GIT_COMMITTER_NAME=committer.name or "",
                                                  GIT_COMMITTER_EMAIL=committer.email or ""):
                self.repo.create_tag(tag, ref=commit, message=message)
        except git.GitCommandError as exc:
            raise UserError(f"{self.top}: cannot create tag {tag}: {_said(exc)}") from None

    def _push(self, remote: str, refspec: str, what: str, **flags: Any) -> None:
        """Push ``refspec`` to ``remote`` (GitPython's ``Remote.push``); a refusal is one line
        naming the remote (``remote_error``)."""
        import git
        try:
            self.repo.remote(remote).push(refspec, kill_after_timeout=TIMEOUT, **flags).raise_if_error()
        except (git.GitCommandError, ValueError) as exc:
            said = str(exc.stderr) if isinstance(exc, git.GitCommandError) else str(exc)
            raise remote_error(Remote(remote, self._remote_url(remote)), what, said) from None

    def _remote_url(self, remote: str) -> str:
        return self._run("remote", "get-url", remote)[1].strip() or remote

    def push_tag(self, tag: str, remote: str = "origin") -> None:
        self._push(remote, f"refs/tags/{tag}", f"cannot push tag {tag} to")

    def _identity(self) -> tuple[Actor, Actor]:
        """Author and committer of the tool's commits and tags: ``$GIT_AUTHOR_NAME`` and the
        like, else the checkout's ``user.name``/``user.email``, else ``DEFAULT_IDENTITY``."""
        from git import Actor
        config = self.repo.config_reader()
        name = str(config.get_value("user", "name", "") or "").strip()
        email = str(config.get_value("user", "email", "") or "").strip()
        return tuple(Actor(os.environ.get(f"GIT_{kind}_NAME", name or DEFAULT_IDENTITY[0]),
                           os.environ.get(f"GIT_{kind}_EMAIL", email or DEFAULT_IDENTITY[1]))
                     for kind in ("AUTHOR", "COMMITTER"))  # type: ignore[return-value]

    def commit_file(self, branch: str, path: Path, text: str, message: str) -> str:
        """One commit on top of HEAD changing only ``path`` to ``text``, at ``refs/heads/branch``
        (``commit_files`` with one file)."""
        return self.commit_files(branch, {path: text}, message)

    def commit_files(self, branch: str, files: Mapping[Path, str], message: str) -> str:
        """One commit on top of HEAD changing only ``files`` (path -> text), at
        ``refs/heads/branch``: a bump's deps.yaml and version_info.json land together.

        Made from HEAD's tree in memory (``IndexFile.new``), so the work tree, the index and
        the checked-out branch are left alone. Re-running with the same content and message
        returns the existing commit. The message is redacted (it leaves the machine with the push).
        """
        import io

        from git import Blob, Commit, IndexFile
        from git.index.typ import IndexEntry
        from gitdb.base import IStream

        message = redact(message).rstrip() + f"\n\n{TOOL_TRAILER}\n"
        head = self.repo.commit(self.head())
        blobs = {}
        for rel, text in sorted((self.relpath(p), t) for p, t in files.items()):
            data = text.encode("utf-8")
            blobs[rel] = self.repo.odb.store(IStream(Blob.type, len(data), io.BytesIO(data))).binsha
        existing = self._commit(f"refs/heads/{branch}")
        if existing is not None and [p.hexsha for p in existing.parents] == [head.hexsha] \
                and existing.message.strip() == message.strip() \
                and all(_blob_sha(existing, rel) == sha for rel, sha in blobs.items()):
            return existing.hexsha
        index = IndexFile.new(self.repo, head.tree)
        for rel, sha in blobs.items():
            index.entries[(rel, 0)] = IndexEntry.from_blob(Blob(self.repo, sha, Blob.file_mode, rel))
        author, committer = self._identity()
        try:
            commit = Commit.create_from_tree(self.repo, index.write_tree(), message, parent_commits=[head],
                                             author=author, committer=committer)
        except ValueError as exc:
            raise UserError(f"{self.top}: cannot commit the bump: {exc}") from None
        self.repo.create_head(branch, commit, force=True)
        return commit.hexsha

    def push(self, sha: str, branch: str, remote: str = "origin") -> None:
        """Force-push ``sha`` to ``branch`` on ``remote`` (only branches the tool owns)."""
        if not branch.startswith(TOOL_BRANCH_PREFIXES):
            raise AssertionError(f"refusing to force-push {branch}: not a branch this tool owns")
        self._push(remote, f"{sha}:refs/heads/{branch}", "cannot push to", force=True)

    def create_branch(self, sha: str, branch: str, remote: str = "origin") -> None:
        """Push ``sha`` as the new ``branch`` on ``remote``; refused by git when the branch is there
        already (a lease on its absence), so nobody's branch is ever moved by it."""
        self._push(remote, f"{sha}:refs/heads/{branch}", f"cannot create {branch} on",
                   force_with_lease=f"refs/heads/{branch}:")

    def remote_tip(self, branch: str, remote: str = "origin") -> str | None:
        """The commit ``branch`` names on ``remote`` (None when there is no such branch)."""
        status, out, err = self._run("ls-remote", "--heads", remote, f"refs/heads/{branch}",
                                     timeout=TIMEOUT)
        if status != 0:
            raise remote_error(Remote(remote, self._remote_url(remote)), "cannot list branches of", err)
        return next((line.split()[0] for line in out.splitlines() if line.endswith(f"refs/heads/{branch}")), None)

    def branch_holds(self, branch: str, commit: str, remote: str = "origin") -> bool:
        """Whether ``branch`` exists on ``remote`` and ``commit`` is in its history (its tip is
        fetched when this checkout lacks it; a full clone, as the finish job makes, answers)."""
        tip = self.remote_tip(branch, remote)
        held = self._commit(commit)
        if tip is None or held is None:
            return False
        return self.repo.is_ancestor(held, self._fetch_tip(branch, tip, remote))

    def person_pushed(self, branch: str, remote: str = "origin") -> str | None:
        """Who else wrote on the tool's ``branch`` on ``remote``: None when the branch is absent
        or its tip is the tool's own single commit (``is_tool_commit``, one parent: the tool
        always commits one commit on the base), else one line naming the tip and who committed it.

        Only the tip is fetched (one commit deep in a shallow checkout), so this is cheap on
        the shallow clone CI makes."""
        tip = self.remote_tip(branch, remote)
        return None if tip is None else self.persons_tip(branch, tip, remote)

    def _fetch_tip(self, branch: str, tip: str, remote: str) -> Commit:
        """The commit ``tip`` (read from ``remote``'s ``branch``), fetched one commit deep in a
        shallow checkout when it is not here, so a full clone never turns shallow."""
        found = self._commit(tip)
        if found is None:
            shallow = self._run("rev-parse", "--is-shallow-repository")[1].strip() == "true"
            status, _, err = self._run("fetch", "--quiet", "--no-tags", "--no-write-fetch-head",
                                       *(["--depth=1"] if shallow else []), remote, tip, timeout=TIMEOUT)
            if status != 0:
                raise remote_error(Remote(remote, self._remote_url(remote)), f"cannot fetch {branch} from", err)
            found = self.repo.commit(tip)
        return found

    def text_at_remote_tip(self, branch: str, path: Path, remote: str = "origin") -> str | None:
        """The text of ``path`` at ``branch``'s tip on ``remote`` as it is now (a bump merged in
        this very job is there, not yet in the checkout); None without that branch or file."""
        tip = self.remote_tip(branch, remote)
        return None if tip is None else self._text(self._fetch_tip(branch, tip, remote), path)

    def persons_tip(self, branch: str, tip: str, remote: str = "origin") -> str | None:
        """``person_pushed`` for a tip already read from ``remote``."""
        commit = self._fetch_tip(branch, tip, remote)
        if self.is_tool_commit(tip):
            return None
        return f"{commit.committer.name or 'someone'} pushed {tip[:12]} to {branch}"

    def unchanged_tip(self, branch: str, sha: str, remote: str = "origin") -> str | None:
        """The tip of ``branch`` on ``remote`` when it already is ``sha``'s change: the same tree
        on the same parents (yesterday's roll, committed again today with a new date or new
        notes). Pushing ``sha`` over it would change nothing but restart its checks. None when
        the tip differs, or is absent here or on ``remote``."""
        tip = self.remote_tip(branch, remote)
        old = None if tip is None else self._commit(tip)
        new = self.repo.commit(sha)
        if old is None:
            return None
        same = old.tree.hexsha == new.tree.hexsha and [p.hexsha for p in old.parents] == [p.hexsha for p in new.parents]
        return tip if same else None

    def is_tool_commit(self, sha: str) -> bool:
        """``sha`` is the tool's own: one parent, the trailer, and author == committer."""
        commit = self.repo.commit(sha)
        message = commit.message if isinstance(commit.message, str) else commit.message.decode("utf-8", "replace")
        trailers = [line.strip() for line in message.strip().splitlines()[-3:]]
        author, committer = commit.author, commit.committer
        return (len(commit.parents) == 1 and TOOL_TRAILER in trailers
                and bool(author.name or author.email)
                and (author.name, author.email) == (committer.name, committer.email))

    def delete_remote_branch(self, branch: str, remote: str = "origin") -> bool:
        """Delete ``branch`` (one of the tool's own) on ``remote``; False when that failed."""
        if not branch.startswith(TOOL_BRANCH_PREFIXES):
            raise AssertionError(f"refusing to delete {branch}: not a branch this tool owns")
        return self._run("push", "--quiet", remote, f":refs/heads/{branch}")[0] == 0


def _blob_sha(commit: Commit, rel: str) -> bytes | None:
    try:
        return (commit.tree / rel).binsha
    except KeyError:
        return None


def _said(exc: GitCommandError) -> str:
    """git's own last line of a failed command."""
    lines = [line for line in str(exc.stderr or "").strip().splitlines() if line.strip()]
    return lines[-1].strip().removeprefix("stderr: ").strip("'") if lines else "git failed"


def committed_deps(repo: ReleaseRepo, deps: Deps) -> Deps:
    """deps.yaml as committed at HEAD, which a committing bump rolls from, so a re-run after a
    crash (file written, nothing committed yet) still commits. Uncommitted edits besides
    what a bump writes (pins; for via deps also branch, archive sha256 and patches; jax's line)
    are refused."""
    committed = repo.committed(deps.path)
    if committed is None:
        raise UserError(f"{deps.path}: not committed at HEAD; --commit needs it committed")
    base = parse_deps(deps.path, committed)
    pins: dict[str, dict[str, object]]  # per dep, the pin fields a bump writes
    pins = {}
    for d in deps:
        fields: dict[str, object] = {"commit": d.commit}
        if isinstance(d.roll, (RollVia, RollSame)):
            fields |= {"branch": d.branch, "archive_sha256": d.archive_sha256, "patches": d.patches}
        if d.name == LINE_DEP:
            fields["line"] = d.line
        pins[d.name] = fields
    if base.with_pins(pins) != deps:
        raise UserError(f"{deps.path}: has uncommitted edits besides pins; commit or revert them "
                        "before --commit")
    return base


def checked_out_branch(root: Path) -> str | None:
    """The branch checked out in the checkout around ``root`` (``ReleaseRepo.current_branch``'s
    answer); None on a detached HEAD or outside a checkout. One git process, not GitPython."""
    from release.sources.git import run_git
    if not Path(root).is_dir():
        return None
    status, out, _ = run_git(["symbolic-ref", "--quiet", "HEAD"], root)
    ref = out.strip()
    return ref[len("refs/heads/"):] if status == 0 and ref.startswith("refs/heads/") else None


def committed_roller(root: Path) -> tuple[Roller, str | None]:
    """roller.yaml as committed at HEAD (what was reviewed), and one warning line when the work
    tree's copy differs (an edit, a new file, a deletion), which is ignored. Outside a git
    checkout there is no commit to read: the file as it is. Plain git processes, not
    GitPython: status reads this on every run, and importing GitPython was a third of its start.
    One process when the work tree's bytes are HEAD's (every run but an edited one's): git
    status is asked only when they differ or HEAD has no such file, for what git counts a change
    (filters, line endings, an ignored new file)."""
    from release.core.roller import ROLLER_FILE, Roller, load_roller, parse_roller
    from release.sources.git import batch_objects, run_git, run_git_bytes
    # HEAD:./FILE is the file beside root at HEAD. The relative path answers only inside a work
    # tree (not outside a repository, in a bare one or in .git): the exit says where root is.
    code, out = (run_git_bytes(["cat-file", "--batch"], root, input=f"HEAD:./{ROLLER_FILE}\n".encode())
                 if Path(root).is_dir() else (1, b""))
    if code != 0:
        return load_roller(root), None
    path = Path(root) / ROLLER_FILE
    found = next(batch_objects(out), None)
    blob = found[2] if found is not None and found[1] == "blob" else None
    roller = parse_roller(path, blob) if blob is not None else Roller()
    try:
        same = blob is not None and path.read_bytes() == blob
    except OSError:
        same = False
    if not same:
        # status answers only in a work tree: an empty bare repository's HEAD has no file either.
        status, changed, _ = run_git(["status", "--porcelain", "--untracked-files=normal", "--", ROLLER_FILE], root)
        if status != 0:
            return load_roller(root), None
        if changed.strip():
            return roller, (f"{ROLLER_FILE}: an uncommitted edit is ignored; the roller follows {ROLLER_FILE} "
                            "as committed at HEAD (a reviewed commit)")
    return roller, None
