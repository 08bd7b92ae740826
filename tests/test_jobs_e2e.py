"""The three jobs end to end: bump, nightly, cut (a release; an rc's plan from a pushed tag). (A
post re-spin runs end to end in tests/test_workflow_flow.py, as release.yml's post job runs it, and
in the season; gc beside a release is test_gc's, and the season's night by night. The nightly split
as CI runs it, plan, one cell per wheel, finish, is nightly.yml's red re-run there: the plan's
outputs and empty draft, the finish's collect, validate and publish, its PEP 658 files, SHA256SUMS
and one provenance with the run's invocation and attestation lines; a cell's re-run changing
nothing is test_publish's, and the pythons of two plugin cells in the one provenance
test_provenance's.)

Real edges only: upstream repositories are bare git remotes made in a temp dir, this
repository is a real git checkout with a bare origin, the shared objects are real ELF
files compiled with the RUNPATH the Bazel config sets (Bazel itself is the one thing
replaced: ``--artifacts``), releases go to the local GitHub stand-in (every request
checked against GitHub's OpenAPI description), and the version and revision map are read back
from the wheels the release serves (each job's validate step installs and imports them first).
"""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import threading
import zipfile
from pathlib import Path

import pytest
import yaml

from release.build import bazel
from tests.support import warm_start
from tests.support.elf import compile_artifacts
from tests.support.gitrepos import XLA_BZL, deps_yaml, git, release_repo, workspace_bzl
from tests.support.project import write_version_info

REPO = Path(__file__).resolve().parents[1]
PY = "3.11"  # one plugin wheel keeps the test quick; the matrix is the build tests' business


@pytest.fixture(scope="module")
def artifacts(tmp_path_factory) -> Path:
    """Prebuilt shared objects as a ROCm build machine would hand them over."""
    return compile_artifacts(tmp_path_factory.mktemp("artifacts"), bazel.configured_runpath(REPO))


@pytest.fixture
def world(tmp_path, github_env, monkeypatch, remotes_template):
    """Upstream remotes (its own copy: tests commit into them) + a checkout of this repository
    (on main, pushed to a bare origin)."""
    remotes = remotes_template.copy(tmp_path / "upstream")
    origin = tmp_path / "origin.git"
    git("init", "--quiet", "--bare", "-b", "main", origin)
    root = release_repo(tmp_path / "release-repo")
    write_version_info(root)
    (root / "deps.yaml").write_text(deps_yaml(remotes))
    (root / ".gitignore").write_text("/dist/\n/.cache/\n/workspace/\n")
    git("add", "-A", cwd=root)
    git("commit", "--quiet", "-m", "Initial pins", cwd=root)
    git("remote", "add", "origin", origin, cwd=root)
    git("push", "--quiet", "origin", "main", cwd=root)
    monkeypatch.chdir(root)
    return type("World", (), {"remotes": remotes, "root": root, "origin": origin,
                              "fake": github_env, "tmp": tmp_path})


def release(*argv, check=True, env=None, **kwargs) -> subprocess.CompletedProcess:
    """``python -m release ...`` as CI runs it (in the current directory, with the env).

    A run with ``--date D`` runs at 03:00 UTC that day (``$RELEASE_NOW``), as the scheduled
    nightly does."""
    argv = [str(a) for a in argv]
    env = dict(os.environ if env is None else env)
    if "--date" in argv:
        env["RELEASE_NOW"] = argv[argv.index("--date") + 1] + "T03:00:00Z"
    proc = subprocess.run([warm_start.python(), "-m", "release", *argv], capture_output=True,
                          text=True, env=env, **kwargs)
    if check:
        assert proc.returncode == 0, proc.stderr[-3000:]
    return proc


def nightly(world, artifacts, date, *more, **kwargs):
    return release("nightly", "--date", date, "--artifacts", artifacts, "--python", PY,
                   "--store", "github", "--json", *more, **kwargs)


def commit_all(root: Path, message: str) -> str:
    git("commit", "--quiet", "-am", message, cwd=root)
    return git("rev-parse", "HEAD", cwd=root).strip()


