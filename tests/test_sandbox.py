"""The sandbox's rules at unit level (``release.jobs.sandbox``): its upstreams, its project, its
stand-in shared objects, the environment and printed lines of each step, and the order of the
walk. Real git repositories and a real C compiler; the tool's own steps are stood in for here
(tests/test_try.py walks the real flow once)."""

from __future__ import annotations

import json
import os
import shutil
import string
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from release.core.elffacts import file_reader, read_facts
from release.core.errors import UserError
from release.core.rolls import RollHead, RollVia
from release.jobs import sandbox
from release.jobs.sandbox import Sandbox, Upstream
from release.sources.line import parse_version_py
from release.sources.pins import read_pin

REPO = Path(__file__).resolve().parents[1]


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout.strip()


def box(tmp_path: Path, project: Path | None = None) -> Sandbox:
    project = project or tmp_path / "project"
    project.mkdir(exist_ok=True)
    return Sandbox(tmp_path, project, tmp_path / "store", tmp_path / "site", tmp_path / "art", "3.12")


# ------------------------------------------------------------------ git and the upstreams


def test_a_failed_git_is_one_line_naming_the_command_the_directory_and_gits_reason(tmp_path):
    with pytest.raises(UserError) as failed:
        sandbox._git("rev-parse", "--verify", "no-such-ref", cwd=tmp_path)
    message = str(failed.value)
    assert message.startswith(f"git rev-parse --verify in {tmp_path}: ") and "\n" not in message.strip()
    assert "not a git repository" in message and len(message) < 300 + len(str(tmp_path)) + 40


def test_gits_reason_is_cut_at_300_characters(tmp_path):
    sandbox._git("init", "--quiet", "-b", "main", cwd=tmp_path)
    long = "no-such-path-" + "x" * 400           # git names the path it did not find: its reason is long
    with pytest.raises(UserError) as failed:
        sandbox._git("add", long, cwd=tmp_path)
    head = f"git add {long} in {tmp_path}: "
    assert str(failed.value).startswith(head) and len(str(failed.value)) == len(head) + 300


def test_an_upstream_commit_reaches_its_bare_repository_one_hour_after_the_last(tmp_path):
    up = Upstream(tmp_path, "jax", "rocm-jaxlib-v0.9.1")
    assert up.url == (tmp_path / "jax.git").as_uri()
    first = up.commit("one", {"a/b.txt": "1\n"})
    second = up.commit("two", {"a/b.txt": "2\n", "c.txt": "3\n"})
    assert first != second and len(second) == 40
    bare = tmp_path / "jax.git"
    assert git(bare, "rev-parse", "refs/heads/rocm-jaxlib-v0.9.1") == second
    assert git(bare, "show", f"{second}:a/b.txt") == "2" and git(bare, "show", f"{first}:a/b.txt") == "1"
    assert git(bare, "log", "--format=%s", second) == "two\none"
    author = git(bare, "log", "--format=%at %ct %an %ae", second).splitlines()
    assert author == [f"{1_760_000_000 + 7200} {1_760_000_000 + 7200} Sandbox sandbox@example.invalid",
                      f"{1_760_000_000 + 3600} {1_760_000_000 + 3600} Sandbox sandbox@example.invalid"]


@pytest.fixture
def upstreams(tmp_path_factory) -> dict[str, Upstream]:
    """Made for each test that reads them (not once a module): scripts/mutation runs a function's
    mutants against the tests that called it, and a module fixture is seen calling it in its first test only."""
    return sandbox.make_upstreams(tmp_path_factory.mktemp("world") / "upstream")


def test_the_plugins_newer_commit_moves_both_pins_so_a_bump_has_work(upstreams):
    """What the tool reads from the upstreams, read by the tool's own readers from their bare
    repositories (what deps.yaml's URLs name): each plugin commit pins a jax and an xla commit
    that exist, the newer one the newer ones; jax's version.py says the line at both."""
    ups = upstreams
    assert (ups["plugin"].branch, ups["jax"].branch, ups["xla"].branch) == ("master", sandbox.BRANCH, sandbox.BRANCH)
    plugin = ups["plugin"].bare
    heads = {name: git(up.bare, "rev-list", up.branch).split() for name, up in ups.items()}
    assert all(len(commits) == 2 for commits in heads.values())
    for at, index in ((heads["plugin"][1], 1), (heads["plugin"][0], 0)):       # rev-list: newest first
        for bzl, dep in ((sandbox.JAX_BZL, "jax"), (sandbox.XLA_BZL, "xla")):
            pin = read_pin(git(plugin, "show", f"{at}:{bzl}"), name=dep, where=bzl)
            assert pin.commit == heads[dep][index], (at, dep)
    for sha in heads["jax"]:
        assert parse_version_py(git(ups["jax"].bare, "show", f"{sha}:jax/version.py"), "jax") == sandbox.LINE


