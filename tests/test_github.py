"""The GitHub client against the local stand-in: headers, pagination, retries, rate limits,
uploads, downloads, redaction. Every request is checked against GitHub's OpenAPI description."""

from __future__ import annotations

import hashlib
import json

import pytest
import requests
from rich.console import Console
from rich.progress import Progress

from release.core.errors import UserError
from release.sources.github import GitHubClient, GitHubError, UncertainWrite

REL = "/repos/rocm/jax-rocm-release/releases"


def create(client, tag="rocm-jax-v0.9.1", draft=True):
    return client.request("POST", REL, json={"tag_name": tag, "name": tag, "draft": draft})


def test_headers_auth_and_conformance(github_client, fake_github):
    rel = create(github_client)
    assert rel["draft"] is True and rel["tag_name"] == "rocm-jax-v0.9.1"
    kind, method, path, _, headers = fake_github.log[-1]
    assert (kind, method, path) == ("api", "POST", REL)
    assert headers["accept"] == "application/vnd.github+json"
    assert headers["x-github-api-version"] == "2022-11-28"
    assert headers["authorization"] == f"Bearer {fake_github.token}"


def test_a_nonconforming_request_is_caught(github_client, fake_github):
    with pytest.raises(GitHubError) as err:
        github_client.request("POST", REL, json={"tag_name": 5})
    assert err.value.status == 400 and "conform" in str(err.value)
    assert fake_github.violations and "5 is not of type 'string'" in fake_github.violations[0]
    fake_github.violations.clear()  # proven; do not fail this test at teardown


def test_drafts_are_invisible_by_tag_but_listed(github_client, fake_github):
    create(github_client)
    create(github_client)  # GitHub allows a second draft of one tag
    with pytest.raises(GitHubError) as err:
        github_client.request("GET", f"{REL}/tags/rocm-jax-v0.9.1")
    assert err.value.status == 404
    listed = [r for r in github_client.paginate(REL) if r["tag_name"] == "rocm-jax-v0.9.1"]
    assert len(listed) == 2 and all(r["draft"] for r in listed)


def test_pagination_follows_link_and_honours_per_page(github_client, fake_github):
    for i in range(205):
        fake_github.seed_release(f"rocm-jax-v0.1.{i}")
    items = list(github_client.paginate(REL))
    assert len(items) == 205 and len({r["id"] for r in items}) == 205
    gets = [entry for entry in fake_github.log if entry[1] == "GET"]
    assert len(gets) == 3
    small = list(github_client.paginate(REL, {"per_page": 50}))
    assert len(small) == 205
    assert len([e for e in fake_github.log if e[1] == "GET"]) == 3 + 5


def test_get_retries_5xx_and_dropped_connections_with_backoff(github_client, fake_github, fake_clock):
    fake_github.fail("GET", r"/releases$", 502, times=2)
    fake_github.fail("GET", r"/releases$", None, nth=3, when="drop")
    assert list(github_client.paginate(REL)) == []
    assert fake_clock.sleeps == [1.0, 2.0, 4.0]


def test_get_gives_up_after_retries(github_client, fake_github):
    fake_github.fail("GET", r"/releases$", 503, times=50)
    with pytest.raises(GitHubError) as err:
        list(github_client.paginate(REL))
    assert err.value.status == 503 and "gave up" in str(err.value)


def test_post_5xx_after_success_is_uncertain_not_retried(github_client, fake_github):
    fake_github.fail("POST", r"/releases$", 502, when="after")
    with pytest.raises(UncertainWrite):
        create(github_client)
    assert len(fake_github.releases()) == 1  # applied once, never blindly repeated
    fake_github.fail("POST", r"/releases$", None, when="drop")
    with pytest.raises(UncertainWrite):
        create(github_client, tag="rocm-jax-v0.9.2")
    assert len(fake_github.releases()) == 2


def test_delete_retried_after_5xx_that_applied(github_client, fake_github):
    rel = create(github_client)
    fake_github.fail("DELETE", rf"/releases/{rel['id']}$", 502, when="after")
    assert github_client.request("DELETE", f"{REL}/{rel['id']}") is None
    assert fake_github.releases() == []


def test_primary_rate_limit_waits_for_reset(github_client, fake_github, fake_clock):
    fake_github.rate_limit("POST", r"/releases$", kind="primary", reset_at=fake_clock.now + 30)
    create(github_client)
    assert len(fake_github.releases()) == 1
    assert fake_clock.sleeps == [31.0]  # until the reset, plus a second of margin


