"""``release build --artifacts``: real ELF in, wheels pip installs, read back from the install."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import zipfile
from email.parser import HeaderParser
from pathlib import Path

import pytest

from release.build import bazel, wheel_specs
from release.core import wheelfile
from release.core.config import load_deps
from release.core.revisions import RevisionMap
from tests.support import warm_start
from tests.support.build import run_python
from tests.support.elf import ALL_SOS, KERNEL_SOS, PJRT_SO, compile_so
from tests.support.project import copy_config
from tests.support.startup import run_probe
from tests.test_bazel import runpath_of

VERSION = "0.9.1rc2"
PY = f"{sys.version_info.major}.{sys.version_info.minor}"   # the plugin wheel pip can install here
OTHER_PY = "3.14" if PY != "3.14" else "3.13"
EPOCH = "1767225600"
PJRT = f"jax_rocm7_pjrt-{VERSION}-py3-none-manylinux_2_28_x86_64.whl"
CP = "cp3" + PY.split(".")[1]
PLUGIN = f"jax_rocm7_plugin-{VERSION}-{CP}-{CP}-manylinux_2_28_x86_64.whl"
REPO = Path(__file__).resolve().parents[1]


def release(*argv, env=None):
    """``python -m release`` as CI runs it, with a fixed SOURCE_DATE_EPOCH."""
    return subprocess.run([warm_start.python(), "-m", "release", *map(str, argv)], capture_output=True,
                          text=True, env={**os.environ, "SOURCE_DATE_EPOCH": EPOCH, **(env or {})})


def build_rc(root, artifacts, dist, *extra, env=None):
    return release("build", "--kind", "rc", "--number", "2", "--python", PY, "--python", OTHER_PY,
                   "--root", root, "--artifacts", artifacts, "--dist", dist, "--json", *extra, env=env)


@pytest.fixture(scope="module")
def artifacts(tmp_path_factory) -> Path:
    """The nine shared objects, linked with exactly the linkopts the rocm_build config sets."""
    directory = tmp_path_factory.mktemp("artifacts")
    flags = bazel.configured_linkopts()
    for i, name in enumerate(ALL_SOS):
        compile_so(directory / name, extra_flags=flags, answer=i)
    for name in KERNEL_SOS:   # per-Python kernels for the other Python, preferred over DIR/
        compile_so(directory / OTHER_PY / name, extra_flags=flags, answer=100)
    return directory


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> Path:
    directory = tmp_path_factory.mktemp("proj")
    copy_config(directory)
    return directory


@pytest.fixture(scope="module")
def built(root, artifacts, tmp_path_factory) -> Path:
    dist = tmp_path_factory.mktemp("dist")
    proc = build_rc(root, artifacts, dist)
    assert proc.returncode == 0, proc.stderr
    return dist / VERSION


def test_dist_holds_wheels_revisions_sums_and_manifest(built, root):
    names = sorted(p.name for p in built.iterdir() if not p.name.startswith("."))
    other = OTHER_PY.replace(".", "")
    wheels = [PJRT, PLUGIN, f"jax_rocm7_plugin-{VERSION}-cp{other}-cp{other}-manylinux_2_28_x86_64.whl"]
    assert names == sorted([*wheels, *(w + ".metadata" for w in wheels),
                            "SHA256SUMS", "manifest.json", "provenance.intoto.json",
                            "revisions.json"])
    for wheel in wheels:  # PEP 658: each wheel's METADATA beside it, byte for byte
        with zipfile.ZipFile(built / wheel) as zf:
            [meta] = [n for n in zf.namelist() if n.endswith(".dist-info/METADATA")]
            assert (built / (wheel + ".metadata")).read_bytes() == zf.read(meta)
    sums = dict(reversed(line.split("  ")) for line in (built / "SHA256SUMS").read_text().splitlines())
    assert set(sums) == set(names) - {"SHA256SUMS", "manifest.json"}
    for name, digest in sums.items():
        assert hashlib.sha256((built / name).read_bytes()).hexdigest() == digest
    revisions = RevisionMap.loads((built / "revisions.json").read_text())
    assert revisions.version == VERSION
    assert revisions.commits["plugin"] == "4006f866f9f094bf1beff2e1bad4f845480a8ea6"
    steps = json.loads((built / "manifest.json").read_text())["steps"]
    assert set(steps) == {"wheel_pjrt", f"wheel_plugin_{CP}", f"wheel_plugin_cp{other}"}
    assert steps["wheel_pjrt"]["files"]["wheel"]["sha256"] == sums[PJRT]


def test_the_plans_asset_list_is_what_the_dist_publishes(built, root):
    """The dry run's asset list names every file of the release (provenance.intoto.json was missing)."""
    from release.build.plan import make_plan
    from release.core.config import load_project
    from release.publish.drafts import read_dist
    plan = make_plan(load_project(root), "rc", number=2, pythons=(PY, OTHER_PY))
    assert sorted(plan.assets) == sorted(a.name for a in read_dist(built).assets)


