"""Every GitHub answer is checked for the shape the tool reads, once, where it enters
(release.sources.shapes): an answer that is not what GitHub documents is one line naming the
member, exit 3, never a traceback, whichever command reads it. The fuzzing takes the stand-in's
own (OpenAPI-checked) answer and changes one member of it to what a broken or hostile server
might send."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from release.core.errors import ConfigError
from release.core.roller import parse_roller
from release.sources import ci_status, holds, nightly_runs, shapes
from release.sources.dashboard import dashboards
from release.sources.github import MalformedAnswer
from release.sources.pull_requests import open_bump_pulls
from tests.support.fake_github import FakeClock

PAST_10000 = "9999-12-31T23:59:59-14:00"  # the year 10000 once in UTC: OverflowError unchecked
DELETE = object()
HOSTILE = st.sampled_from([None, "", "x", 7, -1, 0, True, 1.5, 2 ** 70, [], {}, {"login": 5}, [1, "a"],
                           PAST_10000, "2026-13-45T99:00:00Z", "\x1b[31mred\x1b[0m", "a:b:c", DELETE])


def _paths(value) -> list[tuple]:
    """Every node's path in a JSON value, in one fixed order."""
    found, stack = [], [(value, ())]
    while stack:
        node, path = stack.pop()
        found.append(path)
        if isinstance(node, dict):
            stack.extend((v, path + (k,)) for k, v in node.items())
        elif isinstance(node, list):
            stack.extend((v, path + (i,)) for i, v in enumerate(node))
    return sorted(found, key=repr)


def changed_at(choice: int, replacement):
    """An answer changer for the stand-in: the ``choice``-th node replaced (or removed)."""
    def change(payload):
        paths = [p for p in _paths(payload) if p]
        if not paths:
            return replacement if replacement is not DELETE else payload
        path = paths[choice % len(paths)]
        parent = payload
        for key in path[:-1]:
            parent = parent[key]
        if replacement is DELETE:
            if isinstance(parent, dict):
                del parent[path[-1]]
            else:
                parent.pop(path[-1])
        else:
            parent[path[-1]] = replacement
        return payload
    return change


# ---------------------------------------------------------------- the cases found by hand


@pytest.mark.parametrize("data, shape, names", [
    ({"number": 1, "title": "t", "html_url": "u", "user": "octocat"}, shapes.ISSUE, "user"),
    ({"number": 1, "title": "t", "html_url": "u", "head": {"ref": "bump/x", "label": 7}}, shapes.PULL, "head.label"),
    ({"number": 1, "title": "t", "html_url": "u", "head": None}, shapes.PULL, "head"),
    ({"number": 1, "title": None, "html_url": "u", "head": {"ref": "bump/x"}}, shapes.PULL, "title"),
    ({"id": "12", "name": "ci", "status": "completed"}, shapes.CHECK_RUN, "id"),
    ({"id": 12, "status": "completed"}, shapes.CHECK_RUN, "name"),
    ({"id": 3, "state": "success"}, shapes.STATUS, "context"),
    ({"id": 1, "run_number": 2, "created_at": PAST_10000, "html_url": "u", "head_sha": "s"}, shapes.WORKFLOW_RUN,
     "created_at"),
    ({"number": 1, "title": "t", "html_url": "u", "labels": [{"name": 5}]}, shapes.ISSUE, "labels[0]"),
    ([], shapes.ISSUE, "expected an object"),
])
def test_an_answer_of_the_wrong_shape_is_one_line_naming_the_member(data, shape, names):
    with pytest.raises(MalformedAnswer) as caught:
        shapes.check(data, shape, "the object")
    text = str(caught.value)
    assert caught.value.exit_code == 3 and "\n" not in text and names in text and "the object" in text


def test_a_null_head_label_is_what_github_may_send_and_reads_as_this_repositorys():
    pull = {"number": 4, "title": "Bump plugin", "head": {"ref": "bump/2026-11-20-plugin", "label": None},
            "html_url": "https://github.com/o/r/pull/4"}
    assert shapes.check(pull, shapes.PULL, "pull request") is pull


