"""``release.jobs.bisect`` at unit level: the search (a pure function of the verdicts), the probe
command's exit codes, the state on disk, the outcome's record, and a whole bisect over candidates
already listed with a stand-in probe. tests/test_bisect.py walks real git histories."""

from __future__ import annotations

import datetime as _dt
import json
import os
import sys
import types
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from release.core.config import parse_deps
from release.core.errors import UserError
from release.jobs import bisect
from release.jobs.bisect import BAD, GOOD, SKIP, Candidate, CommandProbe, Outcome, ProbeResult, State

DAY = _dt.date(2026, 11, 24)


def sha(n: int) -> str:
    return f"{n:x}".rjust(40, "a")


def cand(index: int, moved=("plugin code",), subject: str | None = None) -> Candidate:
    return Candidate(index, {"plugin": sha(index), "jax": sha(100 + index)}, subject or f"commit {index}",
                     tuple(moved))


# ------------------------------------------------------------------ candidates


def test_a_candidate_is_its_plugin_commit_and_inert_when_nothing_built_moved():
    c = cand(3)
    assert c.sha == sha(3) and not c.inert and cand(4, moved=()).inert
    assert c.to_json() == {"index": 3, "plugin": sha(3), "subject": "commit 3",
                           "commits": {"plugin": sha(3), "jax": sha(103)}, "moved": ["plugin code"]}
    assert Candidate.from_json(json.loads(json.dumps(c.to_json()))) == c
    assert Candidate.from_json({"index": "2", "commits": {"plugin": "x"}, "subject": 7, "moved": ["jax"]}) == (
        Candidate(2, {"plugin": "x"}, "7", ("jax",)))


def test_the_plugins_followers_are_every_dep_it_pins_directly_or_through_another():
    deps = parse_deps(Path("deps.yaml"), f"""deps:
  xla:
    url: https://example.invalid/xla.git
    branch: main
    commit: {sha(1)}
    roll: {{via: jax, file: third_party/xla/revision.bzl}}
  plugin:
    url: https://example.invalid/p.git
    branch: main
    commit: {sha(2)}
    roll: head
  jax:
    url: https://example.invalid/jax.git
    branch: main
    commit: {sha(3)}
    roll: {{via: plugin, file: third_party/jax/workspace.bzl}}
""")
    assert bisect.followers(deps) == ("jax", "xla")
    assert bisect.followers(deps, "jax") == ("xla",)
    assert bisect.followers(deps, "xla") == ()


# ------------------------------------------------------------------ the search


def test_the_search_halves_what_is_open_and_ends_at_the_first_bad():
    assert bisect.next_step(1, {}) == ("done", (1,))
    assert bisect.next_step(8, {}) == ("probe", 4)
    assert bisect.next_step(8, {4: GOOD}) == ("probe", 6)
    assert bisect.next_step(8, {4: BAD}) == ("probe", 2)
    assert bisect.next_step(8, {4: GOOD, 6: BAD, 5: BAD}) == ("done", (5,))
    assert bisect.next_step(8, {4: GOOD, 6: GOOD, 7: GOOD}) == ("done", (8,))
    assert bisect.next_step(3, {1: GOOD, 2: GOOD}) == ("done", (3,))


def test_skipped_candidates_tell_nothing_and_may_leave_the_answer_open():
    assert bisect.next_step(4, {2: SKIP}) in (("probe", 1), ("probe", 3))
    assert bisect.next_step(4, {1: GOOD, 2: SKIP, 3: SKIP}) == ("done", (2, 3, 4))
    assert bisect.next_step(5, {1: GOOD, 2: SKIP, 3: BAD}) == ("done", (2, 3))
    assert bisect.next_step(5, {3: GOOD, 2: BAD}) == ("probe", 1)   # a good above a bad counts for nothing


@given(n=st.integers(1, 40), bad=st.data())
def test_the_search_finds_the_first_bad_of_any_history_in_log_probes(n, bad):
    """Candidates 1..n, the first bad at ``first`` (every later one bad too): the search names it
    and probes no candidate twice, in at most ceil(log2(n)) + 1 probes."""
    first = bad.draw(st.integers(1, n))
    verdicts: dict[int, str] = {}
    probes = 0
    while (step := bisect.next_step(n, verdicts))[0] == "probe":
        i = step[1]
        assert 1 <= i <= n and i not in verdicts
        verdicts[i] = BAD if i >= first else GOOD
        probes += 1
    assert step == ("done", (first,)) and probes <= max(n - 1, 0).bit_length() + 1