def test_metadata_wheel_and_entry_points(built):
    def meta(wheel, member):
        name = wheel.split("-")[0] + f"-{VERSION}.dist-info/{member}"
        return wheelfile.read_member(built / wheel, name).decode()

    pjrt = HeaderParser().parsestr(meta(PJRT, "METADATA"))
    assert pjrt["Name"] == "jax-rocm7-pjrt" and pjrt["Version"] == VERSION
    assert pjrt["Summary"].endswith("(ROCm 7.2.0)")
    assert pjrt.get_all("Requires-Dist") is None
    plugin = HeaderParser().parsestr(meta(PLUGIN, "METADATA"))
    assert plugin["Name"] == "jax-rocm7-plugin" and "ROCm 7.2.0" in plugin["Summary"]
    requires = plugin.get_all("Requires-Dist")
    assert requires[0] == f"jax-rocm7-pjrt=={VERSION}"
    assert len(requires) == 13 and all(r.endswith('; extra == "with-rocm"') for r in requires[1:])
    assert 'amd_rocm_hip_runtime_instinct; extra == "with-rocm"' in requires
    assert plugin.get_all("Provides-Extra") == ["with-rocm"]
    for wheel, tag in ((PJRT, "py3-none-manylinux_2_28_x86_64"), (PLUGIN, f"{CP}-{CP}-manylinux_2_28_x86_64")):
        header = HeaderParser().parsestr(meta(wheel, "WHEEL"))
        assert header["Root-Is-Purelib"] == "false" and header["Tag"] == tag
    assert meta(PJRT, "entry_points.txt") == "[jax_plugins]\nxla_rocm7 = jax_plugins.xla_rocm7\n"
    members = [m.name for m in wheelfile.members(built / PJRT)]
    assert members == ["jax_plugins/xla_rocm7/__init__.py", "jax_plugins/xla_rocm7/commit_info.py",
                       "jax_plugins/xla_rocm7/version.py", "jax_plugins/xla_rocm7/xla_rocm_plugin.so",
                       *(f"jax_rocm7_pjrt-{VERSION}.dist-info/{n}"
                         for n in ("METADATA", "WHEEL", "entry_points.txt", "sboms/jax-rocm7-pjrt.cdx.json",
                                   "RECORD"))]


