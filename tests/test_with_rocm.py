"""The ``with-rocm`` check's rules, one by one, on wheels read into memory (ELF facts given, no
object compiled: fast enough to run per mutant). The plugin's ``with-rocm`` extra (however its
METADATA spells it) names TheRock's runtime wheels; every DT_NEEDED of the plugin's objects and of
its own major's PJRT wheel must resolve through the RUNPATH to the wheels' own objects, a
manylinux system library, or a directory the extra installs holding it in the wheel's ROCm
release, in every way an index answers the extra; one line per object and library, naming what
was asked, what the way installs and where ROCm has it. A pin on another major's ROCm is an error;
an extra naming what nothing records is not resolved and says why. Whole wheels:
tests/test_verify_with_rocm.py."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from release.check.findings import ERROR, Options
from release.check.with_rocm import EXTRA, G_UNINSTALLED, _other_majors, check_with_rocm, extra_requirements
from release.core import rocm_runtime, rocm_sdk_wheels
from release.core.elffacts import ElfFacts
from release.core.naming import Identity
from release.core.scan import Member, Scan

VERSION = "0.11.1"
PLUGIN = f"jax_rocm7_plugin-{VERSION}-cp312-cp312-manylinux_2_28_x86_64.whl"
PJRT = f"jax_rocm7_pjrt-{VERSION}-py3-none-manylinux_2_28_x86_64.whl"
CORE = "$ORIGIN/../_rocm_sdk_core/lib"
MULTI = "$ORIGIN/../_rocm_sdk_libraries/lib"
FAMILY = "$ORIGIN/../_rocm_sdk_libraries_gfx94X_dcgpu/lib"
SYSTEM = "/opt/rocm/lib"
CORE_DIRS = "site-packages/_rocm_sdk_core/lib, site-packages/_rocm_sdk_core/lib/rocm_sysdeps/lib"
HIP, BLAS, ROCM_CORE = "libamdhip64.so.7", "libhipblas.so.3", "librocm-core.so.1"


def so(name: str, needed: tuple[str, ...], runpath: tuple[str, ...] | None = (CORE, MULTI, FAMILY, SYSTEM),
       rpath: tuple[str, ...] | None = None, error: str | None = None) -> Member:
    member = Member(name, 1, 0o755)
    member.elf = ElfFacts(runpath, rpath, needed, None, error=error)
    return member


def metadata(dist_info: str, extra: list[str] | None, spelled: str = "with-rocm", summary: str = "(ROCm 7.2.0)",
             lines: tuple[str, ...] = ()) -> Member:
    text = f"Metadata-Version: 2.1\nName: x\nVersion: {VERSION}\nSummary: JAX Plugin {summary}\n"
    text += "Requires-Dist: jax-rocm7-pjrt==0.11.1\n" + "".join(f"{line}\n" for line in lines)
    if extra is not None:
        text += f"Provides-Extra: {spelled}\n" + "".join(f'Requires-Dist: {r}; extra == "{spelled}"\n' for r in extra)
    return Member(f"{dist_info}/METADATA", len(text), 0o644, text=text.encode())


def plugin(extra: list[str] | None = ("rocm[libraries]==7.2.0",), objects: tuple[Member, ...] = (), *,
           name: str = PLUGIN, **meta) -> Scan:
    dist_info = f"{name.split('-')[0]}-{VERSION}.dist-info"
    members = [metadata(dist_info, list(extra) if extra is not None else None, **meta), *objects]
    return Scan(Path(name), members, [])


def pjrt(objects: tuple[Member, ...], name: str = PJRT) -> Scan:
    dist_info = f"{name.split('-')[0]}-{VERSION}.dist-info"
    return Scan(Path(name), [metadata(dist_info, None), *objects], [])


def check(scan: Scan, together: tuple[Scan, ...] = (), **options):
    found, why = check_with_rocm(scan, Identity.of(scan.path.name), Options(**options), together)
    assert all(f.check == EXTRA and f.severity == ERROR and "\n" not in f.message for f in found)
    return [(f.message, f.member, f.group) for f in found], why


def linalg(*needed: str, **kw) -> Member:
    return so("jax_rocm7_plugin/_linalg.so", needed, **kw)


def test_the_extra_that_installs_every_needed_library_passes():
    assert check(plugin(objects=(linalg(HIP, BLAS),))) == ([], None)


def test_a_library_nothing_the_extra_installs_holds_is_one_line_naming_where_rocm_has_it():
    found, why = check(plugin(objects=(linalg(ROCM_CORE, HIP),)))
    assert why is None and found == [(
        f"{ROCM_CORE} is not found once installed with its with-rocm extra (rocm[libraries]==7.2.0): the "
        "RUNPATH reaches none of what it installs that holds it (site-packages/_rocm_sdk_core/lib, "
        "site-packages/_rocm_sdk_core/lib/rocm_sysdeps/lib, site-packages/_rocm_sdk_libraries/lib); ROCm 7.2.0 "
        "has it in /opt/rocm/lib, /opt/rocm-7.2.0/lib, site-packages/rocm/lib", "jax_rocm7_plugin/_linalg.so",
        G_UNINSTALLED)]


def test_a_library_no_location_of_the_release_has_says_so():
    found, _ = check(plugin(objects=(linalg("libnowhere.so.1"),)))
    assert [m for m, _, _ in found] == [
        "libnowhere.so.1 is not found once installed with its with-rocm extra (rocm[libraries]==7.2.0): the "
        f"RUNPATH reaches none of what it installs that holds it ({CORE_DIRS}, "
        "site-packages/_rocm_sdk_libraries/lib); no location of ROCm 7.2.0 has it"]


def test_an_extra_installing_nothing_says_nothing_and_names_every_requirement_asked():
    found, _ = check(plugin(["rocm-sdk-devel==7.2.0", "rocm-profiler"],
                            objects=(linalg(HIP),)))
    assert [m for m, _, _ in found] == [
        f"{HIP} is not found once installed with its with-rocm extra (rocm-sdk-devel==7.2.0, rocm-profiler): the "
        "RUNPATH reaches none of what it installs that holds it (nothing); ROCm 7.2.0 has it in "
        "/opt/rocm/lib, /opt/rocm-7.2.0/lib, site-packages/rocm/lib, site-packages/_rocm_sdk_core/lib"]


def test_each_object_and_library_is_its_own_line_and_one_line_for_all_the_ways_it_fails():
    """Two objects missing two libraries: four lines; a library failing both ways an index may
    answer the extra (multi-arch, per family) is one line, for the first way."""
    objects = (linalg("libnowhere.so.1", "libelse.so.2", runpath=(SYSTEM,)),
               so("jax_rocm7_plugin/_prng.so", ("libnowhere.so.1",), runpath=(SYSTEM,)))
    found, _ = check(plugin(objects=objects))
    assert [(m.split(" ")[0], member) for m, member, _ in found] == [
        ("libnowhere.so.1", "jax_rocm7_plugin/_linalg.so"), ("libelse.so.2", "jax_rocm7_plugin/_linalg.so"),
        ("libnowhere.so.1", "jax_rocm7_plugin/_prng.so")]
    assert all(f"({CORE_DIRS}, site-packages/_rocm_sdk_libraries/lib)" in m for m, _, _ in found)


@pytest.mark.parametrize("runpath, way", [
    ((CORE, FAMILY), "site-packages/_rocm_sdk_libraries/lib"),     # the multi-arch index's way fails
    ((CORE, MULTI), "site-packages/_rocm_sdk_libraries_*/lib"),    # a per-family index's way fails
])
def test_every_way_an_index_answers_the_extra_must_load(runpath, way):
    found, _ = check(plugin(objects=(linalg(BLAS, runpath=runpath),)))
    assert len(found) == 1 and f"({CORE_DIRS}, {way}); ROCm 7.2.0 has it in " in found[0][0]
    exact = ["rocm-sdk-core==7.2.0", "rocm-sdk-libraries-gfx94X-dcgpu==7.2.0" if FAMILY in runpath
             else "rocm-sdk-libraries==7.2.0"]
    assert check(plugin(exact, objects=(linalg(BLAS, runpath=runpath),))) == ([], None)


def test_the_loader_searches_the_rpath_when_there_is_no_runpath():
    assert check(plugin(objects=(linalg(HIP, runpath=None, rpath=(CORE,)),))) == ([], None)
    found, _ = check(plugin(objects=(linalg(HIP, runpath=(), rpath=(CORE,)),)))
    assert len(found) == 1   # an empty RUNPATH still hides the RPATH


def test_what_the_wheels_ship_or_the_system_provides_or_a_path_needs_nothing_from_the_extra():
    own = so("jax_rocm7_plugin/libown.so.1", ())
    objects = (linalg("libown.so.1", "libc.so.6", "libm.so.6", "/abs/libpath.so", runpath=("$ORIGIN",)), own)
    assert check(plugin(objects=objects)) == ([], None)
    # shipped elsewhere than where the RUNPATH looks: not found
    found, _ = check(plugin(objects=(linalg("libown.so.1", runpath=(CORE,)), own)))
    assert [m.split(" ")[0] for m, _, _ in found] == ["libown.so.1"]


def test_a_wheel_whose_tags_promise_no_manylinux_gets_no_system_libraries():
    name = f"jax_rocm7_plugin-{VERSION}-cp312-cp312-linux_x86_64.whl"
    found, _ = check(plugin(objects=(linalg("libc.so.6"),), name=name))
    assert [m.split(" ")[0] for m, _, _ in found] == ["libc.so.6"]


def test_objects_that_cannot_be_read_are_the_runpath_checks():
    unread = Member("jax_rocm7_plugin/_unread.so", 1, 0o755)
    broken = linalg(ROCM_CORE, error="unreadable ELF")
    assert check(plugin(objects=(unread, broken))) == ([], None)


def test_the_pjrt_wheel_of_the_plugins_major_is_resolved_under_the_plugins_extra():
    pjrt_so = so("jax_plugins/xla_rocm7/xla_rocm_plugin.so", (HIP,))
    found, _ = check(plugin(["rocm-sdk-libraries==7.2.0"], objects=(linalg(BLAS),)), (pjrt((pjrt_so,)),))
    assert [(m.split(" ")[0], member) for m, member, _ in found] == [
        (HIP, "jax_plugins/xla_rocm7/xla_rocm_plugin.so")]
    # another major's PJRT wheel, or another plugin, verified in the same run is not this extra's
    ten = pjrt((so("jax_plugins/xla_rocm10/xla_rocm_plugin.so", (HIP,)),),
               f"jax_rocm10_pjrt-{VERSION}-py3-none-manylinux_2_28_x86_64.whl")
    other = plugin(objects=(so("jax_rocm7_plugin/_other.so", (HIP,)),),
                   name=f"jax_rocm7_plugin-{VERSION}-cp313-cp313-manylinux_2_28_x86_64.whl")
    me = plugin(["rocm-sdk-libraries==7.2.0"], objects=(linalg(BLAS),))
    assert check(me, (me, ten, other)) == ([], None)


def test_a_library_the_pjrt_wheel_ships_resolves_for_the_plugin():
    shipped = so("jax_plugins/xla_rocm7/libshared.so.1", ())
    found, _ = check(plugin(objects=(linalg("libshared.so.1", runpath=("$ORIGIN/../jax_plugins/xla_rocm7",)),)),
                     (pjrt((shipped,)),))
    assert found == []
    found, _ = check(plugin(objects=(linalg("libshared.so.1", runpath=("$ORIGIN/../jax_plugins/xla_rocm7",)),)))
    assert len(found) == 1   # alone, nothing ships it


@pytest.mark.parametrize("requirement, says", [
    ("rocm[libraries]==10.1.0", "pins rocm==10.1.0, a ROCm 10 release"),
    ("rocm-sdk-core~=6.4.0", "pins rocm-sdk-core~=6.4.0, a ROCm 6 release"),
    ("rocm-sdk-core===6.4.0", "pins rocm-sdk-core===6.4.0, a ROCm 6 release"),
])
def test_a_pin_on_another_majors_rocm_is_an_error(requirement, says):
    found, why = check(plugin(["rocm[libraries]", requirement], objects=(linalg(HIP, BLAS),)))
    assert why is None and [m for m, _, _ in found] == [f"the with-rocm extra {says}; this is a rocm7 wheel"]


@pytest.mark.parametrize("requirement", ["rocm[libraries]>=10.0", "rocm[libraries]!=10.0.0", "rocm[libraries]<10",
                                         "rocm[libraries]==7.1.1", "rocm-sdk-core===latest", "rocm"])
def test_a_bound_or_a_pin_of_the_same_major_is_no_pin_on_another(requirement):
    assert check(plugin([requirement], objects=(linalg(HIP),))) == ([], None)


def test_a_pin_on_a_package_nothing_records_is_not_judged():
    wheels = rocm_sdk_wheels.load()
    assert wheels is not None
    assert _other_majors([Requirement("other-rocm==10.0.0"), Requirement("rocm-sdk-core==10.0.0")], wheels,
                         Identity.of(PLUGIN))[0].message.startswith("the with-rocm extra pins rocm-sdk-core==10.0.0")
    assert _other_majors([Requirement("other-rocm==10.0.0")], wheels, Identity.of(PLUGIN)) == []


def test_without_a_runtime_the_pins_are_still_judged_and_nothing_is_resolved():
    """A Summary naming no ROCm and no --rocm-version: the needed check says why."""
    scan = plugin(["rocm[libraries]==10.1.0"], objects=(linalg("libnowhere.so.1"),), summary="")
    found, why = check(scan)
    assert why is None and [m for m, _, _ in found] == [
        "the with-rocm extra pins rocm==10.1.0, a ROCm 10 release; this is a rocm7 wheel"]
    assert check(plugin(objects=(linalg("libnowhere.so.1"),), summary=""), rocm_version="10.0.0") == ([], None)


def test_the_release_given_for_the_wheels_major_decides_what_each_location_holds(tmp_path):
    """--rocm-version of the plugin's major is the runtime resolved in (its lists, from --root)."""
    data = json.loads(rocm_runtime.data_path().read_text())
    data["releases"]["7.9.0"] = {"sources": ["x"],
                                 "locations": {"site-packages/_rocm_sdk_core/lib": ["libonly79.so.1"]}}
    (tmp_path / "jax_rocm_plugin").mkdir()
    (tmp_path / "jax_rocm_plugin" / "rocm_runtime.json").write_text(json.dumps(data))
    scan = plugin(objects=(linalg("libonly79.so.1"),))
    assert check(scan, rocm_version="7.9.0", rocm_root=tmp_path) == ([], None)
    assert len(check(scan, rocm_root=tmp_path)[0]) == 1


