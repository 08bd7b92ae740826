"""A host name that does not resolve: one line and exit 3 at once (the resolver says there is no
such name) or after one try more a second later (any other resolver failure), never 30 s of
backoff; a reset connection or a 5xx keeps its retries. The resolver is ``socket.getaddrinfo``
made to fail here (no network); time is the client's fake clock."""

from __future__ import annotations

import socket

import pytest
import requests

from release.core.errors import REMOTE_EXIT
from release.sources.github import GitHubClient, GitHubUnavailable, UncertainWrite

REL = "/repos/rocm/jax-rocm-release/releases"
NO_SUCH_NAME = [getattr(socket, n) for n in ("EAI_NONAME", "EAI_NODATA") if hasattr(socket, n)]
PASSING = [getattr(socket, n) for n in ("EAI_AGAIN", "EAI_FAIL", "EAI_SYSTEM") if hasattr(socket, n)]


class Resolver:
    """``socket.getaddrinfo`` failing with ``errno`` for the first ``times`` lookups of ``hosts``
    (every lookup when None), the real resolver for the rest; counts the failed lookups."""

    def __init__(self, monkeypatch, hosts: set[str], errno: int, times: int | None = None):
        self.real, self.hosts, self.errno, self.left, self.failed = socket.getaddrinfo, hosts, errno, times, 0
        monkeypatch.setattr(socket, "getaddrinfo", self)

    def __call__(self, host, *args, **kwargs):
        if host in self.hosts and (self.left is None or self.left > 0):
            self.failed += 1
            self.left = None if self.left is None else self.left - 1
            raise socket.gaierror(self.errno, "Name or service not known" if self.errno in NO_SUCH_NAME
                                  else "Temporary failure in name resolution")
        return self.real(host, *args, **kwargs)


def client(api_url, fake_clock, token="t0ken", **kwargs):
    return GitHubClient(token, api_url, sleep=fake_clock.sleep, clock=fake_clock.time, write_interval=0,
                        **kwargs)


@pytest.mark.parametrize("method", ["GET", "POST", "DELETE"])
@pytest.mark.parametrize("errno", NO_SUCH_NAME)
def test_a_name_that_does_not_exist_is_one_line_at_once(monkeypatch, fake_clock, method, errno):
    """No wait, one lookup, exit 3; a POST was never sent, so it is not an uncertain write."""
    resolver = Resolver(monkeypatch, {"api.github.invalid"}, errno)
    with pytest.raises(GitHubUnavailable) as err:
        client("https://api.github.invalid", fake_clock).send(method, REL)
    assert type(err.value) is GitHubUnavailable and not isinstance(err.value, UncertainWrite)
    assert err.value.exit_code == REMOTE_EXIT and resolver.failed == 1 and fake_clock.sleeps == []
    line = str(err.value)
    assert "\n" not in line and "api.github.invalid" in line and "does not resolve" in line, line
    assert "Name or service not known" in line and "GITHUB_API_URL" in line and "t0ken" not in line, line


@pytest.mark.parametrize("errno", PASSING)
def test_a_failing_lookup_gets_one_short_try_more(monkeypatch, fake_clock, errno):
    resolver = Resolver(monkeypatch, {"api.github.invalid"}, errno)
    with pytest.raises(GitHubUnavailable) as err:
        client("https://api.github.invalid", fake_clock).send("GET", REL)
    assert resolver.failed == 2 and fake_clock.sleeps == [1.0], fake_clock.sleeps
    assert "does not resolve" in str(err.value) and "2 attempts" in str(err.value)


@pytest.mark.parametrize("method", ["GET", "POST"])
def test_a_lookup_that_fails_once_then_resolves_gets_its_answer(monkeypatch, fake_github, fake_clock, method):
    host = requests.utils.urlparse(fake_github.api_url).hostname
    resolver = Resolver(monkeypatch, {host}, PASSING[0], times=1)
    github = client(fake_github.api_url, fake_clock, fake_github.token)
    answer = github.request(method, REL, **({"json": {"tag_name": "t", "draft": True}} if method == "POST" else {}))
    assert answer is not None and resolver.failed == 1 and fake_clock.sleeps == [1.0]


