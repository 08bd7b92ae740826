"""A local stand-in for GitHub's REST API that behaves as GitHub does, for the tests.

Three HTTP servers on 127.0.0.1: the API (``api_url``), the uploads host (the
origin in every ``upload_url``) and a storage host that serves asset downloads
after the API's 302 and REJECTS any request that carries an Authorization header.
Every request to the API and uploads hosts is validated against GitHub's own
OpenAPI description (npm ``@octokit/openapi``, loaded once per session with
openapi-core, its JSON parsed once per content into .cache/openapi/; each verdict is worked
out once per process, tests/support/openapi_memo.py); a request that does not conform is
answered 400 and recorded in ``fake.violations``, and the ``fake_github`` fixture fails the test
at teardown.

GitHub behaviours reproduced: drafts are invisible to ``GET .../releases/tags/{tag}``;
several drafts may share a tag; a duplicate asset name is 422 ``already_exists``;
an interrupted upload can leave a ``starter`` asset; ``Link`` pagination honouring
``per_page`` (default 30, max 100); where immutable releases are on
(``fake.settings.immutable_releases``, the default) published releases are immutable (no asset
upload, delete or rename, the tag cannot move, a deleted release's tag can never
be reused); publishing a second release for a tag is 422 ``already_exists``;
publishing creates the git tag at the release's ``target_commitish`` (a full SHA, or a branch
of ``fake.branches``: its head) unless the tag exists, and an unknown target is 422 at create and
update, as GitHub's ``invalid`` target_commitish; special characters in an asset name become ``.``;
``DELETE /repos/{o}/{r}/git/refs/tags/{tag}``;
pull requests (list by ``state``/``head=owner:branch``, create, update); issues (list by
``state``/``labels``/``creator``, newest first, pull requests included with their ``pull_request``
key as GitHub does; create; get; update: ``title``, ``body``, ``state``, ``state_reason``,
``labels``; 422 for a body over 65536 characters, as for a pull request's and a comment's, and
over 125000 for a release's notes; numbers shared with pull requests); ``GET
/user``; the repository, a branch with its protection and the rules on a branch (``GET
/repos/{o}/{r}``, ``.../branches/{b}``, ``.../rules/branches/{b}``); workflow dispatches
(``POST .../actions/workflows/{file}/dispatches``, recorded in
``fake.dispatches``; 422 for a ref that is no branch); a commit's CI results:
the combined status (``GET .../commits/{ref}/status``: the latest status per context, the combined
``state``, paginated) and its check runs (``GET .../commits/{ref}/check-runs``: ``filter=latest`` by
default keeps the newest run per name, ``check_name`` and ``status`` filters, paginated inside a
``{"total_count", "check_runs"}`` object).

Fixtures (registered through ``pytest_plugins`` in tests/conftest.py):

``github_openapi``  (session) the loaded ``openapi_core.OpenAPI`` object.
``fake_github``     a started ``FakeGitHub``; stopped and checked for violations at teardown.
``github_env``      ``fake_github`` plus ``GITHUB_API_URL``, ``GITHUB_TOKEN``,
                    ``GITHUB_REPOSITORY`` (``FAKE_REPO``) and a zero write interval set in
                    the environment, so ``python -m release ...`` talks to the fake.
``fake_clock``      a ``FakeClock``: ``.sleep``/``.time`` for the client; ``.sleeps`` records waits.
``github_client``   a ``release.sources.github.GitHubClient`` on the fake using ``fake_clock``.

Successful answers of the stand-in (except pull requests, kept to the fields the tools read)
are validated against the same description, so it cannot drift from what GitHub documents;
the deliberate differences are asset state ``starter``, which GitHub returns for an
interrupted upload but its description does not list, and a running check run's ``conclusion:
null`` and an open issue's ``state_reason: null``, which the description allows (nullable) but
whose enums do not list.

``FakeGitHub`` API for tests:

``fake.api_url``, ``fake.token``, ``fake.repo``   where it listens, the token with write access.
``fake.read_token``   a second token, as a job's GITHUB_TOKEN with ``contents: read``: every write
is 403 "Resource not accessible by integration", and drafts are invisible to it (GitHub lists
drafts only to users with push access): not in the release listing, 404 by id.
``fake.fail(method, path_regex, status=502, nth=1, times=1, when="before"|"after"|"starter"|"drop"|
"headers"|"malformed", headers=None, message=None, body=None)``   fault injection: the ``nth``
request (and the ``times - 1`` after it) whose method and path match fails with ``status``.
``before``: nothing is applied; ``after``: the request is applied, then the failure is returned
(GitHub's 5xx after success); ``starter``: an upload stores a ``starter`` asset with part of the
bytes and fails; ``drop``: the request is applied and the connection closed without a response;
``headers``: the request succeeds as usual, its answer carrying ``headers`` (``status`` unused);
``malformed``: the request is applied and answered with its usual success status and ``headers``
but ``body`` (bytes, default a truncated JSON document) instead of the JSON GitHub documents; a
callable ``body`` gets a copy of the answer the stand-in would send and returns what is sent.
The returned fault counts ``fired`` and sets the event ``hit`` when it first fires, so a test can
wait for a request to arrive without a clock.
``fake.rate_limit(method, path_regex, kind="primary"|"secondary", nth=1, reset_in=30,
reset_at=None, retry_after=None, status=403)``   a rate-limit rejection with GitHub's headers;
``reset_at`` (epoch seconds) sets ``x-ratelimit-reset`` on the caller's clock, so a test whose
client runs on a ``FakeClock`` never mixes it with the real one.
``fake.releases(repo=None)``   snapshots (dicts as the API returns them, with ``assets``).
``fake.asset_bytes(asset_id)``, ``fake.tags(repo=None)`` (tag -> commit), ``fake.pulls(repo=None)``.
``fake.settings``   the repository settings ``release doctor`` reads (see ``RepoSettings``): the
Actions workflow permissions, Pages, environments with their protection rules and secret names,
self-hosted runners, variables, rulesets and immutable releases, each answered in the shape
GitHub documents (list endpoints paginated inside ``{"total_count", KEY}``).
``fake.actions_token``   True: the token behaves as a workflow's GITHUB_TOKEN: settings that need
Administration (workflow permissions, runners, immutable releases), variables and environment
secrets are 403 "Resource not accessible by integration", and creating a pull request is 403
unless ``settings.can_create_prs`` (Settings > Actions > "Allow GitHub Actions to create and
approve pull requests").
``fake.issues(repo=None)``   the repository's issues (not pull requests) as the API returns them.
``fake.seed_issue(title, body="", labels=(), login="a-person", state="open", repo=None)``   an issue
written by someone (a person by default), put in place without the API; returns its number.
``fake.login``   who the write token is (``release-bot``; ``github-actions[bot]`` under
``actions_token``, where ``GET /user`` is 403 as for an installation token): the author of every
issue, pull request and comment made through the API.
``fake.branches``   branch -> head commit of the repository (default ``main`` at a fixed SHA):
where a release without a SHA target is tagged when published.
``fake.seed_release(tag, draft=False, prerelease=False, assets={name: bytes}, published_at=datetime,
body="")``   put a release in place without going through the API.
``fake.set_status(sha, context, state, repo=None)``   a commit status (``success``, ``pending``,
``failure``, ``error``); a later one for the same context replaces it in the combined status.
``fake.add_check_run(sha, name, status="completed", conclusion="success", repo=None)``   a check run;
several of one name are re-runs (the newest wins under ``filter=latest``).
``fake.add_workflow_run(workflow="nightly.yml", conclusion="success", status="completed",
branch="main", head_sha=None, created_at=None, event="schedule", repo=None)``   one Actions
workflow run (the next ``run_number`` of that workflow; ``created_at`` a datetime, default
``fake.now()``), listed newest first by ``GET .../actions/workflows/{id or file}/runs`` and
``GET .../actions/runs`` (``branch``, ``event``, ``status``, ``head_sha`` filters, paginated inside
``{"total_count", "workflow_runs"}``) and read by ``GET .../actions/runs/{id}``;
``jobs=[(job name, conclusion, [(step name, conclusion), ...]), ...]`` are its jobs as
``GET .../actions/runs/{id}/jobs`` lists them (paginated inside ``{"total_count", "jobs"}``); by
default a red run's one job is a nightly wheel cell whose build step failed, a green run's succeeded;
``fake.update_workflow_run(id, status=, conclusion=)`` moves it on (or re-runs it);
``fake.workflow_runs(repo=None)`` lists them newest first.
``fake.log``   every request received: ``(host kind, METHOD, path, query, headers)``.
``fake.now``   a callable giving the fake's time for what it records (releases created and
published, assets uploaded): a ``StandInClock`` from a fixed instant, a second per
reading, never the wall clock (replace it to age releases).
``fake.epoch``   the clock ``x-ratelimit-reset`` is stated in when no ``reset_at`` is given: GitHub
states it in real epoch seconds, which a real client (a CLI run's) compares with its own clock;
a test whose client runs on a ``FakeClock`` passes ``reset_at`` on that clock instead.
"""

from __future__ import annotations

import copy
import datetime as _dt
import functools
import hashlib
import itertools
import json
import marshal
import os
import re
import secrets
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qsl, quote, unquote, urlencode, urlsplit

import pytest

from tests.support import openapi_memo

REPO_ROOT = Path(__file__).resolve().parents[2]
FAKE_REPO = "rocm/jax-rocm-release"
FAKE_TOKEN = "test-token-5d41402abc4b2a76b9719d911017c592"
SPEC_RELATIVE = Path(".cache/node/node_modules/@octokit/openapi/generated/api.github.com.json")


def find_openapi_description() -> Path:
    """GitHub's OpenAPI description as installed by ./scripts/test (or $OCTOKIT_OPENAPI_JSON)."""
    if os.environ.get("OCTOKIT_OPENAPI_JSON"):
        return Path(os.environ["OCTOKIT_OPENAPI_JSON"])
    for base in (REPO_ROOT, *REPO_ROOT.parents):
        candidate = base / SPEC_RELATIVE
        if candidate.is_file():
            return candidate
    pytest.fail("GitHub's OpenAPI description is missing; run ./scripts/test once "
                "(it installs @octokit/openapi into .cache/node)")


DESCRIPTION_CACHE = REPO_ROOT / ".cache" / "openapi"