def test_installed_wheels_report_version_revisions_and_runpath(built, artifacts, wheel_venvs):
    python = wheel_venvs.install(built, f"jax-rocm7-plugin=={VERSION}")  # pulls in pjrt by its pin
    out = run_python(python, """
import ctypes, json, importlib.metadata as md, pathlib
import jax_plugins.xla_rocm7 as pjrt, jax_plugins.xla_rocm7.version as pv, jax_plugins.xla_rocm7.commit_info as pc
import jax_rocm7_plugin as plugin, jax_rocm7_plugin.version as kv, jax_rocm7_plugin.commit_info as kc
kernels = pathlib.Path(plugin.__file__).parent
print(json.dumps({
  "pjrt": [pjrt.__version__, pv._release_version, pv._git_hash, pv._version],
  "plugin": [plugin.__version__, kv._release_version, kv._git_hash],
  "commits": [pc.commits, kc.commits], "revisions": pc.revisions, "version": [pc.version, kc.version],
  "eps": [(e.name, e.value) for e in md.entry_points(group="jax_plugins")],
  "dists": sorted((d.metadata["Name"], d.version) for d in md.distributions()),
  "answer": ctypes.CDLL(str(kernels / "_prng.so")).artifact_answer(),
  "pjrt_so": pjrt.library_path(), "kernels": str(kernels)}))
""")
    got = json.loads(out)
    sha = "4006f866f9f094bf1beff2e1bad4f845480a8ea6"
    assert got["pjrt"] == [VERSION, VERSION, sha, "0.9.1"]
    assert got["plugin"] == [VERSION, VERSION, sha]
    legacy = {"ROCm/rocm-jax": sha, "jax": "7f75782ad5ea6cd97e6346dcae9317ac31babef8",
              "ROCm/xla": "b32df5f07315567cc1940388ef766b87c6e8b9e3"}
    assert got["commits"] == [legacy, legacy]
    shipped_xla = load_deps(REPO / "deps.yaml")["xla"]  # patches as deps.yaml records them
    assert got["revisions"]["xla"] == {"url": "https://github.com/ROCm/xla", "branch": "rocm-jaxlib-v0.9.1",
                                       "commit": "b32df5f07315567cc1940388ef766b87c6e8b9e3",
                                       **({"patches": list(shipped_xla.patches)} if shipped_xla.patches else {})}
    assert got["version"] == [VERSION, VERSION]
    assert got["eps"] == [["xla_rocm7", "jax_plugins.xla_rocm7"]]
    assert got["dists"] == [["jax-rocm7-pjrt", VERSION], ["jax-rocm7-plugin", VERSION]]
    assert got["answer"] == ALL_SOS.index("_prng.so")   # the DIR/ kernels, not the other Python's
    expected = ":".join(bazel.configured_runpath())
    installed = [Path(got["pjrt_so"])] + [Path(got["kernels"]) / k for k in KERNEL_SOS]
    for so in installed:
        assert runpath_of(so) == (expected, None), so
        source = artifacts / (PJRT_SO if so.name == PJRT_SO else so.name)
        assert so.read_bytes() == source.read_bytes(), so   # untouched: no patchelf, no rewrite
        assert os.access(so, os.X_OK)


def test_per_python_kernels_come_from_their_directory(built, artifacts):
    other = OTHER_PY.replace(".", "")
    wheel = built / f"jax_rocm7_plugin-{VERSION}-cp{other}-cp{other}-manylinux_2_28_x86_64.whl"
    data = wheelfile.read_member(wheel, "jax_rocm7_plugin/_linalg.so")
    assert data == (artifacts / OTHER_PY / "_linalg.so").read_bytes() != (artifacts / "_linalg.so").read_bytes()


def test_same_inputs_and_epoch_give_byte_identical_wheels(built, root, artifacts, tmp_path):
    # another hash seed than the first build's (warm commands share their zygote's; this one
    # starts cold): no set or dict order reaches a wheel
    proc = build_rc(root, artifacts, tmp_path / "again", env={"PYTHONHASHSEED": "1"})
    assert proc.returncode == 0, proc.stderr
    again = tmp_path / "again" / VERSION
    for wheel in built.glob("*.whl"):
        assert (again / wheel.name).read_bytes() == wheel.read_bytes(), wheel.name
    assert (again / "SHA256SUMS").read_bytes() == (built / "SHA256SUMS").read_bytes()
    proc = build_rc(root, artifacts, tmp_path / "later", env={"SOURCE_DATE_EPOCH": str(int(EPOCH) + 86400)})
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "later" / VERSION / PJRT).read_bytes() != (built / PJRT).read_bytes()


