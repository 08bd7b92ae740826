"""Issue 25's proof: whole weeks of the roller, scripted, on the GitHub stand-in.

Each test is one week and states its rule. Every day the upstream plugin moves (commits at the
times the script says), bump.yml's scheduled run rolls as the workflow runs it (a fresh clone
of origin's main, the step's env from the workflow file, the argv scripts/bump.sh builds, the
run's clock at the cron minute: tests/support/roller_weeks.py), and CI answers on the bump PR's
head. The stand-in is strict (its ``git_dir`` is origin): a PR's head branch must exist, a
merge needs green checks and the head sha. Nobody else acts unless the week says so.
"""

from __future__ import annotations

import datetime as dt

import pytest

from release.sources.pull_requests import KEPT_MARK
from tests.support.gitrepos import git
from tests.support.roller_weeks import UTC, RollerWorld, Upstreams

MONDAY = dt.date(2026, 11, 23)
WEEK = [MONDAY + dt.timedelta(days=i) for i in range(7)]
START = dt.datetime(2026, 11, 1, 12, tzinfo=UTC)


def at(day: dt.date, hour: float) -> dt.datetime:
    return dt.datetime(day.year, day.month, day.day, tzinfo=UTC) + dt.timedelta(hours=hour)


@pytest.fixture
def up(tmp_path):
    return Upstreams(tmp_path / "upstream", START)


@pytest.fixture
def make_world(tmp_path, github_env, run_cli, monkeypatch, up):
    def make(**kwargs) -> RollerWorld:
        kwargs.setdefault("variables", {"BUMP_AUTO_MERGE": "true"})  # the repository's variable
        return RollerWorld(tmp_path / "world", github_env, run_cli, monkeypatch, up, **kwargs)
    return make


def test_a_green_week_merges_every_bump_with_no_person(make_world, up):
    """Every bump PR the roller opens is merged by the roller once its checks are green: no
    person merges, writes or comments; checks still running at a run are left to finish (no
    merge, no push over them); never more than one bump PR is open; the pins on main follow the
    plugin (never more than two scheduled runs behind its tip, plus the runs that found checks
    still running; the via pins as the plugin pins them)."""
    world = make_world()
    tips = [up.first]  # the plugin's tip before and at each run
    slow = 2  # the day CI is still running at the next run
    for i, day in enumerate([*WEEK, WEEK[-1] + dt.timedelta(days=1), WEEK[-1] + dt.timedelta(days=2)]):
        if i < len(WEEK):  # upstream moves every day (the last two runs only roll and merge)
            up.commit(at(day, -10 + i % 3), jax=True, xla=i % 3 == 0)
        tips.append(up.tip)
        heads = {p["number"]: world.tip(p["head"]["ref"]) for p in world.open_pulls()}
        run = world.bump(day)
        assert run.code == 0, run.err
        opened = world.open_pulls()
        assert len(opened) == (0 if run.merge.get("action") == "merged" else 1), (day, run.data)
        if i == slow + 1:  # yesterday's checks still running: not merged, not pushed over
            assert run.merge["action"] == "waiting" and "pending" in run.merge["line"], run.data
            assert {p["number"]: world.tip(p["head"]["ref"]) for p in opened} == heads and run.writes == []
        pins = world.pins()
        assert pins["plugin"] in tips[-3 - (i > slow):], f"{day}: main is too far behind the plugin"
        assert (pins["jax"], pins["xla"]) == up.pins[pins["plugin"]]
        world.ci("running" if i == slow else "success")  # CI runs on the bump PR's new head
    merged = [run.merge["number"] for run in world.runs if run.merge.get("action") == "merged"]
    pulls = world.fake.pulls()
    assert len(pulls) >= 4 and [p["number"] for p in pulls if p.get("merged")] == merged
    assert all(p["state"] == "closed" and p.get("merged") for p in pulls), "a bump PR was left for a person"
    assert world.pins()["plugin"] == up.tip  # the last roll (of the week's last upstream move) landed
    # Nobody but the tool wrote: every commit on main after the first is GitHub's merge of the
    # tool's own commit, and the stand-in saw no comment.
    for sha in world.first_parents()[:-1]:
        _, theirs = world.merge_parents(sha)
        assert world.author(theirs) == ("jax-rocm-release", "jax-rocm-release")
    assert all(world.fake.comments(p["number"]) == [] for p in pulls)
    assert world.fake.violations == []


