"""CI verdicts of a commit: the pure rules, and the same rules over the GitHub stand-in."""

from __future__ import annotations

import pytest

from release.core.errors import UserError
from release.sources import ci_status
from release.sources.ci_status import GREEN, MISSING, PENDING, RED, pick_green, verdict

SHA = "a" * 40
OWNER, NAME = "ROCm", "rocm-jax"


def run(name, status="completed", conclusion="success", id=1):
    return {"id": id, "name": name, "status": status, "conclusion": conclusion}


def status(context, state, id=1):
    return {"id": id, "context": context, "state": state}


# ---------------------------------------------------------------- the pure rules


def test_all_passing_is_green_and_neutral_or_skipped_do_not_fail():
    result = verdict(SHA, [status("ci/lint", "success")],
                     [run("build", conclusion="success"), run("docs", conclusion="neutral"),
                      run("gpu", conclusion="skipped")])
    assert result.state == GREEN and result.green
    assert result.passed == ("ci/lint", "build", "docs", "gpu")


@pytest.mark.parametrize("conclusion", ["failure", "cancelled", "timed_out", "action_required",
                                        "stale", "startup_failure"])
def test_a_failed_check_run_makes_it_red(conclusion):
    result = verdict(SHA, [], [run("build", conclusion="success"),
                               run("build-rocm-7.2 / py3.12", conclusion=conclusion)])
    assert result.state == RED
    assert result.describe() == "red (failing: build-rocm-7.2 / py3.12)"


@pytest.mark.parametrize("state", ["failure", "error"])
def test_a_failed_status_makes_it_red(state):
    assert verdict(SHA, [status("jenkins", state)], [run("build")]).failing == ("jenkins",)


@pytest.mark.parametrize("phase", ["queued", "in_progress", "waiting", "requested", "pending"])
def test_unfinished_check_runs_are_pending_not_green(phase):
    result = verdict(SHA, [], [run("build"), run("test", status=phase, conclusion=None)])
    assert result.state == PENDING
    assert result.describe() == "pending (running: test)"


def test_pending_status_is_not_green():
    assert verdict(SHA, [status("ci", "pending")], []).state == PENDING


def test_red_wins_over_pending():
    result = verdict(SHA, [status("ci", "pending")], [run("build", conclusion="failure")])
    assert result.state == RED and result.pending == ("ci",)


def test_no_ci_at_all_is_not_green():
    result = verdict(SHA, [], [])
    assert result.state == MISSING
    assert result.describe() == "not green (no checks or statuses)"


def test_required_names_ignore_other_checks_and_a_missing_one_is_not_green():
    runs = [run("build"), run("flaky-lint", conclusion="failure")]
    assert verdict(SHA, [], runs, ["build"]).state == GREEN
    missing = verdict(SHA, [], runs, ["build", "gpu-tests"])
    assert missing.state == MISSING and missing.missing == ("gpu-tests",)
    assert missing.describe() == "not green (never ran: gpu-tests)"


def test_a_required_name_may_be_a_status_context():
    assert verdict(SHA, [status("ci/jenkins", "success")], [run("x", conclusion="failure")],
                   ["ci/jenkins"]).state == GREEN


def test_the_newest_run_of_a_name_wins():
    """A failed job re-run to success is green; a success re-run that failed is red."""
    assert verdict(SHA, [], [run("b", conclusion="failure", id=1), run("b", id=2)]).state == GREEN
    assert verdict(SHA, [], [run("b", id=3), run("b", conclusion="failure", id=4)]).state == RED
    assert verdict(SHA, [status("c", "failure", 1), status("c", "success", 2)], []).state == GREEN


# ---------------------------------------------------------------- walking back


def fixed(states: dict[str, str]):
    asked = []

    def read(sha):
        asked.append(sha)
        state = states.get(sha, GREEN)
        return ci_status.Verdict(sha, state, failing=("build-rocm-7.2 / py3.12",) if state == RED else ())
    return read, asked


def sha(n):
    return f"{n:040x}"


