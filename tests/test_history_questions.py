"""Every history question a bump asks has the same answer on any shallow boundary, from an
empty cache or a warm one, as git gives on the whole repository.

Histories are generated: a main line, a release branch forked off it, a side branch whose
commits are days older than the pin but merged into the release branch after it (what
upstream syncs do on the real xla), commits an hour to days apart (within the skew a branch
search allows, and wider), and mirrors whose first fetch is 1 to 5 commits deep and whose
first fetch by date reaches 1 to 10 days below a cut (or none: by count only), so every
question meets a boundary somewhere.
"""

from __future__ import annotations

import dataclasses
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from release.sources import git as rgit
from release.sources import mirror as rmirror
from release.sources import partial as rpartial
from release.sources.mirror import SKEW
from tests.support.gitrepos import RepoBuilder, git

DAY = 86400
RELEASE = "rocm-jaxlib-v0.1.0"


@dataclasses.dataclass
class Shape:
    main: int  # commits on main
    fork: int  # the release branch forks off main's commit at this index
    side_fork: int  # the side branch forks off main's commit at this index
    side: int  # commits on the side branch, made before the release branch's
    before: int  # release commits before the merge of the side branch
    after: int  # release commits after it
    gap: int  # hours between commits (within SKEW, or more: a date bound leaves a boundary)
    depth: int  # the mirror's first fetch depth
    pin: int  # index into the release branch's own commits
    old: int  # index into main + release commits: the pin before
    window: int = rpartial.FIRST_WINDOW  # the mirror's first window by date (0: deepen by count only)
    pair: bool = False  # the branch's fetch also brings the old pin's history (as a via dep's check asks)


@st.composite
def shapes(draw) -> Shape:
    main = draw(st.integers(2, 6))
    before, after = draw(st.integers(1, 4)), draw(st.integers(1, 4))
    return Shape(main, draw(st.integers(0, main - 1)), draw(st.integers(0, main - 1)), draw(st.integers(1, 4)),
                 before, after, draw(st.sampled_from((1, 24, 48, 72, 96))), draw(st.integers(1, 5)),
                 draw(st.integers(0, before + after)), draw(st.integers(0, main + before + after)),
                 draw(st.sampled_from((0, DAY, 3 * DAY, 10 * DAY, rpartial.FIRST_WINDOW))), draw(st.booleans()))


def build(root: Path, s: Shape) -> tuple[RepoBuilder, list[str], list[str]]:
    """The repository for ``s``; returns it, main's commits and the release branch's own commits."""
    repo = RepoBuilder(root / "up.git", start=1_700_000_000)
    step = s.gap * 3600
    main = []
    for i in range(s.main):
        repo.time += step
        main.append(repo.commit("main", f"main {i}", {"main.txt": f"{i}\n"}))
    side = []
    for i in range(s.side):  # older than anything on the release branch
        repo.time += step
        side.append(repo.commit("side", f"side {i}", {"side.txt": f"{i}\n"},
                                parents=(main[s.side_fork],) if i == 0 else None))
    release = []
    for i in range(s.before):
        repo.time += step
        release.append(repo.commit(RELEASE, f"release {i}", {"rel.txt": f"{i}\n"},
                                   parents=(main[s.fork],) if i == 0 else None))
    repo.time += step
    release.append(repo.commit(RELEASE, "Merge side", {"side.txt": "merged\n"}, parents=(release[-1], side[-1])))
    for i in range(s.after):
        repo.time += step
        release.append(repo.commit(RELEASE, f"release after {i}", {"rel.txt": f"a{i}\n"}))
    return repo, main, release


def truth_count(repo: RepoBuilder, desc: str, anc: str) -> int:
    return int(git("rev-list", "--count", desc, f"^{anc}", cwd=repo.path))


def truth_ancestor(repo: RepoBuilder, anc: str, desc: str) -> bool:
    import subprocess
    return subprocess.run(["git", "merge-base", "--is-ancestor", anc, desc], cwd=repo.path).returncode == 0


def ask(mirror: rmirror.Mirror, branch: str, old: str, new: str, pair: bool = False) -> dict:
    """What roll asks about a via pin ``new`` after ``old``, in roll's order (``pair``: old's
    history asked for with the branch's, as a via dep's check does)."""
    assert mirror.fetch_commit(new, trees=False) and mirror.fetch_commit(old, trees=False)
    since = mirror.commit_time(new) - SKEW
    answers: dict = {"contains": mirror.branch_contains(branch, new, since, pair=old if pair else None)}
    answers["behind"] = mirror.count(mirror.tracking_ref(branch), new) if answers["contains"] else None
    answers["forward"] = mirror.is_ancestor(old, new)
    answers["backward"] = mirror.is_ancestor(new, old)
    answers["base"] = mirror.merge_base(old, new)
    answers["brings"] = sorted(e.sha for e in mirror.log(old, new))
    answers["drops"] = mirror.count(old, new)
    return answers


