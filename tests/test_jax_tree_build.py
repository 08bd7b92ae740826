"""A jax-tree line's wheels are built from jax's own targets, without build.py (issue 31 item 2):
one ``bazel build`` a major for the PJRT wheel and one a major and Python for the plugin wheel,
run in the jax checkout with jax's configs and the plan's version stamped in; each wheel is
held to the plan's name before anything else (another stamped version is refused), then gets
the revision map; the provenance names the layout and every ROCm version.

Through the stand-in Bazel (tests/support/build.py), which writes wheels as jax's rule does."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

from release.build import jax_tree
from release.build.plan import make_plan
from release.core import config
from tests.support.build import fake_bazel  # noqa: F401 (fixture)
from tests.support.gitrepos import git
from tests.test_line_build import DAY, JAX_TREE_DEPS, SHA, XLA, jax_tree_line

DATE = "2026-11-22"
VERSION = "0.11.1.dev20261122"
DERIVED = ('load("@local_config_rocm//rocm:build_defs.bzl", "rocm_version_number")\n'
           "_version = rocm_version_number()\nROCM_MAJOR_VERSION = str(_version // 10000)\n")
# jaxlib 0.11.1 on: the names it lists, and the pattern it finds later majors by (jax-ml/jax#39634)
PLUGIN_SUPPORT = ('import re\n_PLUGIN_MODULE_NAMES = {"cuda": ["jax_cuda12_plugin"], "rocm": ["jax_rocm7_plugin"]}\n'
                  '_ROCM_PLUGIN_MODULE_RE = re.compile(r"jax_rocm(\\d+)_plugin")\n')
ROCM_BAZELRC = ("build:rocm_release_wheel --config=rocm_clang_hermetic\n"
                "build:rocm_clang_hermetic --copt=-Wno-unused\n")


def _commit(path: Path) -> str:
    git("init", "--quiet", "-b", "main", cwd=path)
    git("add", "-A", cwd=path)
    git("-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "--quiet", "-m", "tree", cwd=path)
    return git("rev-parse", "HEAD", cwd=path).strip()


def jax_workspace(ws: Path, *, line="0.11.1", rocm_version_bzl=DERIVED, plugin_support=None,
                  bazelrc=ROCM_BAZELRC) -> dict[str, str]:
    """What fetch-sources leaves for a jax-tree line: jax (the plugin's tree too) and xla."""
    jax = ws / "jax"
    for rel, text in {"WORKSPACE": 'workspace(name = "jax")\n', "jax/version.py": f'_version = "{line}"\n',
                      "jaxlib/rocm/rocm_version.bzl": rocm_version_bzl, "build/rocm/rocm.bazelrc": bazelrc,
                      "jax_plugins/rocm/plugin_setup.py": "# the plugin's setup\n",
                      "jaxlib/plugin_support.py": plugin_support or PLUGIN_SUPPORT}.items():
        (jax / rel).parent.mkdir(parents=True, exist_ok=True)
        (jax / rel).write_text(text)
    (ws / "xla").mkdir(parents=True)
    (ws / "xla" / "WORKSPACE").write_text('workspace(name = "xla")\n')
    heads = {"jax": _commit(jax), "xla": _commit(ws / "xla")}
    git("clone", "--quiet", str(jax), str(ws / "plugin"), cwd=ws)
    return heads


@pytest.fixture(autouse=True)
def rocm_dirs(tmp_path, monkeypatch):
    """Each major's ROCm root here (the stand-in reads the major from its name, as
    @local_config_rocm reads it from the ROCm it is pointed at)."""
    dirs = {7: tmp_path / "rocm" / "rocm-7.2.0", 10: tmp_path / "rocm" / "rocm-10.0.0"}
    for path in dirs.values():
        path.mkdir(parents=True)
    monkeypatch.setenv(jax_tree.ROCM_PATHS_ENV, " ".join(f"{m}={p}" for m, p in dirs.items()))
    return dirs


@pytest.fixture
def line(tmp_path):
    """A two-major (7, 10), two-Python jax-tree line and its fetched workspace: (root, ws)."""
    root = jax_tree_line(tmp_path / "line", pythons=("3.12", "3.13"))
    heads = jax_workspace(tmp_path / "ws")
    (root / "deps.yaml").write_text(JAX_TREE_DEPS.replace(SHA, heads["jax"]).replace(XLA, heads["xla"]))
    return root, tmp_path / "ws"


def build(run_cli, root, ws, dist, *extra):
    return run_cli("build", "--kind", "nightly", "--date", DATE, "--root", root, "--dist", dist,
                   "--workspace", ws, "--json", *extra)


def test_each_major_and_python_is_built_from_jax_targets_and_carries_the_revision_map(
        run_cli, line, fake_bazel, tmp_path):
    root, ws = line
    dist = tmp_path / "dist"
    code, out, err = build(run_cli, root, ws, dist)
    assert code == 0, err
    plan = make_plan(config.load_project(root), "nightly", date=DAY.replace(day=22), workspace=ws)
    builds = [c for c in fake_bazel.calls() if "build" in c["argv"][:3]]
    assert [c["argv"] for c in builds] == [list(argv[1:]) for argv in plan.bazel_commands]
    assert {c["cwd"] for c in fake_bazel.calls()} == {str(ws.resolve() / "jax")}
    result = json.loads(out)
    assert sorted(result["wheels"]) == sorted(plan.wheels) and len(plan.wheels) == 2 * (1 + 2)
    revisions = json.loads((dist / VERSION / "revisions.json").read_text())
    for group in plan.majors:
        n = group.major
        with zipfile.ZipFile(dist / VERSION / group.pjrt_wheel) as zf:
            names = zf.namelist()
            assert f"jax_plugins/xla_rocm{n}/xla_rocm_plugin.so" in names
            info = zf.read(f"jax_plugins/xla_rocm{n}/commit_info.py").decode()
            assert revisions["deps"]["xla"]["commit"] in info
            assert names[-1].endswith(".dist-info/RECORD")
            assert f"jax_plugins/xla_rocm{n}/commit_info.py,sha256=" in zf.read(names[-1]).decode()
        for python, name in group.plugin_wheels:
            with zipfile.ZipFile(dist / VERSION / name) as zf:
                assert zf.read(f"jax_rocm{n}_plugin/version.py").decode() == f"_release_version: str = {VERSION!r}\n"
                assert f"jax_rocm{n}_plugin/commit_info.py" in zf.namelist()
                assert f"Requires-Python: >={python}" in zf.read(
                    f"jax_rocm{n}_plugin-{VERSION}.dist-info/METADATA").decode()
    prov = json.loads((dist / VERSION / "provenance.intoto.json").read_text())
    params = prov["predicate"]["buildDefinition"]["externalParameters"]
    assert params["layout"] == "jax-tree" and params["rocmVersions"] == ["7.2.0", "10.0.0"]
    assert params["bazelConfigs"] == ["rocm_release_wheel"]
    sums = (dist / VERSION / "SHA256SUMS").read_text()
    assert all(name in sums for name in plan.wheels)

    fake_bazel.clear()
    code, out, err = build(run_cli, root, ws, dist)
    assert code == 0, err
    assert fake_bazel.calls() == [] and {s["status"] for s in json.loads(out)["steps"]} == {"skipped"}


def test_a_wheel_stamped_with_another_version_is_refused_before_anything_is_written(
        run_cli, line, fake_bazel, tmp_path):
    """jax's tree says 0.11.2 while the line (deps.yaml's record of it) says 0.11.1: Bazel stamps
    jax's _version, so the wheel is not the plan's, and nothing of it reaches the dist."""
    root, ws = line
    (ws / "jax" / "jax" / "version.py").write_text('_version = "0.11.2"\n')
    for where in ("jax", "plugin"):
        if where == "plugin":
            git("pull", "--quiet", "--ff-only", cwd=ws / "plugin")
            continue
        git("-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "--quiet", "-am", "0.11.2",
            cwd=ws / where)
    head = git("rev-parse", "HEAD", cwd=ws / "jax").strip()
    text = (root / "deps.yaml").read_text()
    old = config.load_deps(root / "deps.yaml")["jax"].commit
    (root / "deps.yaml").write_text(text.replace(old, head))
    dist = tmp_path / "dist"
    code, out, err = build(run_cli, root, ws, dist)
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert "Bazel stamped version 0.11.2.dev20261122, the plan builds 0.11.1.dev20261122; nothing is drafted" in err
    assert not list((dist / VERSION).glob("*.whl"))


def test_a_major_the_tree_does_not_build_is_refused_before_bazel_runs(run_cli, fake_bazel, tmp_path):
    root = jax_tree_line(tmp_path / "line", pythons=("3.12",))
    heads = jax_workspace(tmp_path / "ws", rocm_version_bzl='ROCM_MAJOR_VERSION = "7"\n')
    (root / "deps.yaml").write_text(JAX_TREE_DEPS.replace(SHA, heads["jax"]).replace(XLA, heads["xla"]))
    code, out, err = build(run_cli, root, tmp_path / "ws", tmp_path / "dist")
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert f"{jax_tree.ROCM_VERSION_FILE}: the jax tree builds ROCm 7 only" in err and "names ROCm 10" in err
    assert fake_bazel.calls() == [] and not (tmp_path / "dist").exists()


def test_ready_made_wheels_of_another_version_are_refused(run_cli, line, fake_bazel, tmp_path):
    """--artifacts: wheels another machine's Bazel wrote; one of another version is not drafted.
    The refusal reads the wheels' names only, so they are the plan's names a day earlier (no build)."""
    root, ws = line
    plan = make_plan(config.load_project(root), "nightly", date=DAY.replace(day=22), workspace=ws)
    ready = tmp_path / "ready"
    ready.mkdir()
    for name in plan.wheels:
        (ready / name.replace(VERSION, "0.11.1.dev20261121")).write_bytes(b"PK\x05\x06" + bytes(18))
    code, out, err = run_cli("build", "--kind", "nightly", "--date", DATE, "--root", root,
                             "--dist", tmp_path / "dist2", "--artifacts", ready)
    assert code == 2 and "Bazel stamped version 0.11.1.dev20261121, the plan builds 0.11.1.dev20261122" in err
    assert len(err.strip().splitlines()) == 1, err
    assert fake_bazel.calls() == [] and not (tmp_path / "dist2").exists()


def test_a_major_the_pinned_jaxlib_does_not_know_is_refused_for_every_major_of_the_line(
        run_cli, fake_bazel, tmp_path):
    """jaxlib up to 0.11.0 lists jax_rocm7_plugin only: the line's rocm10 cell is refused before
    Bazel runs (release.sources.jaxlib_plugins, asked for every major of a jax-tree line)."""
    root = jax_tree_line(tmp_path / "line", pythons=("3.12",))
    heads = jax_workspace(tmp_path / "ws", plugin_support='_PLUGIN_MODULE_NAMES = {"rocm": ["jax_rocm7_plugin"]}\n')
    (root / "deps.yaml").write_text(JAX_TREE_DEPS.replace(SHA, heads["jax"]).replace(XLA, heads["xla"]))
    code, out, err = build(run_cli, root, tmp_path / "ws", tmp_path / "dist")
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert "rocm10 cell" in err and fake_bazel.calls() == []


def test_a_majors_rocm_missing_here_is_refused_before_bazel_runs(run_cli, line, fake_bazel, tmp_path,
                                                                  rocm_dirs, monkeypatch):
    root, ws = line
    monkeypatch.setenv(jax_tree.ROCM_PATHS_ENV, f"7={rocm_dirs[7]} 10={tmp_path / 'nowhere' / 'rocm-10.0.0'}")
    code, out, err = build(run_cli, root, ws, tmp_path / "dist")
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert "nowhere/rocm-10.0.0: no such directory; expected ROCm 10 for the rocm10 wheels" in err
    assert fake_bazel.calls() == [] and not (tmp_path / "dist").exists()


def test_each_jax_tree_wheel_carries_the_sbom_of_its_major_and_verify_holds_it_to_it(
        run_cli, fake_bazel, tmp_path, monkeypatch):
    """As the rocm-jax packer does, each wheel of jax's targets gets the PEP 770 SBOM when the
    revision map goes in: it describes the wheel, lists the map's sources, names its own major's
    ROCm release and the ROCm libraries its objects load; the Bazel build is not run again for
    it, the same wheel gives the same bytes, and verify of the line holds every wheel to it (one
    without fails in one line)."""
    from release.build import sbom
    from release.build.jax_tree_wheels import with_revisions
    from release.core.wheelfile import read_record
    from release.jobs.verify import VerifyOptions, run_verify
    from tests.support.crafted import craft
    from tests.support.elf import compile_so
    from tests.test_sbom import validate_cdx

    hip = compile_so(tmp_path / "stubs" / "libamdhip64.so.7", soname="libamdhip64.so.7")
    root = jax_tree_line(tmp_path / "line", pythons=("3.12",))
    links = f"build:rocm_clang_hermetic --linkopt=-Wl,--no-as-needed --linkopt={hip}\n"
    heads = jax_workspace(tmp_path / "ws", bazelrc=ROCM_BAZELRC + links)
    (root / "deps.yaml").write_text(JAX_TREE_DEPS.replace(SHA, heads["jax"]).replace(XLA, heads["xla"]))
    dist = tmp_path / "dist"
    code, out, err = build(run_cli, root, tmp_path / "ws", dist)
    assert code == 0, err
    plan = make_plan(config.load_project(root), "nightly", date=DAY.replace(day=22), workspace=tmp_path / "ws")
    revisions = json.loads((dist / VERSION / "revisions.json").read_text())["deps"]
    wheels = []
    for group in plan.majors:
        for name in group.wheels:
            wheel = dist / VERSION / name
            wheels.append(wheel)
            dist_name = f"jax-rocm{group.major}-{'pjrt' if name == group.pjrt_wheel else 'plugin'}"
            with zipfile.ZipFile(wheel) as zf:
                [member] = [n for n in zf.namelist() if sbom.is_member(n)]
                doc = json.loads(zf.read(member))
            assert member == f"{name.split('-')[0]}-{VERSION}.dist-info/sboms/{dist_name}.cdx.json"
            assert member in read_record(wheel) and validate_cdx(doc) is None
            assert doc["metadata"]["component"]["name"] == dist_name
            assert doc["metadata"]["component"]["version"] == VERSION
            listed = {c["name"]: c["version"] for c in doc["components"] if c["bom-ref"].startswith("source:")}
            assert listed == {n: r["commit"] for n, r in revisions.items()}
            [rocm] = [c for c in doc["components"] if c["bom-ref"] == "rocm"]
            assert rocm["version"] == group.rocm_version
            assert [c["name"] for c in rocm["components"]] == ["libamdhip64.so.7"]

    class Bar:
        def describe(self, text): ...

        def advance(self, n): ...

    result = run_verify(VerifyOptions(tuple(wheels), root=root), Bar())
    assert [r.status("sbom") for r in result.reports] == ["ok"] * len(wheels)
    # promoted without rebuilding (release promote), its SBOM moves with it and still agrees
    from release.build.promote import promote_wheel
    promoted = promote_wheel(wheels[-1], "release", tmp_path / "promoted").output
    assert run_verify(VerifyOptions((promoted,), root=root), Bar()).reports[0].status("sbom") == "ok"
    member = next(n for n in zipfile.ZipFile(wheels[-1]).namelist() if sbom.is_member(n))
    bare = craft(wheels[-1], tmp_path / "bare" / wheels[-1].name, drop=(member,))
    [report] = run_verify(VerifyOptions((bare,), root=root), Bar()).reports
    assert [f.message for f in report.errors if f.check == "sbom"] == [
        "no CycloneDX SBOM (<dist-info>/sboms/<dist>.cdx.json, PEP 770); this line's layout writes one "
        "into every wheel"]

    # the same wheel of jax's target, again and from a wheel that has one: the same bytes, one SBOM
    ten = plan.majors[1]
    artifact = dist / VERSION / "artifacts" / ten.pjrt_wheel
    again = [with_revisions(src, tmp_path / where, plan.revisions, ten.rocm_version, root)
             for src, where in ((artifact, "a"), (artifact, "b"), (dist / VERSION / artifact.name, "c"))]
    assert again[0][1] == again[1][1] == again[2][1]
    assert again[0][0].read_bytes() == (dist / VERSION / artifact.name).read_bytes()

    # another SOURCE_DATE_EPOCH is another wheel: the build writes them again (Bazel does not run)
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    fake_bazel.clear()
    code, out, err = build(run_cli, root, tmp_path / "ws", dist)
    assert code == 0, err
    steps = {s["step"]: s["status"] for s in json.loads(out)["steps"]}
    assert {n: st for n, st in steps.items() if n.startswith("wheel_")} == {
        n: "ran" for n in steps if n.startswith("wheel_")} and len(steps) == 8
    assert fake_bazel.calls() == []
    with zipfile.ZipFile(dist / VERSION / ten.pjrt_wheel) as zf:
        assert {i.date_time for i in zf.infolist()} == {(2023, 11, 14, 22, 13, 20)}

    # the line's own soname list changes: the wheels are written again (Bazel does not run) and
    # their SBOMs list by the new list
    runtime = root / "jax_rocm_plugin" / "rocm_runtime.json"
    data = json.loads(runtime.read_text())
    for version in ("7.2.0", "10.0.0"):
        data["releases"][version] = {"sources": ["this line's own"], "locations": {"/opt/rocm/lib": ["libother.so.1"]}}
    runtime.write_text(json.dumps(data))
    code, out, err = build(run_cli, root, tmp_path / "ws", dist)
    assert code == 0, err
    steps = {s["step"]: s["status"] for s in json.loads(out)["steps"]}
    assert {n for n, st in steps.items() if st == "ran"} == {n for n in steps if n.startswith("wheel_")}
    assert fake_bazel.calls() == []
    with zipfile.ZipFile(dist / VERSION / ten.pjrt_wheel) as zf:
        [member] = [n for n in zf.namelist() if sbom.is_member(n)]
        [rocm] = [c for c in json.loads(zf.read(member))["components"] if c["bom-ref"] == "rocm"]
    assert "components" not in rocm  # the object needs libamdhip64.so.7, which this list does not hold
