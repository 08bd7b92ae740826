"""A red nightly bisects itself, and its culprit gets one hold PR, never a second for the same
failure.

Rules: after a red nightly the good end is the newest *published* nightly (a red one stays a
draft) and the bad pins are deps.yaml at the commit the red nightly ran from, whatever main pins
since; nothing is bisected when the plugin pin did not move or when a culprit already held or
proposed lies between them (a red night after a red night whose bisect named it), and a culprit
outside them does not count. Delivering a culprit: found again -> no commit, push, PR or comment
(even after main moved); another culprit while its PR is open -> that PR now holds the newer
one, said once; a merged or closed hold PR for it -> nothing; a person's push on the hold branch
is never overwritten. On the GitHub stand-in, strict (a PR's head branch must exist in a real
bare origin), with real git histories (tests/support/bisect_history.py).
"""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from release.core.config import Hold, parse_deps
from release.core.errors import RemoteError, UserError
from release.sources import holds
from release.sources.pull_requests import BumpPull
from release.sources.repo import ReleaseRepo
from tests.support import bisecting
from tests.support.bisect_history import build_history, make_project
from tests.support.gitrepos import git
from tests.test_bisect import probe_script, revisions_json, seed_local
from tests.test_bump_people import PERSON

N1, N2, N3 = ("rocm-jax-v0.9.1.dev20261118", "rocm-jax-v0.9.1.dev20261120", "rocm-jax-v0.9.1.dev20261122")
WRITES = ("POST", "PATCH", "PUT", "DELETE")


@pytest.fixture(scope="module")
def history(tmp_path_factory):
    return build_history(tmp_path_factory.mktemp("upstream"))


def make_checkout(root: Path, origin: Path) -> str:
    """``root`` as a checkout on main with a bare ``origin``; returns HEAD."""
    (root / ".gitignore").write_text("/dist/\n/.cache/\n")
    git("init", "--quiet", "--bare", "-b", "main", origin)
    git("init", "--quiet", "-b", "main", cwd=root)
    git("config", "user.name", "Release Bot", cwd=root)
    git("config", "user.email", "bot@example.com", cwd=root)
    git("add", "-A", cwd=root)
    git("commit", "--quiet", "-m", "pins", cwd=root)
    git("remote", "add", "origin", origin.as_uri(), cwd=root)
    git("push", "--quiet", "origin", "main", cwd=root)
    return git("rev-parse", "HEAD", cwd=root).strip()


@pytest.fixture(scope="module")
def mirrors(tmp_path_factory):
    """The module's git cache of the upstreams: a mirror answers alike cold or warm, so each
    test need not fetch them again (tests/test_bisect.py lists candidates from a cold one)."""
    return tmp_path_factory.mktemp("mirrors")


@pytest.fixture
def world(tmp_path, history, mirrors, github_env, monkeypatch):
    """The project pinned at P8 (what the red nightly built), a checkout with a bare origin the
    stand-in reads, and the module's mirror cache."""
    h = history
    root = make_project(tmp_path / "proj", h, pins=h.pins_at(h.c["P8"]))
    origin = tmp_path / "origin.git"
    red = make_checkout(root, origin)
    github_env.git_dir = origin
    monkeypatch.setenv("JAX_ROCM_RELEASE_CACHE", str(mirrors))
    monkeypatch.setenv("GITHUB_OUTPUT", str(tmp_path / "github_output"))
    return SimpleNamespace(root=root, origin=origin, fake=github_env, h=h, tmp=tmp_path, red=red,
                           store=tmp_path / "store")


def pull_of(fake, client, base: str = "main") -> BumpPull:
    owner, name = fake.repo.split("/")
    return BumpPull(client, owner, name, base)


def deliver(world, client, culprit: str, *, pull: BumpPull | None = None) -> dict:
    return holds.deliver_hold(ReleaseRepo(world.root), world.root / "deps.yaml", "plugin",
                              Hold(culprit, f"first bad ({culprit[:7]})"), changelog="the step's log",
                              report="the probes", push=True, pull=pull or pull_of(world.fake, client))