def test_a_persons_commit_is_kept_the_roller_waits_then_rolls_on_a_new_branch(make_world, up):
    """A person pushes a fix onto the bump branch: the roller never force-pushes over it nor
    merges it, says so on the PR once, opens no other roll while that PR is open; once the
    person merges it, the next run opens a new branch on top of their work, and that one merges
    itself."""
    world = make_world()
    up.commit(at(WEEK[0], -8))
    first = world.bump(WEEK[0])
    number, branch = first.pull["number"], first.pull["branch"]
    world.ci("success")
    theirs = world.person_commits(branch, {"FIX.md": "the roll needs this\n"}, "Fix the build for this roll")
    world.ci("success")  # their push is green too: green is not enough
    for day in WEEK[1:3]:
        up.commit(at(day, -8), xla=True)
        run = world.bump(day)
        assert run.code == 0, run.err
        assert run.merge["action"] == "kept" and run.pull["action"] == "kept", run.data
        assert world.tip(branch) == theirs, f"{day}: the person's commit was overwritten"
        assert [p["number"] for p in world.open_pulls()] == [number]
        assert [r for r in world.refs() if r.startswith("refs/heads/bump/")] == [f"refs/heads/{branch}"]
        assert "Ada Person" in run.summary and f"#{number}" in run.summary
        comments = world.fake.comments(number)
        assert len(comments) == 1 and KEPT_MARK in comments[0]["body"]
        # The run wrote one comment in all (on its first day), nothing else.
        assert run.writes == ([("POST", f"/repos/{world.fake.repo}/issues/{number}/comments")]
                              if day == WEEK[1] else [])
    merged_main = world.person_merges(number)
    assert world.merge_parents(merged_main)[1] == theirs

    up.commit(at(WEEK[3], -8))
    run = world.bump(WEEK[3])
    assert run.merge["action"] == "none" and run.pull["action"] == "opened", run.data
    second = run.pull["branch"]
    assert second != branch and world.tip(branch) == theirs
    assert world.merge_parents(world.tip(second))[0] == merged_main, "the roll is not on the person's work"
    world.ci("success")
    run = world.bump(WEEK[4])
    assert run.merge["action"] == "merged" and run.merge["number"] == run.merge["number"] != number
    assert world.pins()["plugin"] == up.tip
    assert (world.first_parents()[1], len(world.fake.comments(number))) == (merged_main, 1)
    assert world.fake.violations == []


def test_dry_run_writes_nothing_all_week(make_world, up):
    """roller.yaml ``mode: dry-run`` (a reviewed commit on main): all week, with upstream moving
    and a green bump PR of the tool's waiting (then a person's push on it, which a running roller
    would comment on), no run writes anything: no request that changes GitHub, no branch or
    commit on origin, none in its own checkout; each says why. Back to ``running``, the next
    run acts again."""
    world = make_world()
    up.commit(at(WEEK[0], -30))
    opened = world.bump(WEEK[0] - dt.timedelta(days=1))
    assert opened.pull["action"] == "opened"
    world.ci("success")
    world.person_commits("main", {"roller.yaml": "mode: dry-run\n"}, "Pause the roller: dry-run")
    refs, pulls = world.refs(), world.fake.pulls()
    for i, day in enumerate(WEEK):
        up.commit(at(day, -9), jax=True, xla=i % 2 == 0)
        if i == 3:  # a person pushes a fix onto the waiting bump PR
            world.person_commits(opened.pull["branch"], {"FIX.md": "fix\n"}, "Fix the roll")
            refs = world.refs()
        run = world.bump(day)
        assert run.code == 0, run.err
        assert run.writes == [], f"{day}: dry-run wrote {run.writes}"
        assert world.refs() == refs and world.fake.pulls() == pulls
        assert run.data["roller"] == "dry-run" and "mode: dry-run" in run.summary
        assert run.data["changed"] is True and run.data["deps"]["plugin"]["new"] == up.tip  # it shows the roll
        assert git_lines(run.checkout, "for-each-ref", "--format=%(objectname) %(refname)", "refs/heads/") == [
            f"{refs['refs/heads/main']} refs/heads/main"]
        assert git_lines(run.checkout, "status", "--porcelain") == []
    assert world.fake.comments(opened.pull["number"]) == []
    world.person_commits("main", {"roller.yaml": "mode: running\n"}, "Resume the roller")
    run = world.bump(WEEK[-1] + dt.timedelta(days=1))
    assert run.data.get("roller") is None and run.pull["action"] == "kept"
    assert run.writes == [("POST", f"/repos/{world.fake.repo}/issues/{opened.pull['number']}/comments")]


