"""Credentials given for a git remote go to that remote's host and nowhere else, and a token
anywhere in a URL (user:password, query, fragment) is never shown or stored."""

from __future__ import annotations

import base64

import pytest
from hypothesis import given
from hypothesis import strategies as st

from release.core.errors import UserError
from release.core.redact import display_url, redact
from release.sources import git, refs
from release.sources import mirror as rmirror
from tests.support.hostile_server import hostile_servers, redirect_to  # noqa: F401 (fixture)

TOKEN = "ghs_" + "R3directLeak" * 3


def _refuse_with_401(req) -> None:
    req.send(401, b"", {"WWW-Authenticate": 'Basic realm="stranger"'})


@pytest.mark.parametrize("status", [301, 302, 307, 308])
@pytest.mark.parametrize("ask", ["ls_remote", "ls_remote_heads", "mirror"])
def test_credentials_never_reach_the_host_a_remote_redirects_to(hostile_servers, tmp_path, status, ask):
    stranger = hostile_servers("localhost").route("/", _refuse_with_401)
    remote_host = hostile_servers().route("/", redirect_to(stranger.url, status))
    remote = git.Remote("xla", f"http://x-access-token:{TOKEN}@127.0.0.1:{remote_host.port}/xla.git")
    with pytest.raises(UserError) as caught:
        if ask == "ls_remote":
            refs.ls_remote(remote, "master")
        elif ask == "ls_remote_heads":
            refs._ls_remote_heads(remote, "master")
        else:
            with rmirror.Mirror(tmp_path / "cache", remote) as mirror:
                mirror.fetch_branch("master")
    assert remote_host.seen, "the remote itself was asked"
    assert not stranger.seen or not any("authorization" in s.headers for s in stranger.seen)
    assert not stranger.saw_text(TOKEN)
    assert "redirects elsewhere" in str(caught.value) and TOKEN not in str(caught.value)


def test_a_remote_without_credentials_still_follows_a_redirect(hostile_servers, git_http, git_remotes):
    """Only credentials make a redirect refused: a public mirror that moved is still read."""
    moved = hostile_servers().route("/", redirect_to(git_http.url("").rstrip("/")))
    tip = refs.ls_remote(git.Remote("jax", f"{moved.url}/jax.git"), "rocm-jaxlib-v0.9.1")
    assert tip == git_remotes.jax.tip("rocm-jaxlib-v0.9.1")


SECRETISH = st.text(alphabet="abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.~", min_size=12,
                    max_size=40)


@given(token=SECRETISH, name=st.sampled_from(["access_token", "token", "private_token", "sig", "X-Amz-Signature"]),
       where=st.sampled_from(["query", "fragment", "both", "userinfo"]))
def test_a_token_anywhere_in_a_url_is_never_displayed(token, name, where):
    url = "https://github.com/ROCm/xla"
    if where == "userinfo":
        url = f"https://x-access-token:{token}@github.com/ROCm/xla"
    if where in ("query", "both"):
        url += f"?{name}={token}"
    if where in ("fragment", "both"):
        url += f"#{name}={token}"
    shown = display_url(url)
    assert token not in shown and "?" not in shown and "#" not in shown
    assert shown == "https://github.com/ROCm/xla"
    assert token not in redact(f"cloning {url} failed")


def test_config_refuses_a_url_with_a_query_and_never_echoes_it(tmp_path):
    from pathlib import Path

    from release.core.config import parse_deps
    from release.core.errors import ConfigError
    text = (Path(__file__).resolve().parents[1] / "deps.yaml").read_text()
    text = text.replace("url: https://github.com/ROCm/xla", "url: https://github.com/ROCm/xla?access_token=Zq9secretvalue1")
    with pytest.raises(ConfigError, match="without a query") as caught:
        parse_deps(Path("deps.yaml"), text)
    assert "Zq9secretvalue1" not in str(caught.value)


def test_a_bugs_traceback_is_redacted(tmp_path):
    """Even a traceback (a bug) never prints a URL password or a registered token."""
    import subprocess
    import sys
    script = tmp_path / "crash.py"
    script.write_text(
        "import sys\n"
        "from release import cli\n"
        "from release.core.redact import url_credentials\n"
        "def boom(args, out):\n"
        "    url_credentials('https://u:Sup3rSecretPw@example.com/r')\n"
        "    raise RuntimeError('cloning https://u:Sup3rSecretPw@example.com/r?access_token=QtokenQtokenQ failed')\n"
        "cli.build_parser.__globals__['importlib'].import_module('release.commands.version').run = boom\n"
        "sys.exit(cli.main(['version', '--kind', 'nightly']))\n")
    got = subprocess.run([sys.executable, str(script)], capture_output=True, text=True)
    assert "Traceback" in got.stderr and "RuntimeError" in got.stderr
    assert "Sup3rSecretPw" not in got.stderr and "QtokenQtokenQ" not in got.stderr


@pytest.mark.parametrize("userinfo, sent", [("x-access-token:" + TOKEN, "x-access-token:" + TOKEN),
                                             (TOKEN, TOKEN + ":")])
def test_credentials_go_as_one_basic_header_that_is_itself_a_secret(userinfo, sent):
    """user:password, or a token alone as the user (an empty password, as git itself sends it),
    become one ``Authorization: Basic`` header for the remote's origin; the header's base64 is a
    secret like the token it encodes: never shown."""
    remote = git.Remote("xla", f"https://{userinfo}@github.com/ROCm/xla.git")
    env = remote.auth_env()
    basic = base64.b64encode(sent.encode()).decode()
    assert env["GIT_CONFIG_VALUE_0"] == f"Authorization: Basic {basic}"
    assert env["GIT_CONFIG_KEY_0"] == "http.https://github.com/.extraHeader"
    assert basic not in redact(f"fatal: sent Authorization: Basic {basic}")
    assert git.Remote("xla", "https://github.com/ROCm/xla.git").auth_env() == {}


def test_a_remotes_credentials_are_secrets_as_soon_as_it_is_named():
    """Naming a remote registers its URL's password as a secret, before any git process runs:
    an error that quotes it (git's own words, a traceback) shows it masked."""
    password = "plain-Secret-1234abcd"
    assert password in redact(f"fatal: {password} refused")
    git.Remote("xla", f"https://someone:{password}@github.com/ROCm/xla.git")
    assert password not in redact(f"fatal: {password} refused")