def writes(fake) -> list:
    return [entry for entry in fake.log if entry[0] == "api" and entry[1] in WRITES]


def tip(origin: Path, branch: str) -> str | None:
    out = git("for-each-ref", "--format=%(objectname)", f"refs/heads/{branch}", cwd=origin).strip()
    return out or None


def held_on(origin: Path, branch: str) -> str | None:
    text = git("show", f"refs/heads/{branch}:deps.yaml", cwd=origin)
    hold = parse_deps(Path("deps.yaml"), text)["plugin"].hold
    return hold.commit if hold else None


def comments(fake, number: int) -> list[str]:
    return [c["body"] for c in fake.comments(number)]


def person_pushes(world, clone: Path, note: str) -> None:
    """A person's commit (a note) pushed on top of hold/plugin."""
    git("clone", "--quiet", "-b", "hold/plugin", world.origin.as_uri(), clone)
    (clone / "WHY.md").write_text(note)
    git("add", "WHY.md", cwd=clone)
    git("-c", f"user.name={PERSON['GIT_AUTHOR_NAME']}", "-c", f"user.email={PERSON['GIT_AUTHOR_EMAIL']}",
        "commit", "--quiet", "-m", "note", cwd=clone)
    git("push", "--quiet", "origin", "hold/plugin", cwd=clone)


def main_moves(world, name: str = "NOTES.md") -> None:
    """A person's commit lands on main (pulled into the checkout)."""
    (world.root / name).write_text("a change on main\n")
    git("add", name, cwd=world.root)
    git("commit", "--quiet", "-m", f"add {name}", cwd=world.root)
    git("push", "--quiet", "origin", "main", cwd=world.root)


# ---------------------------------------------------------------- one hold PR per culprit


def test_the_same_culprit_found_again_writes_nothing_even_after_main_moved(world, github_client):
    h, fake = world.h, world.fake
    first = deliver(world, github_client, h.c["P6"])
    assert first["pull_request"]["action"] == "opened" and first["pushed"]
    (pr,) = fake.pulls()
    assert holds.marked_hold(pr["body"]) == ("plugin", h.c["P6"])
    assert held_on(world.origin, "hold/plugin") == h.c["P6"]
    branch_tip, before = tip(world.origin, "hold/plugin"), len(writes(fake))
    main_moves(world)  # HEAD moved: a fresh commit would differ, so none may be made
    again = deliver(world, github_client, h.c["P6"])
    assert again["known"] == {"dep": "plugin", "commit": h.c["P6"], "state": "open", "number": pr["number"],
                              "url": pr["html_url"], "branch": "hold/plugin",
                              "where": f"hold PR #{pr['number']} is open"}
    assert "commit" not in again and not again["pushed"] and "pull_request" not in again
    assert len(writes(fake)) == before and tip(world.origin, "hold/plugin") == branch_tip
    assert len(fake.pulls()) == 1 and comments(fake, pr["number"]) == []
    assert git("for-each-ref", "--format=%(refname)", "refs/heads/hold/", cwd=world.root).split() == \
        ["refs/heads/hold/plugin"]


def test_two_lines_holding_the_same_dep_each_get_their_own_hold_pr(world, github_client):
    """main and the maintained line release/0.10 each hold the plugin (different culprits): two
    hold branches, two PRs, each into its own line; each line's next finding refreshes only its own."""
    h, fake = world.h, world.fake
    git("push", "--quiet", "origin", "main:refs/heads/release/0.10", cwd=world.root)
    first = deliver(world, github_client, h.c["P6"])
    git("checkout", "--quiet", "-b", "release/0.10", cwd=world.root)
    other = deliver(world, github_client, h.c["P3"], pull=pull_of(fake, github_client, "release/0.10"))
    assert (first["pull_request"]["action"], other["pull_request"]["action"]) == ("opened", "opened")
    pulls = sorted(fake.pulls(), key=lambda p: p["base"]["ref"])
    assert [(p["base"]["ref"], p["head"]["ref"]) for p in pulls] == [("main", "hold/plugin"),
                                                                     ("release/0.10", "hold/0.10/plugin")]
    assert held_on(world.origin, "hold/plugin") == h.c["P6"] and held_on(world.origin, "hold/0.10/plugin") == h.c["P3"]
    again = deliver(world, github_client, h.c["P4"], pull=pull_of(fake, github_client, "release/0.10"))
    assert again["pull_request"]["number"] == pulls[1]["number"]
    assert held_on(world.origin, "hold/plugin") == h.c["P6"] and held_on(world.origin, "hold/0.10/plugin") == h.c["P4"]