def test_rerun_skips_done_wheels_and_redoes_changed_or_missing(root, artifacts, tmp_path):
    dist = tmp_path / "dist"
    local = tmp_path / "art"
    local.mkdir()
    for name in ALL_SOS:
        (local / name).write_bytes((artifacts / name).read_bytes())
    first = build_rc(root, local, dist, "--wheel", "pjrt", "--python", PY)
    assert first.returncode == 0, first.stderr
    assert json.loads(first.stdout)["steps"] == [{"step": "wheel_pjrt", "status": "ran"}]
    mtime = (dist / VERSION / PJRT).stat().st_mtime_ns

    def statuses(proc):
        assert proc.returncode == 0, proc.stderr
        return {s["step"]: s["status"] for s in json.loads(proc.stdout)["steps"]}

    assert statuses(build_rc(root, local, dist)) == {
        "wheel_pjrt": "skipped", f"wheel_plugin_{CP}": "ran",
        f"wheel_plugin_cp{OTHER_PY.replace('.', '')}": "ran"}
    assert (dist / VERSION / PJRT).stat().st_mtime_ns == mtime
    (dist / VERSION / PLUGIN).unlink()
    compile_so(local / PJRT_SO, extra_flags=bazel.configured_linkopts(), answer=7)
    assert statuses(build_rc(root, local, dist)) == {
        "wheel_pjrt": "ran", f"wheel_plugin_{CP}": "ran",
        f"wheel_plugin_cp{OTHER_PY.replace('.', '')}": "skipped"}
    assert wheelfile.read_member(dist / VERSION / PJRT, "jax_plugins/xla_rocm7/xla_rocm_plugin.so") == \
        (local / PJRT_SO).read_bytes()


def test_missing_artifact_is_one_line_and_writes_no_wheel(root, artifacts, tmp_path):
    local = tmp_path / "art"
    local.mkdir()
    for name in ALL_SOS:
        if name != "_rnn.so":
            (local / name).write_bytes((artifacts / name).read_bytes())
    proc = release("build", "--kind", "release", "--python", PY, "--wheel", "plugin", "--root", root,
                   "--artifacts", local, "--dist", tmp_path / "dist")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    assert "_rnn.so" in proc.stderr and f"{local}/{PY}/" in proc.stderr
    assert not list((tmp_path / "dist").rglob("*.whl")) and not list((tmp_path / "dist").rglob("*.part"))
    proc = release("build", "--kind", "release", "--python", PY, "--root", root,
                   "--artifacts", tmp_path / "nope", "--dist", tmp_path / "dist")
    assert proc.returncode == 2 and "no such directory" in proc.stderr


def test_manifest_merges_steps_of_other_writers_and_checks_outputs(tmp_path):
    from release.core.manifest import Manifest, fingerprint

    out = tmp_path / "w.whl"
    out.write_bytes(b"wheel")
    first, second = Manifest.load(tmp_path), Manifest.load(tmp_path)
    fp = fingerprint({"inputs": [1, 2]})
    first.record("wheel_pjrt", fp, {"wheel": out, "tag": "py3-none"})
    second.record("publish", "p", {"asset_ids": [1, 2]})   # a stale instance must not drop wheel_pjrt
    again = Manifest.load(tmp_path)
    assert set(again.steps) == {"wheel_pjrt", "publish"}
    assert again.outputs("wheel_pjrt") == {"wheel": out, "tag": "py3-none"}
    assert again.outputs("nothing") is None
    assert again.file_hashes("wheel_pjrt") == {"wheel": hashlib.sha256(b"wheel").hexdigest()}
    assert again.done("wheel_pjrt", fp) and not again.done("wheel_pjrt", fingerprint({"inputs": [2]}))
    assert (tmp_path / "manifest.json").stat().st_mode & 0o777 == 0o644
    out.write_bytes(b"wheel!")
    assert not again.done("wheel_pjrt", fp)
    out.write_bytes(b"WHEEL")
    assert again.done("wheel_pjrt", fp) and not again.done("wheel_pjrt", fp, verify=True)
    out.unlink()
    assert not again.done("wheel_pjrt", fp)
    (tmp_path / "manifest.json").write_text("{torn")
    assert Manifest.load(tmp_path).steps == {}   # unreadable: nothing counts as done