@settings(derandomize=True, max_examples=12, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(shape=shapes())
def test_history_questions_hold_on_any_boundary_cold_and_warm(shape, tmp_path):
    root = tmp_path / "case"
    shutil.rmtree(root, ignore_errors=True)
    repo, main, release = build(root, shape)
    new = release[shape.pin]
    old = (main + release)[shape.old]
    tip = release[-1]
    truth = {
        "contains": True, "behind": truth_count(repo, tip, new),
        "forward": truth_ancestor(repo, old, new), "backward": truth_ancestor(repo, new, old),
        "base": git("merge-base", old, new, cwd=repo.path).strip(),
        "brings": sorted(git("rev-list", new, f"^{old}", cwd=repo.path).split()),
        "drops": truth_count(repo, old, new),
    }
    remote = rgit.Remote("xla", repo.url)
    with rmirror.Mirror(root / "cache", remote, first_depth=shape.depth, first_window=shape.window) as cold:
        assert ask(cold, RELEASE, old, new, shape.pair) == truth
    # The same questions again on what the first run left (warm), and in the other order.
    with rmirror.Mirror(root / "cache", remote, first_depth=shape.depth, first_window=shape.window) as warm:
        assert ask(warm, RELEASE, old, new, shape.pair) == truth
        assert ask(warm, RELEASE, new, old)["drops"] == truth_count(repo, new, old)


def test_counting_behind_a_branch_tip_deepens_by_commit_not_by_local_name(tmp_path):
    """The defect the real xla showed: counting "behind that branch's tip" through a boundary
    asked the remote for refs/remotes/origin/<branch> ("couldn't find remote ref")."""
    shape = Shape(main=3, fork=1, side_fork=0, side=3, before=1, after=2, gap=72, depth=1, pin=0, old=0)
    repo, _, release = build(tmp_path, shape)
    with rmirror.Mirror(tmp_path / "cache", rgit.Remote("xla", repo.url), first_depth=1) as m:
        assert m.fetch_commit(release[0], trees=False)
        assert m.branch_contains(RELEASE, release[0], m.commit_time(release[0]) - SKEW)
        assert m.shallow()  # the side branch's old commits sit behind a boundary
        assert m.count(m.tracking_ref(RELEASE), release[0]) == truth_count(repo, release[-1], release[0])


def long_history(path: Path, main: int, forks: tuple[tuple[str, int, int], ...], spacing: int) -> dict:
    """A bare repository with ``main`` commits on main, one every ``spacing`` seconds, then for
    each ``(branch, at, n)`` a branch of ``n`` commits forked off main's commit number ``at``
    (1-based), in one git fast-import. Returns ``{name: [shas]}``."""
    git("init", "--quiet", "--bare", path)
    for key in ("uploadpack.allowFilter", "uploadpack.allowAnySHA1InWant"):
        git("config", key, "true", cwd=path)
    plan = [("main", None)] * main + [(b, at if i == 0 else None) for b, at, n in forks for i in range(n)]
    when, out = 1_700_000_000, []
    for n, (ref, fork) in enumerate(plan, start=1):
        when += spacing
        out.append(f"commit refs/heads/{ref}\nmark :{n}\ncommitter A <a@example.com> {when} +0000\n"
                   f"data 4\nc{n % 100:02d}\n" + (f"from :{fork}\n" if fork else "") + "\n")
    git("fast-import", "--quiet", f"--export-marks={path / 'marks'}", cwd=path, input="".join(out))
    marks = dict(line.split() for line in (path / "marks").read_text().splitlines())
    shas = [marks[f":{n}"] for n in range(1, len(plan) + 1)]
    names, start = {"main": shas[:main]}, main
    for b, _, n in forks:
        names[b], start = shas[start:start + n], start + n
    return names


def test_a_sideways_count_far_below_the_pins_costs_one_round_by_date(tmp_path):
    """The real switch days' cost: a sideways move whose merge-base is ~1,000 commits below the
    new pin (a release branch cut weeks after the old one) is answered exactly in one fetch by
    date after the pins' own, where deepening by count took a round per doubling (64 .. 1,024);
    and it brings a bounded slice of history, never the whole of it, and no trees."""
    hour = 3600
    h = long_history(tmp_path / "up.git", 6_000, (("rocm-jaxlib-v0.1", 5_000, 10), ("rocm-jaxlib-v0.2", 5_900, 20)),
                     spacing=hour // 2)
    old, new = h["rocm-jaxlib-v0.1"][-1], h["rocm-jaxlib-v0.2"][-1]
    up = tmp_path / "up.git"
    truth = {"forward": False, "backward": False, "base": h["main"][4_999],
             "brings": int(git("rev-list", "--count", new, f"^{old}", cwd=up)),
             "drops": int(git("rev-list", "--count", old, f"^{new}", cwd=up))}
    assert (truth["brings"], truth["drops"]) == (920, 10)
    with rmirror.Mirror(tmp_path / "cache", rgit.Remote("xla", (tmp_path / "up.git").as_uri())) as m:
        assert m.fetch_commit(new, trees=False) and m.fetch_commit(old, trees=False)
        pins = m.fetches
        got = {"forward": m.is_ancestor(old, new), "backward": m.is_ancestor(new, old),
               "base": m.merge_base(old, new), "brings": len(m.log(old, new)), "drops": m.count(old, new)}
        assert got == truth
        assert m.fetches - pins == 1
        kinds = subprocess.run(["git", "cat-file", "--batch-all-objects", "--batch-check=%(objecttype)"],
                               cwd=m.path, capture_output=True, text=True, check=True).stdout.split()
        assert set(kinds) == {"commit"}  # no trees
        assert truth["brings"] + truth["drops"] < len(kinds) < 6_030 // 2  # a window of it, not all of it


def test_asking_which_commits_are_here_fetches_nothing(tmp_path):
    """A fetch may mark as cut off a commit it did not send; reading such a commit to see whether
    its parents are here would fetch it (with its trees) from the remote: presence is asked
    without that lazy fetch."""
    h = long_history(tmp_path / "up.git", 10, (), spacing=60)
    with rmirror.Mirror(tmp_path / "cache", rgit.Remote("xla", (tmp_path / "up.git").as_uri()), first_depth=1) as m:
        assert m.fetch_commit(h["main"][-1], trees=False)
        assert m._present({h["main"][-1], h["main"][-2], "0" * 40}) == {h["main"][-1]}
        assert not m.has_commit(h["main"][-2])  # still not here: asking fetched nothing


def test_a_merge_cut_off_with_one_parent_here_stays_cut_off(tmp_path):
    """A fetch one commit deep of a merge whose first parent is already here marks it cut off;
    its other parent (the side branch) is not here, so the mark stays and the side branch's
    commits are fetched and counted, never silently missing."""
    shape = Shape(main=3, fork=1, side_fork=0, side=3, before=2, after=1, gap=24, depth=1, pin=0, old=0, window=0)
    repo, _, release = build(tmp_path, shape)
    merge, first = release[shape.before], release[shape.before - 1]
    with rmirror.Mirror(tmp_path / "cache", rgit.Remote("xla", repo.url), first_depth=1, first_window=0) as m:
        assert m.fetch_commit(first, trees=False) and m.fetch_commit(merge, trees=False)
        assert merge in m.shallow()
        assert m.count(merge, first) == truth_count(repo, merge, first) == 1 + shape.side


def test_a_count_is_exact_when_the_older_pins_boundary_hides_what_a_side_branch_reaches(tmp_path):
    """The newer pin merged a side branch forked off main's root; deepened by count, its history
    reaches the root through the side branch while the older pin's is cut off at the release
    branch's first commit. Seen here, main's root looks new to the newer pin: the older pin's
    boundary hides it, so it is deepened before the count is given."""
    shape = Shape(main=4, fork=3, side_fork=0, side=1, before=2, after=0, gap=96, depth=2, pin=2, old=1, window=0)
    repo, main, release = build(tmp_path, shape)
    merge, older = release[2], release[1]
    with rmirror.Mirror(tmp_path / "cache", rgit.Remote("xla", repo.url), first_depth=2, first_window=0) as m:
        assert m.fetch_commit(older, trees=False) and m.fetch_commit(merge, trees=False)
        assert m.count(merge, older) == truth_count(repo, merge, older) == 2
        assert m.is_ancestor(older, merge) and m.merge_base(older, merge) == older
        assert sorted(e.sha for e in m.log(older, merge)) == sorted(git("rev-list", merge, f"^{older}",
                                                                         cwd=repo.path).split())


@pytest.mark.parametrize("trees", [False, True])
def test_commits_asked_for_together_come_in_one_fetch(tmp_path, trees):
    """A roll needs both pins: asked for together they cost one round trip, not one each; one the
    remote lacks is named alone (the others still arrive), and what is here is not asked again."""
    h = long_history(tmp_path / "up.git", 12, (("side", 4, 3),), spacing=3600)
    old, new, other = h["main"][2], h["side"][-1], h["main"][-1]
    gone = "0123456789abcdef" * 2 + "01234567"
    remote = rgit.Remote("xla", (tmp_path / "up.git").as_uri())
    with rmirror.Mirror(tmp_path / "cache", remote, first_depth=1) as m:
        assert m.fetch_commits((new, old), trees=trees) == set()
        assert m.fetches == 1 and m.has_commit(new) and m.has_commit(old)
        assert not trees or all(m.has_tree(sha) for sha in (new, old))
        assert m.fetch_commits((old, new, old), trees=trees) == set() and m.fetches == 1  # here: no fetch
        assert m.fetch_commits((gone, other), trees=trees) == {gone}
        assert m.has_commit(other) and not m.has_commit(gone)
    with rmirror.Mirror(tmp_path / "cache", remote, first_depth=1) as m:  # the next run: only what is not here
        assert m.fetch_commits((h["main"][5], new, h["side"][0]), trees=trees) == set()
        assert m.fetches == 1 and m.has_commit(h["main"][5]) and m.has_commit(h["side"][0])
