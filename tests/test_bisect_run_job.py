"""``run_bisect_job``'s own decisions, one rule a test, in-process: what is refused before the
store is opened, the two ends, skip-known, which probe runs, the one-at-a-time lock, and the
hold's delivery. The search (``bisect.run_bisect``), the known culprits' ancestry
(``bisect_plan.known_in_range``, ``bisect_plan.known``) and the hold's git and GitHub work
(``bisect_run.deliver``) are replaced by what they answer: their own rules are stated in
tests/test_bisect_job.py, tests/test_autobisect.py and tests/test_bisect_deliver.py, and the whole
flows over real git histories in tests/test_bisect.py. The checkout is a real git repository and
the nightlies live in a real local store."""

from __future__ import annotations

import datetime as dt
import shutil
from pathlib import Path
from types import SimpleNamespace

import pytest

from release.core.config import load_deps, load_project
from release.core.errors import UserError
from release.core.revisions import RevisionMap
from release.jobs import bisect, bisect_plan, bisect_run
from release.jobs.bisect_run import BisectOptions, BisectResult, run_bisect_job
from release.jobs.pipeline import job_lock
from release.publish.stores import LocalStore
from release.sources.holds import KnownHold
from release.sources.pull_requests import BumpPull
from tests.support.gitrepos import git
from tests.support.project import copy_config
from tests.test_bisect_report import outcome

GOOD_TAG = "rocm-jax-v0.9.1.dev20261120"
LATER_TAG = "rocm-jax-v0.9.1.dev20261121"
BAD_TAG = "rocm-jax-v0.9.1.dev20261122"
DAY = dt.date(2026, 11, 23)
GITHUB = {"GITHUB_REPOSITORY": "rocm/jax-rocm-release", "GITHUB_TOKEN": "t"}
CONSOLE = object()  # where the job's progress draws (a rich Console), passed along only


def pins(digit: str) -> dict[str, str]:
    return {name: digit * 40 for name in ("plugin", "jax", "xla")}


def seed(store: LocalStore, root: Path, tag: str, commits: dict[str, str], tmp: Path, *, publish: bool = True) -> None:
    """A nightly ``tag`` whose revisions.json says it was built from ``commits``."""
    deps = load_deps(root / "deps.yaml").with_commits(commits)
    release = store.create_draft(tag, name=tag, body="", prerelease=True)
    asset = tmp / "revisions.json"
    asset.write_bytes(RevisionMap.from_deps(deps, "0.9.1.dev" + tag[-8:]).dumps().encode())
    store.upload_asset(release, asset, "revisions.json")
    if publish:
        store.publish(release, prerelease=True, make_latest=False)


