"""The nightly and cut jobs: which steps, in what order, and when there is nothing to do.

The steps themselves live in their own modules (sources, build, verify, publish,
validate, gc, promote); ``release.pipeline`` runs them resumably under a lock and
records them in ``dist/<version>/manifest.json``. What this module adds are the
rules of the jobs: a nightly is skipped when neither the pins nor this
repository's commit moved since the last published nightly; a cut needs a clean
release branch, tags it, and moves ``version_info.json`` on afterwards; a post
release re-spins a published release by promoting its wheels, with no rebuild.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import tempfile
from pathlib import Path
from typing import Callable

from release import naming, versions
from release.config import Project
from release.errors import UserError
from release import checksums
from release.checksums import sha256_file
from release.manifest import Manifest
from release.pipeline import Step, job_lock, run_job, run_steps
from release.plan import BuildPlan
from release.revisions import RevisionMap
from release.stores import Published, Release, Store


class CheckFailed(UserError):
    """Verification or validation found errors: the job stops, exit 1, the draft stays."""

    exit_code = 1


@dataclasses.dataclass(frozen=True)
class BuildInputs:
    """Where the shared objects come from: Bazel in a workspace, or prebuilt artifacts."""

    workspace: Path | None = None
    artifacts: Path | None = None
    cache: Path | None = None  # git mirrors for fetch-sources


@dataclasses.dataclass(frozen=True)
class JobSettings:
    dist_root: Path
    inputs: BuildInputs
    keep: int = 14               # nightlies gc keeps
    older_than_days: float | None = None
    lock_timeout: float = 0
    python: str | None = None    # interpreter validate installs the wheels with


# ------------------------------------------------------------------ reading the store


def check_publishable(store: Store, plan_version: str, revisions: RevisionMap,
                      published: Published | None = None) -> None:
    """Refuse a version that would sort at or below what its line already published.

    ``versions.MUST_SORT_ABOVE`` says what each kind must sort above (``cut --rc 2`` after
    0.9.1 was published made 0.9.1rc2, which pip never picks). The same version already
    published is a re-run when its sources are these (publishing it again is a no-op), and
    refused when they differ: published releases are immutable.
    """
    published = published or store.published()
    blocker = versions.blocking_version(plan_version, published.versions())
    if blocker is None:
        return
    tag = naming.release_tag(plan_version)
    if blocker == plan_version:
        from release.publish import previous_revisions
        before = previous_revisions(store, published.find(blocker))
        if before is not None and before.same_sources(revisions):
            return
        hint = ("build tomorrow's, or switch version_info.json to nightly_scheme 'date-build' on "
                "the next version line" if versions.kind_of(plan_version) == "nightly" else
                "cut the next number, or a .postN of a release")
        raise UserError(f"{tag} is already published with other sources (releases are "
                        f"immutable); {hint}")
    move = ("move version_info.json to the next version" if versions.kind_of(blocker) in
            ("release", "post") else f"cut a higher number than {blocker}")
    raise UserError(f"{plan_version} would sort below {blocker}, already published on "
                    f"{store.where}, so pip would never choose it; {move}")


@dataclasses.dataclass(frozen=True)
class NightlyDecision:
    build: bool
    reason: str
    last: str | None  # tag of the last published nightly


def decide_nightly(store: Store, plan: BuildPlan) -> NightlyDecision:
    """Whether tonight's nightly must be built, and why (one line for people)."""
    published = store.published()
    versions.check_scheme(published.versions(), plan.version)
    last = published.latest(("nightly",))
    before = None
    if last is not None:
        from release.publish import previous_revisions
        before = previous_revisions(store, last)
        if before is not None and before.same_sources(plan.revisions):
            return NightlyDecision(False, f"no build: nothing changed since {last.tag} (same pins, "
                                          "same release commit)", last.tag)
    check_publishable(store, plan.version, plan.revisions, published)
    return NightlyDecision(True, _build_reason(last, before, plan.revisions), last.tag if last else None)


def _build_reason(last: Release | None, before: RevisionMap | None, now: RevisionMap) -> str:
    """Why tonight builds, in one line: which pins moved, or that only this repository did."""
    if last is None:
        return "building: first nightly"
    if before is None:
        return f"building: {last.tag} has no readable revisions.json to compare with"
    moved = [f"{name} {before.commits[name][:7]}..{commit[:7]}" for name, commit in now.commits.items()
             if before.commits.get(name) != commit]
    if moved:
        return f"building: pins moved since {last.tag}: {', '.join(moved)}"
    return (f"building: only this repository changed since {last.tag} (release commit "
            f"{(before.release_commit or '?')[:7]}..{(now.release_commit or '?')[:7]})")


