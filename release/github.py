"""HTTP to GitHub's REST API: auth, retries, rate limits, pagination, uploads, downloads.

Knows nothing about wheels or releases. Reads the token from ``GITHUB_TOKEN`` and
the base URL from ``GITHUB_API_URL`` (GitHub Actions' names) and registers the
token with ``release.redact`` so it never reaches output, logs or exceptions.

Retry rules, because GitHub can answer 5xx after it did the work:
- GET/PATCH/PUT/DELETE are retried with backoff on connection errors and 5xx.
- POST is not: a connection error or 5xx raises ``UncertainWrite`` so the caller
  re-lists what it tried to create before trying again (``idempotent=True`` opts in).
- Rate limits are waited out (primary: until ``x-ratelimit-reset``; secondary:
  ``retry-after``, else at least 60 s with backoff) while the deadline allows;
  a rejected request was not applied, so every method retries after the wait.
- Writes are serial with at least ``write_interval`` seconds between them.
``sleep`` and ``clock`` are injectable so tests never wait.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any, Callable, Iterator
from urllib.parse import urlsplit

import requests

from release.errors import UserError
from release.redact import redact, register_secret

DEFAULT_API_URL = "https://api.github.com"
API_VERSION = "2022-11-28"
JSON_MEDIA = "application/vnd.github+json"
BINARY_MEDIA = "application/octet-stream"
WRITE_METHODS = ("POST", "PATCH", "PUT", "DELETE")
IDEMPOTENT = ("GET", "HEAD", "PUT", "PATCH", "DELETE")
CHUNK = 1 << 20


class GitHubError(UserError):
    """GitHub answered with an error: status, GitHub's message and its error codes."""

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


class UncertainWrite(GitHubError):
    """A non-idempotent write got a 5xx or no answer: it may or may not have happened.

    Re-list what it would have created and compare before trying again.
    """


def _path_of(url: str) -> str:
    """Path of a URL without query (signed URLs and tokens live in queries)."""
    return urlsplit(url).path or "/"


class _ProgressReader:
    """A file's bytes in 1 MiB chunks, advancing a progress bar as they are sent.

    Iterable with a length (no ``read``): requests sends ``Content-Length`` and
    http.client sends our chunks as they are, instead of reading 8 KiB at a time.
    """

    def __init__(self, handle, size: int, advance: Callable[[int], None]):
        self.handle, self.size, self.advance = handle, size, advance

    def __iter__(self):
        while data := self.handle.read(CHUNK):
            self.advance(len(data))
            yield data

    def __len__(self) -> int:
        return self.size


