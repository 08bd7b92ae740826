"""validate installs the draft as users install it: jax and jaxlib of the line from the public
index and the draft's plugin and pjrt, in one resolve, with pip and with uv, each into a fresh
venv; the venv must then hold the line's jax and exactly the draft's files. A jax line not yet
public is a warning for nightlies and rcs, a failure for releases. Real pip, real uv, real local
indexes; jax and jaxlib are stand-ins built here (the real ones are not reachable offline)."""

from __future__ import annotations

import hashlib
import sys

import pytest

from release.check import resolver, user_install
from release.check.validate import validate
from release.core import core_metadata, naming
from release.publish import notes, public_files
from release.publish.drafts import publish_draft, read_dist, undraft
from release.publish.stores import LocalStore
from tests.support.installs import jax_stand_ins, needs_uv
from tests.support.publish_dist import PYTHON, write_wheel

pytestmark = needs_uv()


def run(store_dir, make_dist, version, public):
    store = LocalStore(store_dir)
    publish_draft(store, read_dist(make_dist(version)))
    return store, validate(store, naming.release_tag(version), public_index=public.url)


def test_a_release_installs_with_jax_of_its_line_by_pip_and_by_uv(make_dist, local_index, tmp_path):
    wheels = jax_stand_ins(tmp_path / "public", "0.9.1")
    public = local_index(wheels, metadata=True)
    store, result = run(tmp_path / "store", make_dist, "0.9.1", public)
    assert result.ok, result.problems
    assert result.cells[(7, PYTHON)]["as_users"] == {"pip": "ok", "uv": "ok"}
    assert result.checked[-2:] == ["as-users", "lock"] and result.warnings == []
    assert {"/simple/jax/", "/simple/jaxlib/"} <= {p.split("?")[0] for p in public.log}
    # the public files the set was installed with are recorded in the notes, as the public
    # index names them (URL, sha256, size, PEP 658 metadata), for the channel indexes
    release = store.our_drafts(naming.release_tag("0.9.1"))[0]
    recorded = public_files.from_text(notes.of(release).validated_with or "")
    base = public.url.rsplit("/simple/", 1)[0]
    assert [(f.filename, f.url, f.sha256, f.size, f.metadata_sha256, f.requires_python) for f in recorded] == [
        (w.name, f"{base}/files/{w.name}", hashlib.sha256(w.read_bytes()).hexdigest(), w.stat().st_size,
         hashlib.sha256(core_metadata.read(w)).hexdigest(), ">=3.11") for w in sorted(wheels)]
    assert result.to_json()["public_files"][0]["filename"] == wheels[0].name
    assert undraft(store, naming.release_tag("0.9.1"))["status"] == "published"


@pytest.mark.parametrize("version, fails", [("0.9.1", True), ("0.9.1.dev20261122", False)])
def test_a_jax_line_not_yet_public_fails_a_release_and_warns_for_a_nightly(make_dist, local_index, tmp_path,
                                                                          version, fails):
    """A whole validate of each verdict: its problems or warnings, the mark, the cell's as_users
    (the other kinds, post release and rc, at the installer's level below)."""
    public = local_index(jax_stand_ins(tmp_path / "public", "0.9.0"))
    _, result = run(tmp_path / "store", make_dist, version, public)
    mine = [p for p in result.problems if "==0.9.1 jaxlib==0.9.1" in p]
    if fails:
        assert not result.ok and not result.marked
        assert [p.split(":")[0] for p in mine] == [f"ROCm 7, Python {PYTHON}"] * 2
        assert mine[0].startswith(f"ROCm 7, Python {PYTHON}: pip: pip cannot install jax[rocm7-local]==0.9.1 "
                                  "jaxlib==0.9.1 "
                                  f"jax-rocm7-plugin=={version} from the draft's index and the public one: ")
        assert mine[1].startswith(f"ROCm 7, Python {PYTHON}: uv: uv cannot install")
    else:
        assert result.ok and result.marked, result.problems
        assert result.warnings == [f"ROCm 7, Python {PYTHON}, {i}: jax 0.9.1 is not on the public index yet, so "
                                   f"users cannot install this {'nightly' if 'dev' in version else 'rc'} "
                                   "with jax either" for i in ("pip", "uv")]
        assert result.cells[(7, PYTHON)]["as_users"] == {"pip": "not tried", "uv": "not tried"}


@pytest.mark.parametrize("version, kind", [("0.9.1.post2", None), ("0.9.1rc1", "rc")])
def test_a_missing_jax_line_fails_a_post_release_and_is_said_for_an_rc(make_dist, local_index, tmp_path,
                                                                      version, kind):
    """The verdict follows the version's kind: a post release is a release (users install it
    with jax of its line, so it fails), an rc is early (a warning, as for a nightly), with pip and uv."""
    public = local_index(jax_stand_ins(tmp_path / "public", "0.9.0"))
    wheels = sorted(make_dist(version).glob("*.whl"))
    plugin = next(w for w in wheels if "plugin" in w.name)
    draft = user_install.draft_files(wheels, plugin, 7, version)
    with resolver.staged_index(wheels, tmp_path / "draft-index") as draft_index:
        (tmp_path / "work").mkdir()
        outcomes = user_install.install_as_users(sys.executable, PYTHON, 7, version, draft, draft_index,
                                                 public.url, tmp_path / "work", lambda _: None)
    assert [o.installer for o in outcomes] == ["pip", "uv"]
    for outcome in outcomes:
        assert not outcome.tested
        if kind is None:
            assert outcome.warnings == [] and [p.split(" from ")[0] for p in outcome.problems] == [
                f"{outcome.installer} cannot install jax[rocm7-local]==0.9.1 jaxlib==0.9.1 jax-rocm7-plugin=={version}"]
        else:
            assert outcome.problems == [] and outcome.warnings == [
                f"jax 0.9.1 is not on the public index yet, so users cannot install this {kind} with jax either"]


