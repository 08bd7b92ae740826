"""The ``with-rocm`` check: ``pip install jax-rocmN-plugin[with-rocm]`` on a machine with no
system ROCm loads. Each DT_NEEDED of the plugin's objects and of its PJRT wheel's (verified
together) resolves through the RUNPATH to a directory that the extra's ROCm runtime wheels
install (TheRock's ``rocm[libraries]``: ``_rocm_sdk_core/lib`` and the multi-arch
``_rocm_sdk_libraries/lib`` or a per-family ``_rocm_sdk_libraries_<family>/lib``) and that holds
that soname in the wheel's ROCm release, in every way an index can answer the extra;
``/opt/rocm`` does not count. A pin on another major's ROCm fails; an extra naming packages whose
files nothing records is not resolved and says so."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from release.check.verify import ERROR, Options, verify_wheels
from tests.support import sdk_wheels
from tests.support.crafted import build_pair
from tests.support.elf import compile_so

ONE_DEEP = ["$ORIGIN/../_rocm_sdk_core/lib", "$ORIGIN/../_rocm_sdk_libraries/lib",
            "$ORIGIN/../_rocm_sdk_libraries_gfx94X_dcgpu/lib", "/opt/rocm/lib"]
TWO_DEEP = [e.replace("$ORIGIN/..", "$ORIGIN/../..") for e in ONE_DEEP]


@pytest.fixture(scope="module")
def stubs(tmp_path_factory):
    base = tmp_path_factory.mktemp("sdk")
    return {n: compile_so(base / n, soname=n) for n in
            ("libamdhip64.so.7", "libhipblas.so.3", "librocm-core.so.1")}


@pytest.fixture(scope="module")
def loading(tmp_path_factory, wheel_artifacts, stubs):
    """A pair linked as jax links: the PJRT object needs HIP, a kernel hipBLAS."""
    base = tmp_path_factory.mktemp("loading")
    objects = {
        "xla_rocm_plugin.so": compile_so(base / "so" / "xla_rocm_plugin.so", TWO_DEEP,
                                         links=(stubs["libamdhip64.so.7"],)),
        "_linalg.so": compile_so(base / "so" / "_linalg.so", ONE_DEEP, links=(stubs["libhipblas.so.3"],)),
    }
    return build_pair(base / "wheels", wheel_artifacts["good"], overrides=objects)


def with_extra(pair, dest, requirements, spelled="with-rocm"):
    """The pair with the plugin's with-rocm extra replaced by ``requirements`` (None: no extra)."""
    return [pair["pjrt"], sdk_wheels.with_extra(pair["plugin"], dest, requirements, spelled)]


def with_rocm(wheels, **options):
    """(plugin's status, its with-rocm messages, the members they name); the PJRT's status."""
    pjrt, plugin = verify_wheels(wheels, Options(**options))
    mine = [f for f in plugin.findings if f.check == "with-rocm"]
    assert pjrt.status("with-rocm") == "n/a"
    return plugin.status("with-rocm"), [f.message for f in mine], [f.member for f in mine], plugin


@pytest.mark.parametrize("requirement,spelled", [("rocm[libraries]==7.2.0", "with-rocm"),
                                                  ("ROCm[Libraries]==7.2.0", "with_rocm")])
def test_the_rocm_libraries_extra_loads_the_set_without_a_system_rocm(tmp_path, loading, requirement, spelled):
    """However the metadata spells the extra and the names (PEP 685, PEP 503)."""
    status, messages, _, plugin = with_rocm(with_extra(loading, tmp_path, [requirement], spelled))
    assert (status, messages) == ("ok", [])
    assert plugin.status("needed") == "ok"


def test_a_soname_only_a_system_rocm_ships_fails_with_the_extra_only(tmp_path, wheel_artifacts, stubs):
    """needed passes (/opt/rocm/lib holds it), with-rocm does not: nothing the extra installs does."""
    so = compile_so(tmp_path / "so" / "_prng.so", ONE_DEEP, links=(stubs["librocm-core.so.1"],))
    pair = build_pair(tmp_path / "w", wheel_artifacts["good"], overrides={"_prng.so": so})
    status, messages, members, plugin = with_rocm(with_extra(pair, tmp_path, ["rocm[libraries]==7.2.0"]))
    assert plugin.status("needed") == "ok"
    assert status == ERROR and members == ["jax_rocm7_plugin/_prng.so"] and len(messages) == 1
    assert messages[0].startswith("librocm-core.so.1 is not found once installed with its with-rocm extra "
                                  "(rocm[libraries]==7.2.0): the RUNPATH reaches none of what it installs")
    assert messages[0].endswith("; ROCm 7.2.0 has it in /opt/rocm/lib, /opt/rocm-7.2.0/lib, site-packages/rocm/lib")


