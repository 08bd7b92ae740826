"""A cold bump's round trips, counted at a real ``git http-backend`` (issue 36 item 4).

On a real network every HTTP request is a latency: a bump asks each remote for its refs once,
a fetch of history below commits the mirror has is one request (no second negotiation round),
the files the via deps read from their source come in one fetch, and the deps' remotes are
asked at once rather than one after another.
"""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from release.core import config
from release.core.errors import UserError
from release.sources import parallel
from release.sources.git import Remote
from release.sources.mirror import Mirror
from release.sources.roll import roll
from tests.support.gitrepos import JAX_BZL, XLA_BZL, GitHttpServer, RepoBuilder, git, workspace_bzl


def _fetch_processes(server: GitHttpServer, repo: str, listings: int = -1) -> int:
    """git processes that talked to ``repo`` to fetch: each makes one ref advertisement request;
    ``listings`` of them only listed refs (default: each ls-refs was one, none a fetch by name)."""
    alone = len(server.asked("ls-refs", repo)) if listings < 0 else listings
    return len(server.asked("info/refs", repo)) - alone


def test_a_cold_roll_lists_each_remote_once_and_fetches_in_one_round_each(bump_project, git_remotes, git_http,
                                                                            tmp_path):
    """Plugin, jax and xla rolled with an empty cache: one ls-refs per remote (the plugin's tip,
    in the fetch that brings it; each via dep's branches, a listing of its own); every fetch
    answered by its first request."""
    deps = config.load_deps(bump_project(http=git_http) / "deps.yaml")
    git_http.reset_counts()
    result = roll(deps, tmp_path / "cache")
    assert [m.name for m in result.moves] == ["plugin", "jax", "xla"]
    for repo, listings in (("plugin.git", 0), ("jax.git", 1), ("xla.git", 1)):
        assert len(git_http.asked("ls-refs", repo)) == 1, repo
        assert len(git_http.asked("fetch", repo)) == _fetch_processes(git_http, repo, listings), (repo, git_http.log)
    assert not [entry for entry in git_http.log if entry[2] not in ("info/refs", "ls-refs", "fetch")]


def test_a_cold_head_dep_that_via_deps_read_is_listed_and_fetched_in_one_process(bump_project, git_remotes,
                                                                                  git_http, tmp_path):
    """The plugin's tip, which jax and xla read their pins at, comes into an empty cache from one
    git process that lists the branch and fetches it (one ref advertisement, not one for a
    listing and one for a fetch by SHA): at most 7 requests to its remote on a cold roll (the
    tip, the via files, the branch's history: 3 advertisements, 1 ls-refs, 3 fetches). The next
    day, nothing moved, the plugin is listed and nothing fetched (2 requests)."""
    deps = config.load_deps(bump_project(http=git_http) / "deps.yaml")
    git_http.reset_counts()
    result = roll(deps, tmp_path / "cache")
    assert result.moves[0].new == git_remotes.plugin.tip(deps["plugin"].branch)
    plugin = [entry[2] for entry in git_http.log if entry[1].startswith("/plugin.git/")]
    assert plugin[:3] == ["info/refs", "ls-refs", "fetch"], plugin
    assert len(plugin) <= 7, plugin
    git_http.reset_counts()
    again = roll(result.new, tmp_path / "cache")
    assert not again.moves
    assert [entry[2] for entry in git_http.log] == ["info/refs", "ls-refs"], git_http.log


DAY = 86400


def forty_days_of_main(path: Path) -> tuple[RepoBuilder, list[str]]:
    """An upstream whose main has a commit a day for 40 days, and those commits, oldest first."""
    up, main = RepoBuilder(path), []
    for i in range(40):
        up.time += DAY
        main.append(up.commit("main", f"m{i}", {"f.txt": f"{i}\n"}))
    return up, main


