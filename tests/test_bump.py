"""``release bump`` end to end: deps.yaml, changelog, refusals, the bump branch and the one PR."""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import os
import subprocess

import pytest

from release.core.errors import UserError
from tests.support.bumping import bump
from tests.support.gitrepos import git

DAY = dt.date(2026, 11, 22)  # the bump branch's


@pytest.fixture
def cache_env(tmp_path, monkeypatch):
    monkeypatch.setenv("JAX_ROCM_RELEASE_CACHE", str(tmp_path / "cache"))
    return tmp_path / "cache"


def test_bump_over_http_json_file_and_rerun(run_cli, bump_project, git_remotes, git_http, cache_env,
                                            tmp_path, monkeypatch):
    c = git_remotes.c
    root = bump_project(http=git_http)
    before = (root / "deps.yaml").read_text()
    monkeypatch.setenv("GITHUB_OUTPUT", str(tmp_path / "gh_out"))
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(tmp_path / "gh_summary"))
    code, out, err = run_cli("bump", "--json", "--root", root, "--changelog", tmp_path / "CHANGES.md",
                             "--max-log-lines", "5")
    assert code == 0, err
    data = json.loads(out)
    assert data["changed"] is True
    assert {n: (d["old"], d["new"], d["count"]) for n, d in data["deps"].items()} == {
        "plugin": (c["P0"], c["P2"], 2), "jax": (c["J1"], c["J4"], 4), "xla": (c["X1"], c["Y_TIP"], 30)}
    assert len(data["deps"]["xla"]["commits"]) == 30  # JSON is complete; only Markdown is cut
    assert data["deps"]["jax"]["commits"][0] == {
        "sha": c["J4"], "date": data["deps"]["jax"]["commits"][0]["date"], "author": "Grace Hopper",
        "subject": "Bump version"}
    assert data["title"] == (f"Bump plugin {c['P0'][:7]}..{c['P2'][:7]} (2 commits), "
                             f"jax {c['J1'][:7]}..{c['J4'][:7]} (4 commits), "
                             f"xla {c['X1'][:7]}..{c['Y_TIP'][:7]} (30 commits)")
    after = (root / "deps.yaml").read_text()
    # Only the three commit values changed; comments and layout kept.
    assert after == before.replace(c["P0"], c["P2"]).replace(c["J1"], c["J4"]).replace(c["X1"], c["Y_TIP"])
    notes = (tmp_path / "CHANGES.md").read_text()
    assert notes.startswith(f"# {data['title']}\n") and "- ... and 25 more" in notes
    assert notes.count("Rewritten change") == 5
    assert "changed=true" in (tmp_path / "gh_out").read_text()
    assert "Bump plugin" in (tmp_path / "gh_summary").read_text()

    git_http.reset_counts()
    code, out, err = run_cli("bump", "--root", root)
    assert (code, out.strip()) == (0, "pins are current")
    assert (root / "deps.yaml").read_text() == after
    assert git_http.requests <= 2  # one ls-remote (ref advertisement); via files read from the cache


def test_human_output_and_dry_run_write_nothing(run_cli, bump_project, git_remotes, cache_env):
    root = bump_project()
    before = (root / "deps.yaml").read_bytes()
    code, out, err = run_cli("bump", "--dry-run", "--dep", "plugin", "--root", root)
    assert code == 0, err
    assert "Bump plugin" in out and "dry run" in out and "Roll xla" in out
    assert (root / "deps.yaml").read_bytes() == before


