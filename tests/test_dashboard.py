"""The dashboard issue and ``release status``'s roller section (issue 25 point 4).

The stand-in's issues first: it must be as strict as GitHub (a body over 65536 characters is
422, the issues list carries pull requests unless a reader filters them out, issue and pull
request numbers are one sequence), since the dashboard's rules are proven against it.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import itertools
import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from release.core import roller_report
from release.core.roller_report import BODY_LIMIT, MARKER, Pin, Pull, Report, Run
from release.sources import dashboard
from release.sources.github import GitHubRefused

OWNER, NAME = "rocm", "jax-rocm-release"


def test_stand_in_issues_are_as_strict_as_github(github_client, fake_github):
    client = github_client
    pull = client.create_pull(OWNER, NAME, title="a pull", head="bump/x", base="main")
    issue = client.request("POST", f"/repos/{OWNER}/{NAME}/issues",
                           json={"title": "t", "body": "b", "labels": ["l1"]}, expect=dict)
    assert issue["number"] == pull["number"] + 1  # one sequence
    assert issue["user"]["login"] == fake_github.identity
    listed = list(client.paginate(f"/repos/{OWNER}/{NAME}/issues", {"state": "all"}))
    assert {i["number"] for i in listed} == {pull["number"], issue["number"]}
    assert [i["number"] for i in listed if "pull_request" in i] == [pull["number"]]
    assert [i["number"] for i in client.paginate(f"/repos/{OWNER}/{NAME}/issues", {"labels": "l1"})] \
        == [issue["number"]]
    person = fake_github.seed_issue("t", body="b", labels=["l1"])
    mine = client.paginate(f"/repos/{OWNER}/{NAME}/issues", {"creator": fake_github.identity, "state": "all"})
    assert person not in {i["number"] for i in mine}
    with pytest.raises(GitHubRefused) as refused:
        client.request("PATCH", f"/repos/{OWNER}/{NAME}/issues/{issue['number']}",
                       json={"body": "x" * 65537})
    assert refused.value.status == 422
    client.request("PATCH", f"/repos/{OWNER}/{NAME}/issues/{issue['number']}", json={"body": "x" * 65536})
    closed = client.request("PATCH", f"/repos/{OWNER}/{NAME}/issues/{issue['number']}",
                            json={"state": "closed", "state_reason": "not_planned"}, expect=dict)
    assert (closed["state"], closed["state_reason"]) == ("closed", "not_planned")
    assert client.request("GET", "/user", expect=dict)["login"] == fake_github.login
    fake_github.actions_token = True
    with pytest.raises(GitHubRefused) as refused:
        client.request("GET", "/user")
    assert refused.value.status == 403


# ------------------------------------------------------------------ the command, end to end


@pytest.fixture
def dash(bump_project, github_env, tmp_path, monkeypatch):
    """A project pinning the fixture remotes, the stand-in as its GitHub, an empty git cache."""
    monkeypatch.setenv("JAX_ROCM_RELEASE_CACHE", str(tmp_path / "cache"))
    return bump_project(), github_env


def writes(fake):
    return [(m, p) for kind, m, p, *_ in fake.log if kind == "api" and m in ("POST", "PATCH", "PUT", "DELETE")]


def write(root, fake, github_client, **options):
    """``release dashboard`` as its jobs function (``write_dashboard``), on the stand-in."""
    from release.core.config import load_project
    from release.jobs.dashboard import DashboardOptions, write_dashboard
    from release.jobs.report import OnGitHub, ReportOptions
    report = ReportOptions(dt.datetime(2026, 11, 28, 3, tzinfo=dt.timezone.utc),
                           this_run=options.pop("this_run", None))
    return write_dashboard(load_project(root), DashboardOptions(report, **options),
                           OnGitHub(github_client, *fake.repo.split("/")), None)


def test_the_dashboard_is_opened_once_then_nothing_new_is_sent(dash, github_client):
    root, fake = dash
    fake.add_workflow_run(conclusion="failure")
    fake.add_workflow_run(conclusion="success")
    assert write(root, fake, github_client).issue.action == "created"
    assert write(root, fake, github_client).issue.action == "unchanged"
    assert len(writes(fake)) == 1
    (issue,) = fake.issues()
    assert issue["body"].startswith(MARKER) and issue["user"]["login"] == fake.identity
    assert [label["name"] for label in issue["labels"]] == [dashboard.LABEL]


# ------------------------------------------------------------------ the body: bounded and inert

NOW = dt.datetime(2026, 11, 22, 3, tzinfo=dt.timezone.utc)
SAFE_URLS = ["https://github.com/rocm/jax-rocm-release/pull/7",
             "https://github.com/rocm/jax-rocm-release/actions/runs/1000"]
HOSTILE = ["@everyone please look", "fixes #123 and other/repo#9", "<script>alert(1)</script>",
           "[click](javascript:alert(1))", "![img](https://evil.example/x.png)", "a | b || c",
           "line\nbreak\r\nand\ttab", "\x1b[31mred\x1b[0m\x07", "\u202eevil", "`code` ``x``",
           "back\\slash\\|pipe", "# heading", "> quote", "1. list", "&lt;entity&gt; &#64;x",
           "<!-- jax-rocm-release:dashboard -->", "-" * 300, "𝕏" * 200]
hostile_text = st.one_of(st.sampled_from(HOSTILE), st.text(max_size=200),
                         st.lists(st.sampled_from(HOSTILE), max_size=4).map("".join))
urls = st.one_of(st.none(), st.sampled_from(SAFE_URLS),
                 st.sampled_from(["javascript:alert(1)", "https://x.example/a)b](c", "http://x y", "data:,x"]),
                 hostile_text)
moments = st.datetimes(min_value=dt.datetime(2020, 1, 1), max_value=dt.datetime(2030, 1, 1),
                       timezones=st.just(dt.timezone.utc))
pulls = st.builds(Pull, st.integers(1, 10**6), hostile_text, urls, hostile_text)
runs = st.builds(Run, st.integers(1, 10**6), st.sampled_from(["green", "red", "neither", "running"]),
                 moments, urls, st.one_of(st.none(), hostile_text), st.one_of(st.none(), hostile_text))
pins = st.builds(Pin, hostile_text, st.text("0123456789abcdef", min_size=40, max_size=40), hostile_text,
                 hostile_text, st.one_of(st.none(), moments))
reports = st.builds(
    Report, now=st.just(NOW), mode=st.sampled_from(["running", "dry-run", "stopped"]),
    cooldown_hours=st.sampled_from([0.0, 1.5, 24.0]), roller_file=st.sampled_from([None, "roller.yaml"]),
    pins=st.lists(pins, max_size=4).map(tuple), throttle=st.one_of(st.none(), hostile_text),
    nightlies=st.one_of(st.none(), st.lists(runs, max_size=60).map(tuple)),
    bump=st.one_of(st.none(), pulls), holds=st.lists(pulls, max_size=60).map(tuple),
    bisects=st.lists(runs, max_size=3).map(tuple), unread=st.lists(hostile_text, max_size=3).map(tuple))


def units(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def unescaped_pipes(line: str) -> int:
    """Pipes that split a GFM table row: those with no backslash right before them."""
    return len(re.findall(r"(?<!\\)\|", line))


def check_inert(body: str, report: Report) -> None:
    """Upstream text shows as words: table rows keep their cells, no ping, no raw HTML, and the
    only links are GitHub's plain http(s) URLs that came with the report."""
    given_urls = {u for u in [*(p.url for p in (*report.holds, *([report.bump] if report.bump else []))),
                              *(r.url for r in (*(report.nightlies or ()), *report.bisects))] if u}
    for is_row, group in itertools.groupby(body.split("\n"), key=lambda line: line.startswith("|")):
        if is_row:  # one table: every row has its header's cells
            rows = list(group)
            assert len({unescaped_pipes(row) for row in rows}) == 1, f"a cell split or merged: {rows}"
    # code spans (a whole cell, or a link's text) show their text as typed: no link, ping or HTML
    prose = re.sub(r"(?<=[ \[])`[^`]*`", "", body)
    targets = re.findall(r"(?<!\\)\]\(([^)]*)\)", prose)
    assert set(targets) <= {u for u in given_urls if roller_report._URL.fullmatch(u)}
    words = re.sub(r"(?<!\\)\]\([^)]*\)", "]", prose)
    assert not re.search(r"[@#]\w", words), "a ping or a reference"
    assert "<" not in words.replace(MARKER, "", 1), "raw HTML"
    assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e]", body)