# ------------------------------------------------------------------ the steps


def _fetch_step(project: Project, inputs: BuildInputs) -> Step:
    def run(ctx):
        from release import sources
        done = sources.fetch_sources(project.deps, inputs.workspace,
                                     inputs.cache or sources.cache_dir(project.root))
        return {name: c.commit for name, c in done.items()}
    pins = repr([(d.name, d.url, d.commit) for d in project.deps])
    return Step("fetch", run, lambda ctx: pins, "fetch sources")


def _build_step(project: Project, plan: BuildPlan, settings: JobSettings, console) -> Step:
    def run(ctx):
        from release.build import build_release
        ins = settings.inputs
        result = build_release(plan, settings.dist_root, root=project.root,
                               workspace=None if ins.artifacts else ins.workspace,
                               artifacts=ins.artifacts, console=console)
        return {"wheels": sorted(result.wheels)}
    return Step("build", run, lambda ctx: repr(plan.to_json()), "build wheels")


def verify_dist(directory: Path, revisions: RevisionMap, say: Callable[[str], None],
                root: Path | None = None) -> dict:
    """Run every check over the wheels of a dist directory; errors stop the job."""
    from release import bazel, verify
    options = verify.Options(runpath=tuple(bazel.configured_runpath(root)), revisions=revisions)
    reports = verify.verify_wheels(sorted(Path(directory).glob("*.whl")), options)
    errors = [f"{r.wheel.name}: {f.check}: {f.message}" for r in reports for f in r.errors]
    for report in reports:
        say(f"verify {report.wheel.name}: {'ok' if report.ok else 'FAILED'}")
    if errors:
        raise CheckFailed(f"verify found {len(errors)} error(s); first: {errors[0]}")
    return {"wheels": [r.wheel.name for r in reports]}


def _verify_step(directory: Path, after: str, say, root: Path) -> Step:
    """Verify the dist's wheels against its revisions.json, again whenever step ``after`` re-ran."""
    def run(ctx):
        revisions = RevisionMap.loads((directory / naming.REVISIONS_ASSET).read_text(encoding="utf-8"))
        return verify_dist(directory, revisions, say, root)
    return Step("verify", run, lambda ctx: repr(ctx[after]), "verify wheels")


def _draft_step(store: Store, directory: Path, say, progress) -> Step:
    def run(ctx):
        from release.publish import publish_draft, read_dist
        result = publish_draft(store, read_dist(directory), say=say, progress=progress)
        return {"release_id": result["release_id"], "url": result.get("url")}
    return Step("draft", run, title="draft release")


def _validate_step(store: Store, tag: str, settings: JobSettings, say, progress,
                   root: Path | None = None) -> Step:
    def run(ctx):
        import sys

        from release.bazel import configured_runpath
        from release.validate import validate
        result = validate(store, tag, say=say, progress=progress,
                          python=settings.python or sys.executable,
                          runpath=tuple(configured_runpath(root)))
        if not result.ok:
            raise CheckFailed(f"validation of {tag} failed; the draft is left as it is: "
                              + "; ".join(result.to_json().get("problems", []))[:400])
        return {"validated": True}
    return Step("validate", run, title="validate draft")


def _publish_step(store: Store, tag: str, say) -> Step:
    def run(ctx):
        from release.publish import undraft
        result = undraft(store, tag, say=say)
        return {"url": result.get("url")}
    return Step("publish", run, title="publish release")


def _gc_step(store: Store, settings: JobSettings, now: _dt.datetime, say) -> Step:
    def run(ctx):
        from release.gc import collect
        result = collect(store, settings.keep, settings.older_than_days, dry_run=False, now=now, say=say)
        return {"deleted": list(result["deleted"])}
    return Step("gc", run, title="collect old nightlies")


def build_steps(project: Project, plan: BuildPlan, settings: JobSettings, store: Store, *,
                say, progress, console) -> list[Step]:
    """fetch (unless artifacts are given), build, verify, draft, validate, publish."""
    directory = settings.dist_root / plan.version
    steps = [] if settings.inputs.artifacts else [_fetch_step(project, settings.inputs)]
    return steps + [
        _build_step(project, plan, settings, console),
        _verify_step(directory, "build", say, project.root),
        _draft_step(store, directory, say, progress),
        _validate_step(store, plan.tag, settings, say, progress, project.root),
        _publish_step(store, plan.tag, say),
    ]