def test_another_culprit_refreshes_the_open_hold_pr_to_the_newer_finding_said_once(world, github_client):
    h, fake = world.h, world.fake
    number = deliver(world, github_client, h.c["P6"])["pull_request"]["number"]
    for culprit, said in ((h.c["P4"], 1), (h.c["P4"], 1), (h.c["P7"], 2)):
        done = deliver(world, github_client, culprit)
        (pr,) = fake.pulls()
        assert pr["number"] == number and pr["state"] == "open"
        assert pr["title"] == f"Hold plugin before {culprit[:7]}"
        assert holds.marked_hold(pr["body"]) == ("plugin", culprit)
        assert held_on(world.origin, "hold/plugin") == culprit
        assert len(comments(fake, number)) == said, done
    first, second = comments(fake, number)
    assert h.c["P4"][:12] in first and h.c["P6"][:12] in first and h.c["P7"][:12] in second


def test_a_merged_hold_pr_for_the_culprit_means_nothing_to_do(world, github_client):
    h, fake = world.h, world.fake
    opened = deliver(world, github_client, h.c["P6"])["pull_request"]
    fake.add_check_run(tip(world.origin, "hold/plugin"), "ci")
    owner, name = fake.repo.split("/")
    github_client.merge_pull(owner, name, opened["number"], sha=tip(world.origin, "hold/plugin"))
    git("pull", "--quiet", "--ff-only", "origin", "main", cwd=world.root)
    before = len(writes(fake))
    held = deliver(world, github_client, h.c["P6"])
    assert held["known"]["state"] == "held" and len(writes(fake)) == before
    # A person removed the hold line on main since: the merged PR still names the culprit.
    text = (world.root / "deps.yaml").read_text()
    (world.root / "deps.yaml").write_text("".join(line for line in text.splitlines(True) if "hold:" not in line))
    git("commit", "--quiet", "-am", "drop the hold", cwd=world.root)
    again = deliver(world, github_client, h.c["P6"])
    assert again["known"]["state"] == "merged" and again["known"]["number"] == opened["number"]
    assert len(writes(fake)) == before and len(fake.pulls()) == 1


def test_a_closed_hold_pr_is_not_proposed_again_but_a_new_culprit_is(world, github_client):
    h, fake = world.h, world.fake
    opened = deliver(world, github_client, h.c["P6"])["pull_request"]
    owner, name = fake.repo.split("/")
    github_client.update_pull(owner, name, opened["number"], state="closed")  # a person said no
    before = len(writes(fake))
    again = deliver(world, github_client, h.c["P6"])
    assert again["known"]["state"] == "closed" and len(writes(fake)) == before
    new = deliver(world, github_client, h.c["P7"])
    assert new["pull_request"]["action"] == "opened" and new["pull_request"]["number"] != opened["number"]
    assert [p["state"] for p in fake.pulls()] == ["closed", "open"]


def test_a_persons_push_on_the_hold_branch_is_kept_and_said_once(world, github_client, tmp_path):
    h, fake = world.h, world.fake
    number = deliver(world, github_client, h.c["P6"])["pull_request"]["number"]
    person_pushes(world, tmp_path / "person", "the hold needs a note\n")
    theirs = tip(world.origin, "hold/plugin")
    for _ in range(2):
        kept = deliver(world, github_client, h.c["P7"])
        assert kept["pull_request"]["action"] == "kept" and not kept["pushed"]
        assert tip(world.origin, "hold/plugin") == theirs
    (said,) = comments(fake, number)
    assert h.c["P7"][:12] in said and PERSON["GIT_AUTHOR_NAME"] in said
    assert holds.marked_hold(fake.pulls()[0]["body"]) == ("plugin", h.c["P6"])