@pytest.fixture(scope="module")
def template(tmp_path_factory) -> Path:
    """A checkout (one commit, on main) of the shipped config in ``proj``; a store in ``store``
    holding the good nightly (pins 1...), a later published one (2...) and the red one as a draft
    (3...). Built once; each test works on a copy."""
    top = tmp_path_factory.mktemp("template")
    root = top / "proj"
    root.mkdir()
    copy_config(root)
    git("init", "--quiet", "-b", "main", cwd=root)
    git("add", "-A", cwd=root)
    git("-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "--quiet", "-m", "config", cwd=root)
    store = LocalStore(top / "store")
    seed(store, root, GOOD_TAG, pins("1"), top)
    seed(store, root, LATER_TAG, pins("2"), top)
    seed(store, root, BAD_TAG, pins("3"), top, publish=False)
    return top


@pytest.fixture
def world(template, tmp_path, monkeypatch):
    """A copy of ``template``, with the search, the known culprits and the hold's delivery
    replaced by recorders (``calls``) answering ``answers``."""
    for part in ("proj", "store"):
        shutil.copytree(template / part, tmp_path / part, symlinks=True)
    root = tmp_path / "proj"
    store = LocalStore(tmp_path / "store")
    monkeypatch.setenv("JAX_ROCM_RELEASE_CACHE", str(tmp_path / "cache"))
    for key in GITHUB:
        monkeypatch.delenv(key, raising=False)
    calls: dict[str, list] = {"run_bisect": [], "known_in_range": [], "known": [], "deliver": [], "opened": []}
    answers: dict = {"hit": None, "outcome": outcome(), "held": {"line": "held"}}

    def run_bisect(deps, good, bad, probe, bisect_dir, cache, **kw):
        with pytest.raises(UserError, match="another bisect is running"):  # one bisect at a time
            with job_lock(root, "bisect"):
                pass
        calls["run_bisect"].append({"deps": deps, "good": good, "bad": bad, "probe": probe,
                                    "bisect_dir": bisect_dir, "cache": cache, **kw})
        return answers["outcome"]

    def known(project, repo, where):
        calls["known"].append({"root": project.root, "repo": repo, "where": where})
        return ["a known hold"]

    def known_in_range(deps, good, bad, held, cache):
        calls["known_in_range"].append({"deps": deps, "good": good, "bad": bad, "known": held, "cache": cache})
        return answers["hit"]

    def deliver(project, found, repo, *, push, pull):
        calls["deliver"].append({"root": project.root, "outcome": found, "repo": repo, "push": push, "pull": pull})
        return answers["held"]

    monkeypatch.setattr(bisect, "run_bisect", run_bisect)
    monkeypatch.setattr(bisect_plan, "known", known)
    monkeypatch.setattr(bisect_plan, "known_in_range", known_in_range)
    monkeypatch.setattr(bisect_run, "deliver", deliver)

    def job(env: dict | None = None, console: object = None, **asked) -> BisectResult:
        options = BisectOptions(**{"good": GOOD_TAG, "date": DAY, "dist": root / "dist", "probe_command": "true",
                                   **asked})

        def opener() -> LocalStore:
            calls["opened"].append(1)
            return store

        return run_bisect_job(load_project(root), options, opener, env=env or {}, say=lambda _: None,
                              console=console)  # type: ignore[arg-type]

    return SimpleNamespace(root=root, store=store, tmp=tmp_path, calls=calls, answers=answers, job=job)


def refused(world, match: str, **asked) -> None:
    with pytest.raises(UserError, match=match) as refusal:
        world.job(**asked)
    assert "\n" not in str(refusal.value)
    assert world.calls["opened"] == [] and world.calls["run_bisect"] == [] and world.calls["deliver"] == []


def test_without_a_good_end_nothing_is_opened(world):
    refused(world, r"^--good TAG is needed \(the last good nightly\), or --plan to choose it$", good=None)
    refused(world, "^--good TAG is needed", good="")


@pytest.mark.parametrize("asked", [{"hold": True}, {"push": True}, {"open_pr": True}, {"skip_known": True}])
def test_a_hold_or_skip_known_outside_a_checkout_is_refused_before_the_store(world, asked):
    git("update-ref", "-d", "HEAD", cwd=world.root)  # a checkout with no commit: nothing to commit the hold on
    refused(world, "the checkout has no commit yet", **asked)


def test_opening_the_hold_pr_needs_the_repository_named_before_the_store(world):
    refused(world, "^GITHUB_REPOSITORY is not set", open_pr=True)


@pytest.mark.parametrize("asked, permission", [({"skip_known": True}, "pull-requests: read"),
                                               ({"open_pr": True}, "pull-requests: write"),
                                               ({"open_pr": True, "skip_known": True}, "pull-requests: write")])
def test_a_missing_token_is_asked_for_what_the_bisect_does_with_the_hold_prs(world, asked, permission):
    """Reading the hold PRs (skip-known) asks for read; opening one asks for write."""
    refused(world, rf"^GITHUB_TOKEN is not set; .* needs a token with {permission} \(",
            env={"GITHUB_REPOSITORY": GITHUB["GITHUB_REPOSITORY"]}, **asked)


def test_without_a_hold_or_skip_known_no_checkout_is_needed(world):
    git("update-ref", "-d", "HEAD", cwd=world.root)
    assert world.job().outcome is world.answers["outcome"]


def test_the_ends_are_the_good_nightlys_pins_and_the_red_tag_commit_or_deps_yaml(world):
    head = git("rev-parse", "HEAD", cwd=world.root).strip()
    now = {d.name: d.commit for d in load_deps(world.root / "deps.yaml")}
    result = world.job(bad=BAD_TAG)
    assert (result.good, result.bad) == ({"name": GOOD_TAG, "commits": pins("1")},
                                         {"name": BAD_TAG, "commits": pins("3")})  # a red nightly stays a draft
    assert world.job(bad_commit="HEAD").bad == {"name": f"deps.yaml at {head[:7]}", "commits": now, "commit": head}
    assert world.job().bad == {"name": "deps.yaml", "commits": now}
    assert [c["bad"]["name"] for c in world.calls["run_bisect"]] == [BAD_TAG, f"deps.yaml at {head[:7]}", "deps.yaml"]
    assert world.calls["run_bisect"][0]["good"] == result.good and world.calls["opened"] == [1] * 3


def test_a_culprit_known_between_the_ends_skips_the_bisect_and_any_hold(world):
    hit = KnownHold("plugin", "c" * 40, "open", 7)
    world.answers["hit"] = hit
    result = world.job(skip_known=True, hold=True, bad=BAD_TAG)
    assert result.skipped == (f"nothing to do: plugin ccccccc, between {GOOD_TAG} and {BAD_TAG}, "
                              "is already the culprit (hold PR #7 is open)")
    assert result.known is hit and result.outcome is None and result.hold is None
    assert (result.good, result.bad) == ({"name": GOOD_TAG, "commits": pins("1")},
                                         {"name": BAD_TAG, "commits": pins("3")})
    assert world.calls["run_bisect"] == [] and world.calls["deliver"] == []
    [asked] = world.calls["known_in_range"]
    assert (asked["good"], asked["bad"], asked["known"]) == (pins("1"), pins("3"), ["a known hold"])
    assert asked["cache"] == world.tmp / "cache" and [d.name for d in asked["deps"]] == ["plugin", "jax", "xla"]


def test_skip_known_reads_the_hold_prs_of_the_repository_when_it_is_named(world):
    world.job(skip_known=True)
    world.job(skip_known=True, env=GITHUB, console=CONSOLE)
    [alone, named] = world.calls["known"]
    assert alone["where"] is None and alone["repo"].top == world.root.resolve() and alone["root"] == world.root
    pull = named["where"]
    assert isinstance(pull, BumpPull) and (pull.owner, pull.name, pull.base) == ("rocm", "jax-rocm-release", "main")
    assert pull.client.console is CONSOLE  # GitHub's waits draw where the job's progress does


def test_with_no_known_culprit_between_the_ends_skip_known_bisects(world):
    result = world.job(skip_known=True)
    assert result.skipped is None and result.outcome is world.answers["outcome"]
    assert len(world.calls["known_in_range"]) == 1 and len(world.calls["run_bisect"]) == 1


def test_without_skip_known_no_known_culprit_is_asked_for(world):
    world.answers["hit"] = KnownHold("plugin", "c" * 40, "held")
    assert world.job(hold=True).outcome is world.answers["outcome"]
    assert world.calls["known"] == [] and world.calls["known_in_range"] == []


def test_the_probe_is_the_recorded_state_else_the_command_else_a_build(world, monkeypatch):
    monkeypatch.chdir(world.tmp)
    world.job(recorded_only=True, probe_command="exit 1")
    world.job(probe_command="exit 1")
    world.job(probe_command=None, dist=Path("dist"), console=CONSOLE)
    world.job(probe_command=None, workspace=Path("ws"))
    recorded, command, build, elsewhere = (c["probe"] for c in world.calls["run_bisect"])
    assert isinstance(recorded, bisect.RecordedOnly)
    assert isinstance(command, bisect.CommandProbe) and (command.command, command.root) == ("exit 1", world.root)
    assert isinstance(build, bisect.BuildProbe) and isinstance(elsewhere, bisect.BuildProbe)
    assert build.workspace == world.tmp / "dist" / "bisect" / "workspace" and elsewhere.workspace == world.tmp / "ws"
    assert (build.project.root, build.cache, build.date) == (world.root, world.tmp / "cache", DAY)
    assert build.console is CONSOLE and elsewhere.console is None  # where a build's progress draws


def test_only_a_build_probe_is_answered_by_the_nightlies_published_since_good(world):
    world.job(probe_command=None)
    world.job()
    world.job(recorded_only=True)
    build, command, recorded = (c["published"] for c in world.calls["run_bisect"])
    assert build == ((LATER_TAG, pins("2")),)  # the red draft is not published
    assert command == () and recorded == ()


def test_the_search_gets_the_state_directory_under_dist_and_the_options(world, monkeypatch):
    monkeypatch.chdir(world.tmp)
    said: list[str] = []
    options = BisectOptions(good=GOOD_TAG, date=DAY, dist=Path("out"), probe_command="true", reset=True,
                            max_log_lines=7)
    run_bisect_job(load_project(world.root), options, lambda: world.store, env={}, say=said.append)
    world.job()
    [asked, default] = world.calls["run_bisect"]
    assert asked["bisect_dir"] == world.tmp / "out" / "bisect" and asked["cache"] == world.tmp / "cache"
    assert (asked["reset"], asked["date"], asked["max_log_lines"]) == (True, DAY, 7)
    assert asked["say"] == said.append and [d.name for d in asked["deps"]] == ["plugin", "jax", "xla"]
    assert (default["reset"], default["max_log_lines"]) == (False, 50)


def test_the_lock_is_let_go_when_the_search_ends(world):
    world.job()
    with job_lock(world.root, "bisect"):
        pass


@pytest.mark.parametrize("asked, push, pr", [({"hold": True}, False, False), ({"push": True}, True, False),
                                             ({"hold": True, "push": True}, True, False),
                                             ({"push": True, "skip_known": True}, True, False),
                                             ({"open_pr": True}, True, True)])
def test_a_hold_is_delivered_as_asked_pushed_and_its_pr_only_when_asked(world, asked, push, pr):
    result = world.job(env=GITHUB, console=CONSOLE, **asked)
    [delivered] = world.calls["deliver"]
    assert delivered["outcome"] is world.answers["outcome"] and delivered["push"] is push
    assert delivered["repo"].top == world.root.resolve() and delivered["root"] == world.root
    if pr:
        assert isinstance(delivered["pull"], BumpPull) and delivered["pull"].client.console is CONSOLE
    else:
        assert delivered["pull"] is None
    assert result.hold == {"line": "held"} and result.outcome is world.answers["outcome"]


def test_without_a_hold_nothing_is_delivered(world):
    result = world.job(env=GITHUB)
    assert world.calls["deliver"] == [] and result.hold is None
    assert result == BisectResult({"name": GOOD_TAG, "commits": pins("1")}, result.bad, world.answers["outcome"])


def test_without_a_cache_named_the_mirrors_live_in_the_checkouts_cache(world, monkeypatch):
    monkeypatch.delenv("JAX_ROCM_RELEASE_CACHE")
    world.job(probe_command=None)
    [asked] = world.calls["run_bisect"]
    assert asked["cache"] == world.root / ".cache" / "git" and asked["probe"].cache == asked["cache"]
