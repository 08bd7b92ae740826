"""Names checked against jaxlib: before a build each ROCm major's plugin name
(``jax_rocm<N>_plugin``) must be one the jaxlib at the jax pin knows, read from
``jaxlib/plugin_support.py`` as committed at the pin; a major it does not know is refused in one
line naming the jaxlib version that first knows it; a file that cannot be read is refused."""

from __future__ import annotations

import subprocess

import pytest
from hypothesis import given
from hypothesis import strategies as st

from release.core.errors import UserError
from release.sources.jaxlib_plugins import (
    PLUGIN_SUPPORT,
    check_majors,
    first_knowing,
    known_at,
    parse_plugin_support,
)
from tests.support.gitrepos import RepoBuilder, git

HEADER = "# Copyright 2025 The JAX Authors.\n\nimport functools\nimport re\n\n"


def support(rocm: list[str], *, finder: bool = False, annotated: bool = False) -> str:
    """A ``plugin_support.py`` shaped like jax's: 0.10/0.11.0 list names; 0.11.1 also finds
    any ``jax_rocm<N>_plugin`` installed (jax-ml/jax#39634)."""
    names = "{\n    \"cuda\": [\"jax_cuda13_plugin\", \"jax_cuda12_plugin\"],\n" \
            f"    \"rocm\": {rocm!r},\n    \"oneapi\": [\"jax_oneapi_plugin\"],\n}}\n"
    assign = "_PLUGIN_MODULE_NAMES: dict[str, list[str]] = " if annotated else "_PLUGIN_MODULE_NAMES = "
    text = HEADER + assign + names
    if finder:
        text += '\n_ROCM_PLUGIN_MODULE_RE = re.compile(r"jax_rocm(\\d+)_plugin")\n'
    return text + "\n\ndef import_from_plugin(plugin_name, submodule_name):\n  return None\n"


def version_py(v: str) -> str:
    return f'import os\n\n_version = "{v}"\n_minimum_jaxlib_version = "0.9.0"\n'


@pytest.fixture(scope="module")
def jax_checkout(tmp_path_factory):
    """jax's history as it went: 0.10.2 and 0.11.0 know rocm7 (and rocm60); main at 0.11.1
    knows rocm10 and finds later majors. The checkout is a clone at the 0.10.2 release."""
    root = tmp_path_factory.mktemp("jaxlib")
    jax = RepoBuilder(root / "jax.git")
    old = ["jax_rocm7_plugin", "jax_rocm60_plugin"]
    t0102 = jax.commit("main", "jax 0.10.2", {PLUGIN_SUPPORT: support(old), "jax/version.py": version_py("0.10.2")})
    jax.set_ref("refs/tags/jax-v0.10.2", t0102)
    t0110 = jax.commit("main", "jax 0.11.0", {"jax/version.py": version_py("0.11.0")})
    jax.set_ref("refs/tags/jax-v0.11.0", t0110)
    head = jax.commit("main", "[ROCm] Find ROCm plugin packages by major version",
                      {PLUGIN_SUPPORT: support(["jax_rocm10_plugin", *old], finder=True),
                       "jax/version.py": version_py("0.11.1")})
    checkout = root / "jax"
    git("clone", "--quiet", jax.url, checkout)
    git("checkout", "--quiet", "--detach", t0102, cwd=checkout)
    return checkout, {"0.10.2": t0102, "0.11.0": t0110, "main": head}


def test_a_major_the_pinned_jaxlib_knows_passes(jax_checkout):
    checkout, pins = jax_checkout
    known = check_majors(checkout, pins["0.10.2"], [7])
    assert known.jaxlib == "0.10.2" and known.names == ("jax_rocm7_plugin", "jax_rocm60_plugin")
    assert check_majors(checkout, pins["main"], [10, 7]).jaxlib == "0.11.1"