@given(reports)
def test_body_never_exceeds_the_limit_and_shows_upstream_text_as_words(report):
    body = roller_report.markdown(report)
    assert units(body) <= BODY_LIMIT and body.startswith(MARKER + "\n")
    check_inert(body, report)
    assert roller_report.markdown(report) == body  # the same report, the same body: no write
    for line in roller_report.text(report):  # status shows the same report, one safe line each
        assert "\n" not in line and not re.search(r"[\x00-\x1f\x7f-\x9f\u202a-\u202e]", line)


@given(st.lists(st.sampled_from(["x" * 90, "🟢" * 40, "ab", "", "\u00e9" * 70]), max_size=400),
       st.integers(200, 6000))
def test_a_cut_body_fits_keeps_the_marker_and_says_so(lines, limit):
    body = "\n".join([MARKER, *lines])
    cut = roller_report.bound(body, limit)
    assert units(cut) <= limit and cut.startswith(MARKER)
    assert cut == body if units(body) <= limit else "cut here" in cut and body.startswith(cut.split("\n\n_(cut")[0])


def test_a_huge_report_fits_one_issue():
    big = Pull(1, "x" * 10_000, SAFE_URLS[0], "b" * 60_000)
    report = Report(NOW, "running", 0, None, (), holds=(big,) * 5000, bump=big,
                    nightlies=tuple(Run(i, "red", NOW, SAFE_URLS[1], "failure", "v" * 70_000) for i in range(5000)))
    body = roller_report.markdown(report)
    assert units(body) <= BODY_LIMIT and "cut here" in body