# ------------------------------------------------------------------ the probe command


@pytest.mark.parametrize(("script", "verdict", "step", "message"), [
    ("exit 0", GOOD, None, ""), ("exit 125", SKIP, "command", "the probe command exited 125 (skip)"),
    ("exit 1", BAD, "command", "the probe command exited 1"),
    ("exit 127", BAD, "command", "the probe command exited 127")])
def test_the_probe_commands_exit_says_good_skip_or_bad_as_git_bisect_run(tmp_path, script, verdict, step, message):
    said: list[str] = []
    got = CommandProbe(f"echo probing $BISECT_INDEX; {script}", tmp_path).run(cand(2), tmp_path, said.append)
    assert got == ProbeResult(verdict, step, str(tmp_path / "probe.log"), message)
    assert (tmp_path / "probe.log").read_text() == "probing 2\n"
    assert said == [f"probe {sha(2)[:7]}: echo probing $BISECT_INDEX; {script}"]
    assert got.to_json() == {"verdict": verdict, "step": step, "log": str(tmp_path / "probe.log"), "message": message}


@pytest.mark.parametrize(("script", "shown"), [("exit 128", "exited 128"), ("exit 200", "exited 200"),
                                               ("kill -TERM $$", "was killed by signal 15")])
def test_an_exit_of_128_or_more_or_a_signal_stops_the_bisect(tmp_path, script, shown):
    with pytest.raises(bisect.ProbeAborted) as stopped:
        CommandProbe(script, tmp_path).run(cand(2), tmp_path, lambda _: None)
    assert str(stopped.value) == (f"probe of {sha(2)[:7]}: the probe command {shown} (128 or more stops a bisect, "
                                  f"as in git bisect run); see {tmp_path / 'probe.log'}, fix it and re-run to resume")


def test_the_probe_command_runs_in_the_checkout_told_every_pin_and_where_to_work(tmp_path):
    root, work = tmp_path / "root", tmp_path / "work"
    root.mkdir()
    work.mkdir()
    c = Candidate(3, {"plugin": sha(3), "jax-tree": sha(4)}, "s", ())
    probe = CommandProbe("pwd; env | grep ^BISECT_ | sort; echo to-stderr >&2", root)
    assert probe.identity == "command: pwd; env | grep ^BISECT_ | sort; echo to-stderr >&2"
    assert probe.run(c, work, lambda _: None).verdict == GOOD
    assert (work / "probe.log").read_text().splitlines() == [
        str(root), f"BISECT_DIR={work}", "BISECT_INDEX=3", f"BISECT_JAX_TREE_COMMIT={sha(4)}",
        f"BISECT_PLUGIN_COMMIT={sha(3)}", "to-stderr"]


def test_a_recorded_only_bisect_never_probes():
    with pytest.raises(UserError, match=rf"^the recorded bisect is not finished: {sha(2)[:7]} needs a probe, "
                                        r"and --recorded-only never probes; run the bisect first$"):
        bisect.RecordedOnly().run(cand(2), Path("."), print)
    assert bisect.RecordedOnly.identity is None


# ------------------------------------------------------------------ the state on disk

GOOD_END = {"name": "0.9.1.dev20261120", "commits": {"plugin": sha(0)}}
BAD_END = {"name": "0.9.1.dev20261124", "commits": {"plugin": sha(9)}}


def opened(path: Path, probe: str | None = "command: make test", reset: bool = False, **ends) -> State:
    return State.open(path, good=ends.get("good", GOOD_END), bad=ends.get("bad", BAD_END), probe=probe,
                      reset=reset, date=DAY)


