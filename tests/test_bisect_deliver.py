"""What a bisect's hold is and how its delivery is said (``jobs.bisect_run.deliver``), with the
hold's git and GitHub work (``release.sources.holds.deliver_hold``, stated against real
repositories in tests/test_autobisect.py and tests/test_bisect.py) replaced by what it answers:
the hold is the culprit's commit with the reason naming both ends, what moved and the failing
step (a step a state.json names that no probe has is 'probe'); the report is the bisect's own;
the line says what was done: committed, pushed, a pull request opened or refreshed (its URL,
else its number, and why it was kept), or that the culprit is already held and nothing was
written. Without one first bad commit nothing is delivered."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from release.core.errors import UserError
from release.jobs import bisect_run
from release.jobs.bisect_run import deliver
from release.sources import holds
from tests.test_bisect_report import SHA, outcome

PROJECT = SimpleNamespace(deps=SimpleNamespace(path=Path("deps.yaml")))


@pytest.fixture
def handed(monkeypatch):
    """The calls deliver_hold got; ``answer`` is what it returns next."""
    calls: list[dict] = []
    state = {"answer": {"line": "x", "branch": "hold/plugin", "commit": "c" * 40, "pushed": False}}

    def deliver_hold(repo, deps_path, dep, hold, **kw):
        calls.append({"repo": repo, "deps_path": deps_path, "dep": dep, "hold": hold, **kw})
        return dict(state["answer"], line=holds.hold_line(dep, hold))

    monkeypatch.setattr(holds, "deliver_hold", deliver_hold)
    return SimpleNamespace(calls=calls, state=state)


def test_the_hold_is_the_culprit_with_why_and_the_report_is_the_bisects(handed):
    found = outcome(changelog="### jax\n- x\n")
    done = deliver(PROJECT, found, "repo", push=True, pull="pull")  # type: ignore[arg-type]
    [call] = handed.calls
    reason = ("first bad between rocm-jax-v0.9.1.dev20261120 and rocm-jax-v0.9.1.dev20261122 by release bisect "
              "(jax, xla moved; build failed)")
    assert call == {"repo": "repo", "deps_path": Path("deps.yaml"), "dep": "plugin", "hold": call["hold"],
                    "changelog": "### jax\n- x\n", "report": bisect_run.markdown(found.to_json()), "push": True,
                    "pull": "pull"}
    assert (call["hold"].commit, call["hold"].reason) == (SHA[2], reason)
    assert done == {"dep": "plugin", "commit": SHA[2], "reason": reason, "branch": "hold/plugin", "sha": "c" * 40,
                    "pushed": False, "line": f"plugin: held before 2222222 ({reason}); committed {'c' * 12} on "
                                             "hold/plugin"}


@pytest.mark.parametrize("step, said", [("build", "build"), ("verify", "verify"), ("validate", "validate"),
                                        ("fetch", "fetch"), ("command", "command"), (None, "probe"),
                                        ("rm -rf / ; build", "probe"), ("Build", "probe"), ("", "probe")])
def test_the_failing_step_is_a_probes_step_or_probe(handed, step, said):
    probes = {SHA[2]: {"verdict": "bad", "step": step}}
    deliver(PROJECT, outcome(probes=probes), "repo", push=False, pull=None)  # type: ignore[arg-type]
    assert handed.calls[0]["hold"].reason.endswith(f"(jax, xla moved; {said} failed)")
    assert handed.calls[0]["push"] is False and handed.calls[0]["pull"] is None


def test_an_inert_culprit_moved_nothing(handed):
    deliver(PROJECT, outcome((3,), probes={}), "repo", push=False, pull=None)  # type: ignore[arg-type]
    assert handed.calls[0]["hold"].reason.endswith("(nothing moved; probe failed)")


@pytest.mark.parametrize("answer, tail, extra", [
    ({"branch": "hold/plugin", "commit": "c" * 40, "pushed": True},
     f"; committed {'c' * 12} on hold/plugin, pushed", {}),
    ({"branch": "hold/plugin", "commit": "c" * 40, "pushed": True,
      "pull_request": {"action": "opened", "number": 9, "url": "https://github.example/o/n/pull/9"}},
     f"; committed {'c' * 12} on hold/plugin, pushed; pull request opened: https://github.example/o/n/pull/9", {}),
    ({"branch": "hold/plugin-2", "commit": "d" * 40, "pushed": True,
      "pull_request": {"action": "refreshed", "number": 9, "url": None}},
     f"; committed {'d' * 12} on hold/plugin-2, pushed; pull request refreshed: #9", {}),
    ({"branch": "hold/plugin", "pushed": False,
      "pull_request": {"action": "kept", "number": 9, "reason": "a person pushed to hold/plugin"}},
     "; pull request kept: #9 (a person pushed to hold/plugin)", {}),
    ({"pushed": False, "known": {"where": "hold PR #7 is open", "commit": SHA[2]}},
     ": already the culprit (hold PR #7 is open); nothing written", {"branch": None, "sha": None}),
])
def test_the_line_says_what_was_done(handed, answer, tail, extra):
    handed.state["answer"] = answer
    done = deliver(PROJECT, outcome(), "repo", push=True, pull=None)  # type: ignore[arg-type]
    head = holds.hold_line("plugin", handed.calls[0]["hold"])
    assert done["line"] == head + tail
    assert done["pushed"] is answer["pushed"]
    assert {key: done[key] for key in ("pull_request", "known") if key in done} == {
        key: answer[key] for key in ("pull_request", "known") if key in answer}
    assert (done["branch"], done["sha"]) == (extra.get("branch", answer.get("branch")),
                                            extra.get("sha", answer.get("commit")))


@pytest.mark.parametrize("first_bad, reproduced", [((2, 3), True), ((2,), False), ((), True)])
def test_without_one_first_bad_commit_nothing_is_delivered(handed, first_bad, reproduced):
    with pytest.raises(UserError, match="^--hold needs one first bad commit; this bisect did not find one$"):
        deliver(PROJECT, outcome(first_bad, reproduced=reproduced), "repo", push=True, pull=None)  # type: ignore[arg-type]
    assert handed.calls == []