def run_nightly(project: Project, plan: BuildPlan, settings: JobSettings, store: Store, out, *,
                now: _dt.datetime, progress=None) -> dict:
    """The whole nightly: decide, then build, verify, draft, validate, publish, gc."""
    decision = decide_nightly(store, plan)
    result = {"version": plan.version, "tag": plan.tag, "built": decision.build,
              "reason": decision.reason, "last_nightly": decision.last}
    if not decision.build:
        out.line(decision.reason)  # the one line a night without a build prints
        return result | {"steps": []}
    console = out.progress_console()
    steps = build_steps(project, plan, settings, store, say=out.line, progress=progress,
                        console=console)
    steps.append(_gc_step(store, settings, now, out.line))
    with job_lock(project.root, "nightly", timeout=settings.lock_timeout):
        out.line(decision.reason)  # first: why this run builds
        done = run_steps(steps, Manifest.load(settings.dist_root / plan.version), out)
    return result | {"steps": [s.to_json() for s in done]}


# ------------------------------------------------------------------ cut


def check_release_checkout(root: Path, branch: str) -> str:
    """The HEAD commit of a clean checkout on ``branch``; anything else is refused."""
    from release.pulls import ReleaseRepo
    repo = ReleaseRepo(root)
    current = repo.current_branch()
    if current != branch:
        raise UserError(f"{repo.top}: on branch {current}; a release is cut from {branch} "
                        "(check it out, or pass --release-branch)")
    dirty = repo.dirty()
    if dirty:
        raise UserError(f"{repo.top}: the working tree is not clean ({dirty[0].strip()} ...); "
                        "commit or stash before cutting a release")
    return repo.head()


def tagged_checkout(root: Path, tag: str) -> str:
    """The HEAD commit, when ``tag`` exists and points at it (a CI run started by a tag push)."""
    from release.pulls import ReleaseRepo
    repo = ReleaseRepo(root)
    target = repo.tag_commit(tag)
    if target is None:
        raise UserError(f"{repo.top}: no tag {tag}; push it first, or run `release cut` on the "
                        "release branch to make it")
    head = repo.head()
    if target != head:
        raise UserError(f"{repo.top}: tag {tag} points at {target[:12]} but HEAD is "
                        f"{head[:12]}; check out the tag")
    return head


def tag_step(root: Path, tag: str, commit: str, *, push: bool, remote: str = "origin") -> Step:
    """Create (and optionally push) the release tag at ``commit``; idempotent."""
    def run(ctx):
        from release.pulls import ReleaseRepo
        repo = ReleaseRepo(root)
        existing = repo.tag_commit(tag)
        if existing is not None and existing != commit:
            raise UserError(f"tag {tag} already points at {existing[:12]}, not at HEAD "
                            f"{commit[:12]}; a release tag never moves")
        if existing is None:
            repo.create_tag(tag, commit, f"jax-rocm {tag}")
        if push:
            repo.push_tag(tag, remote)
        return {"tag": tag, "commit": commit, "pushed": push}
    return Step("tag", run, lambda ctx: commit + str(push), "tag the release")


def next_version_step(project: Project, released: str) -> Step:
    """Commit version_info.json moved to the next minor on a branch (the follow-up PR's head)."""
    def run(ctx):
        from release.config import parse_version_info, render_version_info
        from release.pulls import NEXT_VERSION_PREFIX, ReleaseRepo
        repo = ReleaseRepo(project.root)
        nxt = versions.next_version(released)
        path = project.version_info.path
        committed = repo.committed(path)
        if committed is None:
            raise UserError(f"{path}: not committed; commit it before cutting a release")
        info = parse_version_info(path, committed)
        new_text = render_version_info(dataclasses.replace(info, version=nxt), committed)
        branch = f"{NEXT_VERSION_PREFIX}{nxt}"
        sha = repo.commit_file(branch, path, new_text,
                               f"Move the next version to {nxt} after releasing {released}\n\n"
                               f"Nightlies from here on are {nxt}.devYYYYMMDD and sort above "
                               f"{released} and its post releases.")
        return {"next_version": nxt, "branch": branch, "commit": sha}
    return Step("next_version", run, lambda ctx: released, "move to the next version")


