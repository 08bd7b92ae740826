"""A Python package index's edges: where to upload and with what credentials, the upload
API, and which files the index already holds.

Where and who follow twine's conventions, so a person who uploads with twine today needs no
new setup: the repository URL from ``--repository-url`` or ``$TWINE_REPOSITORY_URL``, else the
``repository`` of a section of ``~/.pypirc`` (``--repository NAME`` / ``$TWINE_REPOSITORY``,
default ``pypi``); the user from ``$TWINE_USERNAME`` or that section (default ``__token__``);
the password from ``$TWINE_PASSWORD``, that section, or keyring when it is installed. In
GitHub Actions with no password, Trusted Publishing: the job's OIDC token (``id-token:
write``) is exchanged at the index's mint endpoint for a short-lived upload token. There is
no built-in repository URL: uploading is irreversible, so the index is always named.

Every secret is registered with ``release.core.redact`` the moment it is read or minted.
Every request has a deadline for the whole request, not only for each socket read (an answer
dripping in a byte at a time satisfies every read): ``READ_TIMEOUT`` for a page or a token;
an upload gets ``UPLOAD_TIMEOUT`` for the index's answer, counted from the body's last byte,
and before that as long as sending the body takes at ``MIN_SEND_RATE``. Reads never carry
credentials. The upload API is PyPI's "legacy" multipart POST (what twine sends), streamed
from disk with ``Content-Length``; an answer is one of: stored, already there (400/409 naming
an existing file), refused (other 4xx: the caller's), or unknown (5xx, no answer: the index
may have stored it, so the caller asks the index before trying again).
"""

from __future__ import annotations

import configparser
import dataclasses
import hashlib
import json
import os
import re
import uuid
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable
from urllib.parse import urlencode, urlsplit, urlunsplit

import requests
from packaging.utils import canonicalize_name

from release.core import bounded, regular
from release.core.deadline import DeadlineExceeded, Limit, wall_clock_limit
from release.core.errors import RemoteError, UserError
from release.core.redact import display_url, redact, register_secret

if TYPE_CHECKING:
    from release.core.output import ProgressBars

TOKEN_USER = "__token__"
DEFAULT_REPOSITORY = "pypi"  # twine's default section name in ~/.pypirc
PYPIRC_LIMIT = 1 << 20    # a .pypirc is a few lines
CONNECT_TIMEOUT = 10.0
READ_TIMEOUT = 30.0       # index pages, token exchange
UPLOAD_TIMEOUT = 600.0    # the index checks a 170 MB wheel before it answers
MIN_SEND_RATE = 256 * 1024  # bytes a second an upload's body is sent at, at the least
OIDC_URL_ENV = "ACTIONS_ID_TOKEN_REQUEST_URL"
OIDC_TOKEN_ENV = "ACTIONS_ID_TOKEN_REQUEST_TOKEN"
SIMPLE_ACCEPT = ("application/vnd.pypi.simple.v1+json, application/vnd.pypi.simple.v1+html;q=0.2, "
                 "text/html;q=0.1")
# Core metadata fields that may appear more than once (sent as repeated form fields).
MULTI_FIELDS = frozenset({"classifier", "requires_dist", "provides_extra", "project_url", "platform",
                          "supported_platform", "dynamic", "license_file", "obsoletes_dist",
                          "provides_dist", "requires_external"})


class IndexRefused(UserError):
    """The index refused the request (4xx: credentials, permissions, the file): exit 2."""


class IndexUnavailable(RemoteError):
    """The index did not answer, answered 5xx or answered nonsense: exit 3, re-run later."""


@dataclasses.dataclass(frozen=True)
class Repository:
    """Where uploads go and where the index is read, with the credentials (if known yet)."""

    upload_url: str
    index_url: str  # the simple API root
    username: str = TOKEN_USER
    password: str | None = dataclasses.field(default=None, repr=False)
    source: str = "none"  # where the password came from (never the password itself)

    def shown(self) -> str:
        return display_url(self.upload_url)