def test_a_new_state_is_written_only_when_saved_and_reads_back_the_same(tmp_path):
    path = tmp_path / "bisect" / "state.json"
    state = opened(path)
    assert not path.exists() and state.candidates is None
    assert state.data == {"schema": 1, "good": GOOD_END, "bad": BAD_END, "probe": "command: make test",
                          "date": "2026-11-24", "candidates": None, "notes": [], "probes": {}, "running": None}
    state.data["candidates"] = [cand(1).to_json(), cand(2).to_json()]
    state.data["probes"] = {sha(2): {"verdict": BAD}}
    state.save()
    again = opened(path)
    assert again.data == state.data and again.candidates == [cand(1), cand(2)]
    assert again.verdicts([cand(1), cand(2)]) == {2: BAD} and again.verdicts([cand(2)]) == {1: BAD}
    assert opened(path, probe=None).data == state.data          # --recorded-only resumes whichever probe it was
    assert path.read_text() == json.dumps(state.data, indent=2) + "\n"      # a person reads it


def test_reset_starts_over_and_recorded_only_needs_a_recorded_bisect(tmp_path):
    path = tmp_path / "state.json"
    opened(path).save()
    assert opened(path, reset=True, probe="command: other").data["probe"] == "command: other"
    for reset in (False, True):
        with pytest.raises(UserError, match=r"no recorded bisect to report; --recorded-only resumes a finished "
                                            r"one and never probes$"):
            opened(tmp_path / ("none.json" if not reset else "state.json"), probe=None, reset=reset)


@pytest.mark.parametrize(("change", "shown"), [
    ({"good": {"name": "other", "commits": {"plugin": sha(1)}}}, "command: make test"),
    ({"bad": {"name": "other", "commits": {"plugin": sha(8)}}}, "command: make test"),
    ({"probe": "command: make  check"}, "command: make test")])
def test_a_state_of_another_bisect_is_refused_naming_it(tmp_path, change, shown):
    path = tmp_path / "state.json"
    opened(path).save()
    with pytest.raises(UserError) as refused:
        opened(path, **change)
    assert str(refused.value) == (f"{path}: records another bisect (0.9.1.dev20261120..0.9.1.dev20261124, {shown}); "
                                  "pass --reset to start this one")


def test_a_long_probe_is_shown_cut_to_sixty_characters_on_one_line(tmp_path):
    path = tmp_path / "state.json"
    long = "command: " + "x\n" * 40
    opened(path, probe=long).save()
    with pytest.raises(UserError) as refused:
        opened(path)
    shown = " ".join(long.split())[:57] + "..."
    assert f", {shown}); pass --reset" in str(refused.value) and "\n" not in str(refused.value)
    opened(path, probe="command: " + "y" * 51, reset=True).save()
    with pytest.raises(UserError, match=r", command: y{51}\); pass --reset"):
        opened(path)
    opened(path, probe="command: " + "y" * 52, reset=True).save()
    with pytest.raises(UserError, match=r", command: y{48}\.\.\.\); pass --reset"):
        opened(path)


@pytest.mark.parametrize(("text", "why"), [
    ("{not json", r"unreadable \(JSONDecodeError\); pass --reset to start the bisect over$"),
    ('{"schema": 2}', r"not a schema-1 bisect state; pass --reset$"),
    ("{}", r"not a schema-1 bisect state; pass --reset$")])
def test_a_state_that_cannot_be_read_is_one_line_saying_reset(tmp_path, text, why):
    path = tmp_path / "state.json"
    path.write_text(text)
    with pytest.raises(UserError, match=why):
        opened(path)


# ------------------------------------------------------------------ the outcome