def test_pick_green_takes_the_newest_green_and_says_so():
    line = [sha(i) for i in (9, 8, 7, 6)]  # newest first
    read, asked = fixed({sha(9): RED, sha(8): PENDING})
    pick = pick_green("plugin", line, sha(1), read, max_walk=10)
    assert pick.chosen == sha(7) and pick.behind == 2
    assert asked == [sha(9), sha(8), sha(7)]  # stops at the first green
    assert pick.line() == (f"plugin: tip {sha(9)[:7]} is red (failing: build-rocm-7.2 / py3.12), "
                           f"rolled to {sha(7)[:7]} (2 behind the tip, green)")


def test_pick_green_tip_green():
    read, _ = fixed({})
    pick = pick_green("plugin", [sha(5), sha(4)], sha(1), read, max_walk=3)
    assert pick.chosen == sha(5) and pick.line() == f"plugin: tip {sha(5)[:7]} is green"


def test_pick_green_gives_up_after_max_walk_and_keeps_the_pin():
    line = [sha(i) for i in range(20, 10, -1)]
    read, asked = fixed({s: RED for s in line[:4]})
    pick = pick_green("plugin", line, sha(1), read, max_walk=3)
    assert pick.chosen is None and pick.stopped == "limit" and len(asked) == 3
    assert "no green commit in the newest 3 first-parent commits, kept 0000000" in pick.line()


def test_pick_green_never_checks_the_pin_or_older():
    line = [sha(3), sha(2)]  # the range tip..pin, pin excluded
    read, asked = fixed({sha(3): RED, sha(2): PENDING})
    pick = pick_green("plugin", line, sha(1), read, max_walk=10)
    assert pick.chosen is None and pick.stopped == "pin" and asked == line
    assert pick.line().endswith(f"no green commit newer than the pin {sha(1)[:7]}, kept it")


# ---------------------------------------------------------------- URLs


@pytest.mark.parametrize("url,expected", [
    ("https://github.com/ROCm/rocm-jax.git", ("ROCm", "rocm-jax")),
    ("https://github.com/ROCm/xla", ("ROCm", "xla")),
    ("git@github.com:ROCm/jax.git", ("ROCm", "jax")),
    ("ssh://git@github.com/ROCm/jax.git", ("ROCm", "jax")),
    ("https://x-access-token:abc@github.com/ROCm/jax.git", ("ROCm", "jax")),
    ("https://gitlab.com/ROCm/jax.git", None),
    ("file:///srv/git/jax.git", None),
    ("https://ghe.example.com/ROCm/jax.git", None),
])
def test_github_repository_from_url(url, expected):
    assert ci_status.github_repository(url, env={}) == expected


def test_github_enterprise_host_from_server_url():
    env = {"GITHUB_SERVER_URL": "https://ghe.example.com"}
    assert ci_status.github_repository("https://ghe.example.com/ROCm/jax.git", env) == ("ROCm", "jax")


def test_require_on_a_non_github_remote_is_one_line():
    with pytest.raises(UserError) as err:
        ci_status.require_github("plugin", "https://gitlab.com/ROCm/rocm-jax.git", env={})
    assert "\n" not in str(err.value)
    assert "plugin: roll requires green CI, but https://gitlab.com/ROCm/rocm-jax.git is not a " \
           "GitHub repository" in str(err.value)


def test_missing_token_names_the_permissions():
    with pytest.raises(UserError, match="checks: read and statuses: read"):
        ci_status.client_from_env("plugin", env={})


# ---------------------------------------------------------------- over the GitHub stand-in


def read_from(fake, github_client, require="green"):
    return ci_status.verdict_reader(github_client, OWNER, NAME, require)