def test_history_deepened_below_commits_here_takes_one_request_a_round(tmp_path):
    """A history question that deepens a shallow branch by date several times, in a mirror that
    also holds a newer branch's 30 commits (the newest 16, all git offers first by default, say
    nothing of the branch asked about): each fetch is one request after its advertisement."""
    up, main = forty_days_of_main(tmp_path / "deep.git")
    day = DAY
    up.commit("newer", "n0", {"n.txt": "0\n"}, parents=(main[5],))
    for i in range(1, 30):
        up.commit("newer", f"n{i}", {"n.txt": f"{i}\n"})
    server = GitHttpServer(tmp_path).start()
    try:
        remote = Remote("deep", server.url("deep.git"))
        with Mirror(tmp_path / "cache", remote, first_depth=40) as m:
            m.fetch_branch("newer")
        with Mirror(tmp_path / "cache", remote, first_depth=2, first_window=3 * day) as m:
            m.fetch_branch("main")
            server.reset_counts()
            assert m.count(main[-1], main[0]) == 39
        assert len(server.asked("fetch")) == len(server.asked("info/refs")) >= 1, server.log
    finally:
        server.stop()


def test_the_files_via_deps_read_at_one_commit_come_in_one_fetch(git_remotes, git_http, tmp_path):
    remote = Remote("plugin", git_http.url("plugin.git"))
    p2 = git_remotes.c["P2"]
    with Mirror(tmp_path / "cache", remote) as m:
        assert m.fetch_commit(p2)
        git_http.reset_counts()
        m.fetch_files(p2, [JAX_BZL, XLA_BZL, "MODULE.bazel"])  # the last is not there
        assert [entry[2] for entry in git_http.log] == ["info/refs", "fetch"]
        assert "XLA_COMMIT" in (m.read_file(p2, XLA_BZL) or "")
        assert "JAX_COMMIT" in (m.read_file(p2, JAX_BZL) or "")
        m.fetch_files(p2, [JAX_BZL, XLA_BZL])  # here now: nothing asked
        assert git_http.requests == 2


def test_a_roll_reads_its_via_pins_with_one_fetch_of_files(bump_project, git_http, tmp_path):
    """jax and xla both read their pins from the plugin's new commit: its trees come in one
    fetch and both files in one more, not a fetch per file."""
    deps = config.load_deps(bump_project(http=git_http) / "deps.yaml")
    git_http.reset_counts()
    roll(deps, tmp_path / "cache", only=["plugin", "jax", "xla"])
    # the new tip with its trees, the two files together, the branch's history: three fetches
    assert len(git_http.asked("fetch", "plugin.git")) == 3, git_http.log


# ---------------------------------------------------------------- at once, by repository


def test_groups_run_at_once_and_one_group_in_order():
    """Three groups meet at a barrier only if they run at the same time; a group's own items
    run one after another, in order."""
    barrier = threading.Barrier(3, timeout=10)
    seen: list[str] = []

    def each(item: tuple[str, int]) -> str:
        key, n = item
        if n == 0:
            barrier.wait()  # all three groups' first items at once, or BrokenBarrierError
        seen.append(f"{key}{n}")
        return f"{key}{n}"

    items = [("a", 0), ("b", 0), ("a", 1), ("c", 0), ("a", 2)]
    results, errors = parallel.by_group(items, lambda item: item[0], each)
    assert not errors
    assert results == {0: "a0", 1: "b0", 2: "a1", 3: "c0", 4: "a2"}
    assert [s for s in seen if s.startswith("a")] == ["a0", "a1", "a2"]


def test_a_group_stops_at_its_error_and_others_go_on():
    def each(item: tuple[str, int]) -> int:
        if item == ("a", 1):
            raise ValueError("a1")
        return item[1]

    items = [("a", 0), ("b", 0), ("a", 1), ("a", 2), ("b", 1)]
    results, errors = parallel.by_group(items, lambda item: item[0], each)
    assert results == {0: 0, 1: 0, 4: 1}
    assert list(errors) == [2] and str(errors[2]) == "a1"


def test_one_group_runs_on_the_caller_s_thread_in_order():
    """Deps all on one repository: no thread is started, each runs here, in order."""
    ran: list[tuple[int, str]] = []

    def each(n: int) -> int:
        ran.append((n, threading.current_thread().name))
        return n * 2

    results, errors = parallel.by_group([3, 1, 2], lambda _: "one", each)
    assert (results, errors) == ({0: 6, 1: 2, 2: 4}, {})
    assert ran == [(n, threading.current_thread().name) for n in (3, 1, 2)]