def git_lines(cwd, *args) -> list[str]:
    return git(*args, cwd=cwd).splitlines()


COOLDOWN = 24


def cooldown_schedule(seed: int) -> list[list[float]]:
    """Per day of the week, the hours (from that day's midnight, UTC) of the plugin's commits
    before that day's run: generated (fixed seed), with the edges put in: a commit exactly the
    cooldown old at a run, one a second short of it, a quiet day, a burst."""
    import random
    rnd = random.Random(seed)
    run = 5 + 17 / 60  # bump.yml's cron
    days: list[list[float]] = [sorted(rnd.uniform(-40, -25) for _ in range(2)) + [run - 3]]
    days.append([])  # a quiet day: yesterday's young tip has soaked by now
    days.append([run - 2])  # only a young commit, nothing else crossed the line: the PR stays
    days.append([run - COOLDOWN + 1 / 3600, run - 1])  # a second short of the cooldown at the run
    days.append([run - COOLDOWN, run - 2])  # exactly the cooldown old at the run
    days += [sorted(rnd.uniform(-18.7, run - 0.1) for _ in range(rnd.randint(1, 3))) for _ in range(2)]
    return days


@pytest.mark.parametrize("seed", [7])
def test_cooldown_picks_the_newest_soaked_commit_each_day(make_world, up, seed):
    """roller.yaml ``cooldown_hours: 24``: each day's bump PR pins the newest plugin commit at
    least 24 hours old at the run (the script's own record of commit times decides, not git),
    never a tip that has not soaked, and says so when it leaves commits to soak; when nothing
    new has soaked the PR stays as it was."""
    world = make_world(roller=f"cooldown_hours: {COOLDOWN}\n", variables={})
    previous, seen = up.first, set()
    for day, hours in zip(WEEK, cooldown_schedule(seed)):
        for hour in hours:
            up.commit(at(day, hour), xla=hour > 0)
        before = {p["number"]: world.tip(p["head"]["ref"]) for p in world.open_pulls()}
        run = world.bump(day)
        assert run.code == 0, run.err
        expect = up.newest_at_least(COOLDOWN, run.now)
        young = [sha for sha, t in up.times.items() if t > run.now.timestamp() - COOLDOWN * 3600]
        pulls = world.open_pulls()
        if expect == up.first:
            assert pulls == [] and run.data["changed"] is False
            continue
        (pull,) = pulls
        assert world.tip(pull["head"]["ref"]) == run.data["commit"], "the answer names a commit not pushed"
        pinned = world.pins(f"refs/heads/{pull['head']['ref']}")
        assert pinned["plugin"] == expect, f"{day}: the PR pins {pinned['plugin'][:7]}, not the newest soaked"
        assert pinned["plugin"] not in young
        assert (pinned["jax"], pinned["xla"]) == up.pins[expect]
        said = [n for n in run.data.get("notes", []) if "cooldown" in n]
        assert bool(said) == bool(young), (day, said, young)
        if young:
            assert f"{len(young)} newest commit" in said[0] and expect[:7] in said[0]
            seen.add("young tip")
        seen.add("same" if previous == expect else "moved")
        if previous == expect:  # nothing new soaked: the PR's head is not pushed again
            assert world.tip(pull["head"]["ref"]) == before[pull["number"]], f"{day}: pushed the same roll again"
        previous = expect
    assert seen == {"same", "moved", "young tip"}, "the week did not cover its cases"
    assert world.pins()["plugin"] == up.first  # nothing merged itself: --auto-merge is not on
    assert world.fake.violations == []