def test_the_pjrt_wheel_the_plugin_requires_is_resolved_through_the_plugins_extra(tmp_path, loading):
    """rocm (no libraries) installs only the core: the kernel's hipBLAS is missing; with the
    PJRT wheel given too, its object is checked under the plugin's extra as well."""
    wheels = with_extra(loading, tmp_path, ["rocm==7.2.0"])
    status, messages, members, _ = with_rocm(wheels)
    assert status == ERROR and members == ["jax_rocm7_plugin/_linalg.so"]
    assert messages[0].startswith("libhipblas.so.3 is not found once installed")
    status, messages, members, _ = with_rocm(with_extra(loading, tmp_path / "none", ["rocm-sdk-libraries==7.2.0"]))
    assert members == ["jax_plugins/xla_rocm7/xla_rocm_plugin.so"] and "libamdhip64.so.7" in messages[0]


def test_every_way_an_index_answers_the_extra_must_load(tmp_path, wheel_artifacts, stubs):
    """rocm[libraries] is the arch-neutral package on the multi-arch index and a per-family one on
    a per-family index: an object reaching only the per-family directory fails the first."""
    per_family = [e for e in ONE_DEEP if not e.endswith("_rocm_sdk_libraries/lib")]
    so = compile_so(tmp_path / "so" / "_linalg.so", per_family, links=(stubs["libhipblas.so.3"],))
    pair = build_pair(tmp_path / "w", wheel_artifacts["good"], overrides={"_linalg.so": so})
    status, messages, _, _ = with_rocm(with_extra(pair, tmp_path / "a", ["rocm[libraries]==7.2.0"]))
    assert status == ERROR and "(site-packages/_rocm_sdk_core/lib, site-packages/_rocm_sdk_core/lib/rocm_sysdeps/" \
        "lib, site-packages/_rocm_sdk_libraries/lib)" in messages[0]
    exact = ["rocm-sdk-core==7.2.0", "rocm-sdk-libraries-gfx94X-dcgpu==7.2.0"]
    assert with_rocm(with_extra(pair, tmp_path / "b", exact))[:2] == ("ok", [])
    # and the other way round: reaching only the multi-arch directory fails a per-family index
    multi_arch = [e for e in ONE_DEEP if "gfx" not in e]
    so = compile_so(tmp_path / "so2" / "_linalg.so", multi_arch, links=(stubs["libhipblas.so.3"],))
    pair = build_pair(tmp_path / "w2", wheel_artifacts["good"], overrides={"_linalg.so": so})
    status, messages, _, _ = with_rocm(with_extra(pair, tmp_path / "c", ["rocm[libraries]==7.2.0"]))
    assert status == ERROR and len(messages) == 1 and "site-packages/_rocm_sdk_libraries_*/lib)" in messages[0]


@pytest.mark.parametrize("requirement,major", [("rocm[libraries]==10.1.0", 10), ("rocm-sdk-core~=6.4.0", 6)])
def test_a_pin_on_another_majors_rocm_fails(tmp_path, loading, requirement, major):
    status, messages, _, _ = with_rocm(with_extra(loading, tmp_path, ["rocm[libraries]", requirement]))
    name = requirement.split("[")[0].split("=")[0].split("~")[0]
    assert status == ERROR and len(messages) == 1
    assert messages[0].startswith(f"the with-rocm extra pins {name}") and messages[0].endswith(
        f", a ROCm {major} release; this is a rocm7 wheel")


@pytest.mark.parametrize("requirements,named", [
    (["amd_rocm_hip_runtime_instinct", "amd_hipblas_instinct"], "amd-rocm-hip-runtime-instinct, amd-hipblas-instinct"),
    (["rocm[libraries,foo]==7.2.0"], "rocm[foo]"),
    ([], "nothing"),
])
def test_an_extra_naming_what_nothing_records_is_not_resolved_and_says_so(tmp_path, loading, requirements, named):
    _, plugin = verify_wheels(with_extra(loading, tmp_path, requirements), Options())
    assert plugin.status("with-rocm") == "n/a"
    assert plugin.skipped["with-rocm"].startswith(f"the with-rocm extra names {named}, whose installed files")


def test_a_plugin_without_the_extra_has_nothing_to_resolve(tmp_path, loading):
    _, plugin = verify_wheels(with_extra(loading, tmp_path, None), Options())
    assert plugin.skipped["with-rocm"] == "the plugin declares no with-rocm extra"


LIBRARIES = ("rocm[libraries]", "rocm-sdk-libraries", "rocm-sdk-libraries-gfx94X-dcgpu", "ROCm[Libraries,devel]")
CORE = ("rocm", "rocm-sdk-core", "ROCm_SDK_Core", "rocm[devel]")


@given(st.lists(st.sampled_from(LIBRARIES + CORE + ("rocm-profiler",)), unique=True, min_size=1, max_size=4),
       st.sampled_from(["with-rocm", "with_rocm", "With.ROCm"]), st.sampled_from(["==7.2.0", "", ">=7.1"]))
