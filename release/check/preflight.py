"""What a GitHub repository still needs before the workflows can run there, asked of GitHub.

The workflows depend on settings no file in the repository holds: whether Actions may open
pull requests, whether fork pull requests wait for approval, the Pages source, the ``bump``
environment and its token, online runners with the ROCm labels, the repository variables, what
auto-merge of the bump PR needs (a token whose pushes start CI, required checks on the base),
tag rulesets and immutable releases. Each check reads (never changes) one of them and says it
in one line: ``ok``, ``warn`` (works, but not as well as it could), ``fail`` (a workflow will
fail or hang), or ``unknown`` (the token may not read it: the line says which permission it
lacks).
"""

from __future__ import annotations

import dataclasses
import fnmatch
import json
import re
from pathlib import Path
from typing import Any, Callable, Iterable
from urllib.parse import quote, urlsplit

from packaging.version import InvalidVersion, Version

from release.core import naming, sanitize
from release.core.errors import UserError
from release.sources.github import GitHubClient, GitHubError

# The ROCm runners' labels when the variable ROCM_RUNNER_LABELS is unset (build-wheels.yml).
DEFAULT_RUNNER_LABELS = ("self-hosted", "linux", "x64", "rocm")
BUMP_ENVIRONMENT = "bump"
BUMP_SECRET = "BUMP_TOKEN"
BUMP_APP_SECRET = "BUMP_APP_PRIVATE_KEY"  # with the variable BUMP_APP_ID: the job mints the token
# Tags this tool makes (publishing creates them; gc deletes old nightlies' ones).
SAMPLE_TAGS = {"nightly": naming.release_tag("0.9.1.dev20261120"), "release": naming.release_tag("0.9.1")}


@dataclasses.dataclass(frozen=True)
class Finding:
    check: str
    status: str  # ok | warn | fail | unknown
    line: str

    def to_json(self) -> dict[str, str]:
        return dataclasses.asdict(self)


def workflow_variables(root: Path) -> list[str]:
    """The repository variables (``vars.NAME``) the workflows under ``root`` read, sorted."""
    names: set[str] = set()
    for path in sorted((root / ".github" / "workflows").glob("*.y*ml")):
        names |= set(re.findall(r"\bvars\.([A-Za-z_][A-Za-z0-9_]*)", path.read_text(encoding="utf-8")))
    return sorted(names)


class _Repo:
    """GET requests on one repository; a 401/403/404 becomes ``None`` (the caller decides what
    it means), anything else GitHub refuses or fails propagates."""

    def __init__(self, client: GitHubClient, owner: str, name: str):
        self.client, self.base = client, f"/repos/{owner}/{name}"
        self.owner, self.name = owner, name

    def get(self, path: str) -> Any:
        try:
            return self.client.request("GET", self.base + path)
        except GitHubError as exc:
            if exc.status in (401, 403, 404):
                return None
            raise

    def items(self, path: str, key: str) -> list[Any] | None:
        try:
            return list(self.client.paginate(self.base + path, key=key))
        except GitHubError as exc:
            if exc.status in (401, 403, 404):
                return None
            raise


def _cannot(check: str, what: str, permission: str) -> Finding:
    return Finding(check, "unknown", f"cannot read {what} with this token (it needs {permission})")


def check_pull_requests(repo: _Repo) -> Finding:
    data = repo.get("/actions/permissions/workflow")
    if not isinstance(data, dict) or "can_approve_pull_request_reviews" not in data:
        return _cannot("pull-requests", "the Actions workflow permissions", "Administration: read")
    if data["can_approve_pull_request_reviews"] is True:
        return Finding("pull-requests", "ok", "GitHub Actions may create pull requests (bump and "
                                              "next-version PRs with GITHUB_TOKEN)")
    return Finding("pull-requests", "fail", "GitHub Actions may not create pull requests: the bump "
                   "and next-version PRs fail; enable Settings > Actions > General > Workflow "
                   "permissions > 'Allow GitHub Actions to create and approve pull requests'")


