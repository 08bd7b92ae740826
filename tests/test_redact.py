"""Secrets never leave the process: registered values, GitHub token shapes and URL credentials
are masked in text and JSON; URLs for people drop their credentials."""

from __future__ import annotations

import pytest

from release.core import redact as r


@pytest.fixture(autouse=True)
def no_secrets(monkeypatch):
    monkeypatch.setattr(r, "_SECRETS", set())


def test_registered_secret_is_masked_everywhere_in_a_text():
    r.register_secret("hunter22")
    assert r.redact("a hunter22 b hunter22") == "a *** b ***"


def test_longer_secret_wins_over_its_own_prefix():
    r.register_secret("abcd")
    r.register_secret("abcdefgh")
    assert r.redact("x abcdefgh y abcd") == "x *** y ***"


def test_a_secret_containing_another_is_masked_whole():
    """Longest first, whatever the alphabet says: 'zzzz' first would leave 'a***b' showing."""
    r.register_secret("zzzz")
    r.register_secret("azzzzb")
    assert r.redact("[azzzzb]") == "[***]"


@pytest.mark.parametrize("value", [None, "", "abc"])
def test_too_short_or_empty_values_are_not_secrets(value):
    r.register_secret(value)
    assert r._SECRETS == set()
    assert r.redact("abc abcd") == "abc abcd"


def test_exactly_four_characters_is_a_secret():
    r.register_secret("wxyz")
    assert r.redact("wxyz") == "***"


@pytest.mark.parametrize("token", ["ghp_" + "A1" * 10, "gho_" + "b" * 36, "ghs_" + "Z" * 20,
                                   "github_pat_" + "x_Y" * 10])
def test_unregistered_github_token_shapes_are_masked(token):
    assert r.redact(f"token={token}.") == "token=***."


@pytest.mark.parametrize("text", ["ghp_short", "ghx_" + "a" * 30, "sighp_" + "a" * 30])
def test_words_that_only_look_similar_are_kept(text):
    assert r.redact(text) == text


@pytest.mark.parametrize("url, shown", [
    ("https://user:pw@github.com/o/r.git", "https://***@github.com/o/r.git"),
    ("https://tok@github.com/o/r", "https://***@github.com/o/r"),
    ("see git+https://a:b@h/x and https://h/y", "see git+https://***@h/x and https://h/y"),
])
def test_url_credentials_are_masked_in_text(url, shown):
    assert r.redact(url) == shown


def test_redact_data_masks_strings_at_any_depth_and_keeps_keys_and_other_values():
    r.register_secret("s3cret!")
    data = {"s3cret!": ["s3cret!", 5, None, {"k": ("a s3cret!",)}], "n": 1.5, "b": True}
    assert r.redact_data(data) == {"s3cret!": ["***", 5, None, {"k": ["a ***"]}], "n": 1.5,
                                   "b": True}


@pytest.mark.parametrize("url, bare, user, password", [
    ("https://u:p4ss@example.com:8443/x?q=1#f", "https://example.com:8443/x?q=1#f", "u", "p4ss"),
    ("https://tok3n@example.com/x", "https://example.com/x", "tok3n", None),
    ("http://tok3n@example.com/x", "http://example.com/x", "tok3n", None),
    ("https://[::1]:99/x", "https://[::1]:99/x", None, None),
    ("https://u:pw99@[::1]/x", "https://[::1]/x", "u", "pw99"),
    ("ssh://git@example.com/o/r", "ssh://git@example.com/o/r", None, None),
    ("file:///srv/git/r", "file:///srv/git/r", None, None),
    ("example.com/x", "example.com/x", None, None),
])
def test_url_credentials_split_and_register(url, bare, user, password):
    assert r.url_credentials(url) == (bare, user, password)
    secret = password if password is not None else user
    if secret is not None:
        assert r._SECRETS == {secret}  # registered: any later text carrying it is masked
        assert r.redact(f"x {secret} y") == "x *** y"
    else:
        assert r._SECRETS == set()


def test_a_url_that_cannot_be_parsed_still_loses_its_credentials():
    assert r.url_credentials("https://u:p@[bad/x") == ("https://[bad/x", None, None)


@pytest.mark.parametrize("url, shown", [
    ("https://u:p4ss@example.com/x", "https://example.com/x"),
    ("https://tok3n@example.com/x", "https://example.com/x"),
    ("ssh://git@example.com/o/r", "ssh://git@example.com/o/r"),
    ("git+ssh://git@example.com/o/r", "git+ssh://git@example.com/o/r"),
    ("https://example.com/o/r", "https://example.com/o/r"),
])
def test_display_url_drops_credentials_but_keeps_ssh_logins(url, shown):
    assert r.display_url(url) == shown


def test_display_url_still_masks_a_registered_secret_in_an_ssh_url():
    r.register_secret("tok3n-in-path")
    assert r.display_url("ssh://git@example.com/tok3n-in-path") == "ssh://git@example.com/***"
