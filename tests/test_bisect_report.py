"""What a bisect's report says (``BisectResult.markdown``: the step summary, the terminal and the
hold PR's body), stated on outcomes built by hand: the ends, the culprit with its range in the
table and each pin it moved, the failing step and its log, an undecided or unreproduced bisect
said as such, the hold, the notes, every candidate's row, the probes, the bad step's changelog;
a bisect skipped because its culprit is already known is that one line; upstream words are words.
No git, no store: the flows that produce these outcomes are tests/test_bisect.py's and
tests/test_autobisect.py's."""

from __future__ import annotations

from pathlib import Path

import pytest

from release.jobs.bisect import Candidate, Outcome
from release.jobs.bisect_run import BisectOptions, BisectResult
from release.sources.changelog import SUBJECT_CHARS
from release.sources.holds import KnownHold

GOOD = {"name": "rocm-jax-v0.9.1.dev20261120"}
BAD = {"name": "rocm-jax-v0.9.1.dev20261122"}
SHA = {i: str(i) * 40 for i in range(1, 5)}


def candidate(i: int, subject: str, moved: tuple[str, ...]) -> Candidate:
    return Candidate(i, {"plugin": SHA[i], "jax": f"{i}" * 7 + "j"}, subject, moved)


CANDIDATES = [candidate(1, "plugin: faster init", ("plugin code",)),
              candidate(2, "roll jax and xla", ("jax", "xla")),
              candidate(3, "docs: typo", ()),
              candidate(4, "roll jax again", ("jax",))]


def outcome(first_bad: tuple[int, ...] = (2,), *, probes: dict | None = None, reproduced: bool = True,
            notes: tuple[str, ...] = (), changelog: str = "", candidates: list | None = None) -> Outcome:
    probes = {SHA[1]: {"verdict": "good"},
              SHA[2]: {"verdict": "bad", "step": "build", "message": "undefined symbol hipFoo",
                       "log": "dist/bisect/2222222/build.log"},
              SHA[4]: {"verdict": "bad"}} if probes is None else probes
    return Outcome(dict(GOOD), dict(BAD), list(CANDIDATES if candidates is None else candidates), probes,
                   probed_now=[SHA[2]], first_bad=first_bad, notes=list(notes),
                   state=Path("dist/bisect/state.json"), changelog=changelog, reproduced=reproduced)


TABLE = ("| # | plugin | moved | verdict | subject |\n"
         "|---|---|---|---|---|\n"
         "| 1 | `1111111` | plugin code | good | plugin: faster init |\n"
         "| 2 | `2222222` | jax, xla | bad | roll jax and xla |\n"
         "| 3 | `3333333` | \\- (outside the build) |  | docs: typo |\n"
         "| 4 | `4444444` | jax | bad | roll jax again |\n")


def test_a_found_culprit_is_named_with_its_range_each_pin_it_moved_its_step_and_every_candidate():
    text = BisectResult(GOOD, BAD, outcome(notes=("xla moved outside the plugin: kept at the bad nightly's",),
                                           changelog="### jax\n\n- abc1234 Break the build\n\n")).markdown()
    assert text == (
        "## bisect rocm-jax-v0.9.1.dev20261120..rocm-jax-v0.9.1.dev20261122\n\n"
        "**First bad:** plugin `222222222222` roll jax and xla (candidate 2 of 4); moved: jax, xla\n"
        "Failing step: build: undefined symbol hipFoo\n"
        "Log: `dist/bisect/2222222/build.log`\n"
        "- note: xla moved outside the plugin: kept at the bad nightly's\n\n"
        + TABLE +
        "\nProbes: 1 run now, 3 in total (state: `dist/bisect/state.json`); nothing was published.\n\n"
        "### The bad step\n\n"
        "### jax\n\n- abc1234 Break the build\n")


@pytest.mark.parametrize("probe, said", [
    ({"verdict": "bad", "step": "verify"}, ["Failing step: verify"]),       # no message: no dangling colon
    ({"verdict": "bad", "step": "validate", "message": ""}, ["Failing step: validate"]),
    ({"verdict": "bad", "step": "command", "message": "exit 1: XLA_FLAGS=MAX"}, ["Failing step: command: exit 1: "
                                                                               "XLA_FLAGS=MAX"]),  # its own end kept
    ({"verdict": "bad", "log": "x.log"}, ["Log: `x.log`"]),                  # a command probe: no step
    ({"verdict": "bad"}, []),
    ({}, []),                                                                # a culprit found by ancestry alone
])
def test_the_culprits_step_and_log_are_said_only_when_its_probe_recorded_them(probe, said):
    probes = {SHA[1]: {"verdict": "good"}, SHA[2]: probe}
    lines = BisectResult(GOOD, BAD, outcome(probes=probes)).markdown().splitlines()
    assert lines[2].startswith("**First bad:** plugin `222222222222` roll jax and xla (candidate 2 of 4)")
    assert lines[3:3 + len(said)] == said
    assert lines[3 + len(said)] == ""  # then the table
    assert not any(line.startswith(("Failing step", "Log:")) for line in lines[3 + len(said):])