def test_the_culprit_is_the_one_first_bad_candidate_of_a_reproduced_failure(tmp_path):
    cands = [cand(1), cand(2), cand(3)]
    probes = {sha(2): {"verdict": BAD, "step": "build", "log": "b.log", "message": "it broke"}}
    outcome = Outcome(GOOD_END, BAD_END, cands, probes, [sha(2)], (2,), ["a note"], tmp_path / "s.json")
    assert outcome.culprit == cands[1]
    data = outcome.to_json()
    assert data["first_bad"] == cands[1].to_json() | {"step": "build", "log": "b.log", "message": "it broke"}
    assert data["candidates"] == [c.to_json() | {"verdict": BAD if c.index == 2 else None, "inert": False}
                                  for c in cands]
    assert {k: data[k] for k in ("probes_run", "probes_total", "undecided", "reproduced", "notes", "state",
                                 "published", "good", "bad", "changelog", "changelog_json")} == {
        "probes_run": 1, "probes_total": 1, "undecided": [], "reproduced": True, "notes": ["a note"],
        "state": str(tmp_path / "s.json"), "published": False, "good": GOOD_END, "bad": BAD_END,
        "changelog": "", "changelog_json": None}
    open_ = Outcome(GOOD_END, BAD_END, cands, {}, [], (2, 3), [], tmp_path)
    assert open_.culprit is None and open_.to_json()["undecided"] == [sha(2), sha(3)]
    assert open_.to_json()["first_bad"] is None
    gone = Outcome(GOOD_END, BAD_END, cands, {}, [], (3,), [], tmp_path, reproduced=False)
    assert gone.culprit is None and gone.to_json()["reproduced"] is False
    unprobed = Outcome(GOOD_END, BAD_END, cands, {}, [], (3,), [], tmp_path).to_json()["first_bad"]
    assert unprobed == cands[2].to_json() | {"step": None, "log": None, "message": None}


# ------------------------------------------------------------------ a whole bisect, candidates listed


class Probe:
    """Says bad from candidate ``first`` on (by plugin sha), good before; records each probe."""

    identity = "command: stand-in"

    def __init__(self, first: int, cands: list[Candidate]):
        self.bad = {c.sha for c in cands if c.index >= first}
        self.probed: list[int] = []

    def run(self, candidate, directory, say):
        assert directory.is_dir() and json.loads((directory.parent / "state.json").read_text())["running"] == \
            candidate.sha
        assert candidate.index not in self.probed, f"candidate {candidate.index} probed twice"  # never redone
        self.probed.append(candidate.index)
        say(f"(probing {candidate.index})")
        return ProbeResult(BAD if candidate.sha in self.bad else GOOD, "command" if candidate.sha in self.bad else None,
                           None, "exited 1" if candidate.sha in self.bad else "")


def listed(tmp_path: Path, cands: list[Candidate], notes=("listed note",), probes=None) -> Path:
    directory = tmp_path / "bisect"
    state = opened(directory / "state.json", probe=Probe.identity)
    state.data["candidates"] = [c.to_json() for c in cands]
    state.data["notes"] = list(notes)
    state.data["probes"] = probes or {}
    state.save()
    return directory


def run(directory: Path, probe, said=None, deps=None, **kw) -> Outcome:
    return bisect.run_bisect(deps, GOOD_END, BAD_END, probe, directory, directory / "cache", date=DAY,
                             say=(said if said is not None else []).append, **kw)


@pytest.mark.parametrize("first", [1, 2, 5, 6])
def test_a_bisect_probes_the_newest_first_then_halves_and_names_the_culprit(tmp_path, first, monkeypatch):
    cands = [cand(1), cand(2), cand(3, moved=()), cand(4), cand(5), cand(6)]
    directory = listed(tmp_path, cands)
    asked = []
    monkeypatch.setattr(bisect, "step_changelog", lambda deps, c, culprit, good, cache, lines: asked.append(
        (deps, c, good, cache)) or (f"changelog of {culprit.index} ({lines} lines)", {"step": culprit.index}))
    probe = Probe(first, cands)
    said: list[str] = []
    outcome = run(directory, probe, said, deps="the deps", max_log_lines=7)
    assert asked == [("the deps", cands, GOOD_END["commits"], directory / "cache")]
    assert (outcome.good, outcome.bad, outcome.state) == (GOOD_END, BAD_END, directory / "state.json")
    assert outcome.probes == json.loads((directory / "state.json").read_text())["probes"]
    assert probe.probed[0] == 6 and 3 not in probe.probed            # the inert one is never probed
    assert outcome.first_bad == (first,) and outcome.culprit == cands[first - 1]
    assert outcome.changelog == f"changelog of {first} (7 lines)" and outcome.changelog_json == {"step": first}
    assert outcome.probed_now == [sha(i) for i in probe.probed] and outcome.reproduced
    assert outcome.notes == ["listed note"] and outcome.candidates == cands
    assert said[0] == ("6 candidate pin sets between 0.9.1.dev20261120 and 0.9.1.dev20261124, "
                       "5 of them changing what is built")
    assert said[1:4] == [f"probe 6/6: {sha(6)[:7]} commit 6", "(probing 6)", f"{sha(6)[:7]} is bad (command: exited 1)"]
    recorded = json.loads((directory / "state.json").read_text())
    assert recorded["running"] is None and set(recorded["probes"]) == {sha(i) for i in probe.probed}
    assert recorded["probes"][sha(6)] == {"verdict": BAD, "step": "command", "log": None, "message": "exited 1",
                                          "index": 6}
    # resumed: nothing probed again, the same answer
    again = Probe(first, cands)
    assert run(directory, again).first_bad == (first,) and again.probed == []