def test_later_hands_over_the_result_or_the_error():
    assert parallel.Later(lambda: 42).get() == 42

    def boom() -> int:
        raise UserError("no")
    with pytest.raises(UserError, match="no"):
        parallel.Later(boom).get()


def test_the_refusal_said_is_the_first_dep_s_whichever_remote_answers_first(bump_project, git_remotes, git_http,
                                                                             tmp_path):
    """The plugin's forky branch pins a fork-only jax commit (refused after a branch search) and
    an xla commit that the xla URL here (the plugin's repository) lacks (refused at once): the
    checks run at once, and the one said is jax's, the first in deps.yaml, as one by one."""
    project = bump_project(http=git_http, plugin_branch="forky", urls={"xla": git_http.url("plugin.git")})
    deps = config.load_deps(project / "deps.yaml")
    jax7 = git_remotes.c["JF"][:7]
    with pytest.raises(UserError, match=rf"^jax: commit {jax7} .*is on no official branch"):
        roll(deps, tmp_path / "cache")
    # The same roll without jax: xla's own refusal.
    with pytest.raises(UserError, match=r"^xla: commit [0-9a-f]{7} .*not found on"):
        roll(deps, tmp_path / "cache2", only=["plugin", "xla"])


def test_a_branch_forked_long_before_the_pin_costs_one_fetch_then_none(tmp_path):
    """Is a pin on main's commit 30 on a release branch forked at main's commit 5? The fetch by
    the pin's date cuts the branch at its first commit, whose one parent is older than that date:
    no path to the pin hides there, so no deepening; and the next day, the branch where it was,
    nothing is fetched. A merge at the same place is deepened (git cut its other parent)."""
    up, main = forty_days_of_main(tmp_path / "fork.git")
    day = DAY
    up.commit("rocm-jaxlib-v1.0", "r0", {"r.txt": "0\n"}, parents=(main[5],))
    up.commit("rocm-jaxlib-v1.0", "r1", {"r.txt": "1\n"})
    server = GitHttpServer(tmp_path).start()
    try:
        remote = Remote("fork", server.url("fork.git"))
        pin = main[30]
        for _ in range(2):
            with Mirror(tmp_path / "cache", remote) as m:
                assert m.fetch_commit(pin, trees=False)
                since = m.commit_time(pin) - 2 * day
                tips = {"rocm-jaxlib-v1.0": up.tip("rocm-jaxlib-v1.0")}
                server.reset_counts()
                assert m.containing(("rocm-jaxlib-v1.0",), pin, since, tips) == set()
                first = len(server.asked("fetch"))
        assert first == 0  # the second day
        with Mirror(tmp_path / "cache", remote) as m:  # an older pin, below the fork: on the branch
            assert m.fetch_commit(main[3], trees=False)
            older = m.commit_time(main[3]) - 2 * day
            assert m.containing(("rocm-jaxlib-v1.0",), main[3], older, tips) == {"rocm-jaxlib-v1.0"}
        up.commit("rocm-jaxlib-v1.0", "merge main", {"r.txt": "m\n"}, parents=(up.tip("rocm-jaxlib-v1.0"), main[-1]))
        with Mirror(tmp_path / "cache", remote) as m:
            tips = {"rocm-jaxlib-v1.0": up.tip("rocm-jaxlib-v1.0")}
            assert m.containing(("rocm-jaxlib-v1.0",), pin, since, tips) == {"rocm-jaxlib-v1.0"}
    finally:
        server.stop()