def published(fake, tag):
    return [r for r in fake.releases() if r["tag_name"] == tag]


def shipped(fake, tag: str) -> dict:
    """``version.py`` and ``commit_info.py`` of both packages, read from the wheels the release
    serves (the bytes a user downloads). That they install and import in a fresh venv is the
    job's own validate step (it ran before publishing) and tests/test_build.py's."""
    [rel] = published(fake, tag)
    out = {}
    for asset in rel["assets"]:
        if not asset["name"].endswith(".whl"):
            continue
        with zipfile.ZipFile(io.BytesIO(fake.asset_bytes(asset["id"]))) as whl:
            for pkg in ("jax_plugins.xla_rocm7", "jax_rocm7_plugin"):
                base = pkg.replace(".", "/")
                if f"{base}/version.py" not in whl.namelist():
                    continue
                v: dict = {}
                c: dict = {}
                exec(whl.read(f"{base}/version.py").decode(), v)
                exec(whl.read(f"{base}/commit_info.py").decode(), c)
                out[pkg] = {"version": v["__version__"], "revisions": c["revisions"], "commits": c["commits"],
                            "release_commit": c["release_commit"]}
    assert sorted(out) == ["jax_plugins.xla_rocm7", "jax_rocm7_plugin"], out
    return out


def assert_one_release_per_tag_and_assets_once(fake):
    tags = [r["tag_name"] for r in fake.releases()]
    assert len(tags) == len(set(tags)), tags
    for rel in fake.releases():
        names = [a["name"] for a in rel["assets"]]
        assert len(names) == len(set(names)), (rel["tag_name"], names)
        assert all(a["state"] == "uploaded" for a in rel["assets"])


def test_bump_then_nightlies(world, artifacts):
    fake, root, c = world.fake, world.root, world.remotes.c

    # 1. The scheduled bump: plugin moves to its tip; jax and xla follow the plugin's pins.
    bump = json.loads(release("bump", "--json").stdout)
    assert bump["changed"] is True
    pins = {n: d["commit"] for n, d in yaml.safe_load((root / "deps.yaml").read_text())["deps"].items()}
    assert pins == {"plugin": c["P2"], "jax": c["J4"], "xla": c["Y_TIP"]}
    head = commit_all(root, "Bump pins")

    # 2. Tonight's nightly: built, drafted, validated, published as a prerelease.
    first = json.loads(nightly(world, artifacts, "2026-11-20").stdout)
    assert first["built"] is True and first["version"] == "0.9.1.dev20261120"
    [rel] = published(fake, "rocm-jax-v0.9.1.dev20261120")
    assert rel["draft"] is False and rel["prerelease"] is True
    wheels = ["jax_rocm7_pjrt-0.9.1.dev20261120-py3-none-manylinux_2_28_x86_64.whl",
              "jax_rocm7_plugin-0.9.1.dev20261120-cp311-cp311-manylinux_2_28_x86_64.whl"]
    assert sorted(a["name"] for a in rel["assets"]) == sorted([
        *wheels, *(w + ".metadata" for w in wheels),  # PEP 658: each wheel's METADATA beside it
        "revisions.json", "provenance.intoto.json", "SHA256SUMS"])
    assert "rocm-jax-v0.9.1.dev20261120" in fake.tags()
    assert c["P2"] in rel["body"] or c["P2"][:12] in rel["body"]
    got = shipped(fake, "rocm-jax-v0.9.1.dev20261120")
    for pkg in got.values():
        assert pkg["version"] == "0.9.1.dev20261120"
        assert {n: r["commit"] for n, r in pkg["revisions"].items()} == pins
        assert pkg["commits"] == {"ROCm/rocm-jax": c["P2"], "jax": c["J4"], "ROCm/xla": c["Y_TIP"]}
        assert pkg["release_commit"] == head

    # 3. The next night, nothing moved: one clear line, no build, no release.
    calls = len(fake.log)
    second = nightly(world, artifacts, "2026-11-21")
    assert json.loads(second.stdout)["built"] is False
    assert "nothing changed since rocm-jax-v0.9.1.dev20261120" in second.stderr
    assert not published(fake, "rocm-jax-v0.9.1.dev20261121")
    assert not (root / "dist" / "0.9.1.dev20261121").exists()
    assert all(method == "GET" for _, method, *_ in fake.log[calls:])

    # 4. Upstream moves, the bump picks it up, and the next nightly builds again.
    x_new = world.remotes.xla.commit("rocm-jaxlib-v0.9.1", "New GPU kernel", {"xla/new.cc": "int n;\n"})
    p_new = world.remotes.plugin.commit("master", "Roll xla", {XLA_BZL: workspace_bzl("XLA_COMMIT", x_new)})
    release("bump")
    commit_all(root, "Bump xla")
    third = json.loads(nightly(world, artifacts, "2026-11-22").stdout)
    assert third["built"] is True and third["last_nightly"] == "rocm-jax-v0.9.1.dev20261120"
    [rel3] = published(fake, "rocm-jax-v0.9.1.dev20261122")
    assert x_new[:12] in rel3["body"] and p_new[:12] in rel3["body"]
    assert_one_release_per_tag_and_assets_once(fake)