def derive_index_url(upload_url: str) -> str:
    """The simple API that belongs to an upload URL: an ``upload.`` host's sibling (PyPI and
    TestPyPI upload at ``upload.<host>/legacy/`` and serve ``<host>/simple/``), else
    ``<url without /legacy/>/simple/`` (pypiserver takes uploads at its root)."""
    parts = urlsplit(upload_url)
    host = parts.netloc
    path = parts.path
    if parts.hostname and parts.hostname.startswith("upload."):
        host = host.replace("upload.", "", 1)
        path = "/"
    path = re.sub(r"/legacy/?$", "/", path or "/")
    return urlunsplit((parts.scheme, host, path.rstrip("/") + "/simple/", "", ""))


def oidc_base(upload_url: str) -> str:
    """Scheme and host of the index's own API (``/_/oidc/...``): the upload host without ``upload.``."""
    parts = urlsplit(upload_url)
    host = parts.netloc.replace("upload.", "", 1) if (parts.hostname or "").startswith("upload.") \
        else parts.netloc
    return f"{parts.scheme}://{host}"


def _check_url(url: str, where: str) -> str:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise UserError(f"{where} {display_url(url)!r}: expected an http(s) URL of the index's upload "
                        "endpoint, such as https://<host>/legacy/")
    return url


def _pypirc(path: Path) -> configparser.RawConfigParser:
    parser = configparser.RawConfigParser()
    try:
        parser.read_string(regular.read_text(path, PYPIRC_LIMIT), source=str(path))
    except FileNotFoundError:
        pass
    except regular.NotRegular as exc:
        raise UserError(f"{path}: not a readable .pypirc ({exc.reason})") from None
    except (OSError, UnicodeDecodeError, configparser.Error) as exc:
        raise UserError(f"{path}: not a readable .pypirc ({str(exc).splitlines()[0]})") from None
    return parser


def _keyring_password(url: str, username: str) -> str | None:
    """keyring's password for ``url``/``username`` when keyring is installed; else None."""
    try:
        import keyring  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        return None
    try:
        return keyring.get_password(url, username)
    except Exception:  # noqa: BLE001 - no backend, a locked keyring: as if none were installed
        return None


def find_repository(*, url: str | None = None, name: str | None = None, index_url: str | None = None,
                    config_file: Path | None = None, env: Mapping[str, str] | None = None,
                    keyring_lookup: Callable[[str, str], str | None] = _keyring_password) -> Repository:
    """The repository and its credentials by twine's conventions (module docstring).

    No password found is not an error here: Trusted Publishing may still provide one
    (``with_trusted_publishing``); ``require_password`` says what to set when it cannot.
    """
    env = os.environ if env is None else env
    config_path = config_file or Path(env.get("HOME") or Path.home()) / ".pypirc"
    section: Mapping[str, str] = {}
    where = "--repository-url" if url else "$TWINE_REPOSITORY_URL"
    url = url or env.get("TWINE_REPOSITORY_URL") or None
    if url is None:
        name = name or env.get("TWINE_REPOSITORY") or DEFAULT_REPOSITORY
        config = _pypirc(config_path)
        if not config.has_section(name):
            raise UserError(f"no package index to upload to: pass --repository-url URL, set "
                            f"$TWINE_REPOSITORY_URL, or add a [{name}] section with repository = URL "
                            f"to {config_path}")
        section = dict(config.items(name))
        url = section.get("repository")
        where = f"{config_path} [{name}] repository"
        if not url:
            raise UserError(f"{config_path} [{name}]: no repository = URL; this tool has no built-in "
                            "index (an upload cannot be undone), so name its upload endpoint")
    _check_url(url, where)
    username = env.get("TWINE_USERNAME") or section.get("username") or TOKEN_USER
    password, source = env.get("TWINE_PASSWORD") or None, "$TWINE_PASSWORD"
    if password is None and section.get("password"):
        password, source = section["password"], f"{config_path} [{name}]"
    if password is None:
        password = keyring_lookup(url, username)
        source = "keyring"
    register_secret(password)
    return Repository(url, index_url or derive_index_url(url), username, password,
                      source if password else "none")


