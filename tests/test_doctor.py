"""``release doctor``: one line for each repository setting the workflows need, asked of the
GitHub stand-in (every request and answer checked against GitHub's OpenAPI description).

Rules: a setting that makes a workflow fail or hang is a ``fail`` and exit 1; a weaker setup
is a ``warn`` (exit 0); what the token may not read is ``unknown`` and says which permission
is missing (a workflow's GITHUB_TOKEN reads little of it); nothing is ever changed.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from release.check import preflight
from tests.support.fake_github import RepoSettings

REPO = Path(__file__).resolve().parents[1]


def doctor(run_cli, *more):
    code, out, err = run_cli("doctor", "--root", REPO, "--json", *more)
    assert err == "" or code != 0, err
    data = json.loads(out)
    return code, {f["check"]: f for f in data["findings"]}, data


def ready(fake):
    """A repository with everything the workflows want."""
    fake.settings = RepoSettings(
        can_create_prs=True, pages_build_type="workflow",
        environments={"bump": {"rules": [], "secrets": ["BUMP_TOKEN"]}},
        runners=[{"name": "mi300-1", "status": "online", "labels": ["self-hosted", "Linux", "X64", "rocm"]}],
        variables={"RELEASE_KEEP": "14"},
        rulesets=[{"name": "release tags", "include": ["refs/tags/rocm-jax-v*"],
                   "exclude": ["refs/tags/rocm-jax-v*.dev*"], "rules": ["update", "deletion"]}],
        immutable_releases=True)


def writes(fake):
    return [entry for entry in fake.log if entry[1] != "GET"]


def test_a_ready_repository_is_all_ok_and_nothing_is_changed(github_env, run_cli):
    ready(github_env)
    code, found, data = doctor(run_cli)
    assert code == 0 and data["ok"] is True
    assert {f["status"] for f in found.values()} == {"ok"}, found
    assert {"pull-requests", "fork-approval", "pages", "bump-environment", "bump-token", "runners",
            "tag-rulesets", "immutable-releases"} <= set(found)
    # one line per variable the workflows read
    assert {k.split()[1] for k in found if k.startswith("variable ")} == set(
        preflight.workflow_variables(REPO))
    assert writes(github_env) == []


@pytest.mark.parametrize("breakage, check, status", [
    ({"can_create_prs": False}, "pull-requests", "fail"),
    ({"pages_build_type": "legacy"}, "pages", "fail"),
    ({"pages_build_type": None}, "pages", "fail"),
    ({"environments": {}}, "bump-environment", "warn"),
    ({"environments": {"bump": {"rules": ["required_reviewers"], "secrets": ["BUMP_TOKEN"]}}},
     "bump-environment", "fail"),
    ({"environments": {"bump": {"rules": [], "secrets": ["OTHER"]}}}, "bump-token", "warn"),
    ({"runners": []}, "runners", "fail"),
    ({"runners": [{"name": "r", "status": "offline", "labels": ["self-hosted", "linux", "x64", "rocm"]}]},
     "runners", "fail"),
    ({"runners": [{"name": "r", "status": "online", "labels": ["self-hosted", "linux", "x64"]}]},
     "runners", "fail"),
    ({"variables": {"ROCM_RUNNER_LABELS": '["self-hosted", "gpu"]'}}, "runners", "fail"),
    ({"variables": {"RELEASE_KEEP": "0"}}, "variable RELEASE_KEEP", "fail"),
    ({"variables": {"ROCM_RUNNER_LABELS": "self-hosted,rocm"}}, "variable ROCM_RUNNER_LABELS", "fail"),
    ({"variables": {"RELEASE_INDEX_URL": "https://ghp_token@example.com/"}}, "variable RELEASE_INDEX_URL", "fail"),
    ({"variables": {"RELEASE_PROTECT": "0.9.1.dev20261120 nightly-of-tuesday"}}, "variable RELEASE_PROTECT",
     "fail"),
    ({"rulesets": [{"name": "all tags", "include": ["~ALL"], "rules": ["deletion"]}]}, "tag-rulesets", "fail"),
    ({"rulesets": [{"name": "no new tags", "include": ["refs/tags/rocm-jax-v*"], "rules": ["creation"]}]},
     "tag-rulesets", "fail"),
    ({"rulesets": []}, "tag-rulesets", "warn"),
    ({"rulesets": [{"name": "off", "enforcement": "disabled", "include": ["~ALL"], "rules": ["update"]}]},
     "tag-rulesets", "warn"),
    ({"immutable_releases": False}, "immutable-releases", "warn"),
    ({"fork_pr_approval": "first_time_contributors"}, "fork-approval", "warn"),
    ({"fork_pr_approval": "first_time_contributors_new_to_github"}, "fork-approval", "warn"),
    ({"fork_pr_approval": None}, "fork-approval", "unknown"),
    # a GitHub App's key instead of BUMP_TOKEN: the job mints the token
    ({"environments": {"bump": {"rules": [], "secrets": ["BUMP_APP_PRIVATE_KEY"]}}}, "bump-token", "ok"),
])
def test_each_missing_setting_is_its_own_line_and_fails_only_what_would_fail(github_env, run_cli, breakage,
                                                                           check, status):
    ready(github_env)
    for key, value in breakage.items():
        setattr(github_env.settings, key, value)
    code, found, _ = doctor(run_cli)
    assert found[check]["status"] == status, found[check]
    others = {k: f["status"] for k, f in found.items() if k != check}
    assert set(others.values()) <= {"ok"}, others
    assert code == (1 if status == "fail" else 0)
    assert writes(github_env) == []


def test_the_runner_labels_are_the_variables_when_set(github_env, run_cli):
    ready(github_env)
    github_env.settings.variables["ROCM_RUNNER_LABELS"] = '["self-hosted", "mi300"]'
    github_env.settings.runners = [{"name": "a", "status": "online", "labels": ["self-hosted", "mi300"]}]
    code, found, _ = doctor(run_cli)
    assert code == 0 and found["runners"]["status"] == "ok"
    assert "mi300" in found["runners"]["line"]


def test_a_workflow_token_reads_little_and_says_what_it_lacks(github_env, run_cli):
    ready(github_env)
    github_env.actions_token = True
    code, found, _ = doctor(run_cli)
    unknown = {k for k, f in found.items() if f["status"] == "unknown"}
    assert {"pull-requests", "fork-approval", "runners", "immutable-releases", "bump-token", "variables"} <= unknown
    assert all("it needs" in found[k]["line"] for k in unknown)
    assert code == 0  # not knowing is not a failure: the workflows run it first with GITHUB_TOKEN


def test_human_output_is_one_line_per_finding(github_env, run_cli):
    ready(github_env)
    github_env.settings.can_create_prs = False
    code, out, _ = run_cli("doctor", "--root", REPO)
    lines = [line for line in out.splitlines() if line.strip()]
    assert code == 1
    assert any(line.startswith("FAIL") and "pull-requests" in line and "Allow GitHub Actions" in line
               for line in lines)
    _, found, _ = doctor(run_cli)
    assert len(lines) == len(found) + 1  # and the count line


def test_no_repository_is_one_line_and_exit_2(run_cli, monkeypatch):
    monkeypatch.delenv("GITHUB_REPOSITORY", raising=False)
    code, out, err = run_cli("doctor", "--root", REPO)
    assert code == 2 and "GITHUB_REPOSITORY" in err and len(err.strip().splitlines()) == 1


# --- the checks on generated settings ---------------------------------------------------------

label = st.text("abcdefgh-", min_size=1, max_size=6)


@settings(max_examples=40)
@given(st.lists(st.fixed_dictionaries({"status": st.sampled_from(["online", "offline"]),
                                       "labels": st.lists(label, max_size=5)}), max_size=4),
       st.lists(label, min_size=1, max_size=3))
def test_runners_ok_exactly_when_an_online_runner_has_every_label(runners, wanted):
    class Repo:
        def items(self, path, key):
            return [{"name": f"r{i}", "status": r["status"],
                     "labels": [{"name": n} for n in r["labels"]]} for i, r in enumerate(runners)]
    found = preflight.check_runners(Repo(), tuple(wanted))
    expected = any(r["status"] == "online" and {w.lower() for w in wanted} <= {n.lower() for n in r["labels"]}
                   for r in runners)
    assert (found.status == "ok") == expected


@settings(max_examples=40)
@given(st.text(max_size=30))
def test_a_labels_variable_is_accepted_only_as_a_json_list_of_labels(text):
    problem = preflight.VARIABLE_RULES["ROCM_RUNNER_LABELS"](text)
    try:
        data = json.loads(text)
    except ValueError:
        data = None
    good = isinstance(data, list) and bool(data) and all(isinstance(x, str) and x.strip() for x in data)
    assert (problem is None) == good


@pytest.mark.parametrize("name, value, good", [
    ("RELEASE_KEEP", "1", True), ("RELEASE_KEEP", "0", False), ("RELEASE_KEEP", "2", True),
    ("RELEASE_KEEP", "-3", False), ("RELEASE_KEEP", "1.5", False),
    ("ROCM_RUNNER_LABELS", '["self-hosted"]', True), ("ROCM_RUNNER_LABELS", "[1]", False),
    ("ROCM_RUNNER_LABELS", '[" "]', False), ("ROCM_RUNNER_LABELS", "[]", False),
    ("ROCM_RUNNER_LABELS", '{"a": 1}', False),
    ("RELEASE_PROTECT", "0.9.1.dev20261120 rocm-jax-v0.9.1rc1", True), ("RELEASE_PROTECT", "tuesday", False),
    ("RELEASE_INDEX_URL", "https://o.github.io/r", True), ("RELEASE_INDEX_URL", "http://o.github.io/r", False),
    ("RELEASE_INDEX_URL", "https://", False), ("RELEASE_INDEX_URL", "https://tok@o.github.io/r", False),
    ("BAZEL_REMOTE_CACHE", "grpcs://cache.example:443", True), ("BAZEL_REMOTE_CACHE", "ftp://c", False),
    ("ROCM_BARE_RUNNER_LABELS", '["self-hosted", "gpu-no-rocm"]', True), ("ROCM_BARE_RUNNER_LABELS", "gpu", False),
    ("RELEASE_ROCM_INDEX", "https://rocm.example/v2/gfx94X-dcgpu/", True),
    ("RELEASE_ROCM_INDEX", "http://mirror.example/simple", True), ("RELEASE_ROCM_INDEX", "none", False),
    ("RELEASE_ROCM_INDEX", "file:///srv/rocm", False), ("RELEASE_ROCM_INDEX", "https://u:p@rocm.example/", False),
])
def test_variable_values_at_their_edges(name, value, good):
    assert (preflight.VARIABLE_RULES[name](value) is None) == good


def test_each_line_says_what_to_change_or_which_permission_is_missing(github_env, run_cli):
    ready(github_env)
    github_env.settings.pages_build_type = None
    github_env.settings.can_create_prs = False
    _, found, _ = doctor(run_cli)
    assert "Source to 'GitHub Actions'" in found["pages"]["line"]
    assert "Allow GitHub Actions to create and approve pull requests" in found["pull-requests"]["line"]
    github_env.actions_token = True
    _, found, _ = doctor(run_cli)
    needs = {"pull-requests": "Administration: read", "runners": "Administration: read",
             "immutable-releases": "Administration: read", "variables": "Variables: read",
             "bump-token": "Secrets: read"}
    for check, permission in needs.items():
        assert found[check]["line"].endswith(f"(it needs {permission})"), found[check]
    assert "workflow permissions" in found["pull-requests"]["line"]


# --- what auto-merge of the bump PR needs -----------------------------------------------------

REQUIRE_CI = {"type": "required_status_checks", "parameters": {
    "required_status_checks": [{"context": "ci / lint"}], "strict_required_status_checks_policy": False}}


@pytest.mark.parametrize("change, expected", [
    ({}, {"auto-merge": "ok"}),  # off: a person merges; nothing else asked
    ({"variables": {"BUMP_AUTO_MERGE": "false"}}, {"auto-merge": "ok"}),
    ({"variables": {"BUMP_AUTO_MERGE": "true"}, "branch_protection": {"main": ["ci / lint"]}},
     {"auto-merge": "ok", "auto-merge-token": "ok", "auto-merge-checks": "ok"}),
    ({"variables": {"BUMP_AUTO_MERGE": "TRUE"}, "branch_protection": {"dev": ["ci / lint"]}},
     {"auto-merge": "ok", "auto-merge-token": "ok", "auto-merge-checks": "warn"}),  # main is unprotected
    ({"variables": {"BUMP_AUTO_MERGE": "true"}, "default_branch": "trunk",
      "branch_protection": {"trunk": ["ci / lint"]}},
     {"auto-merge": "ok", "auto-merge-token": "ok", "auto-merge-checks": "ok"}),
    ({"variables": {"BUMP_AUTO_MERGE": "true"},
      "rulesets": [{"name": "main", "target": "branch", "include": ["~DEFAULT_BRANCH"], "rules": [REQUIRE_CI]}]},
     {"auto-merge": "ok", "auto-merge-token": "ok", "auto-merge-checks": "ok"}),
    ({"variables": {"BUMP_AUTO_MERGE": "true", "BUMP_MERGE_REQUIRE": "build\nci / lint"},
      "rulesets": [{"name": "main", "target": "branch", "include": ["refs/heads/main"], "rules": [REQUIRE_CI]}]},
     {"auto-merge": "ok", "auto-merge-token": "ok", "auto-merge-checks": "ok"}),
    ({"variables": {"BUMP_AUTO_MERGE": "true", "BUMP_MERGE_REQUIRE": "build"},
      "rulesets": [{"name": "main", "target": "branch", "include": ["~ALL"], "rules": [REQUIRE_CI]}]},
     {"auto-merge": "ok", "auto-merge-token": "ok", "auto-merge-checks": "warn"}),
    ({"variables": {"BUMP_AUTO_MERGE": "true"}, "branch_protection": {"main": ["ci / lint"]},
      "rulesets": [{"name": "off", "target": "branch", "enforcement": "disabled", "include": ["~ALL"],
                    "rules": [REQUIRE_CI]}]},
     {"auto-merge": "ok", "auto-merge-token": "ok", "auto-merge-checks": "ok"}),
    ({"variables": {"BUMP_AUTO_MERGE": "true"}, "branch_protection": {"main": ["ci / lint"]},
      "environments": {"bump": {"rules": [], "secrets": ["OTHER"]}}},
     {"auto-merge": "ok", "auto-merge-token": "fail", "auto-merge-checks": "ok"}),
    ({"variables": {"BUMP_AUTO_MERGE": "true"}, "branch_protection": {"main": ["ci / lint"]}, "environments": {}},
     {"auto-merge": "ok", "auto-merge-token": "fail", "auto-merge-checks": "ok"}),
])
def test_auto_merge_needs_a_token_that_starts_ci_and_checks_the_base_requires(github_env, run_cli, change,
                                                                             expected):
    """With BUMP_AUTO_MERGE on: no BUMP_TOKEN means no CI on bump PRs, so nothing ever merges
    (fail); a default branch that requires no check, or a BUMP_MERGE_REQUIRE that leaves out one
    it requires, is a warn naming it; off, only one line says a person merges."""
    ready(github_env)
    for key, value in change.items():
        setattr(github_env.settings, key, value)
    code, found, _ = doctor(run_cli)
    assert {k: f["status"] for k, f in found.items() if k.startswith("auto-merge")} == expected
    if expected.get("auto-merge-checks") == "warn":
        line = found["auto-merge-checks"]["line"]
        assert ("ci / lint" in line) == ("BUMP_MERGE_REQUIRE" in line) and "main" in line
    if expected.get("auto-merge-checks") == "ok":
        assert "ci / lint" in found["auto-merge-checks"]["line"]
    assert code == (1 if "fail" in {f["status"] for f in found.values()} else 0)
    assert writes(github_env) == [] and github_env.violations == []


def test_auto_merge_unreadable_with_a_workflow_token_says_what_it_lacks(github_env, run_cli):
    ready(github_env)
    github_env.settings.variables = {"BUMP_AUTO_MERGE": "true"}
    github_env.actions_token = True
    code, found, _ = doctor(run_cli)
    assert found["auto-merge"]["status"] == "unknown"
    assert found["auto-merge"]["line"].endswith("(it needs Variables: read)") and code == 0


@pytest.mark.parametrize("name, value, good", [
    ("BUMP_AUTO_MERGE", "true", True), ("BUMP_AUTO_MERGE", "False", True), ("BUMP_AUTO_MERGE", "yes", False),
    ("BUMP_AUTO_MERGE", "", False), ("BUMP_MERGE_METHOD", "squash", True), ("BUMP_MERGE_METHOD", "rebase", True),
    ("BUMP_MERGE_METHOD", "fast-forward", False), ("BUMP_MERGE_METHOD", "Merge", False),
    ("BUMP_MERGE_REQUIRE", "ci / lint\nbuild", True), ("BUMP_MERGE_REQUIRE", " \n\t\n", False),
])
def test_auto_merge_variables_at_their_edges(name, value, good):
    assert (preflight.VARIABLE_RULES[name](value) is None) == good
    if name == "BUMP_MERGE_REQUIRE" and good:
        assert preflight.required_names(value) == ["ci / lint", "build"]


@pytest.mark.parametrize("repository, said", [
    (None, "no GitHub repository named: pass --repo OWNER/NAME or set GITHUB_REPOSITORY"),
    ("", "no GitHub repository named: pass --repo OWNER/NAME"),
    ("owner", "GITHUB_REPOSITORY 'owner': expected OWNER/NAME"),
])
def test_without_a_repository_doctor_names_its_repo_flag(run_cli, monkeypatch, repository, said):
    monkeypatch.setenv("GITHUB_TOKEN", "t0ken")
    if repository is None:
        monkeypatch.delenv("GITHUB_REPOSITORY", raising=False)
    else:
        monkeypatch.setenv("GITHUB_REPOSITORY", repository)
    code, out, err = run_cli("doctor", "--root", REPO)
    assert code == 2 and len(err.strip().splitlines()) == 1 and said in err, err


def test_github_out_of_reach_is_one_line_at_once(run_cli, monkeypatch):
    """Issue 33: doctor retried for 31 s before saying GitHub could not be reached."""
    import socket
    with socket.socket() as sock:   # a port nothing listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    monkeypatch.setenv("GITHUB_TOKEN", "t0ken")
    monkeypatch.setenv("GITHUB_API_URL", f"http://127.0.0.1:{port}")
    code, out, err = run_cli("doctor", "--root", REPO, "--repo", "owner/name")
    assert code == 3 and len(err.strip().splitlines()) == 1, err
    assert f"no answer from 127.0.0.1:{port} (ConnectionError)" in err and "retrying" not in err
    assert "gave up after" not in err  # one try, not six over 31 s
