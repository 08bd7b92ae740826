"""The published-nightly answers of a bisect, at unit level (release.jobs.bisect_published):
which published nightlies are read, and which candidate each answers as good. The whole-flow
cases over a real git history are tests/test_bisect_published.py; these run in milliseconds.
"""

from __future__ import annotations

import dataclasses
import types

import pytest

from release.jobs import bisect_published
from release.jobs.bisect_published import GOOD, answer_from_published, published_after
from release.publish.records import Published, Release

GOOD_TAG = "rocm-jax-v0.9.1.dev20261101"


@dataclasses.dataclass(frozen=True)
class Cand:
    index: int
    commits: dict
    inert: bool = False

    @property
    def sha(self) -> str:
        return f"{self.index:x}" * 40


def line_of(*pins: dict) -> list[Cand]:
    return [Cand(i, dict(p)) for i, p in enumerate(pins)]


PINS = [{"jax": "j0", "plugin": "p0"}, {"jax": "j0", "plugin": "p1"}, {"jax": "j1", "plugin": "p1"},
        {"jax": "j1", "plugin": "p2"}]


def test_a_candidate_with_a_published_nightlys_pins_is_good_and_said_once():
    candidates = line_of(*PINS)
    probes: dict = {}
    said: list[str] = []
    notes = answer_from_published(candidates, [("rocm-jax-v0.9.1.dev20261105", dict(PINS[2]))], probes, said.append)
    c = candidates[2]
    assert list(probes) == [c.sha]
    assert probes[c.sha] == {"verdict": GOOD, "step": None, "log": None, "index": 2,
                             "message": "published as rocm-jax-v0.9.1.dev20261105: built, verified, validated "
                                        "and smoke-tested from these pins",
                             "published": "rocm-jax-v0.9.1.dev20261105"}
    assert notes == said == [f"candidate 2 ({c.sha[:7]}) is good without a build: "
                             "rocm-jax-v0.9.1.dev20261105 was published from its pins"]


def test_every_candidate_some_nightly_answers_is_good_in_the_line_order():
    candidates = line_of(*PINS)
    probes: dict = {}
    published = [("n3", dict(PINS[3])), ("n1", dict(PINS[1]))]   # newest first, as read
    notes = answer_from_published(candidates, published, probes)
    assert list(probes) == [candidates[1].sha, candidates[3].sha]
    assert [p["published"] for p in probes.values()] == ["n1", "n3"]
    assert [n.split(" (")[0] for n in notes] == ["candidate 1", "candidate 3"]


def test_every_pin_of_the_candidate_must_match_and_a_nightlys_extra_pins_do_not_matter():
    candidates = line_of(*PINS)
    probes: dict = {}
    assert answer_from_published(candidates, [("held", {"jax": "j0", "plugin": "p2"}),
                                              ("one", {"plugin": "p2"})], probes) == []
    assert probes == {}
    extra = dict(PINS[0]) | {"xla": "x9"}
    answer_from_published(candidates, [("extra", extra)], probes)
    assert list(probes) == [candidates[0].sha]


def test_an_inert_candidate_answers_for_the_set_the_build_sees():
    """A candidate outside the build builds as the last one that changed it: that one is good."""
    candidates = [Cand(0, PINS[0]), Cand(1, PINS[1]), Cand(2, PINS[2], inert=True), Cand(3, PINS[3], inert=True)]
    probes: dict = {}
    notes = answer_from_published(candidates, [("n", dict(PINS[3]))], probes)
    assert list(probes) == [candidates[1].sha] and probes[candidates[1].sha]["index"] == 1
    assert notes == [f"candidate 1 ({candidates[1].sha[:7]}) is good without a build: n was published from its pins"]


def test_an_inert_candidate_before_any_build_answers_nothing():
    candidates = [Cand(0, PINS[0], inert=True), Cand(1, PINS[1])]
    probes: dict = {}
    assert answer_from_published(candidates, [("n", dict(PINS[0]))], probes) == [] and probes == {}


def test_a_finished_probe_is_never_overwritten():
    candidates = line_of(*PINS)
    probes: dict = {candidates[1].sha: {"verdict": "bad"}}
    said: list[str] = []
    assert answer_from_published(candidates, [("n", dict(PINS[1]))], probes, said.append) == [] == said
    assert probes == {candidates[1].sha: {"verdict": "bad"}}