class GitHubClient:
    def __init__(self, token: str | None, api_url: str = DEFAULT_API_URL, *,
                 session: requests.Session | None = None, sleep: Callable[[float], None] = time.sleep,
                 clock: Callable[[], float] = time.time, deadline: float = 900.0,
                 retries: int = 5, write_interval: float = 1.0, timeout: float = 60.0,
                 console=None):
        if not token:
            raise UserError("GITHUB_TOKEN is not set; a token with 'contents: write' is needed "
                            "to read drafts and publish releases")
        register_secret(token)
        self._token = token
        self.api_url = api_url.rstrip("/")
        self.session = session or requests.Session()
        self.session.trust_env = False
        self.sleep, self.clock = sleep, clock
        self.deadline, self.retries = deadline, retries
        self.write_interval, self.timeout = write_interval, timeout
        self.console = console
        self._last_write: float | None = None
        self._blocked_until = 0.0

    @classmethod
    def from_env(cls, env: dict | None = None, **kwargs) -> "GitHubClient":
        env = os.environ if env is None else env
        if "RELEASE_GITHUB_WRITE_INTERVAL" in env and "write_interval" not in kwargs:
            kwargs["write_interval"] = float(env["RELEASE_GITHUB_WRITE_INTERVAL"])
        return cls(env.get("GITHUB_TOKEN"), env.get("GITHUB_API_URL") or DEFAULT_API_URL, **kwargs)

    def __repr__(self) -> str:
        return f"GitHubClient({self.api_url!r})"

    # ------------------------------------------------------------ core

    def _headers(self, accept: str = JSON_MEDIA) -> dict:
        return {"Accept": accept, "X-GitHub-Api-Version": API_VERSION,
                "Authorization": f"Bearer {self._token}", "User-Agent": "jax-rocm-release"}

    def _url(self, path: str) -> str:
        return path if path.startswith(("http://", "https://")) else self.api_url + "/" + path.lstrip("/")

    def send(self, method: str, url: str, *, json: Any = None, params: dict | None = None,
             data=None, headers: dict | None = None, idempotent: bool | None = None,
             allow_redirects: bool = True, rewind: Callable[[], Any] | None = None) -> requests.Response:
        """One logical request with retries and rate-limit waits; returns the final 2xx/3xx response.

        ``rewind`` is called before each re-send of a streamed body (it returns a fresh one).
        """
        method = method.upper()
        url = self._url(url)
        shown = _path_of(url)
        if idempotent is None:
            idempotent = method in IDEMPOTENT
        start = self.clock()
        attempt = 0
        backoff = 1.0
        while True:
            attempt += 1
            self._wait_blocked(method, shown, start)
            if method in WRITE_METHODS:
                self._space_writes()
            hdrs = self._headers()
            hdrs.update(headers or {})
            body = data
            if rewind is not None and attempt > 1:
                body = rewind()
            try:
                response = self.session.request(method, url, json=json, params=params, data=body,
                                                headers=hdrs, timeout=self.timeout,
                                                allow_redirects=allow_redirects)
            except requests.RequestException as exc:
                reason = f"connection failed ({type(exc).__name__})"
                if not idempotent:
                    raise UncertainWrite(method, shown, None, reason) from None
                self._retry_or_raise(method, shown, None, reason, attempt, start, backoff)
                backoff *= 2
                continue
            finally:
                if method in WRITE_METHODS:
                    self._last_write = self.clock()
            self._note_rate_limit(response)
            if response.status_code < 400:
                return response
            wait = self._rate_limit_wait(response, backoff)
            if wait is not None:
                if self.clock() + wait - start > self.deadline:
                    raise GitHubError(method, shown, response.status_code,
                                      f"rate limited for {wait:.0f} s more, beyond the "
                                      f"{self.deadline:.0f} s deadline") from None
                self._say(f"GitHub rate limit: waiting {wait:.0f} s")
                self.sleep(wait)
                backoff *= 2
                continue
            message, errors = _error_of(response)
            if response.status_code >= 500:
                if not idempotent:
                    raise UncertainWrite(method, shown, response.status_code, message, errors)
                self._retry_or_raise(method, shown, response.status_code, message, attempt, start, backoff)
                backoff *= 2
                continue
            if response.status_code == 404 and method == "DELETE" and attempt > 1:
                return response  # an earlier attempt deleted it
            raise GitHubError(method, shown, response.status_code, message, errors)

    def request(self, method: str, path: str, *, json: Any = None, params: dict | None = None,
                idempotent: bool | None = None) -> Any:
        """JSON in, JSON out (None for 204)."""
        response = self.send(method, path, json=json, params=params, idempotent=idempotent)
        if response.status_code in (204, 404) or not response.content:
            return None  # 404 only reaches here for a DELETE an earlier attempt did
        return response.json()

    def paginate(self, path: str, params: dict | None = None, *, key: str | None = None) -> Iterator[Any]:
        """Every item of a list endpoint, following the ``Link: rel="next"`` header.

        ``key`` names the list inside an object answer (``check_runs``, ``statuses``).
        """
        params = {"per_page": 100, **(params or {})}
        response = self.send("GET", path, params=params)
        while True:
            data = response.json()
            yield from (data[key] if key is not None else data)
            nxt = response.links.get("next", {}).get("url")
            if not nxt:
                return
            response = self.send("GET", nxt)

    # ------------------------------------------------------------ files

    def upload(self, upload_url: str, file: Path, name: str, *, label: str | None = None,
               progress=None) -> dict:
        """POST a file's bytes to the uploads host named in a release's ``upload_url``.

        Streamed from disk with ``Content-Length``; never retried here (a POST): on
        ``UncertainWrite`` the caller re-lists the assets first.
        """
        url = upload_url.split("{", 1)[0]
        file = Path(file)
        size = file.stat().st_size
        params = {"name": name, **({"label": label} if label else {})}
        task = None
        if progress is not None:
            task = progress.add_task(f"upload {name}", total=size)

        def advance(n):
            if task is not None:
                progress.advance(task, n)
        try:
            with open(file, "rb") as handle:
                def rewind():  # a rate-limit wait re-sends the whole file
                    handle.seek(0)
                    if task is not None:
                        progress.reset(task, total=size)
                    return _ProgressReader(handle, size, advance)
                response = self.send("POST", url, params=params,
                                     data=_ProgressReader(handle, size, advance), rewind=rewind,
                                     headers={"Content-Type": BINARY_MEDIA,
                                              "Content-Length": str(size)})
        finally:
            if task is not None:
                progress.remove_task(task)
        return response.json()

    def download(self, asset_url: str, dest: Path, *, progress=None, name: str | None = None) -> Path:
        """Download an asset's bytes: the API answers 302 to a storage host, which gets no token.

        An interrupted transfer starts over with a fresh signed URL (bounded by the retries).
        """
        dest = Path(dest)
        tmp = dest.with_name(dest.name + ".part")
        attempt, backoff, start = 0, 1.0, self.clock()
        while True:
            attempt += 1
            response = self.send("GET", asset_url, headers={"Accept": BINARY_MEDIA},
                                 allow_redirects=False)
            try:
                # A fresh request without our headers: the signed URL is the credential there.
                stream = self._storage_get(response.headers["Location"]) if response.is_redirect else response
                self._save(stream, tmp, progress, name or dest.name)
                break
            except requests.RequestException as exc:
                self._retry_or_raise("GET", "<asset storage>", None,
                                     f"download interrupted ({type(exc).__name__})", attempt, start, backoff)
                backoff *= 2
        tmp.replace(dest)
        return dest

    @staticmethod
    def _save(stream, tmp: Path, progress, name: str) -> None:
        total = int(stream.headers.get("Content-Length") or 0) or None
        task = progress.add_task(f"download {name}", total=total) if progress is not None else None
        try:
            with open(tmp, "wb") as handle:
                for chunk in stream.iter_content(CHUNK):
                    handle.write(chunk)
                    if task is not None:
                        progress.advance(task, len(chunk))
        finally:
            if task is not None:
                progress.remove_task(task)

    def _storage_get(self, location: str) -> requests.Response:
        """One GET of a signed storage URL; failures worth a fresh URL raise RequestException."""
        response = requests.get(location, stream=True, timeout=self.timeout,
                                headers={"User-Agent": "jax-rocm-release"})
        if response.status_code < 400:
            return response
        if response.status_code >= 500 or response.status_code == 403:  # 403: signature expired
            raise requests.HTTPError(f"storage answered {response.status_code}")
        raise GitHubError("GET", "<asset storage>", response.status_code, "download refused")

    # ------------------------------------------------------------ pull requests (bump PRs)

    def list_pulls(self, owner: str, repo: str, *, head: str | None = None, state: str = "open",
                   base: str | None = None) -> list[dict]:
        """Pull requests; ``head`` is ``branch`` or ``owner:branch``."""
        params = {"state": state}
        if head:
            params["head"] = head if ":" in head else f"{owner}:{head}"
        if base:
            params["base"] = base
        return list(self.paginate(f"/repos/{owner}/{repo}/pulls", params))

    def create_pull(self, owner: str, repo: str, *, title: str, head: str, base: str,
                    body: str = "", draft: bool = False) -> dict:
        return self.request("POST", f"/repos/{owner}/{repo}/pulls",
                            json={"title": title, "head": head, "base": base, "body": body,
                                  "draft": draft})

    def update_pull(self, owner: str, repo: str, number: int, **fields) -> dict:
        """PATCH a pull request: ``title``, ``body``, ``state`` ("open"/"closed"), ``base``."""
        return self.request("PATCH", f"/repos/{owner}/{repo}/pulls/{int(number)}", json=fields)

    # ------------------------------------------------------------ waits

    def _say(self, text: str) -> None:
        if self.console is not None:
            self.console.print(redact(text), markup=False)

    def _space_writes(self) -> None:
        if self._last_write is None or self.write_interval <= 0:
            return
        gap = self._last_write + self.write_interval - self.clock()
        if gap > 0:
            self.sleep(gap)

    def _wait_blocked(self, method, shown, start) -> None:
        gap = self._blocked_until - self.clock()
        if gap <= 0:
            return
        if self.clock() + gap - start > self.deadline:
            raise GitHubError(method, shown, None, f"rate limit exhausted for {gap:.0f} s more, "
                              f"beyond the {self.deadline:.0f} s deadline")
        self._say(f"GitHub rate limit exhausted: waiting {gap:.0f} s for the reset")
        self.sleep(gap)

    def _note_rate_limit(self, response) -> None:
        if response.headers.get("x-ratelimit-remaining") == "0" and response.status_code < 400:
            reset = _float(response.headers.get("x-ratelimit-reset"))
            if reset is not None:
                self._blocked_until = max(self._blocked_until, reset + 1)

    def _rate_limit_wait(self, response, backoff: float) -> float | None:
        """Seconds to wait for a rate-limit rejection, or None when it is not one."""
        if response.status_code not in (403, 429):
            return None
        headers = response.headers
        retry_after = _float(headers.get("retry-after"))
        if retry_after is not None:
            return max(retry_after, 1.0)
        if headers.get("x-ratelimit-remaining") == "0":
            reset = _float(headers.get("x-ratelimit-reset"))
            if reset is not None:
                return max(reset - self.clock(), 0) + 1
        message, _ = _error_of(response)
        if response.status_code == 429 or "rate limit" in message.lower():
            return 60.0 * backoff
        return None

    def _retry_or_raise(self, method, shown, status, reason, attempt, start, backoff) -> None:
        if attempt > self.retries or self.clock() + backoff - start > self.deadline:
            raise GitHubError(method, shown, status, f"{reason} (gave up after {attempt} attempts)")
        self._say(f"GitHub {method} {shown}: {reason}; retrying in {backoff:.0f} s")
        self.sleep(backoff)


def _float(text) -> float | None:
    try:
        return float(text)
    except (TypeError, ValueError):
        return None


def _error_of(response) -> tuple[str, list]:
    try:
        data = response.json()
    except ValueError:
        return (response.reason or "error"), []
    if not isinstance(data, dict):
        return str(data)[:200], []
    errors = data.get("errors") if isinstance(data.get("errors"), list) else []
    return str(data.get("message") or response.reason or "error"), errors
