"""Every request to an index or to GitHub's OIDC endpoint has a deadline for the whole request,
not for each socket read: an answer that drips in a byte at a time (every read returns
something) is cut off, one line, exit 3. The deadlines are inputs here, so no test waits long
and none asserts on wall-clock time."""

from __future__ import annotations

import socket
import threading
import time

import pytest

from release.core.deadline import DeadlineExceeded, wall_clock_limit
from release.publish.pypi_index import IndexUnavailable, Repository, mint_token, upload
from tests.support.hostile_server import answer, drip, hostile_servers  # noqa: F401 (fixture)

TOKEN = "pypi-" + "S3cretUpl0ad" * 4
OIDC_ENV_TOKEN = "oidc-request-" + "T0ken" * 6


def _wheel(tmp_path, size=2000):
    path = tmp_path / "jax_rocm7_pjrt-0.9.1-py3-none-manylinux_2_28_x86_64.whl"
    path.write_bytes(b"w" * size)
    return path


@pytest.mark.parametrize("status", [200, 500])
def test_an_upload_answer_that_drips_is_cut_off_at_the_answer_deadline(hostile_servers, tmp_path, status):
    """The body is taken at once; the answer then drips for far longer than the deadline."""
    server = hostile_servers().route("/legacy/", drip(b'{"ok": true, "pad": "' + b"x" * 200 + b'"}', 0.05,
                                                      status=status))
    repo = Repository(server.url + "/legacy/", server.url + "/simple/", password=TOKEN)
    with pytest.raises(IndexUnavailable) as caught:
        upload(repo, _wheel(tmp_path), [(":action", "file_upload")], answer_within=0.3, timeout=5)
    text = str(caught.value)
    assert caught.value.exit_code == 3
    assert "within 0.3 s" in text and "re-run, which asks the index first" in text
    assert "\n" not in text and TOKEN not in text
    assert [s.method for s in server.seen] == ["POST"]  # asked once, never re-sent


def test_an_upload_answered_in_time_is_stored(hostile_servers, tmp_path):
    server = hostile_servers().route("/legacy/", answer(b"OK", 200, {"Content-Type": "text/plain"}))
    repo = Repository(server.url + "/legacy/", server.url + "/simple/", password=TOKEN)
    assert upload(repo, _wheel(tmp_path), [(":action", "file_upload")], answer_within=5).outcome == "stored"