def test_the_tag_is_shown_as_one_clean_line():
    candidates = line_of(*PINS)
    probes: dict = {}
    notes = answer_from_published(candidates, [("n\x1b[2J\nforged", dict(PINS[0]))], probes)
    shown = probes[candidates[0].sha]["published"]
    assert "\n" not in shown and "\x1b" not in shown
    assert shown in notes[0] and shown in probes[candidates[0].sha]["message"]


def release(tag: str, n: int, *, draft: bool = False) -> Release:
    return Release(n, tag, tag, "", draft, False, None, None)


@pytest.fixture
def store(monkeypatch):
    """A store listing the given releases; each nightly's pins say which release and store they
    were read from (``built_from``'s answer)."""
    import release.publish.drafts as drafts
    monkeypatch.setattr(drafts, "built_from",
                        lambda store, rel, tag: types.SimpleNamespace(commits={"plugin": f"at-{rel.tag}", "tag": tag,
                                                                               "store": store.where}))

    def make(*tags: str, drafts: tuple[str, ...] = ()):
        releases = [release(t, i) for i, t in enumerate(tags)]
        releases += [release(t, 100 + i, draft=True) for i, t in enumerate(drafts)]
        return types.SimpleNamespace(published=lambda: Published.of(releases), where="the store")
    return make


def test_the_nightlies_read_are_the_good_ends_lines_newer_than_it_newest_first(store):
    s = store("rocm-jax-v0.9.1.dev20261103", GOOD_TAG, "rocm-jax-v0.9.1.dev20261120", "rocm-jax-v0.9.1.dev20261031",
              "rocm-jax-v0.10.0.dev20261110", "rocm-jax-v0.9.2.dev20261110", "rocm-jax-v0.9.1rc1",
              "rocm-jax-v0.9.1", "rocm-jax-v0.9.1.post1", "other-v0.9.1.dev20261110",
              drafts=("rocm-jax-v0.9.1.dev20261125",))
    found = published_after(s, GOOD_TAG)
    assert [tag for tag, _ in found] == ["rocm-jax-v0.9.1.dev20261120", "rocm-jax-v0.9.1.dev20261103"]
    assert found[0][1] == {"plugin": "at-rocm-jax-v0.9.1.dev20261120", "tag": "rocm-jax-v0.9.1.dev20261120",
                           "store": "the store"}
    assert all(type(commits) is dict for _, commits in found)


def test_a_good_end_that_is_not_a_published_release_reads_nothing(store):
    s = store("rocm-jax-v0.9.1.dev20261120", drafts=(GOOD_TAG,))
    assert published_after(s, GOOD_TAG) == ()
    assert published_after(store(), GOOD_TAG) == ()


def test_the_newest_sixty_of_many_are_read(store):
    """Sixty: more than gc keeps of a line, so every nightly a bisect may meet."""
    tags = [f"rocm-jax-v0.9.1.dev2026{m:02d}{d:02d}" for m in (11, 12) for d in range(2, 32)]
    tags.append("rocm-jax-v0.9.1.dev20270101")
    s = store(GOOD_TAG, *tags)
    found = [tag for tag, _ in published_after(s, GOOD_TAG)]
    assert len(found) == 60 and found[0] == "rocm-jax-v0.9.1.dev20270101"
    assert found == sorted(tags, reverse=True)[:60]


def test_the_module_reads_the_verdict_bisect_records():
    from release.jobs import bisect
    assert bisect_published.GOOD == bisect.GOOD == "good"


@pytest.mark.parametrize("good, other", [("rocm-jax-v0.9.1.dev20261101", "rocm-jax-v0.9.1.0.dev20261120"),
                                         ("rocm-jax-v0.9.1.0.dev20261101", "rocm-jax-v0.9.1.dev20261120")])
def test_a_line_is_its_first_three_release_numbers_whatever_the_versions_length(store, good, other):
    """0.9.1.0 is 0.9.1 (PEP 440 pads with zeros): a nightly spelled either way is of the line."""
    assert [tag for tag, _ in published_after(store(good, other, "rocm-jax-v0.9.10.dev20261120"), good)] == [other]