def test_ages_are_whole_days_by_the_run_clock():
    committed = dt.datetime(2026, 11, 20, 4, tzinfo=dt.timezone.utc)
    assert roller_report.age_days(NOW, committed) == 1  # 47 hours
    assert roller_report.age_days(committed + dt.timedelta(days=2), committed) == 2
    assert roller_report.age_days(committed, NOW) == 0  # a commit from the future: a skewed clock
    assert roller_report.age_days(NOW, None) is None


# ------------------------------------------------------------------ one issue, edited, never a person's

REPO_NUMBERS = itertools.count(1)
EVENTS = ["run", "run", "new", "person_lookalike", "person_closes", "label_off", "person_edits", "race"]


def body_of(i: int) -> str:
    return roller_report.markdown(Report(NOW, "running", 24.0, "roller.yaml", (),
                                         throttle=f"state {i}", nightlies=()))


def tool_issues(fake, repo):
    return [i for i in fake.issues(repo) if i["user"]["login"] == fake.identity]


@settings(max_examples=15)
@given(st.lists(st.sampled_from(EVENTS), min_size=1, max_size=8), st.booleans())
def test_one_dashboard_ever_edited_only_on_change_and_never_a_persons(github_client, fake_github, events,
                                                                       actions_token):
    """Whatever people do around it (a look-alike issue with the same title, marker and label; closing
    it; taking its label off; editing its body) and whatever the runs bring, the tool's dashboard is
    one issue: opened once, edited only when its body changes, a person's issue untouched, a
    closed one left closed, a raced duplicate closed."""
    fake, client = fake_github, github_client
    fake.actions_token = actions_token
    repo = f"rocm/dash-{next(REPO_NUMBERS)}"
    owner, name = repo.split("/")
    login = dashboard.author(client)
    assert login == fake.identity
    people: dict[int, dict] = {}
    version, closed_by_person = 0, set()
    for event in events:
        ours = tool_issues(fake, repo)
        if event == "new":
            version += 1
        elif event == "person_lookalike":
            n = fake.seed_issue(dashboard.TITLE, body=body_of(version), labels=[dashboard.LABEL], repo=repo)
            people[n] = next(i for i in fake.issues(repo) if i["number"] == n)
        elif event == "race" and ours:  # another run opened a second one at the same moment
            fake.seed_issue(dashboard.TITLE, body=body_of(version), labels=[dashboard.LABEL],
                            login=fake.identity, repo=repo)
            continue
        elif ours and event in ("person_closes", "label_off", "person_edits"):
            issue = next(i for i in fake._issues[repo] if i["number"] == min(o["number"] for o in ours))
            if event == "person_closes":
                issue["state"] = "closed"
                closed_by_person.add(issue["number"])
            elif event == "label_off":
                issue["labels"] = []
            else:
                issue["body"] = "a person's notes"
            continue
        before = len(fake.log)
        had = tool_issues(fake, repo)
        result = dashboard.sync_issue(client, owner, name, body_of(version), login=login)
        sent = [(m, p) for kind, m, p, *_ in fake.log[before:] if m != "GET"]
        ours = tool_issues(fake, repo)
        kept = [i for i in ours if i["number"] == result.number]
        assert len(kept) == 1 and kept[0]["body"] == body_of(version)
        assert [i for i in ours if i["state"] == "open" and i is not kept[0]] == []  # one open at most
        assert len(ours) == max(len(had), 1)  # one opened when none existed, never another
        assert (result.action == "created") == (not had)
        if had and not any(i["state"] == "open" for i in had[1:]) and \
                next(i for i in had if i["number"] == result.number)["body"] == body_of(version):
            assert sent == [] and result.action == "unchanged"  # nothing new: nothing sent
        for issue in ours:
            if issue["number"] in closed_by_person:
                assert issue["state"] == "closed"  # a person's close stands
        again_before = len(fake.log)
        assert dashboard.sync_issue(client, owner, name, body_of(version), login=login).action == "unchanged"
        assert [m for _, m, *_ in fake.log[again_before:] if m != "GET"] == []
        for number, issue in people.items():  # a person's issue: never touched
            assert next(i for i in fake.issues(repo) if i["number"] == number) == issue


def test_a_person_s_issue_with_every_mark_is_never_taken_for_the_dashboard(github_client, fake_github):
    person = fake_github.seed_issue(dashboard.TITLE, body=body_of(0), labels=[dashboard.LABEL])
    snapshot = fake_github.issues()
    result = dashboard.sync_issue(github_client, "rocm", "jax-rocm-release", body_of(1), login=fake_github.identity)
    assert result.action == "created" and result.number != person
    assert [i for i in fake_github.issues() if i["number"] == person] == snapshot


def test_dry_run_sends_nothing_and_says_what_it_would_do(github_client, fake_github):
    owner, name = "rocm", "jax-rocm-release"
    login = fake_github.identity
    assert dashboard.sync_issue(github_client, owner, name, body_of(0), login=login, dry_run=True).action \
        == "would create"
    assert fake_github.issues() == []
    dashboard.sync_issue(github_client, owner, name, body_of(0), login=login)
    before = len(fake_github.log)
    assert dashboard.sync_issue(github_client, owner, name, body_of(1), login=login, dry_run=True).action \
        == "would edit"
    assert dashboard.sync_issue(github_client, owner, name, body_of(0), login=login, dry_run=True).action \
        == "would leave"
    assert all(m == "GET" for _, m, *_ in fake_github.log[before:])


