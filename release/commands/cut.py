"""``release cut``: cut a release candidate or a release from the release branch, or re-spin one.

``release cut`` / ``release cut --rc N`` needs a clean checkout of the release branch: it
tags HEAD ``rocm-jax-v<version>``, builds, verifies, drafts, validates and publishes, then
(after a final release) commits version_info.json moved to the line's next post release on a
branch and, with ``--open-pr``, opens that pull request. ``release cut --post N`` re-spins a published
release by promoting its wheels to ``X.Y.Z.postN``: no rebuild.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from release.commands._common import (
    add_python_option,
    add_store_options,
    job_run,
    open_store_from_args,
    project,
    transfer_progress,
    untested_note,
)
from release.commands._job_flags import add_job_flags, job_options
from release.core import flags, output
from release.core.errors import UserError

if TYPE_CHECKING:
    import argparse

    from release.core.output import Output
    from release.jobs.pipeline import StepResult
    from release.jobs.runner import JobRun

HELP = "cut a release (or --rc N) from the release branch, or re-spin one as --post N"
JOBS = ("cut", "cut-finish", "post")  # release.jobs.catalog: the jobs this command runs


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from release.jobs.pipeline import add_lock_timeout_option
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--rc", type=flags.positive_int, metavar="N", help="cut release candidate N")
    which.add_argument("--post", type=flags.positive_int, metavar="N",
                       help="re-spin a published release as X.Y.Z.postN by promoting its wheels")
    parser.add_argument("--from", dest="base", metavar="X.Y.Z",
                        help="with --post: the release to re-spin (default: the newest published release "
                             "of version_info.json's line)")
    parser.add_argument("--stage", choices=("plan", "finish"),
                        help="run one stage of a split CI run (default: the whole job)")
    parser.add_argument("--tag", metavar="TAG",
                        help="with --stage finish: the tag the plan stage chose; with --post: the "
                             "release to re-spin (like --from)")
    add_python_option(parser)
    add_job_flags(parser, JOBS)
    add_store_options(parser)
    add_lock_timeout_option(parser)


def run(args: argparse.Namespace, out: Output) -> int:
    from release.build.plan import cut_from_tag, make_plan
    from release.check import resolver
    from release.core import naming, versions
    from release.jobs import catalog, cut, post, shared
    proj = project(args)
    if args.base and args.post is None:
        raise UserError("--from goes with --post N")
    store = open_store_from_args(args, out)
    options = job_options(args, proj.root)
    with transfer_progress(out) as progress:
        def run_of(version: str, **more: Any) -> JobRun:
            return job_run(args, proj, version, store, out, progress=progress, **more)

        if args.post is not None:
            base = args.base
            if args.tag and not base:
                base = naming.version_of_tag(args.tag, ("release",))
            source, version = post.post_source(store, args.post, base, proj.version_info.line)
            result = post.run_post(run_of(version, source=source), options,
                                   lock_timeout=args.lock_timeout)
        elif args.stage == "finish":
            if not args.tag:
                raise UserError(f"--stage finish needs --tag {naming.TAG_PREFIX}<version> "
                                "(the plan stage's output)")
            version = naming.version_of_tag(args.tag)
            result = _ran(catalog.run("cut-finish", run_of(version), options,
                                      lock_timeout=args.lock_timeout), version, stage="finish")
        elif args.stage == "plan" and args.tag and _published(store, args.tag):
            # A pushed tag whose release is already published (a post re-spin made it, or a
            # re-run after publishing): nothing to build; the workflow's later jobs skip.
            version = naming.version_of_tag(args.tag)
            out.line(f"{args.tag}: already published; nothing to build")
            output.github_output({"published": "true", "version": version, "tag": args.tag})
            result = {"stage": "plan", "published": True, "version": version, "tag": args.tag}
        else:
            kind, number = "rc" if args.rc is not None else "release", args.rc
            index = resolver.public_index_from_args(args)
            # a released line's next .postN counts what the store and the public index hold
            listing = store.published()  # read once: the count, the re-run check, the refusal
            published = (*listing.versions(),
                         *resolver.index_versions(proj.version_info.rocm_major, index))
            if args.stage == "plan" and args.tag:
                kind, number = cut_from_tag(args.tag, versions.next_official(proj.version_info.version,
                                                                            published))
                commit = cut.tagged_checkout(proj.root, args.tag)
            else:
                commit = cut.check_release_checkout(proj.root, args.release_branch)
            plan = make_plan(proj, kind, number=number, pythons=args.pythons,
                             release_commit=commit, published=published)
            if kind == "release" and plan.version != proj.version_info.version:
                # version_info.json's own version published from these sources: this cut is a
                # re-run of that release (it resumes), not a new post release past it
                again = make_plan(proj, kind, pythons=args.pythons, release_commit=commit)
                if shared.published_from(store, again.version, again.revisions, listing):
                    plan = again
            # before tagging: a version the public index beats on its line fails validate
            resolver.refuse_losing_versions({kind: plan.version}, plan.rocm_major, index)
            shared.check_publishable(store, plan.version, plan.revisions, listing)
            if args.stage == "plan":
                if not args.tag:
                    cut.tag_release(proj.root, plan.tag, commit, push=args.push)
                shared.open_draft(store, plan, out.line)
                result = {"stage": "plan", "kind": kind, "number": number, "version": plan.version,
                          "tag": plan.tag}
                output.github_output({"kind": kind, "number": "" if number is None else str(number),
                                      "version": plan.version, "tag": plan.tag})
            else:
                result = _ran(catalog.run("cut", run_of(plan.version, plan=plan, commit=commit),
                                          options, lock_timeout=args.lock_timeout),
                              plan.version, kind=kind)
    if result.get("stage") != "plan":
        output.github_output({"version": result["version"], "tag": result["tag"],
                              "next-version": (result.get("next") or {}).get("next_version", "")})
    output.step_summary(f"### cut {result['version']}\n\n" + " ".join(
        f"{s['step']}:{s['status']}" for s in result.get("steps", [])))
    out.result(result, lambda console: console.print(
        f"{result.get('kind', 'release')} {result['version']} ({result['tag']}): "
        + ("already published" if result.get("published") else
           "planned" if result.get("stage") == "plan" else "published")
        + (f"; next version {result['next']['next_version']} on {result['next']['branch']}"
           if result.get("next") else "") + untested_note(result), markup=False))
    return 0


def _published(store: Any, tag: str) -> bool:
    """Whether the release of ``tag`` (any kind this tool makes) is already published."""
    from release.core import naming
    return store.published().find(naming.version_of_tag(tag)) is not None


def _ran(done: list[StepResult], version: str, **more: Any) -> dict:
    """A cut's result: the version, its tag and kind, the steps, and the next version when
    the next-version step ran."""
    from release.core import naming, versions
    steps = {s.name: s for s in done}
    result = {"version": version, "tag": naming.release_tag(version),
              "kind": versions.kind_of(version), **more, "steps": [s.to_json() for s in done]}
    if "next-version" in steps:
        result["next"] = dict(steps["next-version"].outputs)
    return result
