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