def test_the_first_day_of_a_branch_forked_long_before_is_one_fetch(tmp_path):
    up = RepoBuilder(tmp_path / "fork1.git")
    day = 86400
    main = []
    for i in range(40):
        up.time += day
        main.append(up.commit("main", f"m{i}", {"f.txt": f"{i}\n"}))
    up.commit("rocm-jaxlib-v1.0", "r0", {"r.txt": "0\n"}, parents=(main[5],))
    server = GitHttpServer(tmp_path).start()
    try:
        remote = Remote("fork1", server.url("fork1.git"))
        with Mirror(tmp_path / "cache", remote) as m:
            assert m.fetch_commit(main[30], trees=False)
            since = m.commit_time(main[30]) - 2 * day
            server.reset_counts()
            tips = {"rocm-jaxlib-v1.0": up.tip("rocm-jaxlib-v1.0")}
            assert m.containing(("rocm-jaxlib-v1.0",), main[30], since, tips) == set()
            assert len(server.asked("fetch")) == 1, server.log
    finally:
        server.stop()


# ---------------------------------------------------------------- no round a fetch already made


def _hourly(path: Path, n: int) -> tuple[RepoBuilder, list[str]]:
    up, main = RepoBuilder(path), []
    for i in range(n):
        up.time += 3600
        main.append(up.commit("main", f"m{i}", {"f.txt": f"{i}\n"}))
    return up, main


def test_a_forward_range_just_above_the_first_fetch_s_boundary_is_listed_without_a_fetch(tmp_path):
    """A head dep's roll: its branch's first fetch (depth 10) ends three commits, three hours,
    below the old pin: a commit there is within the clock skew of the range's lowest commit, yet
    hides nothing, as the range starts at a child of the old pin (a commit cannot be an ancestor
    of its own parent). Listing old..new asks the remote nothing more; a range that starts lower
    still deepens and is exact."""
    up, main = _hourly(tmp_path / "hourly.git", 40)
    server = GitHttpServer(tmp_path).start()
    try:
        with Mirror(tmp_path / "cache", Remote("hourly", server.url("hourly.git")), first_depth=10) as m:
            m.fetch_branch("main")
            server.reset_counts()
            assert m.is_ancestor(main[33], main[39])
            assert [e.sha for e in m.log(main[33], main[39])] == main[:33:-1]
            assert server.requests == 0, server.log
            assert m.count(main[39], main[10]) == 29  # below the boundary: fetched, and exact
            assert server.asked("fetch")
    finally:
        server.stop()


def _forked_long_before(path: Path, fork: int, old_branch: str = "rocm-jaxlib-v0.8.0",
                        new_branch: str = "rocm-jaxlib-v0.9.1", days: int = 40) -> tuple[RepoBuilder, str, str]:
    """``days`` daily commits on main; ``old_branch`` forked at main's commit ``fork`` and
    ``new_branch`` at its tip, each with three commits made after main's last: the old pin is
    the first's tip, the new one the second's (a via dep switching release branches)."""
    up, main = RepoBuilder(path), []
    for i in range(days):
        up.time += DAY
        main.append(up.commit("main", f"m{i}", {"f.txt": f"{i}\n"}))
    pins = []
    for branch, at in ((old_branch, main[fork]), (new_branch, main[-1])):
        for i in range(3):
            up.time += 3600
            up.commit(branch, f"{branch} {i}", {"r.txt": f"{i}\n"}, parents=(at,) if i == 0 else None)
        pins.append(up.tip(branch))
    return up, pins[0], pins[1]


def _switch(m: Mirror, up: RepoBuilder, old: str, new: str, branch: str) -> tuple:
    """What a via dep's check asks, in its order: both commits, is new on ``branch`` (the old
    pin's history asked for with it), then how new relates to old."""
    assert not m.fetch_commits((new, old), trees=False)
    tips = {branch: up.tip(branch)}
    assert m.branch_contains(branch, new, m.commit_time(new) - 2 * DAY, tips[branch], pair=old)
    return m.merge_base(old, new), m.count(new, old), m.count(old, new), len(m.log(old, new))