@pytest.mark.parametrize("pin", ["0.10.2", "0.11.0"])
def test_a_rocm10_cell_on_a_jaxlib_before_it_names_the_jaxlib_that_knows_it(jax_checkout, pin):
    checkout, pins = jax_checkout
    with pytest.raises(UserError) as caught:
        check_majors(checkout, pins[pin], [7, 10], line=pin[:4])
    said = str(caught.value)
    assert said.startswith(f"line {pin[:4]}: rocm10 cell: jaxlib {pin} (jax {pins[pin][:12]}) does not know "
                           "jax_rocm10_plugin")
    assert said.endswith("jaxlib 0.11.1 (origin/main) is the first that knows it") and "\n" not in said


def test_a_later_major_is_known_by_the_finder_not_only_by_the_list(jax_checkout):
    checkout, pins = jax_checkout
    assert check_majors(checkout, pins["main"], [11, 10, 7]).knows("jax_rocm12_plugin")
    with pytest.raises(UserError, match="jaxlib 0.11.1 \\(origin/main\\) is the first that knows it"):
        check_majors(checkout, pins["0.11.0"], [11])


def test_the_file_is_read_as_committed_at_the_pin_not_as_the_work_tree_holds_it(jax_checkout):
    checkout, pins = jax_checkout
    (checkout / PLUGIN_SUPPORT).write_text(support(["jax_rocm10_plugin"]))
    try:
        with pytest.raises(UserError, match="does not know jax_rocm10_plugin"):
            check_majors(checkout, pins["0.10.2"], [10])
    finally:
        git("checkout", "--quiet", "--", PLUGIN_SUPPORT, cwd=checkout)


def test_the_oldest_knowing_jaxlib_is_named_among_tags_and_branches(jax_checkout, tmp_path):
    checkout, pins = jax_checkout
    clone = tmp_path / "jax"
    git("clone", "--quiet", checkout, clone)
    # a later release tag and a branch that also know it: 0.11.1's tag is the oldest that does
    git("tag", "jax-v0.11.1", pins["main"], cwd=clone)
    git("branch", "release/0.12", pins["main"], cwd=clone)
    assert first_knowing(clone, "jax_rocm10_plugin") == ("0.11.1", "jax-v0.11.1")
    assert first_knowing(clone, "jax_rocm7_plugin")[0] == "0.10.2"
    assert first_knowing(clone, "jax_cuda12_plugin") is None


def test_no_jaxlib_knowing_it_is_said_too(tmp_path):
    jax = RepoBuilder(tmp_path / "jax.git")
    sha = jax.commit("main", "jax 0.10.2", {PLUGIN_SUPPORT: support(["jax_rocm7_plugin", "jax_rocm60_plugin"]),
                                            "jax/version.py": version_py("0.10.2")})
    assert check_majors(jax.path, sha, [60, 7]).jaxlib == "0.10.2"
    with pytest.raises(UserError, match="rocm10 cell.*; no jaxlib in the checkout's tags and branches knows it yet$"):
        check_majors(jax.path, sha, [7, 10])


def test_a_pin_without_the_file_is_a_clear_refusal(tmp_path):
    jax = RepoBuilder(tmp_path / "jax.git")
    sha = jax.commit("main", "an old jax", {"jax/version.py": version_py("0.4.30")})
    with pytest.raises(UserError, match=f"no {PLUGIN_SUPPORT} at {sha[:12]}; cannot tell which ROCm plugin names"):
        known_at(jax.path, sha)
    with pytest.raises(UserError, match="cannot read jax's tree with git"):
        known_at(tmp_path / "nowhere", sha)
    # a pin with no jax/version.py is no jax tree (release.sources.line): nothing to check
    bare = jax.commit("main", "no jax here", {"README.md": "x\n"}, parents=())
    assert known_at(jax.path, bare) is None and check_majors(jax.path, bare, [10]) is None