def trusted_publishing_available(env: Mapping[str, str] | None = None) -> bool:
    env = os.environ if env is None else env
    return bool(env.get(OIDC_URL_ENV) and env.get(OIDC_TOKEN_ENV))


def _json_answer(response: requests.Response, what: str) -> dict:
    try:
        data = bounded.json_loads(response.content)
    except bounded.Unparseable:
        data = None
    if not isinstance(data, dict):
        raise IndexUnavailable(f"{what}: answered {response.status_code} with something that is not "
                               "a JSON object")
    return data


def _within(deadline: float, what: str, url: str, call: Callable[[], requests.Response]) -> requests.Response:
    """``call()``'s answer, complete within ``deadline`` seconds, else ``IndexUnavailable``."""
    try:
        with wall_clock_limit(deadline):
            response = call()
            response.content  # noqa: B018 - the whole body, inside the deadline
            return response
    except requests.RequestException as exc:
        raise IndexUnavailable(f"{what}: no answer from {display_url(url)} ({type(exc).__name__})") from None
    except DeadlineExceeded:
        raise IndexUnavailable(f"{what}: no complete answer from {display_url(url)} within "
                               f"{deadline:g} s") from None


def _get(session: requests.Session, url: str, what: str, deadline: float = READ_TIMEOUT,
         **kwargs: Any) -> requests.Response:
    return _within(deadline, what, url, lambda: session.get(
        url, timeout=(CONNECT_TIMEOUT, READ_TIMEOUT), allow_redirects=False, **kwargs))


def mint_token(repository: Repository, env: Mapping[str, str] | None = None,
               session: requests.Session | None = None, *, deadline: float = READ_TIMEOUT) -> Repository:
    """Trusted Publishing: the job's OIDC token for the index's audience, exchanged at
    ``/_/oidc/mint-token`` for a short-lived upload token (as PyPI documents); each of the
    three requests complete within ``deadline`` seconds."""
    env = os.environ if env is None else env
    session = session or requests.Session()
    base = oidc_base(repository.upload_url)
    request_url, request_token = env.get(OIDC_URL_ENV, ""), env.get(OIDC_TOKEN_ENV, "")
    if not (request_url and request_token):
        raise UserError(f"Trusted Publishing needs ${OIDC_URL_ENV} and ${OIDC_TOKEN_ENV}: run in "
                        "GitHub Actions in a job with `permissions: id-token: write`")
    register_secret(request_token)
    answer = _get(session, f"{base}/_/oidc/audience", "Trusted Publishing audience", deadline)
    if answer.status_code == 404:
        raise IndexRefused(f"{display_url(base)} does not offer Trusted Publishing (no /_/oidc/audience); "
                           "set $TWINE_PASSWORD instead")
    audience = _json_answer(answer, "Trusted Publishing audience").get("audience")
    if answer.status_code != 200 or not isinstance(audience, str) or not audience:
        raise IndexUnavailable(f"{display_url(base)}/_/oidc/audience answered {answer.status_code} without "
                               "an audience")
    separator = "&" if "?" in request_url else "?"
    answer = _get(session, request_url + separator + urlencode({"audience": audience}),
                  "GitHub's OIDC token", deadline, headers={"Authorization": f"bearer {request_token}"})
    if answer.status_code in (401, 403):
        raise IndexRefused(f"GitHub refused an OIDC token ({answer.status_code}); the job needs "
                           "`permissions: id-token: write`")
    oidc = _json_answer(answer, "GitHub's OIDC token").get("value")
    if answer.status_code != 200 or not isinstance(oidc, str) or not oidc:
        raise IndexUnavailable(f"GitHub's OIDC endpoint answered {answer.status_code} without a token")
    register_secret(oidc)
    answer = _within(deadline, f"{display_url(base)}/_/oidc/mint-token", base, lambda: session.post(
        f"{base}/_/oidc/mint-token", json={"token": oidc}, timeout=(CONNECT_TIMEOUT, READ_TIMEOUT),
        allow_redirects=False))
    data = _json_answer(answer, f"{display_url(base)}/_/oidc/mint-token")
    if 400 <= answer.status_code < 500:
        reasons = "; ".join(str(e.get("description", e.get("code", "")))
                            for e in data.get("errors", []) if isinstance(e, dict))
        raise IndexRefused(redact(f"{display_url(base)} refused to mint an upload token "
                                  f"({answer.status_code}: {data.get('message', '')}{': ' if reasons else ''}"
                                  f"{reasons}); is this workflow a trusted publisher of the project?")[:400])
    token = data.get("token")
    if answer.status_code != 200 or not isinstance(token, str) or not token:
        raise IndexUnavailable(f"{display_url(base)}/_/oidc/mint-token answered {answer.status_code} "
                               "without a token")
    register_secret(token)
    return dataclasses.replace(repository, username=TOKEN_USER, password=token, source="trusted publishing")


