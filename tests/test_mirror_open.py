"""A warm mirror answers with as few git processes as it can (issue 36: a warm bump is mostly
start-up and processes): opening one reads remote.origin.url from its config file when the file
is as git and the tool write it (and only then; else git reads it), and "is this commit here
with its tree" is one process. The answers are git's own."""

from __future__ import annotations

import subprocess

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from release.sources import git as rgit
from release.sources import mirror as rmirror
from release.sources import partial
from tests.support.gitrepos import RepoBuilder

URL = "https://github.com/ROCm/xla"
# Lines a person, an older tool or git itself could leave in a mirror's config.
LINES = st.sampled_from([
    '[remote "origin"]', "\turl = https://other.example/x", '\turl = "https://q.example/x"',
    "\tURL = https://c.example/y", '[remote "origin"] url = https://same-line.example/z', '[Remote "origin"]',
    '[remote  "origin"]', "[remote.origin]", '[url "https://github.com/"]', "\tinsteadOf = https://mirror.example/",
    "[include]", "\tpath = other.config", "\tpushurl = https://push.example/", "# url = https://comment.example/",
    "; url = x", "\turl = https://t.example/a # c", "\tpromisor = true\\", "\turl = https://after-continuation.example/",
    "[core]", "\tbare = true", "[gc]", "\tauto = 0", "\turl", "\turl = https://cr.example/\r",
    '[remote "upstream"]', "\turl = https://up.example/", "",
])


def written_config(tmp_path, url: str = URL):
    """A mirror's config as ``git init --bare`` and the tool write it."""
    subprocess.run(["git", "init", "--quiet", "--bare", str(tmp_path / "m")], check=True)
    path = tmp_path / "m" / "config"
    partial._write_partial_config(path, url)
    return path


def gits(path) -> str | None:
    proc = subprocess.run(["git", "config", "--file", str(path), "--get", "remote.origin.url"],
                          capture_output=True, text=True)
    return proc.stdout.rstrip("\n") if proc.returncode == 0 else None


def test_a_config_as_written_is_read_without_git(tmp_path):
    path = written_config(tmp_path, "http://127.0.0.1:8080/xla.git")
    assert partial.origin_url_as_written(path.read_text()) == gits(path) == "http://127.0.0.1:8080/xla.git"


@settings(max_examples=60, deadline=None)
@given(inserted=st.lists(st.tuples(st.integers(0, 40), LINES), min_size=1, max_size=4))
def test_what_it_reads_from_the_file_is_what_git_reads_or_it_asks_git(tmp_path_factory, inserted):
    path = written_config(tmp_path_factory.mktemp("config"))
    lines = path.read_text().split("\n")
    for at, line in inserted:
        lines.insert(min(at, len(lines)), line)
    path.write_text("\n".join(lines))
    read = partial.origin_url_as_written(path.read_text())
    assert read is None or read == gits(path), path.read_text()


@pytest.fixture
def upstream(tmp_path):
    repo = RepoBuilder(tmp_path / "up.git")
    first = repo.commit("main", "one", {"f": "1\n"})
    second = repo.commit("main", "two", {"f": "2\n"})
    return repo, first, second


def counted(monkeypatch) -> list[list[str]]:
    calls: list[list[str]] = []
    real = partial.run_git

    def run_git(args, *rest, **kw):
        calls.append(list(args))
        return real(args, *rest, **kw)
    monkeypatch.setattr(partial, "run_git", run_git)
    return calls


def test_a_warm_mirror_opens_without_a_git_process_and_asks_commit_and_tree_in_one(upstream, tmp_path, monkeypatch):
    repo, first, second = upstream
    remote = rgit.Remote("up", repo.url)
    with rmirror.Mirror(tmp_path / "cache", remote, first_depth=1) as m:
        assert m.fetch_commit(second) and m.read_file(second, "f").strip() == "2"
    calls = counted(monkeypatch)
    with rmirror.Mirror(tmp_path / "cache", remote, first_depth=1) as m:
        assert calls == []
        assert m.fetch_commit(second)  # here, with its tree: one question, no fetch
        assert [c[0] for c in calls] == ["rev-list"] and m.fetches == 0
        assert m.fetch_commit(first, trees=False) is True and m.fetches == 1  # not here yet: fetched
        assert m.fetch_commit(first) and m.fetches == 2  # its tree was not: fetched again, with trees
        assert m.fetch_commit(first) and m.fetches == 2  # now it is
        assert m.read_file(first, "f").strip() == "1"
        assert not m.fetch_commit("0" * 40)  # the remote has no such commit


