"""HTTP to GitHub's REST API: auth, retries, rate limits, pagination, uploads, downloads.

Knows nothing about wheels or releases. Reads the token from ``GITHUB_TOKEN`` and
the base URL from ``GITHUB_API_URL`` (GitHub Actions' names) and registers the
token with ``release.core.redact`` so it never reaches output, logs or exceptions.

Retry rules, because GitHub can answer 5xx after it did the work:
- GET/PATCH/PUT/DELETE are retried with backoff on connection errors and 5xx.
- A host name that does not resolve is not: at once when the resolver says it does not exist,
  after one try more a second later otherwise; nothing was sent, so a POST is not uncertain.
- POST is not: a connection error or 5xx raises ``UncertainWrite`` so the caller
  re-lists what it tried to create before trying again (``idempotent=True`` opts in).
- Rate limits are waited out (primary: until ``x-ratelimit-reset``; secondary:
  ``retry-after``, else at least 60 s), each repeated rejection of one request waiting
  at least twice as long as the last, at most ``rate_limit_retries`` times and within the
  deadline; a rejected request was not applied, so every method retries after the wait.
- Writes are serial with at least ``write_interval`` seconds between them.
``sleep`` and ``clock`` are injectable so tests never wait.

Who is at fault: a 4xx answer raises ``GitHubRefused`` (a ``UserError``, exit 2: the
token, the repository or the request); 5xx after the retries, no answer, a rate limit past
the deadline and an answer that is not the JSON the endpoint documents raise
``GitHubUnavailable`` (a ``RemoteError``, exit 3). A body GitHub limits (a pull request's, a
comment's) is cut to the limit on the way out (``release.core.bodies``). Every answer is checked where it
enters: ``request``/``paginate``/``upload`` parse the JSON and check its top-level shape,
``fields`` checks the members a caller reads. The token is checked when the client is
made: one trailing newline (as ``$(cat token-file)`` may leave) is dropped; any other
whitespace or control character is an error at once.
"""

from __future__ import annotations

import math
import os
import re
import socket
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, Callable, Iterator, Mapping, TypeVar
from urllib.parse import parse_qsl, quote, urlsplit

from release.core import bodies, bounded, sanitize, unresolved
from release.core.deadline import DeadlineExceeded, wall_clock_limit
from release.core.errors import UserError
from release.core.redact import redact, redact_data, register_secret
from release.sources import shapes
from release.sources.github_errors import GitHubError as GitHubError
from release.sources.github_errors import GitHubRefused as GitHubRefused
from release.sources.github_errors import GitHubUnavailable as GitHubUnavailable
from release.sources.github_errors import MalformedAnswer as MalformedAnswer
from release.sources.github_errors import UncertainWrite as UncertainWrite
from release.sources.shapes import fields as fields

if TYPE_CHECKING:
    import requests
    from rich.console import Console

    from release.core.output import ProgressBars

T = TypeVar("T")
DEFAULT_API_URL = "https://api.github.com"
API_VERSION = "2022-11-28"
JSON_MEDIA = "application/vnd.github+json"
BINARY_MEDIA = "application/octet-stream"
WRITE_METHODS = ("POST", "PATCH", "PUT", "DELETE")
IDEMPOTENT = ("GET", "HEAD", "PUT", "PATCH", "DELETE")
CHUNK = 1 << 20
RATE_LIMIT_RETRIES = 6
MAX_PAGES = 1000  # 100,000 items at 100 a page: more than any list the tool reads
MIN_LEFT = 0.05  # seconds a request gets when the deadline is all but spent
LOOKUP_WAIT = 1.0  # before the one more try a host name that failed to resolve gets
_TOKEN = re.compile(r"[\x21-\x7e]+")  # printable ASCII, no space: what an HTTP header can carry


