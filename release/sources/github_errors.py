"""Who is at fault when GitHub fails: the request's sender (``GitHubRefused``, exit 2) or GitHub
(``GitHubUnavailable``, exit 3: retry later), with the write whose outcome is unknown
(``UncertainWrite``) and the answer that is not what GitHub documents (``MalformedAnswer``)
told apart. Every message is redacted: no token reaches output through an error.
"""

from __future__ import annotations

from release.core.errors import USER_EXIT, ReleaseError, RemoteError, UserError
from release.core.redact import redact


class GitHubError(ReleaseError):
    """GitHub answered with an error, or not at all: status, GitHub's message and error codes.

    Raised as ``GitHubRefused`` (exit 2) or ``GitHubUnavailable`` (exit 3).
    """

    def __init__(self, method: str, path: str, status: int | None, message: str,
                 errors: list | None = None):
        self.method, self.path, self.status, self.errors = method, path, status, errors or []
        codes = ", ".join(f"{e.get('code')}" + (f" {e['field']}" if e.get("field") else "")
                          for e in self.errors if isinstance(e, dict))
        shown = f"{status}" if status is not None else "no answer"
        super().__init__(redact(f"GitHub API {method} {path}: {shown} {message}"
                                + (f" ({codes})" if codes else "")))

    def has_code(self, code: str) -> bool:
        return any(isinstance(e, dict) and e.get("code") == code for e in self.errors)


class GitHubRefused(GitHubError, UserError):
    """GitHub refused the request (4xx): the token, its permissions, the repository or the
    request itself is wrong. Exit 2."""

    exit_code = USER_EXIT


class GitHubUnavailable(GitHubError, RemoteError):
    """GitHub failed: 5xx after the retries, no answer, rate limited past the deadline, or an
    answer that is not what the endpoint documents. Exit 3: retry later."""


class MalformedAnswer(GitHubUnavailable):
    """A 2xx answer whose body is not the JSON the endpoint documents; ``what`` names the
    request ("GET /repos/o/r/releases") or the object read ("release 12")."""

    def __init__(self, what: str, message: str, status: int | None = None):
        self.method, self.path, self.status, self.errors = "", what, status, []
        ReleaseError.__init__(self, redact(f"GitHub API {what}: malformed answer: {message}"))


class UncertainWrite(GitHubUnavailable):
    """A non-idempotent write got a 5xx or no answer: it may or may not have happened.

    Re-list what it would have created and compare before trying again.
    """
