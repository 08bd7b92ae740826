"""release.sources.git against real remotes: file://, smart HTTP on 127.0.0.1, and one that wants a token."""

from __future__ import annotations

import os
import socket
import subprocess

import pytest

from release.core.errors import RemoteError, UserError
from release.sources import git as rgit
from release.sources import mirror as rmirror
from release.sources import partial as rpartial
from release.sources import refs
from tests.support.gitrepos import BRANCH, XLA_BZL, GitHttpServer, RepoBuilder


def objects(mirror, kind):
    """Objects of one type present in a mirror (enumerated locally, never fetched)."""
    out = subprocess.run(["git", "cat-file", "--batch-all-objects", "--batch-check=%(objecttype)"],
                         cwd=mirror.path, capture_output=True, text=True, check=True).stdout
    return out.split().count(kind)


@pytest.fixture
def token_server(git_remotes):
    server = GitHttpServer(git_remotes.root, token="s3cret-token-1234").start()
    yield server
    server.stop()


@pytest.mark.parametrize("transport", ["file", "http"])
def test_ls_remote_reads_the_tip_without_a_clone(git_remotes, git_http, transport, tmp_path):
    url = git_remotes.url("xla", git_http if transport == "http" else None)
    assert refs.ls_remote(rgit.Remote("xla", url), BRANCH) == git_remotes.c["Y_TIP"]
    with pytest.raises(UserError) as err:
        refs.ls_remote(rgit.Remote("xla", url), "no-such-branch")
    assert str(err.value) == f"xla: no branch 'no-such-branch' on {url}"


def test_auth_failure_names_dep_and_url_never_the_token(git_remotes, token_server):
    good = rgit.Remote("jax", token_server.url("jax.git", user="x-access-token", password="s3cret-token-1234"))
    assert refs.ls_remote(good, BRANCH) == git_remotes.c["J4"]
    bad = rgit.Remote("jax", token_server.url("jax.git", user="x-access-token", password="wrong-token-5678"))
    with pytest.raises(UserError) as err:
        refs.ls_remote(bad, BRANCH)
    message = str(err.value)
    assert message.startswith("jax: cannot list http://127.0.0.1:")  # credentials dropped
    assert "authentication failed" in message and "\n" not in message
    assert "wrong-token" not in message and "s3cret" not in message
    anonymous = rgit.Remote("jax", token_server.url("jax.git"))  # no credentials, and no prompt
    with pytest.raises(UserError, match="authentication failed"):
        refs.ls_remote(anonymous, BRANCH)


def test_a_mirror_keeps_no_token_on_disk_yet_fetches_with_it(git_remotes, token_server, tmp_path):
    token = "s3cret-token-1234"
    remote = rgit.Remote("jax", token_server.url("jax.git", user="x-access-token", password=token))
    with rmirror.Mirror(tmp_path, remote) as mirror:
        assert mirror.fetch_branch(BRANCH) == git_remotes.c["J4"]
        mirror.checkout(git_remotes.c["J4"], tmp_path / "wt")  # lazily fetches blobs: needs the token
    on_disk = b"".join(p.read_bytes() for p in tmp_path.rglob("*") if p.is_file())
    assert token.encode() not in on_disk and b"x-access-token" not in on_disk
    import base64
    assert base64.b64encode(f"x-access-token:{token}".encode()) not in on_disk
    config = (mirror.path / "config").read_text()
    assert f"url = {token_server.url('jax.git')}" in config
    # A mirror made by an older version with the token in its config is scrubbed on open.
    subprocess.run(["git", "config", "remote.origin.url", remote.url], cwd=mirror.path, check=True)
    with rmirror.Mirror(tmp_path, remote) as again:
        assert again.fetch_branch(BRANCH) == git_remotes.c["J4"]
    assert token not in (mirror.path / "config").read_text()


def test_unreachable_and_missing_remotes(tmp_path):
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(RemoteError, match=r"^xla: cannot list http://127.0.0.1:\d+/xla.git: remote unreachable$"):
        refs.ls_remote(rgit.Remote("xla", f"http://127.0.0.1:{port}/xla.git"), "main")
    with pytest.raises(UserError, match="no repository there"):
        refs.ls_remote(rgit.Remote("xla", (tmp_path / "nothing.git").as_uri()), "main")