@pytest.mark.parametrize("spelled", ["with-rocm", "with_rocm", "With.ROCm"])
def test_the_extra_is_found_however_it_is_spelled(spelled):
    scan = plugin(["rocm-sdk-core==7.2.0"], objects=(linalg(BLAS),), spelled=spelled)
    assert [str(r).split(";")[0] for r in extra_requirements(scan)] == ["rocm-sdk-core==7.2.0"]
    assert [m.split(" ")[0] for m, _, _ in check(scan)[0]] == [BLAS]


def test_only_the_requirements_of_the_extra_are_its_own():
    lines = ('Requires-Dist: rocm-sdk-libraries; extra == "other"', "Requires-Dist: not a requirement ((",
             'Requires-Dist: rocm-sdk-devel; extra == "with-rocm" or python_version >= "3"',
             "Provides-Extra: other")
    scan = plugin(["rocm-sdk-core"], lines=lines)
    assert [r.name for r in extra_requirements(scan)] == ["rocm-sdk-core"]


@pytest.mark.parametrize("scan", [
    plugin(None),
    Scan(Path(PLUGIN), [so("jax_rocm7_plugin/_linalg.so", (HIP,))], []),      # no METADATA
    Scan(Path(PLUGIN), [metadata(f"jax_rocm7_plugin-{VERSION}.dist-info", ["rocm"]),
                        metadata(f"other-{VERSION}.dist-info", ["rocm"])], []),   # two .dist-info
])
def test_a_plugin_without_the_extra_has_nothing_to_resolve(scan):
    assert extra_requirements(scan) is None
    assert check(scan) == ([], "the plugin declares no with-rocm extra")


