"""``release cut``: cut a release candidate or a release from the release branch, or re-spin one.

``release cut`` / ``release cut --rc N`` needs a clean checkout of the release branch: it
tags HEAD ``rocm-jax-v<version>``, builds, verifies, drafts, validates and publishes, then
(after a final release) commits version_info.json moved to the line's next post release on a
branch and, with ``--open-pr``, opens that pull request. ``release cut --post N`` re-spins a published
release by promoting its wheels to ``X.Y.Z.postN``: no rebuild.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from release.build.plan import cut_from_tag, make_plan
from release.commands._common import (
    add_build_input_options,
    add_python_option,
    add_store_options,
    job_settings,
    now_utc,
    open_store_from_args,
    project,
    transfer_progress,
)
from release.core import flags, naming, output, versions
from release.core.errors import UserError
from release.jobs import cut, post, shared
from release.jobs.pipeline import add_lock_timeout_option

if TYPE_CHECKING:
    import argparse

    from release.core.output import Output

HELP = "cut a release (or --rc N) from the release branch, or re-spin one as --post N"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--rc", type=flags.positive_int, metavar="N", help="cut release candidate N")
    which.add_argument("--post", type=flags.positive_int, metavar="N",
                       help="re-spin a published release as X.Y.Z.postN by promoting its wheels")
    parser.add_argument("--from", dest="base", metavar="X.Y.Z",
                        help="with --post: the release to re-spin (default: the newest published)")
    parser.add_argument("--release-branch", default="main", metavar="BRANCH",
                        help="the branch releases are cut from (default: main)")
    parser.add_argument("--push", action="store_true",
                        help="push the release tag and the next-version branch to origin")
    parser.add_argument("--open-pr", action="store_true",
                        help="open the pull request that moves version_info.json on "
                             "(GITHUB_API_URL, GITHUB_REPOSITORY, GITHUB_TOKEN)")
    parser.add_argument("--stage", choices=("plan", "finish"),
                        help="run one stage of a split CI run (default: the whole job)")
    parser.add_argument("--tag", metavar="TAG",
                        help="with --stage finish: the tag the plan stage chose; with --post: the "
                             "release to re-spin (like --from)")
    add_python_option(parser)
    add_build_input_options(parser)
    add_store_options(parser)
    add_lock_timeout_option(parser)


def run(args: argparse.Namespace, out: Output) -> int:
    proj = project(args)
    if args.base and args.post is None:
        raise UserError("--from goes with --post N")
    store = open_store_from_args(args, out)
    settings = job_settings(args, proj)
    now = now_utc()
    with transfer_progress(out) as progress:
        if args.post is not None:
            base = args.base
            if args.tag and not base:
                base = naming.version_of_tag(args.tag, ("release",))
            result = post.run_post(proj, args.post, settings, store, out, base=base,
                                   progress=progress)
        elif args.stage == "finish":
            if not args.tag:
                raise UserError(f"--stage finish needs --tag {naming.TAG_PREFIX}<version> "
                                "(the plan stage's output)")
            version = naming.version_of_tag(args.tag)
            result = shared.run_finish(proj, "cut", version, settings, store, out, now=now, gc=False,
                                     progress=progress)
            if versions.kind_of(version) in ("release", "post"):
                result["next"] = cut.finish_release(proj, version, push=args.push,
                                                     open_pr=args.open_pr, out=out,
                                                     base_branch=args.release_branch)
        else:
            kind, number = "rc" if args.rc is not None else "release", args.rc
            if args.stage == "plan" and args.tag:
                kind, number = cut_from_tag(args.tag, proj.version_info.version)
                commit = cut.tagged_checkout(proj.root, args.tag)
            else:
                commit = cut.check_release_checkout(proj.root, args.release_branch)
            plan = make_plan(proj, kind, number=number, pythons=args.pythons,
                             release_commit=commit)
            if args.stage == "plan":
                shared.check_publishable(store, plan.version, plan.revisions)
                if not args.tag:
                    cut.tag_release(proj.root, plan.tag, commit, push=args.push)
                shared.open_draft(store, plan, out.line)
                result = {"stage": "plan", "kind": kind, "number": number, "version": plan.version,
                          "tag": plan.tag}
                output.github_output({"kind": kind, "number": "" if number is None else str(number),
                                      "version": plan.version, "tag": plan.tag})
            else:
                result = cut.run_cut(proj, plan, settings, store, out, commit=commit, push=args.push,
                                      progress=progress)
                if kind == "release":
                    result["next"] = cut.finish_release(proj, plan.version, push=args.push,
                                                         open_pr=args.open_pr, out=out,
                                                         base_branch=args.release_branch)
    if result.get("stage") != "plan":
        output.github_output({"version": result["version"], "tag": result["tag"],
                              "next-version": (result.get("next") or {}).get("next_version", "")})
    output.step_summary(f"### cut {result['version']}\n\n" + " ".join(
        f"{s['step']}:{s['status']}" for s in result.get("steps", [])))
    out.result(result, lambda console: console.print(
        f"{result.get('kind', 'release')} {result['version']} ({result['tag']}): "
        + ("planned" if result.get("stage") == "plan" else "published")
        + (f"; next version {result['next']['next_version']} on {result['next']['branch']}"
           if result.get("next") else "")))
    return 0

