"""Write the roller report (``release.jobs.report``) into the one dashboard issue.

The issue is opened once and edited only when its body changes (``release.sources.dashboard``).
Whose dashboard it is: ``DashboardOptions.author``, else the token's own login, else
``github-actions[bot]`` (an Actions token, which may not read ``/user``); an issue is opened
only by its own author, so a person's token edits the workflows' dashboard and never opens one.
The bump and nightly workflows run it last.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any, Mapping

from release.jobs.report import OnGitHub, ReportOptions, gather_report

if TYPE_CHECKING:
    from release.core.config import Project
    from release.core.roller_report import Report
    from release.publish.stores import Store
    from release.sources.dashboard import IssueResult

CONCLUSIONS = ("success", "failure", "cancelled")


@dataclasses.dataclass(frozen=True)
class DashboardOptions:
    report: ReportOptions
    author: str | None = None  # whose dashboard (None: the token's login, else the Actions bot)
    dry_run: bool = False      # render and say what would be sent; send nothing
    # This writer says nothing of a bisect (bump's dashboard job): the line the last nightly
    # wrote stays, else a bump after a red night would erase why it did or did not bisect.
    keep_bisect: bool = False


@dataclasses.dataclass(frozen=True)
class DashboardResult:
    report: Report
    body: str            # the issue's Markdown body
    issue: IssueResult   # what was done to the issue (or would be, with dry_run)

    @property
    def line(self) -> str:
        return self.issue.line()

    def to_json(self, *, with_body: bool = False) -> dict[str, Any]:
        data = {"issue": self.issue.to_json(), "line": self.line, "report": self.report.to_json()}
        return data | ({"body": self.body} if with_body else {})


def this_run(conclusion: str | None, env: Mapping[str, str]) -> tuple[int, str] | None:
    """(run id, conclusion) of the workflow run writing the dashboard (``$GITHUB_RUN_ID``), or
    None when no conclusion is given; a conclusion without a run id is a user's error."""
    from release.core.errors import UserError
    if not conclusion:
        return None
    run_id = env.get("GITHUB_RUN_ID", "")
    if not run_id.isdigit():
        raise UserError(f"--this-run needs GITHUB_RUN_ID, this workflow run's id (GitHub Actions "
                        f"sets it); it is {run_id!r}")
    return int(run_id), conclusion


def bisect_line(job: str, said: str) -> str | None:
    """What the dashboard says of this nightly's bisect, from its bisect job (nightly.yml: its
    result, and its plan's ``said`` output): the plan's own line; a job that failed before its
    plan decided says so; a job that did not run (a green night) says nothing."""
    from release.core import sanitize
    if said.strip():
        return sanitize.line(said.strip())[:300]
    if job in ("failure", "cancelled"):
        return f"not decided: the bisect job {'failed' if job == 'failure' else 'was cancelled'} before its plan said"
    return None


def write_dashboard(project: Project, options: DashboardOptions, github: OnGitHub,
                    store: Store | None) -> DashboardResult:
    """Gather the report with the pins merged on the base branch (``merged``, ``fetch``) and
    open, edit or leave the issue."""
    from release.core import roller_report
    from release.sources import dashboard
    report_options = dataclasses.replace(options.report, fetch=True, merged=True)
    report = gather_report(project, report_options, github, store)
    writer = dashboard.token_login(github.client)  # None: an installation token (the workflows')
    login = options.author or writer or dashboard.ACTIONS_LOGIN
    found = dashboard.dashboards(github.client, github.owner, github.name, login)
    if options.keep_bisect and report.bisect is None and found:
        report = dataclasses.replace(report, bisect=roller_report.bisect_of(str(found[0].get("body") or "")))
    body = roller_report.markdown(report)
    issue = dashboard.sync_issue(github.client, github.owner, github.name, body, login=login,
                                 dry_run=options.dry_run, may_open=writer is None or writer == login, found=found)
    return DashboardResult(report, body, issue)