def test_metadata_whose_text_was_not_kept_declares_nothing():
    scan = plugin()
    scan.members[0].text = None
    assert check(scan) == ([], "the plugin declares no with-rocm extra")


@pytest.mark.parametrize("extra, named", [
    (["amd_rocm_hip_runtime_instinct", "Amd.HIPblas"], "amd-rocm-hip-runtime-instinct, amd-hipblas"),
    (["rocm[libraries,foo]==7.2.0"], "rocm[foo]"),
    ([], "nothing"),
])
def test_an_extra_naming_what_nothing_records_is_not_resolved_and_says_so(extra, named):
    assert check(plugin(extra, objects=(linalg("libnowhere.so.1"),))) == ([], (
        f"the with-rocm extra names {named}, whose installed files rocm_runtime.json does not record; "
        "add them there with their sources to resolve it"))


def line_root(tmp_path: Path, sdk: object | None) -> Path:
    data = json.loads(rocm_runtime.data_path().read_text())
    data.pop("sdk_wheels")
    if sdk is not None:
        data["sdk_wheels"] = sdk
    (tmp_path / "jax_rocm_plugin").mkdir(parents=True)
    (tmp_path / "jax_rocm_plugin" / "rocm_runtime.json").write_text(json.dumps(data))
    return tmp_path