def test_the_author_is_the_token_s_login_or_the_actions_bot(github_client, fake_github):
    assert dashboard.author(github_client) == fake_github.login
    assert dashboard.author(github_client, "my-app[bot]") == "my-app[bot]"
    fake_github.actions_token = True  # an installation token: GET /user is 403
    assert dashboard.author(github_client) == "github-actions[bot]" == fake_github.identity


def test_the_issues_list_s_pull_requests_are_never_the_dashboard(github_client, fake_github):
    """GitHub's issues list carries pull requests too; one of the tool's with the marker in its
    body is still a pull request, never the dashboard."""
    github_client.create_pull("rocm", "jax-rocm-release", title=dashboard.TITLE, head="bump/x", base="main",
                              body=body_of(0))
    result = dashboard.sync_issue(github_client, "rocm", "jax-rocm-release", body_of(0), login=fake_github.identity)
    assert result.action == "created" and len(fake_github.issues()) == 1


def test_cli_dry_run_prints_the_body_and_status_shows_the_same_report(dash, run_cli):
    root, fake = dash
    fake.add_workflow_run(conclusion="failure")
    code, out, err = run_cli("dashboard", "--dry-run", "--root", root)
    assert code == 0, err
    assert out.startswith(MARKER) and "would open" in out
    assert fake.issues() == [] and writes(fake) == []
    code, out, err = run_cli("dashboard", "--dry-run", "--json", "--root", root)  # its schema holds
    assert code == 0, err
    issue = json.loads(out)["issue"]
    assert issue["action"] == "would create" and issue["number"] is None and issue["url"] is None
    code, out, err = run_cli("dashboard", "--json", "--root", root)
    report = json.loads(out)["report"]
    code, out, err = run_cli("status", "--json", "--root", root)
    assert code == 0, err
    assert json.loads(out)["roller"] == report  # one report: the issue's and status's
    code, out, err = run_cli("status", "--offline", "--json", "--root", root)
    offline = json.loads(out)["roller"]
    assert offline["nightlies"] is None and any("GitHub not asked" in u for u in offline["unread"])
    assert [p["age_days"] for p in offline["pins"]] == [p["age_days"] for p in report["pins"]]


@pytest.mark.parametrize("conclusion, outcome", [("failure", "red"), ("success", "green")])
@pytest.mark.parametrize("mine_first", [True, False])
def test_the_run_writing_the_dashboard_is_shown_as_it_ends_and_no_other(dash, github_client, conclusion,
                                                                       outcome, mine_first):
    """Its last job sees its own run in progress: ``this_run`` says how that run ends, and only
    that run, whether older or newer runs are still going beside it."""
    from release.core.config import load_project
    from release.jobs.report import OnGitHub, ReportOptions, gather_report
    root, fake = dash
    first = fake.add_workflow_run(status="in_progress")
    second = fake.add_workflow_run(status="in_progress")
    mine, other = (first, second) if mine_first else (second, first)
    options = ReportOptions(dt.datetime(2026, 11, 28, 3, tzinfo=dt.timezone.utc), this_run=(mine["id"], conclusion))
    report = gather_report(load_project(root), options, OnGitHub(github_client, *fake.repo.split("/")), None)
    shown = {r.number: (r.outcome, r.conclusion) for r in report.nightlies or ()}
    assert shown == {mine["run_number"]: (outcome, conclusion), other["run_number"]: ("running", None)}


def test_this_run_is_read_from_the_run_s_id(dash, github_client):
    """--this-run CONCLUSION names this workflow run by $GITHUB_RUN_ID; without one it is refused."""
    from release.core.errors import UserError
    from release.jobs.dashboard import this_run
    root, fake = dash
    mine = fake.add_workflow_run(status="in_progress")
    assert this_run("failure", {"GITHUB_RUN_ID": str(mine["id"])}) == (mine["id"], "failure")
    assert this_run(None, {"GITHUB_RUN_ID": str(mine["id"])}) is None and this_run("", {}) is None
    report = write(root, fake, github_client, this_run=this_run("failure", {"GITHUB_RUN_ID": str(mine["id"])})).report
    assert [(r.outcome, r.conclusion) for r in report.nightlies or ()] == [("red", "failure")]
    for env in ({}, {"GITHUB_RUN_ID": ""}, {"GITHUB_RUN_ID": "12a"}):
        with pytest.raises(UserError, match="^--this-run needs GITHUB_RUN_ID") as caught:
            this_run("success", env)
        assert caught.value.exit_code == 2


def test_the_cli_reads_this_run_from_the_environment(dash, run_cli, monkeypatch):
    root, fake = dash
    mine = fake.add_workflow_run(status="in_progress")
    monkeypatch.setenv("GITHUB_RUN_ID", str(mine["id"]))
    code, out, err = run_cli("dashboard", "--json", "--this-run", "failure", "--root", root)
    assert code == 0, err
    assert [(r["outcome"], r["conclusion"]) for r in json.loads(out)["report"]["nightlies"]] == [("red", "failure")]
    monkeypatch.setenv("GITHUB_RUN_ID", "")
    code, out, err = run_cli("dashboard", "--this-run", "success", "--root", root)
    assert code == 2 and "GITHUB_RUN_ID" in err and err.count("\n") == 1


