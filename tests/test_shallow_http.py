"""History questions answer the same over smart HTTP as over file://.

Rule: a fetch by date that selects no commit (a branch with no commits since the pin's date, a
pin newer than every working branch of its line) means "that branch does not hold it", whatever
the transport. Over smart HTTP git reports it as "error processing shallow info" (the server's
own words are lost), over file:// as "no commits selected for shallow requests"; the tool must
give the answer or the refusal it gives over file://, never "git failed".
"""

from __future__ import annotations

import pytest

from release.core.config import Dep, RollVia
from release.sources import branches, refs
from release.sources import git as rgit
from release.sources import mirror as rmirror
from tests.support.gitrepos import GitHttpServer, RepoBuilder

DAY = 86400
V = "rocm-jaxlib-v"


@pytest.fixture(scope="module")
def upstream(tmp_path_factory):
    """An xla whose line 0.10.0 branches are months older than the pin, and a newer line that
    holds it; a second repository where every branch is older than the pin."""
    root = tmp_path_factory.mktemp("shallow-http")
    xla = RepoBuilder(root / "xla.git")
    base = xla.commit("main", "root", {"f": "0\n"})
    xla.commit(f"{V}0.10.0", "release 0.10.0", {"r": "1\n"}, parents=(base,))
    xla.commit(f"{V}0.10.0-draft", "draft of 0.10.0", {"d": "1\n"}, parents=(base,))
    xla.commit(f"{V}0.10.0-alpha", "alpha of 0.10.0", {"a": "1\n"}, parents=(base,))
    xla.time += 120 * DAY
    pins = [xla.commit("main", f"later {i}", {"f": f"{i}\n"}) for i in range(5)]
    xla.commit(f"{V}0.11.0", "release 0.11.0", {"r": "2\n"}, parents=(pins[-1],))
    server = GitHttpServer(root).start()
    yield xla, pins, server
    server.stop()


def _remote(upstream, transport: str) -> rgit.Remote:
    xla, _, server = upstream
    return rgit.Remote("xla", server.url("xla.git") if transport == "http" else xla.url)


def _answers(upstream, transport: str, cache) -> dict:
    _, pins, _ = upstream
    remote = _remote(upstream, transport)
    pin = pins[2]
    dep = Dep("xla", remote.url, f"{V}0.10.0", pin, RollVia("jax", "third_party/xla/revision.bzl", "XLA_COMMIT"))
    with rmirror.Mirror(cache, remote, first_depth=1) as m:
        assert m.fetch_commit(pin, trees=False)
        since = m.commit_time(pin) - rmirror.SKEW
        olds = (f"{V}0.10.0-alpha", f"{V}0.10.0-draft")
        return {
            "one old branch": m.branch_contains(f"{V}0.10.0", pin, since),
            "old branches at once": m.containing(olds, pin, since),
            "old and new at once": m.containing((*olds, f"{V}0.11.0"), pin, since),
            "found": branches.find_branch(m, remote, dep, pin, f"{V}*", "0.10.0"),
            "log": [e.sha for e in m.log(pins[0], pins[4])],
        }


def test_a_branch_with_nothing_since_the_pin_holds_nothing_over_http_as_over_file(upstream, tmp_path):
    over_file = _answers(upstream, "file", tmp_path / "file")
    over_http = _answers(upstream, "http", tmp_path / "http")
    assert over_http == over_file
    assert over_file["one old branch"] is False
    assert over_file["old branches at once"] == set()
    assert over_file["old and new at once"] == {f"{V}0.11.0"}
    # The line's branches are all older than the pin: it is found on the newer line's branch.
    assert over_file["found"].branch == f"{V}0.11.0" and over_file["found"].off_line


@pytest.mark.parametrize("stderr", [
    "fatal: error processing shallow info: 4",
    "fatal: no commits selected for shallow requests\nfatal: the remote end hung up unexpectedly",
])
def test_both_transports_words_for_nothing_that_new_are_read_alike(stderr):
    assert rmirror.nothing_since(stderr)
    assert not rmirror.nothing_since("fatal: unable to access 'http://x/': Failed to connect")


def test_a_tip_listed_a_moment_ago_is_fetched_without_listing_the_refs_again(upstream, tmp_path):
    """A bump lists a branch's tip, then fetches that branch: asked for by the listed SHA, the
    fetch is one round trip shorter (no ref listing) and lands on the same tip; a tip gone since
    (a force-push) is not an error, the branch is fetched by its name."""
    _, pins, server = upstream
    remote = rgit.Remote("xla", server.url("xla.git"))
    branch = f"{V}0.11.0"
    tip = refs.ls_remote(remote, branch)
    costs = {}
    gone = "1234567890abcdef" * 2 + "12345678"  # force-pushed away: no longer on the remote
    for how, listed in (("by name", None), ("by tip", tip), ("stale tip", gone)):
        with rmirror.Mirror(tmp_path / how.replace(" ", "-"), remote, first_depth=1) as m:
            server.reset_counts()
            assert m.fetch_branch(branch, listed) == tip
            costs[how] = server.requests
        with rmirror.Mirror(tmp_path / f"{how}-contains".replace(" ", "-"), remote, first_depth=1) as m:
            assert m.fetch_commit(pins[3], trees=False)
            since = m.commit_time(pins[3]) - rmirror.SKEW
            assert m.branch_contains(branch, pins[3], since, listed) is True
    assert costs["by tip"] == costs["by name"] - 1