@pytest.mark.parametrize("text,why", [
    (HEADER + "x = 1\n", "no module-level _PLUGIN_MODULE_NAMES"),
    (HEADER + "_PLUGIN_MODULE_NAMES = dict(rocm=['jax_rocm7_plugin'])\n", "not a dict literal"),
    (HEADER + "_PLUGIN_MODULE_NAMES = {'rocm': NAMES}\n", "not a dict literal"),
    (HEADER + "_PLUGIN_MODULE_NAMES = {'cuda': []}\n", "not a dict literal"),
    (HEADER + "_PLUGIN_MODULE_NAMES = {'rocm': [f'jax_rocm{7}_plugin']}\n", "not a dict literal"),
    ("def broken(:\n", "cannot parse the file"),
])
def test_a_list_that_cannot_be_read_is_refused_in_one_line(text, why):
    with pytest.raises(UserError, match=why) as caught:
        parse_plugin_support(text, "here")
    assert "\n" not in str(caught.value)


@given(st.lists(st.sampled_from([f"jax_rocm{n}_plugin" for n in (6, 60, 7, 8, 10, 11)]), unique=True, max_size=5),
       st.booleans(), st.booleans(), st.integers(1, 20))
def test_a_name_is_known_when_listed_or_found_by_the_rocm_pattern(listed, finder, annotated, major):
    names, patterns = parse_plugin_support(support(listed, finder=finder, annotated=annotated), "here")
    from release.sources.jaxlib_plugins import KnownNames
    known = KnownNames("0.11.1", names, patterns)
    assert names == tuple(listed)
    assert known.knows(f"jax_rocm{major}_plugin") == (finder or f"jax_rocm{major}_plugin" in listed)
    assert not known.knows("jax_cuda12_plugin")


def test_the_checkout_git_is_the_only_reader(jax_checkout, monkeypatch):
    """Nothing is executed from jax's tree: a plugin_support.py that would write a file when run
    is only parsed."""
    checkout, pins = jax_checkout
    text = support(["jax_rocm7_plugin"]) + "\nopen('/dev/null/x', 'w')\n"
    names, _ = parse_plugin_support(text, "here")
    assert names == ("jax_rocm7_plugin",)
    assert subprocess.run(["git", "-C", str(checkout), "status", "--porcelain"], capture_output=True,
                          text=True).stdout == ""