@pytest.mark.parametrize("text, year", [("2026-11-20T03:00:00Z", 2026), ("2026-11-20T03:00:00", 2026),
                                        ("2026-11-20T03:00:00+05:30", 2026), ("0001-01-01T00:00:00+00:00", 1)])
def test_times_read_as_utc(text, year):
    assert shapes.parse_time(text).year == year and shapes.parse_time(text).utcoffset().total_seconds() == 0


@pytest.mark.parametrize("text", [PAST_10000, "9999-12-31T23:59:59Z", "0001-01-01T00:00:00+14:00", "soon", "",
                                  "1" * 50])
def test_a_time_no_datetime_holds_in_utc_with_room_to_spare_is_no_time(text):
    assert shapes.parse_time(text) is None


@pytest.mark.parametrize("key, text", [("throttle_reset_after", PAST_10000),
                                       ("throttle_reset_after", "0001-01-01T00:00:00+14:00"),
                                       ("until", PAST_10000), ("until", "9999-12-31")])
def test_a_roller_time_past_what_a_time_holds_is_one_config_line(tmp_path, key, text):
    path = tmp_path / "roller.yaml"
    extra = "mode: stopped\n" if key == "until" else "mode: running\nthrottle_after_red: 2\n"
    with pytest.raises(ConfigError) as caught:
        parse_roller(path, f"{extra}{key}: '{text}'\n".encode())
    assert caught.value.exit_code == 2 and key in str(caught.value)
    assert "\n" not in str(caught.value)


# ---------------------------------------------------------------- fuzzing every reader


def _seed_readers(fake):
    owner = fake.repo.split("/")[0]
    sha = fake.branches["main"]
    fake.set_status(sha, "ci/jenkins", "success")
    fake.set_status(sha, "ci/lint", "failure")
    fake.add_check_run(sha, "build")
    fake.add_check_run(sha, "test", conclusion="failure")
    fake.add_workflow_run(conclusion="failure")
    fake.add_workflow_run(conclusion="success")
    for branch in ("bump/2026-11-20-plugin", "hold/plugin"):
        fake.branches[branch] = sha
    client_pull = {"title": "Bump plugin", "head": "bump/2026-11-20-plugin", "base": "main", "body": "b"}
    hold_pull = {"title": "Hold plugin", "head": "hold/plugin", "base": "main",
                 "body": holds.hold_mark("plugin", "a" * 40)}
    return owner, sha, client_pull, hold_pull


READERS = {
    "check runs and statuses": (r"/commits/[^/]+/(status|check-runs)$",
                                lambda c, o, n, sha: ci_status.verdict_reader(c, o, n, "all")(sha)),
    "open bump PRs": (r"/pulls$", lambda c, o, n, sha: open_bump_pulls(c, o, n, "main")),
    "hold PRs": (r"/pulls$", lambda c, o, n, sha: holds.hold_pulls(c, o, n, "plugin")),
    "comments": (r"/comments$", lambda c, o, n, sha: c.issue_comments(o, n, 1)),
    "dashboard issues": (r"/issues$", lambda c, o, n, sha: dashboards(c, o, n, "github-actions[bot]")),
    "nightly runs": (r"/runs$", lambda c, o, n, sha: nightly_runs.recent_runs(c, o, n, 5)),
}


@pytest.fixture
def readers_world(fake_github):
    from release.sources.github import GitHubClient

    owner, sha, bump, hold = _seed_readers(fake_github)
    clock = FakeClock()
    client = GitHubClient(fake_github.token, fake_github.api_url, sleep=clock.sleep, clock=clock.time,
                          write_interval=0)
    name = fake_github.repo.split("/")[1]
    number = client.create_pull(owner, name, **bump)["number"]
    client.create_pull(owner, name, **hold)
    client.comment(owner, name, number, "a comment")
    fake_github.seed_issue("Roller dashboard", body="<!-- jax-rocm-release:dashboard -->", labels=["roller"],
                           login="github-actions[bot]")
    return fake_github, client, owner, name, sha


