"""A line says what it builds (docs/lines.md): its ROCm majors (version_info.json ``rocm_versions``,
one a major, ``rocm_version`` among them for older readers), its Pythons (``pythons``), and its
layout's Bazel targets and configs; the build plan then has one group of wheels per major (its
PJRT wheel, its plugin wheel per Python), and every (major, Python) cell is in it.

Bad input is one line naming the file, the key, the value and what was expected (exit 2)."""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import shutil
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from release.build import jax_tree, layouts
from release.build.plan import make_plan
from release.core import config, naming
from release.core.errors import ConfigError, UserError
from tests.support.project import REPO, copy_config

DAY = dt.date(2026, 11, 27)
SHA = "0123456789abcdef0123456789abcdef01234567"
XLA = "753e5e56a0e465dbf7ee166573122564d83a1746"
JAX_TREE_DEPS = f"""deps:
  plugin:
    url: https://github.com/ROCm/jax
    branch: rocm-jaxlib-v0.11.x
    commit: {SHA}
    roll: head
  jax:
    url: https://github.com/ROCm/jax
    branch: rocm-jaxlib-v0.11.x
    commit: {SHA}
    line: "0.11.1"
    roll: {{same: plugin}}
  xla:
    url: https://github.com/ROCm/xla
    branch: rocm-jaxlib-v0.11.1
    commit: {XLA}
    roll: {{via: jax, file: third_party/xla/revision.bzl, var: XLA_COMMIT}}
"""


def _info(tmp_path: Path, **extra) -> Path:
    data = {"version": "0.11.1", "rocm_version": "7.2.0", "nightly_scheme": "date"} | extra
    path = tmp_path / "version_info.json"
    path.write_text(json.dumps(data, indent=2) + "\n")
    return path


def jax_tree_line(root: Path, rocm_versions=("7.2.0", "10.0.0"), pythons=("3.12", "3.13", "3.14", "3.15"),
                  version="0.11.1") -> Path:
    """A jax-tree line in ``root`` with its own plugin dir whose soname list has ROCm 10.0.0 (a
    copy of 7.2.0's, a stand-in: the real list is another change's)."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "deps.yaml").write_text(JAX_TREE_DEPS.replace('"0.11.1"', json.dumps(version)))
    extra = {"rocm_versions": list(rocm_versions)} if rocm_versions else {}
    if pythons:
        extra["pythons"] = list(pythons)
    _info(root, rocm_version=rocm_versions[0] if rocm_versions else "7.2.0", version=version, **extra)
    shutil.copytree(REPO / "jax_rocm_plugin", root / "jax_rocm_plugin")
    runtime = root / "jax_rocm_plugin" / "rocm_runtime.json"
    data = json.loads(runtime.read_text())
    data["releases"]["10.0.0"] = data["releases"]["7.2.0"]
    runtime.write_text(json.dumps(data))
    return root


# ------------------------------------------------------------------ version_info.json


def test_an_older_file_builds_its_one_rocm_version_and_the_layouts_pythons(tmp_path):
    info = config.load_version_info(_info(tmp_path))
    assert (info.rocms, info.rocm_majors, info.pythons) == (("7.2.0",), (7,), None)


@pytest.mark.parametrize("written, rocms", [(["7.2.0", "10.0.0"], ("7.2.0", "10.0.0")),
                                            (["10.0.0", "7.2.0"], ("7.2.0", "10.0.0")),
                                            (["10.1.0", "6.4.0", "7.2.0"], ("7.2.0", "10.1.0", "6.4.0"))])
def test_rocm_version_comes_first_and_the_rest_as_written(tmp_path, written, rocms):
    """Readers of rocm_version (and the plan's first group) see the same ROCm."""
    info = config.load_version_info(_info(tmp_path, rocm_versions=written))
    assert info.rocms == rocms and info.rocm_majors == tuple(int(v.split(".")[0]) for v in rocms)


@pytest.mark.parametrize("extra, key, expected", [
    ({"rocm_versions": "7.2.0"}, "rocm_versions", "a list of ROCm versions"),
    ({"rocm_versions": []}, "rocm_versions", "a list of ROCm versions"),
    ({"rocm_versions": ["7.2.0", "10"]}, "rocm_versions[1]", "A.B.C with a major of 1 or more"),
    ({"rocm_versions": ["7.2.0", 10]}, "rocm_versions[1]", "A.B.C with a major of 1 or more"),
    ({"rocm_versions": ["7.2.0", "0.1.0"]}, "rocm_versions[1]", "A.B.C with a major of 1 or more"),
    ({"rocm_versions": ["7.2.0", "7.1.1"]}, "rocm_versions[1]", "one ROCm version a major (7.2.0 is ROCm 7"),
    ({"rocm_versions": ["7.1.1", "10.0.0"]}, "rocm_versions", "a list holding rocm_version 7.2.0"),
    ({"pythons": "3.12"}, "pythons", "a list of Pythons 3.X"),
    ({"pythons": []}, "pythons", "a list of Pythons 3.X"),
    ({"pythons": ["3.12", "3.012"]}, "pythons[1]", "a Python 3.X in quotes"),
    ({"pythons": ["3.12", 3.13]}, "pythons[1]", "a Python 3.X in quotes"),
    ({"pythons": ["2.7"]}, "pythons[0]", "a Python 3.X in quotes"),
    ({"pythons": ["3.13", "3.12"]}, "pythons", "each Python once, in ascending order"),
    ({"pythons": ["3.12", "3.12"]}, "pythons", "each Python once, in ascending order"),
    ({"rocm_majors": [7]}, "rocm_majors", "only version, rocm_version, nightly_scheme, rocm_versions, pythons"),
])
def test_a_bad_build_key_is_one_line_naming_file_key_value_and_expectation(tmp_path, extra, key, expected):
    path = _info(tmp_path, **extra)
    with pytest.raises(ConfigError) as caught:
        config.load_version_info(path)
    message = str(caught.value)
    assert "\n" not in message and message.startswith(f"{path}: {key}: got ") and expected in message


@given(st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=8)
                    | st.sampled_from(["7.2.0", "10.0.0", "3.12", "3.13"]),
                    lambda inner: st.lists(inner, max_size=4), max_leaves=6),
       st.sampled_from(["rocm_versions", "pythons"]))