def test_mirror_is_bare_blobless_and_shallow_and_deepens_on_demand(git_remotes, tmp_path):
    c = git_remotes.c
    with rmirror.Mirror(tmp_path, rgit.Remote("xla", git_remotes.xla.url), first_depth=4) as m:
        assert m.fetch_branch(BRANCH) == c["Y_TIP"]
        assert (m.path / "HEAD").is_file() and not (m.path / ".git").exists()
        assert objects(m, "blob") == 0 and objects(m, "commit") == 4 and m.shallow()
        assert not m.has_commit(c["X1"])  # beyond the boundary, and asking did not fetch it
        assert objects(m, "commit") == 4
        assert m.fetch_commit(c["X1"])
        log = m.log(c["X1"], c["Y_TIP"])  # deepens until the range is whole
        assert [e.subject for e in log] == [f"Rewritten change {i}" for i in range(31, 1, -1)]
        assert log[0].sha == c["Y_TIP"] and log[0].author == "Ada Lovelace" and log[0].date[:4] == "2025"
        assert objects(m, "blob") == 0
        assert m.is_ancestor(c["X0"], c["Y_TIP"]) is True
        # The force-pushed-away commit is still on the server (as on GitHub) but off the branch.
        assert m.fetch_commit(c["X2"]) and m.is_ancestor(c["X2"], c["Y_TIP"]) is False
        assert m.fetch_commit("0123456789abcdef0123456789abcdef01234567") is False


def test_ancestry_through_merges_and_side_branches(git_remotes, tmp_path):
    c = git_remotes.c
    with rmirror.Mirror(tmp_path, rgit.Remote("jax", git_remotes.jax.url), first_depth=1) as m:
        tip = m.fetch_branch(BRANCH)
        for sha in ("J1", "F1", "JS", "JF"):
            assert m.fetch_commit(c[sha])
        assert m.is_ancestor(c["F1"], tip)  # via the merge's second parent
        assert m.is_ancestor(c["J1"], c["J4"]) and not m.is_ancestor(c["J4"], c["J1"])
        assert not m.is_ancestor(c["JS"], tip) and not m.is_ancestor(tip, c["JS"])
        assert not m.is_ancestor(c["JF"], tip)  # fork-only: only under refs/pull/7/head
        assert {e.sha for e in m.log(c["J1"], c["J4"])} == {c["J2"], c["F1"], c["J3"], c["J4"]}


def test_read_file_fetches_one_blob_and_mirror_is_reused(git_remotes, git_http, tmp_path):
    c = git_remotes.c
    remote = rgit.Remote("plugin", git_remotes.url("plugin", git_http))
    with rmirror.Mirror(tmp_path, remote) as m:
        assert m.fetch_commit(c["P2"])
        assert objects(m, "blob") == 0
        text = m.read_file(c["P2"], XLA_BZL)
        assert f'XLA_COMMIT = "{c["Y_TIP"]}"' in text
        assert objects(m, "blob") == 1
        assert m.read_file(c["P2"], "no/such/file") is None
        assert m.read_file(c["P2"], "jax_rocm_plugin") is None  # a tree, not a file
    git_http.reset_counts()
    with rmirror.Mirror(tmp_path, remote) as again:  # next run: same mirror, nothing fetched
        assert again.path == m.path
        assert again.fetch_commit(c["P2"]) and again.read_file(c["P2"], XLA_BZL) == text
    assert git_http.requests == 0 and again.fetches == 0


def test_incremental_fetch_moves_only_new_commits(tmp_path, git_http):
    remote_repo = RepoBuilder(git_http.root / "scratch-incremental.git")
    for i in range(40):
        remote_repo.commit("main", f"c{i}", {f"f{i % 5}.txt": f"{i}\n" * 2000})
    remote = rgit.Remote("scratch", git_http.url("scratch-incremental.git"))
    with rmirror.Mirror(tmp_path, remote) as m:
        git_http.reset_counts()
        m.fetch_branch("main")
        cold = git_http.bytes_out
        new = remote_repo.commit("main", "one more", {"f0.txt": "new\n"})
        git_http.reset_counts()
        assert m.fetch_branch("main") == new
        warm = git_http.bytes_out
    assert 0 < warm < cold / 3, (warm, cold)
    assert not m.shallow() or new not in m.shallow()


def test_mirror_dir_is_stable_and_hides_credentials(tmp_path):
    a = rpartial.mirror_dir(tmp_path, "https://user:pa55w0rd-xyz@github.com/ROCm/xla.git")
    assert a.name.startswith("xla-") and "pa55w0rd" not in str(a)
    assert a == rpartial.mirror_dir(tmp_path, "https://user:rotated-token@github.com/ROCm/xla.git")
    assert a == rpartial.mirror_dir(tmp_path, "https://github.com/ROCm/xla.git")
    assert a != rpartial.mirror_dir(tmp_path, "https://github.com/ROCm/jax.git")


