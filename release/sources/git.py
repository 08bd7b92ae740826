"""The git command edge: one git process, a remote and its errors, commit log entries, HEAD.

Knows nothing of releases. A remote is a URL plus a label for messages (the caller's
name for it). Every git process runs with ``GIT_TERMINAL_PROMPT=0`` (never prompts).
Failures a user can cause (unreachable remote, missing branch, refused credentials) become
one-line ``UserError``s naming the label and the URL with credentials stripped.

Credentials in a remote URL (``https://x-access-token:TOKEN@host/...``) never reach disk
or argv: git gets the URL without them, and the credentials as an ``Authorization``
header in the environment of each command (``GIT_CONFIG_COUNT``), so a mirror's config
holds the bare URL and a rotated token keeps working with the same mirror. git sends that
header after a redirect too, whatever the new host: a remote with credentials is never
followed to another place (``http.followRedirects=false``); the error says to name the new URL.

The upstream mirrors are ``release.sources.partial`` (the cached partial clone and its
fetches) and ``release.sources.mirror`` (history questions); this repository's own checkout
is ``release.sources.repo``.
"""

from __future__ import annotations

import base64
import dataclasses
import os
import re
import subprocess
from pathlib import Path
from typing import Any, Iterator

from release.core.errors import RemoteError, UserError
from release.core.redact import display_url, redact, register_secret, url_credentials

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
TIMEOUT = 1800.0
_SHA = re.compile(r"^[0-9a-f]{40}\Z", re.ASCII)


@dataclasses.dataclass(frozen=True)
class Remote:
    """A repository asked by its URL; ``label`` names it in messages (its credentials are secrets)."""

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
    """One commit as a changelog lists it: SHA, committer date, author, subject."""

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
    stdin = {"input": input} if input is not None else {"stdin": subprocess.DEVNULL}
    proc = _git(args, cwd, env, **stdin, encoding=encoding, errors="replace")
    if proc is None:
        return 124, "", f"fatal: git {args[0]} timed out after {TIMEOUT:.0f} s"
    return proc.returncode, proc.stdout.removesuffix("\n"), proc.stderr.removesuffix("\n")


def run_git_bytes(args: list[str], cwd: Path | None = None, env: dict[str, str] | None = None,
                  input: bytes = b"") -> tuple[int, bytes]:
    """``run_git`` for output read by byte counts (``cat-file --batch``): ``(status, stdout)``
    exactly as git wrote it (text mode would turn CR LF into LF and break the counts)."""
    proc = _git(args, cwd, env, input=input)
    return (124, b"") if proc is None else (proc.returncode, proc.stdout)


def batch_objects(out: bytes) -> Iterator[tuple[str, str, bytes | None]]:
    """``(name, type, content)`` of each entry of ``git cat-file --batch``'s output, in order:
    type ``missing`` and no content for an object git did not find. Stops at output it cannot
    read (a cut or foreign stream): the entries before it stand."""
    pos = 0
    while pos < len(out):
        end = out.find(b"\n", pos)
        if end < 0:
            return
        header = out[pos:end].decode("latin-1").split(" ")
        if header[1:] == ["missing"]:
            yield header[0], "missing", None
            pos = end + 1
            continue
        if len(header) != 3 or not header[2].isdigit():
            return
        size = int(header[2])
        yield header[0], header[1], out[end + 1:end + 1 + size]
        pos = end + 1 + size + 1

def _git(args: list[str], cwd: Path | None, env: dict[str, str] | None,
         **io: Any) -> subprocess.CompletedProcess | None:
    """The one place a git process is started for ``run_git`` and ``run_git_bytes``: ``ENV`` over
    this process's environment plus ``env``, output captured, killed after ``TIMEOUT`` (None)."""
    try:
        return subprocess.run(["git", *args], cwd=str(cwd) if cwd else None, capture_output=True,
                              env={**os.environ, **ENV, **(env or {})}, timeout=TIMEOUT, **io)
    except subprocess.TimeoutExpired:
        return None


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