def test_any_value_of_a_build_key_reads_as_a_line_or_is_one_config_error(value, key):
    """Nothing else escapes (a TypeError, a crash on a nested list): what reads is a valid line."""
    text = json.dumps({"version": "0.11.1", "rocm_version": "7.2.0", "nightly_scheme": "date", key: value})
    try:
        info = config.parse_version_info(Path("version_info.json"), text)
    except ConfigError as exc:
        assert "\n" not in str(exc) and str(exc).startswith("version_info.json: ")
        return
    assert info.rocms[0] == "7.2.0" and len(set(info.rocm_majors)) == len(info.rocm_majors)
    if info.pythons is not None:
        minors = [int(p.split(".")[1]) for p in info.pythons]
        assert minors == sorted(set(minors)) and minors


# ------------------------------------------------------------------ the line's layout


def test_the_rocm_jax_line_keeps_its_configs_targets_and_pythons(project_dir):
    line = layouts.line_build(config.load_project(project_dir))
    assert line.layout.name == layouts.ROCM_JAX and line.rocm_versions == ("7.2.0",)
    assert line.pythons == ("3.11", "3.12", "3.13", "3.14")
    assert line.layout.targets_of("pjrt") == ("//pjrt:pjrt_c_api_gpu_plugin.so",)
    assert line.layout.configs == ("rocm_build",) and line.layout.platform == naming.PLATFORM


def test_a_jax_tree_line_builds_jax_own_targets_with_jax_configs(tmp_path):
    line = layouts.line_build(config.load_project(jax_tree_line(tmp_path / "line")))
    assert line.layout.name == layouts.JAX_TREE
    assert dict(line.layout.targets) == {"pjrt": ("//jaxlib/tools:jax_rocm_pjrt_wheel",),
                                         "plugin": ("//jaxlib/tools:jax_rocm_plugin_wheel",)}
    assert (line.layout.bazelrc, line.layout.configs) == ("build/rocm/rocm.bazelrc", ("rocm_release_wheel",))
    assert line.majors == (7, 10) and len(line.cells) == 8