@pytest.mark.parametrize("stderr, why", [
    ("fatal: unable to access 'http://127.0.0.1:40123/x.git/': Failed to connect to 127.0.0.1 port 40123",
     "remote unreachable"),
    ("fatal: unable to access 'https://github.com/o/r/': The requested URL returned error: 403",
     "authentication failed (check the token or credentials)"),
    ("remote: Repository not found.\nfatal: repository 'https://github.com/o/r/' not found",
     "no repository there"),
    ("fatal: the remote end hung up unexpectedly", "git failed (fatal: the remote end hung up unexpectedly)"),
    ("fatal: unable to access 'https://github.com/o/r/': The requested URL returned error: 301",
     "it redirects elsewhere, and credentials go only to the host deps.yaml names (put the URL it moved to in "
     "deps.yaml)"),
    ("fatal: unable to access 'https://github.com/o/r/': SSL certificate problem: unable to get local issuer "
     "certificate", "remote unreachable"),
    ("warning: redirecting to https://github.com/o/r2/\n  fatal: early EOF  \n\n", "git failed (fatal: early EOF)"),
    ("", "git failed (no message)"),
])
def test_failures_are_classified_without_reading_urls(stderr, why):
    err = rgit.remote_error(rgit.Remote("xla", "https://x-access-token:ghs_abcdefghijklmnopqrstuvwxyz0123@github.com/o/r"),
                     "cannot fetch from", stderr)
    assert str(err) == f"xla: cannot fetch from https://github.com/o/r: {why}"
    assert isinstance(err, RemoteError) == (why == "remote unreachable")


def test_history_is_commits_only_and_a_depth_fetch_never_drops_history(git_remotes, tmp_path):
    c = git_remotes.c
    with rmirror.Mirror(tmp_path, rgit.Remote("xla", git_remotes.xla.url), first_depth=4) as m:
        m.fetch_branch(BRANCH)
        assert m.fetch_commit(c["X1"], trees=False)
        assert len(m.log(c["X1"], c["Y_TIP"])) == 30
        assert objects(m, "tree") == 0 and objects(m, "blob") == 0  # history needs no trees
        assert not m.has_tree(c["Y5"])
        whole = len(m._range(c["Y_TIP"], None))
        # Now its trees (to read a file or check out): one shallow fetch of a commit we have.
        assert m.fetch_commit(c["Y5"]) and m.has_tree(c["Y5"]) and objects(m, "tree") > 0
        assert c["Y5"] not in m.shallow()
        assert len(m._range(c["Y_TIP"], None)) == whole  # git would have cut history at Y5


def test_branch_contains_reads_the_branch_back_to_a_date_only(tmp_path, git_http):
    day = 86400
    up = RepoBuilder(git_http.root / "scratch-contains.git")
    shas = []
    for i in range(60):
        up.time += day
        shas.append(up.commit("rocm-jaxlib-v1.0", f"c{i}", {"f.txt": f"{i}\n"}))
    up.time += day
    side = up.commit("rocm-jaxlib-v0.9", "side", {"g.txt": "g\n"}, parents=(shas[10],))
    remote = rgit.Remote("scratch", git_http.url("scratch-contains.git"))
    with rmirror.Mirror(tmp_path, remote) as m:
        assert m.fetch_commit(shas[50], trees=False)
        since = m.commit_time(shas[50]) - 2 * day
        assert m.branch_contains("rocm-jaxlib-v1.0", shas[50], since) is True
        # Only the branch's last days came (tip back to the date), not its 60 commits.
        assert objects(m, "commit") <= 13
        assert m.branch_contains("rocm-jaxlib-v0.9", shas[50], since) is False  # tip older than the date
        assert m.fetch_commit(side, trees=False)
        assert m.branch_contains("rocm-jaxlib-v1.0", side, m.commit_time(side) - 2 * day) is False
        assert m.branch_contains("no-such-branch", side, 0) is False
        # Asked again with the history already here: an incremental fetch, the same answer.
        assert m.branch_contains("rocm-jaxlib-v1.0", shas[50], since) is True