def check_token(token: str) -> str:
    """The token as it goes into the header, or one clear ``UserError``.

    One trailing newline (``$(cat file)`` keeps none, ``$(<file)`` none, but ``read`` of a
    CRLF file or a secret pasted with Enter keeps one) is dropped; anything else that an
    HTTP header cannot carry is named, never echoed.
    """
    bare = token[:-2] if token.endswith("\r\n") else token[:-1] if token.endswith("\n") else token
    if not _TOKEN.fullmatch(bare):
        where = next((i for i, c in enumerate(bare) if not _TOKEN.fullmatch(c)), 0)
        what = "a space" if bare[where:where + 1] == " " else \
            "a tab" if bare[where:where + 1] == "\t" else \
            "a line break" if bare[where:where + 1] in ("\n", "\r") else \
            "a control character" if bare[where:where + 1].isascii() else "a non-ASCII character"
        raise UserError(f"GITHUB_TOKEN holds {what} at position {where + 1} of {len(token)}; "
                        "expected the token alone (printable ASCII, no whitespace)")
    return bare


def _path_of(url: str) -> str:
    """Path of a URL without query (signed URLs and tokens live in queries)."""
    return urlsplit(url).path or "/"


class _ProgressReader:
    """A file's bytes in 1 MiB chunks, advancing a progress bar as they are sent.

    Iterable with a length (no ``read``): requests sends ``Content-Length`` and
    http.client sends our chunks as they are, instead of reading 8 KiB at a time.
    """

    def __init__(self, handle: BinaryIO, size: int, advance: Callable[[int], None]):
        self.handle, self.size, self.advance = handle, size, advance

    def __iter__(self) -> Iterator[bytes]:
        while data := self.handle.read(CHUNK):
            self.advance(len(data))
            yield data

    def __len__(self) -> int:
        return self.size


# What a caller does with the API and the token permission that takes, for the line a missing
# token gets: ("publishing releases", "contents: write").
Permission = tuple[str, str]
PUBLISH: Permission = ("publishing releases", "contents: write")
READ_RELEASES: Permission = ("reading releases", "contents: read")
PULL_REQUEST: Permission = ("opening a pull request", "pull-requests: write")
READ_PULLS: Permission = ("reading the hold pull requests", "pull-requests: read")
BISECT_DISPATCH: Permission = ("starting the bisect workflow after reading the hold pull requests",
                               "pull-requests: read and actions: write")
DASHBOARD: Permission = ("the roller's dashboard issue", "issues: write")
WORKFLOW_RUNS: Permission = ("reading the nightly workflow's runs", "actions: read")
CHECK_RUNS: Permission = ("reading an upstream commit's CI", "checks: read and statuses: read")
SETTINGS: Permission = ("reading the repository's settings", "administration: read and pages: read")