@pytest.mark.parametrize("kwargs, asked, fragment", [
    (dict(plugin_branch="forky", commits={"plugin": "P2"}), {}, "is on no official branch"),
    (dict(commits={"plugin": "P2"}), {"deps": ("plugin",), "to": "P0"}, "(a move back 2 commits)"),
    (dict(plugin_branch="novar", commits={"plugin": "P2"}), {}, "no pinned commit found"),
    (dict(plugin_branch="gone"), {}, "no branch 'gone'"),
])
def test_refusal_is_one_line_and_the_file_untouched(bump_project, git_remotes, cache_env, kwargs, asked, fragment):
    c = git_remotes.c
    if "commits" in kwargs:
        kwargs["commits"] = {k: c[v] for k, v in kwargs["commits"].items()}
    root = bump_project(**kwargs)
    before = (root / "deps.yaml").read_bytes()
    with pytest.raises(UserError) as refused:
        bump(root, **{k: c.get(v, v) if isinstance(v, str) else v for k, v in asked.items()})
    assert "\n" not in str(refused.value) and fragment in str(refused.value)
    assert (root / "deps.yaml").read_bytes() == before


def test_a_refusal_through_the_cli_is_one_line_exit_2(release_subprocess, bump_project, git_remotes, cache_env):
    """What a person and the workflow see of a user's error: one line on stderr, exit 2, no traceback."""
    root = bump_project(plugin_branch="gone")
    proc = release_subprocess("bump", "--root", root,
                              env={**os.environ, "JAX_ROCM_RELEASE_CACHE": str(cache_env)})
    assert proc.returncode == 2, proc.stderr
    assert proc.stdout == "" and "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and "no branch 'gone'" in proc.stderr
    assert proc.stderr.startswith("release bump: error: ")


def test_auth_failure_through_the_cli_hides_the_token(run_cli, bump_project, git_remotes, cache_env):
    from tests.support.gitrepos import GitHttpServer
    server = GitHttpServer(git_remotes.root, token="tok-abcdef-123456").start()
    try:
        root = bump_project(urls={"plugin": server.url("plugin.git", user="x-access-token",
                                                       password="tok-wrong-999999")})
        code, out, err = run_cli("bump", "--root", root)
    finally:
        server.stop()
    assert code == 2 and out == ""
    assert err.startswith("release bump: error: plugin: cannot list http://127.0.0.1:")  # no credentials
    assert "authentication failed" in err and "tok-" not in err and err.count("\n") == 1


# ---------------------------------------------------------------- --commit / --push / --open-pr


def test_commit_makes_one_branch_and_is_idempotent(release_checkout, git_remotes, cache_env):
    root, origin = release_checkout
    head = git("rev-parse", "HEAD", cwd=root).strip()
    (root / "notes.txt").write_text("someone's uncommitted work\n")
    before = (root / "deps.yaml").read_bytes()
    result = bump(root, commit=True, date=DAY)
    data = {"title": result.title, **result.delivered}
    branch = "bump/2026-11-22-plugin-jax-xla"
    assert data["branch"] == branch
    sha = git("rev-parse", branch, cwd=root).strip()
    assert data["commit"] == sha
    assert git("rev-parse", f"{sha}^", cwd=root).strip() == head
    assert git("diff", "--name-only", head, sha, cwd=root).split() == ["deps.yaml"]
    message = git("log", "-1", "--format=%B", sha, cwd=root)
    assert message.splitlines()[0] == data["title"] and "Rewritten change 31" in message
    assert git("show", f"{sha}:deps.yaml", cwd=root) != before.decode()
    # The work tree (deps.yaml too), the checked-out branch and other files are untouched.
    assert (root / "deps.yaml").read_bytes() == before
    assert git("symbolic-ref", "--short", "HEAD", cwd=root).strip() == "main"
    assert (root / "notes.txt").exists()
    # Same pins again (nothing committed on main): the same commit.
    assert bump(root, commit=True, date=DAY).delivered["commit"] == sha
    assert bump(root, push=True, date=DAY).delivered["pushed"] is True
    assert git("rev-parse", f"refs/heads/{branch}", cwd=origin).strip() == sha