def test_a_mirror_whose_url_moved_is_pointed_at_the_new_one(upstream, tmp_path):
    """The URL as deps.yaml has it now (an old token scrubbed, a new host) replaces the recorded one."""
    repo, _, second = upstream
    with rmirror.Mirror(tmp_path / "cache", rgit.Remote("up", repo.url), first_depth=1) as m:
        path = m.path
    config = path / "config"
    config.write_text(config.read_text().replace(repo.url, "https://old.example/up.git"))
    with rmirror.Mirror(tmp_path / "cache", rgit.Remote("up", repo.url), first_depth=1) as m:
        assert gits(config) == rgit.Remote("up", repo.url).bare_url and m.fetch_commit(second)


@pytest.mark.parametrize("first_ask", ["commit", "commits", "branch", "history"])
def test_a_mirror_just_made_asks_git_nothing_before_its_first_fetch(upstream, tmp_path, monkeypatch, first_ask):
    """A mirror this opening made holds nothing: what is here (a commit, its tree, a branch, the
    parents of the one commit its first fetch brought) is answered without a git process until
    something runs in it (each such question was one on
    every new mirror's critical path). Opened again, it is asked as any other."""
    repo, first, second = upstream
    remote = rgit.Remote("up", repo.url)
    calls = counted(monkeypatch)
    with rmirror.Mirror(tmp_path / "cache", remote, first_depth=1) as m:
        if first_ask == "commit":
            assert m.fetch_commit(second)
        elif first_ask == "commits":
            assert m.fetch_commits([first, second], trees=False) == set()
        elif first_ask == "branch":
            assert m.fetch_branch("main") == second
        else:
            assert not m.has_commit(first) and not m.has_tree(first) and m.branch_tip("main") is None
        asked = [c[0] for c in calls if c[0] != "init"]
        assert asked[0] == "fetch" if first_ask != "history" else asked == []
        if first_ask == "commit":  # one commit into an empty mirror: no parent of it can be here, none asked
            assert asked == ["fetch"] and m.shallow() == {second}
        if first_ask == "commit":  # fetched with its trees: known so, not asked
            before = len(calls)
            assert m.has_tree(second) and m.fetch_commit(second) and len(calls) == before
        assert m.read_file(second, "f").strip() == "2" if first_ask != "history" else True
    calls.clear()
    with rmirror.Mirror(tmp_path / "cache", remote, first_depth=1) as m:
        assert m.has_commit(second) is (first_ask != "history")
        assert [c[0] for c in calls] == ["rev-list"]


TEXT = st.lists(st.sampled_from(["a", "é", "\n", "\r", "\r\n", " ", "\t", "\u2028", "x = 1"]), max_size=12).map("".join)


@settings(max_examples=20, deadline=None)
@given(texts=st.lists(TEXT, min_size=2, max_size=3))
def test_files_fetched_together_are_read_in_one_process_as_each_alone(tmp_path_factory, texts):
    """The files a roll fetches together (a via dep's pin file, MODULE.bazel) are read in one git
    process, not one each, and each text is what reading it alone gives (line ends, a final
    newline, non-ASCII), a file absent at the commit none."""
    tmp = tmp_path_factory.mktemp("files")
    repo = RepoBuilder(tmp / "up.git")
    paths = [f"d{i}/f{i}.bzl" for i in range(len(texts))]
    sha = repo.commit("main", "files", dict(zip(paths, texts)))
    remote = rgit.Remote("up", repo.url)
    alone = rmirror.Mirror(tmp / "alone", remote)
    with alone:
        assert alone.fetch_commit(sha)
        each = {p: alone.read_file(sha, p) for p in [*paths, "absent.bzl"]}
    together = rmirror.Mirror(tmp / "together", remote)
    with together:
        assert together.fetch_commit(sha)
        together.fetch_files(sha, [*paths, "absent.bzl"])
        calls: list[list[str]] = []
        real = partial.run_git
        partial.run_git = lambda args, *rest, **kw: calls.append(list(args)) or real(args, *rest, **kw)
        try:
            read = {p: together.read_file(sha, p) for p in [*paths, "absent.bzl"]}
        finally:
            partial.run_git = real
    assert read == each and each["absent.bzl"] is None
    assert calls == []


def test_a_commit_fetched_beside_its_parent_keeps_its_history(upstream, tmp_path):
    """A commit fetched at depth 1 into a mirror already holding its parent is not left marked
    shallow (its history is here: a walk must reach the parent, not fetch it again)."""
    repo, first, second = upstream
    with rmirror.Mirror(tmp_path / "cache", rgit.Remote("up", repo.url), first_depth=1) as m:
        assert m.fetch_commit(first, trees=False)
        assert m.fetch_commit(second)
        assert second not in m.shallow()