def test_what_the_extra_installs_decides_what_loads(tmp_path_factory, loading, chosen, spelled, pin):
    """HIP loads iff something installs the core (the meta package requires it), hipBLAS iff a
    libraries package is installed, whatever the spelling of the names and of the extra."""
    wheels = with_extra(loading, tmp_path_factory.mktemp("x"), [c + pin for c in chosen], spelled)
    status, messages, members, _ = with_rocm(wheels)
    core = any(c.lower().startswith("rocm") and "libraries" not in c.lower() and "profiler" not in c.lower()
               or c.lower().startswith("rocm[") for c in chosen)
    libraries = any("libraries" in c.lower() for c in chosen)
    expected = ([] if core else ["jax_plugins/xla_rocm7/xla_rocm_plugin.so"]) + \
        ([] if libraries else ["jax_rocm7_plugin/_linalg.so"])
    assert sorted(members) == sorted(expected), (chosen, messages)
    assert status == ("ok" if not expected else ERROR)


def test_every_directory_a_runtime_wheel_installs_has_its_sonames_in_each_release():
    from release.core import rocm_runtime, rocm_sdk_wheels
    wheels = rocm_sdk_wheels.load()
    assert wheels is not None and len(wheels.sources) >= 3
    for version in rocm_runtime.known_versions():
        runtime = rocm_runtime.load(version)
        listed = {pattern for pattern, _ in runtime.locations}
        for package in wheels.packages.values():
            assert set(package.installs) <= listed, (version, package.installs)


def sdk_file(tmp_path, entry):
    import json

    from release.core import rocm_runtime
    data = json.loads(rocm_runtime.data_path().read_text())
    data["sdk_wheels"] = entry
    (tmp_path / "jax_rocm_plugin").mkdir()
    path = tmp_path / "jax_rocm_plugin" / "rocm_runtime.json"
    path.write_text(json.dumps(data))
    return path


TOP = "an object with a non-empty list of sources and packages"


@pytest.mark.parametrize("entry,where,expected", [
    ({"sources": [], "packages": {}}, "top level", TOP),
    ({"sources": "x", "packages": {}}, "top level", TOP),
    ({"sources": ["x"], "packages": []}, "top level", TOP),
    ({"sources": ["x"], "packages": {"rocm": {"installs": ["/opt/rocm/lib"]}}}, "packages.rocm.installs",
     "a list of directories under site-packages/"),
    ({"sources": ["x"], "packages": {"rocm": {"extras": {"libraries": ["rocm-sdk-libraries"]}}}},
     "packages.rocm.extras", "a map of extra -> list of groups of package names"),
    ({"sources": ["x"], "packages": {"rocm": {"requires": "rocm-sdk-core"}}}, "packages.rocm.requires",
     "a list of package names"),
    ({"sources": ["x"], "packages": {"rocm": {"requires": [1]}}}, "packages.rocm.requires", "a list of package names"),
    ({"sources": ["x"], "packages": {"rocm": {"install": []}}}, "packages.rocm",
     "an object with installs, requires and extras"),
])
def test_a_malformed_list_of_runtime_wheels_is_one_line(tmp_path, entry, where, expected):
    from release.core import rocm_sdk_wheels
    from release.core.errors import UserError
    path = sdk_file(tmp_path, entry)
    with pytest.raises(UserError) as caught:
        rocm_sdk_wheels.load(tmp_path)
    assert str(caught.value) == f"{path}: sdk_wheels.{where}: expected {expected}"


def test_runtime_wheels_install_what_they_require_once_however_their_names_are_written(tmp_path):
    """Names are matched normalized (ROCm_SDK_Core is rocm-sdk-core), a package installs its own
    directories and those of what it requires (a cycle ends), directories are kept without a
    trailing slash, and the ways an index may answer are bounded."""
    from release.core import rocm_sdk_wheels
    sdk_file(tmp_path, {"sources": ["x"], "packages": {
        "ROCm_SDK_Core": {"installs": ["site-packages/_core/lib/"], "requires": ["helper"], "extras": {}},
        "helper": {"installs": ["site-packages/_helper/lib"], "requires": ["ROCm-SDK-core"]},
        "many": {"extras": {f"e{i}": [[f"a{i}", f"b{i}"]] for i in range(8)}},
        **{f"{c}{i}": {"installs": [f"site-packages/_{c}{i}"]} for i in range(8) for c in "ab"}}})
    wheels = rocm_sdk_wheels.load(tmp_path)
    assert wheels.layouts([("rocm-sdk-core", [])]) == rocm_sdk_wheels.Layouts(
        (frozenset({"site-packages/_core/lib", "site-packages/_helper/lib"}),), ())
    many = wheels.layouts([("many", [f"e{i}" for i in range(8)])])
    assert 1 < len(many.ways) <= rocm_sdk_wheels.MAX_WAYS and not many.unknown