class GitHubClient:
    def __init__(self, token: str | None, api_url: str = DEFAULT_API_URL, *,
                 session: requests.Session | None = None, sleep: Callable[[float], None] = time.sleep,
                 clock: Callable[[], float] = time.time, deadline: float = 900.0,
                 retries: int = 5, write_interval: float = 1.0, timeout: float = 60.0,
                 console: Console | None = None, needs: Permission = ("reading the repository", "contents: read")):
        import requests  # here, not at import: a command that asks nothing never loads it
        if not token:  # the caller names what it does and the permission that takes
            raise UserError(f"GITHUB_TOKEN is not set; {needs[0]} needs a token with {needs[1]} (the "
                            "workflow's permissions: block, or a fine-grained token's)")
        register_secret(token.strip())  # never with surrounding whitespace: redact would eat it
        self._token = check_token(token)
        parts = urlsplit(api_url)
        if parts.scheme not in ("http", "https") or not parts.hostname or parts.username \
                or parts.password:
            raise UserError(f"GITHUB_API_URL {redact(api_url)}: expected https://HOST[/PATH] "
                            "(no credentials in it)")
        self.api_url = api_url.rstrip("/")
        self._origin = (parts.scheme, parts.netloc)
        self.session = session or requests.Session()
        self.session.trust_env = False
        self.sleep, self.clock = sleep, clock
        self.deadline, self.retries = deadline, retries
        self.rate_limit_retries = RATE_LIMIT_RETRIES
        self.max_pages = MAX_PAGES
        self.write_interval, self.timeout = write_interval, timeout
        self.console = console
        self._last_write: float | None = None
        self._blocked_until = 0.0

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, **kwargs: Any) -> GitHubClient:
        env = os.environ if env is None else env
        if "RELEASE_GITHUB_WRITE_INTERVAL" in env and "write_interval" not in kwargs:
            text = env["RELEASE_GITHUB_WRITE_INTERVAL"]
            try:
                kwargs["write_interval"] = float(text)
            except ValueError:
                kwargs["write_interval"] = -1.0
            if not (math.isfinite(kwargs["write_interval"]) and 0 <= kwargs["write_interval"] <= 3600):
                raise UserError(f"RELEASE_GITHUB_WRITE_INTERVAL {text!r}: expected seconds from 0 "
                                "to 3600")
        return cls(env.get("GITHUB_TOKEN"), env.get("GITHUB_API_URL") or DEFAULT_API_URL, **kwargs)

    def __repr__(self) -> str:
        return f"GitHubClient({self.api_url!r})"

    # ------------------------------------------------------------ core

    def _headers(self, accept: str = JSON_MEDIA) -> dict[str, str]:
        return {"Accept": accept, "X-GitHub-Api-Version": API_VERSION,
                "Authorization": f"Bearer {self._token}", "User-Agent": "jax-rocm-release"}

    def _url(self, path: str, *, other_host: bool = False) -> str:
        """The full URL; an absolute one (a ``Link`` or an asset's ``url`` from an answer) must be
        on the API's own origin, so an answer can never send the token elsewhere."""
        if not path.startswith(("http://", "https://")):
            return self.api_url + "/" + path.lstrip("/")
        parts = urlsplit(path)
        if not other_host and (parts.scheme, parts.netloc) != self._origin:
            raise MalformedAnswer(f"link {_path_of(path)}",
                                  f"it points at {parts.scheme}://{parts.hostname}, not the "
                                  "API's host; the token is not sent there")
        return path

    def send(self, method: str, url: str, *, json: Any = None, params: dict | None = None,
             data: Any = None, headers: dict | None = None, idempotent: bool | None = None,
             allow_redirects: bool = True, rewind: Callable[[], Any] | None = None,
             other_host: bool = False) -> requests.Response:
        """One logical request with retries and rate-limit waits; returns the final 2xx/3xx response.

        ``rewind`` is called before each re-send of a streamed body (it returns a fresh one).
        ``other_host`` allows an absolute URL off the API's origin (the uploads host).
        """
        import requests
        method = method.upper()
        url = self._url(url, other_host=other_host)
        if json is not None:
            json = redact_data(json)  # titles, bodies, notes: nothing we send carries a secret
        shown = _path_of(url)
        if idempotent is None:
            idempotent = method in IDEMPOTENT
        start = self.clock()
        attempt = 0
        backoff = 1.0
        limited, last_wait = 0, 0.0  # rate-limit rejections of this request, and the last wait
        looked_up = False  # the host's name did not resolve once already
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
                # The deadline holds during the request too: a dripping answer is cut off.
                with wall_clock_limit(max(self.deadline - (self.clock() - start), MIN_LEFT)):
                    response = self.session.request(method, url, json=json, params=params, data=body,
                                                    headers=hdrs, timeout=self.timeout,
                                                    allow_redirects=allow_redirects)
            except DeadlineExceeded:
                reason = f"no complete answer within the {self.deadline:.0f} s deadline"
                if not idempotent:
                    raise UncertainWrite(method, shown, None, reason) from None
                raise GitHubUnavailable(method, shown, None, reason) from None
            except requests.RequestException as exc:
                if (lookup := unresolved.lookup_error(exc)) is not None:  # nothing was sent: no write is uncertain
                    self._unresolved(method, shown, urlsplit(url).netloc, lookup, attempt, start, again=looked_up)
                    looked_up = True
                    continue
                reason = (f"from {urlsplit(url).netloc} ({type(exc).__name__}): check the network, a proxy "
                          "or GITHUB_API_URL" if isinstance(exc, requests.ConnectionError)
                          else f"connection failed ({type(exc).__name__})")
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
            wait = self._rate_limit_wait(response)
            if wait is not None:
                limited += 1
                if limited > self.rate_limit_retries:
                    raise GitHubUnavailable(method, shown, response.status_code,
                                            f"rate limited {limited} times in a row; gave up "
                                            "(GitHub asks clients to stop after repeated limits)")
                wait = max(wait, 2 * last_wait)  # repeated limits: exponentially longer waits
                last_wait = wait
                if self.clock() + wait - start > self.deadline:
                    raise GitHubUnavailable(method, shown, response.status_code,
                                            f"rate limited for {wait:.0f} s more, beyond the "
                                            f"{self.deadline:.0f} s deadline") from None
                self._say(f"GitHub rate limit: waiting {wait:.0f} s")
                self.sleep(wait)
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
            raise GitHubRefused(method, shown, response.status_code, message, errors)  # a 4xx

    def request(self, method: str, path: str, *, json: Any = None, params: dict | None = None,
                idempotent: bool | None = None, expect: type | None = None) -> Any:
        """JSON in, JSON out (None for 204); the answer must parse, and be an ``expect`` when given
        (callers read members through ``fields``)."""
        response = self.send(method, path, json=json, params=params, idempotent=idempotent)
        if response.status_code in (204, 404) or not response.content:
            return None  # 404 only reaches here for a DELETE an earlier attempt did
        return _answer(response, method, expect)

    def paginate(self, path: str, params: dict | None = None, *, key: str | None = None) -> Iterator[Any]:
        """Every item of a list endpoint, following the ``Link: rel="next"`` header.

        ``key`` names the list inside an object answer (``check_runs``, ``statuses``).
        """
        params = {"per_page": 100, **(params or {})}
        response = self.send("GET", path, params=params)
        read = {_page_key(response.url)}
        while True:
            if key is None:
                data = _answer(response, "GET", list)
            else:
                data = fields(_answer(response, "GET", dict), f"GET {_path_of(response.url)}",
                              **{key: list})[key]
            yield from data
            nxt = response.links.get("next", {}).get("url")
            if not nxt:
                return
            if _page_key(self._url(nxt)) in read:
                raise MalformedAnswer(f"GET {_path_of(nxt)}", "its Link rel=\"next\" points back at a page "
                                      "already read (a pagination loop)")
            if len(read) >= self.max_pages:
                raise MalformedAnswer(f"GET {_path_of(nxt)}", f"more than {self.max_pages} pages; "
                                      "gave up (a list this long is not one GitHub keeps)")
            response = self.send("GET", nxt)
            read.add(_page_key(response.url))

    # ------------------------------------------------------------ files

    def upload(self, upload_url: str, file: Path, name: str, *, label: str | None = None,
               progress: ProgressBars | None = None) -> dict:
        """POST a file's bytes to the uploads host named in a release's ``upload_url``.

        Streamed from disk with ``Content-Length``; never retried here (a POST): on
        ``UncertainWrite`` the caller re-lists the assets first.
        """
        url = upload_url.split("{", 1)[0]
        file = Path(file)
        size = file.stat().st_size
        params = {"name": name, **({"label": label} if label else {})}
        task = progress.add_task(f"upload {name}", total=size) if progress is not None else None

        def advance(n: int) -> None:
            if progress is not None and task is not None:
                progress.advance(task, n)
        try:
            with open(file, "rb") as handle:
                def rewind() -> _ProgressReader:  # a rate-limit wait re-sends the whole file
                    handle.seek(0)
                    if progress is not None and task is not None:
                        progress.reset(task, total=size)
                    return _ProgressReader(handle, size, advance)
                response = self.send("POST", url, params=params, other_host=True,
                                     data=_ProgressReader(handle, size, advance), rewind=rewind,
                                     headers={"Content-Type": BINARY_MEDIA,
                                              "Content-Length": str(size)})
        finally:
            if progress is not None and task is not None:
                progress.remove_task(task)
        return _answer(response, "POST", dict)

    def download(self, asset_url: str, dest: Path, *, progress: ProgressBars | None = None,
                 name: str | None = None) -> Path:
        """Download an asset's bytes (``asset_stream``); an interrupted transfer starts over with
        a fresh signed URL (``transfer``)."""
        dest = Path(dest)
        tmp = dest.with_name(dest.name + ".part")
        self.transfer("<asset storage>", "download",
                      lambda: self._save(self.asset_stream(asset_url), tmp, progress, name or dest.name))
        tmp.replace(dest)
        return dest

    def asset_stream(self, asset_url: str, headers: dict[str, str] | None = None) -> requests.Response:
        """An asset's bytes as a stream (``headers``, such as ``Range``, go to the storage host):
        the API answers 302 to a storage host, which gets a fresh request without our headers
        (the signed URL is the credential there). Read it inside ``transfer``."""
        response = self.send("GET", asset_url, headers={"Accept": BINARY_MEDIA}, allow_redirects=False)
        if not response.is_redirect:
            return response
        if not response.headers.get("Location"):
            raise MalformedAnswer(f"GET {_path_of(asset_url)}", "a redirect without a Location",
                                  response.status_code)
        return self._storage_get(response.headers["Location"], headers)

    def transfer(self, where: str, what: str, call: Callable[[], T]) -> T:
        """``call()``, a read off the API (an asset's bytes at the storage host or at its public
        download URL), once more after each connection or transfer failure (a ``requests``
        exception; a storage host's 5xx or expired signature is one), with backoff, within the
        retries and the deadline, which holds while the bytes come in too (a host that drips
        them is cut off: ``GitHubUnavailable``)."""
        import requests
        attempt, backoff, start, looked_up = 0, 1.0, self.clock(), False
        while True:
            attempt += 1
            try:
                with wall_clock_limit(max(self.deadline - (self.clock() - start), MIN_LEFT)):
                    return call()
            except DeadlineExceeded:
                raise GitHubUnavailable("GET", where, None, f"{what} not complete within the "
                                        f"{self.deadline:.0f} s deadline") from None
            except requests.RequestException as exc:
                if (lookup := unresolved.lookup_error(exc)) is not None:
                    host = urlsplit(exc.request.url or "").netloc if exc.request is not None else "its host"
                    self._unresolved("GET", where, host, lookup, attempt, start, again=looked_up)
                    looked_up = True
                    continue
                self._retry_or_raise("GET", where, None, f"{what} interrupted ({type(exc).__name__})",
                                     attempt, start, backoff)
                backoff *= 2

    @staticmethod
    def _save(stream: requests.Response, tmp: Path, progress: ProgressBars | None, name: str) -> None:
        length = stream.headers.get("Content-Length") or ""
        total = int(length) if length.isdigit() and int(length) > 0 else None
        task = progress.add_task(f"download {name}", total=total) if progress is not None else None
        try:
            with open(tmp, "wb") as handle:
                for chunk in stream.iter_content(CHUNK):
                    handle.write(chunk)
                    if progress is not None and task is not None:
                        progress.advance(task, len(chunk))
        finally:
            if progress is not None and task is not None:
                progress.remove_task(task)

    def _storage_get(self, location: str, headers: dict[str, str] | None = None) -> requests.Response:
        """One GET of a signed storage URL; failures worth a fresh URL raise RequestException."""
        import requests
        response = requests.get(location, stream=True, timeout=self.timeout,
                                headers={"User-Agent": "jax-rocm-release", **(headers or {})})
        if response.status_code < 400:
            return response
        if response.status_code >= 500 or response.status_code == 403:  # 403: signature expired
            raise requests.HTTPError(f"storage answered {response.status_code}")
        raise GitHubRefused("GET", "<asset storage>", response.status_code, "download refused")

    # ------------------------------------------------------------ pull requests (bump PRs)

    def list_pulls(self, owner: str, repo: str, *, head: str | None = None, state: str = "open",
                   base: str | None = None) -> list[dict]:
        """Pull requests; ``head`` is ``branch`` or ``owner:branch``."""
        params: dict[str, str] = {"state": state}
        if head:
            params["head"] = head if ":" in head else f"{owner}:{head}"
        if base:
            params["base"] = base
        return [_pull(p) for p in self.paginate(f"/repos/{owner}/{repo}/pulls", params)]

    def create_pull(self, owner: str, repo: str, *, title: str, head: str, base: str,
                    body: str = "", draft: bool = False) -> dict:
        return _pull(self.request("POST", f"/repos/{owner}/{repo}/pulls",
                                  json={"title": title, "head": head, "base": base,
                                        "body": bodies.fit(body), "draft": draft}))

    def update_pull(self, owner: str, repo: str, number: int, **changes: Any) -> dict:
        """PATCH a pull request: ``title``, ``body``, ``state`` ("open"/"closed"), ``base``."""
        if isinstance(changes.get("body"), str):
            changes["body"] = bodies.fit(changes["body"])
        return _pull(self.request("PATCH", f"/repos/{owner}/{repo}/pulls/{int(number)}", json=changes))

    def merge_pull(self, owner: str, repo: str, number: int, *, sha: str, method: str = "merge") -> dict:
        """Merge pull request ``number`` only while its head is ``sha`` (GitHub answers 409 when
        the head moved, 405 when it is not mergeable: checks, conflicts). Not retried: a
        lost answer to a merge that happened is not a merge to repeat."""
        return self.request("PUT", f"/repos/{owner}/{repo}/pulls/{int(number)}/merge",
                            json={"sha": sha, "merge_method": method}, idempotent=False, expect=dict)

    def issue_comments(self, owner: str, repo: str, number: int) -> list[dict]:
        """The comments on issue or pull request ``number`` (oldest first)."""
        return [shapes.check(c, shapes.COMMENT, "issue comment")
                for c in self.paginate(f"/repos/{owner}/{repo}/issues/{int(number)}/comments")]

    def comment(self, owner: str, repo: str, number: int, body: str) -> dict:
        """Comment on issue or pull request ``number``."""
        return self.request("POST", f"/repos/{owner}/{repo}/issues/{int(number)}/comments",
                            json={"body": bodies.fit(body)}, expect=dict)

    # ------------------------------------------------------------ workflows

    def dispatch_workflow(self, owner: str, repo: str, workflow: str, *, ref: str,
                          inputs: Mapping[str, str]) -> None:
        """Start ``workflow`` (its file name, e.g. ``bisect.yml``) on ``ref`` with ``inputs``
        (workflow_dispatch; the token needs actions: write). Not retried: a lost answer may
        have started the run, and a second run is not a retry."""
        self.request("POST", f"/repos/{owner}/{repo}/actions/workflows/{quote(workflow, safe='')}/dispatches",
                     json={"ref": ref, "inputs": dict(inputs)}, idempotent=False)

    # ------------------------------------------------------------ waits

    def _say(self, text: str) -> None:
        if self.console is not None:
            self.console.print(sanitize.line(redact(text)), markup=False)  # GitHub's words are data

    def _space_writes(self) -> None:
        if self._last_write is None or self.write_interval <= 0:
            return
        gap = self._last_write + self.write_interval - self.clock()
        if gap > 0:
            self.sleep(gap)

    def _wait_blocked(self, method: str, shown: str, start: float) -> None:
        gap = self._blocked_until - self.clock()
        if gap <= 0:
            return
        if self.clock() + gap - start > self.deadline:
            raise GitHubUnavailable(method, shown, None, f"rate limit exhausted for {gap:.0f} s "
                                    f"more, beyond the {self.deadline:.0f} s deadline")
        self._say(f"GitHub rate limit exhausted: waiting {gap:.0f} s for the reset")
        self.sleep(gap)

    def _note_rate_limit(self, response: requests.Response) -> None:
        if response.headers.get("x-ratelimit-remaining") == "0" and response.status_code < 400:
            reset = _float(response.headers.get("x-ratelimit-reset"))
            if reset is not None:
                self._blocked_until = max(self._blocked_until, reset + 1)

    def _rate_limit_wait(self, response: requests.Response) -> float | None:
        """Seconds to wait for a rate-limit rejection (before growing it for repeats), or None
        when it is not one."""
        if response.status_code not in (403, 429):
            return None
        headers = response.headers
        retry_after = _float(headers.get("retry-after"))
        if retry_after is not None and math.isfinite(retry_after):
            return min(max(retry_after, 1.0), self.deadline + 1)
        if headers.get("x-ratelimit-remaining") == "0":
            reset = _float(headers.get("x-ratelimit-reset"))
            if reset is not None:
                return max(reset - self.clock(), 0) + 1
        message, _ = _error_of(response)
        if response.status_code == 429 or "rate limit" in message.lower():
            return 60.0
        return None

    def _unresolved(self, method: str, shown: str, host: str, lookup: socket.gaierror, attempt: int,
                    start: float, *, again: bool) -> None:
        """The host's name did not resolve: raise at once when the resolver says it does not
        exist or when it failed before; else wait ``LOOKUP_WAIT`` s for one more try (a name does
        not start resolving during 30 s of backoff: ``release.core.unresolved``)."""
        reason = (f"from {host}: its name does not resolve ({unresolved.said(lookup)}); check the network, "
                  "a proxy or GITHUB_API_URL")
        if again or unresolved.no_such_name(lookup):
            raise GitHubUnavailable(method, shown, None, reason + (f" (gave up after {attempt} attempts)"
                                                                   if attempt > 1 else "")) from None
        self._retry_or_raise(method, shown, None, reason, attempt, start, LOOKUP_WAIT)

    def _retry_or_raise(self, method: str, shown: str, status: int | None, reason: str, attempt: int,
                        start: float, backoff: float) -> None:
        if attempt > self.retries or self.clock() + backoff - start > self.deadline:
            tried = f" (gave up after {attempt} attempts)" if attempt > 1 else ""
            raise GitHubUnavailable(method, shown, status, reason + tried)
        said = f"no answer {reason}" if reason.startswith("from ") else reason
        self._say(f"GitHub {method} {shown}: {said}; retrying in {backoff:.0f} s")
        self.sleep(backoff)