def test_a_rocm_jax_line_naming_two_majors_is_refused(project_dir):
    path = project_dir / "version_info.json"
    data = json.loads(path.read_text())
    path.write_text(json.dumps(data | {"rocm_versions": ["7.2.0", "10.0.0"]}))
    with pytest.raises(ConfigError, match=r"version_info.json: rocm_versions: got .*expected one ROCm version: "
                                          "the rocm-jax layout's configs"):
        layouts.line_build(config.load_project(project_dir))


@pytest.mark.parametrize("pythons, match", [
    (["3.12", "3.99"], r"version_info.json: pythons: got .*3.99 is not one"),
])
def test_a_rocm_jax_line_names_only_pythons_its_configs_build(project_dir, pythons, match):
    path = project_dir / "version_info.json"
    path.write_text(json.dumps(json.loads(path.read_text()) | {"pythons": pythons}))
    with pytest.raises(ConfigError, match=match):
        layouts.line_build(config.load_project(project_dir))


def test_a_rocm_jax_line_narrows_to_its_named_pythons(project_dir):
    path = project_dir / "version_info.json"
    path.write_text(json.dumps(json.loads(path.read_text()) | {"pythons": ["3.12", "3.13"]}))
    project = config.load_project(project_dir)
    assert layouts.line_build(project).pythons == ("3.12", "3.13")
    with pytest.raises(UserError, match=r"--python 3.11: line 0.9.1 builds 3.12, 3.13 \(pythons of version_info"):
        layouts.line_build(project, ("3.11",))


def test_a_jax_tree_line_without_its_pythons_is_refused_naming_the_key(tmp_path):
    root = jax_tree_line(tmp_path / "line", pythons=())
    with pytest.raises(ConfigError, match=r"version_info.json: pythons: got nothing \(missing\); expected the "
                                          "Pythons this jax-tree line builds"):
        layouts.line_build(config.load_project(root))


@pytest.mark.parametrize("version, refused", [("0.11.1", True), ("0.12.0", True), ("0.10.2", False)])
def test_python_3_11_is_refused_on_a_line_of_jax_0_11_on(tmp_path, version, refused):
    """jax 0.11 needs Python >= 3.12 (TheRock excludes 3.11 for 0.11.x)."""
    root = jax_tree_line(tmp_path / "line", pythons=("3.11", "3.12"), version=version)
    project = config.load_project(root)
    if not refused:
        assert layouts.line_build(project).pythons == ("3.11", "3.12")
        return
    with pytest.raises(ConfigError, match=rf"pythons: got .*expected Pythons 3.12 and newer: jax {version} "
                                          "needs Python >= 3.12"):
        layouts.line_build(project)


# ------------------------------------------------------------------ the plan's cells


def _plan(root: Path, kind="nightly", **kwargs):
    return make_plan(config.load_project(root), kind, date=DAY, workspace=Path("/ws"), **kwargs)


def test_a_two_major_four_python_plan_has_every_cell_each_major_whole(tmp_path):
    plan = _plan(jax_tree_line(tmp_path / "line"))
    version = "0.11.1.dev20261127"
    assert plan.rocm_versions == ("7.2.0", "10.0.0") and plan.pythons == ("3.12", "3.13", "3.14", "3.15")
    assert plan.cells == tuple((m, p) for m in (7, 10) for p in plan.pythons)
    for group in plan.majors:
        assert group.pjrt_wheel == f"jax_rocm{group.major}_pjrt-{version}-py3-none-manylinux_2_27_x86_64.whl"
        assert [n for _, n in group.plugin_wheels] == [
            f"jax_rocm{group.major}_plugin-{version}-cp3{p[2:]}-cp3{p[2:]}-manylinux_2_27_x86_64.whl"
            for p in plan.pythons]
    assert len(plan.wheels) == len(set(plan.wheels)) == 2 * (1 + 4)
    assert set(plan.wheels) <= set(plan.assets)
    data = plan.to_json()
    assert data["rocm_version"] == "7.2.0" and data["wheels"]["pjrt"] == plan.group(7).pjrt_wheel
    assert [g["major"] for g in data["majors"]] == [7, 10]
    assert data["majors"][1]["plugin"] == dict(plan.group(10).plugin_wheels)


