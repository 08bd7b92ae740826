"""Branch names from upstream are checked where they enter (the ref listing), as deps.yaml's are:
a name bump could record but the tool would then refuse (look-alike digits matching the default
glob, a name that reads as an option to git) is never a candidate, so no bump writes it."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from release.core.config import DEFAULT_BRANCHES, is_branch_name, parse_deps, render_deps
from release.sources import branches, refs
from release.sources.git import Remote
from tests.support.gitrepos import RepoBuilder

HOSTILE = ["rocm-jaxlib-v\u0660.\u0669.\u0661", "rocm-jaxlib-v0.\u0669.1", "--upload-pack=touch",
           "-rocm-jaxlib-v0.9.1", "rocm-jaxlib-v0.9.1\u200b"]
GOOD = ["rocm-jaxlib-v0.9.1", "rocm-jaxlib-v0.10.0-soversion", "master"]


@pytest.fixture(scope="module")
def remote(tmp_path_factory) -> Remote:
    repo = RepoBuilder(tmp_path_factory.mktemp("names") / "xla.git")
    sha = repo.commit("master", "x", {"a": "1\n"})
    for name in [*GOOD, *HOSTILE]:
        repo.set_ref(name, sha)
    return Remote("xla", Path(repo.path).as_uri())


@pytest.mark.parametrize("pattern", [DEFAULT_BRANCHES, "*", "-*", "rocm-jaxlib-v0.*"])
def test_a_listing_holds_only_names_deps_yaml_accepts(remote, pattern):
    tips = refs.ls_remote_branches(remote, pattern)
    assert not set(tips) & set(HOSTILE)
    assert set(tips) == {n for n in GOOD if __import__("fnmatch").fnmatchcase(n, pattern)}
    assert all(is_branch_name(n) for n in tips)


_CHARS = st.sampled_from(list("rocm-jaxlib-v0.19/_") + ["\u0660", "\u0669", "-", ".", "/", "..", "//",
                                                         ".lock", "@", " ", "=", "\u200b"])


@given(name=st.lists(_CHARS, min_size=1, max_size=24).map("".join))
def test_a_name_taken_from_upstream_is_one_git_and_deps_yaml_both_accept(name):
    if not is_branch_name(name):
        return
    assert subprocess.run(["git", "check-ref-format", "--branch", name], capture_output=True).returncode == 0
    text = ("deps:\n  plugin: {url: https://x/p, branch: master, commit: " + "a" * 40 + ", roll: head}\n"
            "  jax: {url: https://x/j, branch: master, commit: " + "b" * 40 + ", roll: manual}\n"
            "  xla: {url: https://x/x, branch: master, commit: " + "c" * 40 + ", roll: manual}\n")
    old = parse_deps(Path("deps.yaml"), text)
    new = old.with_pins({"xla": {"branch": name}})
    assert parse_deps(Path("deps.yaml"), render_deps(new, text)) == new


@pytest.mark.parametrize("text", ["0.9.1.post" + "9" * 5000, "0." + "9" * 5000 + ".1", "0.\u0669.1",
                                  "0.9.1.post1234567890"])
def test_a_version_past_nine_digits_or_not_ascii_is_one_line(text):
    """version_info.json's version and deps.yaml's line: refused as a value, never a ValueError
    from int() past Python's 4,300-digit limit."""
    from release.core.config import parse_version_info
    from release.core.errors import ConfigError
    with pytest.raises(ConfigError, match="version_info.json: version: got "):
        parse_version_info(Path("version_info.json"),
                           '{"version": "%s", "rocm_version": "7.2.0", "nightly_scheme": "date"}' % text)
    deps = ("deps:\n  plugin: {url: https://x/p, branch: master, commit: " + "a" * 40 + ", roll: head}\n"
            "  jax: {url: https://x/j, branch: master, commit: " + "b" * 40 + ", roll: manual, line: '%s'}\n"
            "  xla: {url: https://x/x, branch: master, commit: " + "c" * 40 + ", roll: manual}\n") % text
    with pytest.raises(ConfigError, match="deps.jax.line"):
        parse_deps(Path("deps.yaml"), deps)


@pytest.mark.parametrize("name, version", [(HOSTILE[0], None), (HOSTILE[1], (0,)), ("rocm-jaxlib-v" + "9" * 300, None),
                                           ("v1." + "9" * 5000, (1,)), ("v0." + "9" * 20 + ".1", (0,))])
def test_a_version_in_a_name_is_ascii_digits_nine_a_part(name, version):
    """Even a name that slipped past the listing reads as no version, or a short one, never as a
    look-alike digit or a 5,000-digit number (past Python's int() limit: ValueError)."""
    found = branches.version_in(name)
    assert (found[0] if found else None) == version or (version is None and found is None)
    assert not branches.of_line(name, "0.9.1")