def test_primary_rate_limit_beyond_deadline_is_an_error(github_client, fake_github, fake_clock):
    github_client.deadline = 10
    fake_github.rate_limit("GET", r"/releases$", kind="primary", reset_at=fake_clock.now + 3600)
    with pytest.raises(GitHubError) as err:
        list(github_client.paginate(REL))
    assert "deadline" in str(err.value) and fake_clock.sleeps == []


def test_a_success_with_no_requests_left_makes_the_next_one_wait_for_the_reset(
        github_client, fake_github, fake_clock):
    """GitHub says ``x-ratelimit-remaining: 0`` on a 200: the next request waits for the reset
    before it is sent, instead of being sent, rejected and retried."""
    reset = fake_clock.now + 120
    fake_github.fail("GET", r"/releases$", when="headers", headers={
        "x-ratelimit-limit": "5000", "x-ratelimit-remaining": "0", "x-ratelimit-used": "5000",
        "x-ratelimit-reset": str(int(reset))})
    sent_when_waiting = []
    real_sleep = github_client.sleep

    def sleep(seconds):
        sent_when_waiting.append(len(fake_github.log))
        real_sleep(seconds)

    github_client.sleep = sleep
    assert github_client.request("GET", REL) == []
    assert fake_clock.sleeps == []  # nothing to wait for yet
    sent = len(fake_github.log)
    create(github_client)
    assert fake_clock.sleeps == [121.0]
    assert sent_when_waiting == [sent]  # it waited before sending the next request
    assert all(entry[1:3] != ("POST", REL) for entry in fake_github.log[:sent])
    assert len(fake_github.releases()) == 1


def test_a_success_with_requests_left_never_waits(github_client, fake_github, fake_clock):
    fake_github.fail("GET", r"/releases$", when="headers", headers={
        "x-ratelimit-remaining": "1", "x-ratelimit-reset": str(int(fake_clock.now + 120))})
    github_client.request("GET", REL)
    github_client.request("GET", REL)
    assert fake_clock.sleeps == []


@pytest.mark.parametrize("status, retry_after, expected", [(403, 7, 7.0), (429, None, 60.0),
                                                           (403, None, 60.0)])
def test_secondary_rate_limit(github_client, fake_github, fake_clock, status, retry_after, expected):
    fake_github.rate_limit("POST", r"/releases$", kind="secondary", status=status,
                           retry_after=retry_after)
    create(github_client)
    assert fake_clock.sleeps[0] == expected
    assert len(fake_github.releases()) == 1  # the rejected POST was not applied; one retry made it


def test_writes_are_spaced(github_client, fake_github, fake_clock):
    create(github_client, "rocm-jax-v1.0.0")
    create(github_client, "rocm-jax-v1.0.1")
    assert fake_clock.sleeps == [1.0]


@pytest.mark.parametrize("env, spacing", [({}, [1.0]), ({"RELEASE_GITHUB_WRITE_INTERVAL": "2.5"}, [2.5]),
                                          ({"RELEASE_GITHUB_WRITE_INTERVAL": "0"}, [])])
def test_the_write_interval_comes_from_the_environment(fake_github, fake_clock, env, spacing):
    """``$RELEASE_GITHUB_WRITE_INTERVAL`` (README's environment table) sets the spacing of
    writes; unset, it is GitHub's one second."""
    client = GitHubClient.from_env({"GITHUB_TOKEN": fake_github.token, "GITHUB_API_URL": fake_github.api_url,
                                    **env}, sleep=fake_clock.sleep, clock=fake_clock.time)
    create(client, "rocm-jax-v1.0.0")
    create(client, "rocm-jax-v1.0.1")
    assert fake_clock.sleeps == spacing


def test_upload_streams_with_length_and_download_skips_auth(github_client, fake_github, tmp_path):
    rel = create(github_client)
    payload = tmp_path / "a.whl"
    payload.write_bytes(bytes(range(256)) * 5000)
    progress = Progress(console=Console(file=open(tmp_path / "bar", "w"), force_terminal=True))
    with progress:
        asset = github_client.upload(rel["upload_url"], payload, "a.whl", progress=progress)
    assert asset["size"] == payload.stat().st_size
    assert asset["digest"] == "sha256:" + hashlib.sha256(payload.read_bytes()).hexdigest()
    kind, method, path, query, headers = fake_github.log[-1]
    assert kind == "uploads" and dict(query) == {"name": "a.whl"}
    assert headers["content-type"] == "application/octet-stream"
    assert headers["content-length"] == str(payload.stat().st_size)
    assert "transfer-encoding" not in headers
    dest = github_client.download(asset["url"], tmp_path / "back.whl")
    assert dest.read_bytes() == payload.read_bytes()
    storage = [e for e in fake_github.log if e[0] == "storage"]
    assert storage and "authorization" not in storage[0][4]