def test_a_one_major_plan_keeps_every_key_it_had(project_dir):
    plan = _plan(project_dir, pythons=("3.12", "3.13"))
    data = plan.to_json()
    version = "0.9.1.dev20261127"
    assert data["rocm_version"] == "7.2.0" and data["pythons"] == ["3.12", "3.13"]
    assert data["wheels"] == {"pjrt": naming.pjrt_wheel(7, version),
                              "plugin": {p: naming.plugin_wheel(7, version, p) for p in ("3.12", "3.13")}}
    assert data["majors"] == [{"major": 7, "rocm_version": "7.2.0", **data["wheels"]}]
    assert data["layout"] == "rocm-jax" and all("--config=rocm_build" in c for c in data["bazel_commands"])


def test_a_python_narrows_every_major_alike(tmp_path):
    plan = _plan(jax_tree_line(tmp_path / "line"), pythons=("3.14",))
    assert plan.cells == ((7, "3.14"), (10, "3.14"))


def test_the_jax_tree_commands_build_each_majors_wheels_stamped_with_the_plans_version(tmp_path, monkeypatch):
    monkeypatch.delenv(jax_tree.ROCM_PATHS_ENV, raising=False)
    plan = _plan(jax_tree_line(tmp_path / "line"), pythons=("3.12", "3.13"))
    commands = [list(c) for c in plan.bazel_commands]
    assert len(commands) == 2 * (1 + 2)  # per major: pjrt once, plugin per Python
    for argv in commands:
        assert argv[:3] == ["bazel", "--bazelrc=build/rocm/rocm.bazelrc", "build"]
        assert "--config=rocm_release_wheel" in argv and not any("rocm_build" in a for a in argv)
        assert {"--repo_env=ML_WHEEL_TYPE=nightly", "--repo_env=ML_WHEEL_BUILD_DATE=20261127",
                f"--repo_env=ML_WHEEL_GIT_HASH={SHA}", f"--//jaxlib/tools:jaxlib_git_hash={SHA}"} <= set(argv)
    targets = [(a[-3], next(x for x in a if "ROCM_PATH" in x), next(x for x in a if "HERMETIC_PYTHON" in x))
               for a in commands]
    assert targets == [(t, f"--repo_env=ROCM_PATH=/opt/rocm-{rocm}", f"--repo_env=HERMETIC_PYTHON_VERSION={py}")
                       for rocm in ("7.2.0", "10.0.0")
                       for t, py in (("//jaxlib/tools:jax_rocm_pjrt_wheel", "3.12"),
                                     ("//jaxlib/tools:jax_rocm_plugin_wheel", "3.12"),
                                     ("//jaxlib/tools:jax_rocm_plugin_wheel", "3.13"))]


@pytest.mark.parametrize("version", ["0.11.1", "0.11.1rc2", "0.11.1.post3", "0.11.1.dev20261127",
                                     "0.11.1.dev20261127004", "0.11.1.post2.dev20261127"])
def test_the_stamp_makes_bazel_write_exactly_the_plans_version(version):
    """xla's suffix rule (python_wheel_version_suffix_repository) over jax's _version gives back
    the version the tool computed, for every kind it builds."""
    flags = jax_tree.stamp(version, "0.11.1", SHA)
    assert jax_tree.stamped_version(flags, "0.11.1") == version


@given(st.integers(0, 20), st.integers(1, 30), st.dates(dt.date(2000, 1, 1), dt.date(2099, 12, 31)),
       st.sampled_from(["release", "rc", "post", "nightly", "post-nightly"]))