@settings(max_examples=40)
@given(reader=st.sampled_from(sorted(READERS)), choice=st.integers(0, 10 ** 6), value=HOSTILE)
def test_any_one_member_changed_in_any_answer_is_read_or_one_line_exit_3(readers_world, reader, choice, value):
    fake, client, owner, name, sha = readers_world
    path, read = READERS[reader]
    fake.faults.clear()
    fake.fail("GET", path, when="malformed", body=changed_at(choice, value), times=10)
    try:
        read(client, owner, name, sha)
    except MalformedAnswer as exc:
        assert exc.exit_code == 3 and "\n" not in str(exc) and "\x1b" not in str(exc)
    finally:
        fake.faults.clear()


@settings(max_examples=8)
@given(target=st.sampled_from([r"/issues$", r"/pulls$", r"/runs$", r"/releases$", r"/user$"]),
       choice=st.integers(0, 10 ** 6), value=HOSTILE,
       command=st.sampled_from([("dashboard", "--dry-run"), ("status", "--store", "github")]))
def test_the_dashboard_and_status_commands_end_in_a_documented_status_whatever_github_says(
        bump_project, github_env, run_cli, tmp_path_factory, monkeypatch, target, choice, value, command):
    """The commands as a whole (the readers above, end to end): a small budget, as each run is
    a whole command. Human output: what --json holds for an answer of another shape is the JSON
    schemas' concern, not this rule's."""
    fake = github_env
    monkeypatch.setenv("JAX_ROCM_RELEASE_CACHE", str(tmp_path_factory.getbasetemp() / "shapes-cache"))
    root = bump_project()
    if not fake.workflow_runs():
        _seed_readers(fake)
        fake.seed_release("rocm-jax-v0.9.1.dev20261120")
    fake.faults.clear()
    fake.fail("GET", target, when="malformed", body=changed_at(choice, value), times=10)
    try:
        code, out, err = run_cli(*command, "--root", root)
        assert code in (0, 2, 3), err
        assert "Traceback" not in err
        if code:
            assert err.count("\n") == 1, err
    finally:
        fake.faults.clear()


def changed_member(key_path: tuple, value, *, every: bool = True):
    """An answer changer: ``key_path`` (member names; lists are walked into) set to ``value``
    in every object of the answer that has it (``DELETE``: removed)."""
    def change(payload):
        stack = [payload]
        while stack:
            node = stack.pop()
            if isinstance(node, list):
                stack.extend(node)
                continue
            if not isinstance(node, dict):
                continue
            target = node
            for key in key_path[:-1]:
                target = target.get(key) if isinstance(target, dict) else None
            if isinstance(target, dict) and key_path[-1] in target:
                if value is DELETE:
                    del target[key_path[-1]]
                else:
                    target[key_path[-1]] = value
            stack.extend(v for v in node.values() if isinstance(v, (dict, list)))
        return payload
    return change


@pytest.mark.parametrize("reader, key_path, value", [
    ("dashboard issues", ("user",), "octocat"),
    ("check runs and statuses", ("id",), "12"),
    ("check runs and statuses", ("name",), DELETE),
    ("check runs and statuses", ("context",), DELETE),
    ("nightly runs", ("created_at",), PAST_10000),
    ("hold PRs", ("head",), "hold/plugin"),
])
def test_each_broken_answer_found_by_hand_is_one_line_through_its_reader(readers_world, reader, key_path, value):
    fake, client, owner, name, sha = readers_world
    path, read = READERS[reader]
    fake.fail("GET", path, when="malformed", body=changed_member(key_path, value), times=10)
    with pytest.raises(MalformedAnswer) as caught:
        read(client, owner, name, sha)
    assert caught.value.exit_code == 3 and "\n" not in str(caught.value)
    assert key_path[-1] in str(caught.value) or "expected" in str(caught.value)


@pytest.mark.parametrize("reader", ["open bump PRs", "hold PRs"])
def test_a_pull_request_whose_head_label_is_null_is_read_as_this_repositorys(readers_world, reader):
    fake, client, owner, name, sha = readers_world
    path, read = READERS[reader]
    fake.fail("GET", path, when="malformed", body=changed_member(("head", "label"), None), times=10)
    found = read(client, owner, name, sha)
    assert len(found) == 1
