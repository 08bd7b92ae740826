"""Which branch a pin is recorded on, on histories with the real xla's traps.

Rules: a pin is recorded on the release branch of jax's line when that branch holds it, else on
a working branch of the line (``-soversion``) that does, found without fetching the other
versions' branches; otherwise a working branch (``-upstream-sync``) or a branch far ahead never
wins over a plain release branch; a pin that stays is moved onto its line's branch when it was recorded elsewhere; a
commit on no branch is refused in a bounded number of fetches however many branches match;
and every answer is the same from an empty cache with the shallowest first fetch.
"""

from __future__ import annotations

import shutil
import subprocess

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from release.core import config
from release.core.errors import UserError
from release.sources import branches
from release.sources import mirror as rmirror
from release.sources.roll import roll
from tests.support.gitrepos import JAX_BZL, XLA_BZL
from tests.support.history import build_history, xla_archive
from tests.support.project import write_version_info

V = "rocm-jaxlib-v"


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """The module's history (1.4 CPU-s to build) and what its repositories held when built."""
    history = build_history(tmp_path_factory.mktemp("upstream"))
    repos = (history.plugin, history.jax, history.xla)
    return history, {repo.path: (_refs(repo.path), repo.time) for repo in repos}, dict(history.c)


def _refs(repo) -> dict[str, str]:
    words = git_lines(repo, "for-each-ref", "--format=%(refname) %(objectname)")
    return dict(zip(words[::2], words[1::2]))


@pytest.fixture
def history(built):
    """The history as built: a test's commits, branches and steps applied (which stay upstream)
    are undone first, its refs set back (what a test committed stays, reachable from no ref)."""
    history, held, c = built
    for repo in (history.plugin, history.jax, history.xla):
        refs, repo.time = held[repo.path]
        now = _refs(repo.path)
        undo = [f"delete {ref}\n" for ref in now if ref not in refs]
        undo += [f"update {ref} {sha}\n" for ref, sha in refs.items() if now.get(ref) != sha]
        if undo:
            subprocess.run(["git", "update-ref", "--stdin"], cwd=repo.path, input="".join(undo), text=True, check=True)
    history.c.clear()
    history.c.update(c)
    return history


def project_at(history, tmp_path, step: int, **branch_of: str):
    """A project whose deps.yaml pins what step ``step`` pins (branches as given, else the step's)."""
    root = tmp_path / "proj"
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir()
    write_version_info(root)
    history.apply(step)
    s = history.steps[step]
    text = history.deps_yaml(step)
    head, _, xla = text.partition("  xla:\n")
    text = head + "  xla:\n" + xla.replace(f"branch: {s.xla_branch}", f"branch: {branch_of.get('xla', s.xla_branch)}")
    (root / "deps.yaml").write_text(text)
    return root / "deps.yaml"


def git_show(repo, commit: str, path: str) -> str:
    return subprocess.run(["git", "show", f"{commit}:{path}"], cwd=repo, check=True, capture_output=True,
                          text=True).stdout


def git_lines(repo, *args: str) -> list[str]:
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True).stdout.split()


def pin_xla(history, step: int, sha: str) -> None:
    """A new plugin commit on master pinning xla at ``sha`` (jax as at ``step``)."""
    jax_file = git_show(history.plugin.path, history.steps[step].plugin, JAX_BZL)
    history.plugin.time = max(history.plugin.time, history.xla.time) + 3600
    history.plugin.commit("master", f"Move xla to {sha[:7]}", {
        JAX_BZL: jax_file, XLA_BZL: xla_archive(sha, "0" * 64, history.xla.url.removesuffix("/"))})


def rgit_branches(repo, prefix: str) -> list[str]:
    return git_lines(repo, "for-each-ref", "--format=%(refname:short)", f"refs/heads/{prefix}*")


@pytest.fixture
def fetches(monkeypatch):
    """Fetches made, per remote label."""
    counts: dict[str, int] = {}
    real = rmirror.Mirror._fetch

    def counting(self, *args, **kwargs):
        counts[self.remote.label] = counts.get(self.remote.label, 0) + 1
        return real(self, *args, **kwargs)
    monkeypatch.setattr(rmirror.Mirror, "_fetch", counting)
    return counts


