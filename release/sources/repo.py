"""This repository's checkout as the tool writes to it: commits made with plumbing, release tags,
and force-pushes of the branches the tool owns (bump, next-version, hold).

Everything here is idempotent. A commit is made with a temporary index, so the work tree and
the checked-out branch are left alone; re-running with the same content and message reuses
the same commit. The pull requests those branches become are ``release.sources.pull_requests``.
"""

from __future__ import annotations

import datetime as _dt
import os
import subprocess
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Mapping

from release.core.config import LINE_DEP, Deps, RollSame, RollVia, parse_deps
from release.core.errors import UserError
from release.core.lines import LINE_PREFIX as LINE_BRANCH_PREFIX
from release.core.redact import redact
from release.sources.git import ENV, TIMEOUT, Remote, head_of, remote_error

if TYPE_CHECKING:
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
    """The git checkout this project lives in (where deps.yaml is committed)."""

    def __init__(self, root: Path):
        self.top = Path(root)
        status, bare, _ = self._run("rev-parse", "--is-bare-repository") if self.top.is_dir() else (1, "", "")
        if status != 0:
            raise UserError(f"{root}: not inside a git checkout; --commit needs one")
        status, top, _ = self._run("rev-parse", "--show-toplevel")
        if bare.strip() == "true" or status != 0 or not top.strip():
            raise UserError(f"{root}: a bare repository; --commit needs a checkout")
        self.top = Path(top.strip()).resolve()

    def _run(self, *args: str, env: dict | None = None, timeout: float | None = None) -> tuple[int, str, str]:
        """One git process in this checkout: ``(status, stdout, stderr)``, stdout as git wrote it."""
        try:
            proc = subprocess.run(["git", *args], cwd=self.top, env={**os.environ, **ENV, **(env or {})},
                                  stdin=subprocess.DEVNULL, capture_output=True, encoding="utf-8",
                                  errors="replace", timeout=timeout)
        except subprocess.TimeoutExpired:
            return 124, "", f"git {args[0]} timed out after {timeout:.0f} s"
        return proc.returncode, proc.stdout, proc.stderr.removesuffix("\n")

    def rev_parse(self, rev: str) -> str:
        """The object ``rev`` names in this checkout (empty when none)."""
        return self._run("rev-parse", "--verify", "--quiet", rev)[1].strip()

    def relpath(self, path: Path) -> str:
        return Path(path).resolve().relative_to(self.top).as_posix()

    def committed(self, path: Path) -> str | None:
        """The text of ``path`` at HEAD (None if HEAD lacks it)."""
        status, out, _ = self._run("show", f"HEAD:{self.relpath(path)}")
        return out if status == 0 else None

    def text_at(self, commit: str, path: Path) -> str:
        """The text of ``path`` at ``commit`` of this checkout (a red nightly's deps.yaml)."""
        status, sha, _ = self._run("rev-parse", "--verify", "--quiet", f"{commit}^{{commit}}")
        if status != 0:
            raise UserError(f"{self.top}: no commit {commit[:40]!r} in this checkout; fetch it "
                            "(CI: actions/checkout with fetch-depth: 0)")
        status, out, _ = self._run("show", f"{sha.strip()}:{self.relpath(path)}")
        if status != 0:
            raise UserError(f"{self.top}: {self.relpath(path)} is not in commit {sha.strip()[:12]}")
        return out

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
        """One commit on top of HEAD changing only ``path`` to ``text``, at ``refs/heads/branch``
        (``commit_files`` with one file)."""
        return self.commit_files(branch, {path: text}, message)

    def commit_files(self, branch: str, files: Mapping[Path, str], message: str) -> str:
        """One commit on top of HEAD changing only ``files`` (path -> text), at
        ``refs/heads/branch``: a bump's deps.yaml and version_info.json land together.

        Re-running with the same content and message returns the existing commit. The message
        is redacted (it leaves the machine with the push).
        """
        message = redact(message).rstrip() + f"\n\n{TOOL_TRAILER}\n"
        head = self.head()
        with tempfile.TemporaryDirectory() as tmp:
            return self._commit_files(Path(tmp), branch, {self.relpath(p): t for p, t in files.items()},
                                      head, message)

    def _commit_files(self, tmp: Path, branch: str, texts: dict[str, str], head: str, message: str) -> str:
        (tmp / "message").write_text(message, encoding="utf-8")
        blobs = {}
        for i, (rel, text) in enumerate(sorted(texts.items())):
            (tmp / f"content{i}").write_text(text, encoding="utf-8")
            blobs[rel] = self._run("hash-object", "-w", "--", str(tmp / f"content{i}"))[1].strip()
        status, existing, _ = self._run("rev-parse", "--verify", "--quiet", f"refs/heads/{branch}")
        if status == 0:
            existing = existing.strip()
            same = (self._run("rev-parse", f"{existing}^")[1].strip() == head
                    and all(self._run("rev-parse", f"{existing}:{rel}")[1].strip() == blob
                            for rel, blob in blobs.items())
                    and self._run("log", "-1", "--format=%B", existing)[1].strip() == message.strip())
            if same:
                return existing
        env = self._identity_env() | {"GIT_INDEX_FILE": str(tmp / "index")}
        steps = [("read-tree", head)] + [("update-index", "--add", "--cacheinfo", f"100644,{blob},{rel}")
                                         for rel, blob in blobs.items()]
        for args in steps:
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

    def create_branch(self, sha: str, branch: str, remote: str = "origin") -> None:
        """Push ``sha`` as the new ``branch`` on ``remote``; refused by git when the branch is there
        already (a lease on its absence), so nobody's branch is ever moved by it."""
        status, _, err = self._run("push", "--quiet", f"--force-with-lease=refs/heads/{branch}:", remote,
                                   f"{sha}:refs/heads/{branch}")
        if status != 0:
            url = self._run("remote", "get-url", remote)[1].strip() or remote
            raise remote_error(Remote(remote, url), f"cannot create {branch} on", err)

    def remote_tip(self, branch: str, remote: str = "origin") -> str | None:
        """The commit ``branch`` names on ``remote`` (None when there is no such branch)."""
        status, out, err = self._run("ls-remote", "--heads", remote, f"refs/heads/{branch}",
                                     timeout=TIMEOUT)
        if status != 0:
            url = self._run("remote", "get-url", remote)[1].strip() or remote
            raise remote_error(Remote(remote, url), "cannot list branches of", err)
        return next((line.split()[0] for line in out.splitlines() if line.endswith(f"refs/heads/{branch}")), None)

    def person_pushed(self, branch: str, remote: str = "origin") -> str | None:
        """Who else wrote on the tool's ``branch`` on ``remote``: None when the branch is absent
        or its tip is the tool's own single commit (``is_tool_commit``, one parent: the tool
        always commits one commit on the base), else one line naming the tip and who committed it.

        Only the tip is fetched (one commit deep in a shallow checkout), so this is cheap on
        the shallow clone CI makes."""
        tip = self.remote_tip(branch, remote)
        return None if tip is None else self.persons_tip(branch, tip, remote)

    def _fetch_tip(self, branch: str, tip: str, remote: str) -> None:
        """Make ``tip`` (read from ``remote``'s ``branch``) present: fetched one commit deep in a
        shallow checkout, so a full clone never turns shallow."""
        if self._run("cat-file", "-e", f"{tip}^{{commit}}")[0] != 0:
            shallow = self._run("rev-parse", "--is-shallow-repository")[1].strip() == "true"
            status, _, err = self._run("fetch", "--quiet", "--no-tags", "--no-write-fetch-head",
                                       *(["--depth=1"] if shallow else []), remote, tip, timeout=TIMEOUT)
            if status != 0:
                url = self._run("remote", "get-url", remote)[1].strip() or remote
                raise remote_error(Remote(remote, url), f"cannot fetch {branch} from", err)

    def text_at_remote_tip(self, branch: str, path: Path, remote: str = "origin") -> str | None:
        """The text of ``path`` at ``branch``'s tip on ``remote`` as it is now (a bump merged in
        this very job is there, not yet in the checkout); None without that branch or file."""
        tip = self.remote_tip(branch, remote)
        if tip is None:
            return None
        self._fetch_tip(branch, tip, remote)
        status, out, _ = self._run("show", f"{tip}:{self.relpath(path)}")
        return out if status == 0 else None

    def persons_tip(self, branch: str, tip: str, remote: str = "origin") -> str | None:
        """``person_pushed`` for a tip already read from ``remote``."""
        self._fetch_tip(branch, tip, remote)
        if self.is_tool_commit(tip):
            return None
        author = self._run("log", "-1", "--format=%cn", tip)[1].strip() or "someone"
        return f"{author} pushed {tip[:12]} to {branch}"

    def unchanged_tip(self, branch: str, sha: str, remote: str = "origin") -> str | None:
        """The tip of ``branch`` on ``remote`` when it already is ``sha``'s change: the same tree
        on the same parents (yesterday's roll, committed again today with a new date or new
        notes). Pushing ``sha`` over it would change nothing but restart its checks. None when
        the tip differs, or is absent here or on ``remote``."""
        tip = self.remote_tip(branch, remote)
        if tip is None or self._run("cat-file", "-e", f"{tip}^{{commit}}")[0] != 0:
            return None
        trees = [self._run("rev-parse", f"{c}^{{tree}}")[1].strip() for c in (tip, sha)]
        parents = [self._run("rev-list", "--parents", "-n", "1", c)[1].split()[1:] for c in (tip, sha)]
        return tip if trees[0] == trees[1] and parents[0] == parents[1] else None

    def is_tool_commit(self, sha: str) -> bool:
        """``sha`` is the tool's own: one parent, the trailer, and author == committer."""
        raw = self._run("cat-file", "commit", sha)[1]
        header, _, message = raw.partition("\n\n")
        lines = header.splitlines()
        parents = [line for line in lines if line.startswith("parent ")]

        def who(kind: str) -> str:  # "name <email>" without the date
            line = next((x for x in lines if x.startswith(kind + " ")), "")
            return line[len(kind) + 1:].rsplit(">", 1)[0]

        trailers = [line.strip() for line in message.strip().splitlines()[-3:]]
        return (len(parents) == 1 and TOOL_TRAILER in trailers
                and who("author") != "" and who("author") == who("committer"))

    def delete_remote_branch(self, branch: str, remote: str = "origin") -> bool:
        """Delete ``branch`` (one of the tool's own) on ``remote``; False when that failed."""
        if not branch.startswith(TOOL_BRANCH_PREFIXES):
            raise AssertionError(f"refusing to delete {branch}: not a branch this tool owns")
        return self._run("push", "--quiet", remote, f":refs/heads/{branch}")[0] == 0


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


def committed_roller(root: Path) -> tuple[Roller, str | None]:
    """roller.yaml as committed at HEAD (what was reviewed), and one warning line when the work
    tree's copy differs (an edit, a new file, a deletion), which is ignored. Outside a git
    checkout there is no commit to read: the file as it is."""
    from release.core.roller import ROLLER_FILE, Roller, load_roller, parse_roller
    try:
        repo = ReleaseRepo(root)
    except UserError:
        return load_roller(root), None
    path = Path(root) / ROLLER_FILE
    text = repo.committed(path)
    roller = parse_roller(path, text.encode("utf-8")) if text is not None else Roller()
    changed = repo._run("status", "--porcelain", "--untracked-files=normal", "--", repo.relpath(path))[1]
    if not changed.strip():
        return roller, None
    return roller, (f"{ROLLER_FILE}: an uncommitted edit is ignored; the roller follows {ROLLER_FILE} "
                    "as committed at HEAD (a reviewed commit)")