def test_a_line_recording_no_runtime_wheels_resolves_nothing_and_a_malformed_record_is_an_error(tmp_path):
    scan = plugin(objects=(linalg("libnowhere.so.1"),))
    assert check(scan, rocm_root=line_root(tmp_path / "none", None)) == (
        [], "rocm_runtime.json records no ROCm runtime wheels (sdk_wheels)")
    root = line_root(tmp_path / "bad", {"sources": []})
    found, why = check(scan, rocm_root=root)
    assert why is None and found == [(f"{root / 'jax_rocm_plugin' / 'rocm_runtime.json'}: sdk_wheels.top level: "
                                       "expected an object with a non-empty list of sources and packages", None, None)]


def test_a_requirement_any_extra_brings_is_the_extras_too():
    """``extra != ""`` holds for every extra and not without one: pip installs it with
    ``[with-rocm]``, so it is what the extra installs; one that holds without any extra is not."""
    lines = ('Requires-Dist: rocm-sdk-core; extra != ""', 'Requires-Dist: rocm-sdk-devel; extra != "other"')
    scan = plugin(["rocm-sdk-libraries==7.2.0"], objects=(linalg(HIP, BLAS),), lines=lines)
    assert [r.name for r in extra_requirements(scan)] == ["rocm-sdk-core", "rocm-sdk-libraries"]
    assert check(scan) == ([], None)


