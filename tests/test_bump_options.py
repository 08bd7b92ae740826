"""What a bump is asked (``BumpOptions``) and what it says (``BumpResult``), without git or GitHub.

Rules: ``--auto-merge`` implies ``--open-pr``, which implies ``--push``, which implies ``--commit``;
``--dry-run`` writes nothing, so it refuses every one of them, and ``--merge-require`` /
``--merge-method`` need ``--auto-merge``, each in one line; roller.yaml's dry-run turns any request
into a dry run that is never refused; the bump branch is dated by the run's UTC day. Whatever ended
a run, ``$GITHUB_OUTPUT`` has ``changed`` and ``title`` (``branch``, ``pr-number`` when made,
``merged`` when auto-merge ended it) and the step summary says every line the run decided by.
"""

from __future__ import annotations

import datetime as dt
import itertools

import pytest

from release.core.errors import UserError
from release.jobs.bump import BumpOptions, BumpResult, Paragraph, PullBody

NOW = dt.datetime(2026, 11, 22, 3, 0, tzinfo=dt.timezone.utc)
WRITES = ("commit", "push", "open_pr", "auto_merge")


@pytest.mark.parametrize("asked", [dict(zip(WRITES, bits)) for bits in itertools.product((False, True), repeat=4)])
def test_each_write_implies_the_ones_before_it_and_a_dry_run_refuses_them_all(asked):
    options = BumpOptions(now=NOW, **asked)
    assert options.opens_pr == (asked["open_pr"] or asked["auto_merge"])
    assert options.pushes == (asked["push"] or options.opens_pr)
    assert options.commits == (asked["commit"] or options.pushes)
    options.check()  # any of them alone or together: fine
    dry = BumpOptions(now=NOW, dry_run=True, **asked)
    if any(asked.values()):
        with pytest.raises(UserError) as refused:
            dry.check()
        assert str(refused.value) == ("--dry-run writes nothing; it cannot be combined with --commit, --push, "
                                      "--open-pr or --auto-merge")
    else:
        dry.check()


@pytest.mark.parametrize("merge", [{"merge_require": ("build",)}, {"merge_method": "squash"},
                                   {"merge_require": ("a", "b"), "merge_method": "rebase"}])
@pytest.mark.parametrize("others", [{}, {"open_pr": True}, {"push": True, "commit": True}])
def test_the_merge_flags_need_auto_merge(merge, others):
    with pytest.raises(UserError, match="^--merge-require and --merge-method need --auto-merge$"):
        BumpOptions(now=NOW, **merge, **others).check()
    BumpOptions(now=NOW, auto_merge=True, **merge, **others).check()


@pytest.mark.parametrize("asked", [{"auto_merge": True, "merge_require": ("build",), "merge_method": "squash"},
                                   {"merge_require": ("build",)}, {"push": True, "dry_run": True},
                                   {"commit": True, "open_pr": True}])
def test_rollers_dry_run_makes_any_request_a_dry_run_that_writes_nothing(asked):
    """roller.yaml's mode: dry-run is never a refusal: the workflow's flags are set aside."""
    options = BumpOptions(now=NOW, deps=("plugin",), max_log_lines=3, **asked).as_dry_run()
    options.check()
    assert options.dry_run and not (options.commits or options.pushes or options.opens_pr)
    # what to show is kept; every write and merge flag is as if never given
    assert options == BumpOptions(now=NOW, deps=("plugin",), max_log_lines=3, dry_run=True)


@pytest.mark.parametrize("now, day", [
    (dt.datetime(2026, 11, 22, 1, 0, tzinfo=dt.timezone(dt.timedelta(hours=5))), dt.date(2026, 11, 21)),
    (dt.datetime(2026, 11, 21, 23, 30, tzinfo=dt.timezone(dt.timedelta(hours=-2))), dt.date(2026, 11, 22)),
    (NOW, dt.date(2026, 11, 22)),
])
def test_the_bump_branch_is_dated_by_the_runs_utc_day(now, day):
    assert BumpOptions(now=now).branch_date == day
    assert BumpOptions(now=now, date=dt.date(2025, 1, 2)).branch_date == dt.date(2025, 1, 2)