def test_errors_carry_status_message_and_no_token(github_client, fake_github, tmp_path):
    rel = create(github_client)
    up = rel["upload_url"]
    one = tmp_path / "one"
    one.write_bytes(b"x")
    github_client.upload(up, one, "same")
    with pytest.raises(GitHubError) as err:
        github_client.upload(up, one, "same")
    assert err.value.status == 422 and err.value.has_code("already_exists")
    assert "422" in str(err.value) and "already_exists" in str(err.value)
    bad = GitHubClient("wrong-token-" + fake_github.token, fake_github.api_url, write_interval=0)
    with pytest.raises(GitHubError) as err:
        bad.request("GET", REL)
    assert err.value.status == 401 and fake_github.token not in str(err.value)
    assert "wrong-token" not in str(err.value)


def test_missing_token_is_a_user_error(fake_github):
    with pytest.raises(UserError) as err:
        GitHubClient.from_env({"GITHUB_API_URL": fake_github.api_url})
    assert "GITHUB_TOKEN" in str(err.value)


def test_pull_request_helpers(github_client, fake_github):
    owner, repo = fake_github.repo.split("/")
    assert github_client.list_pulls(owner, repo, head="bump-xla") == []
    pr = github_client.create_pull(owner, repo, title="Bump xla", head="bump-xla", base="main",
                                   body="old..new")
    found = github_client.list_pulls(owner, repo, head="bump-xla")
    assert [p["number"] for p in found] == [pr["number"]]
    with pytest.raises(GitHubError) as err:
        github_client.create_pull(owner, repo, title="again", head="bump-xla", base="main")
    assert err.value.status == 422
    github_client.update_pull(owner, repo, pr["number"], title="Bump xla (2)", state="closed")
    assert github_client.list_pulls(owner, repo, head="bump-xla") == []
    assert github_client.list_pulls(owner, repo, head="bump-xla", state="closed")[0]["title"] == "Bump xla (2)"


def test_interrupted_download_starts_over_with_a_fresh_signed_url(github_client, fake_github, tmp_path):
    rel = create(github_client)
    payload = tmp_path / "a.whl"
    payload.write_bytes(b"z" * 100_000)
    asset = github_client.upload(rel["upload_url"], payload, "a.whl")
    fake_github.fail("GET", r"^/signed/", None, when="drop")
    fake_github.fail("GET", r"^/signed/", 503, nth=2)
    assert github_client.download(asset["url"], tmp_path / "b").read_bytes() == payload.read_bytes()
    redirects = [e for e in fake_github.log if e[0] == "api" and e[2].endswith(f"/assets/{asset['id']}")]
    assert len(redirects) == 3  # each retry asked the API for a new signed URL
    assert not (tmp_path / "b.part").exists()


# ---------------------------------------------------------------- who is at fault, hostile answers

def test_refusals_are_the_callers_fault_and_failures_the_remotes(github_client, fake_github):
    from release.core.errors import RemoteError
    from release.sources.github import GitHubRefused, GitHubUnavailable
    with pytest.raises(GitHubRefused) as err:
        github_client.request("GET", f"{REL}/tags/nope")
    assert err.value.status == 404 and err.value.exit_code == 2 and isinstance(err.value, UserError)
    fake_github.fail("GET", r"/releases$", 503, times=50)
    with pytest.raises(GitHubUnavailable) as err:
        list(github_client.paginate(REL))
    assert err.value.exit_code == 3 and isinstance(err.value, RemoteError)
    assert not isinstance(err.value, UserError)


def _store(client):
    from release.publish.stores import GitHubStore
    return GitHubStore(client, *REL.split("/")[2:4])