def test_a_release_given_for_another_major_is_not_this_wheels_runtime(tmp_path):
    """One verify of a two-major line passes --rocm-version of one major: a rocm7 plugin still
    resolves in the release its Summary names, not in ROCm 10's lists."""
    data = json.loads(rocm_runtime.data_path().read_text())
    data["releases"]["10.0.0"] = {"sources": ["x"], "locations": {"site-packages/_rocm_sdk_core/lib": [HIP]}}
    (tmp_path / "jax_rocm_plugin").mkdir()
    (tmp_path / "jax_rocm_plugin" / "rocm_runtime.json").write_text(json.dumps(data))
    scan = plugin(objects=(linalg(HIP, BLAS),))
    assert check(scan, rocm_version="10.0.0", rocm_root=tmp_path) == ([], None)


def test_an_unreadable_object_or_a_resolved_library_does_not_end_the_search():
    """Objects after one the runpath check reports, and libraries after one that resolves, are
    each still resolved."""
    unread = Member("jax_rocm7_plugin/_a_unread.so", 1, 0o755)
    broken = so("jax_rocm7_plugin/_b_broken.so", (ROCM_CORE,), error="unreadable ELF")
    found, _ = check(plugin(objects=(unread, broken, linalg("libc.so.6", HIP, "libnowhere.so.1"))))
    assert [(m.split(" ")[0], member) for m, member, _ in found] == [("libnowhere.so.1", "jax_rocm7_plugin/_linalg.so")]