def test_a_branch_that_did_not_move_is_asked_again_without_a_fetch(tmp_path, git_http):
    """A pin re-checked every day against its line's release branch: when the remote lists the
    branch where the mirror last fetched it, the answer comes from the mirror; when it moved,
    it is fetched and the new answer given."""
    day = 86400
    up = RepoBuilder(git_http.root / "scratch-unmoved.git")
    main = []
    for i in range(20):
        up.time += day
        main.append(up.commit("main", f"m{i}", {"f.txt": f"{i}\n"}))
    up.time += day
    release = up.commit("rocm-jaxlib-v1.0", "release", {"r.txt": "r\n"}, parents=(main[5],))
    remote = rgit.Remote("scratch", git_http.url("scratch-unmoved.git"))
    pin = main[12]
    with rmirror.Mirror(tmp_path, remote) as m:
        assert m.fetch_commit(pin, trees=False)
        since = m.commit_time(pin) - 2 * day
        listed = refs.ls_remote_branches(remote, "rocm-jaxlib-v*")
        assert m.branch_contains("rocm-jaxlib-v1.0", pin, since, listed["rocm-jaxlib-v1.0"]) is False
        fetched = m.fetches
        for _ in range(2):  # the next days: the branch did not move
            listed = refs.ls_remote_branches(remote, "rocm-jaxlib-v*")
            assert m.branch_contains("rocm-jaxlib-v1.0", pin, since, listed["rocm-jaxlib-v1.0"]) is False
        assert m.fetches == fetched
        up.time += day
        up.commit("rocm-jaxlib-v1.0", "merge main", {"r.txt": "merged\n"}, parents=(release, main[-1]))
        listed = refs.ls_remote_branches(remote, "rocm-jaxlib-v*")
        assert m.branch_contains("rocm-jaxlib-v1.0", pin, since, listed["rocm-jaxlib-v1.0"]) is True
        assert m.fetches > fetched
        # Named without a listing, the branch is asked of the remote as before.
        fetched = m.fetches
        assert m.branch_contains("rocm-jaxlib-v1.0", pin, since) is True and m.fetches == fetched + 1


@pytest.mark.parametrize("http", [True, False])
def test_ls_remote_branches_asks_only_for_the_pattern(git_remotes, git_http, tmp_path, monkeypatch, http):
    trace = tmp_path / "packets"
    monkeypatch.setenv("GIT_TRACE_PACKET", str(trace))
    url = git_remotes.url("jax", git_http if http else None)
    tips = refs.ls_remote_branches(rgit.Remote("jax", url), "rocm-jaxlib-v*")
    assert tips == {BRANCH: git_remotes.c["J4"]}
    sent = trace.read_text()
    # The server filtered: other branches and pull-request refs never crossed the wire.
    assert "ref-prefix refs/heads/rocm-jaxlib-v" in sent
    assert "refs/heads/feature" not in sent and "refs/pull/7/head" not in sent
    assert refs.ls_remote_branches(rgit.Remote("jax", url), "experimental") == {"experimental": git_remotes.c["JS"]}


def test_head_of_reads_this_work_tree_or_the_enclosing_one(tmp_path):
    def git(cwd, *args):
        return subprocess.run(["git", "-C", str(cwd), *args], check=True, capture_output=True,
                              text=True).stdout.strip()

    outer = tmp_path / "project"
    outer.mkdir()
    git(outer, "init", "-q")
    assert rgit.head_of(outer) is None  # no commit yet
    git(outer, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "c")
    head = git(outer, "rev-parse", "HEAD")
    below = outer / "jax_rocm_plugin" / "workspace"
    below.mkdir(parents=True)
    assert rgit.head_of(outer) == head
    assert rgit.head_of(below) is None  # a workspace dir is not the project's checkout
    assert rgit.head_of(below, enclosing=True) == head
    assert rgit.head_of(tmp_path / "elsewhere", enclosing=True) is None


def test_ls_remote_branches_follows_url_rewrites(git_remotes, git_http, tmp_path, monkeypatch):
    """url.<base>.insteadOf (a mirror setup) applies to the listing as to every other git call."""
    trace = tmp_path / "packets"
    monkeypatch.setenv("GIT_TRACE_PACKET", str(trace))
    monkeypatch.setenv("GIT_CONFIG_COUNT", "1")
    monkeypatch.setenv("GIT_CONFIG_KEY_0", f"url.{git_remotes.url('jax', git_http)}.insteadOf")
    monkeypatch.setenv("GIT_CONFIG_VALUE_0", "https://github.invalid/ROCm/jax.git")
    tips = refs.ls_remote_branches(rgit.Remote("jax", "https://github.invalid/ROCm/jax.git"), "rocm-jaxlib-v*")
    assert tips == {BRANCH: git_remotes.c["J4"]}
    assert "ref-prefix refs/heads/rocm-jaxlib-v" in trace.read_text()


def _listed_with_processes(monkeypatch, tmp_path, remote, rewrites):
    """The branches ``remote`` lists, and the git processes that took (git's trace2: one file
    per process), with ``rewrites`` ({base: insteadOf}) in the environment's config."""
    trace = tmp_path / "trace2"
    trace.mkdir()
    monkeypatch.setenv("GIT_TRACE2_EVENT", str(trace))
    monkeypatch.setenv("GIT_CONFIG_COUNT", str(len(rewrites)))
    for i, (base, instead) in enumerate(rewrites.items()):
        monkeypatch.setenv(f"GIT_CONFIG_KEY_{i}", f"url.{base}.insteadOf")
        monkeypatch.setenv(f"GIT_CONFIG_VALUE_{i}", instead)
    tips = refs.ls_remote_branches(remote, "rocm-jaxlib-v*")
    return tips, sum(1 for _ in trace.iterdir())


