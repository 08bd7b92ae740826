"""The jax pin's line moves version_info.json in the same bump: real upstream repositories
in temp dirs where jax/version.py says another X.Y.Z on another release branch (a switch, a
move back, a move within the line), read from a commit-only mirror as bump keeps them."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from release.core.errors import UserError
from release.sources.line import parse_version_py
from tests.support.bumping import bump
from tests.support.gitrepos import JAX_BZL, XLA_BZL, RepoBuilder, git, workspace_bzl
from tests.support.project import write_version_info

DAY = dt.date(2026, 11, 25)  # the bump branch's

V91, V100 = "rocm-jaxlib-v0.9.1", "rocm-jaxlib-v0.10.0"
# Upstream files no parser should be trusted with: deep expressions (RecursionError), a
# 5,000-digit line (past Python's int() limit), a string doubled 40 times (1 TB), a pad to 1 GB.
HOSTILE_VERSION_PY = {
    "deep-expression": "_version = " + "-" * 200_000 + "1\n",
    "deep-sum": "_version = " + "+".join(["'0'"] * 100_000) + "\n",
    "long-digits": f'_version = "0.{"9" * 5000}.1"\n',
    "look-alike-digits": '_version = "0.\u0669.1"\n',
}
HOSTILE_BZL = {
    "doubling": 'A = "0123456789abcdef0123456789abcdef01234567"\n'
                + "".join(f"A{i + 1} = A{i or ''} + A{i or ''}\n" for i in range(40))
                + 'git_repository(name = "jax", commit = A40, remote = "x")\n',
    "padding": 'C = "{c:>999999999}".format(c = "x")\ngit_repository(name = "jax", commit = C, remote = "x")\n',
    "deep-sum-bzl": 'git_repository(name = "jax", remote = "x", commit = ' + " + ".join(['"a"'] * 2500) + ")\n",
    "deep-bzl": "X = " + "(" * 150 + '"a"' + ")" * 150 + " + " + " + ".join(['"b"'] * 60_000) + "\n",
}


def version_py(line: str) -> str:
    return (f'from __future__ import annotations\n\nimport os\n\n_version = "{line}"\n'
            "_release_version: str | None = None\n_git_hash: str | None = None\n")


@pytest.fixture(scope="module")
def upstreams(tmp_path_factory):
    """jax on two release branches (0.9.1, 0.10.0 forked from it); plugin branches whose tips
    pin jax within the line, across the switch, back, and at a commit without a readable line."""
    root = tmp_path_factory.mktemp("line-remotes")
    jax = RepoBuilder(root / "jax.git")
    c = {"J91a": jax.commit(V91, "jax 0.9.1", {"jax/version.py": version_py("0.9.1")})}
    c["J91b"] = jax.commit(V91, "fix on 0.9.1", {"jax/fix.py": "x = 1\n"})
    c["J100a"] = jax.commit(V100, "Prepare for JAX release 0.10.0",
                            {"jax/version.py": version_py("0.10.0")}, parents=(c["J91a"],))
    c["J100b"] = jax.commit(V100, "work on 0.10.0", {"jax/w.py": "w = 1\n"})
    c["JBAD"] = jax.commit(V100, "break version.py", {"jax/version.py": "_version = VERSION\n"})
    for name, text in HOSTILE_VERSION_PY.items():
        c[name] = jax.commit(V100, name, {"jax/version.py": text}, parents=(c["J100b"],))
    xla = RepoBuilder(root / "xla.git")
    c["X"] = xla.commit(V91, "xla", {"xla/BUILD": "# xla\n"})
    xla.set_ref(f"refs/heads/{V100}", c["X"])
    plugin = RepoBuilder(root / "plugin.git")

    def pins(jax_sha: str) -> dict[str, str]:
        return {JAX_BZL: workspace_bzl("JAX_COMMIT", jax_sha), XLA_BZL: workspace_bzl("XLA_COMMIT", c["X"])}
    c["P0"] = plugin.commit("master", "plugin on 0.9.1", pins(c["J91a"]))
    for branch, jax_sha in (("within", "J91b"), ("switch", "J100b"), ("broken", "JBAD"),
                            *((name, name) for name in HOSTILE_VERSION_PY)):
        c[branch] = plugin.commit(branch, f"pin jax {jax_sha}", pins(c[jax_sha]), parents=(c["P0"],))
    for name, text in HOSTILE_BZL.items():
        c[name] = plugin.commit(name, name, {JAX_BZL: text, XLA_BZL: workspace_bzl("XLA_COMMIT", c["X"])},
                                parents=(c["P0"],))
    c["back"] = plugin.commit("back", "back to 0.9.1", pins(c["J91b"]), parents=(c["switch"],))
    return root, c


def project(tmp_path: Path, upstreams, *, branch: str, plugin: str = "P0", jax: str = "J91a",
            line: str | None = "0.9.1", version: str = "0.9.1.post3") -> Path:
    root_remotes, c = upstreams
    root = tmp_path / "proj"
    root.mkdir(parents=True, exist_ok=True)
    write_version_info(root, version)
    url = {n: (root_remotes / f"{n}.git").as_uri() for n in ("plugin", "jax", "xla")}
    recorded = f'    line: "{line}"\n' if line else ""
    (root / "deps.yaml").write_text(
        "deps:\n"
        f"  plugin:\n    url: {url['plugin']}\n    branch: {branch}\n    commit: {c[plugin]}\n    roll: head\n"
        f"  jax:\n    url: {url['jax']}\n    branch: {V91}\n    commit: {c[jax]}\n{recorded}"
        f"    roll: {{via: plugin, file: {JAX_BZL}}}\n"
        f"  xla:\n    url: {url['xla']}\n    branch: {V91}\n    commit: {c['X']}\n"
        f"    roll: {{via: plugin, file: {XLA_BZL}}}\n")
    return root


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("JAX_ROCM_RELEASE_CACHE", str(tmp_path / "cache"))
    return tmp_path / "cache"


def state(root: Path) -> tuple[str, str | None]:
    from release.core.config import load_project
    proj = load_project(root)
    return proj.version_info.version, proj.jax_line


def committed(root: Path, ref: str, name: str) -> str:
    return git("show", f"{ref}:{name}", cwd=root)


def checkout(root: Path) -> Path:
    git("init", "--quiet", "-b", "main", cwd=root)
    git("add", "deps.yaml", "version_info.json", cwd=root)
    git("-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "--quiet", "-m", "pins", cwd=root)
    return root


def test_a_switch_of_the_jax_line_moves_the_version_in_the_same_commit(tmp_path, upstreams, cache):
    root = checkout(project(tmp_path, upstreams, branch="switch"))
    head = git("rev-parse", "HEAD", cwd=root).strip()
    first = bump(root, commit=True, date=DAY)
    data = first.to_json()
    assert data["version"] == {"old": "0.9.1.post3", "new": "0.10.0", "line": "0.10.0",
                               "commit": upstreams[1]["J100b"], "back": False}
    assert data["deps"]["jax"]["line"] == "0.10.0" and data["title"].endswith("; version 0.10.0")
    assert any(n.startswith("version: 0.9.1.post3 -> 0.10.0 (jax's line") for n in data["notes"])
    sha = data["commit"]
    # one commit, on top of HEAD, changing exactly the two files, both moved
    assert git("rev-parse", f"{sha}^", cwd=root).strip() == head
    changed = git("diff", "--name-only", head, sha, cwd=root).split()
    assert sorted(changed) == ["deps.yaml", "version_info.json"]
    assert json.loads(committed(root, sha, "version_info.json"))["version"] == "0.10.0"
    assert 'line: "0.10.0"' in committed(root, sha, "deps.yaml")
    assert state(root) == ("0.9.1.post3", "0.9.1")  # --commit leaves the work tree as a person left it
    # a re-run is the same commit (idempotent)
    assert bump(root, commit=True, date=DAY).delivered["commit"] == sha


def test_a_move_back_to_the_old_line_moves_the_version_back(tmp_path, upstreams, cache):
    root = project(tmp_path, upstreams, branch="back", plugin="switch", jax="J100b", line="0.10.0",
                   version="0.10.0")
    assert bump(root).version["new"] == "0.9.1"
    assert state(root) == ("0.9.1", "0.9.1")


def test_a_move_within_the_line_keeps_the_version(tmp_path, upstreams, cache):
    root = project(tmp_path, upstreams, branch="within")
    rolled = bump(root)
    assert rolled.version is None and rolled.facts["deps"]["jax"]["line"] == "0.9.1"
    assert "version" not in rolled.title
    assert state(root) == ("0.9.1.post3", "0.9.1")


def test_a_recorded_line_the_version_disagrees_with_is_moved_with_no_pin_move(tmp_path, upstreams, cache):
    root = checkout(project(tmp_path, upstreams, branch="master", version="0.10.0"))
    assert bump(root, dry_run=True).changed is True and state(root) == ("0.10.0", "0.9.1")  # dry: untouched
    data = bump(root, commit=True, date=DAY).to_json()
    # the version goes down a line (0.10.0 -> 0.9.1): the title says "back"
    assert data["deps"] == {} and data["title"] == "Move the version back to 0.9.1 (the jax pin's line)"
    changed = git("diff", "--name-only", "HEAD", data["commit"], cwd=root).split()
    assert changed == ["version_info.json"]
    assert json.loads(committed(root, data["commit"], "version_info.json"))["version"] == "0.9.1"
    assert state(root) == ("0.10.0", "0.9.1")  # --commit leaves the work tree as a person left it


def test_an_unreadable_line_is_refused_and_nothing_is_written(tmp_path, upstreams, cache):
    root = project(tmp_path, upstreams, branch="broken")
    before = {n: (root / n).read_text() for n in ("deps.yaml", "version_info.json")}
    with pytest.raises(UserError) as refused:
        bump(root)
    err = str(refused.value)
    assert "\n" not in err and "jax/version.py at" in err and "expected one _version" in err
    assert {n: (root / n).read_text() for n in before} == before


@pytest.mark.parametrize("branch", [*HOSTILE_VERSION_PY, *HOSTILE_BZL])
def test_a_hostile_upstream_file_is_one_line_exit_2_and_nothing_is_written(tmp_path, upstreams, cache, branch):
    """A user's error (the CLI's exit 2), never a crash."""
    root = project(tmp_path, upstreams, branch=branch)
    before = {n: (root / n).read_text() for n in ("deps.yaml", "version_info.json")}
    with pytest.raises(UserError) as refused:
        bump(root)
    err = str(refused.value)
    assert "\n" not in err.strip(), err[-2000:]
    assert ("jax/version.py at" if branch in HOSTILE_VERSION_PY else "workspace.bzl") in err, err
    assert {n: (root / n).read_text() for n in before} == before


def test_the_line_is_read_from_a_mirror_that_holds_only_history(tmp_path, upstreams, cache):
    """A first bump fetches history only (tree:0); reading version.py fetches what it needs."""
    root = project(tmp_path, upstreams, branch="within")
    assert bump(root).changed
    # the next run starts from the warm mirror, a move across the switch
    root2 = project(tmp_path / "b", upstreams, branch="switch")
    assert bump(root2).version["new"] == "0.10.0"


# ---------------------------------------------------------------- version.py, generated


lines = st.tuples(*[st.integers(0, 300)] * 3).map(lambda t: "%d.%d.%d" % t)


@settings(derandomize=True, max_examples=100, deadline=None)
@given(lines, st.booleans(), st.lists(st.sampled_from(["import os", "x = 1", "_versions = '9.9.9'",
                                                       "def f():\n  _version = '1.2.3'"]), max_size=4))
def test_version_py_gives_its_one_module_level_version(line, annotated, noise):
    assign = f'_version: str = "{line}"' if annotated else f'_version = "{line}"'
    text = "\n".join([*noise, assign, *reversed(noise)]) + "\n"
    assert parse_version_py(text, "jax/version.py") == line


@pytest.mark.parametrize("text", ['_version = "0.9"\n', '_version = VERSION\n', "x = 1\n",
                                  '_version = "0.9.1"\n_version = "0.9.2"\n', '_version = "0.9.1.dev1"\n',
                                  "_version = (\n"])
def test_version_py_without_one_plain_line_is_refused(text):
    with pytest.raises(UserError, match="^jax/version.py: "):
        parse_version_py(text, "jax/version.py")
