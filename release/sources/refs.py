"""Ask a remote for its branch tips without cloning (protocol v2 ``ls-refs``, server-side filtered).

A bump asks upstream which branches exist and where they point before it fetches anything:
only the refs under a pattern's fixed prefix are listed (``refs/heads/rocm-jaxlib-v``), not
the thousands of ``refs/pull/*`` GitHub keeps. The git edge itself (remotes, credentials,
errors, mirrors) is ``release.sources.git``.
"""

from __future__ import annotations

import fnmatch
import os
import re
import subprocess
import urllib.parse

from release.core.config import is_branch_name
from release.core.errors import UserError
from release.sources.git import _SHA, ENV, TIMEOUT, Remote, remote_error, run_git


def ls_remote(remote: Remote, branch: str) -> str:
    """The commit at the tip of ``branch`` on ``remote``, asked without cloning."""
    tips = ls_remote_branches(remote, branch)
    if branch in tips:
        return tips[branch]
    raise UserError(f"{remote.label}: no branch '{branch}' on {remote.shown}")


def ls_remote_branches(remote: Remote, pattern: str) -> dict[str, str]:
    """``{branch: tip}`` for the branches matching the glob ``pattern``, asked without cloning.

    The server is asked only for the refs under the pattern's fixed prefix
    (``refs/heads/rocm-jaxlib-v``: protocol v2's ``ls-refs`` with ``ref-prefix``), not the
    thousands of ``refs/pull/*`` and branches GitHub keeps. Where that cannot be asked
    (ssh, a server without protocol v2) ``git ls-remote --heads`` lists ``refs/heads/``.
    """
    prefix = "refs/heads/" + re.split(r"[*?\[]", pattern, maxsplit=1)[0]
    refs = ls_refs(remote, prefix)
    if refs is None:
        refs = _ls_remote_heads(remote, pattern)
    tips = {}
    for ref, sha in refs.items():
        name = ref.removeprefix("refs/heads/")
        if ref.startswith("refs/heads/") and _SHA.match(sha) and fnmatch.fnmatchcase(name, pattern) \
                and is_branch_name(name):  # one deps.yaml would refuse (U+0661 digits, --upload-pack) is none
            tips[name] = sha
    return tips


def _ls_remote_heads(remote: Remote, pattern: str) -> dict[str, str]:
    status, out, err = run_git(["-c", "protocol.version=2", "ls-remote", "--heads", "--", remote.bare_url,
                                f"refs/heads/{pattern}"], env=remote.auth_env())
    if status != 0:
        raise remote_error(remote, "cannot list", err)
    return {ref: sha for sha, _, ref in (line.partition("\t") for line in out.splitlines())}


def _pkt(line: str) -> bytes:
    data = line.encode()
    return b"%04x" % (len(data) + 4) + data


def _read_pkts(data: bytes, pos: int) -> tuple[list[bytes], int]:
    """pkt-lines from ``pos`` up to the next flush packet; returns them and where it ended."""
    lines: list[bytes] = []
    while pos + 4 <= len(data):
        size = int(data[pos:pos + 4], 16)
        if size in (0, 1, 2):  # flush, delimiter, response end
            return lines, pos + 4
        if size < 4:  # no such packet: a length counts its own 4 bytes
            raise ValueError(f"a pkt-line of length {size}, shorter than its own header")
        lines.append(data[pos + 4:pos + size])
        pos += size
    raise ValueError("truncated pkt-line stream")