@pytest.mark.parametrize("method, path, body, call", [
    ("GET", r"/releases$", b'[{"id": 1, "tag_', lambda c, _: list(c.paginate(REL))),
    ("GET", r"/releases$", b'{"message": "not a list"}', lambda c, _: list(c.paginate(REL))),
    ("GET", r"/releases$", b"<html>proxy error</html>", lambda c, _: list(c.paginate(REL))),
    ("POST", r"/releases$", b'{"id": 1, "tag_na', lambda c, _: create(c)),
    ("POST", r"/releases$", b"[]", lambda c, _: _store(c).create_draft(
        "rocm-jax-v0.9.1", name="x", body="", prerelease=False)),
    ("POST", r"/assets$", b'{"id": 12, "na', lambda c, f: c.upload(create(c)["upload_url"], f, "a.whl")),
    ("POST", r"/assets$", b"null", lambda c, f: c.upload(create(c)["upload_url"], f, "a.whl")),
])
def test_a_2xx_answer_that_is_not_the_documented_json_is_a_remote_error(
        github_client, fake_github, tmp_path, method, path, body, call):
    from release.sources.github import MalformedAnswer
    payload = tmp_path / "a.whl"
    payload.write_bytes(b"x" * 1000)
    fault = fake_github.fail(method, path, when="malformed", body=body)
    with pytest.raises(MalformedAnswer) as err:
        call(github_client, payload)
    assert fault.fired == 1 and err.value.exit_code == 3
    assert "malformed answer" in str(err.value) and fake_github.token not in str(err.value)


def test_store_reads_members_only_through_checked_fields(fake_github, github_client):
    from release.publish.stores import GitHubStore
    from release.sources.github import MalformedAnswer
    owner, repo = fake_github.repo.split("/")
    store = GitHubStore(github_client, owner, repo)
    fake_github.seed_release("rocm-jax-v0.9.1")
    for body, fragment in ((b'[{"id": "7", "tag_name": "x", "draft": false, "prerelease": false}]', "'id'"),
                           (b'[{"id": 7, "draft": false, "prerelease": false}]', "'tag_name'"),
                           (b'[{"id": 7, "tag_name": "x", "draft": false, "prerelease": false, '
                            b'"created_at": "yesterday"}]', "created_at"),
                           (b'["rocm-jax-v0.9.1"]', "expected an object")):
        fake_github.fail("GET", r"/releases$", when="malformed", body=body)
        with pytest.raises(MalformedAnswer, match=fragment):
            store.list_releases()
    assert [r.tag for r in store.list_releases()] == ["rocm-jax-v0.9.1"]


def test_a_link_to_another_host_never_gets_the_token(github_client, fake_github):
    from release.sources.github import MalformedAnswer
    fake_github.seed_release("rocm-jax-v0.1.0")
    fake_github.fail("GET", r"/releases$", when="malformed", body=b"[]",
                     headers={"Link": '<http://198.51.100.7/steal?page=2>; rel="next"'})
    with pytest.raises(MalformedAnswer, match="not the API's host"):
        list(github_client.paginate(REL))


def test_repeated_secondary_limits_back_off_exponentially_then_give_up(github_client, fake_github,
                                                                        fake_clock):
    from release.sources.github import GitHubUnavailable
    fault = fake_github.rate_limit("POST", r"/releases$", kind="secondary", retry_after=1, times=100)
    with pytest.raises(GitHubUnavailable, match="rate limited 7 times in a row") as err:
        create(github_client)
    assert fake_clock.sleeps == [1.0, 2.0, 4.0, 8.0, 16.0, 32.0]
    assert fault.fired == 7 and err.value.exit_code == 3
    assert fake_github.releases() == []


def test_secondary_limit_without_retry_after_waits_a_minute_then_longer(github_client, fake_github,
                                                                         fake_clock):
    fake_github.rate_limit("GET", r"/releases$", kind="secondary", status=429, times=3)
    assert list(github_client.paginate(REL)) == []
    assert fake_clock.sleeps == [60.0, 120.0, 240.0]


@pytest.mark.parametrize("suffix", ["\n", "\r\n"])
def test_a_token_with_one_trailing_newline_works(fake_github, suffix):
    client = GitHubClient(fake_github.token + suffix, fake_github.api_url, write_interval=0)
    assert client.request("GET", REL, expect=list) == []
    assert fake_github.log[-1][4]["authorization"] == f"Bearer {fake_github.token}"


@pytest.mark.parametrize("bad, what", [(" {t}", "a space at position 1"), ("{t} ", "a space"),
                                       ("{t}\n\n", "a line break"), ("{t}\tx", "a tab"),
                                       ("{t}\x00", "a control character"), ("{t}é", "non-ASCII")])
def test_a_token_that_cannot_be_a_header_is_one_clear_error_before_any_request(fake_github, bad, what):
    token = bad.format(t=fake_github.token)
    with pytest.raises(UserError) as err:
        GitHubClient.from_env({"GITHUB_TOKEN": token, "GITHUB_API_URL": fake_github.api_url})
    assert what in str(err.value) and "GITHUB_TOKEN" in str(err.value)
    assert fake_github.token not in str(err.value) and fake_github.log == []