def test_a_persons_closed_hold_branch_stays_theirs_and_the_next_hold_pr_lives_beside_it(world, github_client,
                                                                                       tmp_path):
    """A person pushed to hold/plugin and the PR was closed: the next culprit's PR opens on
    hold/plugin-2, and a later culprit refreshes that PR there; hold/plugin is never pushed."""
    h, fake = world.h, world.fake
    first = deliver(world, github_client, h.c["P6"])["pull_request"]["number"]
    person_pushes(world, tmp_path / "person", "a note\n")
    theirs = tip(world.origin, "hold/plugin")
    owner, name = fake.repo.split("/")
    github_client.update_pull(owner, name, first, state="closed")
    second = deliver(world, github_client, h.c["P7"])["pull_request"]
    assert second["action"] == "opened" and second["branch"] == "hold/plugin-2"
    third = deliver(world, github_client, h.c["P4"])["pull_request"]
    assert third["action"] == "updated" and third["number"] == second["number"]
    assert third["branch"] == "hold/plugin-2" and held_on(world.origin, "hold/plugin-2") == h.c["P4"]
    assert tip(world.origin, "hold/plugin") == theirs
    assert [p["state"] for p in fake.pulls()] == ["closed", "open"]
    again = deliver(world, github_client, h.c["P4"])
    assert again["known"]["number"] == second["number"] and again["known"]["branch"] == "hold/plugin-2"