def test_a_run_a_gate_ended_says_its_lines_in_every_output():
    merged = BumpResult(changed=False, title="auto-merge: merged bump PR #3", ended_by="auto-merge",
                        said=("auto-merge: merged bump PR #3", "throttle: no red nightly; rolling"), merged=True,
                        throttle={"state": "clear"}, auto_merge={"action": "merged"}, roller_warning="w")
    assert merged.outputs() == {"changed": "false", "title": "auto-merge: merged bump PR #3", "merged": "true"}
    assert merged.summary() == "## bump\n\nauto-merge: merged bump PR #3\n\nthrottle: no red nightly; rolling\n"
    assert merged.to_json() == {"changed": False, "title": "auto-merge: merged bump PR #3",
                                "throttle": {"state": "clear"}, "roller_warning": "w",
                                "auto_merge": {"action": "merged"}}
    pending = BumpResult(changed=False, title="auto-merge: checks pending", ended_by="auto-merge",
                         said=("auto-merge: checks pending",), merged=False)
    assert pending.outputs() == {"changed": "false", "title": "auto-merge: checks pending", "merged": "false"}
    stopped = BumpResult(changed=False, title="roller stopped", ended_by="mode", said=("roller stopped",),
                         roller="stopped")
    assert stopped.outputs() == {"changed": "false", "title": "roller stopped"}
    assert stopped.to_json() == {"changed": False, "title": "roller stopped", "roller": "stopped"}


@pytest.mark.parametrize("changed", [True, False])
def test_a_run_that_rolled_renders_every_output_from_its_one_body(changed):
    body = PullBody("Bump plugin a..b (1 commit)" if changed else "Pins are current",
                    "### plugin\n" if changed else "Pins are current.\n",
                    (Paragraph("mode", "roller in dry-run"), Paragraph("throttle", "throttle: clear"),
                     Paragraph("auto-merge", "auto-merge: no open bump PR")))
    body = body.adding("deliver", "Ada Person pushed to bump/x")  # said after delivery: last
    result = BumpResult(changed=changed, title=body.title, body=body, facts={"deps": {}},
                        delivered={"branch": "bump/x", "pull_request": {"action": "kept", "number": 4,
                                                                         "reason": "Ada Person pushed to bump/x"}})
    assert body.markdown().endswith("\nroller in dry-run.\n\nthrottle: clear.\n\nauto-merge: no open bump PR.\n"
                                    "\nAda Person pushed to bump/x.\n")
    assert result.decisions == ("roller in dry-run", "throttle: clear") and result.kept == "Ada Person pushed to bump/x"
    assert result.outputs() == {"changed": str(changed).lower(), "title": body.title, "branch": "bump/x",
                                "pr-number": "4"}
    summary = result.summary()
    assert all(line in summary for line in ("roller in dry-run", "throttle: clear", "Ada Person pushed to bump/x"))
    assert summary == (f"## {body.title}\n\n{body.markdown()}" if changed else
                       "## bump: pins are current\n\nAda Person pushed to bump/x\n\n\nroller in dry-run\n\n"
                       "throttle: clear")
    current = BumpResult(changed=False, title="Pins are current",
                         body=PullBody("Pins are current", "Pins are current.\n"))
    assert current.summary() == "## bump: pins are current" and current.outputs() == {
        "changed": "false", "title": "Pins are current"}
    assert list(result.to_json()) == ["changed", "deps", "title", "version", "branch", "pull_request"]


def test_the_gates_run_in_the_documented_order_and_the_first_that_ends_the_run_ends_it(monkeypatch):
    """roller.yaml's mode before the throttle before any write; a merge before the roll; the line
    and the changelog after the roll, delivery last. A gate that ends the run is the last to run."""
    from release.jobs import bump, bump_gates
    assert [gate.name for gate in bump_gates.GATES] == ["mode", "throttle", "checkout", "auto-merge", "cooldown",
                                                        "roll", "line", "changelog", "deliver"]
    ran: list[str] = []
    given = (object(), BumpOptions(now=NOW), {"GITHUB_REPOSITORY": "o/n"}, print, object())  # each gate's inputs

    def gate(name, ends):
        def check(run):
            assert (run.project, run.options, run.env, run.say, run.console) == given
            ran.append(name)
            return (f"{name} ended it",) if ends else None
        return bump_gates.Gate(name, name, check)

    for stop in (None, "a", "b", "c"):
        ran.clear()
        monkeypatch.setattr(bump_gates, "GATES", tuple(gate(n, n == stop) for n in "abc"))
        monkeypatch.setattr(bump_gates.BumpRun, "finished", lambda run: "finished")
        project, options, env, say, console = given
        result = bump.run_bump(project, options, env, say, console=console)  # type: ignore[arg-type]
        assert ran == (list("abc") if stop is None else list("abc")[:"abc".index(stop) + 1])
        if stop is None:
            assert result == "finished"
        else:
            assert (result.ended_by, result.said, result.changed) == (stop, (f"{stop} ended it",), False)