def test_the_dashboard_is_one_issue_edited_never_duplicated(make_world, up):
    """All week, after every nightly and every bump (where both workflows call it), the dashboard
    is the same one issue: opened once, edited only when its body changed (a re-run that finds
    nothing new sends no write), kept current after a person closed it (not reopened, no second
    one), a person's issue of the same title never touched; it says tonight's nightly and the
    bump PR as they are."""
    world = make_world()
    fake = world.fake
    theirs = fake.seed_issue("Release roller dashboard", body="a person's notes", labels=["release-dashboard"])
    before_theirs = next(i for i in fake.issues() if i["number"] == theirs)

    def dashboard(day, nightly=None):
        """The workflows' last job; a write only when the body changes."""
        ours = [i["body"] for i in fake.issues() if (i["user"] or {}).get("login") == fake.identity]
        run = world.dashboard(day, nightly)
        assert run.code == 0, run.err
        edits = [w for w in run.writes if w[0] == "PATCH"]
        assert len(edits) == (1 if ours and ours[0] != issue_body(fake, run) else 0), run.writes
        return run

    nights = ["success", "failure", "failure", "cancelled", "failure", "success", "success"]
    number = None
    for i, (day, night) in enumerate(zip(WEEK, nights)):
        up.commit(at(day, -8), xla=i % 2 == 0)
        run_record = world.nightly(day, night)
        after_nightly = dashboard(day, run_record)
        assert world.pins()["plugin"][:12] in issue_body(world.fake, after_nightly)
        bump = world.bump(day)
        assert bump.code == 0, bump.err
        world.ci("success")
        after_bump = dashboard(day)
        if i in (0, 3):  # the same job again (a re-run): nothing new, nothing sent
            again = dashboard(day)
            assert again.data["issue"]["action"] == "unchanged" and again.writes == []
        ours = [i for i in fake.issues() if "pull_request" not in i and (i["user"] or {}).get("login") == fake.identity]
        assert len(ours) == 1, f"{day}: {len(ours)} dashboard issues"
        number = number or ours[0]["number"]
        assert ours[0]["number"] == number
        creates = [w for w in after_nightly.writes + after_bump.writes if w[0] == "POST"]
        assert creates == ([("POST", f"/repos/{fake.repo}/issues")] if i == 0 else [])
        body = ours[0]["body"]
        assert run_record["html_url"] in body, "tonight's nightly is not on the dashboard"
        pr = world.open_pulls()
        if pr:
            assert pr[0]["html_url"] in body, "the open bump PR is not on the dashboard"
        if i == 2:  # a person closes it: it stays closed and is still kept current
            with fake.lock:
                next(x for x in fake._issues[fake.repo] if x["number"] == number)["state"] = "closed"
        if i > 2:
            assert ours[0]["state"] == "closed"
    assert next(i for i in fake.issues() if i["number"] == theirs) == before_theirs
    assert fake.violations == []


def issue_body(fake, run) -> str:
    return next(i for i in fake.issues() if i["number"] == run.data["issue"]["number"])["body"]


def test_the_dashboard_after_an_auto_merge_shows_the_merged_pins(make_world, up):
    """The dashboard shows deps.yaml as on origin's base branch, so a bump merged in the very job
    that writes the dashboard is shown at once."""
    world = make_world()
    up.commit(at(WEEK[0], -8))
    world.bump(WEEK[0])
    world.ci("success")
    merged = world.bump(WEEK[1])
    assert merged.merge["action"] == "merged"
    shown = world.release(WEEK[1], "dashboard", checkout=merged.checkout)
    assert world.pins()["plugin"][:12] in issue_body(world.fake, shown)