@pytest.mark.parametrize("env, fragment", [
    ({"GITHUB_API_URL": "api.github.com"}, "expected https://HOST"),
    ({"GITHUB_API_URL": "https://user:pw-secret-1@ghe.example/api/v3"}, "no credentials"),
    ({"RELEASE_GITHUB_WRITE_INTERVAL": "nan"}, "RELEASE_GITHUB_WRITE_INTERVAL"),
    ({"RELEASE_GITHUB_WRITE_INTERVAL": "-1"}, "RELEASE_GITHUB_WRITE_INTERVAL"),
])
def test_bad_environment_is_one_user_error(env, fragment):
    with pytest.raises(UserError, match=fragment) as err:
        GitHubClient.from_env({"GITHUB_TOKEN": "t0ken-value", **env})
    assert "pw-secret-1" not in str(err.value)


@pytest.mark.parametrize("method, path", [("GET", r"/releases$"), ("POST", r"/releases$"),
                                          ("POST", r"/assets$")])
def test_publish_through_a_hostile_answer_is_exit_3_and_a_rerun_converges(run_cli, github_env,
                                                                          make_dist, method, path):
    """A 200 with a broken body on a list, a create or an upload: one line, exit 3,
    no traceback; the write it answered was applied, and the re-run finishes without duplicates."""
    dist = make_dist("0.9.1.dev20261122")
    fault = github_env.fail(method, path, when="malformed", body=b'{"id": 4, "na')
    code, out, err = run_cli("publish", dist, "--json")
    assert fault.fired == 1, "the hostile answer was never sent"
    assert code == 3 and "Traceback" not in err, err
    assert err.strip().splitlines()[-1].startswith("release publish: error: GitHub API ")
    assert "malformed answer" in err and json.loads(out)["exit"] == 3
    code, out, err = run_cli("publish", dist, "--json")
    assert code == 0, err
    [rel] = github_env.releases()
    names = [a["name"] for a in rel["assets"]]
    assert len(names) == len(set(names)) and all(a["state"] == "uploaded" for a in rel["assets"])


def test_what_is_sent_to_github_is_redacted(github_client, fake_github):
    from release.core.redact import register_secret
    owner, repo = fake_github.repo.split("/")
    register_secret("pr-b0dy-s3cret-value")
    pr = github_client.create_pull(owner, repo, title="Bump pr-b0dy-s3cret-value", head="b", base="main",
                                   body=f"from https://x:pr-b0dy-s3cret-value@h/r and {fake_github.token}")
    sent = fake_github.pulls()[0]
    assert "s3cret" not in sent["title"] + sent["body"] and fake_github.token not in sent["body"]
    assert sent["body"] == "from https://***@h/r and ***" and pr["number"] == sent["number"]


def test_the_stand_in_spends_the_rate_limit_as_github_does(github_client, fake_github, fake_clock):
    """Each API request uses one of the hour's requests; the count goes down, never stays."""
    fake_github.epoch = fake_clock.time
    seen = []
    for _ in range(3):
        response = requests.get(f"{fake_github.api_url}{REL}", timeout=10, headers={
            "Authorization": f"Bearer {fake_github.token}", "Accept": "application/vnd.github+json",
            "X-GitHub-Api-Version": "2022-11-28"})
        seen.append(int(response.headers["x-ratelimit-remaining"]))
    assert seen == [4999, 4998, 4997]


def test_a_job_that_spends_the_hours_budget_waits_for_the_reset_and_goes_on(
        github_client, fake_github, fake_clock):
    """With 3 requests an hour, spent early in a long job: the 4th waits (on the run's clock)
    for the window's reset instead of being sent and refused; a wait past the client's deadline
    is a clear failure instead of a hang. Either way no request is sent only to be refused."""
    fake_github.epoch = fake_clock.time
    fake_github.rate_limit_per_hour = 3
    start = fake_clock.now
    for _ in range(3):
        assert github_client.request("GET", REL) == []
    fake_clock.now += 3300  # the job goes on with other work; the reset is 300 s away
    for _ in range(2):
        assert github_client.request("GET", REL) == []
    assert len(fake_clock.sleeps) == 1 and 300 <= fake_clock.sleeps[0] <= 302
    assert fake_clock.now >= start + 3600
    github_client.request("GET", REL)  # the new window's third: none left
    with pytest.raises(GitHubError, match="rate limit"):  # its reset is an hour away
        github_client.request("GET", REL)
    sent = [e for e in fake_github.log if e[0] != "storage"]
    assert len(sent) == 6  # the request refused in advance was never sent