@pytest.mark.parametrize("what", ["closed", "label off", "label off and body rewritten", "raced"])
def test_what_people_and_races_do_never_makes_a_second_dashboard(github_client, fake_github, what):
    owner, name, login = "rocm", "jax-rocm-release", fake_github.identity
    first = dashboard.sync_issue(github_client, owner, name, body_of(0), login=login).number
    with fake_github.lock:
        issue = next(i for i in fake_github._issues[fake_github.repo] if i["number"] == first)
        if what == "closed":
            issue["state"] = "closed"
        if what.startswith("label off"):
            issue["labels"] = []
        if what.endswith("rewritten"):
            issue["body"] = "a person's notes"
    if what == "raced":
        fake_github.seed_issue(dashboard.TITLE, body=body_of(0), labels=[dashboard.LABEL], login=login)
    result = dashboard.sync_issue(github_client, owner, name, body_of(1), login=login)
    ours = {i["number"]: i for i in fake_github.issues()}
    assert result.number == first and ours[first]["body"] == body_of(1)
    assert ours[first]["state"] == ("closed" if what == "closed" else "open")  # a person's close stands
    assert [n for n, i in ours.items() if i["state"] == "open" and n != first] == []
    assert len(ours) == (2 if what == "raced" else 1)


def test_astral_characters_count_twice_against_the_limit():
    """GitHub may count UTF-16 units: a body of emoji whose code points fit but whose units do not
    is cut, never sent whole."""
    body = MARKER + "\n" + "\n".join(["🟢" * 50] * 100)  # ~5,100 code points, ~10,100 units
    assert len(body) <= 6000 < units(body)
    cut = roller_report.bound(body, 6000)
    assert units(cut) <= 6000 and "cut here" in cut


def test_by_hand_a_person_s_token_edits_the_workflows_dashboard_and_never_opens_one(dash, github_client):
    """The workflows write as github-actions[bot]; a person at a terminal (their token's login is
    theirs) names that author and edits its dashboard, and is refused rather than opening a second
    one as themselves."""
    from release.core.errors import UserError
    root, fake = dash
    with pytest.raises(UserError, match=r"no dashboard issue by github-actions\[bot\]"):
        write(root, fake, github_client, author="github-actions[bot]")
    assert fake.issues() == []
    fake.actions_token = True  # the nightly's job
    assert write(root, fake, github_client).issue.action == "created"
    fake.actions_token = False  # a person again
    fake.add_workflow_run(conclusion="failure")
    assert write(root, fake, github_client, author="github-actions[bot]").issue.action == "edited"
    assert [i["user"]["login"] for i in fake.issues()] == ["github-actions[bot]"]


def small_report() -> Report:
    day = dt.timedelta(days=1)
    return Report(
        NOW, "dry-run", 24.0, "roller.yaml",
        (Pin("plugin", "a" * 40, "master", "head", NOW - 3 * day - dt.timedelta(hours=2)),
         Pin("jax", "b" * 40, "rocm-jaxlib-v0.9.1", "via plugin", NOW - day),
         Pin("xla", "c" * 40, "rocm-jaxlib-v0.9.1", "via plugin", NOW - dt.timedelta(hours=23)),
         Pin("extra", "d" * 40, "main", "manual", None)),
        throttle="2 red nightlies in a row (stops at 3); rolling",
        nightlies=(Run(12, "red", NOW, SAFE_URLS[1], "failure", None),
                   Run(11, "green", NOW - day, None, "success", "0.9.1.dev20261121")),
        bump=Pull(7, "Roll plugin " + "x" * 200, SAFE_URLS[0], "bump/2026-11-22-plugin"),
        holds=tuple(Pull(n, f"Hold plugin before {n}", None, "hold/plugin") for n in range(20, 20 + 52)),
        unread=("pull requests: GitHub said 502",))