def test_a_pin_that_stays_moves_off_a_stale_branch_onto_its_lines(history, tmp_path, fetches):
    # Step 9: jax on the 0.8.0 line, xla at x80_6, which the far-ahead v0.11.1 and the
    # working branch v0.8.0-upstream-sync hold too ("newest containing branch" chose those).
    for stale in (V + "0.11.1", V + "0.8.0-upstream-sync"):
        deps_file = project_at(history, tmp_path, 9, xla=stale)
        result = roll(config.load_deps(deps_file), tmp_path / "cache")
        (move,) = [m for m in result.moves if m.name == "xla"]
        assert (move.old, move.new, move.old_branch, move.branch) == (history.c["x80_6"], history.c["x80_6"],
                                                                        stale, V + "0.8.0")
        assert move.rebranched and not move.off_line and move.behind == 0
        assert result.new["xla"].branch == V + "0.8.0" and result.new["xla"].commit == history.c["x80_6"]
    # A throttled roller (holds only) leaves even the stale branch as it is: it writes nothing
    # but the moves back holds ask for.
    deps_file = project_at(history, tmp_path, 9, xla=V + "0.11.1")
    assert roll(config.load_deps(deps_file), tmp_path / "cache", holds_only=True).moves == ()
    # Recorded on its line's branch, a pin that stays is not asked about again.
    deps_file = project_at(history, tmp_path, 9)
    fetches.clear()
    assert roll(config.load_deps(deps_file), tmp_path / "cache").moves == ()
    assert fetches.get("xla", 0) == 0


def test_a_pin_off_its_line_says_so_and_prefers_a_plain_release_branch(history, tmp_path):
    # Step 6: jax on 0.7.1 (xla has no such branch); x80_5 is on v0.8.0, its working branch
    # and v0.11.1: the plain release branch nearest the line wins, and the changelog says why.
    deps_file = project_at(history, tmp_path, 5)
    history.apply(6)
    result = roll(config.load_deps(deps_file), tmp_path / "cache", first_depth=1)
    (move,) = [m for m in result.moves if m.name == "xla"]
    assert move.branch == V + "0.8.0"
    assert move.off_line == f"on no release branch of jax's line ({V}0.7.1 is no branch upstream)"


def test_a_pin_on_its_lines_working_branch_is_recorded_there_without_the_other_versions(history, tmp_path,
                                                                                         fetches):
    # Step 9: jax on the 0.8.0 line. xla's 0.8.0 line grows a working branch; the plugin pins
    # its tip, which v0.8.0 lacks but a plain branch of another version merged (v0.9.2, the
    # nearest newer plain one: "plain before working" would record it, thousands behind) and
    # a far-ahead line carries, with twenty more working branches of other versions.
    c = history.c
    deps_file = project_at(history, tmp_path, 9)
    history.apply(9)
    xla = history.xla
    xla.time = max(xla.time, history.plugin.time)
    c["xso1"] = xla.commit(V + "0.8.0-soversion", "Avoid hardcoding soversions", {"xla/so.cc": "1\n"},
                           parents=(c["x80_6"],))
    c["xso2"] = xla.commit(V + "0.8.0-soversion", "Soversions, again", {"xla/so.cc": "2\n"})
    xla.commit(V + "0.9.2", "Merge the soversion fix", {"xla/rocm.cc": "x92\n"}, parents=(c["x91_5"], c["xso2"]))
    for i in range(20):
        xla.commit(f"{V}0.{9 + i % 3}.{i}-upstream-sync", f"sync {i}", {"xla/sync.cc": f"{i}\n"},
                   parents=(c["x91_5"],))
    pin_xla(history, 9, c["xso2"])
    said: list[str] = []
    result = roll(config.load_deps(deps_file), tmp_path / "cache", first_depth=1, say=said.append)
    (move,) = [m for m in result.moves if m.name == "xla"]
    assert (move.new, move.branch) == (c["xso2"], V + "0.8.0-soversion")
    assert move.off_line == f"on no release branch of jax's line ({V}0.8.0 does not hold it)"
    asked = [line for line in said if line.startswith("xla: ") and line.endswith("?")]
    assert asked == [f"xla: is {c['xso2'][:7]} on {V}0.8.0?",
                     f"xla: which of 2 working branches of 0.8.0 hold {c['xso2'][:7]}?"], said
    (mirror,) = (tmp_path / "cache").glob("xla-*.git")
    fetched = git_lines(mirror, "for-each-ref", "--format=%(refname:short)", "refs/remotes/origin/")
    assert fetched and all(branches.of_line(b.removeprefix("origin/"), "0.8.0") for b in fetched), fetched
    # The same roll again, nothing moved upstream: every branch asked is where the mirror saw it.
    fetches.clear()
    again = roll(config.load_deps(deps_file), tmp_path / "cache", first_depth=1)
    # (only the release branch, which does not hold it, is fetched again: its history here ends
    # at a boundary newer than the pin's date, which a merge cut off whole could hide)
    assert again.new["xla"] == result.new["xla"] and fetches.get("xla", 0) <= 1, fetches