def run_cut(project: Project, plan: BuildPlan, settings: JobSettings, store: Store, out, *,
            commit: str, push: bool, progress=None) -> dict:
    """Tag, build, verify, draft, validate, publish; after a final release, the next version."""
    check_publishable(store, plan.version, plan.revisions)
    console = out.progress_console()
    steps = [tag_step(project.root, plan.tag, commit, push=push)]
    steps += build_steps(project, plan, settings, store, say=out.line, progress=progress,
                         console=console)
    done = run_job("cut", project.root, steps, Manifest.load(settings.dist_root / plan.version), out,
                   lock_timeout=settings.lock_timeout)
    return {"version": plan.version, "tag": plan.tag, "kind": plan.kind,
            "steps": [s.to_json() for s in done]}


def finish_release(project: Project, released: str, *, push: bool, open_pr: bool, out,
                   base_branch: str = "main", env=None) -> dict:
    """After a final release: the next-version commit, pushed and proposed when asked."""
    import os

    result = dict(next_version_step(project, released).run({}))
    if push or open_pr:
        from release.pulls import ReleaseRepo
        ReleaseRepo(project.root).push(result["commit"], result["branch"])
        result["pushed"] = True
    if open_pr:
        from release.github import GitHubClient
        from release.pulls import repository_from_env
        env = os.environ if env is None else env
        owner, name = repository_from_env(env)
        client = GitHubClient.from_env(env, console=out.progress_console())
        title = f"Move the next version to {result['next_version']} after {released}"
        body = (f"{naming.release_tag(released)} is published. This moves `version_info.json` to "
                f"`{result['next_version']}` so nightlies sort above the release.")
        pulls = client.list_pulls(owner, name, state="open", head=f"{owner}:{result['branch']}")
        pull = pulls[0] if pulls else client.create_pull(owner, name, title=title, head=result["branch"],
                                                         base=base_branch, body=body)
        result["pull"] = {"number": pull["number"], "url": pull.get("html_url"),
                          "action": "kept" if pulls else "opened"}
        out.line(f"next-version pull request #{pull['number']} ({result['pull']['action']})")
    return result


# ------------------------------------------------------------------ post releases


def _respin_step(store: Store, source: Release, version: str, directory: Path, say) -> Step:
    """Download the published release's wheels and promote them to ``version`` in ``directory``."""
    def run(ctx):
        from release.promote import promote_wheel
        directory.mkdir(parents=True, exist_ok=True)
        assets = store.list_assets(source)
        wheels = [a for a in assets if a.name.endswith(".whl")]
        rev_asset = next((a for a in assets if a.name == naming.REVISIONS_ASSET), None)
        if not wheels or rev_asset is None:
            raise UserError(f"{source.tag} has no wheels or no {naming.REVISIONS_ASSET} to re-spin")
        made = []
        with tempfile.TemporaryDirectory(prefix="release-respin-") as tmp:
            for asset in [*wheels, rev_asset]:
                say(f"download {asset.name} from {source.tag}")
                store.download_asset(source, asset, Path(tmp) / asset.name)
            before = RevisionMap.loads((Path(tmp) / rev_asset.name).read_text(encoding="utf-8"))
            target = "post" + version.rsplit(".post", 1)[1]
            for asset in wheels:
                promoted = promote_wheel(Path(tmp) / asset.name, target, directory)
                made.append(promoted.output.name)
        revisions = dataclasses.replace(before, version=version)
        (directory / naming.REVISIONS_ASSET).write_text(revisions.dumps(), encoding="utf-8")
        from release.provenance import write_for_files
        prov = write_for_files(directory, made, revisions,
                               extra_parameters={"promotedFrom": source.tag})
        checksums.write_for(directory, [*made, naming.REVISIONS_ASSET, prov.name])
        return {"from": source.tag, "wheels": sorted(made), "revisions": revisions.to_json()}
    return Step("respin", run, lambda ctx: f"{source.tag}->{version}", "promote the released wheels")