def test_status_prints_every_part_of_the_report_as_the_issue_shows_it():
    """The text status prints: each pin with its age in whole days (under a day, 1 day, N days,
    unknown), each nightly with its result, version and link, the bump PR with its title cut at
    120 characters, at most 50 holds and the rest counted, and what was not read."""
    lines = roller_report.text(small_report())
    assert lines[0] == ("roller: mode dry-run, cooldown 24 h (roller.yaml); throttle: 2 red nightlies in a row "
                        "(stops at 3); rolling")
    assert lines[1:6] == ["pins:", f"  plugin  {'a' * 12}  master  head  2026-11-19  3 days",
                          f"  jax  {'b' * 12}  rocm-jaxlib-v0.9.1  via plugin  2026-11-21  1 day",
                          f"  xla  {'c' * 12}  rocm-jaxlib-v0.9.1  via plugin  2026-11-21  under a day",
                          f"  extra  {'d' * 12}  main  manual  unknown  unknown"]
    assert lines[6:9] == ["last 2 nightlies (newest first):",
                          f"  2026-11-22  🔴 red (failure)  none  run #12 <{SAFE_URLS[1]}>",
                          "  2026-11-21  🟢 green  0.9.1.dev20261121  run #11"]
    assert lines[9:11] == ["bump pull request:",
                           f"  #7 <{SAFE_URLS[0]}>  Roll plugin {'x' * 108}  bump/2026-11-22-plugin"]
    assert lines[11] == "hold pull requests:" and lines[12] == "  #20  Hold plugin before 20  hold/plugin"
    assert lines[61:65] == ["  #69  Hold plugin before 69  hold/plugin", "  and 2 more", "bisects running: none",
                            "not read: pull requests: GitHub said 502"]
    assert len(lines) == 65
    body = roller_report.markdown(small_report())
    assert "| plugin | `aaaaaaaaaaaa` | `master` | head | 2026-11-19 | 3 days |" in body
    assert "| xla | `cccccccccccc` | `rocm-jaxlib-v0.9.1` | via plugin | 2026-11-21 | under a day |" in body
    assert f"| [\\#\u200b7]({SAFE_URLS[0]}) | Roll plugin {'x' * 108} | `bump/2026-11-22-plugin` |" in body
    assert "_and 2 more (`release status --json` lists them)_" in body and "- pull requests: GitHub said 502" in body


def test_the_report_as_json_has_every_field():
    data = small_report().to_json()
    assert data["now"] == "2026-11-22T03:00:00Z" and data["mode"] == "dry-run" and data["cooldown_hours"] == 24.0
    assert data["roller_file"] == "roller.yaml" and data["throttle"].startswith("2 red")
    assert data["pins"][0] == {"name": "plugin", "commit": "a" * 40, "branch": "master", "roll": "head",
                               "committed": "2026-11-19T01:00:00Z", "age_days": 3}
    assert data["pins"][3]["committed"] is None and data["pins"][3]["age_days"] is None
    assert data["nightlies"][0] == {"number": 12, "outcome": "red", "when": "2026-11-22T03:00:00Z",
                                    "url": SAFE_URLS[1], "conclusion": "failure", "version": None}
    assert data["bump"] == {"number": 7, "title": "Roll plugin " + "x" * 200, "url": SAFE_URLS[0],
                            "branch": "bump/2026-11-22-plugin"}
    assert len(data["holds"]) == 52 and data["bisects"] == [] and data["unread"] == ["pull requests: GitHub said 502"]
    assert Report(NOW, "running", 0, None, ()).to_json()["nightlies"] is None
    assert json.loads(json.dumps(data)) == data


def test_a_sparse_report_says_what_is_empty_and_still_shows_the_rest():
    """No pins, nightlies not read, no bump PR, no roller.yaml, no cooldown, no throttle: each part
    says so, and the parts after an empty one are still shown (issue and status alike)."""
    report = Report(NOW, "running", 0, None, (), holds=(Pull(3, "Hold xla", None, "hold/xla"),),
                    bisects=(Run(4, "running", NOW, SAFE_URLS[1]),))
    assert roller_report.text(report) == [
        "roller: mode running, no cooldown (no roller.yaml: the defaults)", "pins: no pins",
        "nightlies: not read (see below)", "bump pull request: none open", "hold pull requests:",
        "  #3  Hold xla  hold/xla", "bisects running:", f"  2026-11-22  run #4 <{SAFE_URLS[1]}>"]
    body = roller_report.markdown(report)
    for part in ("## Roller\n\nmode running, no cooldown (no roller.yaml: the defaults)\n",
                 "## Pins\n\n_no pins_\n", "## Nightlies\n\n_not read (see below)_\n",
                 "## Bump pull request\n\n_none open_\n",
                 "## Hold pull requests\n\n| PR | title | branch |\n|---|---|---|\n"
                 "| \\#\u200b3 | Hold xla | `hold/xla` |\n",
                 "## Bisects running\n\n| started | run |\n|---|---|\n"
                 f"| 2026-11-22 | [run #\u200b4]({SAFE_URLS[1]}) |\n"):
        assert part in body, part
    assert report.to_json()["bisects"] == [{"number": 4, "outcome": "running", "when": "2026-11-22T03:00:00Z",
                                            "url": SAFE_URLS[1], "conclusion": None, "version": None}]
    pins = roller_report.markdown(small_report())
    assert "## Pins\n\n| dep | commit | branch | roll | committed | age |\n|---|---|---|---|---|---|\n" in pins
    assert "| night | result | version | run |" in pins and "## Last 2 nightlies (newest first)" in pins


@pytest.mark.parametrize("mode", ["stopped", "dry-run"])
def test_a_pause_s_end_is_in_the_headline_of_both_outputs_and_the_json(mode):
    """A paused roller's report names when the pause ends (issue 33: pausing "for a week"), in
    the issue, in status and in --json; a report with no end says nothing of one."""
    ends = dt.datetime(2026, 12, 2, tzinfo=dt.timezone.utc)
    paused = Report(NOW, mode, 6.0, "roller.yaml", (), until=ends)
    said = f"mode {mode} until 2026-12-02T00:00:00Z, cooldown 6 h (roller.yaml)"
    assert roller_report.text(paused)[0] == f"roller: {said}"
    assert f"{MARKER}\n## Roller\n\n{said}\n" in roller_report.markdown(paused)
    assert paused.to_json()["until"] == "2026-12-02T00:00:00Z"
    lasting = Report(NOW, mode, 0, "roller.yaml", ())
    assert lasting.to_json()["until"] is None and " until " not in roller_report.text(lasting)[0]