def check_fork_approval(repo: _Repo) -> Finding:
    """Pull requests from forks run workflows only after a maintainer approves them (GitHub's
    fork PR approval policy). No pull_request workflow runs on the ROCm runners (a rule of the
    workflows), so this guards the hosted CI's minutes and secrets-free checks only: a warning."""
    try:
        data = repo.client.request("GET", repo.base + "/actions/permissions/fork-pr-contributor-approval")
    except GitHubError as exc:
        if exc.status in (401, 403):
            return _cannot("fork-approval", "the fork pull request approval policy", "Administration: read")
        if exc.status == 404:
            return Finding("fork-approval", "unknown", "GitHub does not say the fork pull request approval "
                           "policy here; check Settings > Actions > General > 'Approval for running fork "
                           "pull request workflows from contributors'")
        raise
    policy = data.get("approval_policy") if isinstance(data, dict) else None
    if policy == "all_external_contributors":
        return Finding("fork-approval", "ok", "workflows of every outside contributor's pull request wait "
                       "for a maintainer's approval")
    return Finding("fork-approval", "warn", f"fork pull requests of some outside contributors run workflows "
                   f"without approval (policy {sanitize.line(str(policy))[:60]!r}); no pull_request workflow "
                   "runs on the ROCm runners, but set Settings > Actions > General > 'Require approval for "
                   "all external contributors'")


def check_pages(repo: _Repo) -> Finding:
    data = repo.get("/pages")
    if data is None:
        return Finding("pages", "fail", "GitHub Pages is not enabled: the nightly's pages job "
                       "cannot deploy; set Settings > Pages > Source to 'GitHub Actions'")
    if not isinstance(data, dict):
        return _cannot("pages", "the Pages settings", "Pages: read")
    if data.get("build_type") == "workflow":
        return Finding("pages", "ok", "Pages is built by GitHub Actions (the nightly's pages job deploys it)")
    return Finding("pages", "fail", f"Pages is built from a branch (build_type "
                   f"{data.get('build_type')!r}): set Settings > Pages > Source to 'GitHub Actions'")


def check_bump_environment(repo: _Repo) -> list[Finding]:
    env = repo.get(f"/environments/{BUMP_ENVIRONMENT}")
    if not isinstance(env, dict):
        return [Finding("bump-environment", "warn", f"no environment {BUMP_ENVIRONMENT!r} yet (GitHub "
                        f"makes it on the first bump run); give it the secret {BUMP_SECRET}")]
    found = [Finding("bump-environment", "ok", f"environment {BUMP_ENVIRONMENT!r} exists")]
    rules = [r.get("type") for r in env.get("protection_rules") or [] if isinstance(r, dict)]
    if "required_reviewers" in rules or "wait_timer" in rules:
        found[0] = Finding("bump-environment", "fail", f"environment {BUMP_ENVIRONMENT!r} has "
                           f"protection rules ({', '.join(sorted(map(str, rules)))}): the daily bump "
                           "waits for them; the job runs unattended, remove them")
    secrets = repo.items(f"/environments/{BUMP_ENVIRONMENT}/secrets", "secrets")
    if secrets is None:
        found.append(_cannot("bump-token", f"the secrets of {BUMP_ENVIRONMENT!r}", "Secrets: read"))
    elif any(isinstance(s, dict) and s.get("name") == BUMP_APP_SECRET for s in secrets):
        found.append(Finding("bump-token", "ok", f"{BUMP_APP_SECRET} is set: the bump job mints a GitHub "
                             "App token (the App named by the variable BUMP_APP_ID) to push bump PRs, so "
                             "CI runs on them"))
    elif any(isinstance(s, dict) and s.get("name") == BUMP_SECRET for s in secrets):
        found.append(Finding("bump-token", "ok", f"{BUMP_SECRET} is set: bump PRs are pushed with it "
                             "and CI runs on them"))
    else:
        found.append(Finding("bump-token", "warn", f"no {BUMP_SECRET} in {BUMP_ENVIRONMENT!r}: bump PRs "
                             "are opened with GITHUB_TOKEN, which triggers no workflow, so no CI runs "
                             "on them and auto-merge never sees green; set BUMP_APP_ID and "
                             f"{BUMP_APP_SECRET} (a GitHub App), or a fine-grained token for this "
                             "repository only with Contents and Pull requests: write, Actions, Checks "
                             "and Commit statuses: read"))
    return found


# --- repository variables ---------------------------------------------------------------------

def _labels(value: str) -> str | None:
    try:
        data = json.loads(value)
    except ValueError:
        data = None
    if not (isinstance(data, list) and data and all(isinstance(x, str) and x.strip() for x in data)):
        return 'expected a JSON list of runner labels, e.g. ["self-hosted", "linux", "x64", "rocm"]'
    return None