def test_any_version_of_the_line_round_trips_through_the_stamp(minor, n, day, kind):
    line = f"0.{minor}.1"
    version = {"release": line, "rc": f"{line}rc{n}", "post": f"{line}.post{n}",
               "nightly": f"{line}.dev{day:%Y%m%d}", "post-nightly": f"{line}.post{n}.dev{day:%Y%m%d}"}[kind]
    assert jax_tree.stamped_version(jax_tree.stamp(version, line, SHA), line) == version


def test_a_version_off_jaxs_line_cannot_be_stamped():
    with pytest.raises(UserError, match="version 0.11.2.dev20261127 is not on jax's line 0.11.1"):
        jax_tree.stamp("0.11.2.dev20261127", "0.11.1", SHA)


@pytest.mark.parametrize("text, majors", [
    (None, ()),
    ('ROCM_MAJOR_VERSION = "7"\n', (7,)),
    ('_version = rocm_version_number()\nROCM_MAJOR_VERSION = str(_version // 10000)\n', None),
    ("# nothing of ROCm here\n", ()),
])
def test_a_jax_tree_builds_the_majors_its_rocm_version_file_allows(text, majors):
    assert jax_tree.tree_majors(text) == majors


@pytest.mark.parametrize("text, refused", [
    ('ROCM_MAJOR_VERSION = "7"\n', "builds ROCm 7 only"),
    (None, "builds no ROCM_MAJOR_VERSION"),
    ('ROCM_MAJOR_VERSION = str(rocm_version_number() // 10000)\n', None),
])
def test_a_major_the_jax_tree_does_not_build_is_refused_before_building(tmp_path, text, refused):
    if text is not None:
        (tmp_path / "jaxlib" / "rocm").mkdir(parents=True)
        (tmp_path / jax_tree.ROCM_VERSION_FILE).write_text(text)
    if refused is None:
        jax_tree.check_tree_majors(tmp_path, (7, 10))
        return
    with pytest.raises(UserError, match=rf"{jax_tree.ROCM_VERSION_FILE}: the jax tree {refused}.*names ROCm 10"):
        jax_tree.check_tree_majors(tmp_path, (7, 10) if "7" in (text or "") else (10,))


def test_the_first_group_is_what_one_major_readers_see(tmp_path):
    plan = _plan(jax_tree_line(tmp_path / "line", rocm_versions=("10.0.0", "7.2.0")))
    assert (plan.rocm_version, plan.rocm_major, plan.pjrt_wheel) == ("10.0.0", 10, plan.group(10).pjrt_wheel)
    assert plan.plugin_wheels == plan.group(10).plugin_wheels
    assert dataclasses.replace(plan, majors=plan.majors[1:]).rocm_versions == ("7.2.0",)


def test_copy_config_is_a_rocm_jax_line(tmp_path):
    root = copy_config(tmp_path)
    assert layouts.layout_of(config.load_project(root)).name == layouts.ROCM_JAX


@pytest.mark.parametrize("value, paths", [
    ("", {7: "/opt/rocm-7.2.0", 10: "/opt/rocm-10.0.0"}),
    ("10=/srv/therock-10", {7: "/opt/rocm-7.2.0", 10: "/srv/therock-10"}),
    ("7=/a, 10=/b", {7: "/a", 10: "/b"}),
    ("6=/old 10=/b", {7: "/opt/rocm-7.2.0", 10: "/b"}),  # a major the line does not build: not its business
])
def test_each_majors_rocm_is_opt_rocm_or_what_the_setting_says(value, paths):
    assert jax_tree.rocm_paths(("7.2.0", "10.0.0"), {jax_tree.ROCM_PATHS_ENV: value}) == paths


@pytest.mark.parametrize("word", ["10", "ten=/b", "10=relative/dir", "=/b"])
def test_a_bad_rocm_paths_word_is_one_line_naming_it(word):
    with pytest.raises(UserError, match=rf"\$RELEASE_ROCM_PATHS: '{word}' is not MAJOR=/absolute/dir"):
        jax_tree.rocm_paths(("7.2.0",), {jax_tree.ROCM_PATHS_ENV: f"7=/a {word}"})