@pytest.mark.parametrize("rewritten", [False, True])
def test_a_listing_over_http_is_the_helper_alone_rewritten_or_not(git_remotes, git_http, tmp_path, monkeypatch,
                                                                 rewritten):
    """Listing a remote's branches over HTTP starts git's HTTP helper and nothing else (``git
    remote-http`` and the helper program it runs: two processes), whether or not a
    url.<base>.insteadOf leads the URL to another HTTP one: the helper applies it, no ``ls-remote
    --get-url`` is asked first (a process on every bump's critical path)."""
    real = git_remotes.url("jax", git_http)
    shown = "https://github.invalid/ROCm/jax.git" if rewritten else real
    rules = {real: shown, "https://elsewhere.invalid/": "https://github.invalid/"} if rewritten else {}
    tips, processes = _listed_with_processes(monkeypatch, tmp_path, rgit.Remote("jax", shown), rules)
    assert tips == {BRANCH: git_remotes.c["J4"]}
    assert processes == 2


def test_a_listing_rewritten_off_http_reads_the_local_mirror(git_remotes, tmp_path, monkeypatch):
    """An HTTP URL that url.<base>.insteadOf leads to a local path (a mirror on disk) is listed
    there: the HTTP helper cannot follow it, so the rewritten URL is asked for and served."""
    shown = "https://github.invalid/ROCm/jax.git"
    tips, _ = _listed_with_processes(monkeypatch, tmp_path, rgit.Remote("jax", shown),
                                     {str(git_remotes.jax.path): shown})
    assert tips == {BRANCH: git_remotes.c["J4"]}


@pytest.mark.parametrize("url", ["https://github.com/ROCm/xla", 'http://h/a#b;c"d\\e', "file:///srv/x.git"])
def test_a_new_mirror_holds_the_settings_git_clone_filter_would_write(tmp_path, url):
    """A new mirror's config, written in one go after ``git init``, reads back through git as
    the seven ``git config`` calls wrote it: a blob-filtering promisor origin of exactly this URL
    (quotes, backslashes, # and ; kept), format version 1, no automatic gc or maintenance."""
    subprocess.run(["git", "init", "--quiet", "--bare", str(tmp_path / "m.git")], check=True)
    rpartial._write_partial_config(tmp_path / "m.git" / "config", url)

    def get(key):
        return subprocess.run(["git", "config", "--get", key], cwd=tmp_path / "m.git", capture_output=True,
                              text=True, check=True).stdout.rstrip("\n")
    assert get("remote.origin.url") == url
    assert [get(k) for k in ("remote.origin.promisor", "remote.origin.partialclonefilter",
                             "core.repositoryformatversion", "extensions.partialclone", "gc.auto",
                             "maintenance.auto", "core.bare")] == ["true", "blob:none", "1", "origin", "0",
                                                                   "false", "true"]


def test_a_git_process_past_its_deadline_is_reported_timed_out_in_either_reading(tmp_path, monkeypatch):
    """Every git process has a deadline: past it, text and byte readers alike answer status 124
    (the text one with one line naming the command), never an exception or a hang."""
    script = tmp_path / "git"
    script.write_text("#!/bin/sh\nexec sleep 5\n")
    script.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}:{os.environ['PATH']}")
    monkeypatch.setattr(rgit, "TIMEOUT", 0.2)
    assert rgit.run_git(["status"], tmp_path) == (124, "", "fatal: git status timed out after 0 s")
    assert rgit.run_git_bytes(["cat-file", "--batch"], tmp_path, input=b"HEAD\n") == (124, b"")


def _repo(tmp_path):
    """A real repository with one commit, and a ``git`` for it."""
    repo = tmp_path / "repo"
    repo.mkdir()

    def git(*args, data=None):
        return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True,
                              input=data).stdout
    git("init", "-q")
    return repo, git