def _keep(value: str) -> str | None:
    return None if value.strip().isdigit() and int(value) >= 1 else "expected a whole number >= 1"


def _protect(value: str) -> str | None:
    for word in value.split():
        try:
            Version(naming.version_from_tag(word) or word)
        except InvalidVersion:
            return f"{word!r} is neither a version nor a {naming.TAG_PREFIX}<version> tag"
    return None


def _url(schemes: tuple[str, ...]) -> Callable[[str], str | None]:
    def check(value: str) -> str | None:
        parts = urlsplit(value.strip())
        if parts.scheme not in schemes or not parts.hostname:
            return f"expected a {' or '.join(s + '://' for s in schemes)} URL"
        if parts.username or parts.password:
            return "a variable is not secret: no credentials in the URL"
        return None
    return check


MERGE_METHODS = ("merge", "squash", "rebase")


def _true_or_false(value: str) -> str | None:
    return None if value.strip().lower() in ("true", "false") else "expected true or false"


def _merge_method(value: str) -> str | None:
    return None if value.strip() in MERGE_METHODS else f"expected one of {', '.join(MERGE_METHODS)}"


def _check_names(value: str) -> str | None:
    return None if required_names(value) else "expected check names, one a line"


def required_names(value: str) -> list[str]:
    """BUMP_MERGE_REQUIRE's check names: one a line (a check name may hold spaces)."""
    return [line.strip() for line in value.splitlines() if line.strip()]


def _project_limits(value: str) -> str | None:
    from release.publish.pypi_budget import parse_project_limits
    try:
        parse_project_limits(value, "PYPI_PROJECT_LIMIT")
    except UserError as exc:
        return str(exc).split(": ", 1)[-1]
    return None


VARIABLE_RULES: dict[str, Callable[[str], str | None]] = {
    "BUMP_AUTO_MERGE": _true_or_false,
    "BUMP_MERGE_METHOD": _merge_method,
    "BUMP_MERGE_REQUIRE": _check_names,
    "ROCM_RUNNER_LABELS": _labels,
    "ROCM_BARE_RUNNER_LABELS": _labels,  # GPU runners without a system ROCm: the nightly's smoke-with-rocm
    "RELEASE_KEEP": _keep,
    "RELEASE_PROTECT": _protect,
    "RELEASE_INDEX_URL": _url(("https",)),
    "RELEASE_ROCM_INDEX": _url(("https", "http")),  # as --rocm-index takes it (public_index.check_rocm_index)
    "BAZEL_REMOTE_CACHE": _url(("grpcs", "grpc", "https", "http")),
    "PYPI_REPOSITORY_URL": _url(("https",)),
    "PYPI_PROJECT_LIMIT": _project_limits,
}


def check_variables(repo: _Repo, wanted: Iterable[str]) -> tuple[list[Finding], dict[str, str]]:
    """A line per variable the workflows read: set (and well-formed) or unset (the default)."""
    items = repo.items("/actions/variables", "variables")
    if items is None:
        return [_cannot("variables", "the repository variables", "Variables: read")], {}
    values = {v["name"]: str(v.get("value", "")) for v in items if isinstance(v, dict) and "name" in v}
    found = []
    for name in wanted:
        if name not in values:
            found.append(Finding(f"variable {name}", "ok", f"{name} is unset: the workflows use its default"))
            continue
        problem = VARIABLE_RULES.get(name, lambda _: None)(values[name])
        shown = values[name] if len(values[name]) <= 80 else values[name][:77] + "..."
        if problem:
            found.append(Finding(f"variable {name}", "fail", f"{name} = {shown!r}: {problem}"))
        else:
            found.append(Finding(f"variable {name}", "ok", f"{name} = {shown!r}"))
    return found, values


# --- auto-merge of the bump PR ------------------------------------------------------------------