def _helper_request(url: str, request: bytes, env: dict[str, str],
                    rewrite: bool = False) -> tuple[bytes | None, str, int]:
    """One protocol v2 request through git's own HTTP transport (``git remote-http``'s
    ``stateless-connect``: proxies, TLS settings and headers as for any fetch). Returns the
    response after the capability advertisement, or None when the server offers no v2.
    ``rewrite``: the URL is the helper's only argument, so git applies url.<base>.insteadOf to
    it as ``ls-remote --get-url`` would (no process asks for it first)."""
    helper = "remote-https" if url.startswith("https://") else "remote-http"
    # Unbuffered: reading the ready line must not swallow the advertisement that follows it.
    proc = subprocess.Popen(["git", helper, url] if rewrite else ["git", helper, "origin", url],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env, bufsize=0)
    assert proc.stdin is not None and proc.stdout is not None  # both are pipes: asked for above
    try:
        # The helper reads its command line buffered: the request may follow only once it is ready.
        proc.stdin.write(b"stateless-connect git-upload-pack\n")
        proc.stdin.flush()
        ready = proc.stdout.readline()
        if ready != b"\n":
            proc.kill()
            _, err = proc.communicate()
            if ready.startswith(b"fallback"):
                return None, "", 0
            return b"", err.decode(errors="replace"), proc.returncode or 1
        out, err = proc.communicate(request, timeout=TIMEOUT)
    except BrokenPipeError:
        _, err = proc.communicate()
        return b"", err.decode(errors="replace"), proc.returncode or 1
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        raise
    try:
        caps, pos = _read_pkts(out, 0)
    except ValueError:
        return b"", err.decode(errors="replace"), proc.returncode or 1
    if not caps or caps[0].strip() != b"version 2":
        return None, "", 0
    return out[pos:], err.decode(errors="replace"), proc.returncode


def _rewritten(url: str, env: dict[str, str]) -> str:
    """``url`` as git would use it, url.<base>.insteadOf applied."""
    got = subprocess.run(["git", "ls-remote", "--get-url", url], capture_output=True, env=env, text=True)
    return got.stdout.strip() if got.returncode == 0 and got.stdout.strip() else url


def ls_refs(remote: Remote, prefix: str) -> dict[str, str] | None:
    """``{ref: sha}`` for the refs starting with ``prefix``, by protocol v2 ``ls-refs`` (the
    server filters). None when this transport cannot speak it here (ssh, git://, a v0 server)."""
    request = _pkt("command=ls-refs\n") + b"0001" + _pkt("peel\n") + _pkt(f"ref-prefix {prefix}\n") + b"0000"
    env = {**os.environ, **ENV, **remote.auth_env(), "GIT_PROTOCOL": "version=2"}
    url = remote.bare_url
    try:
        if url.startswith(("http://", "https://")):
            # git's HTTP helper rewrites the URL itself (url.<base>.insteadOf: mirrors, tests); the
            # rewritten URL is asked for only when that failed, in case it leads off HTTP (a local
            # mirror): the helper cannot follow it there.
            data, err, status = _helper_request(url, request, env, rewrite=True)
            if data == b"" and (moved := _rewritten(url, env)) != url:
                url = moved
        else:
            url = _rewritten(url, env)
        if url != remote.bare_url or not url.startswith(("http://", "https://")):
            if url.startswith(("http://", "https://")):
                data, err, status = _helper_request(url, request, env)
            elif url.startswith(("file://", "/")):
                path = urllib.parse.unquote(urllib.parse.urlsplit(url).path) if url.startswith("file://") else url
                proc = subprocess.run(["git", "upload-pack", "--stateless-rpc", path], input=request,
                                      capture_output=True, env=env, timeout=TIMEOUT)
                data, err, status = proc.stdout, proc.stderr.decode(errors="replace"), proc.returncode
            else:
                return None
        if data is None:  # the server does not speak v2
            return None
    except subprocess.TimeoutExpired:
        raise remote_error(remote, "cannot list", "timed out") from None
    if status != 0 and not data:
        raise remote_error(remote, "cannot list", err)
    try:
        lines, _ = _read_pkts(data, 0)
    except ValueError:
        if status != 0:
            raise remote_error(remote, "cannot list", err) from None
        return None
    refs = {}
    for line in lines:
        sha, _, rest = line.decode(errors="replace").rstrip("\n").partition(" ")
        refs[rest.split(" ", 1)[0]] = sha
    return refs