def _tree(path):
    if not path.exists():
        return None
    return {str(p.relative_to(path)): hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file()
            else "dir" for p in sorted(path.rglob("*"))}


@pytest.mark.parametrize("defect, fragment", [
    ("missing", "no _rnn.so for the plugin wheel"),
    ("text", "_rnn.so: not an ELF file; expected the ELF shared object _rnn.so"),
    ("static", "_rnn.so: ELF type 1, not a shared object"),
    ("empty", "no xla_rocm_plugin.so for the pjrt wheel"),
])
def test_every_input_is_checked_before_anything_is_written(run_cli, root, artifacts, tmp_path,
                                                           defect, fragment):
    """Issue 15: a missing .so used to leave the PJRT wheel and manifest.json behind, and an
    empty artifacts directory an empty dist/<version>/. Now: one line, exit 2, no change."""
    local = tmp_path / "art"
    local.mkdir()
    if defect != "empty":
        for name in ALL_SOS:
            (local / name).write_bytes((artifacts / name).read_bytes())
    if defect == "missing":
        (local / "_rnn.so").unlink()
    elif defect == "text":
        (local / "_rnn.so").write_text("not a shared object\n")
    elif defect == "static":
        obj = tmp_path / "x.o"
        (tmp_path / "x.c").write_text("int x(void) { return 1; }\n")
        subprocess.run(["cc", "-c", "-o", obj, tmp_path / "x.c"], check=True)
        (local / "_rnn.so").write_bytes(obj.read_bytes())
    dist = tmp_path / "dist"
    before = _tree(tmp_path)
    code, out, err = run_cli("build", "--kind", "release", "--python", PY, "--root", root,
                             "--artifacts", local, "--dist", dist)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1, err
    assert fragment in err
    assert _tree(tmp_path) == before and not dist.exists()


def test_requires_python_is_the_lowest_configured_python(built):
    for wheel in built.glob("*.whl"):
        meta = wheelfile.read_member(wheel, next(
            n for n in __import__("zipfile").ZipFile(wheel).namelist() if n.endswith("/METADATA")))
        assert HeaderParser().parsestr(meta.decode())["Requires-Python"] == \
            f">={bazel.supported_pythons()[0]}"


def test_requires_python_follows_the_roots_configs_and_a_change_repacks(root, artifacts, tmp_path):
    own = tmp_path / "proj"
    shutil.copytree(root, own)
    shutil.copytree(wheel_specs.plugin_dir(), own / wheel_specs.PLUGIN_DIR)
    rc = own / wheel_specs.PLUGIN_DIR / wheel_specs.BAZELRC
    shipped = rc.read_text()
    rc.write_text(shipped + "build:python310 --repo_env=HERMETIC_PYTHON_VERSION=3.10\n")
    dist = tmp_path / "dist"

    def requires_python_after_build() -> tuple[str, list]:
        proc = release("build", "--kind", "rc", "--number", "2", "--python", PY, "--wheel", "pjrt",
                       "--root", own, "--artifacts", artifacts, "--dist", dist, "--json")
        assert proc.returncode == 0, proc.stderr
        meta = wheelfile.read_member(dist / VERSION / PJRT, f"jax_rocm7_pjrt-{VERSION}.dist-info/METADATA")
        return HeaderParser().parsestr(meta.decode())["Requires-Python"], json.loads(proc.stdout)["steps"]

    assert requires_python_after_build() == (">=3.10", [{"step": "wheel_pjrt", "status": "ran"}])
    rc.write_text(shipped)   # the configs drop 3.10: the same inputs otherwise, but a new wheel
    assert requires_python_after_build() == (
        f">={bazel.supported_pythons()[0]}", [{"step": "wheel_pjrt", "status": "ran"}])