def required_checks(repo: _Repo, branch: str) -> set[str] | None:
    """The status checks ``branch`` requires, by branch protection and by rulesets (None: the
    token may read neither)."""
    found: set[str] = set()
    readable = False
    rules = repo.get(f"/rules/branches/{quote(branch, safe='')}")
    if isinstance(rules, list):
        readable = True
        for rule in rules:
            if isinstance(rule, dict) and rule.get("type") == "required_status_checks":
                for check in (rule.get("parameters") or {}).get("required_status_checks") or []:
                    if isinstance(check, dict) and isinstance(check.get("context"), str):
                        found.add(check["context"])
    info = repo.get(f"/branches/{quote(branch, safe='')}")
    if isinstance(info, dict):
        readable = True
        status = ((info.get("protection") or {}).get("required_status_checks") or {})
        found |= {c for c in status.get("contexts") or [] if isinstance(c, str)}
    return found if readable else None


def check_auto_merge(repo: _Repo, values: dict[str, str] | None, token: Finding | None) -> list[Finding]:
    """What ``bump --auto-merge`` (BUMP_AUTO_MERGE) needs: a token whose pushes start CI (else no
    check ever passes), and the bump PR's base requiring the checks (else GitHub merges anything)."""
    if values is None:
        return [_cannot("auto-merge", "whether BUMP_AUTO_MERGE is on", "Variables: read")]
    if values.get("BUMP_AUTO_MERGE", "").strip().lower() != "true":
        return [Finding("auto-merge", "ok", "auto-merge is off (BUMP_AUTO_MERGE is not true): a person "
                                            "merges each bump PR")]
    found = [Finding("auto-merge", "ok", "auto-merge is on: the bump job merges its PR when every commit "
                                         "on it is the tool's and its checks passed")]
    if token is not None and token.status == "unknown":
        found.append(_cannot("auto-merge-token", f"whether the {BUMP_ENVIRONMENT!r} environment has "
                             f"{BUMP_SECRET}", "Secrets: read"))
    elif token is not None and token.status == "ok":
        found.append(Finding("auto-merge-token", "ok", f"the bump token ({BUMP_APP_SECRET}'s App or "
                             f"{BUMP_SECRET}) pushes the bump PRs, so CI runs on them and the job can merge "
                             "them once green (it needs Contents and Pull requests: write, Checks and "
                             "Commit statuses: read)"))
    else:
        found.append(Finding("auto-merge-token", "fail", f"BUMP_AUTO_MERGE is true but there is no "
                             f"{BUMP_SECRET}: bump PRs pushed with GITHUB_TOKEN start no CI, so no check "
                             f"ever passes and none is merged; give {BUMP_ENVIRONMENT!r} a {BUMP_SECRET} "
                             "(a GitHub App or fine-grained token: Contents and Pull requests: write, "
                             "Checks and Commit statuses: read)"))
    meta = repo.get("")
    branch = str(meta.get("default_branch") or "main") if isinstance(meta, dict) else "main"
    required = required_checks(repo, branch)
    wanted = set(required_names(values.get("BUMP_MERGE_REQUIRE", "")))
    if required is None:
        found.append(_cannot("auto-merge-checks", f"the checks {branch} requires", "Contents: read"))
    elif not required:
        found.append(Finding("auto-merge-checks", "warn", f"{branch} requires no status check (no branch "
                             "protection or ruleset rule names one): the job merges only green bump PRs, "
                             f"but GitHub itself would merge anything; require the ci checks on {branch}"))
    elif wanted and not required <= wanted:
        missing = ", ".join(sorted(required - wanted))
        found.append(Finding("auto-merge-checks", "warn", f"BUMP_MERGE_REQUIRE leaves out {missing}, which "
                             f"{branch} requires: the job asks to merge before they pass and GitHub "
                             "refuses (405) until they do; name them too, or unset it to wait for every check"))
    else:
        found.append(Finding("auto-merge-checks", "ok", f"{branch} requires {', '.join(sorted(required))}: "
                             "nothing is merged before they pass"))
    return found


def check_runners(repo: _Repo, labels: tuple[str, ...]) -> Finding:
    runners = repo.items("/actions/runners", "runners")
    if runners is None:
        return _cannot("runners", "the self-hosted runners", "Administration: read")
    wanted = {label.lower() for label in labels}
    fits = [r for r in runners if isinstance(r, dict) and wanted <= {
        str(lbl.get("name", "")).lower() for lbl in r.get("labels") or [] if isinstance(lbl, dict)}]
    online = [r for r in fits if r.get("status") == "online"]
    if online:
        return Finding("runners", "ok", f"{len(online)} online runner(s) with labels {list(labels)}")
    return Finding("runners", "fail", f"no online runner of this repository has labels {list(labels)} "
                   f"({len(fits)} offline, {len(runners) - len(fits)} with other labels): the build "
                   "cells would queue for a day and be cancelled; start one, or set "
                   "ROCM_RUNNER_LABELS (organisation runners are not listed here)")


