"""``release doctor``: what the GitHub repository still needs before the workflows can run,
one line per setting (release.check.preflight); it reads settings and changes nothing."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from release.commands._common import project
from release.core import flags, output

if TYPE_CHECKING:
    import argparse

    from rich.console import Console

    from release.core.output import Output

HELP = ("ask GitHub what the repository still needs for the workflows (PR rights, Pages source, "
        "bump token, runners, variables, tag rulesets, immutable releases); changes nothing")
MARKS = {"ok": "ok     ", "warn": "warn   ", "fail": "FAIL   ", "unknown": "unknown"}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--repo", type=flags.repository, metavar="OWNER/NAME",
                        help="GitHub repository (default: $GITHUB_REPOSITORY)")


def run(args: argparse.Namespace, out: Output) -> int:
    from release.check.preflight import preflight
    from release.sources.github import SETTINGS, GitHubClient
    from release.sources.pull_requests import repository_from_env

    root = project(args).root
    env = dict(os.environ)
    if args.repo:
        env["GITHUB_REPOSITORY"] = args.repo
    owner, name = repository_from_env(env, flag="--repo")
    # a person waits for this answer: GitHub out of reach is said at once, not after 31 s of retries
    client = GitHubClient.from_env(env, console=out.progress_console(), needs=SETTINGS, retries=0)
    findings = preflight(client, owner, name, root)
    failed = [f for f in findings if f.status == "fail"]
    counts = {s: sum(f.status == s for f in findings) for s in MARKS}
    output.github_output({"failed": str(len(failed)), "ok": str(not failed).lower()})
    output.step_summary(f"### doctor: {owner}/{name}\n\n" + "".join(
        f"- **{f.status}** {f.check}: {f.line}\n" for f in findings))

    def human(console: Console) -> None:
        for f in findings:
            console.print(f"{MARKS[f.status]} {f.check}: {f.line}", markup=False, soft_wrap=True)
        console.print(", ".join(f"{n} {s}" for s, n in counts.items() if n), markup=False)
    out.result({"repository": f"{owner}/{name}", "ok": not failed, "counts": counts,
                "findings": [f.to_json() for f in findings]}, human)
    return 1 if failed else 0