def test_a_pin_on_the_branch_a_person_recorded_outside_the_pattern_is_found_there(history, tmp_path):
    # xla recorded on main (outside rocm-jaxlib-v*); the plugin pins main's newest commit,
    # which no release or working branch holds: main is asked with the rest and kept.
    deps_file = project_at(history, tmp_path, 9, xla="main")
    history.apply(9)
    pin_xla(history, 9, history.c["xm10"])
    said: list[str] = []
    result = roll(config.load_deps(deps_file), tmp_path / "cache", say=said.append)
    (move,) = [m for m in result.moves if m.name == "xla"]
    assert (move.new, move.branch) == (history.c["xm10"], "main")
    n = len(rgit_branches(history.xla.path, V)) - 1  # every matching branch but the line's, and main
    assert f"xla: which of {n} branches hold {history.c['xm10'][:7]}?" in said, said


def test_refusing_a_commit_on_no_branch_costs_the_same_however_many_branches_match(history, tmp_path, fetches):
    def refuse(cache: str) -> int:
        deps_file = project_at(history, tmp_path, 16)
        history.apply(17)  # the plugin pins a fork's commit
        fetches.clear()
        with pytest.raises(UserError, match="is on no official branch"):
            roll(config.load_deps(deps_file), tmp_path / cache)
        return fetches["xla"]
    few = refuse("cache-few")
    for i in range(30):  # thirty more matching branches: asked one by one, each was a fetch
        history.xla.set_ref(f"{V}0.5.{i}", history.c["xm1"])
    many = refuse("cache-many")
    # the commit; its line's branch; every other branch at once; deepening the merge v0.11.1 made
    assert many == few <= 4


def test_every_branch_switch_lands_the_same_from_an_empty_cache(history, tmp_path):
    """The answers do not depend on what earlier runs left in the cache: each switch of the
    history, from nothing, with a first fetch one commit deep (every question meets a boundary)."""
    steps = history.steps
    switches = [i for i in range(1, len(steps)) if not steps[i].refused and (
        steps[i].jax_branch != steps[i - 1].jax_branch or steps[i].xla_branch != steps[i - 1].xla_branch)]
    assert len(switches) >= 6
    for i in switches:
        deps_file = project_at(history, tmp_path, i - 1)
        step = history.apply(i)
        result = roll(config.load_deps(deps_file), tmp_path / f"cache{i}", first_depth=1)
        assert (result.new["jax"].commit, result.new["xla"].commit) == (step.jax, step.xla), i
        assert (result.new["jax"].branch, result.new["xla"].branch) == (step.jax_branch, step.xla_branch), i
        for move in result.moves:  # on its line's release branch: nothing to say about the line
            if move.branch == V + (result.new["jax"].line or "?") and move.name != "plugin":
                assert move.off_line == "", (i, move.name)


names = st.builds(lambda v, suffix: f"{V}{'.'.join(map(str, v))}{suffix}",
                  st.tuples(st.integers(0, 1), st.integers(0, 12), st.integers(0, 3)),
                  st.sampled_from(["", "", "-upstream-sync", "-soversion", "-rc"])) | st.sampled_from(
                      ["main", "master", V + "next"])  # a branch a person recorded, outside the versions


def version(name: str) -> tuple[int, ...] | None:
    found = branches.version_in(name)
    return found[0] if found else None


@settings(derandomize=True, max_examples=300, deadline=None)
@given(held=st.sets(names, min_size=1, max_size=12),
       line=st.none() | st.tuples(st.integers(0, 1), st.integers(0, 12), st.integers(0, 3)))
def test_the_preferred_branch_is_the_lines_then_a_plain_one_at_or_above_it(held, line):
    text = ".".join(map(str, line)) if line else None
    best = min(held, key=branches.preference(text))
    versioned = {h for h in held if version(h) is not None}
    plain = {h for h in versioned if not branches.version_in(h)[1]}
    own = {h for h in versioned if version(h) == line}
    assert own == {h for h in held if branches.of_line(h, text)}
    if not versioned:  # only names without a version: any of them (by name, for a stable answer)
        assert best == min(held)
    elif line and V + text in held:
        assert best == V + text
    elif own:  # a working branch of the line: its patches, not a line that merged them
        assert best in own
    elif plain:
        assert best in plain
        above = {h for h in plain if line and version(h) >= line}
        if above:  # the nearest newer release branch, never one far ahead
            assert version(best) == min(version(h) for h in above)
        else:  # the newest older one (without a line: the newest)
            assert version(best) == max(version(h) for h in plain)
    else:  # working branches of other versions beat a name without a version
        assert best in versioned


def test_the_release_branch_of_a_line_is_the_pattern_with_the_line_for_its_one_star():
    assert branches.release_branch(V + "*", "0.8.0") == V + "0.8.0"
    assert branches.release_branch("XLA-v*", "0.8.0") == "XLA-v0.8.0"
    for pattern, line in ((V + "*", None), ("*-v*", "0.8.0"), (V + "0.?*", "0.8.0"), (V + "[0-9]*", "0.8.0"),
                          (V + "0.8.0", "0.8.0")):
        assert branches.release_branch(pattern, line) is None, (pattern, line)