def with_credentials(repository: Repository, env: Mapping[str, str] | None = None,
                     session: requests.Session | None = None) -> Repository:
    """The repository with a password: the one found, else a Trusted Publishing token, else a
    one-line error naming every place a password may come from."""
    if repository.password:
        return repository
    if trusted_publishing_available(env):
        return mint_token(repository, env, session)
    raise UserError(f"no credentials for {repository.shown()}: set $TWINE_PASSWORD (an API token; "
                    "$TWINE_USERNAME defaults to __token__), a password in ~/.pypirc, or keyring, or "
                    "run in GitHub Actions with `id-token: write` (Trusted Publishing)")


# ---------------------------------------------------------------- what the index holds


INDEX_DEADLINE_READS = 3  # a whole project page within three read timeouts


def project_page_url(index_url: str, project: str) -> str:
    """A project's page on a simple index: ``<index>/<normalized name>/`` (PEP 503), the one
    place every reader of a project page (hashes, sizes, the validated set's files) builds it."""
    return index_url.rstrip("/") + "/" + canonicalize_name(project) + "/"


def index_files(index_url: str, project: str, *, session: requests.Session | None = None,
                timeout: float | None = None, deadline: float | None = None) -> dict[str, str | None]:
    """``{file name: sha256 or None}`` of ``project`` on the index (PEP 691 JSON preferred,
    PEP 503 HTML with ``#sha256=`` fragments understood); a project it does not know is ``{}``.
    The whole page within ``deadline`` seconds (default: three read timeouts). Raises
    ``IndexUnavailable`` when it cannot tell."""
    session = session or requests.Session()
    url = project_page_url(index_url, project)
    shown = display_url(url)
    limit = deadline or INDEX_DEADLINE_READS * (timeout or READ_TIMEOUT)
    try:
        with wall_clock_limit(limit):  # a page dripping in byte by byte is cut off, not waited for
            answer = session.get(url, headers={"Accept": SIMPLE_ACCEPT, "Cache-Control": "no-cache"},
                                 timeout=(CONNECT_TIMEOUT, timeout or READ_TIMEOUT), allow_redirects=True)
    except requests.RequestException as exc:
        raise IndexUnavailable(f"{shown}: no answer ({type(exc).__name__})") from None
    except DeadlineExceeded:
        raise IndexUnavailable(f"{shown}: no complete answer within {limit:g} s") from None
    if answer.status_code == 404:
        return {}
    if answer.status_code != 200:
        raise IndexUnavailable(f"{shown} answered {answer.status_code}")
    try:
        return parse_simple_page(answer.headers.get("Content-Type", ""), answer.text)
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise IndexUnavailable(f"{shown}: not a simple API answer ({type(exc).__name__})") from None


