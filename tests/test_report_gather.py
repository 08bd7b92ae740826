"""What the roller report gathers (``release.jobs.report.gather_report``), on a real checkout
with a bare origin and the GitHub stand-in: roller.yaml by the run's clock, every line that
could not be read kept together, the branch the report is about (the checkout's, or the one
asked for) for the nightlies, the bisects and the throttle, origin's pins when asked for them,
and each nightly with the version the store published from its day.
"""

from __future__ import annotations

import datetime as dt

import pytest

from release.core.config import load_project
from release.core.errors import RemoteError
from release.jobs.report import OnGitHub, ReportOptions, gather_report
from release.publish.stores import LocalStore
from tests.support.gitrepos import deps_yaml, git
from tests.test_automerge import world  # noqa: F401 (the fixture: checkout, origin, stand-in)
from tests.test_roller import commit_roller

NOW = dt.datetime(2026, 11, 28, 3, tzinfo=dt.timezone.utc)
NOT_ASKED = ("nightlies, pull requests and bisects: GitHub not asked (no GITHUB_TOKEN and GITHUB_REPOSITORY, "
             "or --offline)")


@pytest.fixture(autouse=True)
def cache_env(tmp_path, monkeypatch):
    monkeypatch.setenv("JAX_ROCM_RELEASE_CACHE", str(tmp_path / "cache"))


def on_github(fake, client) -> OnGitHub:
    return OnGitHub(client, *fake.repo.split("/"))


def test_a_pause_is_read_by_the_run_s_clock(world):  # noqa: F811
    root, _, _ = world
    commit_roller(root, "mode: stopped\nuntil: 2026-11-20\n")
    project = load_project(root)
    assert gather_report(project, ReportOptions(dt.datetime(2026, 11, 19, tzinfo=dt.timezone.utc)), None,
                         None).mode == "stopped"
    after = gather_report(project, ReportOptions(NOW), None, None)
    assert after.mode == "running" and after.roller_file == "roller.yaml"


@pytest.mark.parametrize("mode", ["stopped", "dry-run"])
def test_status_and_the_issue_say_when_a_pause_ends(world, mode):  # noqa: F811
    """A pause "for a week" is checked where people look: status and the dashboard name its end
    (the run's clock decides), and say nothing of it once it is over or when the file runs."""
    from release.core import roller_report
    root, _, _ = world
    commit_roller(root, f"mode: {mode}\nuntil: 2026-11-30\n")
    project = load_project(root)
    paused = gather_report(project, ReportOptions(NOW), None, None)
    said = f"mode {mode} until 2026-12-01T00:00:00Z, no cooldown (roller.yaml)"
    assert roller_report.text(paused)[0] == f"roller: {said}"
    assert f"## Roller\n\n{said}\n" in roller_report.markdown(paused)
    assert paused.to_json()["until"] == "2026-12-01T00:00:00Z"
    over = gather_report(project, ReportOptions(dt.datetime(2026, 12, 1, tzinfo=dt.timezone.utc)), None, None)
    assert over.to_json()["until"] is None and " until " not in roller_report.text(over)[0]
    commit_roller(root, "mode: running\nuntil: 2026-11-30\n")  # nothing is paused: nothing ends
    running = gather_report(project, ReportOptions(NOW), None, None)
    assert running.to_json()["until"] is None and roller_report.text(running)[0].startswith("roller: mode running, ")


def test_without_github_every_unread_line_is_kept_and_the_throttle_is_what_it_is_set_to(world):  # noqa: F811
    from release.core.roller import parse_roller
    from release.sources.throttle import not_asked
    root, _, _ = world
    commit_roller(root, "throttle_after_red: 2\n")
    (root / "roller.yaml").write_text("throttle_after_red: 3\n")  # an uncommitted edit: ignored, said
    report = gather_report(load_project(root), ReportOptions(NOW), None, None)  # an empty cache, no fetch
    pins, roller, asked = report.unread
    assert pins.startswith("commit time of plugin, jax, xla: not in the git cache")
    assert roller.startswith("roller.yaml: an uncommitted edit is ignored") and asked == NOT_ASKED
    assert report.throttle == not_asked(parse_roller(root / "roller.yaml", b"throttle_after_red: 2\n")).removeprefix(
        "throttle: ")
    assert report.nightlies is None and report.bisects == ()


@pytest.mark.parametrize("base, checkout", [(None, "next"), ("next", "main")])
def test_the_report_is_of_one_branch_the_checkout_s_or_the_one_asked(world, github_client, base,  # noqa: F811
                                                                      checkout):
    """Nightlies, running bisects and the throttle are read for that branch only: another
    branch's red nights, its runs and its bisects are not this one's."""
    root, _, fake = world
    commit_roller(root, "throttle_after_red: 1\n")
    if checkout != "main":
        git("checkout", "--quiet", "-b", checkout, cwd=root)
    day = dt.datetime(2026, 11, 20, 3, tzinfo=dt.timezone.utc)
    ours = fake.add_workflow_run(conclusion="success", branch="next", created_at=day)
    fake.add_workflow_run(conclusion="failure", branch="other", created_at=day + dt.timedelta(hours=1))
    bisecting = fake.add_workflow_run("bisect.yml", status="in_progress", branch="next")
    fake.add_workflow_run("bisect.yml", status="in_progress", branch="other")
    fake.add_workflow_run(status="in_progress", branch="next", created_at=day + dt.timedelta(hours=2))
    report = gather_report(load_project(root), ReportOptions(NOW, base=base), on_github(fake, github_client),
                           None)
    assert [(r.number, r.outcome) for r in report.nightlies or ()][1:] == [(ours["run_number"], "green")]
    assert len(report.nightlies or ()) == 2  # the in-progress nightly and the green one, not other's red
    assert [r.number for r in report.bisects] == [bisecting["run_number"]]  # a bisect.yml run, still going
    assert report.throttle is not None and "no red nightly since the last green" in report.throttle
    assert [line for line in report.unread if not line.startswith("commit time of")] == []