def test_the_upstreams_are_three_bare_repositories_named_as_their_deps_each_on_its_branch(tmp_path):
    """``upstream/`` shows plugin.git, jax.git and xla.git (the work trees that fill them are
    hidden), each bare, its HEAD its branch (what a clone checks out), made where no directory
    was yet (walk's --dir is new)."""
    root = tmp_path / "new" / "box" / "upstream"
    ups = sandbox.make_upstreams(root)
    assert sorted(p.name for p in root.iterdir() if not p.name.startswith(".")) == ["jax.git", "plugin.git", "xla.git"]
    for name, up in ups.items():
        assert up.bare == root / f"{name}.git" and up.url == (root / f"{name}.git").as_uri()
        assert git(up.bare, "rev-parse", "--is-bare-repository") == "true"
        assert git(up.bare, "symbolic-ref", "HEAD") == f"refs/heads/{up.branch}"
        assert git(up.bare, "for-each-ref", "--format=%(refname)") == f"refs/heads/{up.branch}"


# ------------------------------------------------------------------ the project


def test_the_project_pins_every_upstreams_first_commit_and_is_committed(tmp_path, upstreams):
    ups = upstreams
    project = sandbox.make_project(tmp_path / "new" / "project", REPO, ups)
    from release.core.config import load_project
    loaded = load_project(project)
    firsts = {name: git(up.work, "rev-list", "--max-parents=0", "HEAD") for name, up in ups.items()}
    assert {d.name: d.commit for d in loaded.deps} == firsts
    assert {d.name: (d.url, d.branch) for d in loaded.deps} == {n: (u.url, u.branch) for n, u in ups.items()}
    assert {d.name: d.line for d in loaded.deps} == {"plugin": None, "jax": sandbox.LINE, "xla": None}
    assert {d.name: d.roll for d in loaded.deps} == {      # bump follows the plugin; jax and xla as it pins them
        "plugin": RollHead(), "jax": RollVia("plugin", sandbox.JAX_BZL), "xla": RollVia("plugin", sandbox.XLA_BZL)}
    mine = json.loads((REPO / "version_info.json").read_text())
    theirs = (project / "version_info.json").read_text()   # the tool's own, its version the line, laid out alike
    assert theirs == json.dumps(mine | {"version": sandbox.LINE}, indent=2) + "\n"
    assert git(project, "log", "--format=%s") == "Sandbox project"    # the log `release try` points at
    assert (project / "jax_rocm_plugin").is_dir()
    assert (project / ".gitignore").read_text().split() == ["/dist/", "/.cache/", "/workspace/"]
    assert git(project, "status", "--porcelain") == "" and git(project, "rev-parse", "--abbrev-ref", "HEAD") == "main"


def test_every_sandbox_is_the_same_world_whenever_and_wherever_it_is_made(tmp_path, upstreams):
    """Fixed authors and times: a second sandbox's upstreams and project have the first's commits
    (what one newcomer sees, the next sees; nothing reads the wall clock or the caller's git identity)."""
    again = sandbox.make_upstreams(tmp_path / "upstream")
    assert {n: git(up.bare, "rev-list", up.branch) for n, up in again.items()} == {
        n: git(up.bare, "rev-list", up.branch) for n, up in upstreams.items()}
    one = sandbox.make_project(tmp_path / "one", REPO, again)
    other = sandbox.make_project(tmp_path / "other", REPO, again)
    log = "--format=%T %at %ct %an %ae %cn %ce"    # the tree, the times and the people of each commit
    assert git(one, "log", log) == git(other, "log", log) == (
        f"{git(one, 'rev-parse', 'HEAD^{tree}')} 1760000000 1760000000 Sandbox sandbox@example.invalid "
        "Sandbox sandbox@example.invalid")


# ------------------------------------------------------------------ the stand-in shared objects