@settings(max_examples=6, derandomize=True, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(order=st.lists(st.sampled_from(["P2", "P4", "P6", "P7"]), min_size=1, max_size=4))
def test_any_order_of_findings_keeps_one_pr_holding_the_newest_with_one_comment_per_culprit(
        history, fake_github, fake_clock, tmp_path_factory, order):
    from release.sources.github import GitHubClient

    h = history
    tmp = tmp_path_factory.mktemp("order")
    root = make_project(tmp / "proj", h, pins=h.pins_at(h.c["P8"]))
    origin = tmp / "origin.git"
    make_checkout(root, origin)
    fake_github.git_dir = origin
    client = GitHubClient(fake_github.token, fake_github.api_url, sleep=fake_clock.sleep,
                          clock=fake_clock.time, write_interval=0)
    pull = BumpPull(client, "rocm", tmp.name, "main")  # a repository of its own per example
    world = SimpleNamespace(root=root, fake=fake_github)
    shas = [h.c[name] for name in order]
    for sha in shas:
        deliver(world, client, sha, pull=pull)
    (pr,) = fake_github.pulls(f"rocm/{tmp.name}")
    assert pr["state"] == "open" and holds.marked_hold(pr["body"]) == ("plugin", shas[-1])
    assert held_on(origin, "hold/plugin") == shas[-1]
    changes = {b for a, b in zip(shas, shas[1:]) if a != b}  # one comment per culprit moved to
    assert len(fake_github.comments(pr["number"], f"rocm/{tmp.name}")) == len(changes)


# ---------------------------------------------------------------- what to bisect after a red nightly


def seed(world) -> None:
    """Two published nightlies (P0, then P2) and tonight's red one, a draft built from P8."""
    h = world.h
    for tag, plugin, version in ((N1, "P0", "0.9.1.dev20261118"), (N2, "P2", "0.9.1.dev20261120")):
        seed_local(world.store, tag, revisions_json(h, world.root, h.c[plugin], version), world.tmp)
    from release.publish.stores import LocalStore
    store = LocalStore(world.store)
    draft = store.create_draft(N3, name=N3, body="", prerelease=True)
    asset = world.tmp / "red.json"
    asset.write_bytes(revisions_json(h, world.root, h.c["P8"], "0.9.1.dev20261122"))
    store.upload_asset(draft, asset, "revisions.json")


def bump_main(world, plugin: str) -> None:
    """main moved on since the red nightly ran (a bump merged): deps.yaml now pins ``plugin``."""
    (world.root / "deps.yaml").write_text(world.h.deps_yaml(pins=world.h.pins_at(world.h.c[plugin])))
    git("commit", "--quiet", "-am", f"Bump plugin to {plugin}", cwd=world.root)


def decide(world, **options):
    """``plan_bisect`` as the nightly's bisect job runs it: the red run's commit is the bad end."""
    return bisecting.plan(world.root, world.store, **{"bad_commit": world.red, **options})


def bisect_job(world, **options):
    """``run_bisect_job`` as the dispatched bisect workflow runs it (``release bisect``)."""
    return bisecting.bisect(world.root, world.store, **options)


def refused(error: type[Exception], match: str, job, world, **options) -> str:
    """The one line ``job`` (``decide`` or ``bisect_job``) is refused with."""
    with pytest.raises(error, match=match) as refusal:
        job(world, **options)
    assert "\n" not in str(refusal.value)
    return str(refusal.value)


def test_red_after_green_bisects_from_the_newest_published_nightly_to_the_red_ones_pins(world, github_client):
    h = world.h
    seed(world)
    bump_main(world, "P5")
    result = decide(world, dispatch="bisect.yml")
    data = result.to_json()
    assert data["bisect"] is True and data["good"]["name"] == N2  # not N1, not tonight's draft
    assert data["good"]["commits"] == h.pins_at(h.c["P2"])
    assert data["bad"]["commits"] == h.pins_at(h.c["P8"])  # what the red nightly built, not main's P5
    assert data["line"] == (f"bisect {N2}..deps.yaml at {world.red[:7]}: the last green nightly and the red "
                            f"one's pins (plugin {h.c['P2'][:7]}..{h.c['P8'][:7]}); started bisect.yml on main")
    said = "started bisect.yml: " + data["line"].removesuffix("; started bisect.yml on main")
    assert result.outputs() == {"bisect": "true", "good": N2, "bad-commit": world.red, "said": said}
    assert world.fake.dispatches == [{"repo": world.fake.repo, "workflow": "bisect.yml", "ref": "main",
                                      "inputs": {"good": N2, "bad_commit": world.red, "skip_known": "true"}}]


@pytest.mark.parametrize("culprit, how, bisects", [
    ("P6", "open", False), ("P8", "open", False), ("P6", "merged", False), ("P6", "closed", False),
    ("P6", "held", False), ("P2", "open", True), ("P1", "held", True),
])
def test_a_culprit_already_named_between_the_ends_starts_no_second_bisect(world, github_client, culprit, how,
                                                                            bisects):
    """A red night after a red night: its bisect's culprit, held or proposed in any state, is
    the answer while the pins still contain it; one at or before the good end is not."""
    h, fake = world.h, world.fake
    seed(world)
    if how == "held":
        (world.root / "deps.yaml").write_text(h.deps_yaml(pins=h.pins_at(h.c["P8"]), extra={
            "plugin": f"    hold: {{commit: {h.c[culprit]}, reason: merged}}"}))
        git("commit", "--quiet", "-am", "hold", cwd=world.root)
    else:
        number = deliver(world, github_client, h.c[culprit])["pull_request"]["number"]
        owner, name = fake.repo.split("/")
        if how == "merged":
            fake.add_check_run(tip(world.origin, "hold/plugin"), "ci")
            github_client.merge_pull(owner, name, number, sha=tip(world.origin, "hold/plugin"))
        elif how == "closed":
            github_client.update_pull(owner, name, number, state="closed")
    decided = decide(world, dispatch="bisect.yml")
    data = decided.to_json()
    assert data["bisect"] is bisects, data["line"]
    assert (fake.dispatches != []) is bisects
    if not bisects:
        assert data["known"]["commit"] == h.c[culprit] and data["known"]["state"] == how
        assert data["line"] == (f"nothing to do: plugin {h.c[culprit][:7]}, between {N2} and deps.yaml at "
                                f"{world.red[:7]}, is already the culprit ({data['known']['where']})")
        assert data["good"]["name"] == N2 and data["bad"]["commits"] == h.pins_at(h.c["P8"])
        assert decided.outputs()["bisect"] == "false"


def test_nothing_to_bisect_when_the_plugin_did_not_move_or_nothing_was_published(world):
    h = world.h
    data = decide(world).to_json()  # an empty store: no green end
    assert data["bisect"] is False
    assert data["line"].endswith("has no published nightly, so no green end to start from")
    seed_local(world.store, N2, revisions_json(h, world.root, h.c["P8"], "0.9.1.dev20261120"), world.tmp)
    data = decide(world, dispatch="bisect.yml").to_json()
    assert data["bisect"] is False
    assert data["line"].startswith(f"nothing to bisect: the plugin pin is {h.c['P8'][:7]} in {N2} and in "
                                   f"deps.yaml at {world.red[:7]}")
    assert data["line"].endswith("this failure is not one of them (see the nightly's log)")
    assert data["good"] == {"name": N2, "commits": h.pins_at(h.c["P8"])}
    assert data["bad"]["commits"] == h.pins_at(h.c["P8"])
    assert world.fake.dispatches == []


def test_bad_input_to_the_plan_is_one_line(world, run_cli):
    seed(world)
    code, _, err = run_cli("bisect", "--plan", "--store", "local", "--store-dir", world.store,
                           "--bad-commit", "0" * 40, cwd=world.root)
    assert code == 2 and "no commit" in err and len(err.strip().splitlines()) == 1
    code, _, err = run_cli("bisect", "--dispatch", "bisect.yml", "--good", N2, cwd=world.root)
    assert code == 2 and "--plan" in err
    code, _, err = run_cli("bisect", "--store", "local", "--store-dir", world.store, cwd=world.root)
    assert code == 2 and "--good" in err


@pytest.mark.parametrize("dispatch, permission", [("bisect.yml", "pull-requests: read and actions: write"),
                                                  (None, "pull-requests: read")])
def test_the_plan_without_a_token_asks_for_what_it_reads_and_starts(world, monkeypatch, dispatch, permission):
    """It reads the hold PRs, and with --dispatch starts the bisect workflow: never pull-requests: write."""
    monkeypatch.delenv("GITHUB_TOKEN")
    refused(UserError, rf"^GITHUB_TOKEN is not set; .* needs a token with {permission} \(", decide, world,
            dispatch=dispatch)
    assert not world.store.exists()  # refused before the store is opened


# ---------------------------------------------------------------- the dispatched bisect and its hold job


def test_the_dispatched_bisect_skips_a_known_culprit_without_probing(world, github_client):
    h = world.h
    seed(world)
    deliver(world, github_client, h.c["P6"])
    probed = world.tmp / "probed"
    result = bisect_job(world, good=N2, bad_commit=world.red, skip_known=True, probe_command=f"touch {probed}")
    assert result.exit_status == 0
    assert result.to_json()["known"]["number"] == 1 and not probed.exists()
    assert result.outputs() == {"found": "false", "known": h.c["P6"]}


def test_the_hold_job_delivers_the_recorded_bisect_and_never_probes(world):
    h, fake = world.h, world.fake
    seed(world)
    ends = {"good": N2, "bad_commit": world.red}
    refused(UserError, "no recorded bisect", bisect_job, world, **ends, recorded_only=True, open_pr=True)
    assert fake.pulls() == []
    found = bisect_job(world, **ends, probe_command=probe_script(world, "jax", h.c["J3"]))  # the ROCm job
    assert found.culprit is not None and found.culprit.sha == h.c["P6"] and fake.pulls() == []
    probes = (world.tmp / "calls.txt").read_text()
    held = bisect_job(world, **ends, recorded_only=True, open_pr=True)
    assert held.exit_status == 0
    assert held.to_json()["probes_run"] == 0 and (world.tmp / "calls.txt").read_text() == probes
    assert held.hold is not None and held.hold["pull_request"]["action"] == "opened"
    assert f"between {N2} and deps.yaml at {world.red[:7]}" in held.hold["reason"]
    (pr,) = fake.pulls()
    assert holds.marked_hold(pr["body"]) == ("plugin", h.c["P6"])
    again = bisect_job(world, **ends, recorded_only=True, open_pr=True)
    assert again.exit_status == 0 and again.hold is not None and again.hold["known"]["state"] == "open"
    assert len(fake.pulls()) == 1 and comments(fake, pr["number"]) == []


def test_the_hold_job_refuses_an_unfinished_bisect(world):
    seed(world)
    ends = {"good": N2, "bad_commit": world.red}
    # A bisect that stopped midway (its probe command exited 128: the bisect stops).
    refused(UserError, "128 or more stops a bisect", bisect_job, world, **ends, probe_command="exit 128")
    refused(UserError, "never probes", bisect_job, world, **ends, recorded_only=True, hold=True)
    assert git("for-each-ref", "refs/heads/hold/", cwd=world.root).strip() == ""


def test_the_hold_job_refuses_a_state_whose_candidates_are_not_good_to_bad(world):
    """The state comes from the job that ran upstream code: a culprit slipped into it (here a
    side-branch commit in place of the real first bad one) is not proposed."""
    h, fake = world.h, world.fake
    seed(world)
    ends = {"good": N2, "bad_commit": world.red}
    assert bisect_job(world, **ends, probe_command=probe_script(world, "jax", h.c["J3"])).exit_status == 0
    path = world.root / "dist" / "bisect" / "state.json"
    state = json.loads(path.read_text())
    for candidate in state["candidates"]:
        if candidate["plugin"] == h.c["P6"]:
            candidate["plugin"] = candidate["commits"]["plugin"] = h.c["S1"]
    state["probes"][h.c["S1"]] = state["probes"].pop(h.c["P6"])
    path.write_text(json.dumps(state))
    refused(UserError, "not the plugin commits between", bisect_job, world, **ends, recorded_only=True, open_pr=True)
    assert fake.pulls() == [] and tip(world.origin, "hold/plugin") is None


def test_the_plan_takes_a_good_tag_given_and_refuses_one_it_cannot_read(world):
    """--good names the green end instead of the newest published nightly; a tag that is no
    published release (tonight's red draft) or has no revisions.json is one line (a user's error)."""
    h = world.h
    seed(world)
    data = decide(world, good=N1).to_json()
    assert data["bisect"] is True
    assert data["good"] == {"name": N1, "commits": h.pins_at(h.c["P0"])}
    line = refused(UserError, f"no published release {N3}", decide, world, good=N3)
    assert line.endswith("expected the tag of the last green nightly")
    from release.publish.stores import LocalStore
    store = LocalStore(world.store)
    bare = "rocm-jax-v0.9.1.dev20261121"
    store.publish(store.create_draft(bare, name=bare, body="", prerelease=True), prerelease=True, make_latest=False)
    line = refused(UserError, bare, decide, world)  # the newest published nightly now has no revisions.json
    assert line.endswith("cannot tell which pins it was built from") and world.fake.dispatches == []


def test_nothing_published_says_so_with_the_bad_pins(world):
    h = world.h
    result = decide(world)
    data = result.to_json()
    assert data["bisect"] is False and result.exit_status == 0
    assert data["bad"]["commits"] == h.pins_at(h.c["P8"]) and data["good"] is None
    assert result.outputs() == {"bisect": "false", "bad-commit": world.red, "said": f"not run: {data['line']}"}


def test_a_dispatch_whose_answer_is_lost_is_not_sent_twice(world):
    """GitHub may have started the run before its answer was lost: the dispatch is not retried
    (a second bisect run is no retry); the run says so as a remote's error (exit 3)."""
    seed(world)
    world.fake.fail("POST", r".*/actions/workflows/.*/dispatches", status=502, when="after")
    refused(RemoteError, "dispatches", decide, world, dispatch="bisect.yml")
    assert len(world.fake.dispatches) == 1


def test_a_known_culprit_the_remote_lacks_is_passed_over_and_a_bad_end_it_lacks_is_one_line(world, github_client):
    """A hold naming a commit the plugin's remote does not have is no answer, and the next known
    culprit is still looked at; bad pins whose plugin commit is not there are refused in one line."""
    h = world.h
    seed(world)
    (world.root / "deps.yaml").write_text(h.deps_yaml(pins=h.pins_at(h.c["P8"]), extra={
        "plugin": f"    hold: {{commit: {'ab' * 20}, reason: gone}}"}))
    git("commit", "--quiet", "-am", "a hold on a commit that is gone", cwd=world.root)
    deliver(world, github_client, h.c["P6"])
    data = decide(world).to_json()
    assert data["bisect"] is False and data["known"]["commit"] == h.c["P6"], data["line"]
    (world.root / "deps.yaml").write_text(h.deps_yaml(pins={**h.pins_at(h.c["P8"]), "plugin": "cd" * 20}))
    git("commit", "--quiet", "-am", "pins a plugin commit nobody has", cwd=world.root)
    line = refused(UserError, "is not on ", decide, world, bad_commit="HEAD")
    assert line.startswith(f"plugin: commit {('cd' * 20)[:7]} is not on ")


BUILD = ("scripts/build-wheel.sh build (no credentials)",)


@pytest.mark.parametrize("jobs, bisects, says", [
    ([("build / build 3.12 wheel", "failure", [(BUILD[0], "failure")])], True, None),
    ([("build / attest and upload pjrt wheel", "failure", [("verify before attesting", "failure")])], True, None),
    ([("validate, publish, gc", "failure", [("scripts/nightly.sh finish", "failure")])], True, None),
    ([("ROCm smoke test (the plugin registers)", "failure", [("scripts/smoke.sh", "failure")])], False,
     "has no gate failed (build, verify, validate), so no probe would fail again"),
    ([("build / attest and upload 3.12 wheel", "failure", [("verify before attesting", "success"),
                                                          ("scripts/build-wheel.sh upload", "failure")])], False,
     "has no gate failed (build, verify, validate)"),
    ([("build / build 3.13 wheel", "cancelled", [(BUILD[0], None)])], False, "has no gate failed"),
])
def test_only_a_failure_a_probe_reproduces_is_bisected(world, jobs, bisects, says):
    """In the red run itself (GITHUB_RUN_ID), its jobs say where it failed: a probe builds,
    verifies and validates, so a smoke, upload or publish failure, or a cell that never got a
    runner, starts no bisect, and the line says why."""
    seed(world)
    bump_main(world, "P5")
    run = world.fake.add_workflow_run(status="in_progress", jobs=[
        ("plan and create the draft", "success", [("scripts/nightly.sh plan", "success")]), *jobs])
    decided = decide(world, dispatch="bisect.yml", run_id=str(run["id"]))
    data = decided.to_json()
    assert data["bisect"] is bisects and (world.fake.dispatches != []) is bisects
    if says:
        assert data["line"].startswith(f"not bisecting: run {run['id']} {says}"), data["line"]
        assert decided.outputs()["bisect"] == "false"


def test_the_green_end_is_the_last_nightly_of_the_red_ones_line(world, github_client):
    """Another maintained line (0.10.0) published a nightly after this line's last green one: the
    bisect still starts from this line's (0.9.1) newest published nightly."""
    h = world.h
    seed(world)
    other = "rocm-jax-v0.10.0.dev20261121"
    seed_local(world.store, other, revisions_json(h, world.root, h.c["P5"], "0.10.0.dev20261121"), world.tmp)
    data = decide(world).to_json()
    assert data["bisect"] is True and data["good"]["name"] == N2
