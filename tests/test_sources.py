"""``release fetch-sources``: pinned work trees from cached mirrors, least transfer, verified HEADs."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from release.core.config import load_deps
from release.core.errors import UserError
from release.sources import checkout
from tests.support.gitrepos import JAX_BZL


def blobs(path):
    out = subprocess.run(["git", "cat-file", "--batch-all-objects", "--batch-check=%(objecttype)"],
                         cwd=path, capture_output=True, text=True, check=True).stdout
    return out.split().count("blob")


def tree_files(path, sha):
    return subprocess.run(["git", "ls-tree", "-r", "--name-only", sha], cwd=path, capture_output=True,
                          text=True, check=True).stdout.split()


@pytest.fixture
def pinned(bump_project, git_remotes, git_http, tmp_path, monkeypatch):
    c = git_remotes.c
    monkeypatch.setenv("JAX_ROCM_RELEASE_CACHE", str(tmp_path / "cache"))
    return bump_project(http=git_http, commits={"plugin": c["P2"], "jax": c["J4"], "xla": c["Y_TIP"]})


def test_fetch_check_out_verify_and_rerun_without_network(run_cli, pinned, git_remotes, git_http, tmp_path):
    c = git_remotes.c
    ws = tmp_path / "ws"
    code, out, err = run_cli("fetch-sources", "--json", "--workspace", ws, "--root", pinned)
    assert code == 0, err
    data = json.loads(out)
    assert data["workspace"] == str(ws)
    expect = {"plugin": c["P2"], "jax": c["J4"], "xla": c["Y_TIP"]}
    for name, sha in expect.items():
        entry = data["sources"][name]
        assert entry == {"path": str(ws / name), "commit": sha, "fetched": True}
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ws / name, capture_output=True,
                              text=True).stdout.strip()
        assert head == sha
    assert f'JAX_COMMIT = "{c["J4"]}"' in (ws / "plugin" / JAX_BZL).read_text()
    assert (ws / "xla" / "xla" / "gpu.cc").read_text() == "int g31;\n"
    assert (ws / "jax" / "jax" / "feature.py").exists()  # from the merged branch
    # Least transfer: each mirror holds exactly the blobs of its one checked-out tree.
    for name, sha in expect.items():
        mirror = checkout.mirror_dir(tmp_path / "cache", load_deps(pinned / "deps.yaml")[name].url)
        assert blobs(mirror) == len(tree_files(mirror, sha)), name
        assert len(subprocess.run(["git", "rev-list", "--all"], cwd=mirror, capture_output=True,
                                  text=True).stdout.split()) <= 2, name

    git_http.reset_counts()
    code, out, err = run_cli("fetch-sources", "--json", "--workspace", ws, "--root", pinned)
    assert code == 0, err
    assert all(not s["fetched"] for s in json.loads(out)["sources"].values())
    assert git_http.requests == 0


def test_moved_pin_fetches_only_that_dep(run_cli, pinned, git_remotes, git_http, tmp_path):
    c = git_remotes.c
    ws = tmp_path / "ws"
    assert run_cli("fetch-sources", "--workspace", ws, "--root", pinned)[0] == 0
    deps = pinned / "deps.yaml"
    deps.write_text(deps.read_text().replace(c["Y_TIP"], c["Y5"]))
    git_http.reset_counts()
    code, out, err = run_cli("fetch-sources", "--json", "--workspace", ws, "--root", pinned)
    assert code == 0, err
    fetched = {n: s["fetched"] for n, s in json.loads(out)["sources"].items()}
    assert fetched == {"plugin": False, "jax": False, "xla": True}
    assert (ws / "xla" / "xla" / "gpu.cc").read_text() == "int g5;\n"
    assert 0 < git_http.requests <= 6


def test_human_output_and_default_workspace(run_cli, pinned, git_remotes):
    code, out, err = run_cli("fetch-sources", "--root", pinned)
    assert code == 0, err
    assert (pinned / "workspace" / "xla" / ".git").is_file()
    assert "xla" in out and git_remotes.c["Y_TIP"][:12] in out and "fetched" in out


def test_refuses_a_foreign_directory(run_cli, pinned, tmp_path):
    ws = tmp_path / "ws"
    (ws / "jax").mkdir(parents=True)
    (ws / "jax" / "precious.txt").write_text("mine\n")
    code, out, err = run_cli("fetch-sources", "--workspace", ws, "--root", pinned)
    assert code == 2 and "is not a checkout made by fetch-sources" in err and err.count("\n") == 1
    assert (ws / "jax" / "precious.txt").read_text() == "mine\n"


def test_checkout_whose_cache_was_removed(run_cli, pinned, tmp_path):
    ws = tmp_path / "ws"
    assert run_cli("fetch-sources", "--workspace", ws, "--root", pinned)[0] == 0
    shutil.rmtree(tmp_path / "cache")
    code, out, err = run_cli("fetch-sources", "--workspace", ws, "--root", pinned)
    assert code == 2 and "whose repository is gone" in err and err.count("\n") == 1
    shutil.rmtree(ws / "plugin")
    shutil.rmtree(ws / "jax")
    shutil.rmtree(ws / "xla")
    assert run_cli("fetch-sources", "--workspace", ws, "--root", pinned)[0] == 0


def test_missing_pin_is_a_user_error(pinned, tmp_path):
    deps = load_deps(pinned / "deps.yaml").with_commits({"jax": "0" * 40})
    with pytest.raises(UserError, match="jax: pinned commit 0000000 not found on http://127.0.0.1"):
        checkout.fetch_sources(deps, tmp_path / "ws", tmp_path / "cache")


def test_paths_and_cache_dir(tmp_path, monkeypatch):
    assert checkout.workspace_paths(tmp_path) == {n: tmp_path / n for n in ("plugin", "jax", "xla")}
    monkeypatch.delenv("JAX_ROCM_RELEASE_CACHE", raising=False)
    assert checkout.cache_dir(tmp_path) == tmp_path / ".cache" / "git"
    monkeypatch.setenv("JAX_ROCM_RELEASE_CACHE", str(tmp_path / "c"))
    assert checkout.cache_dir(tmp_path) == tmp_path / "c"