def test_each_stand_in_is_a_shared_object_with_the_configured_runpath_and_no_source_left(tmp_path, monkeypatch):
    """Each of the files a ROCm build hands over, and nothing else, in the directory asked for;
    nothing written where the command runs."""
    runpath = ["$ORIGIN/../rocm/lib", "/opt/rocm/lib"]
    (tmp_path / "cwd").mkdir()
    monkeypatch.chdir(tmp_path / "cwd")
    made = sandbox.compile_stand_ins(tmp_path / "new" / "art", runpath)
    assert sorted(p.name for p in made.iterdir()) == sorted(sandbox.SHARED_OBJECTS)
    assert os.listdir(tmp_path / "cwd") == []
    for name in sandbox.SHARED_OBJECTS:
        with (made / name).open("rb") as handle:
            facts = read_facts(file_reader(handle), (made / name).stat().st_size)
        assert facts.runpath == tuple(runpath) and not facts.rpath, name


def test_without_a_c_compiler_the_sandbox_says_what_to_install(tmp_path, monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda _name: None)
    with pytest.raises(UserError) as failed:
        sandbox.compile_stand_ins(tmp_path / "art", ["/opt/rocm/lib"])
    assert str(failed.value) == ("release try: needs a C compiler (cc, gcc or clang) for the stand-in .so files; "
                                 "install gcc (apt-get install gcc)")
    assert not (tmp_path / "art").exists()


@pytest.mark.parametrize("present", [{"cc", "gcc", "clang"}, {"gcc", "clang"}, {"clang"}, {"clang", "cc"}])
def test_the_compiler_is_the_first_of_cc_gcc_and_clang_on_the_path(tmp_path, monkeypatch, present):
    used = []
    monkeypatch.setattr(shutil, "which", lambda name: f"/bin/{name}" if name in present else None)
    monkeypatch.setattr(subprocess, "run", lambda argv, **_: used.append(argv[0]) or subprocess.CompletedProcess(
        argv, 0, "", ""))
    sandbox.compile_stand_ins(tmp_path / "art", ["/opt/rocm/lib"])
    first = next(c for c in ("cc", "gcc", "clang") if c in present)
    assert used == [first] * len(sandbox.SHARED_OBJECTS)