# --- tags -------------------------------------------------------------------------------------

def _applies(conditions: dict, tag: str) -> bool:
    ref = f"refs/tags/{tag}"
    names = (conditions or {}).get("ref_name") or {}
    include = [p for p in names.get("include") or [] if isinstance(p, str)]
    exclude = [p for p in names.get("exclude") or [] if isinstance(p, str)]

    def hit(patterns: list[str]) -> bool:
        return any(p == "~ALL" or fnmatch.fnmatchcase(ref, p) or fnmatch.fnmatchcase(tag, p)
                   for p in patterns)
    return hit(include) and not hit(exclude)


def check_tag_rulesets(repo: _Repo) -> list[Finding]:
    listed = repo.get("/rulesets")
    if not isinstance(listed, list):
        return [_cannot("tag-rulesets", "the rulesets", "Metadata: read")]
    found: list[Finding] = []
    guarded = False
    for summary in listed:
        if not isinstance(summary, dict) or summary.get("enforcement") != "active" or \
                summary.get("target", "tag") != "tag":
            continue
        rules = repo.get(f"/rulesets/{summary.get('id')}")
        if not isinstance(rules, dict) or rules.get("target") != "tag":
            continue
        types = {str(r.get("type")) for r in rules.get("rules") or [] if isinstance(r, dict)}
        name = rules.get("name", summary.get("id"))
        if _applies(rules.get("conditions") or {}, SAMPLE_TAGS["nightly"]) and types & {"creation", "deletion"}:
            found.append(Finding("tag-rulesets", "fail", f"tag ruleset {name!r} restricts "
                                 f"{' and '.join(sorted(types & {'creation', 'deletion'}))} of nightly "
                                 f"tags ({SAMPLE_TAGS['nightly']}): publishing makes them and gc deletes "
                                 "old ones; exclude *.dev* tags or let the workflows bypass it"))
        if _applies(rules.get("conditions") or {}, SAMPLE_TAGS["release"]) and "update" in types:
            guarded = True
    if guarded:
        found.append(Finding("tag-rulesets", "ok", f"a tag ruleset keeps release tags "
                             f"({naming.TAG_PREFIX}X.Y.Z) from moving"))
    elif not found:
        found.append(Finding("tag-rulesets", "warn", f"no active tag ruleset keeps {naming.TAG_PREFIX}* "
                             "release tags from moving: add one restricting updates (and deletions "
                             "of rc and release tags)"))
    return found


def check_immutable_releases(repo: _Repo) -> Finding:
    try:
        data = repo.client.request("GET", repo.base + "/immutable-releases")
    except GitHubError as exc:
        if exc.status == 404:
            data = {"enabled": False}
        elif exc.status in (401, 403):
            return _cannot("immutable-releases", "the immutable-releases setting", "Administration: read")
        else:
            raise
    if isinstance(data, dict) and data.get("enabled") is True:
        return Finding("immutable-releases", "ok", "immutable releases are on: a published release's "
                                                   "assets and tag never change")
    return Finding("immutable-releases", "warn", "immutable releases are off: enable them (Settings > "
                   "General > Releases) so no published wheel can be replaced")


def preflight(client: GitHubClient, owner: str, name: str, root: Path) -> list[Finding]:
    """Every check, in the order a maintainer fixes them; nothing is changed."""
    repo = _Repo(client, owner, name)
    found = [check_pull_requests(repo), check_fork_approval(repo), check_pages(repo),
             *check_bump_environment(repo)]
    variables, values = check_variables(repo, workflow_variables(root))
    readable = not (len(variables) == 1 and variables[0].check == "variables")
    token = next((f for f in found if f.check == "bump-token"), None)
    labels = DEFAULT_RUNNER_LABELS
    if "ROCM_RUNNER_LABELS" in values and _labels(values["ROCM_RUNNER_LABELS"]) is None:
        labels = tuple(json.loads(values["ROCM_RUNNER_LABELS"]))
    found += [check_runners(repo, labels), *variables, *check_auto_merge(repo, values if readable else None, token),
              *check_tag_rulesets(repo), check_immutable_releases(repo)]
    return found