@pytest.mark.parametrize("merged, base, shown", [(False, None, "P0"), (True, None, "P1"),
                                                  (True, "next", "P2")])
def test_the_pins_shown_are_origin_s_when_asked_and_of_the_branch_asked(world, git_remotes, merged,  # noqa: F811
                                                                         base, shown):
    """A bump merged in the dashboard's own job is on origin, not yet in the checkout."""
    root, origin, _ = world
    c = git_remotes.c
    for branch, plugin in (("main", "P1"), ("next", "P2")):
        clone = root.parent / f"clone-{plugin}"
        git("clone", "--quiet", "-b", "main", origin.as_uri(), clone)
        git("config", "user.name", "A Person", cwd=clone)
        git("config", "user.email", "p@example.com", cwd=clone)
        git("checkout", "--quiet", "-B", branch, cwd=clone)
        (clone / "deps.yaml").write_text(deps_yaml(git_remotes, commits={"plugin": c[plugin]}))
        git("commit", "--quiet", "-am", f"pins {plugin}", cwd=clone)
        git("push", "--quiet", "origin", branch, cwd=clone)
    report = gather_report(load_project(root), ReportOptions(NOW, merged=merged, base=base), None, None)
    assert {p.name: p.commit for p in report.pins}["plugin"] == c[shown]


class DownStore:
    def list_releases(self):
        raise RemoteError("releases: 502 after 3 tries")


def test_each_nightly_shows_the_version_published_from_its_day_and_a_store_down_is_one_line(
        world, github_client, tmp_path):  # noqa: F811
    root, _, fake = world
    store = LocalStore(tmp_path / "store")
    for version in ("0.9.1.dev20261120", "0.9.1"):
        release = store.create_draft(f"rocm-jax-v{version}", name=version, body="", prerelease="dev" in version)
        store.publish(release, prerelease="dev" in version, make_latest=False)
    fake.add_workflow_run(conclusion="success", created_at=dt.datetime(2026, 11, 20, 3, tzinfo=dt.timezone.utc))
    fake.add_workflow_run(conclusion="failure", created_at=dt.datetime(2026, 11, 21, 3, tzinfo=dt.timezone.utc))
    project, github = load_project(root), on_github(fake, github_client)
    report = gather_report(project, ReportOptions(NOW), github, store)
    assert [(r.when.day, r.version) for r in report.nightlies or ()] == [(21, None), (20, "0.9.1.dev20261120")]
    down = gather_report(project, ReportOptions(NOW), github, DownStore())
    assert [r.version for r in down.nightlies or ()] == [None, None]
    pins, store_down = down.unread
    assert pins.startswith("commit time of ")
    assert store_down == "nightly versions (the store): releases: 502 after 3 tries"


def test_the_bump_pr_shown_is_the_one_into_the_report_s_branch(world, github_client):  # noqa: F811
    root, _, fake = world
    owner, name = fake.repo.split("/")
    for ref in ("bump/2026-11-20", "bump/2026-11-21", "other"):
        git("push", "--quiet", "origin", f"HEAD:refs/heads/{ref}", cwd=root)
    ours = github_client.create_pull(owner, name, title="Bump into main", head="bump/2026-11-20", base="main")
    github_client.create_pull(owner, name, title="Bump into other", head="bump/2026-11-21", base="other")
    report = gather_report(load_project(root), ReportOptions(NOW), on_github(fake, github_client), None)
    assert report.bump is not None and report.bump.number == ours["number"]


def test_what_github_will_not_give_is_one_line_each_beside_the_others(world, github_client):  # noqa: F811
    root, _, fake = world
    fake.add_workflow_run(conclusion="success")
    fake.fail("GET", r".*/actions/workflows/.*/runs", status=404, times=10, message="Not Found")
    fake.fail("GET", r".*/pulls$", status=404, times=10, message="Not Found")
    report = gather_report(load_project(root), ReportOptions(NOW), on_github(fake, github_client), None)
    pins, runs, pulls = report.unread
    assert pins.startswith("commit time of ") and runs.startswith("nightly and bisect runs: ")
    assert pulls.startswith("pull requests: ") and report.bump is None
    assert report.nightlies is None and report.bisects == ()


def test_origin_s_pins_unreadable_is_one_line_and_the_checkout_s_are_shown(world, git_remotes, tmp_path):  # noqa: F811
    root, _, _ = world
    git("remote", "set-url", "origin", (tmp_path / "gone.git").as_uri(), cwd=root)
    report = gather_report(load_project(root), ReportOptions(NOW, merged=True), None, None)
    assert {p.name: p.commit for p in report.pins}["plugin"] == git_remotes.c["P0"]
    origin, pins, asked = report.unread
    assert origin.startswith("deps.yaml on origin's main: ") and origin.endswith("; the checkout's pins are shown")
    assert pins.startswith("commit time of ") and asked == NOT_ASKED
