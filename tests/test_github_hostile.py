"""A hostile GitHub (or anything answering in its place) never hangs a job and never makes a
traceback: pagination loops and endless lists stop, a dripping answer is cut off at the
deadline, NaN headers and nested JSON are malformed answers (exit 3)."""

from __future__ import annotations

import json
import math
import time

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from release.core.deadline import DeadlineExceeded, wall_clock_limit
from release.sources.github import GitHubClient, GitHubError, GitHubUnavailable, MalformedAnswer
from tests.support.hostile_server import (  # noqa: F401 (fixture)
    HostileServer,
    answer,
    drip,
    endless_pages,
    hostile_servers,
    link_loop,
    nested_json,
)

TOKEN = "ghs_" + "H0stileWorld" * 3


def client(server: HostileServer, **kwargs) -> tuple[GitHubClient, list[float]]:
    slept: list[float] = []
    made = GitHubClient(TOKEN, server.url, sleep=slept.append, write_interval=0, **kwargs)
    return made, slept


@pytest.mark.parametrize("back", ["itself", "first page"])
def test_a_link_loop_stops_at_the_first_page_read_twice(hostile_servers, back):
    server = hostile_servers()
    if back == "itself":
        server.route("/repos/o/r/releases", link_loop(lambda n: [{"id": n}]))
    else:  # page 1 -> page 2 -> page 1 -> ...
        def pages(req):
            second = "page=2" in req.path
            target = "/repos/o/r/releases?per_page=100" if second else "/repos/o/r/releases?page=2&per_page=100"
            req.send(200, json.dumps([{"id": 2 if second else 1}]).encode(),
                     {"Link": f'<http://{req.headers["Host"]}{target}>; rel="next"'})
        server.route("/repos/o/r/releases", pages)
    gh, _ = client(server)
    got = []
    with pytest.raises(MalformedAnswer, match="already read") as caught:
        got.extend(gh.paginate("/repos/o/r/releases"))
    assert len(server.seen) <= 2 and caught.value.exit_code == 3


def test_an_endless_list_stops_at_the_page_cap(hostile_servers):
    server = hostile_servers().route("/repos/o/r/releases", endless_pages())
    gh, _ = client(server)
    gh.max_pages = 7
    with pytest.raises(MalformedAnswer, match="more than 7 pages"):
        list(gh.paginate("/repos/o/r/releases"))
    assert len(server.seen) == 7


@pytest.mark.parametrize("method", ["GET", "POST"])
def test_a_dripping_answer_is_cut_off_at_the_deadline(hostile_servers, method):
    """One byte every 0.1 s keeps every socket read busy: only a wall clock stops it."""
    server = hostile_servers().route("/repos/o/r", drip(b'{"full_name": "o/r", "pad": "' + b"x" * 60 + b'"}', 0.1))
    gh, _ = client(server, deadline=0.4, timeout=5)
    started = time.monotonic()
    with pytest.raises(GitHubUnavailable, match="deadline") as caught:
        gh.request(method, "/repos/o/r")
    assert time.monotonic() - started < 2
    assert caught.value.exit_code == 3


def test_a_dripping_download_is_cut_off_at_the_deadline(hostile_servers, tmp_path):
    storage = hostile_servers("localhost").route("/blob", drip(b"x" * 100, 0.1))
    api = hostile_servers().route("/repos/o/r/releases/assets/1",
                                  answer(b"", 302, {"Location": f"{storage.url}/blob"}))
    gh, _ = client(api, deadline=0.4, timeout=5)
    started = time.monotonic()
    with pytest.raises(GitHubUnavailable, match="deadline"):
        gh.download("/repos/o/r/releases/assets/1", tmp_path / "w.whl")
    assert time.monotonic() - started < 2
    assert not (tmp_path / "w.whl").exists()


def test_limits_nest_and_the_outer_one_still_holds():
    with pytest.raises(DeadlineExceeded) as outer:
        with wall_clock_limit(0.2):
            with wall_clock_limit(5):
                pass
            time.sleep(1)
    assert outer.value.seconds == 0.2


HEADER_VALUES = st.sampled_from(["nan", "NaN", "inf", "-inf", "1e999", "-1", "", " ", "0x10", "1" * 5000,
                                 "\x1b[2J"]) | st.floats().map(str) | st.text(max_size=12)


@given(reset=HEADER_VALUES, retry_after=st.none() | HEADER_VALUES, status=st.sampled_from([200, 403, 429]))
@example(reset="nan", retry_after=None, status=403)
@example(reset="inf", retry_after=None, status=429)
@example(reset="1e999", retry_after="nan", status=403)
def test_any_rate_limit_header_ends_in_an_answer_or_one_error(hostile_servers, reset, retry_after, status):
    """``x-ratelimit-reset: nan`` made ``time.sleep(nan)``: every wait is a finite, non-negative
    number within the deadline, and the request ends in an answer or a GitHubError."""
    headers = {"x-ratelimit-remaining": "0", "x-ratelimit-reset": reset.encode("latin-1", "replace").decode(
        "latin-1").replace("\n", "").replace("\r", "")}
    if retry_after is not None:
        headers["retry-after"] = retry_after.encode("latin-1", "replace").decode("latin-1").replace(
            "\n", "").replace("\r", "")
    body = {"message": "API rate limit exceeded"} if status != 200 else {"ok": True}
    server = hostile_servers().route("/rate", answer(body, status, headers))
    gh, slept = client(server, deadline=900)
    try:
        gh.request("GET", "/rate")
        gh.request("GET", "/rate")  # after a 200 with remaining 0: the reset is waited for, or refused
    except GitHubError as exc:
        assert "\n" not in str(exc)
    assert all(math.isfinite(s) and 0 <= s <= 901 for s in slept)


@pytest.mark.parametrize("body", [nested_json(100_000), b'{"id": ' + b"9" * 5000 + b"}", b"\xff\xfe",
                                  b'{"message": ' + nested_json(5000) + b"}"])
@pytest.mark.parametrize("status", [200, 422, 500])
def test_an_unreadable_answer_is_one_error(hostile_servers, body, status):
    server = hostile_servers().route("/repos/o/r", answer(body, status))
    gh, _ = client(server, retries=1)
    with pytest.raises(GitHubError) as caught:
        gh.request("GET", "/repos/o/r", expect=dict)
    assert "\n" not in str(caught.value)


def test_a_public_index_dripping_its_page_is_cut_off(hostile_servers):
    """The public index is asked with a wall-clock limit too ("not checked", never a hang)."""
    from release.publish.pypi_index import IndexUnavailable, index_files
    page = b'{"meta": {"api-version": "1.0"}, "name": "jax-rocm7-plugin", "files": []}'
    server = hostile_servers().route("/simple/jax-rocm7-plugin/", drip(page, 0.1))
    started = time.monotonic()
    with pytest.raises(IndexUnavailable, match="no complete answer"):
        index_files(server.url + "/simple/", "jax-rocm7-plugin", timeout=0.15)
    assert time.monotonic() - started < 2


def test_githubs_words_in_a_retry_line_reach_the_terminal_without_escapes(hostile_servers):
    import io

    from rich.console import Console
    server = hostile_servers().route("/repos/o/r", answer({"message": "\x1b]0;owned\x07\x1b[2JBusy\u202e"}, 502))
    shown = io.StringIO()
    gh, slept = client(server, retries=1, console=Console(file=shown, force_terminal=False, width=200))
    with pytest.raises(GitHubUnavailable):
        gh.request("GET", "/repos/o/r")
    assert "Busy" in shown.getvalue() and "\x1b" not in shown.getvalue() and "\u202e" not in shown.getvalue()