def test_the_bisect_line_is_under_the_headline_of_both_outputs_and_in_the_json():
    """This nightly's bisect, when said, is the line under the roller's headline (a Markdown
    paragraph of its own in the issue) and ``bisect`` in --json; status may leave out the parts it
    printed itself, and only those."""
    said = "started: plugin 1a2b3c4..5d6e7f8"
    report = dataclasses.replace(small_report(), bisect=said)
    lines = roller_report.text(report)
    assert lines[1] == f"bisect: {said}" and lines[2:] == roller_report.text(small_report())[1:]
    body = roller_report.markdown(report)
    assert f"(roller.yaml); throttle: 2 red nightlies in a row (stops at 3); rolling\n\nbisect: {said}\n\n## Pins\n" \
        in body
    assert report.to_json()["bisect"] == said and small_report().to_json()["bisect"] is None
    without = roller_report.text(small_report(), without=("Pins",))
    assert without == [line for line in roller_report.text(small_report())
                       if line != "pins:" and not line.startswith(("  plugin", "  jax", "  xla", "  extra"))]


def test_nightly_rows_show_the_version_as_code_and_count_what_is_left_out():
    body = roller_report.markdown(small_report())
    assert f"| 2026-11-22 | 🔴 red (failure) | none | [run #\u200b12]({SAFE_URLS[1]}) |" in body
    assert "| 2026-11-21 | 🟢 green | `0.9.1.dev20261121` | run #\u200b11 |" in body
    many = Report(NOW, "running", 0, None, (), nightlies=tuple(Run(n, "green", NOW, None) for n in range(52)))
    assert roller_report.text(many).index("  and 2 more") == 3 + 50  # after the 50 rows shown
    assert "_and 2 more (`release status --json` lists them)_" in roller_report.markdown(many)


def test_an_empty_week_says_so_part_by_part():
    body = roller_report.markdown(Report(NOW, "running", 0, None, (), nightlies=(),
                                         bump=Pull(9, "Roll xla", None, "bump/x")))
    for part in ("## Roller\n\nmode running, no cooldown (no roller.yaml: the defaults)\n\n## Pins\n",
                 "## Last 0 nightlies (newest first)\n\n_no nightly has run yet_\n\n## Bump pull request\n\n"
                 "| PR | title | branch |\n|---|---|---|\n| \\#\u200b9 | Roll xla | `bump/x` |\n\n",
                 "## Hold pull requests\n\n_none open_\n\n## Bisects running\n\n_none_\n\n_Written by"):
        assert part in body, part


@settings(derandomize=True, max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(["x" * 90, "🟢" * 40, "ab", "", "\u00e9" * 70]), max_size=200),
       st.integers(200, 6000))
def test_a_cut_keeps_every_whole_line_that_fits(lines, limit):
    """Not only within the limit: the cut is at the last line end that fits beside the note, so
    nothing that would fit is dropped, and a body of exactly the limit is not cut at all."""
    body = "\n".join([MARKER, *lines])
    cut = roller_report.bound(body, limit)
    if units(body) <= limit:
        assert cut == body
        return
    kept, note = cut.split("\n\n_(cut", 1)
    note = "\n\n_(cut" + note
    shown = kept.split("\n")
    following = body.split("\n")[len(shown)]
    assert units(kept + "\n" + following + note) > limit, "the next line would have fit"
    exact = MARKER + "\n" + "x" * (limit - units(MARKER) - 1)  # exactly the limit: kept whole
    assert units(exact) == limit and roller_report.bound(exact, limit) == exact


def test_what_was_not_read_and_the_footer_are_said_whole():
    report = Report(NOW, "running", 0, None, (), nightlies=(), unread=("pull requests: GitHub said 502",
                                                                         "bisect runs: no token"))
    body = roller_report.markdown(report)
    assert ("## Not read\n\n- pull requests: GitHub said 502\n- bisect runs: no token\n\n_Written by `release "
            "dashboard` on 2026-11-22 (UTC). The roller's settings live in `roller.yaml`: change them there, by "
            "a reviewed commit; edits here are overwritten._") in body
    assert body.endswith("edits here are overwritten._")
    assert roller_report.markdown(report, limit=300) == roller_report.bound(body, 300) != body  # the limit is used


def test_running_bisects_past_fifty_are_counted():
    many = Report(NOW, "running", 0, None, (), nightlies=(),
                  bisects=tuple(Run(n, "running", NOW, None) for n in range(53)))
    assert roller_report.text(many)[-1] == "  and 3 more"
    assert "_and 3 more (`release status --json` lists them)_" in roller_report.markdown(many)