def _pull(data: Any) -> dict:
    """A pull request from an answer, with the members the tool reads checked."""
    return shapes.check(data, shapes.PULL, "pull request")


def _answer(response: requests.Response, method: str, expect: type | None) -> Any:
    """The JSON of a 2xx answer, which must parse and be an ``expect``, else ``MalformedAnswer``."""
    shown = _path_of(response.url or "")
    try:
        data = bounded.json_loads(response.content)
    except bounded.Unparseable as exc:
        raise MalformedAnswer(f"{method} {shown}", f"the body is not JSON we can read ({exc.reason})",
                              response.status_code) from None
    if expect is not None and not isinstance(data, expect):
        raise MalformedAnswer(f"{method} {shown}", f"a JSON {type(data).__name__}, expected "
                              + ("a list" if expect is list else "an object"), response.status_code)
    return data


def _float(text: str | None) -> float | None:
    """A header's number, or None when it is absent or not a finite number (``nan``, ``inf``,
    ``1e999``: a wait computed from those would never end, or crash ``sleep``)."""
    if text is None:
        return None
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def _page_key(url: str | None) -> tuple[str, str, tuple[tuple[str, str], ...]]:
    """A page's identity: host, path and sorted query (so ``?page=2&per_page=100`` is
    ``?per_page=100&page=2``)."""
    parts = urlsplit(url or "")
    return parts.netloc.lower(), parts.path.rstrip("/"), tuple(sorted(parse_qsl(parts.query)))


def _error_of(response: requests.Response) -> tuple[str, list]:
    try:
        data = bounded.json_loads(response.content)
    except bounded.Unparseable:
        return (response.reason or "error"), []
    if not isinstance(data, dict):
        return str(data)[:200], []
    errors = data.get("errors")
    return str(data.get("message") or response.reason or "error"), errors if isinstance(errors, list) else []