def on_path(tmp_path: Path, monkeypatch, name: str, script: str) -> None:
    """``name`` on the PATH, first, as a shell script (a compiler or a git that fails or hangs)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    (bin_dir / name).write_text(f"#!/bin/sh\n{script}\n")
    (bin_dir / name).chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")


@pytest.mark.parametrize(("script", "why"), [
    ("printf 'cc: one\\ncc: two\\ncc: no such target\\n' >&2; exit 1", "(exit 1): cc: no such target"),
    ("exit 4", "(exit 4): no output")], ids=["its-last-word", "silent"])
def test_a_compiler_that_fails_stops_the_sandbox_in_one_line(tmp_path, monkeypatch, script, why):
    """No stand-in goes missing quietly: the first failed compile is the end of it, said in one line."""
    on_path(tmp_path, monkeypatch, "cc", script)
    with pytest.raises(UserError) as failed:
        sandbox.compile_stand_ins(tmp_path / "art", ["/opt/rocm/lib"])
    assert str(failed.value) == f"release try: cc could not compile {sandbox.SHARED_OBJECTS[0]} {why}"


def test_a_compiler_that_hangs_is_one_line_at_its_deadline(tmp_path, monkeypatch):
    on_path(tmp_path, monkeypatch, "cc", "sleep 2; exit 9")
    monkeypatch.setattr(sandbox, "COMPILE_DEADLINE", 0.2)
    with pytest.raises(UserError) as failed:
        sandbox.compile_stand_ins(tmp_path / "art", ["/opt/rocm/lib"])
    assert str(failed.value) == f"release try: cc did not compile {sandbox.SHARED_OBJECTS[0]} in 0.2 s"


def test_a_git_that_hangs_is_one_line_at_its_deadline(tmp_path, monkeypatch):
    on_path(tmp_path, monkeypatch, "git", "sleep 2; exit 9")
    monkeypatch.setattr(sandbox, "GIT_DEADLINE", 0.2)
    with pytest.raises(UserError) as failed:
        sandbox._git("rev-parse", "HEAD", "--", cwd=tmp_path)
    assert str(failed.value) == f"git rev-parse HEAD in {tmp_path}: no answer in 0.2 s"


def test_a_step_that_hangs_is_one_line_at_its_deadline_and_is_not_recorded(tmp_path, monkeypatch):
    sb = box(tmp_path)
    monkeypatch.setattr(sandbox, "STEP_DEADLINE", 0.2)
    with pytest.raises(UserError) as failed:
        sb.shell(["sleep", "3"], lambda _: None, now="2026-11-24T03:00:00Z")
    assert str(failed.value) == "release try: `RELEASE_NOW=2026-11-24T03:00:00Z sleep 3` ran past its 0.2 s"
    assert sb.steps == []


# ------------------------------------------------------------------ each step's environment and line

ENV_NAME = st.text(string.ascii_uppercase + "_", min_size=1, max_size=12)
ENVIRON = st.dictionaries(st.one_of(ENV_NAME, ENV_NAME.map("GITHUB_".__add__)), st.text(string.printable, max_size=20),
                          max_size=8)


@given(environ=ENVIRON, now=st.one_of(st.none(), st.just("2026-11-24T03:00:00Z")))
def test_a_step_sees_the_callers_environment_less_github_plus_the_sandboxs(tmp_path_factory, environ, now):
    tmp = tmp_path_factory.mktemp("env")
    sb = box(tmp)
    env = sb.environment(environ, now)
    assert not any(k.startswith("GITHUB_") for k in env)
    assert {k: env[k] for k in sb.exports} == sb.exports
    assert {k: v for k, v in env.items() if k not in sb.exports and k != "RELEASE_NOW"} == {
        k: v for k, v in environ.items() if not k.startswith("GITHUB_") and k not in sb.exports and k != "RELEASE_NOW"}
    if now:
        assert env["RELEASE_NOW"] == now
    else:
        assert env.get("RELEASE_NOW") == environ.get("RELEASE_NOW")
    lines = sb.preamble(environ)
    dropped = sorted(k for k in environ if k.startswith("GITHUB_"))
    assert lines[0] == f"cd {tmp / 'project'}" and lines[1].startswith("export RELEASE_PUBLIC_INDEX=none ")
    assert lines[2:] == ([f"unset {' '.join(dropped)}"] if dropped else [])


def test_the_sandbox_asks_no_public_index_keeps_its_own_git_cache_and_never_waits_on_github(tmp_path):
    assert box(tmp_path).exports == {"RELEASE_PUBLIC_INDEX": "none",
                                     "JAX_ROCM_RELEASE_CACHE": str(tmp_path / "git-cache"),
                                     "RELEASE_GITHUB_WRITE_INTERVAL": "0"}
    assert box(tmp_path).store_flags() == ["--store", "local", "--store-dir", str(tmp_path / "store")]


def test_a_step_is_printed_as_the_line_that_runs_it_and_recorded(tmp_path):
    sb, said = box(tmp_path, tmp_path / "a project"), []
    argv = [sys.executable, "-c", "import os; print(os.getcwd()); print(os.environ.get(\"RELEASE_NOW\", \"-\"))"]
    got = sb.shell(argv, said.append, now="2026-11-24T03:00:00Z")
    line = "RELEASE_NOW=2026-11-24T03:00:00Z " + " ".join(argv[:2]) + " '" + argv[2] + "'"
    assert said == [f"$ {line}"] and got.split("\n")[:2] == [str(tmp_path / "a project"), "2026-11-24T03:00:00Z"]
    assert sb.steps == [{"command": line, "exit": 0}]
    sb.shell(["true"], said.append)
    assert said[-1] == "$ true" and sb.steps[-1] == {"command": "true", "exit": 0}


@pytest.mark.parametrize(("script", "last"), [
    ("import sys; print('first', file=sys.stderr); print('the reason', file=sys.stderr); sys.exit(3)", "the reason"),
    ("import sys; sys.exit(4)", "no output")])
def test_a_failed_step_is_one_line_with_its_exit_and_last_word_and_is_not_recorded(tmp_path, script, last):
    sb = box(tmp_path)
    with pytest.raises(UserError) as failed:
        sb.shell([sys.executable, "-c", script], lambda _: None)
    code = script[-2]
    assert str(failed.value).startswith("release try: `") and str(failed.value).endswith(f"(exit {code}): {last}")
    assert sb.steps == []


def test_a_tool_step_runs_the_release_module_for_json_and_reads_its_answer(tmp_path, monkeypatch):
    sb, seen = box(tmp_path), []

    def shell(argv, say, now=None):
        seen.append((argv, now))
        say("the step's line")
        return stdout
    monkeypatch.setattr(sb, "shell", shell)
    stdout, said = '{"version": "0.9.1"}\n', []
    assert sb.release("cut", "--rc", "1", say=said.append, now="2026-11-24T15:00:00Z") == {"version": "0.9.1"}
    assert said == ["the step's line"]
    assert seen == [([sys.executable, "-m", "release", "cut", "--rc", "1", "--json"], "2026-11-24T15:00:00Z")]
    stdout = " \n"
    assert sb.release("index", say=said.append) == {}


def test_the_install_lines_name_the_sites_nightly_index(tmp_path):
    got = sandbox.install_commands(tmp_path / "site", "jax-rocm7-plugin")
    url = (tmp_path / "site").as_uri() + "/nightly/"
    assert got == {"pip": f"pip install --pre jax-rocm7-plugin --index-url {url}",
                   "uv": f"uv pip install --prerelease allow jax-rocm7-plugin --index-url {url}"}


# ------------------------------------------------------------------ where and in what order


@pytest.mark.parametrize("holds", [(), ("jax_rocm_plugin/",), ("version_info.json",),
                                   ("jax_rocm_plugin", "version_info.json/")])
def test_outside_any_checkout_of_a_package_not_from_one_the_answer_is_root(tmp_path, monkeypatch, holds):
    """The package's own directory is a checkout to copy only when it holds both what is copied:
    the jax_rocm_plugin/ directory and the version_info.json file (one, or either of the wrong kind, is not)."""
    own = tmp_path / "site-packages"
    for name in holds:                                  # a trailing / names a directory
        path = own / name.rstrip("/")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.mkdir() if name.endswith("/") else path.write_text("{}\n")
    monkeypatch.setattr(sandbox, "__file__", str(own / "release" / "jobs" / "sandbox.py"))
    with pytest.raises(UserError) as failed:
        sandbox.tool_checkout(None, tmp_path)
    assert str(failed.value) == (
        "release try: no checkout of this repository around the current directory, and the installed package "
        "is not one; pass --root DIR (a checkout: its jax_rocm_plugin/ and version_info.json are copied into "
        "the sandbox)")


@pytest.mark.parametrize("free", [None, "2026-11-24-9999", "2026-11-24-10000"])
def test_after_9999_sandboxes_of_a_day_the_next_is_refused(tmp_path, monkeypatch, free):
    """Up to 2026-11-24-9999 a taken name gives way to the next; past it, one line saying so."""
    monkeypatch.setattr(Path, "exists", lambda self: self.name != free)
    monkeypatch.setattr(Path, "is_dir", lambda self: False)
    if free == "2026-11-24-9999":
        assert sandbox.fresh_directory(tmp_path, "2026-11-24") == tmp_path / free
        return
    with pytest.raises(UserError) as failed:
        sandbox.fresh_directory(tmp_path, "2026-11-24")
    assert str(failed.value) == f"{tmp_path}: 9,999 sandboxes of 2026-11-24 already; remove some or pass --dir"


@pytest.fixture
def walked(tmp_path, monkeypatch):
    """``walk`` with each tool step recorded, not run; returns (result, tool steps, said, its base).
    Walked for each test (in milliseconds), so that each is seen calling walk (as upstreams)."""
    return _walk(tmp_path, monkeypatch)


def _walk(tmp_path, monkeypatch):
    calls, said, made = [], [], {}
    answers = {"nightly": "0.9.1.dev20261124", "cut": None}

    def release(self, *argv, say, now=None):
        calls.append((argv, now))
        made.setdefault("boxes", set()).add((self.project, self.python))
        say(f"(release {argv[0]})")
        if argv[0] == "cut":
            return {"version": "0.9.1rc1" if "--rc" in argv else "0.9.1.post1" if "--post" in argv else "0.9.1"}
        return {"version": answers[argv[0]]} if argv[0] in answers else {}

    def shell(self, argv, say, now=None):
        calls.append((tuple(argv), now))
        say(f"(shell {argv[0]})")
        return ""

    def make_project(root, tool, ups):      # the project's own rules: test_the_project_pins_...
        made["project"] = (root, tool, ups)
        root.mkdir(parents=True)
        shutil.copy(REPO / "version_info.json", root / "version_info.json")
        return root
    monkeypatch.setattr(Sandbox, "release", release)
    monkeypatch.setattr(Sandbox, "shell", shell)
    monkeypatch.setattr(sandbox, "make_upstreams", lambda root: made.setdefault("upstreams", (root, {"the": "ups"}))[1])
    monkeypatch.setattr(sandbox, "make_project", make_project)
    monkeypatch.setattr(sandbox, "configured_runpath", lambda project: made.setdefault("runpath", (project, ["/r"]))[1])
    monkeypatch.setattr(sandbox, "compile_stand_ins", lambda directory, runpath: made.setdefault(
        "stand_ins", (directory, runpath))[0])
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_not_said")
    monkeypatch.chdir(tmp_path)                 # a relative --dir: every printed path is absolute
    result = sandbox.walk(Path("box"), REPO, "2026-11-24", said.append)
    return result, calls, said, tmp_path, made


def test_the_walk_bumps_then_nightly_index_rc_release_post_and_index_again(walked):
    result, calls, said, tmp_path, made = walked
    base = tmp_path / "box"
    python = f"{sys.version_info.major}.{sys.version_info.minor}"
    assert made.pop("boxes") == {(base / "project", python)}
    assert made == {"upstreams": (base / "upstream", {"the": "ups"}),
                    "project": (base / "project", REPO, {"the": "ups"}),
                    "runpath": (base / "project", ["/r"]), "stand_ins": (base / "artifacts", ["/r"])}
    art, store = str(base / "artifacts"), ["--store", "local", "--store-dir", str(base / "store")]
    site = ["--out", str(tmp_path / "box" / "site"), "--url", (tmp_path / "box" / "site").as_uri()]
    night, later = "2026-11-24T03:00:00Z", "2026-11-24T15:00:00Z"
    assert calls == [
        (("bump",), night),
        (("git", *sandbox.IDENTITY, "commit", "--quiet", "-am", "Bump pins (the bump PR, merged)"), None),
        (("nightly", "--date", "2026-11-24", "--artifacts", art, "--python", python, *store), night),
        (("index", *site, *store), night),
        (("cut", "--rc", "1", "--artifacts", art, "--python", python, *store), later),
        (("cut", "--artifacts", art, "--python", python, *store), later),
        (("cut", "--post", "1", *store), later),
        (("index", *site, *store), later)]
    assert said[0] == f"sandbox in {tmp_path / 'box'}: upstream repositories, a project, stand-in .so files"
    assert said[1:1 + len(result["preamble"])] == [f"$ {line}" for line in result["preamble"]]
    assert said[1 + len(result["preamble"]):] == [
        "(release bump)", "(shell git)", "  (deps.yaml committed: the bump PR, merged)", "(release nightly)",
        "(release index)", "(release cut)", "(release cut)", "(release cut)", "(release index)"]
    assert "unset GITHUB_TOKEN" in result["preamble"][-1] and "ghp_not_said" not in "\n".join(said)


def test_the_walk_ends_with_the_versions_it_made_and_where_to_look(walked):
    result, _, _, tmp_path, _ = walked
    base = tmp_path / "box"
    major = json.loads((REPO / "version_info.json").read_text())["rocm_version"].split(".")[0]
    assert {k: result[k] for k in ("directory", "project", "store", "page", "site")} == {
        "directory": str(base), "project": str(base / "project"), "store": str(base / "store"),
        "page": str(base / "site" / "index.html"), "site": str(base / "site")}
    assert (result["nightly"], result["rc"], result["release"], result["post"]) == (
        "0.9.1.dev20261124", "0.9.1rc1", "0.9.1", "0.9.1.post1")
    assert result["install"] == sandbox.install_commands(base / "site", f"jax-rocm{major}-plugin")
    assert result["steps"] == []


def test_the_walk_refuses_a_directory_with_anything_in_it_and_writes_nothing(tmp_path):
    (tmp_path / "box").mkdir()
    (tmp_path / "box" / ".hidden").write_text("")
    with pytest.raises(UserError, match=r"^--dir .*box: not empty; give a new directory"):
        sandbox.walk(tmp_path / "box", REPO, "2026-11-24")
    assert os.listdir(tmp_path / "box") == [".hidden"]