def test_a_build_whose_major_the_pinned_jaxlib_does_not_know_is_refused_before_bazel_runs(
        run_cli, project_dir, fake_bazel, plugin_workspace, tmp_path):
    """The workspace's jax at its pin lists only an older major: nothing is built, nothing written."""
    from release.core.config import load_deps, save_deps
    jax = plugin_workspace / "jax"
    (jax / PLUGIN_SUPPORT).write_text(support(["jax_rocm60_plugin"]))
    git("-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "--quiet", "-am", "rocm60 only", cwd=jax)
    head = git("rev-parse", "HEAD", cwd=jax).strip()
    save_deps(load_deps(project_dir / "deps.yaml").with_commits({"jax": head}))
    dist = tmp_path / "dist"
    code, out, err = run_cli("build", "--kind", "nightly", "--date", "2026-11-22", "--root", project_dir,
                             "--dist", dist, "--python", "3.12", "--workspace", plugin_workspace)
    assert code == 2 and fake_bazel.calls() == [] and not dist.exists()
    assert f"line 0.9: rocm7 cell: jaxlib 0.9.1 (jax {head[:12]}) does not know jax_rocm7_plugin" in err
    assert err.count("\n") == 1


# ---------------------------------------------------------------- the rules under the reading


def raw_repo(path, files: dict[str, bytes], extra_refs: dict[str, dict[str, bytes]] | None = None):
    """A work-tree repository whose main commit holds ``files`` byte for byte (and a branch per
    ``extra_refs`` entry, a root commit of its own files); returns the path and main's sha."""
    git("init", "--quiet", "-b", "main", path)

    def commit(files):
        for name, data in files.items():
            (path / name).parent.mkdir(parents=True, exist_ok=True)
            (path / name).write_bytes(data)
        git("add", "-A", cwd=path)
        git("-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "--quiet", "-m", "x", cwd=path)
        return git("rev-parse", "HEAD", cwd=path).strip()
    main = commit(files)
    for branch, branch_files in (extra_refs or {}).items():
        git("checkout", "--quiet", "--orphan", branch, cwd=path)
        git("rm", "-r", "--quiet", "-f", "--ignore-unmatch", ".", cwd=path)
        commit(branch_files)
    git("checkout", "--quiet", "main", cwd=path)
    return path, main


def test_each_file_is_read_byte_for_byte_in_one_batch_and_a_directory_or_missing_path_is_none(tmp_path):
    """Texts come back exactly as committed (newlines inside, none added or lost), in the order
    asked, with a missing path or a directory between them read as no file; bytes that are not
    UTF-8 (a latin-1 comment) do not stop the reading."""
    from release.sources.jaxlib_plugins import _show
    first = b"line one\nline two\n\n"
    second = b"# caf\xe9 in latin-1\nx = 1"
    path, sha = raw_repo(tmp_path / "r", {"a.txt": first, "dir/b.py": second})
    revs = [f"{sha}:a.txt", f"{sha}:nothing", f"{sha}:dir", f"{sha}:dir/b.py", f"{sha}:a.txt"]
    assert _show(path, revs) == [first.decode(), None, None, second.decode("utf-8", "replace"), first.decode()]
    assert _show(path, []) == []


def test_a_plugin_list_with_bytes_that_are_not_utf8_is_still_read(tmp_path):
    text = support(["jax_rocm7_plugin"]).encode().replace(b"Copyright", b"Copyright \xa9")
    path, sha = raw_repo(tmp_path / "r", {PLUGIN_SUPPORT: text, "jax/version.py": version_py("0.10.2").encode()})
    assert known_at(path, sha).names == ("jax_rocm7_plugin",)


def test_every_git_call_has_a_deadline(jax_checkout, monkeypatch):
    """Each git the check runs is given a finite timeout (a hung git never hangs a build)."""
    import release.sources.jaxlib_plugins as module
    real, seen = subprocess.run, []

    def run(*args, **kwargs):
        seen.append(kwargs.get("timeout"))
        return real(*args, **kwargs)
    monkeypatch.setattr(module.subprocess, "run", run)
    checkout, pins = jax_checkout
    with pytest.raises(UserError):
        check_majors(checkout, pins["0.10.2"], [10])
    assert len(seen) >= 3 and all(isinstance(t, (int, float)) and 0 < t <= 600 for t in seen)


def test_a_checkout_git_cannot_read_says_what_failed_and_what_to_do(tmp_path):
    with pytest.raises(UserError) as caught:
        known_at(tmp_path / "nowhere", "0" * 40)
    said = str(caught.value)
    assert said == (f"{tmp_path / 'nowhere'}: cannot read jax's tree with git (CalledProcessError); "
                    "fetch the sources first (release fetch-sources)")


def test_origin_head_is_an_alias_never_named_as_the_knowing_ref(jax_checkout, tmp_path):
    checkout, pins = jax_checkout
    clone = tmp_path / "jax"
    git("clone", "--quiet", checkout, clone)
    git("update-ref", "refs/remotes/origin/main", pins["main"], cwd=clone)
    git("symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/main", cwd=clone)
    assert first_knowing(clone, "jax_rocm10_plugin") == ("0.11.1", "origin/main")


def test_refs_without_the_files_or_with_unreadable_ones_are_passed_over(tmp_path):
    """Branches sorting first that hold no jax tree, only one of the two files, or a plugin list
    that cannot be read do not stop the search for the jaxlib that knows the name."""
    knows = {PLUGIN_SUPPORT: support(["jax_rocm10_plugin"]).encode(), "jax/version.py": version_py("0.11.1").encode()}
    path, _ = raw_repo(tmp_path / "r", knows, {
        "aa-docs": {"README.md": b"docs\n"},
        "ab-half": {PLUGIN_SUPPORT: support(["jax_rocm10_plugin"]).encode()},
        "ac-broken": {PLUGIN_SUPPORT: b"def broken(:\n", "jax/version.py": version_py("0.9.0").encode()},
        "ad-badversion": {PLUGIN_SUPPORT: support(["jax_rocm10_plugin"]).encode(), "jax/version.py": b"x = 1\n"},
    })
    assert first_knowing(path, "jax_rocm10_plugin") == ("0.11.1", "main")


def test_an_unreadable_file_at_the_pin_is_named_with_where_it_was_read(tmp_path):
    jax = RepoBuilder(tmp_path / "jax.git")
    sha = jax.commit("main", "broken", {PLUGIN_SUPPORT: "def broken(:\n", "jax/version.py": version_py("0.10.2")})
    with pytest.raises(UserError, match=f"^{PLUGIN_SUPPORT} at {sha[:12]}: cannot parse the file"):
        known_at(jax.path, sha)
    sha = jax.commit("main", "no version", {PLUGIN_SUPPORT: support(["jax_rocm7_plugin"]), "jax/version.py": "x = 1\n"})
    with pytest.raises(UserError, match=f"^jax/version.py at {sha[:12]}: expected one _version"):
        known_at(jax.path, sha)


@pytest.mark.parametrize("text", [
    HEADER + "_PLUGIN_MODULE_NAMES = {'cuda': []}\n",
    HEADER + "_PLUGIN_MODULE_NAMES = {'rocm': NAMES}\n",
    HEADER + "x = 1\n",
])
def test_an_unreadable_list_names_where_and_says_what_cannot_be_told(text):
    with pytest.raises(UserError) as caught:
        parse_plugin_support(text, "jaxlib/plugin_support.py at abc")
    said = str(caught.value)
    assert said.startswith("jaxlib/plugin_support.py at abc: ")
    assert said.endswith("cannot tell which ROCm plugin names this jaxlib knows")


def test_only_rocm_patterns_given_as_text_find_plugins():
    """A compiled pattern for another platform, or one whose text is a name or bytes, finds no
    ROCm plugin (and does not stop the reading)."""
    text = support(["jax_rocm7_plugin"]) + (
        '\n_CUDA_RE = re.compile(r"jax_cuda(\\d+)_plugin")\n_FROM_NAME = re.compile(_CUDA_RE)\n'
        '_BYTES = re.compile(rb"jax_rocm(\\d+)_plugin")\n')
    names, patterns = parse_plugin_support(text, "here")
    assert names == ("jax_rocm7_plugin",) and patterns == ()


def test_the_refusal_names_what_the_jaxlib_lists_and_no_line_when_none_is_given(tmp_path):
    jax = RepoBuilder(tmp_path / "jax.git")
    sha = jax.commit("main", "jax", {PLUGIN_SUPPORT: support(["jax_rocm7_plugin", "jax_rocm60_plugin"]),
                                     "jax/version.py": version_py("0.10.2")})
    with pytest.raises(UserError) as caught:
        check_majors(jax.path, sha, [10])
    assert str(caught.value).startswith(
        f"rocm10 cell: jaxlib 0.10.2 (jax {sha[:12]}) does not know jax_rocm10_plugin "
        "(jaxlib/plugin_support.py lists jax_rocm7_plugin, jax_rocm60_plugin), so the wheel")
    sha = jax.commit("main", "none", {PLUGIN_SUPPORT: support([])})
    with pytest.raises(UserError, match=r"\(jaxlib/plugin_support.py lists no ROCm names\)"):
        check_majors(jax.path, sha, [10])
