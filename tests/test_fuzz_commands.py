"""Generated GitHub answers run through the commands that read a store: whatever the server
says, a command ends with the documented exit status (0, 2 or 3), a failure is one line, and
the token never appears in any output."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.support.hostile_server import answer, hostile_servers  # noqa: F401 (fixture)

TOKEN = "ghs_" + "FuzzedAnswers" * 3
SCALARS = st.none() | st.booleans() | st.integers(-2, 10**20) | st.floats() | st.text(max_size=10)
JSON = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner,
                                                                                          max_size=3), max_leaves=8)


def _mostly(good: st.SearchStrategy, bad: st.SearchStrategy = SCALARS) -> st.SearchStrategy:
    return st.one_of(good, good, good, bad)


ASSET = st.fixed_dictionaries({
    "id": _mostly(st.integers(1, 10**6)), "name": _mostly(st.sampled_from([
        "jax_rocm7_pjrt-0.9.1.dev20261121-py3-none-manylinux_2_28_x86_64.whl", "SHA256SUMS", "../../etc/passwd",
        "revisions.json", "\x1b[31mx.whl"])),
    "size": _mostly(st.integers(0, 10**9)), "state": _mostly(st.sampled_from(["uploaded", "starter"])),
    "digest": _mostly(st.just("sha256:" + "a" * 64)), "url": _mostly(st.just("https://api.github.com/x")),
})
RELEASE = st.fixed_dictionaries({
    "id": _mostly(st.integers(1, 10**6)),
    "tag_name": _mostly(st.sampled_from(["rocm-jax-v0.9.1.dev20261121", "rocm-jax-v0.9.1", "v1", "rocm-jax-v\u0661"])),
    "draft": _mostly(st.booleans()), "prerelease": _mostly(st.booleans()),
    "created_at": _mostly(st.sampled_from(["2026-11-21T03:00:00Z", "yesterday"])),
    "published_at": _mostly(st.sampled_from(["2026-11-21T04:00:00Z", None, "nan"])),
    "html_url": _mostly(st.just("https://github.com/o/r/releases/1")), "name": _mostly(st.text(max_size=10)),
    "body": _mostly(st.text(max_size=20)), "assets": _mostly(st.lists(ASSET, max_size=3)),
    "upload_url": _mostly(st.just("https://uploads.github.com/repos/o/r/releases/1/assets{?name,label}")),
    "target_commitish": _mostly(st.just("main")),
})
ANSWERS = st.one_of(st.lists(RELEASE, max_size=4), st.lists(RELEASE, max_size=4), JSON)


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(body=ANSWERS, status=st.sampled_from([200, 200, 200, 404, 422]),
       command=st.sampled_from([("gc", "--keep", "1", "--dry-run"), ("status",)]))
def test_any_github_answer_ends_in_a_documented_status_and_one_line(hostile_servers, run_cli, monkeypatch,
                                                                    project_dir, body, status, command):
    server = hostile_servers().route("/repos/o/r/releases", answer(json.dumps(body).encode(), status))
    server.route("/repos/o/r", answer({"full_name": "o/r", "permissions": {"push": True}}))
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    monkeypatch.setenv("GITHUB_API_URL", server.url)
    monkeypatch.setenv("GITHUB_REPOSITORY", "o/r")
    monkeypatch.setenv("RELEASE_GITHUB_WRITE_INTERVAL", "0")
    code, out, err = run_cli(*command, "--root", project_dir, "--store", "github")
    assert code in (0, 2, 3), err
    if code:
        assert err.count("\n") == 1, err
    assert TOKEN not in out + err and "Traceback" not in err
