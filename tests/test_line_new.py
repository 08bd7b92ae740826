"""``release line new X.Y``: a new maintained line as one pull request a person reviews
(docs/lines.md). On generated upstreams of the jax-tree layout (ROCm/jax's working branches of
0.11 and 0.10), a real checkout of this repository with a bare origin, and the GitHub stand-in."""

from __future__ import annotations

import json

import pytest

from release.core import config
from release.core.lines import LINES_FILE
from tests.support.gitrepos import git
from tests.support.jax_tree import PLUGIN_BRANCH, build_jax_tree, digest
from tests.support.project import write_version_info

OLD_BRANCH = "rocm-jaxlib-v0.10.x"


@pytest.fixture(scope="module")
def upstream(tmp_path_factory):
    """The generated upstreams, built once: no test here writes to them (a line's branch and
    pull request are made in the project's origin and on the stand-in)."""
    jt = build_jax_tree(tmp_path_factory.mktemp("upstream"))
    jt.jax.set_ref(OLD_BRANCH, jt.c["JOLD"])
    return jt


@pytest.fixture(scope="module")
def mirrors(tmp_path_factory):
    """One git cache for the module's commands: a mirror answers alike cold or warm, so each
    test need not fetch the unchanging upstreams again."""
    return tmp_path_factory.mktemp("mirrors")