def test_batch_objects_reads_each_entry_git_writes_exactly_and_stops_at_what_it_cannot_read(tmp_path):
    """``git cat-file --batch``'s own output: each entry's name, type and bytes in order (CR LF kept,
    an empty blob, no final newline), a missing object by the name asked (a tab in it too); output
    cut inside a header, or not git's, stops the reading and the entries before it stand."""
    repo, git = _repo(tmp_path)
    contents = [b"a\r\nb\n", b"", b"no newline", b"x\n" * 3]
    shas = [git("hash-object", "-w", "--stdin", data=c).decode().strip() for c in contents]
    asked = [shas[0], "HEAD:no\tsuch-file", *shas[1:], "0" * 40]
    status, out = rgit.run_git_bytes(["cat-file", "--batch"], repo, input="".join(f"{n}\n" for n in asked).encode())
    assert status == 0
    entries = [(shas[0], "blob", contents[0]), ("HEAD:no\tsuch-file", "missing", None),
               *((sha, "blob", c) for sha, c in zip(shas[1:], contents[1:])), ("0" * 40, "missing", None)]
    assert list(rgit.batch_objects(out)) == entries
    last = out.rindex(shas[3].encode())  # the last blob's header starts here
    assert list(rgit.batch_objects(out[:last + 10])) == entries[:4]  # cut inside a header
    assert list(rgit.batch_objects(out[:last] + b"error: not an entry\n" + out[last:])) == entries[:4]
    assert list(rgit.batch_objects(out[:last] + f"{shas[3]} blob many\n".encode())) == entries[:4]
    assert list(rgit.batch_objects(b"")) == []


def test_git_output_keeps_its_lines_loses_one_final_newline_and_reads_any_bytes(tmp_path):
    """As a shell's ``$(...)``: stdout and stderr lose one final newline, no more; bytes that are not
    UTF-8 (a file written in Latin-1) read as replacement characters, never an error."""
    repo, git = _repo(tmp_path)
    sha = git("hash-object", "-w", "--stdin", data=b"caf\xe9\n\n").decode().strip()
    assert rgit.run_git(["cat-file", "blob", sha], repo) == (0, "caf\ufffd\n", "")
    assert rgit.run_git(["cat-file", "blob", sha], repo, encoding="latin-1") == (0, "caf\xe9\n", "")
    assert rgit.run_git(["rev-parse", "--verify", "nothing-by-that-name"], repo) == (
        128, "", "fatal: Needed a single revision")


def test_a_git_process_reads_only_the_input_it_is_given_never_this_processs_stdin(tmp_path):
    """``release`` runs with a terminal or a CI pipe on stdin: git gets the input it is given, or
    nothing, so a command that reads stdin never waits on (or eats) the caller's."""
    repo, git = _repo(tmp_path)
    sha = git("hash-object", "-w", "--stdin", data=b"blob\n").decode().strip()
    read, write = os.pipe()
    os.write(write, f"{sha}\n".encode())
    os.close(write)
    saved = os.dup(0)
    try:
        os.dup2(read, 0)
        assert rgit.run_git(["cat-file", "--batch-check"], repo) == (0, "", "")
        assert rgit.run_git_bytes(["cat-file", "--batch-check"], repo) == (0, b"")
        assert rgit.run_git(["cat-file", "--batch-check"], repo, input=f"{sha}\n") == (0, f"{sha} blob 5", "")
        assert rgit.run_git_bytes(["cat-file", "--batch-check"], repo, input=f"{sha}\n".encode()) == (
            0, f"{sha} blob 5\n".encode())
    finally:
        os.dup2(saved, 0)
        os.close(saved)
        os.close(read)


def test_a_work_trees_repository_is_its_mirrors_for_a_worktree_and_none_outside_one(tmp_path):
    """``common_dir``: the repository a work tree belongs to, as an absolute, resolved path (a
    worktree's is the repository it was added from), None where there is no repository."""
    repo, git = _repo(tmp_path)
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "c")
    git("worktree", "add", "-q", "--detach", str(tmp_path / "tree"))
    (tmp_path / "plain").mkdir()
    assert rgit.common_dir(repo) == (repo / ".git").resolve()
    assert rgit.common_dir(tmp_path / "tree") == (repo / ".git").resolve()
    assert rgit.common_dir(tmp_path / "plain") is None


def test_one_file_read_with_others_from_a_remote_with_a_token_is_fetched_in_the_read(git_remotes, token_server,
                                                                                     tmp_path, monkeypatch):
    """The one blob missing among files read together is brought by git within the read (its lazy
    fetch, which needs the remote's token as every fetch does): reading the file then asks git
    nothing more, as from a remote without credentials."""
    remote = rgit.Remote("jax", token_server.url("jax.git", user="x-access-token", password="s3cret-token-1234"))
    with rmirror.Mirror(tmp_path, remote) as mirror:
        tip = mirror.fetch_branch(BRANCH)
        mirror.fetch_files(tip, ["jax/__init__.py"])
        calls: list[list[str]] = []
        real = rpartial.run_git
        monkeypatch.setattr(rpartial, "run_git",
                            lambda args, *rest, **kw: calls.append(list(args)) or real(args, *rest, **kw))
        assert mirror.read_file(tip, "jax/__init__.py") == "v = 1"
    assert calls == []