def test_three_red_nights_throttle_the_roller_one_bisect_one_hold_pr(make_world, up):
    """roller.yaml ``throttle_after_red: 3``. A culprit rolls in and the nightly turns red: the
    red night bisects itself once and opens one hold PR for the culprit (the next red nights
    start no second bisect and no second PR); the roller rolls on through two reds and stops at
    the third, saying why, writing nothing; the dashboard (one issue) says the throttle and the
    hold PR. A person merges the hold and resets the throttle by a reviewed commit: the roller
    moves the pin back before the culprit, the nightly is green again, and the roller rolls
    (never past the held culprit)."""
    world = make_world(roller="throttle_after_red: 3\n")
    fake = world.fake
    culprit = up.commit(at(WEEK[0], -30), subject="plugin: new FFI (breaks the ROCm build)")
    probe = (f'git --git-dir={up.plugin.path} merge-base --is-ancestor {culprit} "$BISECT_PLUGIN_COMMIT" '
             "&& exit 1; exit 0")  # the ROCm build stand-in: red from the culprit on

    def night(day, conclusion):
        run = world.nightly(day, conclusion)
        return run, (world.red_night_bisects(day, run, probe) if conclusion == "failure" else None)

    night(WEEK[0], "success")
    assert world.bump(WEEK[0]).pull["action"] == "opened"  # the culprit's roll
    world.ci("success")  # the PR's CI cannot see the ROCm breakage
    night(WEEK[1], "success")
    assert world.bump(WEEK[1]).merge["action"] == "merged"
    assert world.pins()["plugin"] == culprit

    # Three red nights. The first bisects and opens the hold PR; the next two start nothing.
    later = up.commit(at(WEEK[2], -8))
    _, (plan, bisect, hold) = night(WEEK[2], "failure")
    assert plan.data["bisect"] is True and bisect.data["first_bad"]["plugin"] == culprit
    assert hold.data["hold"]["pull_request"]["action"] == "opened"
    (hold_pr,) = [p for p in fake.pulls() if p["head"]["ref"].startswith("hold/")]
    rolled = world.bump(WEEK[2])
    assert rolled.pull["action"] == "opened" and "1 red nightly in a row" in rolled.summary
    world.ci("success")
    for day in WEEK[3:5]:
        _, (plan, bisect, hold) = night(day, "failure")
        assert plan.data["bisect"] is False and bisect is None and culprit[:7] in plan.data["line"]
        if day == WEEK[3]:
            assert world.bump(day).merge["action"] == "merged"  # two reds: still rolling
            assert world.pins()["plugin"] == later
    assert len(fake.dispatches) == 1
    assert [p["number"] for p in fake.pulls() if p["head"]["ref"].startswith("hold/")] == [hold_pr["number"]]

    up.commit(at(WEEK[4], -8))  # upstream moves on: the throttled roller takes none of it
    refs = world.refs()
    throttled = world.bump(WEEK[4])
    assert throttled.code == 0 and throttled.data["throttle"]["state"] == "throttled"
    line = throttled.data["title"]
    assert "3 red nightlies in a row" in line and "throttle_reset_after" in line and "green" in line
    assert line in throttled.summary and throttled.writes == [] and world.refs() == refs
    board = world.dashboard(WEEK[4])
    assert "3 red nightlies in a row" in issue_body(fake, board) and hold_pr["html_url"] in issue_body(fake, board)

    # A person merges the hold PR and resets the throttle (reviewed commits on main).
    world.ci("success")
    world.person_merges(hold_pr["number"])
    last_red = fake.workflow_runs()[0]["run_number"]
    world.person_commits("main", {"roller.yaml": f"throttle_reset_after: {last_red}\nthrottle_after_red: 3\n"},
                         "Reset the throttle: the culprit is held")
    night(WEEK[5], "failure")  # tonight still built the culprit's pins: one red after the reset
    back = world.bump(WEEK[5])
    assert back.pull["action"] == "opened", back.data
    assert "throttle: 1 red nightly in a row" in back.summary  # the reds before the reset no longer count
    moved = world.pins(f"refs/heads/{back.pull['branch']}")["plugin"]
    assert moved == up.first, "the pin did not move back before the culprit"
    world.ci("success")
    night(WEEK[6], "failure")
    merged = world.bump(WEEK[6])
    assert merged.merge["action"] == "merged" and "throttle: 2 red nightlies in a row" in merged.summary
    night(WEEK[6] + dt.timedelta(days=1), "success")
    resumed = world.bump(WEEK[6] + dt.timedelta(days=1))
    assert resumed.data["throttle"]["state"] == "clear" and world.pins()["plugin"] == up.first
    assert f"held before {culprit[:7]}" in " ".join(resumed.data.get("notes", []))
    assert len(fake.dispatches) == 1 and len([i for i in fake.issues() if "pull_request" not in i]) == 1
    assert fake.violations == []


def test_a_merged_hold_moves_the_pin_back_while_throttled(make_world, up):
    world = make_world(roller="throttle_after_red: 1\n")
    culprit = up.commit(at(WEEK[0], -30))
    world.bump(WEEK[0])
    world.ci("success")
    world.bump(WEEK[1])
    assert world.pins()["plugin"] == culprit
    deps = git("show", "main:deps.yaml", cwd=world.origin).replace(
        "    roll: head\n", f"    roll: head\n    hold: {{commit: {culprit}, reason: red nightly}}\n", 1)
    world.person_commits("main", {"deps.yaml": deps}, "Hold plugin before the culprit")
    world.nightly(WEEK[2], "failure")
    back = world.bump(WEEK[2])
    assert back.pull.get("action") == "opened", back.data.get("title")
    assert world.pins(f"refs/heads/{back.pull['branch']}")["plugin"] == up.first
    assert back.data["throttle"]["line"].endswith("; only the move back a hold asks for is made")
    # Still throttled, the move back's PR is green but merged only by a person: a throttled
    # roller merges nothing, so an open forward roll could never slip in with it.
    world.ci("success")
    world.nightly(WEEK[3], "failure")
    world.bump(WEEK[3])
    assert world.pins()["plugin"] == culprit and len(world.open_pulls()) == 1