@pytest.mark.parametrize("fork", [35, 5])
def test_the_branch_search_brings_the_old_pin_s_history_in_its_own_fetch(tmp_path, fork):
    """A via dep switching release branches: the fetch that asks whether the new pin is on its
    branch also asks for both pins' histories as deep as the question after it first would (by
    date, 10 days below the newer here): a merge-base 4 days below costs no fetch after it. One
    35 days below (the old branch forked long before) takes two more: the old branch's first
    commit, cut by that date with its one parent older, sends the next round 10 days below the
    date, not below that commit (as new as the pins: a round that brings nothing), and the one
    after 20 days below that round's date. Answers as git's."""
    up, old, new = _forked_long_before(tmp_path / "f.git", fork)
    truth = (git("merge-base", old, new, cwd=up.path).strip(),
             int(git("rev-list", "--count", new, f"^{old}", cwd=up.path)),
             int(git("rev-list", "--count", old, f"^{new}", cwd=up.path)))
    server = GitHttpServer(tmp_path).start()
    try:
        remote = Remote("f", server.url("f.git"))
        with Mirror(tmp_path / "cache", remote, first_depth=2, first_window=10 * DAY) as m:
            got = _switch(m, up, old, new, "rocm-jaxlib-v0.9.1")
        assert got == (*truth, truth[1])
        assert len(server.asked("fetch")) == (2 if fork == 35 else 4), server.log
    finally:
        server.stop()


def test_a_cold_roll_switching_xla_s_branch_asks_its_remote_one_listing_and_two_fetches(tmp_path, monkeypatch):
    """The plugin's new tip pins xla on another release branch (forked four days below the old
    pin's, in 100 days of history): with an empty cache xla's remote is asked for its branches
    once, for both pins in one fetch, and for the branches with the old pin's history in one
    more (60 days deep, the first window); how the pins relate (sideways, the merge-base, the
    commits each way) then asks nothing."""
    up, old, new = _forked_long_before(tmp_path / "xla.git", 95, days=100)
    plugin = RepoBuilder(tmp_path / "plugin.git")
    p0 = plugin.commit("master", "pin", {XLA_BZL: workspace_bzl("XLA_COMMIT", old)})
    plugin.commit("master", "switch", {XLA_BZL: workspace_bzl("XLA_COMMIT", new)})
    server = GitHttpServer(tmp_path).start()
    try:
        # jax stays, its line recorded: xla's release branch is rocm-jaxlib-v0.9.1, asked alone
        (tmp_path / "deps.yaml").write_text(
            f"deps:\n  plugin:\n    url: {server.url('plugin.git')}\n    branch: master\n    commit: {p0}\n"
            f"    roll: head\n  jax:\n    url: {server.url('jax.git')}\n    branch: main\n    commit: {'f' * 40}\n"
            f"    line: \"0.9.1\"\n    roll: manual\n  xla:\n    url: {server.url('xla.git')}\n"
            f"    branch: rocm-jaxlib-v0.8.0\n    commit: {old}\n    roll: {{via: plugin, file: {XLA_BZL}}}\n")
        deps = config.load_deps(tmp_path / "deps.yaml")
        server.reset_counts()
        asked = _count_questions(monkeypatch)
        moves = {m.name: m for m in roll(deps, tmp_path / "cache", only=["plugin", "xla"]).moves}
        assert [key for key, n in asked.items() if n > 1] == []  # each commit's time, parents, file once
        assert len(server.asked("ls-refs", "xla.git")) == 1, server.log
        assert len(server.asked("fetch", "xla.git")) == _fetch_processes(server, "xla.git") == 2, server.log
    finally:
        server.stop()
    xla = moves["xla"]
    assert (xla.branch, xla.direction, xla.merge_base) == ("rocm-jaxlib-v0.9.1", "sideways",
                                                           git("merge-base", old, new, cwd=up.path).strip())
    assert (xla.count, xla.dropped) == (3 + 4, 3)


def _count_questions(monkeypatch) -> dict[tuple[str, str, str], int]:
    """How many times git is asked, per mirror, for a commit's time, its parents, the blob at
    one of its paths, or whether it is here with its trees (filled as the mirrors ask)."""
    from release.sources import partial

    asked: dict[tuple[str, str, str], int] = {}
    real = partial.run_git

    def counting(args, cwd=None, env=None, input=None, encoding="utf-8"):
        command = [a for a in args if not a.startswith("-")]
        if args[0] == "log" and "--no-walk=unsorted" in args:
            keys = [("time", sha) for sha in (input or "").split()]
        elif args[0] == "rev-list" and "--pretty=raw" in args:
            keys = [("parents", sha) for sha in (input or "").split()]
        elif args[0] == "rev-list" and "--filter=tree:1" in args:
            keys = [("trees", args[-1])]
        elif args[0] == "ls-tree":
            keys = [("file", f"{command[1]}:{path}") for path in command[2:]]
        else:
            keys = []
        for kind, what in keys:
            asked[(str(cwd), kind, what)] = asked.get((str(cwd), kind, what), 0) + 1
        return real(args, cwd, env, input, encoding)

    monkeypatch.setattr(partial, "run_git", counting)
    return asked