def test_commit_keeps_a_persons_uncommitted_pin_edit(release_checkout, git_remotes, cache_env):
    """A person moved a pin by hand and has not committed it: bump --commit commits its own roll
    from HEAD and leaves their edit in the work tree as they wrote it."""
    root, _ = release_checkout
    deps = root / "deps.yaml"
    text = deps.read_text()
    old = text.split("commit: ", 1)[1].split()[0].strip('"')
    edited = text.replace(old, "f" * 40, 1) + "# my note\n"
    deps.write_text(edited)
    with contextlib.suppress(UserError):  # rolled from HEAD, or refused: either way their edit stays
        bump(root, commit=True, date=DAY)
    assert deps.read_text() == edited


def test_commit_refuses_other_uncommitted_edits(release_checkout, cache_env):
    root, _ = release_checkout
    deps = root / "deps.yaml"
    deps.write_text(deps.read_text().replace("branch: master", "branch: main"))
    with pytest.raises(UserError, match="uncommitted edits besides pins"):
        bump(root, commit=True)


def test_open_pr_opens_updates_then_closes_one_pr(release_checkout, git_remotes, cache_env, github_env):
    root, origin = release_checkout
    fake = github_env
    owner = fake.repo.split("/")[0]
    first = bump(root, open_pr=True, deps=("plugin",)).to_json()
    assert first["pull_request"]["action"] == "opened"
    pulls = fake.pulls()
    assert len(pulls) == 1 and pulls[0]["state"] == "open"
    assert pulls[0]["head"]["label"] == f"{owner}:{first['branch']}" and pulls[0]["base"]["ref"] == "main"
    assert pulls[0]["title"].startswith("Bump plugin ") and "Roll xla" in pulls[0]["body"]
    assert git("rev-parse", f"refs/heads/{first['branch']}", cwd=origin).strip() == first["commit"]

    # Next day: more deps move. The open PR is reused: its branch force-pushed, title rewritten.
    second = bump(root, open_pr=True).to_json()
    assert second["pull_request"]["action"] == "updated"
    assert second["pull_request"]["number"] == pulls[0]["number"]
    pulls = fake.pulls()
    assert len(pulls) == 1 and pulls[0]["title"] == second["title"] and "xla" in pulls[0]["title"]
    assert git("rev-parse", f"refs/heads/{first['branch']}", cwd=origin).strip() == second["commit"]

    # The bump lands on main: pins are current, so the stale PR is closed.
    git("checkout", "--quiet", "--", "deps.yaml", cwd=root)
    git("merge", "--quiet", "--ff-only", second["commit"], cwd=root)
    third = bump(root, open_pr=True)
    assert third.changed is False and third.pull_request["action"] == "closed"
    assert [p["state"] for p in fake.pulls()] == ["closed"]
    # And once more: nothing open, nothing to do, no branch made.
    assert bump(root, open_pr=True).pull_request["action"] == "none" and len(fake.pulls()) == 1


@pytest.mark.parametrize("refusal", ["actions may not create PRs", "422 from GitHub"])
def test_a_refused_bump_pr_leaves_no_branch_behind(release_checkout, git_remotes, cache_env, github_env, refusal):
    """The branch is pushed before the PR is asked for; when GitHub refuses the PR (a workflow's
    GITHUB_TOKEN without the repository's "Allow GitHub Actions to create pull requests", or any
    other 4xx) the branch is deleted again, and the line says what to change."""
    root, origin = release_checkout
    fake = github_env
    if refusal == "actions may not create PRs":
        fake.actions_token = True
        fake.settings.can_create_prs = False
    else:
        fake.fail("POST", r"/pulls$", status=422, message="Validation Failed")
    with pytest.raises(UserError) as refused:
        bump(root, open_pr=True, deps=("plugin",))
    err = str(refused.value)
    assert "\n" not in err and "deleted it again" in err
    if refusal == "actions may not create PRs":
        assert "allow GitHub Actions to create pull requests" in err and "BUMP_TOKEN" in err
    assert fake.pulls() == []
    left = git("for-each-ref", "--format=%(refname)", "refs/heads/bump/", cwd=origin).split()
    assert left == []
    # With the right granted, the next run opens it.
    fake.settings.can_create_prs = True
    fake.faults.clear()
    assert bump(root, open_pr=True, deps=("plugin",)).pull_request["action"] == "opened"
    assert len(fake.pulls()) == 1