def test_nightly_killed_mid_publish_finishes_on_rerun(world, artifacts, tmp_path):
    fake = world.fake
    # The second upload is told to come back much later (a secondary rate limit), so the
    # process is parked mid-publish when it is killed: one asset up, three to go.
    parked = fake.rate_limit("POST", r"/releases/\d+/assets", kind="secondary", nth=2,
                             retry_after=600)
    log = tmp_path / "killed.log"  # a file, not a pipe nobody drains while we wait
    with open(log, "wb") as sink:
        proc = subprocess.Popen([sys.executable, "-m", "release", "nightly", "--date", "2026-11-20",
                                 "--artifacts", str(artifacts), "--python", PY, "--store",
                                 "github"], stdout=sink, stderr=subprocess.STDOUT,
                                start_new_session=True,
                                env={**os.environ, "RELEASE_NOW": "2026-11-20T03:00:00Z"})
    # Wait for an event, not for time: the second upload reaching the stand-in, or the process
    # ending without it (then the assertion below says so).
    threading.Thread(target=lambda: (proc.wait(), parked.hit.set()), daemon=True).start()
    parked.hit.wait()
    assert proc.poll() is None and parked.fired == 1, log.read_text()[-2000:]
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.wait()
    drafts = [r for r in fake.releases() if r["draft"]]
    assert len(drafts) == 1 and len(drafts[0]["assets"]) < 4  # really died mid-publish

    rerun = nightly(world, artifacts, "2026-11-20")
    steps = {s["step"]: s["status"] for s in json.loads(rerun.stdout)["steps"]}
    assert steps["build"] == "skipped" and steps["verify"] == "skipped"
    assert steps["draft"] == "ran" and steps["publish"] == "ran"
    [rel] = fake.releases()
    assert rel["draft"] is False and rel["tag_name"] == "rocm-jax-v0.9.1.dev20261120"
    assert len(rel["assets"]) == 7  # two wheels, their metadata, revisions.json, provenance, SHA256SUMS
    assert_one_release_per_tag_and_assets_once(fake)
    assert fake.token not in rerun.stdout + rerun.stderr


def test_second_nightly_process_is_refused_while_one_runs(world, artifacts):
    from release.jobs.pipeline import job_lock
    with job_lock(world.root, "nightly"):
        proc = nightly(world, artifacts, "2026-11-20", check=False)
    assert proc.returncode == 2
    assert len(proc.stderr.strip().splitlines()) == 1 and "nightly" in proc.stderr
    assert not world.fake.releases()