def test_a_failure_the_newest_pins_do_not_reproduce_is_not_bisected(tmp_path):
    cands = [cand(1), cand(2), cand(3)]
    probe = Probe(99, cands)
    said: list[str] = []
    outcome = run(listed(tmp_path, cands), probe, said)
    assert probe.probed == [3] and outcome.reproduced is False and outcome.culprit is None
    assert outcome.first_bad == () and said[-1] == f"{sha(3)[:7]} is good"


def test_a_recorded_bad_end_still_gets_its_own_probe_for_the_log(tmp_path, monkeypatch):
    """The end taken as bad on the nightly's word is probed when it is the answer."""
    monkeypatch.setattr(bisect, "step_changelog", lambda *a: ("", {}))
    cands = [cand(1), cand(2)]
    probes = {sha(2): {"verdict": BAD, "step": "command", "log": None, "message": "", "index": 2}}
    probe = Probe(2, cands)
    outcome = run(listed(tmp_path, cands, probes=probes), probe)
    assert probe.probed == [1] and outcome.first_bad == (2,)


def test_with_nothing_built_between_the_nightlies_nothing_is_probed_and_it_says_why(tmp_path, monkeypatch):
    cands = [cand(1, moved=()), cand(2, moved=())]
    probe = Probe(1, cands)
    tree = {"value": "jax_rocm_plugin/"}       # what build_tree answers: the rocm-jax layout, then jax's tree
    monkeypatch.setattr(bisect, "build_tree", lambda deps: {"the deps": tree["value"]}[deps])
    outcome = run(listed(tmp_path, cands, notes=()), probe, deps="the deps")
    tree["value"] = ""
    everything = run(listed(tmp_path / "b", cands, notes=()), Probe(1, cands), deps="the deps")
    assert probe.probed == [] and outcome.reproduced is False and outcome.first_bad == ()
    assert outcome.notes == ["no plugin commit between the nightlies changes what is built (only files outside "
                             "jax_rocm_plugin/) and no pin moved: the failure does not follow from the pins"]
    assert "(only files no build reads)" in everything.notes[0]


def test_a_bisect_lists_its_candidates_once_and_records_them_with_their_notes(tmp_path, monkeypatch):
    cands = [cand(1), cand(2)]
    listings = []
    monkeypatch.setattr(bisect, "step_changelog", lambda *a: ("", {}))
    monkeypatch.setattr(bisect, "list_candidates", lambda deps, good, bad, cache, say: listings.append(
        (deps, good, bad, cache)) or say("(listing)") or (cands, ["a listing note"]))
    lines_asked = []
    monkeypatch.setattr(bisect, "step_changelog", lambda *a: lines_asked.append(a[-1]) or ("", {}))
    directory = tmp_path / "bisect"
    said: list[str] = []
    outcome = run(directory, Probe(2, cands), said, deps="the deps")
    assert said[0] == "(listing)" and lines_asked == [50]
    assert listings == [("the deps", GOOD_END["commits"], BAD_END["commits"], directory / "cache")]
    recorded = json.loads((directory / "state.json").read_text())
    assert recorded["candidates"] == [c.to_json() for c in cands] and recorded["notes"] == ["a listing note"]
    assert outcome.notes == ["a listing note"]
    run(directory, Probe(2, cands), deps="the deps")
    assert len(listings) == 1