def test_a_lookup_failing_after_5xx_answers_still_gets_one_try_only(monkeypatch, fake_github, fake_clock):
    """Two 502s are retried with backoff (1 s, 2 s); then the name stops resolving: one short
    wait and one lookup more, not the rest of the backoff."""
    fake_github.fail("GET", r"/releases$", 502, times=2)
    host = requests.utils.urlparse(fake_github.api_url).hostname
    github = client(fake_github.api_url, fake_clock, fake_github.token)
    real_send = github.session.request
    calls = []

    def request(*args, **kwargs):
        calls.append(1)
        if len(calls) == 3:  # the name stops resolving after the two 502s (a new connection asks)
            Resolver(monkeypatch, {host}, PASSING[0])
            github.session.close()
        return real_send(*args, **kwargs)
    monkeypatch.setattr(github.session, "request", request)
    with pytest.raises(GitHubUnavailable, match="does not resolve"):
        github.send("GET", REL)
    assert fake_clock.sleeps == [1.0, 2.0, 1.0] and len(calls) == 4


def test_a_reset_connection_keeps_its_retries(monkeypatch, fake_clock):
    """Not a name failure: the backoff runs to the retries (1, 2, 4, 8, 16 s), then one line."""
    def reset(*_args, **_kwargs):
        raise requests.ConnectionError(ConnectionResetError(104, "Connection reset by peer"))
    github = client("https://api.github.invalid", fake_clock)
    monkeypatch.setattr(github.session, "request", reset)
    with pytest.raises(GitHubUnavailable, match="gave up after 6 attempts"):
        github.send("GET", REL)
    assert fake_clock.sleeps == [1.0, 2.0, 4.0, 8.0, 16.0]


def test_a_storage_host_that_does_not_resolve_is_one_line_at_once(monkeypatch, fake_clock):
    """An asset's bytes off the API (``transfer``): the same rule for the storage host."""
    resolver = Resolver(monkeypatch, {"objects.storage.invalid"}, NO_SUCH_NAME[0])
    github = client("https://api.github.invalid", fake_clock)
    with pytest.raises(GitHubUnavailable) as err:
        github.transfer("asset x.whl", "its bytes", lambda: requests.get("https://objects.storage.invalid/x",
                                                                         timeout=5))
    assert resolver.failed == 1 and fake_clock.sleeps == [] and "objects.storage.invalid" in str(err.value)


def test_a_command_says_the_unresolved_host_in_one_line_and_exits_3(run_cli, project_dir, monkeypatch):
    """What a user of ``release gc`` (or cut, nightly) sees with a mistyped GITHUB_API_URL."""
    Resolver(monkeypatch, {"api.github.invalid"}, NO_SUCH_NAME[0])
    monkeypatch.setenv("GITHUB_TOKEN", "t0ken")
    monkeypatch.setenv("GITHUB_API_URL", "https://api.github.invalid")
    code, out, err = run_cli("gc", "--keep", "3", "--store", "github", "--repo", "o/n", "--root", project_dir)
    assert code == REMOTE_EXIT and len(err.strip().splitlines()) == 1, err
    assert "api.github.invalid" in err and "does not resolve" in err and "retrying" not in err, err


def _raised_from(exc: BaseException, cause: BaseException) -> BaseException:
    try:
        raise exc from cause
    except BaseException as caught:  # noqa: BLE001 - the raised object itself, with its cause set
        return caught


def test_the_resolvers_error_is_found_however_requests_and_urllib3_wrap_it():
    """Through a cause, a context, an argument or only a urllib3 ``reason`` (a MaxRetryError made
    without ``raise ... from``); never in a connection refused, and a cycle of contexts ends."""
    from urllib3.exceptions import MaxRetryError, NameResolutionError

    from release.core.unresolved import lookup_error
    lookup = socket.gaierror(socket.EAI_NONAME, "Name or service not known")
    named = _raised_from(NameResolutionError("api.github.invalid", None, lookup), lookup)
    only_reason = requests.ConnectionError(MaxRetryError(None, "/x", reason=named))
    assert lookup_error(only_reason) is lookup
    assert lookup_error(_raised_from(requests.ConnectionError("x"), named)) is lookup
    refused = requests.ConnectionError(ConnectionRefusedError(111, "Connection refused"))
    a, b = ValueError("a"), ValueError("b")
    a.__context__, b.__context__ = b, a  # a cycle: the walk ends, with nothing found
    assert lookup_error(refused) is None and lookup_error(a) is None and lookup_error("text") is None


def test_the_resolvers_words_are_said_without_its_errno():
    from release.core.unresolved import said
    assert said(socket.gaierror(socket.EAI_NONAME, "Name or service not known")) == "Name or service not known"
    assert said(socket.gaierror("no words of its own")) == "no words of its own"
