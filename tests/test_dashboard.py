"""The dashboard issue and ``release status``'s roller section (issue 25 point 4).

The stand-in's issues first: it must be as strict as GitHub (a body over 65536 characters is
422, the issues list carries pull requests unless a reader filters them out, issue and pull
request numbers are one sequence), since the dashboard's rules are proven against it.
"""

from __future__ import annotations

import pytest

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

import json  # noqa: E402

from tests.support.fake_github import FAKE_REPO  # noqa: E402


@pytest.fixture
def dash(bump_project, github_env, tmp_path, monkeypatch):
    """A project pinning the fixture remotes, the stand-in as its GitHub, an empty git cache."""
    monkeypatch.setenv("JAX_ROCM_RELEASE_CACHE", str(tmp_path / "cache"))
    return bump_project(), github_env


def writes(fake):
    return [(m, p) for kind, m, p, *_ in fake.log if kind == "api" and m in ("POST", "PATCH", "PUT", "DELETE")]


def test_cli_opens_once_then_sends_nothing_new(dash, run_cli):
    root, fake = dash
    fake.add_workflow_run(conclusion="failure")
    fake.add_workflow_run(conclusion="success")
    code, out, err = run_cli("dashboard", "--json", "--root", root)
    assert code == 0, err
    first = json.loads(out)
    assert first["issue"]["action"] == "created"
    code, out, err = run_cli("dashboard", "--json", "--root", root)
    assert code == 0, err
    assert json.loads(out)["issue"]["action"] == "unchanged"
    assert len(writes(fake)) == 1
    (issue,) = fake.issues()
    print(issue["body"])
    code, out, err = run_cli("status", "--root", root)
    assert code == 0, err
    print(out)
    assert FAKE_REPO