def test_an_inert_culprit_says_it_moved_no_pin():
    lines = BisectResult(GOOD, BAD, outcome((3,))).markdown().splitlines()
    assert lines[2] == "**First bad:** plugin `333333333333` docs: typo (candidate 3 of 4); moved: nothing (same pins)"


def test_an_undecided_bisect_names_every_commit_it_could_be_and_no_culprit():
    text = BisectResult(GOOD, BAD, outcome((2, 3, 4), changelog="### jax\n- x\n")).markdown()
    lines = text.splitlines()
    assert lines[2] == "**Undecided:** the first bad commit is one of 2222222, 3333333, 4444444 (skipped probes)"
    assert "First bad" not in text and "The bad step" not in text and "Failing step" not in text
    assert TABLE in text


def test_a_bisect_whose_bad_end_probed_good_says_not_reproduced_and_names_no_culprit():
    text = BisectResult(GOOD, BAD, outcome((2,), reproduced=False, changelog="### jax\n- x\n")).markdown()
    assert text.splitlines()[2] == (
        "**Not reproduced:** the bad end probed good; the red nightly's failure does not follow from its "
        "pins (flaky, or outside the pins)")
    assert "First bad" not in text and "Undecided" not in text and "The bad step" not in text


def test_the_hold_delivered_is_said_after_the_culprit_and_before_the_notes():
    held = {"line": "hold plugin at 2222222; committed 222222222222 on hold/plugin, pushed"}
    lines = BisectResult(GOOD, BAD, outcome(notes=("n1", "n2")), hold=held).markdown().splitlines()
    assert lines[3:9] == ["Failing step: build: undefined symbol hipFoo", "Log: `dist/bisect/2222222/build.log`",
                          "Hold committed: hold plugin at 2222222; committed 222222222222 on hold/plugin, pushed",
                          "- note: n1", "- note: n2", ""]


def test_without_a_hold_the_report_says_none_was_committed_nowhere():
    assert "Hold committed" not in BisectResult(GOOD, BAD, outcome(), hold=None).markdown()


def test_a_pin_set_of_no_candidate_still_ends_with_the_probes_and_nothing_published():
    text = BisectResult(GOOD, BAD, outcome((), probes={}, candidates=[], reproduced=False)).markdown()
    assert text.endswith("|---|---|---|---|---|\n\nProbes: 1 run now, 0 in total (state: `dist/bisect/state.json`); "
                         "nothing was published.\n")


HOSTILE = "<img src=x> @team [x](javascript:1) | `tick` #12\n\x1b[2Jsecond"


def test_upstream_words_in_every_place_are_shown_as_the_same_words_and_nothing_else():
    """Subjects, tag names, the probe's step message and log, notes, verdicts (a state.json a probe
    job wrote) and the hold's line: HTML, links, pings, table pipes, backticks and line breaks
    reach the report escaped, so each row stays five cells."""
    hostile = [Candidate(1, {"plugin": SHA[1]}, HOSTILE, (HOSTILE,)), Candidate(2, {"plugin": SHA[2]}, HOSTILE, ())]
    probes = {SHA[1]: {"verdict": HOSTILE}, SHA[2]: {"verdict": "bad", "step": "build", "message": HOSTILE,
                                                     "log": HOSTILE}}
    found = outcome((2,), probes=probes, candidates=hostile, notes=(HOSTILE,))
    data = found.to_json() | {"good": {"name": HOSTILE}, "bad": {"name": HOSTILE}}
    from release.jobs.bisect_run import markdown

    text = markdown(data | {"hold": {"line": HOSTILE}})
    words = "&lt;img src=x> @\u200bteam \\[x\\](javascript:1) \\| \\`tick\\` #\u200b12 second"
    assert text.splitlines()[0] == f"## bisect {words}..{words}"
    assert f"**First bad:** plugin `222222222222` {words} (candidate 2 of 2)" in text
    assert f"Failing step: build: {words}" in text
    assert "Log: `<img src=x> @team [x](javascript:1) | 'tick' #12 second`" in text  # a code span: inert
    assert f"Hold committed: {words}" in text and f"- note: {words}" in text
    assert f"| 1 | `1111111` | {words} | {words} | {words} |" in text
    assert "<img" not in text.replace("`<img", "") and "\x1b" not in text and "\n\n\n" not in text
    assert len(text.splitlines()) == 14  # each line its own: none broke