@pytest.mark.parametrize("pattern", ["rocm-jaxlib-v*", "experimental", "feat*", "nothing-*"])
@pytest.mark.parametrize("http", [True, False])
def test_a_listing_where_protocol_v2_cannot_be_asked_answers_the_same_branches(git_remotes, git_http, monkeypatch,
                                                                               pattern, http):
    """ssh, or a server without protocol v2: ``ls-remote --heads`` answers the branches the v2
    listing does, each at its tip, and nothing else (no pull request, no tag)."""
    remote = rgit.Remote("jax", git_remotes.url("jax", git_http if http else None))
    v2 = refs.ls_remote_branches(remote, pattern)
    monkeypatch.setattr(refs, "ls_refs", lambda remote, prefix: None)
    assert refs.ls_remote_branches(remote, pattern) == v2
    assert bool(v2) == (pattern != "nothing-*")


def test_a_listing_without_protocol_v2_that_fails_is_one_line_naming_the_remote(tmp_path, monkeypatch):
    monkeypatch.setattr(refs, "ls_refs", lambda remote, prefix: None)
    with pytest.raises(UserError) as err:
        refs.ls_remote_branches(rgit.Remote("jax", str(tmp_path / "absent.git")), "rocm-jaxlib-v*")
    assert str(err.value) == f"jax: cannot list {tmp_path / 'absent.git'}: no repository there"


class _ReadOnce(bytes):
    """A stream that fails a reader who reads it again and again: a pkt-line reader slices each
    line twice (its size, its data), so more slices than bytes is a loop that never ends."""

    def __getitem__(self, key):  # type: ignore[override]
        self.reads = getattr(self, "reads", 0) + 1
        if self.reads > len(self) + 2:
            raise AssertionError("the stream was read again and again")
        return super().__getitem__(key)


@pytest.mark.parametrize("end", [b"0000", b"0001", b"0002"])
def test_pkt_lines_are_read_to_their_end_packet_and_a_stream_cut_before_it_is_refused(end):
    """pkt-lines (``ls-refs``' answer) up to a flush, delimiter or response end, and where the
    next section starts; each line read once; a stream cut anywhere before the end packet raises,
    never reads as a shorter answer."""
    lines = [b"version 2\n", b"", b"a" * 300 + b"\n", b"0" * 40 + b" refs/heads/main\n"]
    stream = b"".join(b"%04x" % (len(line) + 4) + line for line in lines) + end
    after = b"%04x" % (4 + len(b"more after it\n")) + b"more after it\n0000"
    assert refs._read_pkts(_ReadOnce(stream + after), 0) == (lines, len(stream))
    assert refs._read_pkts(_ReadOnce(stream + after), len(stream)) == ([b"more after it\n"], len(stream + after))
    for cut in range(len(stream)):
        with pytest.raises(ValueError):
            refs._read_pkts(_ReadOnce(stream[:cut]), 0)


@pytest.mark.parametrize("before", [b"", b"000eversion 2\n"])
def test_a_pkt_line_shorter_than_its_own_header_is_refused(before):
    """A length of 3 names no packet (0, 1 and 2 are the special ones; any other counts its own
    4 bytes): the stream is refused, never read as an empty line and a step back."""
    with pytest.raises(ValueError, match="shorter than its own header"):
        refs._read_pkts(_ReadOnce(before + b"0003" + b"0000"), 0)


def _helper_that(tmp_path, monkeypatch, script: str) -> None:
    """``git remote-http`` replaced by ``script`` (sh); every other git command is git's own."""
    import shutil
    real = shutil.which("git")
    fake = tmp_path / "bin" / "git"
    fake.parent.mkdir()
    fake.write_text(f'#!/bin/sh\ncase "$1" in remote-http*) {script} ;; *) exec {real} "$@" ;; esac\n')
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake.parent}:{os.environ['PATH']}")


def test_a_listing_over_http_that_hangs_past_its_deadline_is_one_line_exit_3(tmp_path, monkeypatch):
    """The v2 request has the git deadline too: a helper that takes the request and never answers
    is killed, and the listing is the remote's failure in one line, never a hang."""
    _helper_that(tmp_path, monkeypatch, "read line; echo; exec sleep 5")
    monkeypatch.setattr(refs, "TIMEOUT", 0.5)
    asked: list[list[str]] = []
    monkeypatch.setattr(refs, "run_git", lambda args, *rest, **kw: asked.append(args) or (1, "", ""))
    with pytest.raises(RemoteError) as err:
        refs.ls_remote_branches(rgit.Remote("jax", "http://127.0.0.1:9/jax.git"), "rocm-jaxlib-v*")
    assert str(err.value) == "jax: cannot list http://127.0.0.1:9/jax.git: remote unreachable"
    assert asked == []  # its own failure: not read as a server without v2


