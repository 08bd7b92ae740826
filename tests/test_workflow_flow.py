"""The workflows run as GitHub runs them (issue 26): each job's steps in order on a fresh clone,
artifacts between jobs, outputs through ``needs``, against the GitHub stand-in made strict where
GitHub is (tags made at the release's target, PR creation rights, drafts found by listing).

Bazel is the recorded stand-in (tests/support/build.py); everything else is real: generated
upstream repositories, `release fetch-sources`, wheels verified, validated with pip, published.
The matrix runs the pjrt cell and the plugin cell of this machine's Python.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from tests.support.actions_runner import JobResult, Runner, base_env, condition, load_workflow
from tests.support.bisect_history import build_history, make_project
from tests.support.gitrepos import git

REPO = Path(__file__).resolve().parents[1]
WORKFLOWS = REPO / ".github" / "workflows"
PY = f"{sys.version_info.major}.{sys.version_info.minor}"
CELLS = ["pjrt", PY]


@pytest.fixture(scope="module")
def public(tmp_path_factory):
    """The public index as the ROCm runner's smoke job sees it: jax and jaxlib of the line
    (stand-ins that load jax_plugins as jax does and dlopen the PJRT object: the GPU's part)."""
    from tests.support.jax_stand_in import jax_wheels
    from tests.support.registry import LocalIndex
    index = LocalIndex(jax_wheels(tmp_path_factory.mktemp("public"), "0.9.1"))
    yield index
    index.close()


@pytest.fixture(scope="module")
def upstream(tmp_path_factory):
    """The generated upstream repositories: read only here (jobs fetch and bump from them), so one
    set serves every test of the file."""
    return build_history(tmp_path_factory.mktemp("upstream"))


@pytest.fixture
def world(tmp_path, github_env, fake_bazel, public, upstream, monkeypatch):
    """This repository on GitHub: a checkout pushed to a bare origin, pinned to generated
    upstream repositories that the Bazel stand-in can build."""
    history = upstream
    root = make_project(tmp_path / "repo", history, pins=history.pins_at(history.c["P2"]))
    # The line builds the cells these runs build (CELLS): validate refuses a draft missing one.
    info = json.loads((root / "version_info.json").read_text())
    (root / "version_info.json").write_text(json.dumps(info | {"pythons": [PY]}, indent=2) + "\n")
    for name in ("scripts", ".github"):
        shutil.copytree(REPO / name, root / name)
    # A one-page docs site: the index job builds it strictly beside the indexes as it builds this
    # repository's (whose content, built strictly, is tests/test_docs.py's: four CPU-seconds more here).
    (root / "docs").mkdir()
    (root / "docs" / "index.md").write_text("# jax-rocm-release\n")
    (root / "mkdocs.yml").write_text("site_name: jax-rocm-release\nstrict: true\ntheme:\n  name: material\n"
                                     "  font: false\n")
    (root / ".gitignore").write_text("/dist/\n/.cache/\n/workspace/\n/site/\n/.runner-*\n")
    origin = tmp_path / "origin.git"
    git("init", "--quiet", "--bare", "-b", "main", origin)
    git("init", "--quiet", "-b", "main", cwd=root)
    git("config", "user.name", "Release Bot", cwd=root)
    git("config", "user.email", "bot@example.com", cwd=root)
    git("add", "-A", cwd=root)
    git("commit", "--quiet", "-m", "Initial pins", cwd=root)
    git("remote", "add", "origin", origin, cwd=root)
    git("push", "--quiet", "origin", "main", cwd=root)
    head = git("rev-parse", "HEAD", cwd=root).strip()
    github_env.branches["main"] = head
    monkeypatch.delenv("JAX_ROCM_RELEASE_CACHE", raising=False)
    return type("World", (), {"root": root, "origin": origin, "head": head, "fake": github_env, "history": history,
                              "tmp": tmp_path, "env": base_env(github_env, RELEASE_PUBLIC_INDEX=public.url)})


LINE_JOBS = ("plan", "build", "smoke", "finish", "bisect")


def line_jobs() -> dict:
    """nightly-line.yml's jobs: one line's nightly, which nightly.yml calls once a line."""
    return load_workflow(WORKFLOWS / "nightly-line.yml")["jobs"]


def called(runner: Runner, key: str, *line_runners: Runner) -> None:
    """Record nightly.yml's matrix call ``key`` as GitHub reports it to later jobs: failure when
    any line's job failed, and the call's ``said`` output (its bisect job's, the last line's that
    set one)."""
    results = [job.result for r in line_runners for job in r.jobs.values()]
    said = [r.jobs["bisect"].outputs.get("said", "") for r in line_runners if "bisect" in r.jobs]
    outcome = "failure" if "failure" in results else "cancelled" if "cancelled" in results else "success"
    runner.jobs[key] = JobResult(outcome, {"said": next((s for s in reversed(said) if s), "")})
    runner.needs[key] = ["lines"]


def run_build_matrix(runner: Runner, caller: dict, *, cells=CELLS, fail_cells=(), only=None) -> str:
    """build-wheels.yml as the caller's ``build`` job calls it: every wheel cell, then every
    upload cell (each runs even after a red cell); the call's result, as ``needs.build``."""
    called = load_workflow(WORKFLOWS / "build-wheels.yml")["jobs"]
    ctx = runner.context({}, None, {})
    from tests.support.actions_runner import substitute
    inputs = {k: substitute(v, ctx) for k, v in caller["with"].items()}
    for cell in only or cells:
        env = {"FAKE_BAZEL_FAIL": "1"} if cell in fail_cells else {}
        runner.run_job(f"wheel {cell}", called["wheel"], inputs=inputs, matrix={"wheel": cell},
                       ref=called["wheel"]["steps"][0]["with"]["ref"], extra_env=env)
    for cell in only or cells:
        upload = dict(called["upload"], needs=[f"wheel {c}" for c in cells])
        runner.run_job(f"upload {cell}", upload, inputs=inputs, matrix={"wheel": cell},
                       ref=called["upload"]["steps"][0]["with"]["ref"])
    results = [runner.jobs[f"{kind} {c}"].result for c in cells for kind in ("wheel", "upload")]
    outcome = "failure" if "failure" in results else "success"
    runner.jobs["build"] = type(runner.jobs["plan"])(outcome)
    return outcome


def test_a_red_nightly_is_re_run_two_days_later_and_publishes_the_plans_nightly(world):
    """plan, cells, upload, finish: one cell red on the night; "Re-run failed jobs" two days
    later rebuilds that cell and finishes the plan's nightly, tagged at the built commit."""
    fake = world.fake
    nightly, line = load_workflow(WORKFLOWS / "nightly.yml")["jobs"], line_jobs()
    runner = Runner(world.origin, world.tmp / "run", world.env, now="2026-11-20T03:23:00Z",
                    sha=world.head)
    main = {"line": "main", "date": ""}
    plan = runner.run_job("plan", line["plan"], inputs=main)
    assert plan.result == "success", plan.log
    # Every output the plan hands the later jobs (its clock and commit among them); one empty draft.
    version, tag = plan.outputs["version"], plan.outputs["tag"]
    assert plan.outputs == {"changed": "true", "date": "2026-11-20", "now": "2026-11-20T03:23:00Z",
                            "version": version, "tag": f"rocm-jax-v{version}", "commit": world.head}
    [empty] = fake.releases()
    assert empty["draft"] is True and empty["assets"] == []

    assert run_build_matrix(runner, line["build"], fail_cells=(PY,)) == "failure"
    assert runner.jobs[f"wheel {PY}"].result == "failure"
    assert runner.jobs["upload pjrt"].result == "success"     # one red cell does not stop the rest
    assert runner.jobs[f"upload {PY}"].result == "failure"    # its wheel was never built
    assert runner.run_job("smoke", line["smoke"], inputs=main).result == "skipped"
    assert runner.run_job("finish", line["finish"], inputs=main).result == "skipped"
    [draft] = fake.releases()
    assert draft["draft"] and [a["name"] for a in draft["assets"]] == [
        n for n in (a["name"] for a in draft["assets"]) if "pjrt" in n or n == "revisions.json"]

    # Re-run failed jobs, two days later: the failed cell, its upload, then finish. main has
    # moved on meanwhile: the tag must still be made at the commit that was built.
    fake.branches["main"] = "f" * 40
    runner.now, runner.attempt = "2026-11-22T09:00:00Z", 2
    assert run_build_matrix(runner, line["build"], only=[PY]) == "success", \
        runner.jobs[f"wheel {PY}"].log[-2000:]
    smoke = runner.run_job("smoke", line["smoke"], inputs=main)
    assert smoke.result == "success", smoke.log[-3000:]
    finish = runner.run_job("finish", line["finish"], inputs=main)
    assert finish.result == "success", finish.log[-3000:]
    from release.jobs.catalog import COLLECT, PUBLISH, VALIDATE
    for step in (COLLECT, VALIDATE, PUBLISH):
        assert f"+ {step.title}: done in" in finish.log, step.name
    [rel] = fake.releases()                                   # one release for the tag
    assert rel["tag_name"] == tag and rel["draft"] is False and rel["prerelease"] is True
    assert version.endswith(".dev20261120")
    wheels = sorted(a["name"] for a in rel["assets"] if a["name"].endswith(".whl"))
    assert len(wheels) == 2 and all(version in w for w in wheels)
    assert fake.tags()[tag] == world.head                     # tagged where it was built
    assert_finished_as_one_release(fake, rel, wheels, invocation="runs/1/attempts/2")

    # Once after every line: the index job holds contents: read (its token sees no draft) and
    # lists the nightly.
    runner.jobs["lines"] = JobResult("success", {"lines": '["main"]'})
    called(runner, "nightly", runner)
    index = runner.run_job("index", nightly["index"])
    assert index.result == "success", index.log[-3000:]
    assert any(entry[4].get("authorization") == f"Bearer {fake.read_token}" for entry in fake.log)
    simple = index.checkout / "site" / "nightly" / "jax-rocm7-plugin" / "index.html"
    assert version in simple.read_text()
    assert (index.checkout / "site" / "docs" / "index.html").is_file()  # the docs beside the indexes
    assert runner.run_job("pages", nightly["pages"]).result == "success"


def assert_finished_as_one_release(fake, rel: dict, wheels: list[str], *, invocation: str) -> None:
    """What the finish job makes of the cells' uploads: each wheel's PEP 658 file, SHA256SUMS of
    every other asset but validate's locks, and one provenance over every cell's wheels from the run that finished
    them (GitHub attested the wheels in the upload jobs: the notes say how to check each)."""
    names = sorted(a["name"] for a in rel["assets"])
    assert len(names) == len(set(names)) and all(a["state"] == "uploaded" for a in rel["assets"])
    assert sorted(n for n in names if n.endswith(".metadata")) == sorted(w + ".metadata" for w in wheels)
    assert {"SHA256SUMS", "revisions.json", "provenance.intoto.json"} <= set(names)
    digests = {a["name"]: a["digest"].removeprefix("sha256:") for a in rel["assets"]}
    sums = next(a for a in rel["assets"] if a["name"] == "SHA256SUMS")
    listed = dict(reversed(line.split("  ")) for line in fake.asset_bytes(sums["id"]).decode().splitlines())
    # every other asset but validate's locks (pylock.*.toml), written after the sums: validate's mark covers them
    from release.core.locks import is_lock
    assert listed == {n: d for n, d in digests.items() if n != "SHA256SUMS" and not is_lock(n)}
    prov = next(a for a in rel["assets"] if a["name"] == "provenance.intoto.json")
    stmt = json.loads(fake.asset_bytes(prov["id"]))
    assert {s["name"]: s["digest"]["sha256"] for s in stmt["subject"]} == {w: digests[w] for w in wheels}
    assert stmt["predicate"]["runDetails"]["metadata"]["invocationId"] == (
        f"https://github.com/{fake.repo}/actions/{invocation}")
    for name in wheels:
        assert f"gh attestation verify {name} --repo {fake.repo}" in rel["body"]


def test_a_final_release_runs_end_to_end_and_opens_the_next_version_pr(world):
    """A pushed release tag starts release.yml (its filter); plan, cells, upload, finish publish
    the release and push release/next-* with the version moved, and open that PR."""
    from tests.test_workflow_rules import starts_release
    fake, root = world.fake, world.root
    version = json.loads((root / "version_info.json").read_text())["version"]
    tag = f"rocm-jax-v{version}"
    assert starts_release(tag)
    git("tag", tag, cwd=root)
    git("push", "--quiet", "origin", tag, cwd=root)
    release = load_workflow(WORKFLOWS / "release.yml")["jobs"]
    runner = Runner(world.origin, world.tmp / "run", world.env, now="2026-11-23T10:00:00Z",
                    sha=world.head, ref_name=tag)
    inputs = {"tag": "", "post": ""}   # a push event: no dispatch inputs
    plan = runner.run_job("plan", release["plan"], inputs=inputs, ref=tag)
    assert plan.result == "success", plan.log[-3000:]
    assert plan.outputs["kind"] == "release" and plan.outputs["tag"] == tag
    assert run_build_matrix(runner, release["build"]) == "success"
    smoke = runner.run_job("smoke", release["smoke"], inputs=inputs)
    assert smoke.result == "success", smoke.log[-3000:]
    finish = runner.run_job("finish", release["finish"], inputs=inputs, ref=tag)
    assert finish.result == "success", finish.log[-3000:]
    assert runner.run_job("post", release["post"], inputs=inputs).result == "skipped"
    # No PYPI_REPOSITORY_URL (repository variable): GitHub skips both PyPI jobs, as the stand-in does.
    assert runner.run_job("pypi", release["pypi"], inputs=inputs).result == "skipped"
    assert runner.run_job("pypi-notes", release["pypi-notes"], inputs=inputs).result == "skipped"

    [rel] = [r for r in fake.releases() if r["tag_name"] == tag]
    assert rel["draft"] is False and rel["prerelease"] is False
    assert fake.tags()[tag] == world.head
    # The workflow learns of the publish at once (PyPI follows finish's output, not its result).
    assert finish.outputs["published"] == tag

    # The same tag pushed again (a person's re-push, or a post re-spin's tag): its release is
    # published, so the plan says so and creates nothing, and the build and all after it skip.
    again = Runner(world.origin, world.tmp / "again", world.env, now="2026-11-23T12:00:00Z",
                   sha=world.head, ref_name=tag, run_id=3)
    replan = again.run_job("plan", release["plan"], inputs=inputs, ref=tag)
    assert replan.result == "success", replan.log[-3000:]
    assert {k: v for k, v in replan.outputs.items() if v} == {"published": "true", "version": version, "tag": tag}
    assert not condition(release["build"]["if"], again.context(inputs, None, {}, release["build"]), failed=False)
    assert [r["tag_name"] for r in fake.releases()] == [tag]
    [pull] = fake.pulls()
    branch = pull["head"]["ref"]
    assert pull["state"] == "open" and pull["base"]["ref"] == "main" and branch.startswith("release/next-")
    moved = json.loads(git("show", f"refs/heads/{branch}:version_info.json", cwd=world.origin))
    assert moved["version"] != version
    assert git("rev-parse", f"refs/heads/{branch}^", cwd=world.origin).strip() == world.head

    # The PR is merged; then a fix ships as a post re-spin, dispatched on the line's branch with
    # the release's tag: published, and the line moves on (the next-version PR for the post
    # after it), so the line's nightlies sort above the post.
    git("update-ref", "refs/heads/main", f"refs/heads/{branch}", cwd=world.origin)
    merged = git("rev-parse", "refs/heads/main", cwd=world.origin).strip()
    fake.branches["main"] = merged
    post_version = moved["version"]
    assert post_version == f"{version}.post1"
    dispatch = {"tag": tag, "post": "1"}
    again = Runner(world.origin, world.tmp / "post", world.env, now="2026-11-25T10:00:00Z", sha=merged,
                   ref_name="main", run_id=2)
    assert again.run_job("plan", release["plan"], inputs=dispatch).result == "skipped"
    post = again.run_job("post", release["post"], inputs=dispatch)
    assert post.result == "success", post.log[-3000:]
    assert post.outputs["published"] == f"rocm-jax-v{post_version}"
    [respun] = [r for r in fake.releases() if r["tag_name"] == f"rocm-jax-v{post_version}"]
    assert respun["draft"] is False and respun["prerelease"] is False
    # The release's wheels re-spun, not rebuilt: the same pins (validate held the wheels to them).
    assert revisions_of(fake, respun)["deps"] == revisions_of(fake, rel)["deps"]
    [after] = [p for p in fake.pulls() if p["head"]["ref"] != branch]
    assert after["base"]["ref"] == "main" and after["state"] == "open"
    nxt = json.loads(git("show", f"refs/heads/{after['head']['ref']}:version_info.json", cwd=world.origin))
    assert nxt["version"] == f"{version}.post2"


def revisions_of(fake, rel: dict) -> dict:
    asset = next(a for a in rel["assets"] if a["name"] == "revisions.json")
    return json.loads(fake.asset_bytes(asset["id"]))


def test_the_nightly_runs_doctor_first_and_goes_on_with_a_workflow_token(world):
    """With a workflow's GITHUB_TOKEN the preflight reads few settings: it says so (and what a
    missing right would break) in the log, and the plan job goes on."""
    fake = world.fake
    fake.actions_token = True
    fake.settings.can_create_prs = False
    fake.settings.pages_build_type = "legacy"
    nightly = load_workflow(WORKFLOWS / "nightly.yml")["jobs"]
    runner = Runner(world.origin, world.tmp / "run", world.env, now="2026-11-20T03:23:00Z",
                    sha=world.head)
    lines = runner.run_job("lines", nightly["lines"])
    assert lines.result == "success", lines.log[-3000:]
    doctor = next(outcome for name, outcome in lines.steps if "doctor" in name)
    assert doctor == "failure"  # Pages is wrong: a FAIL line, exit 1, and the job continues
    assert "unknown pull-requests" in lines.log and "FAIL    pages" in lines.log
    assert json.loads(lines.outputs["lines"]) == ["main"]


def test_a_red_nightly_bisects_itself_and_its_culprit_gets_one_hold_pr(world):
    """Issue 25 point 2 as the workflows run it: a nightly after a green one goes red (a jax roll
    breaks the build); its bisect job dispatches bisect.yml with the last green nightly and the
    pins it built; the ROCm job bisects with real builds (read-only token), the hosted hold job
    opens the one hold PR. (That the next red night starts no second bisect while this hold PR
    is open is the bisect job's plan decision: tests/test_autobisect.py, the culprit held or
    proposed in every state, on the same stand-in.)"""
    from release.core.config import load_deps, parse_deps
    from release.core.revisions import RevisionMap

    fake, h = world.fake, world.history
    good = "rocm-jax-v0.9.1.dev20261119"
    revisions = RevisionMap.from_deps(load_deps(world.root / "deps.yaml").with_commits(h.pins_at(h.c["P2"])),
                                      "0.9.1.dev20261119")
    fake.seed_release(good, prerelease=True, assets={"revisions.json": revisions.dumps().encode()})
    # main moves to the plugin's P8 (a merged bump): it pins jax past the commit that breaks the build.
    (world.root / "deps.yaml").write_text(h.deps_yaml(pins=h.pins_at(h.c["P8"])))
    git("commit", "--quiet", "-am", "Bump plugin to P8", cwd=world.root)
    git("push", "--quiet", "origin", "main", cwd=world.root)
    red = git("rev-parse", "HEAD", cwd=world.root).strip()
    fake.branches["main"] = red

    nightly, line = load_workflow(WORKFLOWS / "nightly.yml")["jobs"], line_jobs()
    runner = Runner(world.origin, world.tmp / "night", world.env, now="2026-11-20T03:23:00Z", sha=red)
    main = {"line": "main", "date": ""}
    assert runner.run_job("plan", line["plan"], inputs=main).result == "success"
    assert run_build_matrix(runner, line["build"], cells=["pjrt"]) == "failure"
    assert runner.run_job("finish", line["finish"], inputs=main).result == "skipped"
    started = runner.run_job("bisect", line["bisect"], inputs=main)
    assert started.result == "success", started.log[-3000:]
    (dispatch,) = fake.dispatches
    assert dispatch["workflow"] == "bisect.yml" and dispatch["ref"] == "main"
    assert dispatch["inputs"] == {"good": good, "bad_commit": red, "skip_known": "true"}
    assert started.outputs["said"].startswith(f"main: started bisect.yml: bisect {good}..")

    bisect = load_workflow(WORKFLOWS / "bisect.yml")["jobs"]
    run = Runner(world.origin, world.tmp / "bisect", world.env, now="2026-11-20T07:00:00Z", sha=red, run_id=2)
    probes = run.run_job("bisect", bisect["bisect"], inputs=dispatch["inputs"])
    assert probes.result == "success", probes.log[-3000:]
    assert probes.outputs["found"] == "true" and fake.pulls() == []  # the read-only job proposes nothing
    hold = run.run_job("hold", bisect["hold"], inputs=dispatch["inputs"])
    assert hold.result == "success", hold.log[-3000:]
    (pr,) = fake.pulls()
    assert pr["title"] == f"Hold plugin before {h.c['P6'][:7]}" and pr["base"]["ref"] == "main"
    held = git("show", "refs/heads/hold/plugin:deps.yaml", cwd=world.origin)
    assert parse_deps(world.root / "deps.yaml", held)["plugin"].hold.commit == h.c["P6"]

    # Last, whatever happened: the dashboard job, told how the run ended (a red build: failure).
    runner.jobs["lines"] = JobResult("success", {"lines": '["main"]'})
    called(runner, "nightly", runner)
    dash = runner.run_job("dashboard", nightly["dashboard"])
    assert dash.result == "success", dash.log[-3000:]
    assert "DASHBOARD_THIS_RUN" in nightly["dashboard"]["steps"][-1]["env"]
    (issue,) = fake.issues()
    assert f"bisect: main: started bisect.yml: bisect {good}.." in issue["body"]   # why it ran, on the dashboard


def test_the_bump_workflow_rolls_every_maintained_line_on_its_own_branch(world):
    """lines.json names main and release/0.10: the bump job runs once a line (the matrix the
    lines job hands over), each on its line's branch, and each line gets its own bump PR into
    its own branch, on its own bump branch, the same day and the same deps."""
    fake = world.fake
    git("push", "--quiet", "origin", "main:refs/heads/release/0.10", cwd=world.root)
    (world.root / ".github" / "lines.json").write_text('["main", "release/0.10"]\n')
    git("add", "-A", cwd=world.root)
    git("commit", "--quiet", "-m", "Maintain line 0.10", cwd=world.root)
    git("push", "--quiet", "origin", "main", cwd=world.root)
    head = git("rev-parse", "HEAD", cwd=world.root).strip()
    bump = load_workflow(WORKFLOWS / "bump.yml")["jobs"]
    runner = Runner(world.origin, world.tmp / "run", world.env, now="2026-11-20T05:17:00Z", sha=head)
    lines = runner.run_job("lines", bump["lines"])
    assert lines.result == "success", lines.log[-3000:]
    matrix = json.loads(lines.outputs["lines"])
    assert matrix == ["main", "release/0.10"]
    for line in matrix:
        job = runner.run_job(f"bump ({line})", bump["bump"], matrix={"line": line})
        assert job.result == "success", job.log[-3000:]
    pulls = sorted(fake.pulls(), key=lambda p: p["base"]["ref"])
    assert [p["base"]["ref"] for p in pulls] == ["main", "release/0.10"]
    heads = [p["head"]["ref"] for p in pulls]
    assert len(set(heads)) == 2 and heads[1].startswith("bump/0.10/"), heads
    for pull in pulls:  # each PR's commit sits on its own line's branch
        parent = git("rev-parse", f"refs/heads/{pull['head']['ref']}^", cwd=world.origin).strip()
        assert parent == git("rev-parse", f"refs/heads/{pull['base']['ref']}", cwd=world.origin).strip()
    # Last, once: the dashboard job. It says nothing of a bisect, so the line the last red
    # nightly wrote stays (issue 34).
    said = "release/0.10: not run: not bisecting: run 7 has smoke failed"
    from release.core import roller_report
    fake.seed_issue("Release roller dashboard", body=f"{roller_report.MARKER}\n## Roller\n\nx\n\nbisect: {said}\n",
                    labels=["release-dashboard"], login=fake.identity)
    dash = runner.run_job("dashboard", bump["dashboard"])
    assert dash.result == "success", dash.log[-3000:]
    (issue,) = fake.issues()
    assert f"bisect: {said}" in issue["body"].splitlines(), issue["body"]