def parse_simple_page(content_type: str, text: str) -> dict[str, str | None]:
    """A project page of the simple API as ``{file name: sha256 or None}`` (``release.publish.
    simple_page``, the one reader: PEP 691 JSON or PEP 503 HTML); ``PageError`` (a ValueError)
    for an answer of another shape."""
    from release.publish import simple_page
    return {f.filename: f.sha256 for f in simple_page.read(content_type, text)}


# ---------------------------------------------------------------- the upload API


def metadata_fields(metadata: bytes) -> list[tuple[str, str]]:
    """Core metadata as the upload API's form fields: lower case, ``-`` as ``_``, multiple-use
    fields repeated, the body as ``description`` (what twine sends). Read as UTF-8, which core
    metadata is (``release.core.scan.Headers``, the package's one reader of its fields)."""
    from release.core.scan import Headers

    message = Headers(metadata.decode("utf-8", "replace"))
    fields: list[tuple[str, str]] = []
    for key, value in message.items():
        field = key.replace("-", "_")
        if field == "description" and message.body:
            continue
        fields.append((field, value))
    if message.body.strip():
        fields.append(("description", message.body))
    return fields


def upload_fields(path: Path, metadata: bytes, pyversion: str, sha256: str,
                  attestations: list[dict] | None) -> list[tuple[str, str]]:
    """Every form field but ``content``: action, protocol, digests, metadata, attestations."""
    blake = hashlib.blake2b(digest_size=32)
    with open(path, "rb") as handle:
        while block := handle.read(1 << 20):
            blake.update(block)
    fields = [(":action", "file_upload"), ("protocol_version", "1"), ("filetype", "bdist_wheel"),
              ("pyversion", pyversion), ("sha256_digest", sha256), ("blake2_256_digest", blake.hexdigest())]
    fields += metadata_fields(metadata)
    if attestations:
        fields.append(("attestations", json.dumps(attestations, separators=(",", ":"))))
    return fields


class _MultipartBody:
    """A multipart/form-data body streamed from disk: the fields, then the file, with a known
    length (so the request carries ``Content-Length``, as the upload API expects)."""

    def __init__(self, fields: Iterable[tuple[str, str]], path: Path, advance: Callable[[int], None],
                 sent: Callable[[], None] = lambda: None):
        self.boundary = uuid.uuid4().hex
        head = b""
        for name, value in fields:
            head += (f"--{self.boundary}\r\nContent-Disposition: form-data; name=\"{name}\"\r\n\r\n"
                     .encode() + value.encode("utf-8") + b"\r\n")
        head += (f"--{self.boundary}\r\nContent-Disposition: form-data; name=\"content\"; "
                 f"filename=\"{path.name}\"\r\nContent-Type: application/octet-stream\r\n\r\n").encode()
        self._parts = [head, None, f"\r\n--{self.boundary}--\r\n".encode()]
        self._size = len(head) + path.stat().st_size + len(self._parts[2])  # type: ignore[arg-type]
        self._path, self._advance, self._sent = path, advance, sent
        self._handle: Any = None
        self._index, self._offset = 0, 0

    @property
    def content_type(self) -> str:
        return f"multipart/form-data; boundary={self.boundary}"

    def __len__(self) -> int:
        return self._size

    def read(self, size: int = -1) -> bytes:
        size = 1 << 20 if size is None or size < 0 else size
        while self._index < len(self._parts):
            part = self._parts[self._index]
            if part is None:  # the file
                if self._handle is None:
                    self._handle = open(self._path, "rb")
                block = self._handle.read(size)
                if block:
                    self._advance(len(block))
                    return block
                self._handle.close()
            else:
                block = part[self._offset:self._offset + size]
                if block:
                    self._offset += len(block)
                    return block
            self._index, self._offset = self._index + 1, 0
            if self._index == len(self._parts):
                self._sent()  # the last byte is on its way: the index's answer is what is waited for now
        return b""

    def close(self) -> None:
        if self._handle is not None:
            self._handle.close()