def test_open_pr_needs_the_repository(release_checkout, cache_env):
    root, _ = release_checkout
    env = {k: v for k, v in os.environ.items() if k != "GITHUB_REPOSITORY"}
    with pytest.raises(UserError) as refused:
        bump(root, env=env, open_pr=True)
    assert "GITHUB_REPOSITORY" in str(refused.value) and "\n" not in str(refused.value)
    before = subprocess.run(["git", "branch", "--list", "bump/*"], cwd=root, capture_output=True,
                            text=True).stdout
    assert before == ""


def test_bump_workflow_keeps_the_mirrors_between_runs():
    """The scheduled job restores the newest earlier mirror cache and saves one per day, with
    the cache action pinned by full SHA like every other action."""
    import re as _re
    from pathlib import Path

    import yaml
    flow = yaml.safe_load((Path(__file__).resolve().parents[1] / ".github/workflows/bump.yml").read_text())
    steps = flow["jobs"]["bump"]["steps"]
    cache = next(s for s in steps if str(s.get("uses", "")).startswith("actions/cache@"))
    assert _re.fullmatch(r"actions/cache@[0-9a-f]{40}", cache["uses"])
    assert cache["with"]["path"] == ".cache/git"  # where release.sources.checkout.cache_dir puts the mirrors
    key, restore = cache["with"]["key"], cache["with"]["restore-keys"].strip()
    # per line and day; restored: the line's own newest first, then any line's (one prefix each)
    assert "steps.day.outputs.day" in key and "matrix.line" in key
    assert restore.splitlines() and all(key.startswith(r.strip()) for r in restore.splitlines())
    names = [s.get("name") or s.get("uses") for s in steps]
    assert names.index(cache["uses"]) < names.index("scripts/bump.sh")


def test_commit_after_a_crash_keeps_a_branch_switch(bump_project, git_remotes, cache_env, tmp_path):
    """The file was written (a via dep switched branch) but never committed: --commit commits it."""
    c = git_remotes.c
    root = bump_project(commits={"jax": c["JS"]})
    (root / "deps.yaml").write_text((root / "deps.yaml").read_text().replace(
        f"branch: rocm-jaxlib-v0.9.1\n    commit: {c['JS']}", f"branch: experimental\n    commit: {c['JS']}"))
    git("init", "--quiet", "-b", "main", cwd=root)
    git("add", "deps.yaml", "version_info.json", cwd=root)
    git("commit", "--quiet", "-m", "pins", cwd=root)
    switched = bump(root, deps=("jax",))  # the crash: written, not committed
    assert "jax: switched experimental -> rocm-jaxlib-v0.9.1" in switched.body.markdown()
    written = (root / "deps.yaml").read_text()
    sha = bump(root, deps=("jax",), commit=True, date=DAY).delivered["commit"]
    assert git("show", f"{sha}:deps.yaml", cwd=root) == written


def test_revision_map_carries_what_bump_records(tmp_path):
    """archive_sha256 and patches written by a bump reach revisions.json, commit_info.py and the
    notes table; maps written before they existed still load."""
    from pathlib import Path

    from release.core import config
    from release.core.revisions import RevisionMap, is_revision
    path = tmp_path / "deps.yaml"
    path.write_text((Path(__file__).resolve().parents[1] / "deps.yaml").read_text())
    deps = config.load_deps(path).with_pins({"jax": {"archive_sha256": "c" * 64,
                                                     "patches": ("//third_party/jax:0005-Fix.patch",)},
                                             "xla": {"patches": ()}})  # the shipped xla has one
    rmap = RevisionMap.from_deps(deps, "0.9.1")
    data = rmap.to_json()
    assert data["deps"]["jax"]["archive_sha256"] == "c" * 64
    assert data["deps"]["jax"]["patches"] == ["//third_party/jax:0005-Fix.patch"]
    assert set(data["deps"]["xla"]) == {"url", "branch", "commit"}  # nothing pinned on top: as before
    assert RevisionMap.loads(rmap.dumps()) == rmap
    assert "'archive_sha256': '" + "c" * 64 in rmap.commit_info_py()
    table = rmap.markdown()
    assert "`0005-Fix.patch`" in table and "`cccccccccccc`" in table and "`rocm-jaxlib-v0.9.1`" in table
    assert is_revision({"url": "u", "branch": "b", "commit": "a" * 40})
    assert not is_revision({"url": "u", "branch": "b", "commit": "a" * 40, "patches": "x.patch"})


