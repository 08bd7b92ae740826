"""The tool's pull requests: it touches only its own. A pull request from a fork (even one whose
branch is named like the tool's) or from a person's branch is never updated, pushed to or closed."""

from __future__ import annotations

import pytest

from release.sources.pull_requests import sync_pull


class Pushes:
    """Stands for ReleaseRepo: records what would be force-pushed where."""

    def __init__(self):
        self.pushed = []

    def push(self, sha, branch):
        self.pushed.append((sha, branch))

    def person_pushed(self, branch):
        return None  # every branch here is the tool's own (tests/test_bump_people.py: real git)

    def unchanged_tip(self, branch, sha):
        return None  # every roll here is new (tests/test_roller_weeks.py: the same roll kept)


def seed(client, fake, heads):
    owner, name = fake.repo.split("/")
    numbers = {}
    for head in heads:
        numbers[head] = client.create_pull(owner, name, title=f"from {head}", head=head, base="main",
                                           body="a person's words")["number"]
    return owner, name, numbers


@pytest.mark.parametrize("sha", [None, "a" * 40], ids=["pins-current", "new-roll"])
def test_a_pull_request_that_is_not_the_tools_is_never_touched(github_client, fake_github, sha):
    owner = fake_github.repo.split("/")[0]
    strangers = ["stranger:bump/plugin", "stranger:bump/xla-123", "feature/bump-notes",
                 f"{owner}:bumpy", f"{owner}:release/next-1.0.0"]
    owner, name, numbers = seed(github_client, fake_github, strangers + [f"{owner}:bump/plugin"])
    before = {p["number"]: (p["state"], p["title"], p["body"]) for p in fake_github.pulls()}
    repo = Pushes()
    result = sync_pull(github_client, repo, owner=owner, name=name, base="main", sha=sha,
                       branch="bump/plugin", title="Bump pins", body="the changelog")
    after = {p["number"]: (p["state"], p["title"], p["body"]) for p in fake_github.pulls()}
    for head in strangers:
        n = numbers[head]
        assert after[n] == before[n], f"the pull request from {head} was changed"
    assert all(branch == "bump/plugin" for _, branch in repo.pushed)
    ours = numbers[f"{owner}:bump/plugin"]
    assert after[ours][0] == ("closed" if sha is None else "open")
    assert result.action == ("closed" if sha is None else "updated")