def test_stand_in_green_red_pending_missing(fake_github, github_client):
    repo = f"{OWNER}/{NAME}"
    green, red, pending, missing, mixed = (f"{c}" * 40 for c in "12345")
    fake_github.add_check_run(green, "build", repo=repo)
    fake_github.add_check_run(green, "docs", conclusion="skipped", repo=repo)
    fake_github.set_status(green, "ci/jenkins", "success", repo=repo)
    fake_github.add_check_run(red, "build-rocm-7.2 / py3.12", conclusion="failure", repo=repo)
    fake_github.add_check_run(red, "build", repo=repo)
    fake_github.add_check_run(pending, "build", status="in_progress", repo=repo)
    fake_github.set_status(mixed, "ci/jenkins", "failure", repo=repo)
    fake_github.set_status(mixed, "ci/jenkins", "success", repo=repo)  # re-run: latest wins
    read = read_from(fake_github, github_client)
    assert read(green).state == GREEN
    assert read(red).describe() == "red (failing: build-rocm-7.2 / py3.12)"
    assert read(pending).state == PENDING
    assert read(missing).state == MISSING
    assert read(mixed).state == GREEN
    required = read_from(fake_github, github_client, ["build", "gpu"])
    assert required(green).missing == ("gpu",)
    # Every request went to the two documented endpoints, validated against the description.
    paths = {entry[2] for entry in fake_github.log}
    assert paths == {f"/repos/{repo}/commits/{s}/{what}" for s in (green, red, pending, missing, mixed)
                     for what in ("status", "check-runs")}


def test_stand_in_paginates_more_than_100_check_runs(fake_github, github_client):
    repo = f"{OWNER}/{NAME}"
    commit = "c" * 40
    for i in range(230):
        fake_github.add_check_run(commit, f"test-shard-{i:03d}", repo=repo)
    read = read_from(fake_github, github_client)
    assert read(commit).state == GREEN
    # The one failure is on the last page: reading only the first page would call it green.
    fake_github.add_check_run(commit, "zz-last", conclusion="failure", repo=repo)
    for i in range(230):  # re-runs of the same names push zz-last to page 3
        fake_github.add_check_run(commit, f"test-shard-{i:03d}", repo=repo)
    result = read(commit)
    assert result.state == RED and result.failing == ("zz-last",)
    assert len(result.passed) == 230
    pages = [dict(e[3]).get("page") for e in fake_github.log if e[2].endswith("/check-runs")]
    assert pages.count("3") == 2


def test_stand_in_paginates_statuses(fake_github, github_client):
    repo = f"{OWNER}/{NAME}"
    commit = "d" * 40
    for i in range(120):
        fake_github.set_status(commit, f"ctx-{i:03d}", "success", repo=repo)
    fake_github.set_status(commit, "ctx-000", "error", repo=repo)  # newest: sorted first
    fake_github.set_status(commit, "ctx-119", "pending", repo=repo)
    result = read_from(fake_github, github_client)(commit)
    assert result.state == RED and result.failing == ("ctx-000",) and result.pending == ("ctx-119",)
    assert len(result.passed) == 118


def test_stand_in_refusal_names_the_permissions(fake_github, github_client):
    fake_github.fail("GET", r"/check-runs$", status=403, message="Resource not accessible by integration")
    with pytest.raises(UserError) as err:
        read_from(fake_github, github_client)("e" * 40)
    assert "403" in str(err.value) and "checks: read and statuses: read" in str(err.value)
    assert fake_github.token not in str(err.value)


# ---------------------------------------------------------------- newest, not last, over generated orders

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@settings(derandomize=True, max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["build", "test"]), st.booleans()), min_size=1, max_size=8),
       st.randoms(use_true_random=False), st.booleans())
def test_the_newest_result_of_a_name_decides_in_whatever_order_github_lists_them(results, rnd, as_status):
    """GitHub's lists are not in creation order: the result with the highest id of each name
    (the newest re-run) decides, wherever it sits in the list."""
    entries = []
    for i, (name, passed) in enumerate(results, start=1):
        if as_status:
            entries.append(status(name, "success" if passed else "failure", id=i))
        else:
            entries.append(run(name, conclusion="success" if passed else "failure", id=i))
    rnd.shuffle(entries)
    newest = {}
    for name, passed in results:  # in id order: the last seen here is the newest
        newest[name] = passed
    expected = GREEN if all(newest.values()) else RED
    got = verdict(SHA, entries, []) if as_status else verdict(SHA, [], entries)
    assert got.state == expected