@functools.lru_cache(maxsize=2)
def _description(path: Path) -> dict:
    """The parsed description, read once per process (openapi-core and schema_instance share it)."""
    return read_description(path, DESCRIPTION_CACHE)


def read_description(path: Path, cache: Path) -> dict:
    """The description at ``path`` parsed, through ``cache``: its JSON (13 MB) parsed once per
    file content and kept as marshal data, which every later process (each xdist worker) loads in
    about two thirds of the time. The entry's name is the SHA-256 of the file's bytes and the
    Python version, so a changed description (or interpreter) is parsed again; an entry that
    cannot be loaded is parsed again and replaced."""
    data = path.read_bytes()
    key = hashlib.sha256(data).hexdigest()
    entry = cache / f"{key}-{sys.implementation.cache_tag}-{marshal.version}.marshal"
    try:
        loaded = marshal.loads(entry.read_bytes())
    except (OSError, EOFError, ValueError, TypeError):
        loaded = None
    if isinstance(loaded, dict):
        return loaded
    description = json.loads(data)
    try:  # another worker may write the same entry at once: each writes its own, then renames
        cache.mkdir(parents=True, exist_ok=True)
        partial = entry.with_name(f"{entry.name}.{os.getpid()}.{threading.get_ident()}.partial")
        partial.write_bytes(marshal.dumps(description))
        os.replace(partial, entry)
    except OSError:
        pass  # a read-only checkout: parsed every time, as before
    return description


def load_openapi(path: Path):
    """openapi-core over the description, spec validation off (it takes ~30 s and proves nothing here),
    its paths listed once (tests/support/openapi_paths.py: the per-request walk was most of the CPU),
    its format checker copied once (tests/support/openapi_formats.py)."""
    from jsonschema_path import SchemaPath
    from openapi_core import Config, OpenAPI
    from openapi_core.validation.request import V30RequestValidator
    from openapi_core.validation.response import V30ResponseValidator

    from tests.support.openapi_formats import formats_once
    from tests.support.openapi_paths import IndexedPathFinder

    description = _description(path)
    assert description["openapi"].startswith("3.0."), description["openapi"]  # the V30 checks below
    return OpenAPI(SchemaPath.from_dict(description),
                   config=Config(spec_validator_cls=None, path_finder_cls=IndexedPathFinder,
                                 request_validator_cls=formats_once(V30RequestValidator),
                                 response_validator_cls=formats_once(V30ResponseValidator)))


def _schemas() -> dict:
    return _description(find_openapi_description())["components"]["schemas"]


def schema_instance(name: str, **given) -> dict:
    """The smallest object GitHub's description allows for ``components/schemas/<name>``, every
    required field filled (null where nullable, the first of an enum, an empty list), with the
    fields in ``given`` (nested dicts merged) put over it: answers the stand-in makes complete,
    so they are checked against the description as GitHub's are."""
    return _merge(marshal.loads(_filled(find_openapi_description(), name)), given)


@functools.lru_cache(maxsize=None)
def _filled(path: Path, name: str) -> bytes:
    """The filled object of ``name`` in the description at ``path``, worked out once per process
    (up to 10 ms each: a pull request's answer is filled from ~30 schemas) and kept as marshal
    data, so each caller gets its own copy to change (~0.04 ms)."""
    return marshal.dumps(_fill({"$ref": f"#/components/schemas/{name}"}))


def _fill(schema: dict, depth: int = 0):
    schemas = _schemas()
    while "$ref" in schema:
        schema = schemas[schema["$ref"].rsplit("/", 1)[1]]
    if schema.get("nullable") and depth:
        return None
    if "allOf" in schema:
        out: dict = {}
        for part in schema["allOf"]:
            out = _merge(out, _fill(part, depth))
        return out
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return _fill(schema[key][0], depth)
    if "enum" in schema:
        return schema["enum"][0]
    kind = schema.get("type", "object")
    if kind == "object":
        return {prop: _fill(schema.get("properties", {}).get(prop, {}), depth + 1)
                for prop in schema.get("required", [])}
    if kind == "array":
        return []
    if kind == "integer" or kind == "number":
        return 1
    if kind == "boolean":
        return False
    fmt = schema.get("format")
    return {"date-time": "2026-01-01T00:00:00Z", "uri": "https://github.com/stand-in",
            "email": "stand-in@example.invalid"}.get(fmt, "stand-in")


def _merge(base, over):
    if isinstance(base, dict) and isinstance(over, dict):
        return {**base, **{k: _merge(base.get(k), v) for k, v in over.items()}}
    return over


def called_job(caller: str, called: str) -> str:
    """A job's name as GitHub lists it when a job (``caller``: its name, matrix value included,
    ``nightly (release/0.10)``) calls a reusable workflow whose job is ``called``:
    ``<caller> / <called>``, nested calls adding a level each."""
    return f"{caller} / {called}"


class _OpenAPIRequest:
    """The request protocol openapi-core validates, built from what the server received."""

    def __init__(self, host_url, path, method, query, headers, body, content_type):
        from openapi_core.datatypes import RequestParameters
        from werkzeug.datastructures import Headers, ImmutableMultiDict

        self.host_url, self.path, self.method = host_url, path, method.lower()
        self.parameters = RequestParameters(query=ImmutableMultiDict(query),
                                            header=Headers(list(headers.items())),
                                            cookie=ImmutableMultiDict(), path={})
        self.body = body or None
        self.content_type = content_type


def _spec_request(kind, method, path, query, headers, body) -> _OpenAPIRequest:
    """A request as GitHub's description sees it: on api.github.com or uploads.github.com."""
    host = "https://api.github.com" if kind == "api" else "https://uploads.github.com"
    if m := re.fullmatch(r"(/repos/[^/]+/[^/]+/git/refs/)(.+)", path):
        # GitHub's {ref} is "tags/NAME", slash included; openapi-core matches one segment.
        path = m.group(1) + quote(unquote(m.group(2)), safe="")
    return _OpenAPIRequest(host, path, method, query, headers, body, headers.get("content-type", ""))


class _OpenAPIResponse:
    """The response protocol openapi-core validates, for what the stand-in answers."""

    def __init__(self, status, headers, data, content_type):
        from werkzeug.datastructures import Headers

        self.status_code, self.data, self.content_type = status, data, content_type
        self.headers = Headers(list(headers.items()))


def _user(login: str = "release-bot", uid: int = 1) -> dict:
    """A ``simple-user`` with every field GitHub's description requires."""
    from urllib.parse import quote
    path = quote(login, safe="")  # as GitHub writes github-actions[bot]: github-actions%5Bbot%5D
    base = f"https://api.github.com/users/{path}"
    return {"login": login, "id": uid, "node_id": f"U_{uid}", "type": "Bot", "site_admin": False,
            "avatar_url": f"https://avatars.githubusercontent.com/u/{uid}", "gravatar_id": "",
            "url": base, "html_url": f"https://github.com/{path}",
            **{f"{k}_url": f"{base}/{k}" for k in ("followers", "organizations", "repos",
                                                   "received_events", "subscriptions")},
            "following_url": f"{base}/following{{/other_user}}", "gists_url": f"{base}/gists{{/gist_id}}",
            "starred_url": f"{base}/starred{{/owner}}{{/repo}}", "events_url": f"{base}/events{{/privacy}}"}


def _actions_app() -> dict:
    """GitHub Actions as the app of a check run (a ``nullable-integration``)."""
    return {"id": 15368, "slug": "github-actions", "node_id": "MDM6QXBwMTUzNjg", "owner": _user("github", 9919),
            "name": "GitHub Actions", "description": "Automate your workflow from idea to production",
            "external_url": "https://help.github.com/en/actions", "html_url": "https://github.com/apps/github-actions",
            "created_at": "2018-07-30T09:30:17Z", "updated_at": "2019-12-10T19:04:12Z",
            "permissions": {"checks": "write", "statuses": "write"}, "events": ["check_run"]}


def _repository(full: str) -> dict:
    """A ``minimal-repository`` with every field GitHub's description requires."""
    owner, name = full.split("/")
    api = f"https://api.github.com/repos/{full}"
    urls = {f"{k}_url": f"{api}/{k}" for k in (
        "archive", "assignees", "blobs", "branches", "collaborators", "comments", "commits", "compare",
        "contents", "contributors", "deployments", "downloads", "events", "forks", "git_commits",
        "git_refs", "git_tags", "hooks", "issue_comment", "issue_events", "issues", "keys", "labels",
        "languages", "merges", "milestones", "notifications", "pulls", "releases", "stargazers",
        "statuses", "subscribers", "subscription", "tags", "teams", "trees")}
    return {"id": 1, "node_id": "R_1", "name": name, "full_name": full, "owner": _user(owner, 2),
            "private": False, "html_url": f"https://github.com/{full}", "description": None,
            "fork": False, "url": api, **urls}


class StandInClock:
    """The stand-in's time for what it records: from an hour before the suite's fixed run time
    (``$RELEASE_NOW``, tests/conftest.py), one second later at each reading (GitHub's
    timestamps have seconds), so releases made in one test are ordered and dated the same on
    every run, and before the run's clock."""

    START = _dt.datetime(2026, 11, 22, 2, tzinfo=_dt.timezone.utc)

    def __init__(self, start: _dt.datetime | None = None):
        self.current = self.START if start is None else start
        self._lock = threading.Lock()  # the server answers on threads

    def __call__(self) -> _dt.datetime:
        with self._lock:
            self.current += _dt.timedelta(seconds=1)
            return self.current