def test_packing_prebuilt_objects_loads_no_jax_tree_workspace_or_progress_code():
    """Start-up is part of pack's cost (issue 36: pack within 1.1x of deflate + sha256): the build
    step of prebuilt .so files does not import the jax-tree builder, the workspace checks or
    rich's progress bars (drawn on a terminal only) before it needs them."""
    code = ("import sys, release.cli, release.commands.build, release.build.dist; "
            "print(' '.join(m for m in ('release.build.jax_tree_build', 'release.sources.checkout', "
            "'release.sources.jaxlib_plugins', 'rich.progress') if m in sys.modules))")
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                            cwd=REPO).stdout.split()
    assert loaded == []




def test_a_build_of_prebuilt_objects_says_its_steps_plainly_and_loads_no_rich_lock_library_or_pool(
        root, artifacts, tmp_path):
    """Issue 36: ``release build``'s start-up is part of pack's cost (within 1.1x of deflate +
    sha256 on the real .so). Its result for people is the directory, each step and its status,
    and the wheels, in plain lines; what it needs no terminal, table or thread pool for it does
    not import: rich, the filelock package, concurrent.futures (logging), socket."""
    dist = tmp_path / "dist"
    argv = ["build", "--kind", "rc", "--number", "2", "--python", PY, "--wheel", "pjrt", "--root", root,
            "--artifacts", artifacts, "--dist", dist]
    proc, modules = run_probe(*map(str, argv), env={**os.environ, "SOURCE_DATE_EPOCH": EPOCH})
    assert (dist / VERSION / PJRT).is_file(), proc.stderr
    assert proc.stdout.splitlines() == [f"dist {dist / VERSION}", "step        status",
                                        "wheel_pjrt  ran", f"  {PJRT}"]
    heavy = ("rich", "filelock", "concurrent", "logging", "socket")
    assert [m for m in modules if m.split(".")[0] in heavy] == []
    again = release(*argv, "--python", OTHER_PY, "--wheel", "plugin")
    assert again.returncode == 0, again.stderr
    assert again.stdout.splitlines()[1:4] == ["step                status", "wheel_pjrt          skipped",
                                              f"wheel_plugin_{CP}  ran"]


def test_the_sbom_lists_by_the_lines_own_soname_list_and_another_list_repacks(root, artifacts, tmp_path):
    """The packer reads the line's own rocm_runtime.json, as a jax-tree line does
    (tests/test_sbom_line_lists.py); a change to it writes the wheel again."""
    from release.build import sbom
    own = tmp_path / "proj"
    shutil.copytree(root, own)
    runtime = own / "jax_rocm_plugin" / "rocm_runtime.json"
    runtime.parent.mkdir(exist_ok=True)
    local = tmp_path / "art"
    shutil.copytree(artifacts, local)
    stubs = tuple(compile_so(tmp_path / "stubs" / so, soname=so) for so in ("libamdhip64.so.7", "libline.so.1"))
    compile_so(local / PJRT_SO, extra_flags=bazel.configured_linkopts(), links=stubs)
    dist = tmp_path / "dist"

    def listed_after_build(listed: list[str]) -> tuple[list[str], list]:
        runtime.write_text(json.dumps({"schema": 1, "releases": {"7.2.0": {
            "sources": ["this line's own"], "locations": {"/opt/rocm/lib": listed}}}}))
        proc = release("build", "--kind", "rc", "--number", "2", "--python", PY, "--wheel", "pjrt",
                       "--root", own, "--artifacts", local, "--dist", dist, "--json")
        assert proc.returncode == 0, proc.stderr
        with zipfile.ZipFile(dist / VERSION / PJRT) as zf:
            [member] = [n for n in zf.namelist() if sbom.is_member(n)]
            [rocm] = [c for c in json.loads(zf.read(member))["components"] if c["bom-ref"] == "rocm"]
        return [c["name"] for c in rocm.get("components", [])], json.loads(proc.stdout)["steps"]

    ran = [{"step": "wheel_pjrt", "status": "ran"}]
    assert listed_after_build(["libline.so.1"]) == (["libline.so.1"], ran)
    assert listed_after_build(["libline.so.1", "libamdhip64.so.7"]) == (["libamdhip64.so.7", "libline.so.1"], ran)