def test_days_are_utc_days_whatever_the_machines_zone(monkeypatch):
    import time
    late = dt.datetime(2026, 11, 22, 3, tzinfo=dt.timezone.utc)  # 2026-11-21 in the Americas
    monkeypatch.setenv("TZ", "America/Denver")
    time.tzset()
    try:
        report = Report(late, "running", 0, None, (), nightlies=(Run(1, "green", late, None),))
        assert "  2026-11-22  🟢 green  none  run #1" in roller_report.text(report)
        assert "on 2026-11-22 (UTC)" in roller_report.markdown(report)
    finally:
        monkeypatch.delenv("TZ")
        time.tzset()


def test_a_cut_at_exactly_the_room_keeps_that_line_and_one_unit_less_drops_it():
    note = "\n\n_(cut here: the rest is longer than an issue may be; `release status --json` has it)_"
    lines = [MARKER, "ab", "🟢" * 40, "", "x" * 90, "\u00e9" * 70, "x" * 90]
    for k in range(1, len(lines)):
        exact = units("\n".join(lines[:k]) + note)
        assert roller_report.bound("\n".join(lines), exact) == "\n".join(lines[:k]) + note, k
        assert roller_report.bound("\n".join(lines), exact - 1) == "\n".join(lines[:max(k - 1, 1)]) + note, k


# ------------------------------------------------------------------ what the report reads


def _nightly_store(tmp_path, *published: str):
    from release.core import versions
    from release.core.naming import release_tag
    from release.publish.stores import LocalStore
    store = LocalStore(tmp_path / "store")
    for version in published:
        draft = store.create_draft(release_tag(version), name=version, body="x",
                                   prerelease=versions.kind_of(version) in ("nightly", "rc"))
        store.publish(draft, prerelease=draft.prerelease, make_latest=False)
    return store


def test_each_day_shows_the_nightly_published_for_it_and_an_unreadable_store_is_said(tmp_path):
    """A day's nightly is the newest version dated that day (another line's too); rcs, releases
    and post releases are no nightly; a store that cannot be listed is one line, no versions."""
    from release.core.errors import ReleaseError
    from release.jobs.report import versions_by_day
    store = _nightly_store(tmp_path, "0.9.2.dev20261122", "0.9.1.dev20261121", "0.9.1rc1", "0.9.1",
                           "0.9.1.post1", "0.9.1.dev20261122")
    unread: list[str] = []
    assert versions_by_day(store, unread) == {"2026-11-21": "0.9.1.dev20261121",
                                              "2026-11-22": "0.9.2.dev20261122"} and unread == []
    assert versions_by_day(None, unread) == {} and unread == []

    class Unreadable:
        def list_releases(self):
            raise ReleaseError("GitHub answered 502")
    assert versions_by_day(Unreadable(), unread) == {}  # type: ignore[arg-type]
    assert unread == ["nightly versions (the store): GitHub answered 502"]


def test_a_date_build_nightly_is_shown_on_its_day(tmp_path):
    from release.jobs.report import versions_by_day
    store = _nightly_store(tmp_path, "0.9.1.dev2026112203", "0.9.1.dev2026112301")
    assert versions_by_day(store, []) == {"2026-11-22": "0.9.1.dev2026112203", "2026-11-23": "0.9.1.dev2026112301"}


def test_the_dashboard_reads_the_pins_merged_on_origin_else_the_checkouts(release_checkout, tmp_path):
    """A bump merged in the dashboard's own job is on origin, not yet in the checkout: the pins
    are origin's base branch's; no such branch: the checkout's; origin unreadable: the
    checkout's, said in one line; not a checkout at all: the files."""
    from release.core.config import load_project
    from release.jobs.report import _merged_deps
    from tests.support.gitrepos import git
    root, origin = release_checkout
    project = load_project(root)
    name, old = project.deps.names[0], project.deps[project.deps.names[0]].commit
    other = tmp_path / "other"
    git("clone", "--quiet", origin.as_uri(), other)
    (other / "deps.yaml").write_text((other / "deps.yaml").read_text().replace(old, "f" * 40))
    git("-c", "user.name=A Person", "-c", "user.email=p@example.com", "commit", "--quiet", "-am", "bump",
        cwd=other)
    git("push", "--quiet", "origin", "main", cwd=other)
    for base in (None, "main"):
        deps, unread = _merged_deps(project, base)
        assert deps[name].commit == "f" * 40 and unread == ()
        assert [d.name for d in deps] == [d.name for d in project.deps]
    assert _merged_deps(project, "release/0.9") == (project.deps, ())  # no such branch on origin
    git("remote", "set-url", "origin", (tmp_path / "gone.git").as_uri(), cwd=root)
    deps, unread = _merged_deps(project, None)
    assert deps is project.deps and len(unread) == 1
    assert unread[0].startswith("deps.yaml on origin's main: ")
    assert unread[0].endswith("; the checkout's pins are shown")
    plain = tmp_path / "plain"  # the project's files in no checkout
    plain.mkdir()
    for file in ("deps.yaml", "version_info.json"):
        (plain / file).write_bytes((root / file).read_bytes())
    files = load_project(plain)
    assert _merged_deps(files, None) == (files.deps, ())