def test_a_server_without_protocol_v2_is_listed_by_ls_remote(git_remotes, git_http, tmp_path, monkeypatch):
    """git's helper says ``fallback`` for a server that speaks no v2: the branches are then listed
    with ``ls-remote --heads``, the same ones."""
    remote = rgit.Remote("jax", git_remotes.url("jax", git_http))
    v2 = refs.ls_remote_branches(remote, "rocm-jaxlib-v*")
    _helper_that(tmp_path, monkeypatch, "read line; echo fallback; exit 0")
    asked: list[list[str]] = []
    real = refs.run_git
    monkeypatch.setattr(refs, "run_git", lambda args, *rest, **kw: asked.append(args) or real(args, *rest, **kw))
    assert refs.ls_remote_branches(remote, "rocm-jaxlib-v*") == v2 != {}
    assert [a for a in asked if "ls-remote" in a and "--heads" in a]


@pytest.mark.parametrize("helper, why", [
    # fails at once, its words not UTF-8
    (r"read line; printf 'fatal: caf\351 refused\n' >&2; exit 128", "git failed (fatal: caf\ufffd refused)"),
    # takes the request, answers what is no pkt-line and says why in Latin-1
    (r"read line; echo; cat >/dev/null; printf 'no pkt-line'; printf 'fatal: caf\351\n' >&2; exit 0",
     "git failed (fatal: caf\ufffd)"),
])
def test_a_failed_listing_over_http_is_one_line_of_gits_last_words(tmp_path, monkeypatch, helper, why):
    """A failed v2 listing is one line with git's last words (bytes that are not UTF-8 replaced),
    never a traceback, and never read as a server without v2 (listed again)."""
    _helper_that(tmp_path, monkeypatch, helper)
    asked: list[list[str]] = []
    monkeypatch.setattr(refs, "run_git", lambda args, *rest, **kw: asked.append(args) or (1, "", ""))
    with pytest.raises(UserError) as err:
        refs.ls_remote_branches(rgit.Remote("jax", "http://127.0.0.1:9/jax.git"), "rocm-jaxlib-v*")
    assert str(err.value) == f"jax: cannot list http://127.0.0.1:9/jax.git: {why}"
    assert asked == []


def test_a_listing_rewritten_to_another_http_url_that_fails_is_one_line(monkeypatch):
    """url.<base>.insteadOf leading to another HTTP URL: when both fail, the listing is the remote's
    failure in one line, exit 3 (the rewritten URL is asked too, never a traceback)."""
    socks = [socket.socket() for _ in range(2)]
    for s in socks:
        s.bind(("127.0.0.1", 0))  # ports nobody listens on while the test holds them
    first, moved = (f"http://127.0.0.1:{s.getsockname()[1]}/" for s in socks)
    try:
        monkeypatch.setenv("GIT_CONFIG_COUNT", "1")
        monkeypatch.setenv("GIT_CONFIG_KEY_0", f"url.{moved}.insteadOf")
        monkeypatch.setenv("GIT_CONFIG_VALUE_0", first)
        asked: list[list[str]] = []
        monkeypatch.setattr(refs, "run_git", lambda args, *rest, **kw: asked.append(args) or (1, "", ""))
        with pytest.raises(RemoteError) as err:
            refs.ls_remote_branches(rgit.Remote("jax", f"{first}jax.git"), "rocm-jaxlib-v*")
    finally:
        for s in socks:
            s.close()
    assert str(err.value) == f"jax: cannot list {first}jax.git: remote unreachable"
    assert asked == []  # its failure, not read as a server without v2


@pytest.mark.parametrize("as_uri", [True, False])
def test_a_local_repository_is_listed_by_protocol_v2_as_a_file_url_or_a_path(git_remotes, monkeypatch, as_uri):
    """A remote on this machine (file:// or a plain path) is asked with upload-pack's v2 listing,
    server-filtered, as HTTP is: the same branches, and no ls-remote of every branch."""
    path = git_remotes.root / "jax.git"
    remote = rgit.Remote("jax", path.as_uri() if as_uri else str(path))
    asked: list[list[str]] = []
    real = refs.run_git
    monkeypatch.setattr(refs, "run_git", lambda args, *rest, **kw: asked.append(args) or real(args, *rest, **kw))
    assert refs.ls_remote_branches(remote, "rocm-jaxlib-v*") == {BRANCH: git_remotes.c["J4"]}
    assert asked == []