def run_post(project: Project, number: int, settings: JobSettings, store: Store, out, *,
             base: str | None = None, progress=None) -> dict:
    """Re-spin a published release as ``X.Y.Z.postN`` by promoting its wheels (no rebuild)."""
    published = store.published()
    if base is None:
        latest = published.latest(("release",))
        if latest is None:
            raise UserError(f"{store.where}: no published release to re-spin; pass --from X.Y.Z")
        base = naming.version_from_tag(latest.tag)
    source = published.find(base) if versions.kind_of(base) == "release" else None
    if source is None:
        raise UserError(f"{store.where}: {naming.release_tag(base)} is not a published release")
    version = versions.post(base, number)
    if versions.blocking_version(version, published.versions()) not in (None, version):
        raise UserError(f"{version} would sort below "
                        f"{versions.blocking_version(version, published.versions())}, already "
                        f"published on {store.where}; re-spin as a higher .postN")
    tag = naming.release_tag(version)
    directory = settings.dist_root / version
    steps = [_respin_step(store, source, version, directory, out.line)]

    steps += [_verify_step(directory, "respin", out.line, project.root),
              _draft_step(store, directory, out.line, progress),
              _validate_step(store, tag, settings, out.line, progress, project.root),
              _publish_step(store, tag, out.line)]
    done = run_job("cut", project.root, steps, Manifest.load(directory), out,
                   lock_timeout=settings.lock_timeout)
    return {"version": version, "tag": tag, "kind": "post", "from": source.tag,
            "steps": [s.to_json() for s in done]}


# ------------------------------------------------------------------ split runs (CI stages)


def open_draft(store: Store, plan: BuildPlan, say) -> Release:
    """The one draft of the plan's tag, created if missing (the matrix cells upload into it)."""
    return store.find_or_create_draft(plan.tag, name=f"jax-rocm {plan.version}",
                                      body=f"{plan.kind} {plan.version}: wheels are being built.",
                                      prerelease=plan.prerelease, say=say)


def _collect_step(store: Store, tag: str, directory: Path, say, progress,
                  rocm_version: str | None = None) -> Step:
    """Bring the draft's wheels and revisions.json home and write the one SHA256SUMS and
    the one provenance over every cell's wheels.

    The cells of a split build upload their wheels to the draft concurrently, so none of
    them can write the checksums (or the provenance) of all; this runs once, after the matrix.
    """
    def run(ctx):
        drafts = [d for d in store.drafts_for(tag) if d.ours]
        if not drafts:
            raise UserError(f"{store.where}: no draft of {tag}; run the plan stage first")
        draft = drafts[0]
        directory.mkdir(parents=True, exist_ok=True)
        names = []
        for asset in store.list_assets(draft):
            if not (asset.name.endswith(".whl") or asset.name == naming.REVISIONS_ASSET):
                continue
            local = directory / asset.name
            digest = (asset.digest or "").removeprefix("sha256:")
            if not (local.is_file() and digest and sha256_file(local) == digest):
                say(f"download {asset.name}")
                store.download_asset(draft, asset, local, progress=progress)
            names.append(asset.name)
        if naming.REVISIONS_ASSET not in names or not any(n.endswith(".whl") for n in names):
            raise UserError(f"{store.where}: draft of {tag} lacks wheels or {naming.REVISIONS_ASSET}; "
                            "did every build cell publish with --partial?")
        from release.provenance import write_for_files
        revisions = RevisionMap.loads((directory / naming.REVISIONS_ASSET).read_text(encoding="utf-8"))
        prov = write_for_files(directory, [n for n in names if n.endswith(".whl")], revisions,
                               rocm_version=rocm_version)
        checksums.write_for(directory, [*names, prov.name])
        return {"assets": sorted(names)}
    return Step("collect", run, title="collect the matrix's wheels")


def run_finish(project: Project, kind: str, version: str, settings: JobSettings, store: Store, out, *,
               now: _dt.datetime, gc: bool, progress=None) -> dict:
    """After a split build: checksums, verify, notes, validate, publish (and gc for nightlies)."""
    tag = naming.release_tag(version)
    directory = settings.dist_root / version
    say = out.line

    steps = [_collect_step(store, tag, directory, say, progress,
                           project.version_info.rocm_version),
             _verify_step(directory, "collect", say, project.root),
             _draft_step(store, directory, say, progress),
             _validate_step(store, tag, settings, say, progress, project.root),
             _publish_step(store, tag, say)]
    if gc:
        steps.append(_gc_step(store, settings, now, say))
    done = run_job(kind, project.root, steps, Manifest.load(directory), out,
                   lock_timeout=settings.lock_timeout)
    return {"version": version, "tag": tag, "stage": "finish", "steps": [s.to_json() for s in done]}