# ---------------------------------------------------------------- the command: flags in, result out


def test_each_flag_reaches_its_option_and_the_result_is_printed(run_cli, project_dir, tmp_path, monkeypatch):
    """``release bump`` only parses: every flag lands in its ``BumpOptions`` field (the clock from
    $RELEASE_NOW), and the job's result is what --json, $GITHUB_OUTPUT and stderr say."""
    from release.jobs import bump as job
    seen = []
    done = job.BumpResult(changed=True, title="Bump plugin a..b (1 commit)",
                          body=job.PullBody("Bump plugin a..b (1 commit)", "### plugin\n"), facts={"deps": {}},
                          delivered={"branch": "bump/2026-11-20-plugin", "commit": "c" * 40,
                                     "pull_request": {"action": "opened", "number": 7, "url": "u", "branch": None,
                                                      "closed": [], "reason": None, "head": None}})

    def run_bump(project, options, env, say, *, console=None):
        seen.append((project.root, options))
        say("warning: roller.yaml: an uncommitted edit is ignored")
        return done

    monkeypatch.setattr(job, "run_bump", run_bump)
    monkeypatch.setenv("RELEASE_NOW", "2026-11-22T03:00:00Z")
    monkeypatch.setenv("GITHUB_OUTPUT", str(tmp_path / "out"))
    code, out, err = run_cli("bump", "--dep", "plugin", "--dep", "jax", "--to", "abc", "--allow-rewind",
                             "--changelog", tmp_path / "c.md", "--max-log-lines", "3", "--commit", "--push",
                             "--open-pr", "--auto-merge", "--merge-require", "build", "--merge-require", "lint",
                             "--merge-method", "squash", "--dry-run", "--date", "2026-11-20", "--json",
                             "--root", project_dir)
    assert code == 0, err
    assert seen == [(project_dir, job.BumpOptions(
        now=dt.datetime(2026, 11, 22, 3, tzinfo=dt.timezone.utc), deps=("plugin", "jax"), to="abc",
        allow_rewind=True, changelog=tmp_path / "c.md", max_log_lines=3, commit=True, push=True, open_pr=True,
        auto_merge=True, merge_require=("build", "lint"), merge_method="squash", dry_run=True,
        date=dt.date(2026, 11, 20)))]
    assert json.loads(out) == {"schema": "jax-rocm-release/bump/1", **done.to_json()}
    assert err == "warning: roller.yaml: an uncommitted edit is ignored\n"
    assert (tmp_path / "out").read_text().splitlines() == [
        "changed=true", "title=Bump plugin a..b (1 commit)", "branch=bump/2026-11-20-plugin", "pr-number=7"]
    seen.clear()
    code, out, err = run_cli("bump", "--root", project_dir)
    assert seen == [(project_dir, job.BumpOptions(now=dt.datetime(2026, 11, 22, 3, tzinfo=dt.timezone.utc),
                                                  max_log_lines=50))]
    assert out.splitlines()[:2] == ["Bump plugin a..b (1 commit)", "### plugin"]
    assert "committed cccccccccccc on bump/2026-11-20-plugin" in out and "pull request opened: u" in out