def test_a_roll_asks_git_a_commit_s_time_parents_or_file_once(bump_project, git_http, tmp_path, monkeypatch):
    """None of a commit's time, its parents or the blob at one of its paths ever changes, and a
    commit once here with its trees stays so (git fetched it, or said so): a cold roll of
    plugin, jax and xla asks git for each once (a git process is most of what a warm question
    costs), however many questions need it (here and in the switch above)."""
    asked = _count_questions(monkeypatch)
    deps = config.load_deps(bump_project(http=git_http) / "deps.yaml")
    result = roll(deps, tmp_path / "cache")
    assert [m.name for m in result.moves] == ["plugin", "jax", "xla"]
    # (a mirror the roll made is not asked whether it holds a tree at all: it holds nothing)
    assert {"time", "parents", "file"} <= {kind for _, kind, _ in asked} <= {"time", "parents", "file", "trees"}
    assert [key for key, n in asked.items() if n > 1] == []


def _count_processes(monkeypatch, *commands: str) -> list[list[str]]:
    """The git processes a mirror starts whose command is one of ``commands`` (filled as it runs)."""
    from release.sources import partial

    seen: list[list[str]] = []
    real = partial.run_git

    def counting(args, cwd=None, env=None, input=None, encoding="utf-8"):
        if args[0] in commands:
            seen.append([*args, *(["<stdin>", *(input or "").split()] if input is not None else [])])
        return real(args, cwd, env, input, encoding)

    monkeypatch.setattr(partial, "run_git", counting)
    return seen


def test_a_branch_fetched_by_its_listed_tip_is_read_back_without_a_git_process(tmp_path, monkeypatch):
    """A fetch of ``+SHA:refs/remotes/origin/<branch>`` that git says worked set the ref to SHA:
    the branch's tip (and the ref resolved for a count) is read back from that, not asked of git
    (a process each on a bump's critical path); a branch fetched by name is asked, and every
    answer is git's own."""
    up, main = forty_days_of_main(tmp_path / "deep.git")
    up.commit("side", "s0", {"s.txt": "0\n"}, parents=(main[30],))
    side = up.commit("side", "s1", {"s.txt": "1\n"})
    server = GitHttpServer(tmp_path).start()
    try:
        remote = Remote("deep", server.url("deep.git"))
        with Mirror(tmp_path / "cache", remote, first_depth=4) as m:
            assert not m.fetch_commits((main[-1], main[30]), trees=False)
            since = m.commit_time(main[30]) - 2 * DAY
            seen = _count_processes(monkeypatch, "rev-parse", "for-each-ref")
            assert m.fetch_branch("main", main[-1]) == main[-1]
            assert m.branch_tip("main") == main[-1]
            assert m.resolve(m.tracking_ref("main")) == main[-1]
            assert m.containing(("side",), main[30], since, listed={"side": side}) == {"side"}
            assert m.branch_tip("side") == side
            assert [a[0] for a in seen] == ["rev-parse", "for-each-ref", "for-each-ref"], seen  # before the
            # fetches: is main here (its depth), which branches are here (their history); then --contains
            assert "--contains" in seen[-1], seen
            git_says = {ref: git("rev-parse", ref, cwd=m.path).strip()
                        for ref in ("refs/remotes/origin/main", "refs/remotes/origin/side")}
            assert git_says == {"refs/remotes/origin/main": main[-1], "refs/remotes/origin/side": side}
            moved = up.commit("side", "s2", {"s.txt": "2\n"})
            seen.clear()
            assert m.fetch_branch("side") == moved  # by name: git is asked where it went
            assert [a[0] for a in seen] == ["rev-parse"], seen
            assert m.branch_tip("side") == moved and m.resolve(m.tracking_ref("side")) == moved
    finally:
        server.stop()