def test_without_a_public_index_the_user_install_is_not_tried(make_dist, tmp_path):
    store = LocalStore(tmp_path / "store")
    publish_draft(store, read_dist(make_dist("0.9.1")))
    result = validate(store, naming.release_tag("0.9.1"), public_index="none")
    assert result.ok and "as-users" not in result.checked and "as_users" not in result.cells[(7, PYTHON)]


def test_another_build_of_the_same_version_is_told_apart_by_its_files(make_dist, local_index, tmp_path):
    """uv takes each package from the first index that has it (ours, an extra index, comes first),
    so it installs the draft's pjrt even when the public index has another build of the same
    version; the installed RECORD is what tells a build from another."""
    ours = sorted(make_dist("0.9.1").glob("*.whl"))
    other_dir = make_dist("0.9.1", commits={"plugin": "1" * 40})
    other = sorted(other_dir.glob("*.whl"))
    public = local_index([*jax_stand_ins(tmp_path / "public", "0.9.1"),
                          next(w for w in other if "pjrt" in w.name)])
    plugin = next(w for w in ours if "plugin" in w.name)
    draft = user_install.draft_files(ours, plugin, 7, "0.9.1")
    with resolver.staged_index(ours, tmp_path / "draft-index") as draft_index:
        work = tmp_path / "uv"
        work.mkdir()
        [uv] = user_install.install_as_users(sys.executable, PYTHON, 7, "0.9.1", draft,
                                             draft_index, public.url, work, lambda _: None, installers=("uv",))
        assert uv.tested, uv.problems
        venv_python = work / "uv-venv" / "bin" / "python"
        wrong = dict(draft, **{"jax-rocm7-pjrt": ("0.9.1", next(w for w in other if "pjrt" in w.name))})
        assert user_install.check_installed(venv_python, "0.9.1", wrong) == [
            f"jax-rocm7-pjrt 0.9.1 was installed from another file than the draft's {wrong['jax-rocm7-pjrt'][1].name}"]
        assert user_install.check_installed(venv_python, "0.9.2", draft) == [
            "jax is 0.9.1, not the line's 0.9.2", "jaxlib is 0.9.1, not the line's 0.9.2"]


@pytest.mark.parametrize("version, line", [("0.9.1", "0.9.1"), ("0.9.1.post3", "0.9.1"),
                                           ("0.10.0rc2", "0.10.0"), ("0.10.0.dev20261122001", "0.10.0")])
@pytest.mark.parametrize("major", [7, 10])
def test_the_line_of_every_kind_is_its_x_y_z(version, line, major):
    """Users of ROCm N type jax's extra for N (jax[rocmN-local]), jaxlib of the line and the plugin pinned."""
    assert user_install.requirements(major, version) == [f"jax[rocm{major}-local]=={line}", f"jaxlib=={line}",
                                                         f"jax-rocm{major}-plugin=={version}"]


def test_uv_is_given_our_index_first_and_the_public_one_as_the_default(tmp_path):
    argv = user_install.install_argv("uv", tmp_path / "py", ["x"], "http://127.0.0.1:1/simple/",
                                     "https://public/simple", uv="uv")
    assert argv[argv.index("--extra-index-url") + 1] == "http://127.0.0.1:1/simple/"
    assert argv[argv.index("--index-url") + 1] == "https://public/simple"
    assert "--no-config" in argv and argv[-1] == "x"


def test_the_users_pip_line_is_one_pip_process_in_the_venv_it_installs_into(tmp_path):
    """This tool's pip, started in the target venv's interpreter: ``pip --python`` would start a
    second pip process first only to read its command line (about 0.35 s of CPU per install, in
    every validate and smoke)."""
    py = tmp_path / "pip-venv" / "bin" / "python"
    argv = user_install.install_argv("pip", py, ["x"], "http://127.0.0.1:1/simple/", None)
    assert argv[0] == str(py) and "--python" not in argv, argv
    assert argv[2:4] == ["install", "--pre"] and argv[-1] == "x"


def test_the_users_pip_line_compiles_no_bytecode_into_the_venv_it_drops(tmp_path):
    """The venv serves one import and is dropped: pip's compiling every module of jax, jaxlib,
    numpy and scipy first cost four times the install itself (uv compiles nothing by default)."""
    argv = user_install.install_argv("pip", tmp_path / "py", ["x"], "http://127.0.0.1:1/simple/", None)
    assert "--no-compile" in argv and "--compile" not in argv
    uv = user_install.install_argv("uv", tmp_path / "py", ["x"], "http://127.0.0.1:1/simple/", None, uv="uv")
    assert "--compile-bytecode" not in uv and "--compile" not in uv


def test_a_nightly_that_fails_for_another_reason_than_jax_fails(make_dist, local_index, tmp_path):
    """Only a jax line that is not public yet is forgiven for a nightly: a line whose jax needs
    something no index has is a problem like any other."""
    public_dir = tmp_path / "public"
    public_dir.mkdir()
    broken = [write_wheel(public_dir / "jax-0.9.1-py3-none-any.whl", "jax", "0.9.1", "py3-none-any",
                          {"jax/__init__.py": ""}, requires=["jaxlib==0.9.1", "no-such-dependency-here"]),
              jax_stand_ins(tmp_path / "jaxlib", "0.9.1")[1]]
    _, result = run(tmp_path / "store", make_dist, "0.9.1.dev20261122", local_index(broken))
    assert not result.ok and result.warnings == []
    assert [p.split(": ")[1] for p in result.problems] == ["pip", "uv"]