class _SlowReader:
    """A raw HTTP server that reads a request's bytes a few at a time and never answers: the
    sending phase of an upload, held open by an index that reads slowly."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(1)
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        try:
            conn, _ = self.sock.accept()
        except OSError:
            return
        conn.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        with conn:
            while not self.stop.is_set():
                try:
                    if not conn.recv(64):
                        return
                except OSError:
                    return
                time.sleep(0.01)

    def close(self) -> None:
        self.stop.set()
        self.sock.close()
        self.thread.join(5)


def test_an_upload_whose_body_the_index_reads_slowly_is_cut_off_while_sending(tmp_path):
    """The sending phase is bounded too (by default its time follows from the size)."""
    server = _SlowReader()
    try:
        repo = Repository(server.url + "/legacy/", server.url + "/simple/", password=TOKEN)
        wheel = _wheel(tmp_path, size=8 << 20)  # far beyond the socket buffers
        with pytest.raises(IndexUnavailable, match=r"no complete answer to the upload of .* within 0.3 s"):
            upload(repo, wheel, [(":action", "file_upload")], send_within=0.3, answer_within=600)
    finally:
        server.close()


def _oidc_env(server_url: str) -> dict[str, str]:
    return {"ACTIONS_ID_TOKEN_REQUEST_URL": server_url + "/oidc/token",
            "ACTIONS_ID_TOKEN_REQUEST_TOKEN": OIDC_ENV_TOKEN}


@pytest.mark.parametrize("dripping", ["audience", "oidc token", "mint"])
def test_each_trusted_publishing_request_that_drips_is_cut_off(hostile_servers, dripping):
    server = hostile_servers()
    slow = drip(b'{"audience": "pypi", "value": "x", "token": "y", "pad": "' + b"p" * 100 + b'"}', 0.05)
    server.route("/_/oidc/audience", slow if dripping == "audience" else answer({"audience": "pypi"}))
    server.route("/oidc/token", slow if dripping == "oidc token" else answer({"value": "oidc-jwt-" + "j" * 20}))
    server.route("/_/oidc/mint-token", slow if dripping == "mint" else answer({"token": "pypi-minted"}))
    repo = Repository(server.url + "/legacy/", server.url + "/simple/")
    with pytest.raises(IndexUnavailable, match=r"no complete answer .* within 0.3 s") as caught:
        mint_token(repo, _oidc_env(server.url), deadline=0.3)
    assert caught.value.exit_code == 3
    assert OIDC_ENV_TOKEN not in str(caught.value)


def test_trusted_publishing_answered_in_time_mints_a_token(hostile_servers):
    server = hostile_servers()
    server.route("/_/oidc/audience", answer({"audience": "pypi"}))
    server.route("/oidc/token", answer({"value": "oidc-jwt-" + "j" * 20}))
    server.route("/_/oidc/mint-token", answer({"token": "pypi-minted-token"}))
    repo = mint_token(Repository(server.url + "/legacy/", server.url + "/simple/"), _oidc_env(server.url),
                      deadline=5)
    assert repo.password == "pypi-minted-token"


def test_a_restarted_limit_counts_from_the_restart():
    """A request's next phase gets its own time: the first phase's is not added to it, and a
    longer second phase outlives what the first phase had left."""
    with wall_clock_limit(0.2) as limit:
        time.sleep(0.1)
        limit.restart(5)
        time.sleep(0.2)  # past the first limit: the restart replaced it
    with pytest.raises(DeadlineExceeded) as caught:
        with wall_clock_limit(5) as limit:
            limit.restart(0.1)
            time.sleep(2)
    assert caught.value.seconds == 0.1


def test_a_restart_never_outlives_the_outer_limit():
    with pytest.raises(DeadlineExceeded) as caught:
        with wall_clock_limit(0.2):
            with wall_clock_limit(0.1) as inner:
                inner.restart(5)
                time.sleep(2)
    assert caught.value.seconds == 0.2


@pytest.mark.parametrize("way", ["public URL", "API redirect"])
def test_a_range_read_that_drips_is_cut_off_at_the_github_deadline(hostile_servers, way):
    from release.sources.asset_ranges import read_public_range, read_range
    from release.sources.github import GitHubClient, GitHubUnavailable

    storage = hostile_servers("localhost").route("/blob", drip(b"x" * 200, 0.05))
    api = hostile_servers().route("/repos/o/r/releases/assets/1", answer(b"", 302, {"Location": f"{storage.url}/blob"}))
    client = GitHubClient("ghs_" + "D" * 36, api.url, sleep=lambda s: None, deadline=0.3, timeout=5,
                          write_interval=0)
    with pytest.raises(GitHubUnavailable, match="deadline") as caught:
        if way == "public URL":
            read_public_range(client, f"{storage.url}/blob", 0, 150)
        else:
            read_range(client, "/repos/o/r/releases/assets/1", 0, 150)
    assert caught.value.exit_code == 3


def test_status_asks_the_index_within_its_deadline_for_the_whole_page(hostile_servers):
    """``release status``'s PyPI row: the deadline it documents holds for the whole page, not
    three read timeouts of it."""
    from release.publish.pypi import presence

    server = hostile_servers().route("/simple/", drip(b'{"files": [], "pad": "' + b"p" * 200 + b'"}', 0.02))
    said = presence(server.url + "/simple/", ("jax-rocm7-pjrt", "jax-rocm7-plugin"), ["0.9.1"], timeout=0.5)
    assert said["checked"] is False and "within 0.5 s" in said["note"]