@pytest.fixture
def world(tmp_path, monkeypatch, upstream, mirrors):
    """The 0.11 line on main (deps.yaml at J0), origin a bare repository; jax's 0.10 working
    branch at JOLD (jax 0.10.0, xla X10 on rocm-jaxlib-v0.10.0)."""
    monkeypatch.setenv("JAX_ROCM_RELEASE_CACHE", str(mirrors))
    monkeypatch.setenv("RELEASE_PUBLIC_INDEX", "none")
    jt = upstream
    root = tmp_path / "repo"
    root.mkdir()
    (root / "deps.yaml").write_text(jt.deps_yaml())
    write_version_info(root, "0.11.0")
    origin = tmp_path / "origin.git"
    git("init", "--quiet", "--bare", "-b", "main", origin)
    git("init", "--quiet", "-b", "main", cwd=root)
    git("add", "-A", cwd=root)
    git("-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "--quiet", "-m", "the 0.11 line", cwd=root)
    git("remote", "add", "origin", str(origin), cwd=root)
    git("push", "--quiet", "origin", "main", cwd=root)
    monkeypatch.chdir(root)
    return type("World", (), {"jt": jt, "root": root, "origin": origin})


def files_at(origin, ref: str) -> tuple[config.Deps, dict]:
    deps = config.parse_deps(origin / "deps.yaml", git("show", f"{ref}:deps.yaml", cwd=origin))
    return deps, json.loads(git("show", f"{ref}:version_info.json", cwd=origin))


def test_a_dry_run_shows_the_lines_files_and_writes_nothing(world, run_cli):
    before = git("for-each-ref", cwd=world.root), git("for-each-ref", cwd=world.origin)
    code, out, err = run_cli("line", "new", "0.10", "--dry-run", "--json")
    assert code == 0, err
    data = json.loads(out)
    c = world.jt.c
    assert (data["action"], data["branch"], data["version"], data["jax_line"]) == ("planned", "release/0.10",
                                                                                   "0.10.0", "0.10.0")
    assert data["pins"]["plugin"]["commit"] == data["pins"]["jax"]["commit"] == c["JOLD"]
    assert data["pins"]["plugin"]["branch"] == data["pins"]["jax"]["branch"] == OLD_BRANCH
    assert (data["pins"]["xla"]["commit"], data["pins"]["xla"]["archive_sha256"]) == (c["X10"], digest(c["X10"]))
    assert data["pins"]["xla"]["branch"] == "rocm-jaxlib-v0.10.0"
    assert (git("for-each-ref", cwd=world.root), git("for-each-ref", cwd=world.origin)) == before


def test_a_new_line_is_its_branch_with_its_files_and_one_pr_listing_it(world, run_cli, github_env):
    """The line's branch holds this tree with the line's two files (pins from its working
    branch's tip, jax 0.10.0's version, comments kept); the one PR into main adds it to
    lines.json; main itself is untouched. Run again: nothing new, the same PR."""
    fake, c = github_env, world.jt.c
    main_before = git("rev-parse", "refs/heads/main", cwd=world.origin).strip()
    code, out, err = run_cli("line", "new", "0.10", "--open-pr", "--json")
    assert code == 0, err
    data = json.loads(out)
    assert (data["action"], data["branch_action"]) == ("opened", "created")
    deps, info = files_at(world.origin, "refs/heads/release/0.10")
    assert deps["plugin"].commit == deps["jax"].commit == c["JOLD"] and deps["jax"].line == "0.10.0"
    assert (deps["plugin"].branch, deps["jax"].branch) == (OLD_BRANCH, OLD_BRANCH)
    assert (deps["xla"].commit, deps["xla"].archive_sha256) == (c["X10"], digest(c["X10"]))
    assert info["version"] == "0.10.0"
    assert "# the jax-tree layout (this comment must survive every bump)" in git(
        "show", "refs/heads/release/0.10:deps.yaml", cwd=world.origin)
    assert git("rev-parse", "refs/heads/main", cwd=world.origin).strip() == main_before
    [pull] = fake.pulls()
    assert (pull["head"]["ref"], pull["base"]["ref"], pull["state"]) == ("line/0.10", "main", "open")
    assert json.loads(git("show", f"refs/heads/line/0.10:{LINES_FILE}", cwd=world.origin)) == ["main", "release/0.10"]
    assert "release/0.10" in pull["body"] and c["JOLD"][:12] in pull["body"]
    # again: the line's branch kept as it is, the same PR, no second one
    tip = git("rev-parse", "refs/heads/release/0.10", cwd=world.origin).strip()
    code, out, err = run_cli("line", "new", "0.10", "--open-pr", "--json")
    assert code == 0, err
    again = json.loads(out)
    assert (again["action"], again["branch_action"]) == ("updated", "kept")
    assert len(fake.pulls()) == 1 and git("rev-parse", "refs/heads/release/0.10", cwd=world.origin).strip() == tip


def test_a_line_branch_someone_made_is_never_moved(world, run_cli):
    """release/0.10 already there (a person's): it is kept as it is and the PR lists it."""
    git("push", "--quiet", "origin", "main:refs/heads/release/0.10", cwd=world.root)
    tip = git("rev-parse", "refs/heads/release/0.10", cwd=world.origin).strip()
    code, out, err = run_cli("line", "new", "0.10", "--push", "--json")
    assert code == 0, err
    data = json.loads(out)
    assert (data["action"], data["branch_action"], data["commit"]) == ("pushed", "kept", tip)
    assert git("rev-parse", "refs/heads/release/0.10", cwd=world.origin).strip() == tip


def test_a_listed_line_is_said_and_left(world, run_cli):
    code, _, err = run_cli("line", "new", "0.10", "--push")
    assert code == 0, err
    git("fetch", "--quiet", "origin", "line/0.10", cwd=world.root)
    git("merge", "--quiet", "--ff-only", "FETCH_HEAD", cwd=world.root)
    git("push", "--quiet", "origin", "main", cwd=world.root)
    code, out, err = run_cli("line", "new", "0.10", "--push", "--json")
    assert code == 0, err
    assert json.loads(out)["action"] == "exists"


@pytest.mark.parametrize("argv, said", [
    (["0.12"], "has no branch rocm-jaxlib-v0.12.x"),
    (["0.9", "--plugin-branch", OLD_BRANCH], "is 0.10.0; expected a 0.9.N version"),
    (["0.11", "--plugin-branch", PLUGIN_BRANCH + " x"], "expected a branch name"),
    (["0.1O"], "expected the line as MAJOR.MINOR"),
    ([], "needs the line"),
    (["0.10", "--dry-run", "--push"], "cannot be combined"),
])
def test_a_line_new_that_cannot_be_is_one_line_and_writes_nothing(world, run_cli, argv, said):
    before = git("for-each-ref", cwd=world.root), git("for-each-ref", cwd=world.origin)
    code, out, err = run_cli("line", "new", *argv)
    assert code == 2 and said in err and len(err.strip().splitlines()) == 1, err
    assert (git("for-each-ref", cwd=world.root), git("for-each-ref", cwd=world.origin)) == before


def test_list_prints_the_matrix_and_hands_it_to_the_workflow(world, run_cli, tmp_path, monkeypatch):
    out_file = tmp_path / "github_output"
    out_file.write_text("")
    monkeypatch.setenv("GITHUB_OUTPUT", str(out_file))
    code, out, _ = run_cli("line", "list", "--json")
    assert code == 0 and json.loads(out)["lines"] == ["main"]
    (world.root / ".github").mkdir()
    (world.root / LINES_FILE).write_text('["main", "release/0.10"]\n')
    code, out, _ = run_cli("line", "list")
    assert code == 0 and out.split() == ["main", "release/0.10"]
    assert 'lines=["main", "release/0.10"]' in out_file.read_text()


@pytest.mark.parametrize("argv, said", [
    (["list", "--tag", "rocm-jax-v0.10.0"], "line list takes no --tag"),
    (["list", "--default", "main"], "line list takes no --default"),
    (["list", "--default", ""], "line list takes no --default"),
    (["list", "0.10", "--push"], "line list takes no X.Y, --push"),
    (["base", "--tag", "rocm-jax-v0.10.0", "--dry-run"], "line base takes no --dry-run"),
    (["base", "--tag", "rocm-jax-v0.10.0", "--plugin-branch", "b"], "line base takes no --plugin-branch"),
    (["new", "0.10", "--tag", "rocm-jax-v0.10.0"], "line new takes no --tag"),
    (["new", "0.10", "--default", "main"], "line new takes no --default"),
])
def test_a_flag_the_action_does_not_use_is_refused_not_ignored(world, run_cli, argv, said):
    """A flag of another action is a person's mistake: one line naming it, exit 2, nothing written."""
    before = git("for-each-ref", cwd=world.root), git("for-each-ref", cwd=world.origin)
    code, out, err = run_cli("line", *argv)
    assert code == 2 and said in err and len(err.strip().splitlines()) == 1 and out == "", (code, out, err)
    assert (git("for-each-ref", cwd=world.root), git("for-each-ref", cwd=world.origin)) == before


def test_the_lines_version_is_counted_from_what_is_published(world, run_cli, monkeypatch, make_dist, local_index):
    """jax 0.10.0 is released and re-spun once on the public index: the line starts at 0.10.0.post2."""
    index = local_index([w for v in ("0.10.0", "0.10.0.post1", "0.11.0rc1")
                         for w in sorted(make_dist(v).glob("*.whl"))])
    monkeypatch.setenv("RELEASE_PUBLIC_INDEX", index.url)
    code, out, err = run_cli("line", "new", "0.10", "--push", "--json")
    assert code == 0, err
    assert json.loads(out)["version"] == "0.10.0.post2"
    assert files_at(world.origin, "refs/heads/release/0.10")[1]["version"] == "0.10.0.post2"


def test_status_shows_every_maintained_line_at_a_glance(world, run_cli, tmp_path):
    """Once the line is listed, status has a row per line read from each branch's own files (the
    0.10 line's version and plugin pin come from release/0.10, not this checkout); offline only
    this checkout's line is read and the other says so."""
    code, _, err = run_cli("line", "new", "0.10", "--push")
    assert code == 0, err
    git("fetch", "--quiet", "origin", "line/0.10", cwd=world.root)
    git("merge", "--quiet", "--ff-only", "FETCH_HEAD", cwd=world.root)
    code, out, err = run_cli("status", "--json", "--store", "local", "--store-dir", tmp_path / "store")
    assert code == 0, err
    rows = {r["branch"]: r for r in json.loads(out)["lines"]}
    assert list(rows) == ["main", "release/0.10"]
    assert (rows["main"]["version"], rows["release/0.10"]["version"]) == ("0.11.0", "0.10.0")
    assert rows["release/0.10"]["plugin"] == {"branch": OLD_BRANCH, "commit": world.jt.c["JOLD"]}
    assert rows["release/0.10"]["next_nightly"].startswith("0.10.0.dev")
    code, out, err = run_cli("status", "--offline")
    assert code == 0, err
    assert "maintained lines" in out and "release/0.10: not read (--offline)" in out