def test_cut_release_next_version_and_rerun(world, artifacts):
    """The one-shot cut of a final release. (An rc is planned from a pushed tag below and cut by
    `release try`; a post re-spin is release.yml's post job in tests/test_workflow_flow.py, which
    also checks that it carries the release's revisions, and the season's.)"""
    fake, root = world.fake, world.root
    release("bump")
    commit_all(root, "Bump pins")

    # A dirty tree or another branch is refused before anything happens.
    (root / "version_info.json").write_text((root / "version_info.json").read_text() + " ")
    dirty = release("cut", "--rc", "1", "--artifacts", artifacts, "--store", "github", check=False)
    assert dirty.returncode == 2 and "not clean" in dirty.stderr
    git("checkout", "--quiet", "--", "version_info.json", cwd=root)
    git("checkout", "--quiet", "-b", "topic", cwd=root)
    wrong = release("cut", "--artifacts", artifacts, "--store", "github", check=False)
    assert wrong.returncode == 2 and "on branch topic" in wrong.stderr
    git("checkout", "--quiet", "main", cwd=root)
    assert not fake.releases()

    final = json.loads(release("cut", "--artifacts", artifacts, "--python", PY, "--store", "github",
                               "--push", "--open-pr", "--json").stdout)
    assert final["version"] == "0.9.1" and final["tag"] == "rocm-jax-v0.9.1"
    [rel] = published(fake, "rocm-jax-v0.9.1")
    assert rel["prerelease"] is False and rel["draft"] is False
    assert git("ls-remote", "--tags", world.origin, "rocm-jax-v0.9.1", cwd=root).strip()  # --push
    # The line is jax's: after its release it goes on as its next post release.
    assert final["next"]["next_version"] == "0.9.1.post1"
    branch = final["next"]["branch"]
    shown = git("--git-dir", world.origin, "show", f"{branch}:version_info.json")
    assert json.loads(shown)["version"] == "0.9.1.post1"
    assert json.loads((root / "version_info.json").read_text())["version"] == "0.9.1"  # main untouched
    [pull] = fake.pulls()
    assert pull["head"]["ref"] == branch and pull["base"]["ref"] == "main" and pull["state"] == "open"
    got = shipped(fake, "rocm-jax-v0.9.1")
    assert {p["version"] for p in got.values()} == {"0.9.1"}

    # Re-running the same cut changes nothing: one release (no post of the same sources), one PR.
    release("cut", "--artifacts", artifacts, "--python", PY, "--store", "github", "--open-pr")
    assert [r["tag_name"] for r in fake.releases()] == ["rocm-jax-v0.9.1"] and len(fake.pulls()) == 1

    assert_one_release_per_tag_and_assets_once(fake)


def read_github_output(path: Path) -> dict:
    return dict(line.split("=", 1) for line in path.read_text().splitlines() if "=" in line)


def test_an_rc_tag_is_planned_as_ci_runs_it(world, tmp_path):
    """release.yml's plan stage for a pushed rc tag: what it hands the later jobs, and a tag that
    is not the next version refused in one line. (The stages after it, build, publish --partial
    and finish, run as release.yml runs them for a pushed final tag in
    tests/test_workflow_flow.py, which also pushes that tag again once it is published.)"""
    fake, root = world.fake, world.root
    release("bump")
    commit_all(root, "Bump pins")
    git("tag", "-a", "rocm-jax-v0.9.1rc2", "-m", "rc2", cwd=root)
    git("checkout", "--quiet", "--detach", "rocm-jax-v0.9.1rc2", cwd=root)  # how CI checks a tag out
    gh_out = tmp_path / "github_output"
    gh_out.touch()
    release("cut", "--stage", "plan", "--tag", "rocm-jax-v0.9.1rc2", "--store", "github",
            env={**os.environ, "GITHUB_OUTPUT": str(gh_out)})
    assert read_github_output(gh_out) == {"kind": "rc", "number": "2", "version": "0.9.1rc2",
                                          "tag": "rocm-jax-v0.9.1rc2"}
    [draft] = fake.releases()
    assert draft["tag_name"] == "rocm-jax-v0.9.1rc2" and draft["draft"] and draft["prerelease"]

    # A tag that does not match version_info.json is refused in one line.
    git("tag", "-a", "rocm-jax-v0.9.7", "-m", "wrong", cwd=root)
    wrong = release("cut", "--stage", "plan", "--tag", "rocm-jax-v0.9.7", "--store", "github", check=False)
    assert wrong.returncode == 2 and "next version is 0.9.1" in wrong.stderr
    assert len(wrong.stderr.strip().splitlines()) == 1 and len(fake.releases()) == 1