def _presence(args: list[str]) -> bool:
    """A ``rev-list`` asking only which of some objects are here (``PartialMirror._present``)."""
    return args[0] == "rev-list" and "--missing=print" in args and "--stdin" in args and "--pretty=raw" not in args


def test_a_new_mirror_knows_what_it_holds_after_its_first_fetches(tmp_path, monkeypatch):
    """In a mirror made this run, fetches filter blobs out, so the first files read there are all
    missing: no process asks which blobs are here (one does once a blob came); and two commits
    fetched at depth 1 into it are all it holds, so whether a parent of one is here is known: the
    child of the other loses its shallow mark, the other keeps it, and git is asked only for the
    parents (their raw commits)."""
    up = RepoBuilder(tmp_path / "up.git")
    up.commit("main", "c0", {"a.txt": "a0\n", "b.txt": "b\n"})
    first = up.commit("main", "c1", {"a.txt": "a1\n"})
    second = up.commit("main", "c2", {"a.txt": "a2\n"})
    server = GitHttpServer(tmp_path).start()
    try:
        remote = Remote("up", server.url("up.git"))
        with Mirror(tmp_path / "cache", remote) as m:
            seen = _count_processes(monkeypatch, "rev-list")
            assert m.fetch_tip("main") == second
            m.fetch_files(second, ["a.txt", "b.txt"])
            assert (m.read_file(second, "a.txt"), m.read_file(second, "b.txt")) == ("a2", "b")
            assert not [a for a in seen if _presence(a)], seen
            assert m.fetch_commit(first)
            server.reset_counts()
            m.fetch_files(first, ["a.txt", "b.txt"])  # b's blob is here: only a's is fetched
            assert (m.read_file(first, "a.txt"), m.read_file(first, "b.txt")) == ("a1", "b")
            blob = git("rev-parse", f"{first}:b.txt", cwd=up.path).strip()
            assert [a for a in seen if _presence(a) and blob in a], seen
            assert len(server.asked("fetch")) == 1, server.log
        with Mirror(tmp_path / "cache2", remote) as m:
            seen.clear()
            assert m.fetch_commits((second, first), trees=False) == set()
            assert m.shallow() == {first}
            assert not [a for a in seen if _presence(a)], seen
            assert [a for a in seen if "--pretty=raw" in a], seen
        newer = up.commit("main", "c3", {"a.txt": "a3\n"})
        side = up.commit("side", "s1", {"s.txt": "s\n"}, parents=(first,))
        with Mirror(tmp_path / "cache2", remote) as m:  # holds c1 and c2 from before: c3's parent is here
            assert m.fetch_commits((newer, side), trees=False) == set()
            assert m.shallow() == {first}, m.shallow()
    finally:
        server.stop()


def test_a_commit_asked_about_itself_starts_no_process(tmp_path, monkeypatch):
    """A pin at its branch's tip (the plugin at master's): it is its own ancestor, 0 behind the
    branch and no commits lie between, answered without a git process (a merge-base and a walk of
    its history each were one); a commit and its parent are still asked of git."""
    up, main = forty_days_of_main(tmp_path / "deep.git")
    server = GitHttpServer(tmp_path).start()
    try:
        with Mirror(tmp_path / "cache", Remote("deep", server.url("deep.git")), first_depth=4) as m:
            tip = m.fetch_branch("main", main[-1])
            seen = _count_processes(monkeypatch, "merge-base", "rev-list")
            assert m.is_ancestor(tip, tip)
            assert m.count(m.tracking_ref("main"), tip) == 0 and m.complete_between(tip, tip) == ([], [])
            assert not seen, seen
            assert m.is_ancestor(main[-2], tip) and not m.is_ancestor(tip, main[-2])
            assert m.count(tip, main[-2]) == 1
            assert seen, "a commit and its parent are asked of git"
    finally:
        server.stop()