def test_a_recorded_only_report_checks_its_candidates_against_git(tmp_path, monkeypatch):
    cands = [cand(1), cand(2)]
    probes = {c.sha: {"verdict": BAD if c.index == 2 else GOOD, "step": None, "log": None, "message": "",
                      "index": c.index} for c in cands}
    directory = listed(tmp_path, cands, probes=probes)
    asked = []
    monkeypatch.setattr(bisect, "list_candidates", lambda *a: asked.append(a) or (cands, []))
    monkeypatch.setattr(bisect, "step_changelog", lambda *a: ("", {}))
    said: list[str] = []
    assert run(directory, bisect.RecordedOnly(), said, deps="the deps").first_bad == (2,)
    assert asked == [("the deps", GOOD_END["commits"], BAD_END["commits"], directory / "cache", said.append)]
    monkeypatch.setattr(bisect, "list_candidates", lambda *a: ([cand(1), cand(2, subject="rewritten")], []))
    with pytest.raises(UserError, match=r"its candidates are not the plugin commits between 0\.9\.1\.dev20261120 "
                                        r"and 0\.9\.1\.dev20261124; not reporting it"):
        run(directory, bisect.RecordedOnly())


def test_the_published_nightlies_answer_before_any_probe(tmp_path, monkeypatch):
    cands = [cand(1), cand(2), cand(3), cand(4)]
    seen = []

    def answer(candidates, published, probes, say):
        seen.append((candidates, published))
        say("(published)")
        probes[sha(2)] = {"verdict": GOOD, "step": None, "log": None, "index": 2, "message": ""}
        return ["2 built as published 0.9.1.dev20261121"]
    monkeypatch.setattr(bisect.bisect_published, "answer_from_published", answer)
    monkeypatch.setattr(bisect, "step_changelog", lambda *a: ("", {}))
    probe = Probe(3, cands)
    published = (("rocm-jax-v0.9.1.dev20261121", {"plugin": sha(2)}),)
    said: list[str] = []
    outcome = run(listed(tmp_path, cands), probe, said, published=published)
    assert said[0] == "(published)"
    assert seen == [(cands, published)] and 2 not in probe.probed and outcome.first_bad == (3,)
    assert outcome.notes == ["listed note", "2 built as published 0.9.1.dev20261121"]


def test_a_resumed_build_probe_builds_the_version_it_started_with(tmp_path, monkeypatch):
    monkeypatch.setattr(bisect, "step_changelog", lambda *a: ("", {}))
    probe = bisect.BuildProbe(types.SimpleNamespace(), tmp_path / "ws", tmp_path / "cache", DAY)
    assert probe.identity == f"build, verify and validate (Python {sys.version_info[0]}.{sys.version_info[1]})"
    directory = listed(tmp_path, [cand(1)], probes={sha(1): {"verdict": BAD, "step": None, "log": None,
                                                             "message": "", "index": 1}})
    state = json.loads((directory / "state.json").read_text())
    state["date"], state["probe"] = "2026-11-20", probe.identity
    (directory / "state.json").write_text(json.dumps(state))
    bisect.run_bisect(None, GOOD_END, BAD_END, probe, directory, tmp_path / "cache", date=DAY, say=lambda _: None)
    assert probe.date == _dt.date(2026, 11, 20)


def test_one_candidate_probed_bad_is_the_culprit(tmp_path, monkeypatch):
    monkeypatch.setattr(bisect, "step_changelog", lambda *a: ("", {}))
    cands = [cand(1)]
    directory = listed(tmp_path, cands)
    (directory / sha(1)).mkdir()              # a probe killed midway left its directory: probed again there
    outcome = run(directory, Probe(1, cands))
    assert outcome.reproduced and outcome.culprit == cands[0]


def test_a_probe_command_reads_no_input_from_whoever_started_the_bisect(tmp_path):
    """A probe that reads its standard input gets none: it never waits on the terminal the
    bisect runs in (here a pipe with a line in it, put on this process's standard input for
    the probe's run, stands for the terminal)."""
    read_end, write_end = os.pipe()
    os.write(write_end, b"typed by a person\n")
    os.close(write_end)
    saved = os.dup(0)
    os.dup2(read_end, 0)
    try:
        verdict = CommandProbe('read line; echo "got:$line"', tmp_path).run(
            Candidate(1, {"plugin": "a" * 40}, "s", ()), tmp_path, lambda _: None).verdict
    finally:
        os.dup2(saved, 0)
        os.close(saved)
        os.close(read_end)
    assert verdict == GOOD
    assert (tmp_path / "probe.log").read_text() == "got:\n"