def test_a_subject_of_100_kb_shows_its_start_only():
    long = "x" * 100_000
    text = BisectResult(GOOD, BAD, outcome(candidates=[candidate(1, "a", ()), candidate(2, long, ("jax",))])).markdown()
    cut = "x" * (SUBJECT_CHARS - 1) + "…"
    assert f"roll {cut}" not in text and f"plugin `222222222222` {cut} (candidate 2 of 2)" in text
    assert f"| {cut} |" in text and "x" * SUBJECT_CHARS not in text


def test_no_line_of_the_report_ends_in_spaces_a_renderer_would_read_as_a_break():
    text = BisectResult(GOOD, BAD, outcome(notes=("trailing   ",), probes={SHA[2]: {"step": "build"}})).markdown()
    assert all(line == line.rstrip() for line in text.splitlines()) and text.endswith(".\n")


KNOWN = KnownHold("plugin", "abcdef0123456789" * 2 + "abcdef01", "open", 7, "https://github.example/pr/7",
                  "hold/plugin")
SKIPPED = ("nothing to do: plugin abcdef0, between rocm-jax-v0.9.1.dev20261120 and rocm-jax-v0.9.1.dev20261122, "
           "is already the culprit (hold PR #7 is open)")


def test_a_bisect_skipped_for_a_known_culprit_is_that_one_line_and_succeeds():
    skipped = BisectResult(GOOD, BAD, skipped=SKIPPED, known=KNOWN)
    assert skipped.markdown() == SKIPPED.replace("#7", "#\u200b7") + "\n"  # a #ref in a summary links nowhere
    assert skipped.text() == SKIPPED
    assert skipped.exit_status == 0 and skipped.culprit is None
    assert skipped.outputs() == {"found": "false", "known": KNOWN.commit}
    assert skipped.to_json() == {"good": GOOD, "bad": BAD, "known": KNOWN.to_json(), "line": SKIPPED}


def test_a_skipped_line_from_outside_is_one_line_and_words_everywhere():
    skipped = BisectResult(GOOD, BAD, skipped=HOSTILE)
    assert skipped.markdown().count("\n") == 1 and "<img" not in skipped.markdown()
    assert "\n" not in skipped.text() and "\x1b" not in skipped.text()
    assert skipped.to_json()["line"] == skipped.text() and skipped.to_json()["known"] is None
    assert skipped.outputs() == {"found": "false"}
    empty = BisectResult(GOOD, BAD, skipped="")
    assert empty.markdown() == "\n" and empty.text() == "" and empty.to_json()["line"] == ""
    assert empty.exit_status == 0


@pytest.mark.parametrize("first_bad, reproduced, status, outputs", [
    ((2,), True, 0, {"found": "true", "first-bad": SHA[2], "moved": "jax,xla"}),
    ((3,), True, 0, {"found": "true", "first-bad": SHA[3], "moved": ""}),
    ((2, 3), True, 1, {"found": "false"}),
    ((2,), False, 1, {"found": "false"}),
])
def test_a_bisect_succeeds_and_says_found_only_with_one_first_bad_commit(first_bad, reproduced, status, outputs):
    result = BisectResult(GOOD, BAD, outcome(first_bad, reproduced=reproduced))
    assert result.exit_status == status and result.outputs() == outputs
    assert result.text() == result.markdown()
    held = {"line": "x"}
    assert BisectResult(GOOD, BAD, outcome(first_bad), hold=held).to_json()["hold"] == held
    assert "hold" not in result.to_json()


@pytest.mark.parametrize("flags, holds, pushes", [
    ({}, False, False), ({"hold": True}, True, False), ({"push": True}, True, True),
    ({"open_pr": True}, True, True),
])
def test_opening_a_pr_pushes_and_pushing_holds(flags, holds, pushes, tmp_path):
    options = BisectOptions(good="g", date=__import__("datetime").date(2026, 11, 22), dist=tmp_path, **flags)
    assert (options.holds, options.pushes) == (holds, pushes)


def test_a_plugin_commit_from_a_tampered_state_keeps_its_table_row_five_cells():
    """The plugin column is a code span; a ``|`` in it (state.json is data) is escaped, since a
    table splits its cells before it reads code spans."""
    odd = [Candidate(1, {"plugin": "ab|cd|ef"}, "s", ("jax",))]
    text = BisectResult(GOOD, BAD, outcome((), probes={}, candidates=odd, reproduced=False)).markdown()
    assert "| 1 | `ab\\|cd\\|e` | jax |  | s |" in text.splitlines()