def _iso(moment: _dt.datetime) -> str:
    return moment.astimezone(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass
class _Asset:
    id: int
    name: str
    label: str | None
    content: bytes
    state: str
    created_at: _dt.datetime
    content_type: str = "application/octet-stream"

    @property
    def digest(self) -> str:
        return "sha256:" + hashlib.sha256(self.content).hexdigest()


@dataclass
class _Release:
    id: int
    repo: str
    tag_name: str
    target_commitish: str
    name: str | None
    body: str | None
    draft: bool
    prerelease: bool
    created_at: _dt.datetime
    published_at: _dt.datetime | None = None
    make_latest: str | None = None
    assets: list[_Asset] = field(default_factory=list)
    untagged: str = field(default_factory=lambda: secrets.token_hex(10))


@dataclass
class RepoSettings:
    """What a repository's settings pages hold (one repository: ``fake.repo``)."""

    can_create_prs: bool = True
    pages_build_type: str | None = "workflow"   # None: Pages not enabled
    environments: dict = field(default_factory=lambda: {"github-pages": {"rules": [], "secrets": []}})
    runners: list = field(default_factory=list)     # {"name", "status", "labels": [names]}
    variables: dict = field(default_factory=dict)   # name -> value
    rulesets: list = field(default_factory=list)    # {"name", "target", "enforcement", "include", "exclude", "rules"}
    immutable_releases: bool = True   # GitHub's setting; off: published assets and tags may change
    # Settings > Actions > fork pull request approval; None: the endpoint answers 404
    fork_pr_approval: str | None = "all_external_contributors"
    default_branch: str = "main"
    # Classic branch protection: branch -> the status checks it requires (absent: unprotected).
    # Rulesets with target "branch" may require checks too: a rule {"type":
    # "required_status_checks", "parameters": {"required_status_checks": [{"context": NAME}],
    # "strict_required_status_checks_policy": false}} (``GET .../rules/branches/{branch}``).
    branch_protection: dict = field(default_factory=dict)


@dataclass
class _Fault:
    method: str
    path: re.Pattern
    status: int | None
    nth: int
    times: int
    when: str
    headers: dict
    message: str
    body: bytes | None = None
    seen: int = 0
    fired: int = 0
    hit: threading.Event = field(default_factory=threading.Event)  # set when it first fires


class _ApiError(Exception):
    def __init__(self, status, message, errors=None, headers=None):
        super().__init__(message)
        self.status, self.message, self.errors, self.headers = status, message, errors, headers or {}


class FakeGitHub:
    def __init__(self, openapi, token: str = FAKE_TOKEN, repo: str = FAKE_REPO):
        self.openapi = openapi
        self.token = token
        self.read_token = "test-read-token-" + token.rsplit("-", 1)[-1][::-1]
        self.repo = repo
        self.lock = threading.RLock()
        self.ids = itertools.count(1000)
        self._releases: list[_Release] = []
        self._tags: dict[str, dict[str, str]] = {}
        self.branches: dict[str, str] = {"main": hashlib.sha1(b"main").hexdigest()}
        self.settings = RepoSettings()
        self.actions_token = False
        self._burned: dict[str, set[str]] = {}
        self._pulls: dict[str, list[dict]] = {}
        self._comments: dict[tuple[str, int], list[dict]] = {}
        self._issues: dict[str, list[dict]] = {}
        self.login = "release-bot"
        # workflow_dispatch requests received: {"repo", "workflow", "ref", "inputs"}, oldest first.
        self.dispatches: list[dict] = []
        # A bare git repository standing for this repository's branches: when set, a pull
        # request's head branch must exist there (422 as GitHub), its head.sha follows the
        # branch, and a merge writes the merge commit there.
        self.git_dir: Path | None = None
        self._statuses: dict[tuple[str, str], list[dict]] = {}
        self._check_runs: dict[tuple[str, str], list[dict]] = {}
        self._runs: dict[str, list[dict]] = {}  # repo -> Actions workflow runs, oldest first
        self._workflow_ids: dict[str, int] = {}  # workflow file name -> its id
        self._run_jobs: dict[int, list[dict]] = {}  # run id -> its jobs, as listed
        self._signed: dict[str, int] = {}
        self.faults: list[_Fault] = []
        self.violations: list[str] = []
        self.log: list[tuple] = []
        self.now = StandInClock()
        self.epoch = time.time
        # The primary rate limit, spent as GitHub spends it: every API request (not storage
        # downloads) uses one of ``rate_limit_per_hour`` until the window's reset, then 403s.
        self.rate_limit_per_hour = 5000
        self._rate_window_end: float | None = None
        self._rate_used = 0
        self._servers = {}

    # ------------------------------------------------------------ lifecycle

    def start(self) -> "FakeGitHub":
        for kind in ("api", "uploads", "storage"):
            server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self, kind))
            server.daemon_threads = True
            threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02},
                             daemon=True).start()
            self._servers[kind] = server
        return self

    def stop(self) -> None:
        for server in self._servers.values():
            server.shutdown()
            server.server_close()

    def base(self, kind: str) -> str:
        return f"http://127.0.0.1:{self._servers[kind].server_address[1]}"

    @property
    def api_url(self) -> str:
        return self.base("api")

    def spend_rate(self) -> tuple[bool, dict[str, str]]:
        """One request against the primary rate limit: (allowed, the x-ratelimit-* headers)."""
        with self.lock:
            now = self.epoch()
            if self._rate_window_end is None or now >= self._rate_window_end:
                self._rate_window_end, self._rate_used = now + 3600, 0
            allowed = self._rate_used < self.rate_limit_per_hour
            self._rate_used += allowed
            used = self._rate_used
        return allowed, {"x-ratelimit-limit": str(self.rate_limit_per_hour),
                         "x-ratelimit-remaining": str(self.rate_limit_per_hour - used),
                         "x-ratelimit-used": str(used),
                         "x-ratelimit-reset": str(int(self._rate_window_end))}

    # ------------------------------------------------------------ test API

    def fail(self, method, path_regex, status=502, *, nth=1, times=1, when="before", headers=None,
             message=None, body=None) -> _Fault:
        assert when in ("before", "after", "starter", "drop", "headers", "malformed")
        fault = _Fault(method.upper(), re.compile(path_regex), status, nth, times, when,
                       dict(headers or {}), message or "Server Error",
                       b'{"id": 1, "tag_na' if body is None else body)
        with self.lock:
            self.faults.append(fault)
        return fault

    def rate_limit(self, method, path_regex, *, kind="primary", nth=1, times=1, reset_in=30,
                   reset_at=None, retry_after=None, status=403) -> _Fault:
        reset = int(reset_at if reset_at is not None else self.epoch() + reset_in)
        if kind == "primary":
            headers = {"x-ratelimit-limit": "5000", "x-ratelimit-remaining": "0",
                       "x-ratelimit-used": "5000", "x-ratelimit-reset": str(reset)}
            message = "API rate limit exceeded for user ID 1."
        else:
            headers = {"retry-after": str(retry_after)} if retry_after is not None else {}
            message = "You have exceeded a secondary rate limit. Please wait a few minutes before you try again."
        return self.fail(method, path_regex, status, nth=nth, times=times, headers=headers,
                         message=message)

    def releases(self, repo: str | None = None) -> list[dict]:
        """As the API lists them, plus ``make_latest`` as last sent (GitHub does not echo it)."""
        with self.lock:
            return [{**self._release_json(r), "make_latest": r.make_latest}
                    for r in self._repo_releases(repo or self.repo)]

    def tags(self, repo: str | None = None) -> dict[str, str]:
        with self.lock:
            return dict(self._tags.get(repo or self.repo, {}))

    def comments(self, number: int, repo: str | None = None) -> list[dict]:
        with self.lock:
            return [dict(c) for c in self._comments.get((repo or self.repo, number), [])]

    def pulls(self, repo: str | None = None) -> list[dict]:
        with self.lock:
            return [dict(p) for p in self._pulls.get(repo or self.repo, [])]

    def issues(self, repo: str | None = None) -> list[dict]:
        with self.lock:
            return [dict(i) for i in self._issues.get(repo or self.repo, [])]

    def seed_issue(self, title, *, body="", labels=(), login="a-person", state="open", repo=None) -> int:
        with self.lock:
            return self._new_issue(repo or self.repo, {"title": title, "body": body, "labels": list(labels)},
                                   login, state)["number"]

    @property
    def identity(self) -> str:
        """The login of the write token: the author of what the API creates."""
        return "github-actions[bot]" if self.actions_token else self.login

    def asset_bytes(self, asset_id: int) -> bytes:
        return self._find_asset(int(asset_id))[1].content

    def seed_release(self, tag, *, draft=False, prerelease=False, assets=None, published_at=None,
                     body="", name=None, repo=None) -> dict:
        with self.lock:
            moment = published_at or self.now()
            rel = _Release(next(self.ids), repo or self.repo, tag, "main", name or tag, body, draft,
                           prerelease, moment, None if draft else moment)
            for asset_name, content in (assets or {}).items():
                rel.assets.append(_Asset(next(self.ids), asset_name, None, content, "uploaded", moment))
            self._releases.append(rel)
            if not draft:
                self._tags.setdefault(rel.repo, {})[tag] = hashlib.sha1(tag.encode()).hexdigest()
            return self._release_json(rel)

    def set_status(self, sha, context, state, *, repo=None, description=None) -> None:
        assert state in ("success", "pending", "failure", "error")
        with self.lock:
            repo = repo or self.repo
            sid = next(self.ids)
            moment = _iso(self.now())
            self._statuses.setdefault((repo, sha), []).append({
                "url": f"{self.api_url}/repos/{repo}/statuses/{sha}", "id": sid, "node_id": f"SC_{sid}",
                "state": state, "description": description, "context": context,
                "target_url": f"https://ci.example.com/{sid}", "required": False,
                "avatar_url": "https://avatars.githubusercontent.com/u/9919", "created_at": moment,
                "updated_at": moment})

    def add_check_run(self, sha, name, *, status="completed", conclusion="success", repo=None) -> int:
        assert status in ("queued", "in_progress", "completed", "waiting", "requested", "pending")
        if status != "completed":
            conclusion = None
        with self.lock:
            repo = repo or self.repo
            rid = next(self.ids)
            moment = _iso(self.now())
            self._check_runs.setdefault((repo, sha), []).append({
                "id": rid, "head_sha": sha, "node_id": f"CR_{rid}", "external_id": str(rid),
                "url": f"{self.api_url}/repos/{repo}/check-runs/{rid}",
                "html_url": f"https://github.com/{repo}/runs/{rid}", "details_url": None,
                "status": status, "conclusion": conclusion, "started_at": moment,
                "completed_at": moment if status == "completed" else None,
                "output": {"title": None, "summary": None, "text": None, "annotations_count": 0,
                           "annotations_url": f"{self.api_url}/repos/{repo}/check-runs/{rid}/annotations"},
                "name": name, "check_suite": {"id": rid // 10}, "app": _actions_app(),
                "pull_requests": []})
            return rid

    def add_workflow_run(self, workflow="nightly.yml", *, conclusion="success", status="completed",
                         branch="main", head_sha=None, created_at=None, event="schedule",
                         repo=None, jobs=None, line=None) -> dict:
        """Record one run of the Actions workflow ``workflow`` (its file name) as GitHub keeps it:
        the next ``run_number`` of that workflow, ``created_at`` from ``fake.now`` unless given (a
        datetime), ``conclusion`` None unless ``status`` is ``completed``. Returns it as listed.
        Without ``jobs``, one build job; with ``line``, it is that line's, named as GitHub names
        a job of nightly.yml's call of nightly-line.yml (``called_job``)."""
        assert status in ("queued", "in_progress", "completed", "waiting", "requested", "pending")
        with self.lock:
            repo = repo or self.repo
            runs = self._runs.setdefault(repo, [])
            workflow_id = self._workflow_id(workflow)
            number = 1 + sum(1 for r in runs if r["workflow_id"] == workflow_id)
            rid = next(self.ids)
            moment = _iso(created_at if created_at is not None else self.now())
            sha = head_sha or self.branches.get(branch) or hashlib.sha1(f"{branch}{rid}".encode()).hexdigest()
            api = f"{self.api_url}/repos/{repo}/actions/runs/{rid}"
            run = _merge(schema_instance("workflow-run"), dict(
                id=rid, node_id=f"WFR_{rid}", name=workflow.rsplit(".", 1)[0],
                head_branch=branch, head_sha=sha, run_number=number, run_attempt=1, event=event,
                display_title=workflow.rsplit(".", 1)[0], status=status,
                conclusion=conclusion if status == "completed" else None,
                path=f".github/workflows/{workflow}", workflow_id=workflow_id, url=api,
                html_url=f"https://github.com/{repo}/actions/runs/{rid}", created_at=moment,
                updated_at=moment, run_started_at=moment, jobs_url=f"{api}/jobs", logs_url=f"{api}/logs",
                check_suite_url=f"{self.api_url}/repos/{repo}/check-suites/{rid}",
                cancel_url=f"{api}/cancel", rerun_url=f"{api}/rerun", artifacts_url=f"{api}/artifacts",
                workflow_url=f"{self.api_url}/repos/{repo}/actions/workflows/{workflow_id}",
                head_repository=_repository(repo), repository=_repository(repo), pull_requests=[]))
            runs.append(run)
            if jobs is None:
                red = conclusion in ("failure", "timed_out", "startup_failure") and status == "completed"
                name = "build / build pjrt wheel"
                jobs = [(called_job(f"nightly ({line})", name) if line else name,
                         conclusion if status == "completed" else None,
                         [("scripts/build-wheel.sh build (no credentials)", "failure" if red else
                           conclusion if status == "completed" else None)])]
            self._run_jobs[rid] = [self._job(repo, run, n, *job) for n, job in enumerate(jobs)]
            return dict(run)

    def _job(self, repo, run, n, name, conclusion, steps) -> dict:
        jid = run["id"] * 100 + n
        status = "completed" if conclusion is not None else "in_progress"
        return _merge(schema_instance("job"), dict(
            id=jid, node_id=f"CR_{jid}", run_id=run["id"], run_url=run["url"],
            head_sha=run["head_sha"], workflow_name=run["name"], head_branch=run["head_branch"], name=name,
            url=f"{self.api_url}/repos/{repo}/actions/jobs/{jid}",
            html_url=f"https://github.com/{repo}/actions/runs/{run['id']}/job/{jid}", status=status,
            conclusion=conclusion, started_at=run["created_at"], created_at=run["created_at"],
            completed_at=run["created_at"] if conclusion is not None else None,
            check_run_url=f"{self.api_url}/repos/{repo}/check-runs/{jid}", labels=["ubuntu-24.04"],
            steps=[{"name": step, "status": "completed" if done is not None else "in_progress",
                    "conclusion": done, "number": i + 1, "started_at": run["created_at"],
                    "completed_at": run["created_at"] if done is not None else None}
                   for i, (step, done) in enumerate(steps)]))

    def update_workflow_run(self, run_id, *, status="completed", conclusion=None, repo=None) -> dict:
        """A run moves on (queued -> in_progress -> completed with a conclusion), or is re-run:
        ``run_attempt`` grows when a completed run starts again."""
        with self.lock:
            run = next(r for r in self._runs.get(repo or self.repo, []) if r["id"] == run_id)
            if run["status"] == "completed" and status != "completed":
                run["run_attempt"] += 1
            run.update(status=status, conclusion=conclusion if status == "completed" else None,
                       updated_at=_iso(self.now()))
            return dict(run)

    def workflow_runs(self, repo: str | None = None) -> list[dict]:
        """Every recorded run, newest first, as listed."""
        with self.lock:
            return [dict(r) for r in reversed(self._runs.get(repo or self.repo, []))]

    def _workflow_id(self, workflow) -> int:
        return self._workflow_ids.setdefault(workflow, 7000 + len(self._workflow_ids))

    # ------------------------------------------------------------ JSON shapes

    def _repo_releases(self, repo):
        return sorted((r for r in self._releases if r.repo == repo), key=lambda r: -r.id)

    def _asset_json(self, rel: _Release, asset: _Asset) -> dict:
        api = self.api_url
        return {
            "url": f"{api}/repos/{rel.repo}/releases/assets/{asset.id}",
            "browser_download_url": f"{self.base('storage')}/{rel.repo}/releases/download/"
                                    f"{quote(rel.tag_name)}/{quote(asset.name)}",
            "id": asset.id, "node_id": f"RA_{asset.id}", "name": asset.name, "label": asset.label,
            "state": asset.state, "content_type": asset.content_type, "size": len(asset.content),
            "digest": asset.digest if asset.state == "uploaded" else None,
            "download_count": 0, "created_at": _iso(asset.created_at),
            "updated_at": _iso(asset.created_at), "uploader": _user(),
        }

    def _release_json(self, rel: _Release) -> dict:
        api = self.api_url
        tag_path = quote(rel.tag_name) if not rel.draft else f"untagged-{rel.untagged}"
        return {
            "url": f"{api}/repos/{rel.repo}/releases/{rel.id}",
            "html_url": f"https://github.com/{rel.repo}/releases/tag/{tag_path}",
            "assets_url": f"{api}/repos/{rel.repo}/releases/{rel.id}/assets",
            "upload_url": f"{self.base('uploads')}/repos/{rel.repo}/releases/{rel.id}/assets{{?name,label}}",
            "tarball_url": None, "zipball_url": None,
            "id": rel.id, "node_id": f"RE_{rel.id}", "tag_name": rel.tag_name,
            "target_commitish": rel.target_commitish, "name": rel.name, "body": rel.body,
            "draft": rel.draft, "prerelease": rel.prerelease,
            "immutable": not rel.draft and self.settings.immutable_releases,
            "created_at": _iso(rel.created_at),
            "published_at": _iso(rel.published_at) if rel.published_at else None,
            "author": _user(),
            "assets": [self._asset_json(rel, a) for a in rel.assets],
        }

    # ------------------------------------------------------------ lookup helpers

    def _release(self, repo, release_id) -> _Release:
        for rel in self._releases:
            if rel.repo == repo and rel.id == int(release_id):
                return rel
        raise _ApiError(404, "Not Found")

    def _find_asset(self, asset_id, repo=None) -> tuple[_Release, _Asset]:
        for rel in self._releases:
            for asset in rel.assets:
                if asset.id == asset_id and (repo is None or rel.repo == repo):
                    return rel, asset
        raise _ApiError(404, "Not Found")

    def _immutable(self, rel: _Release) -> None:
        """GitHub refuses changes to a published release only where immutable releases are on."""
        if not rel.draft and self.settings.immutable_releases:
            raise _ApiError(422, "Cannot modify an immutable release.",
                            [{"resource": "Release", "code": "custom", "field": "immutable",
                              "message": "Cannot modify an immutable release."}])

    def _check_tag_free(self, repo, tag, except_id=None) -> None:
        if tag in self._burned.get(repo, set()):
            raise _ApiError(422, "Validation Failed", [{"resource": "Release", "code": "custom",
                            "field": "tag_name", "message": "tag_name was used by an immutable release"}])
        for rel in self._releases:
            if rel.repo == repo and rel.tag_name == tag and not rel.draft and rel.id != except_id:
                raise _ApiError(422, "Validation Failed", [{"resource": "Release",
                                "code": "already_exists", "field": "tag_name"}])

    def _target_commit(self, target: str) -> str:
        """The commit a release's target_commitish names: a full SHA, or a branch's head."""
        if re.fullmatch(r"[0-9a-f]{40}", target):
            return target
        if target in self.branches:
            return self.branches[target]
        raise _ApiError(422, "Validation Failed", [{"resource": "Release", "code": "invalid",
                                                    "field": "target_commitish"}])

    def _publish(self, rel: _Release) -> None:
        self._check_tag_free(rel.repo, rel.tag_name, except_id=rel.id)
        tags = self._tags.setdefault(rel.repo, {})
        commit = tags.get(rel.tag_name) or self._target_commit(rel.target_commitish)
        rel.draft = False
        rel.published_at = self.now()
        tags.setdefault(rel.tag_name, commit)

    # ------------------------------------------------------------ routes

    def route(self, kind, method, path, query, headers, body):
        """Apply one request; returns (status, headers, body bytes or JSON-able)."""
        q = dict(query)
        if kind == "storage":
            return _ranged(headers.get("range"), *self._storage(method, path, q))
        if kind == "uploads":
            m = re.fullmatch(r"/repos/([^/]+/[^/]+)/releases/(\d+)/assets", path)
            if method == "POST" and m:
                return self._upload(m.group(1), int(m.group(2)), q, body)
            raise _ApiError(404, "Not Found")
        if path == "/user" and method == "GET":
            if self.actions_token or self.reads_only(headers):
                raise _ApiError(403, "Resource not accessible by integration")
            return 200, {}, schema_instance("public-user", **{**_user(self.login), "type": "User",
                                                          "user_view_type": "public"})
        m = re.fullmatch(r"/repos/([^/]+/[^/]+)(/.*)?", path)
        if not m:
            raise _ApiError(404, "Not Found")
        repo, rest = m.group(1), m.group(2) or ""
        data = json.loads(body) if body else {}
        if rest == "/issues" or re.fullmatch(r"/issues/\d+", rest):
            return self._issue_route(repo, rest, method, data, q, path)
        if rest == "/releases":
            if method == "GET":
                visible = [r for r in self._repo_releases(repo) if not (r.draft and self.reads_only(headers))]
                return self._paginate(visible, q, path, self._release_json)
            if method == "POST":
                return self._create_release(repo, data)
        if (m := re.fullmatch(r"/releases/tags/(.+)", rest)) and method == "GET":
            tag = unquote(m.group(1))
            for rel in self._repo_releases(repo):
                if rel.tag_name == tag and not rel.draft:
                    return 200, {}, self._release_json(rel)
            raise _ApiError(404, "Not Found")
        if m := re.fullmatch(r"/releases/assets/(\d+)", rest):
            rel, asset = self._find_asset(int(m.group(1)), repo)
            if method == "GET":
                if headers.get("accept", "").lower() == "application/octet-stream":
                    signature = secrets.token_urlsafe(16)
                    self._signed[signature] = asset.id
                    location = f"{self.base('storage')}/signed/{asset.id}?sig={signature}"
                    return 302, {"Location": location}, b""
                return 200, {}, self._asset_json(rel, asset)
            if method == "PATCH":
                self._immutable(rel)
                if "name" in data and data["name"] != asset.name:
                    if any(a.name == data["name"] for a in rel.assets):
                        raise _ApiError(422, "Validation Failed", [{"resource": "ReleaseAsset",
                                        "code": "already_exists", "field": "name"}])
                    asset.name = data["name"]
                if "label" in data:
                    asset.label = data["label"]
                return 200, {}, self._asset_json(rel, asset)
            if method == "DELETE":
                self._immutable(rel)
                rel.assets.remove(asset)
                return 204, {}, b""
        if m := re.fullmatch(r"/releases/(\d+)/assets", rest):
            rel = self._release(repo, m.group(1))
            if method == "GET":
                return self._paginate(rel.assets, q, path, lambda a: self._asset_json(rel, a))
        if m := re.fullmatch(r"/releases/(\d+)", rest):
            rel = self._release(repo, m.group(1))
            if rel.draft and self.reads_only(headers):
                raise _ApiError(404, "Not Found")
            if method == "GET":
                return 200, {}, self._release_json(rel)
            if method == "PATCH":
                return self._update_release(rel, data)
            if method == "DELETE":
                self._releases.remove(rel)
                if not rel.draft and self.settings.immutable_releases:
                    self._burned.setdefault(repo, set()).add(rel.tag_name)
                return 204, {}, b""
        if (m := re.fullmatch(r"/git/refs/tags/(.+)", rest)) and method == "DELETE":
            tag = unquote(m.group(1))
            if tag not in self._tags.get(repo, {}):
                raise _ApiError(422, "Reference does not exist")
            if any(r.repo == repo and r.tag_name == tag and not r.draft for r in self._releases):
                raise _ApiError(422, "Cannot delete a tag of an immutable release.")
            del self._tags[repo][tag]
            return 204, {}, b""
        if (m := re.fullmatch(r"/commits/([^/]+)/(status|check-runs)", rest)) and method == "GET":
            return self._ci(repo, unquote(m.group(1)), m.group(2), q, path)
        if method == "GET" and (m := re.fullmatch(r"/actions/(?:workflows/([^/]+)/)?runs", rest)):
            return self._list_runs(repo, unquote(m.group(1)) if m.group(1) else None, q, path)
        if method == "GET" and (m := re.fullmatch(r"/actions/runs/(\d+)/jobs", rest)):
            if not any(r["id"] == int(m.group(1)) for r in self._runs.get(repo, [])):
                raise _ApiError(404, "Not Found")
            listed = self._run_jobs.get(int(m.group(1)), [])
            status, headers, page = self._paginate(listed, q, path, dict)
            return status, headers, {"total_count": len(listed), "jobs": page}
        if method == "GET" and (m := re.fullmatch(r"/actions/runs/(\d+)", rest)):
            run = next((r for r in self._runs.get(repo, []) if r["id"] == int(m.group(1))), None)
            if run is None:
                raise _ApiError(404, "Not Found")
            return 200, {}, run
        if (m := re.fullmatch(r"/actions/workflows/([^/]+)/dispatches", rest)) and method == "POST":
            if data.get("ref") not in self.branches and self._ref(str(data.get("ref"))) is None:
                raise _ApiError(422, f"No ref found for: {data.get('ref')}")
            self.dispatches.append({"repo": repo, "workflow": unquote(m.group(1)), "ref": data["ref"],
                                    "inputs": dict(data.get("inputs") or {})})
            return 204, {}, b""
        if rest == "/pulls":
            if method == "GET":
                return self._list_pulls(repo, q, path)
            if method == "POST":
                if self.actions_token and not self.settings.can_create_prs:
                    raise _ApiError(403, "GitHub Actions is not permitted to create or approve pull requests.")
                return self._create_pull(repo, data)
        if method == "GET" and (answer := self._settings_route(rest, q, path)) is not None:
            return answer
        if (m := re.fullmatch(r"/pulls/(\d+)/merge", rest)) and method == "PUT":
            return self._merge_pull(repo, int(m.group(1)), data)
        if m := re.fullmatch(r"/issues/(\d+)/comments", rest):
            return self._issue_comments(repo, int(m.group(1)), method, data, q, path)
        if m := re.fullmatch(r"/pulls/(\d+)", rest):
            pull = next((p for p in self._pulls.get(repo, []) if p["number"] == int(m.group(1))), None)
            if pull is None:
                raise _ApiError(404, "Not Found")
            if method == "GET":
                return 200, {}, self._refresh(pull)
            if method == "PATCH":
                self._check_body(data, "PullRequest")
                for key in ("title", "body", "state", "base"):
                    if key in data:
                        pull[key] = data[key] if key != "base" else {**pull["base"], "ref": data[key]}
                pull["updated_at"] = _iso(self.now())
                return 200, {}, pull
        raise _ApiError(404, "Not Found")

    def reads_only(self, headers) -> bool:
        return headers.get("authorization") in (f"Bearer {self.read_token}", f"token {self.read_token}")

    def _settings_route(self, rest, q, path):
        """GET of a repository setting (``release doctor``); None when ``rest`` names none."""
        s, moment = self.settings, "2026-11-01T00:00:00Z"
        admin_only = ("/actions/permissions/workflow", "/actions/runners", "/immutable-releases",
                      "/actions/variables", "/actions/permissions/fork-pr-contributor-approval")
        if self.actions_token and (rest in admin_only or re.fullmatch(r"/environments/[^/]+/secrets", rest)):
            raise _ApiError(403, "Resource not accessible by integration")
        if rest == "/actions/permissions/workflow":
            return 200, {}, {"default_workflow_permissions": "read",
                             "can_approve_pull_request_reviews": s.can_create_prs}
        if rest == "/pages":
            if s.pages_build_type is None:
                raise _ApiError(404, "Not Found")
            owner, name = self.repo.split("/")
            return 200, {}, {"url": f"{self.api_url}/repos/{self.repo}/pages", "status": "built",
                             "cname": None, "custom_404": False, "public": True,
                             "html_url": f"https://{owner}.github.io/{name}/", "build_type": s.pages_build_type}
        if m := re.fullmatch(r"/environments/([^/]+)(/secrets)?", rest):
            env = s.environments.get(unquote(m.group(1)))
            if env is None:
                raise _ApiError(404, "Not Found")
            if m.group(2):
                secrets = [{"name": n, "created_at": moment, "updated_at": moment} for n in env["secrets"]]
                status, headers, page = self._paginate(secrets, q, path, dict)
                return status, headers, {"total_count": len(secrets), "secrets": page}
            name = unquote(m.group(1))
            rules = [{"id": i + 1, "node_id": f"GA_{i + 1}", "type": r,
                      **({"wait_timer": 30} if r == "wait_timer" else {})} for i, r in enumerate(env["rules"])]
            return 200, {}, {"id": 7, "node_id": "EN_7", "name": name,
                             "url": f"{self.api_url}/repos/{self.repo}/environments/{name}",
                             "html_url": f"https://github.com/{self.repo}/deployments/activity_log?environments_filter={name}",
                             "created_at": moment, "updated_at": moment, "protection_rules": rules}
        if rest == "/actions/runners":
            runners = [{"id": i + 1, "name": r["name"], "os": "linux", "status": r["status"], "busy": False,
                        "labels": [{"id": j + 1, "name": lbl, "type": "custom"} for j, lbl in enumerate(r["labels"])]}
                       for i, r in enumerate(s.runners)]
            status, headers, page = self._paginate(runners, q, path, dict)
            return status, headers, {"total_count": len(runners), "runners": page}
        if rest == "/actions/variables":
            items = [{"name": k, "value": v, "created_at": moment, "updated_at": moment}
                     for k, v in sorted(s.variables.items())]
            status, headers, page = self._paginate(items, q, path, dict)
            return status, headers, {"total_count": len(items), "variables": page}
        if rest == "/rulesets":
            return 200, {}, [self._ruleset(i, r, detail=False) for i, r in enumerate(s.rulesets)]
        if m := re.fullmatch(r"/rulesets/(\d+)", rest):
            index = int(m.group(1)) - 1
            if not 0 <= index < len(s.rulesets):
                raise _ApiError(404, "Not Found")
            return 200, {}, self._ruleset(index, s.rulesets[index], detail=True)
        if rest == "":
            return 200, {}, _merge(schema_instance("full-repository"),
                                   {**_repository(self.repo), "default_branch": s.default_branch})
        if m := re.fullmatch(r"/branches/([^/]+)", rest):
            branch = unquote(m.group(1))
            contexts = s.branch_protection.get(branch)
            return 200, {}, _merge(schema_instance("branch-with-protection"), dict(
                name=branch, protected=contexts is not None,
                commit={"sha": self._ref(branch) or self.branches.get(branch, "0" * 40), "author": {}, "committer": {}},
                protection_url=f"{self.api_url}/repos/{self.repo}/branches/{branch}/protection",
                protection={"enabled": contexts is not None, "required_status_checks": {
                    "contexts": contexts or [], "checks": [{"context": c, "app_id": None} for c in contexts or []],
                    "enforcement_level": "everyone" if contexts else "off"}}))
        if m := re.fullmatch(r"/rules/branches/([^/]+)", rest):
            ref = f"refs/heads/{unquote(m.group(1))}"
            rules = []
            for index, ruleset in enumerate(s.rulesets):
                if ruleset.get("target", "tag") != "branch" or ruleset.get("enforcement", "active") != "active":
                    continue
                default = f"refs/heads/{s.default_branch}"
                hit = any(ref == p or p == "~ALL" or (p == "~DEFAULT_BRANCH" and ref == default)
                          for p in ruleset.get("include", []))
                if hit and ref not in ruleset.get("exclude", []):
                    for rule in ruleset.get("rules", []):
                        rule = rule if isinstance(rule, dict) else {"type": rule}
                        rules.append({**rule, "ruleset_source_type": "Repository", "ruleset_source": self.repo,
                                      "ruleset_id": index + 1})
            return 200, {}, rules
        if rest == "/actions/permissions/fork-pr-contributor-approval":
            if s.fork_pr_approval is None:
                raise _ApiError(404, "Not Found")
            return 200, {}, {"approval_policy": s.fork_pr_approval}
        if rest == "/immutable-releases":
            if not s.immutable_releases:
                raise _ApiError(404, "Not Found")
            return 200, {}, {"enabled": True, "enforced_by_owner": False}
        return None

    def _ruleset(self, index, rule, *, detail):
        data = {"id": index + 1, "name": rule["name"], "target": rule.get("target", "tag"),
                "source_type": "Repository", "source": self.repo, "enforcement": rule.get("enforcement", "active")}
        if detail:
            data |= {"conditions": {"ref_name": {"include": rule.get("include", []),
                                                 "exclude": rule.get("exclude", [])}},
                     "rules": [kind if isinstance(kind, dict) else {"type": kind} for kind in rule.get("rules", [])],
                     "current_user_can_bypass": "never"}
        return data

    def _paginate(self, items, q, path, render):
        per_page = min(int(q.get("per_page", 30)), 100)
        page = max(int(q.get("page", 1)), 1)
        last = max((len(items) + per_page - 1) // per_page, 1)
        chunk = items[(page - 1) * per_page: page * per_page]
        links = []
        base = self.api_url + path

        def url(p):
            return base + "?" + urlencode({**{k: v for k, v in q.items() if k != "page"}, "page": p})
        if page < last:
            links += [f'<{url(page + 1)}>; rel="next"', f'<{url(last)}>; rel="last"']
        if page > 1:
            links += [f'<{url(1)}>; rel="first"', f'<{url(page - 1)}>; rel="prev"']
        headers = {"Link": ", ".join(links)} if links else {}
        return 200, headers, [render(i) for i in chunk]

    # GitHub's limit on a release's notes, in characters (more than an issue's).
    RELEASE_BODY_LIMIT = 125000

    def _check_release_body(self, data):
        if len(str(data.get("body") or "")) > self.RELEASE_BODY_LIMIT:
            raise _ApiError(422, "Validation Failed", [{"resource": "Release", "code": "custom", "field": "body",
                            "message": f"body is too long (maximum is {self.RELEASE_BODY_LIMIT} characters)"}])

    def _create_release(self, repo, data):
        self._check_release_body(data)
        tag = data["tag_name"]
        draft = bool(data.get("draft", False))
        if tag in self._burned.get(repo, set()):
            self._check_tag_free(repo, tag)
        self._target_commit(data.get("target_commitish", "main"))
        rel = _Release(next(self.ids), repo, tag, data.get("target_commitish", "main"),
                       data.get("name"), data.get("body"), True, bool(data.get("prerelease", False)),
                       self.now(), make_latest=data.get("make_latest"))
        if not draft:
            self._check_tag_free(repo, tag)
        self._releases.append(rel)
        if not draft:
            self._publish(rel)
        return 201, {"Location": f"{self.api_url}/repos/{repo}/releases/{rel.id}"}, self._release_json(rel)

    def _update_release(self, rel, data):
        self._check_release_body(data)
        if not rel.draft:
            if data.get("draft") is True or ("tag_name" in data and data["tag_name"] != rel.tag_name):
                self._immutable(rel)
        if "tag_name" in data:
            rel.tag_name = data["tag_name"]
        if "target_commitish" in data:
            self._target_commit(data["target_commitish"])
        for key in ("name", "body", "prerelease", "target_commitish", "make_latest"):
            if key in data:
                setattr(rel, key, data[key])
        if data.get("draft") is False and rel.draft:
            self._publish(rel)
        return 200, {}, self._release_json(rel)

    def _upload(self, repo, release_id, q, body, starter=False):
        rel = self._release(repo, release_id)
        self._immutable(rel)
        name = re.sub(r"[^A-Za-z0-9._-]", ".", q["name"])  # as GitHub renames special characters
        if any(a.name == name for a in rel.assets):
            raise _ApiError(422, "Validation Failed", [{"resource": "ReleaseAsset",
                            "code": "already_exists", "field": "name"}])
        asset = _Asset(next(self.ids), name, q.get("label"), body[: len(body) // 2] if starter else body,
                       "starter" if starter else "uploaded", self.now())
        rel.assets.append(asset)
        return 201, {}, self._asset_json(rel, asset)

    def _storage(self, method, path, q):
        """An asset's bytes by signed URL or by its public download URL (published releases);
        HEAD too (uv asks it before a range read)."""
        if method not in ("GET", "HEAD"):
            raise _ApiError(405, "Method Not Allowed")
        if m := re.fullmatch(r"/signed/(\d+)", path):
            if self._signed.get(q.get("sig", "")) != int(m.group(1)):
                raise _ApiError(403, "Request has expired or the signature does not match")
            return 200, {"Content-Type": "application/octet-stream"}, self._find_asset(int(m.group(1)))[1].content
        if m := re.fullmatch(r"/([^/]+/[^/]+)/releases/download/([^/]+)/([^/]+)", path):
            repo, tag, name = m.group(1), unquote(m.group(2)), unquote(m.group(3))
            for rel in self._repo_releases(repo):
                if rel.tag_name == tag and not rel.draft:
                    for asset in rel.assets:
                        if asset.name == name:
                            return 200, {"Content-Type": "application/octet-stream"}, asset.content
        raise _ApiError(404, "Not Found")

    def _ci(self, repo, ref, what, q, path):
        if not re.fullmatch(r"[0-9a-f]{40}", ref):
            raise _ApiError(422, f"No commit found for SHA: {ref}")
        if what == "status":
            latest = {}
            for status in self._statuses.get((repo, ref), []):
                latest[status["context"]] = status  # a later status of a context replaces it
            statuses = sorted(latest.values(), key=lambda s: -s["id"])
            states = {s["state"] for s in statuses}
            state = ("failure" if states & {"failure", "error"} else
                     "pending" if not statuses or "pending" in states else "success")
            status, headers, page = self._paginate(statuses, q, path, dict)
            return status, headers, {
                "state": state, "statuses": page, "sha": ref, "total_count": len(statuses),
                "repository": _repository(repo), "commit_url": f"{self.api_url}/repos/{repo}/commits/{ref}",
                "url": f"{self.api_url}/repos/{repo}/commits/{ref}/status"}
        runs = sorted(self._check_runs.get((repo, ref), []), key=lambda r: -r["id"])
        if q.get("filter", "latest") == "latest":
            seen, newest = set(), []
            for run in runs:
                if run["name"] not in seen:
                    seen.add(run["name"])
                    newest.append(run)
            runs = newest
        if "check_name" in q:
            runs = [r for r in runs if r["name"] == q["check_name"]]
        if "status" in q:
            runs = [r for r in runs if r["status"] == q["status"]]
        status, headers, page = self._paginate(runs, q, path, dict)
        return status, headers, {"total_count": len(runs), "check_runs": page}

    def _list_runs(self, repo, workflow, q, path):
        """Workflow runs newest first, filtered as GitHub filters them: ``branch`` (the head
        branch), ``event``, ``status`` (a status or a conclusion), ``head_sha``; a workflow is named
        by its id or its file name (any ``*.yml``/``*.yaml`` exists; an unknown id is 404)."""
        runs = list(reversed(self._runs.get(repo, [])))
        if workflow is not None:
            if workflow.isdigit():
                if int(workflow) not in self._workflow_ids.values():
                    raise _ApiError(404, "Not Found")
                wid = int(workflow)
            elif workflow.endswith((".yml", ".yaml")) and "/" not in workflow:
                wid = self._workflow_id(workflow)
            else:
                raise _ApiError(404, "Not Found")
            runs = [r for r in runs if r["workflow_id"] == wid]
        if "created" in q:
            raise _ApiError(422, "the stand-in does not filter runs by 'created'")
        for key, field_name in (("branch", "head_branch"), ("event", "event"), ("head_sha", "head_sha")):
            if key in q:
                runs = [r for r in runs if r[field_name] == q[key]]
        if "status" in q:
            runs = [r for r in runs if q["status"] in (r["status"], r["conclusion"])]
        status, headers, page = self._paginate(runs, q, path, dict)
        return status, headers, {"total_count": len(runs), "workflow_runs": page}

    def _ref(self, branch) -> str | None:
        """The commit ``refs/heads/branch`` names in ``git_dir`` (None when absent)."""
        if self.git_dir is None:
            return None
        done = subprocess.run(["git", "rev-parse", "--verify", "--quiet", f"refs/heads/{branch}^{{commit}}"],
                              cwd=self.git_dir, capture_output=True, text=True)
        return done.stdout.strip() if done.returncode == 0 else None

    def _refresh(self, pull) -> dict:
        """An open pull request's head.sha follows its branch, as on GitHub after a push."""
        if self.git_dir is not None and pull["state"] == "open":
            sha = self._ref(pull["head"]["ref"])
            if sha is not None:
                pull["head"]["sha"] = sha
        return pull

    def _merge_pull(self, repo, number, data):
        """PUT .../merge: 405 when the PR is not open or its checks are not all green (at least
        one, none failing or pending), 409 when ``sha`` is not the head; else, in ``git_dir``,
        what ``merge_method`` makes on the base branch: ``merge`` a merge commit, ``squash`` one
        commit of the PR's changes titled ``<title> (#N)``, ``rebase`` the head's commit replayed
        (its message kept; the bump PR is one commit)."""
        pull = next((p for p in self._pulls.get(repo, []) if p["number"] == number), None)
        if pull is None:
            raise _ApiError(404, "Not Found")
        self._refresh(pull)
        if pull["state"] != "open":
            raise _ApiError(405, "Pull Request is not mergeable")
        head = pull["head"]["sha"]
        if data.get("sha") and data["sha"] != head:
            raise _ApiError(409, "Head branch was modified. Review and try the merge again.")
        states = [s["state"] for s in {s["context"]: s for s in self._statuses.get((repo, head), [])}.values()]
        states += ["success" if r["conclusion"] in ("success", "neutral", "skipped") else
                   (r["conclusion"] or "pending")
                   for r in {r["name"]: r for r in self._check_runs.get((repo, head), [])}.values()]
        if not states or any(s != "success" for s in states):
            raise _ApiError(405, "Required status checks have not passed on the head commit")
        merged = head
        if self.git_dir is not None:
            base = self._ref(pull["base"]["ref"])
            done = subprocess.run(["git", "merge-tree", "--write-tree", base, head], cwd=self.git_dir,
                                  capture_output=True, text=True)
            if done.returncode != 0:
                raise _ApiError(405, "Pull Request is not mergeable")
            tree = done.stdout.split()[0]
            env = {**os.environ, "GIT_AUTHOR_NAME": "GitHub", "GIT_AUTHOR_EMAIL": "noreply@github.com",
                   "GIT_COMMITTER_NAME": "GitHub", "GIT_COMMITTER_EMAIL": "noreply@github.com"}
            method = data.get("merge_method", "merge")
            if method == "merge":
                parents, message = ["-p", base, "-p", head], f"Merge pull request #{number}"
            elif method == "squash":
                parents, message = ["-p", base], f"{pull['title']} (#{number})"
            else:  # rebase
                parents = ["-p", base]
                message = subprocess.run(["git", "log", "-1", "--format=%B", head], cwd=self.git_dir,
                                         capture_output=True, text=True, check=True).stdout
            merged = subprocess.run(["git", "commit-tree", tree, *parents, "-m", message], cwd=self.git_dir,
                                    env=env, capture_output=True, text=True, check=True).stdout.strip()
            subprocess.run(["git", "update-ref", f"refs/heads/{pull['base']['ref']}", merged, base],
                           cwd=self.git_dir, check=True)
        pull.update(state="closed", merged=True, merged_at=_iso(self.now()), closed_at=_iso(self.now()),
                    merge_commit_sha=merged)
        return 200, {}, {"sha": merged, "merged": True, "message": "Pull Request successfully merged"}

    def _list_pulls(self, repo, q, path):
        for pull in self._pulls.get(repo, []):
            self._refresh(pull)
        state = q.get("state", "open")
        pulls = [p for p in self._pulls.get(repo, []) if state == "all" or p["state"] == state]
        if "head" in q:
            pulls = [p for p in pulls if p["head"]["label"] == q["head"]]
        if "base" in q:
            pulls = [p for p in pulls if p["base"]["ref"] == q["base"]]
        return self._paginate(sorted(pulls, key=lambda p: -p["number"]), q, path, dict)

    def _issue_comments(self, repo, number, method, data, q, path):
        """Comments on an issue or a pull request (GitHub keeps them on the issue of its number)."""
        if not any(p["number"] == number for p in self._pulls.get(repo, []) + self._issues.get(repo, [])):
            raise _ApiError(404, "Not Found")
        comments = self._comments.setdefault((repo, number), [])
        if method == "GET":
            return self._paginate(comments, q, path, dict)
        if method == "POST":
            if not str(data.get("body") or ""):
                raise _ApiError(422, "Validation Failed", [{"resource": "IssueComment", "code": "missing_field",
                                                            "field": "body"}])
            self._check_body(data, "IssueComment")
            cid = next(self.ids)
            comment = schema_instance(
                "issue-comment", id=cid, body=data["body"], user=_user(self.identity),
                url=f"{self.api_url}/repos/{repo}/issues/comments/{cid}",
                html_url=f"https://github.com/{repo}/pull/{number}#issuecomment-{cid}",
                issue_url=f"{self.api_url}/repos/{repo}/issues/{number}",
                created_at=_iso(self.now()), updated_at=_iso(self.now()))
            comments.append(comment)
            return 201, {}, comment
        raise _ApiError(404, "Not Found")

    # GitHub's limit on an issue's, a pull request's and a comment's body, in characters.
    BODY_LIMIT = 65536

    def _number(self, repo) -> int:
        """The next number of the repository: issues and pull requests share one sequence."""
        return len(self._pulls.get(repo, [])) + len(self._issues.get(repo, [])) + 1

    def _new_issue(self, repo, data, login, state="open") -> dict:
        number, now = self._number(repo), _iso(self.now())
        issue = schema_instance(
            "issue", number=number, id=next(self.ids), node_id=f"I_{number}", title=data["title"],
            body=data.get("body"), state=state, state_reason=None if state == "open" else "completed",
            user=_user(login, 7 if login == self.identity else 8), locked=False, comments=0,
            url=f"{self.api_url}/repos/{repo}/issues/{number}",
            html_url=f"https://github.com/{repo}/issues/{number}",
            repository_url=f"{self.api_url}/repos/{repo}", created_at=now, updated_at=now,
            closed_at=None if state == "open" else now)
        issue["labels"] = self._labels(repo, data.get("labels") or [])
        self._issues.setdefault(repo, []).append(issue)
        return issue

    def _labels(self, repo, names) -> list[dict]:
        return [{"id": 1 + sum(map(ord, str(n))), "node_id": f"LA_{n}", "name": str(n), "color": "ededed",
                 "url": f"{self.api_url}/repos/{repo}/labels/{quote(str(n))}", "default": False,
                 "description": None} for n in dict.fromkeys(names)]

    def _issue_of_pull(self, repo, pull) -> dict:
        """A pull request as the issues list shows it: an issue with a ``pull_request`` key."""
        return schema_instance(
            "issue", number=pull["number"], id=pull["id"], title=pull["title"], body=pull.get("body"),
            state=pull["state"], user=_user(self.identity), url=f"{self.api_url}/repos/{repo}/issues/{pull['number']}",
            html_url=pull["html_url"], repository_url=f"{self.api_url}/repos/{repo}",
            created_at=pull["created_at"], updated_at=pull["updated_at"],
            pull_request={"url": pull["url"], "html_url": pull["html_url"], "diff_url": pull["html_url"] + ".diff",
                          "patch_url": pull["html_url"] + ".patch", "merged_at": pull.get("merged_at")})

    def _check_body(self, data, resource="Issue") -> None:
        """A title, when given, that is not empty, and a body within the limit (issues, pull
        requests and comments share GitHub's limit)."""
        if "title" in data and not str(data["title"] or "").strip():
            raise _ApiError(422, "Validation Failed", [{"resource": resource, "code": "missing_field",
                                                        "field": "title"}])
        if len(str(data.get("body") or "")) > self.BODY_LIMIT:
            raise _ApiError(422, "Validation Failed", [{"resource": resource, "code": "custom", "field": "body",
                            "message": f"body is too long (maximum is {self.BODY_LIMIT} characters)"}])

    def _issue_route(self, repo, rest, method, data, q, path):
        issues = self._issues.setdefault(repo, [])
        if rest == "/issues":
            if method == "POST":
                if "title" not in data:
                    data = {**data, "title": ""}
                self._check_body(data)
                return 201, {}, self._new_issue(repo, data, self.identity)
            if method != "GET":
                raise _ApiError(404, "Not Found")
            state = q.get("state", "open")
            every = issues + [self._issue_of_pull(repo, self._refresh(p)) for p in self._pulls.get(repo, [])]
            chosen = [i for i in every if state == "all" or i["state"] == state]
            if q.get("labels"):
                wanted = {n.strip() for n in q["labels"].split(",") if n.strip()}
                chosen = [i for i in chosen if wanted <= {lbl["name"] for lbl in i["labels"]}]
            if "creator" in q:
                chosen = [i for i in chosen if (i["user"] or {}).get("login") == q["creator"]]
            ascending = q.get("direction", "desc") == "asc"
            key = q.get("sort", "created")
            chosen.sort(key=lambda i: (i["updated_at" if key == "updated" else "created_at"], i["number"]),
                        reverse=not ascending)
            return self._paginate(chosen, q, path, dict)
        number = int(rest.rsplit("/", 1)[1])
        issue = next((i for i in issues if i["number"] == number), None)
        if issue is None:
            pull = next((p for p in self._pulls.get(repo, []) if p["number"] == number), None)
            if pull is not None and method == "GET":
                return 200, {}, self._issue_of_pull(repo, self._refresh(pull))
            raise _ApiError(404, "Not Found")
        if method == "GET":
            return 200, {}, issue
        if method != "PATCH":
            raise _ApiError(404, "Not Found")
        self._check_body(data)
        now = _iso(self.now())
        for key in ("title", "body"):
            if key in data:
                issue[key] = data[key]
        if "labels" in data:
            issue["labels"] = self._labels(repo, data["labels"] or [])
        if data.get("state") in ("open", "closed") and data["state"] != issue["state"]:
            issue["state"] = data["state"]
            issue["closed_at"] = now if data["state"] == "closed" else None
            issue["state_reason"] = ("reopened" if data["state"] == "open" else
                                     data.get("state_reason") or "completed")
        issue["updated_at"] = now
        return 200, {}, issue

    def _create_pull(self, repo, data):
        self._check_body(data, "PullRequest")
        owner = repo.split("/")[0]
        head = data["head"] if ":" in data["head"] else f"{owner}:{data['head']}"
        for p in self._pulls.get(repo, []):
            if p["state"] == "open" and p["head"]["label"] == head and p["base"]["ref"] == data["base"]:
                raise _ApiError(422, "Validation Failed", [{"resource": "PullRequest", "code": "custom",
                                "message": f"A pull request already exists for {head}."}])
        head_sha = None
        if self.git_dir is not None and head.split(":")[0] == owner:
            head_sha = self._ref(head.split(":", 1)[1])
            if head_sha is None:
                raise _ApiError(422, "Validation Failed", [{"resource": "PullRequest", "field": "head",
                                                            "code": "invalid"}])
        number = self._number(repo)
        pulls = self._pulls.setdefault(repo, [])
        pull = schema_instance(
            "pull-request", number=number, id=next(self.ids), state="open", title=data["title"],
            body=data.get("body"), draft=bool(data.get("draft", False)),
            url=f"{self.api_url}/repos/{repo}/pulls/{number}",
            html_url=f"https://github.com/{repo}/pull/{number}",
            head={"label": head, "ref": head.split(":", 1)[1], **({"sha": head_sha} if head_sha else {})},
            base={"ref": data["base"]},
            created_at=_iso(self.now()), updated_at=_iso(self.now()))
        pulls.append(pull)
        return 201, {}, pull

    # ------------------------------------------------------------ request pipeline

    def validate(self, kind, method, path, query, headers, body) -> str | None:
        """None when the request conforms to GitHub's description and our header contract."""
        if kind == "storage":
            return None
        accept = headers.get("accept", "")
        if accept not in ("application/vnd.github+json", "application/octet-stream"):
            return f"Accept is {accept!r}, expected application/vnd.github+json"
        if headers.get("x-github-api-version") != "2022-11-28":
            return "X-GitHub-Api-Version header missing or not 2022-11-28"
        if kind == "uploads" and "content-length" not in headers:
            return "upload without Content-Length"
        return openapi_memo.request_problem(
            self.openapi, kind, method, path, query, headers, body,
            lambda: _request_problem(self.openapi, kind, method, path, query, headers, body))

    def validate_response(self, kind, method, path, query, headers, body, status, payload) -> None:
        """Record a violation when a successful answer of ours is not what GitHub documents."""
        if kind == "storage" or status >= 300 or isinstance(payload, (bytes, bytearray)):
            return
        # GitHub answers state "starter" for an interrupted upload (what gh and goreleaser
        # report), while its description lists only "uploaded" and "open": check it as "open".
        text = json.dumps(payload).replace('"state": "starter"', '"state": "open"')
        # A running check run has conclusion null, which the description marks nullable but
        # lists in an enum without null (OpenAPI 3.0.3 needs null in the enum): check it as set.
        text = text.replace('"conclusion": null', '"conclusion": "neutral"')
        # An open issue never closed has state_reason null: the same nullable enum without null.
        text = text.replace('"state_reason": null', '"state_reason": "reopened"')
        # Each stand-in listens on ports of its own, which are in its URLs: checked as one port, the
        # same answer of two stand-ins is one answer to check (tests/support/openapi_memo.py).
        text = _LOCAL_PORT.sub("127.0.0.1:8080", text)
        problem = openapi_memo.answer_problem(
            self.openapi, kind, method, path, query, status, text,
            lambda: _answer_problem(self.openapi, kind, method, path, query, headers, body, status, text))
        if problem:
            self.violations.append(problem)

    def match_fault(self, method, path) -> _Fault | None:
        chosen = None
        with self.lock:
            for fault in self.faults:  # every fault counts every matching request
                if fault.method == method and fault.path.search(path):
                    fault.seen += 1
                    if chosen is None and fault.nth <= fault.seen < fault.nth + fault.times:
                        fault.fired += 1
                        fault.hit.set()
                        chosen = fault
        return chosen


_LOCAL_PORT = re.compile(r"127\.0\.0\.1:\d+")


def _request_problem(openapi, kind, method, path, query, headers, body) -> str | None:
    """openapi-core's verdict on a request: None when it conforms."""
    try:
        openapi.validate_request(_spec_request(kind, method, path, query, headers, body))
    except Exception as exc:  # every validation failure is a violation
        detail = "; ".join(str(e) for e in getattr(exc, "schema_errors", ()) or ())
        return f"{type(exc).__name__}: {exc} {detail}".strip()
    return None


def _answer_problem(openapi, kind, method, path, query, headers, body, status, text) -> str | None:
    """openapi-core's verdict on an answer of ours (``text``, JSON): None when it conforms."""
    request = _spec_request(kind, method, path, query, headers, body)
    response = _OpenAPIResponse(status, {}, text.encode(), "application/json")
    try:
        openapi.validate_response(request, response)
    except Exception as exc:
        detail = "; ".join(str(e)[:300] for e in getattr(exc, "schema_errors", ()) or ())
        return (f"stand-in answer to {method} {path} ({status}) does not match "
                f"GitHub's description: {type(exc).__name__}: {detail or exc}")
    return None


def _handler(fake: FakeGitHub, kind: str):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True  # headers and body in one go: no 40 ms delayed-ACK stalls
        wbufsize = 1 << 16

        def log_message(self, *args):  # quiet
            pass

        def _handle(self):
            self.rate_headers: dict[str, str] = {}
            url = urlsplit(self.path)
            query = parse_qsl(url.query, keep_blank_values=True)
            headers = {k.lower(): v for k, v in self.headers.items()}
            length = int(headers.get("content-length", 0) or 0)
            body = self.rfile.read(length) if length else b""
            method = self.command
            fake.log.append((kind, method, url.path, query, headers))
            if kind == "storage":
                if "authorization" in headers:
                    fake.violations.append(f"Authorization sent to the storage host: {method} {url.path}")
                    return self._send(400, {}, {"message": "Only one auth mechanism allowed"})
            else:
                if headers.get("authorization") not in (f"Bearer {fake.token}", f"token {fake.token}") \
                        and not fake.reads_only(headers):
                    return self._send(401, {}, {"message": "Bad credentials"})
                if fake.reads_only(headers) and method not in ("GET", "HEAD"):
                    return self._send(403, {}, {"message": "Resource not accessible by integration"})
                problem = fake.validate(kind, method, url.path, query, headers, body)
                if problem:
                    fake.violations.append(f"{method} {url.path}: {problem}")
                    return self._send(400, {}, {"message": f"request does not conform: {problem}"})
                allowed, self.rate_headers = fake.spend_rate()
                if not allowed:
                    return self._send(403, self.rate_headers, {
                        "message": "API rate limit exceeded for user ID 1.",
                        "documentation_url": "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api"})
            fault = fake.match_fault(method, url.path)
            if fault and fault.when == "before":
                return self._send(fault.status, fault.headers, {"message": fault.message})
            try:
                with fake.lock:
                    if fault and fault.when == "starter":
                        m = re.fullmatch(r"/repos/([^/]+/[^/]+)/releases/(\d+)/assets", url.path)
                        fake._upload(m.group(1), int(m.group(2)), dict(query), body, starter=True)
                        return self._send(fault.status, fault.headers, {"message": fault.message})
                    status, extra, payload = fake.route(kind, method, url.path, query, headers, body)
                fake.validate_response(kind, method, url.path, query, headers, body, status, payload)
            except _ApiError as err:
                status, extra = err.status, err.headers
                payload = {"message": err.message, "documentation_url": "https://docs.github.com/rest"}
                if err.errors:
                    payload["errors"] = err.errors
            if fault and fault.when == "drop":
                self.close_connection = True
                return None
            if fault and fault.when == "after":
                return self._send(fault.status, fault.headers, {"message": fault.message})
            if fault and fault.when == "headers" and status < 400:
                extra = {**extra, **fault.headers}
            if fault and fault.when == "malformed" and status < 400:
                body = fault.body
                if callable(body):  # the answer GitHub would give, changed by the test (a copy)
                    body = body(copy.deepcopy(payload))
                    body = body if isinstance(body, (bytes, bytearray)) else json.dumps(body).encode()
                return self._send(status, {**extra, **fault.headers, "Content-Type": "application/json"},
                                  body)
            return self._send(status, extra, payload)

        def _send(self, status, extra, payload):
            if isinstance(payload, (bytes, bytearray)):
                data = bytes(payload)
                ctype = extra.get("Content-Type", "application/json; charset=utf-8")
            else:
                data = json.dumps(payload).encode()
                ctype = "application/json; charset=utf-8"
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(data)))
            if kind != "storage" and not any(k.lower().startswith("x-ratelimit") for k in extra):
                for key, value in getattr(self, "rate_headers", {}).items():
                    self.send_header(key, value)
            for key, value in extra.items():
                if key != "Content-Type":
                    self.send_header(key, value)
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(data)

        do_GET = do_POST = do_PATCH = do_DELETE = do_PUT = do_HEAD = _handle

    return Handler


def _ranged(header, status, headers, body):
    """The storage host honours one ``Range: bytes=A-B`` (206 with Content-Range), as the real one does."""
    m = re.fullmatch(r"bytes=(\d+)-(\d*)", (header or "").strip())
    if not m or status != 200:
        return status, headers, body
    start = int(m.group(1))
    end = min(int(m.group(2)) if m.group(2) else len(body) - 1, len(body) - 1)
    if start > end:
        raise _ApiError(416, "Range Not Satisfiable")
    return 206, {**headers, "Content-Range": f"bytes {start}-{end}/{len(body)}"}, body[start:end + 1]


@pytest.fixture(scope="session")
def github_openapi():
    return load_openapi(find_openapi_description())


@pytest.fixture
def fake_github(github_openapi):
    fake = FakeGitHub(github_openapi).start()
    yield fake
    fake.stop()
    assert not fake.violations, "requests that do not conform to GitHub's API:\n" + "\n".join(fake.violations)


@pytest.fixture
def github_env(fake_github, monkeypatch):
    monkeypatch.setenv("GITHUB_API_URL", fake_github.api_url)
    monkeypatch.setenv("GITHUB_TOKEN", fake_github.token)
    monkeypatch.setenv("GITHUB_REPOSITORY", fake_github.repo)
    monkeypatch.setenv("RELEASE_GITHUB_WRITE_INTERVAL", "0")
    return fake_github


class FakeClock:
    """``sleep``/``clock`` for ``GitHubClient``: sleeping advances time instantly and is recorded.

    It starts at a fixed instant (``START``), never the wall clock, so what a test computes from
    it is exact."""

    START = 1_795_348_800.0  # 2026-11-22 12:00:00 UTC

    def __init__(self, start: float | None = None):
        self.now = self.START if start is None else start
        self.sleeps: list[float] = []

    def time(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


@pytest.fixture
def fake_clock():
    return FakeClock()


@pytest.fixture
def github_client(fake_github, fake_clock):
    """A ``GitHubClient`` on the fake whose waits are instant (see ``fake_clock.sleeps``)."""
    from release.sources.github import GitHubClient
    return GitHubClient(fake_github.token, fake_github.api_url, sleep=fake_clock.sleep,
                        clock=fake_clock.time, write_interval=1.0)