def _reason(response: requests.Response) -> str:
    """What the index said, for the one line: its reason phrase (where PyPI puts the message)
    and a plain-text body's start, redacted (an index may quote what it was sent)."""
    said = " ".join((response.reason or "").split())
    kind = response.headers.get("Content-Type", "")
    if kind.startswith(("text/plain", "application/json")):
        body = " ".join(response.text[:300].split())
        if body and body not in said:
            said = f"{said}: {body}" if said else body
    return redact(said)[:300]


@dataclasses.dataclass(frozen=True)
class UploadAnswer:
    outcome: str  # "stored" | "exists"
    status: int
    reason: str


_EXISTS = re.compile(r"already exists|already been used", re.I)


def upload(repository: Repository, path: Path, fields: list[tuple[str, str]], *,
           session: requests.Session | None = None, timeout: float | None = None,
           answer_within: float = UPLOAD_TIMEOUT, send_within: float | None = None,
           progress: ProgressBars | None = None) -> UploadAnswer:
    """POST one file to the upload API. ``stored`` or ``exists`` (the index names the file as
    already there: the caller compares hashes); a refusal raises ``IndexRefused``, no answer or
    a 5xx ``IndexUnavailable`` (the index may have stored it: ask it before trying again).

    The whole request has a deadline: ``send_within`` seconds to send the body (default: as
    long as it takes at ``MIN_SEND_RATE``, plus a connect and a read timeout), then
    ``answer_within`` seconds for the whole answer."""
    if not repository.password:
        raise UserError(f"no credentials for {repository.shown()}")
    session = session or requests.Session()
    task = progress.add_task(f"upload {path.name}", total=path.stat().st_size) if progress else None

    def advance(n: int) -> None:
        if progress is not None and task is not None:
            progress.advance(task, n)

    limit: Limit | None = None

    def sent() -> None:
        if limit is not None:
            limit.restart(answer_within)

    body = _MultipartBody(fields, path, advance, sent)
    sending = send_within or CONNECT_TIMEOUT + (timeout or READ_TIMEOUT) + len(body) / MIN_SEND_RATE
    try:
        with wall_clock_limit(sending) as limit:
            response = session.post(repository.upload_url, data=body,
                                    auth=(repository.username, repository.password),
                                    headers={"Content-Type": body.content_type, "Content-Length": str(len(body))},
                                    timeout=(CONNECT_TIMEOUT, timeout or UPLOAD_TIMEOUT), allow_redirects=False)
            response.content  # noqa: B018 - the whole answer, inside the deadline
    except requests.RequestException as exc:
        raise IndexUnavailable(f"{repository.shown()}: no answer to the upload of {path.name} "
                               f"({type(exc).__name__}); it may have been stored: re-run, which asks "
                               "the index first") from None
    except DeadlineExceeded as exc:
        raise IndexUnavailable(f"{repository.shown()}: no complete answer to the upload of {path.name} "
                               f"within {exc.seconds:g} s; it may have been stored: re-run, which asks "
                               "the index first") from None
    finally:
        body.close()
        if progress is not None and task is not None:
            progress.remove_task(task)
    reason = _reason(response)
    if 200 <= response.status_code < 300:
        return UploadAnswer("stored", response.status_code, reason)
    if response.status_code == 409 or (response.status_code == 400 and _EXISTS.search(
            f"{response.reason} {response.text[:2000]}")):
        return UploadAnswer("exists", response.status_code, reason)
    if 300 <= response.status_code < 400:
        raise IndexRefused(f"{repository.shown()} redirects the upload to "
                           f"{display_url(response.headers.get('Location', '?'))}; name that URL instead")
    if response.status_code in (401, 403):
        raise IndexRefused(f"{repository.shown()} refused the credentials from {repository.source} "
                           f"({response.status_code} {reason})")
    if response.status_code < 500:
        raise IndexRefused(f"{repository.shown()} refused {path.name} ({response.status_code} {reason})")
    raise IndexUnavailable(f"{repository.shown()} answered {response.status_code} to the upload of "
                           f"{path.name}; it may have been stored: re-run, which asks the index first")
