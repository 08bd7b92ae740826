"""The published nightlies answer a bisect before anything is built (issue 34 item 3): a
nightly of the line published since the good end was built, verified, validated and
smoke-tested from the pins its revisions.json records, so the candidate with those pins is good
without a probe, and only the range above the newest such candidate is probed.

Over the real generated history of tests/support/bisect_history.py (P3 changes nothing the
build reads: it builds as P2 does); probes are commands deciding from real git ancestry.
"""

from __future__ import annotations

import datetime as dt

import pytest

from release.core.config import load_deps
from release.jobs import bisect
from release.jobs.bisect_published import published_after
from release.publish.stores import LocalStore
from tests.support.bisecting import bisect as run_job
from tests.test_bisect import (  # noqa: F401 (fixtures)
    GOOD_TAG,
    calls,
    history,
    mirrors,
    probe_script,
    revisions_json,
    seed_local,
    world,
)

DAY = dt.date(2026, 11, 22)


def run(world, published: dict[str, str], culprit: str | None):
    """run_bisect P0..P8 with a probe that is bad from ``culprit`` on (None: never bad), the
    nightlies ``published`` (tag -> the plugin commit whose pins it was built from) known."""
    h = world.h
    deps = load_deps(world.root / "deps.yaml")
    command = probe_script(world, "plugin", h.c[culprit]) if culprit else "exit 0"
    pins = [(tag, h.pins_at(h.c[at])) for tag, at in published.items()]
    return bisect.run_bisect(deps, {"name": GOOD_TAG, "commits": h.pins_at(h.c["P0"])},
                             {"name": "deps.yaml", "commits": h.pins_at(h.c["P8"])},
                             bisect.CommandProbe(command, world.root), world.root / "dist" / "bisect",
                             world.cache, date=DAY, published=pins)


@pytest.mark.parametrize("published, culprit, good_up_to", [
    ({"n21": "P4"}, "P6", "P4"),
    ({"n21": "P2", "n22": "P5"}, "P6", "P5"),      # two: the newer bounds the range
    ({"n22": "P5", "n21": "P2"}, "P6", "P5"),      # in any order
    ({"n21": "P3"}, "P4", "P2"),                   # P3 builds as P2: P2 is good
    ({"n21": "P7"}, "P8", "P7"),                   # the red nightly's step is the last one
])
def test_only_the_range_above_the_newest_published_nightly_is_probed(world, published, culprit, good_up_to):
    h = world.h
    outcome = run(world, published, culprit)
    assert outcome.culprit is not None and outcome.culprit.sha == h.c[culprit]
    probed = [h.line.index(c[1]) for c in calls(world)]
    assert probed and min(probed) > h.line.index(h.c[good_up_to]), probed
    answered = {sha: p for sha, p in outcome.probes.items() if p.get("published")}
    assert answered and all(p["verdict"] == bisect.GOOD for p in answered.values())
    assert h.c[good_up_to] in answered
    assert any(f"{published_tag} was published from its pins" in note
               for note in outcome.notes for published_tag in published)


def test_a_red_nightly_whose_pins_were_published_green_builds_nothing(world):
    """The bad end's pins are a published nightly's: the failure did not follow from the pins."""
    outcome = run(world, {"n21": "P8"}, "P6")
    assert calls(world) == [] and outcome.probed_now == []
    assert outcome.reproduced is False and outcome.culprit is None


def test_a_nightly_built_from_other_pins_answers_nothing(world):
    """A published nightly whose jax differs from what its plugin commit pins (a hold, an
    override) is no candidate's set: it answers nothing and the search is the plain one."""
    h = world.h
    deps = load_deps(world.root / "deps.yaml")
    other = h.pins_at(h.c["P5"]) | {"jax": h.c["J0"]}
    outcome = bisect.run_bisect(deps, {"name": GOOD_TAG, "commits": h.pins_at(h.c["P0"])},
                                {"name": "deps.yaml", "commits": h.pins_at(h.c["P8"])},
                                bisect.CommandProbe(probe_script(world, "plugin", h.c["P6"]), world.root),
                                world.root / "dist" / "bisect", world.cache, date=DAY,
                                published=[("n21", other)])
    assert outcome.culprit.sha == h.c["P6"]
    assert not any(p.get("published") for p in outcome.probes.values())


def test_a_finished_probe_is_never_overwritten_by_a_published_answer(world):
    h = world.h
    first = run(world, {}, "P6")
    assert first.culprit.sha == h.c["P6"]
    again = run(world, {"n21": "P6"}, "P6")   # resumed: P6 probed bad stays bad
    assert again.probes[h.c["P6"]]["verdict"] == bisect.BAD and not again.probes[h.c["P6"]].get("published")


def test_the_published_nightlies_read_are_the_good_ends_lines_newer_than_it(world, tmp_path):
    h = world.h
    store = tmp_path / "s"
    for tag, at in [(GOOD_TAG, "P0"), ("rocm-jax-v0.9.1.dev20261119", "P1"), ("rocm-jax-v0.9.1.dev20261121", "P2"),
                    ("rocm-jax-v0.9.1.dev20261123", "P4"), ("rocm-jax-v0.10.0.dev20261121", "P5"),
                    ("rocm-jax-v0.9.1rc1", "P6")]:
        version = tag.removeprefix("rocm-jax-v")
        seed_local(store, tag, revisions_json(h, world.root, h.c[at], version), tmp_path)
    found = published_after(LocalStore(store), GOOD_TAG)
    assert [tag for tag, _ in found] == ["rocm-jax-v0.9.1.dev20261123", "rocm-jax-v0.9.1.dev20261121"]
    assert dict(found)["rocm-jax-v0.9.1.dev20261121"] == h.pins_at(h.c["P2"])
    assert published_after(LocalStore(store), "rocm-jax-v0.9.1.dev20261118") == ()   # not published


def test_the_build_bisect_builds_only_above_a_published_nightly(world, fake_bazel, monkeypatch):
    """Real build probes: a nightly published from P5's pins after the good one: nothing at or
    below P5 is built, and the jax roll at P6 is still named (the bad end, probed first: without
    the published answer the search would build below it)."""
    h = world.h
    (world.root / "deps.yaml").write_text(h.deps_yaml(pins=h.pins_at(h.c["P6"])))
    seed_local(world.store, "rocm-jax-v0.9.1.dev20261121",
               revisions_json(h, world.root, h.c["P5"], "0.9.1.dev20261121"), world.tmp)
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    result = run_job(world.root, world.store, good=GOOD_TAG)
    assert result.exit_status == 0
    data = result.to_json()
    assert data["first_bad"]["plugin"] == h.c["P6"]
    built = {p.name for p in (world.root / "dist" / "bisect").iterdir() if (p / "probe.log").exists()}
    assert built == {h.c["P6"]} and data["probes_run"] == 1, built
    assert any("rocm-jax-v0.9.1.dev20261121 was published from its pins" in n for n in data["notes"])


def test_a_probe_command_is_not_answered_by_published_nightlies(world):
    """A command may test what no nightly did (a benchmark): its verdicts are its own."""
    h = world.h
    seed_local(world.store, "rocm-jax-v0.9.1.dev20261121",
               revisions_json(h, world.root, h.c["P5"], "0.9.1.dev20261121"), world.tmp)
    result = run_job(world.root, world.store, good=GOOD_TAG, probe_command=probe_script(world, "plugin", h.c["P2"]))
    data = result.to_json()
    assert result.exit_status == 0 and data["first_bad"]["plugin"] == h.c["P2"]
