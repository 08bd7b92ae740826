"""The shared objects will load: every DT_NEEDED resolves as ld.so resolves it once installed
(the wheels' own objects through RUNPATH with $ORIGIN, the ROCm runtime's data, the manylinux
system libraries), and the symbol versions stay within the tag. Real objects compiled by gcc,
linked against each other, packed into wheels by the real build path."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from release.check.loadable import expand, shown
from release.check.verify import Options, verify_wheels
from release.core import manylinux, rocm_runtime
from release.core.errors import UserError
from tests.support.crafted import build_pair, configured_runpath, craft, member_text, revision_map
from tests.support.elf import compile_cxx_so, compile_so

ROCM = ("/opt/rocm/lib",)


def opts(**kw) -> Options:
    return Options(runpath=tuple(configured_runpath()), revisions=revision_map(), **kw)


def findings(wheels, check, **kw):
    reports = verify_wheels(list(wheels), opts(**kw))
    return [(r.wheel.name.split("-")[0], f.member.rsplit("/", 1)[-1] if f.member else None, f.message)
            for r in reports for f in r.findings if f.check == check]


@pytest.fixture(scope="module")
def rocm_stubs(tmp_path_factory) -> dict[str, Path]:
    """Stand-ins for ROCm libraries, linked against as the build links against the real ones
    (never shipped: the wheels must find them in the ROCm runtime)."""
    base = tmp_path_factory.mktemp("rocm")
    return {name: compile_so(base / name, soname=name)
            for name in ("libamdhip64.so.7", "libhipblas.so.3", "librocm_sysdeps_hwloc.so.5",
                         "libamdhip64.so.6")}


def pair(tmp_path, wheel_artifacts, **objects):
    """The pjrt wheel and a plugin wheel, with the named objects replaced."""
    return build_pair(tmp_path / "wheels", wheel_artifacts["good"], overrides=objects)


def test_rocm_libraries_resolve_through_the_configured_runpath(tmp_path, wheel_artifacts, rocm_stubs):
    runpath = configured_runpath()
    wheels = pair(tmp_path, wheel_artifacts,
                  **{"xla_rocm_plugin.so": compile_so(tmp_path / "so" / "xla_rocm_plugin.so", runpath,
                                                      links=(rocm_stubs["libamdhip64.so.7"],)),
                     "_linalg.so": compile_so(tmp_path / "so" / "_linalg.so", runpath,
                                              links=(rocm_stubs["libhipblas.so.3"],))})
    assert findings(wheels.values(), "needed") == []


def test_a_library_no_rocm_release_ships_is_named_with_every_place_searched(tmp_path, wheel_artifacts,
                                                                             rocm_stubs):
    """TheRock#8163: librocm_sysdeps_hwloc.so.5 => not found."""
    so = compile_so(tmp_path / "so" / "xla_rocm_plugin.so", ["$ORIGIN/../../rocm/lib", "/opt/rocm/lib"],
                    links=(rocm_stubs["librocm_sysdeps_hwloc.so.5"],))
    wheels = pair(tmp_path, wheel_artifacts, **{"xla_rocm_plugin.so": so})
    [(wheel, member, message)] = findings(wheels.values(), "needed")
    assert (wheel, member) == ("jax_rocm7_pjrt", "xla_rocm_plugin.so")
    assert message == ("librocm_sysdeps_hwloc.so.5 is not found: searched RUNPATH site-packages/rocm/lib, "
                       "/opt/rocm/lib for the wheels' own objects and the ROCm 7.2.0 runtime, then "
                       "the manylinux_2_28_x86_64 system libraries")


def test_the_wrong_major_of_a_rocm_library_is_unresolved(tmp_path, wheel_artifacts, rocm_stubs):
    so = compile_so(tmp_path / "so" / "_prng.so", configured_runpath(), links=(rocm_stubs["libamdhip64.so.6"],))
    [(_, member, message)] = findings(pair(tmp_path, wheel_artifacts, **{"_prng.so": so}).values(), "needed")
    assert member == "_prng.so" and message.startswith("libamdhip64.so.6 is not found")


def test_a_rocm_library_needs_a_runpath_into_the_rocm_runtime(tmp_path, wheel_artifacts, rocm_stubs):
    """ld.so.cache is not counted on: without a RUNPATH entry into ROCm, libamdhip64 is unresolved,
    and the error says where ROCm has it."""
    so = compile_so(tmp_path / "so" / "_prng.so", ["$ORIGIN"], links=(rocm_stubs["libamdhip64.so.7"],))
    [(_, _, message)] = findings(pair(tmp_path, wheel_artifacts, **{"_prng.so": so}).values(), "needed")
    assert "searched RUNPATH site-packages/jax_rocm7_plugin for" in message
    assert message.endswith("; ROCm 7.2.0 has it in /opt/rocm/lib, /opt/rocm-7.2.0/lib, site-packages/rocm/lib, "
                            "site-packages/_rocm_sdk_core/lib")


def test_rocm_sdk_wheel_locations_resolve_relative_to_the_install_location(tmp_path, wheel_artifacts,
                                                                          rocm_stubs):
    """The kernels sit one directory below site-packages, the PJRT object two: the same
    $ORIGIN entry reaches _rocm_sdk_core from one and not from the other."""
    hip = (rocm_stubs["libamdhip64.so.7"],)
    blas = (rocm_stubs["libhipblas.so.3"],)
    objects = {
        "_prng.so": compile_so(tmp_path / "so" / "_prng.so", ["$ORIGIN/../_rocm_sdk_core/lib"], links=hip),
        "_linalg.so": compile_so(tmp_path / "so" / "_linalg.so",
                                 ["$ORIGIN/../_rocm_sdk_libraries_gfx94X-dcgpu/lib"], links=blas),
        "xla_rocm_plugin.so": compile_so(tmp_path / "so" / "xla_rocm_plugin.so",
                                         ["${ORIGIN}/../_rocm_sdk_core/lib"], links=hip),
    }
    found = findings(pair(tmp_path, wheel_artifacts, **objects).values(), "needed")
    assert [(w, m) for w, m, _ in found] == [("jax_rocm7_pjrt", "xla_rocm_plugin.so")]
    assert "searched RUNPATH site-packages/jax_plugins/_rocm_sdk_core/lib for" in found[0][2]


def test_objects_resolve_to_each_other_through_origin_within_and_across_the_wheels(tmp_path, wheel_artifacts):
    """A kernel needs the extension next to it ($ORIGIN) and the PJRT object in the other wheel
    ($ORIGIN/../jax_plugins/xla_rocm7): resolved only when the two wheels are verified together."""
    so = tmp_path / "so"
    ext = compile_so(so / "rocm_plugin_extension.so", configured_runpath())
    pjrt = compile_so(so / "xla_rocm_plugin.so", configured_runpath())
    objects = {
        "rocm_plugin_extension.so": ext,
        "xla_rocm_plugin.so": pjrt,
        "_hybrid.so": compile_so(so / "h" / "_hybrid.so", ["$ORIGIN"], links=(ext,)),
        "_rnn.so": compile_so(so / "r" / "_rnn.so", ["$ORIGIN/../jax_plugins/xla_rocm7"], links=(pjrt,)),
    }
    wheels = pair(tmp_path, wheel_artifacts, **objects)
    assert findings(wheels.values(), "needed") == []
    alone = findings([wheels["plugin"]], "needed")
    assert [(m, msg.split(" is not found")[0]) for _, m, msg in alone] == [("_rnn.so", "xla_rocm_plugin.so")]
    # the same object, its RUNPATH one level short, misses its neighbour
    objects["_hybrid.so"] = compile_so(so / "h2" / "_hybrid.so", ["$ORIGIN/.."], links=(ext,))
    wheels = build_pair(tmp_path / "short", wheel_artifacts["good"], overrides=objects)
    assert [m for _, m, _ in findings(wheels.values(), "needed")] == ["_hybrid.so"]


def test_a_shipped_object_is_found_by_its_file_name_not_its_soname(tmp_path, wheel_artifacts):
    """ld.so looks for a file named as the NEEDED entry: an extension linked under the soname
    librocm_ext.so.1 but shipped as rocm_plugin_extension.so is not found (the error says so)."""
    so = tmp_path / "so"
    ext = compile_so(so / "rocm_plugin_extension.so", configured_runpath(), soname="librocm_ext.so.1")
    user = compile_so(so / "u" / "_sparse.so", ["$ORIGIN"], links=(ext,))
    wheels = pair(tmp_path, wheel_artifacts, **{"rocm_plugin_extension.so": ext, "_sparse.so": user})
    [(_, member, message)] = findings(wheels.values(), "needed")
    assert member == "_sparse.so" and message.startswith("librocm_ext.so.1 is not found")
    assert "; jax_rocm7_plugin/rocm_plugin_extension.so has that DT_SONAME but another file name" in message
    same = compile_so(so / "s" / "rocm_plugin_extension.so", configured_runpath(), soname="rocm_plugin_extension.so")
    user = compile_so(so / "u2" / "_sparse.so", ["$ORIGIN"], links=(same,))
    wheels = build_pair(tmp_path / "same", wheel_artifacts["good"],
                        overrides={"rocm_plugin_extension.so": same, "_sparse.so": user})
    assert findings(wheels.values(), "needed") == []


def test_rpath_is_searched_when_there_is_no_runpath(tmp_path, wheel_artifacts, rocm_stubs):
    so = compile_so(tmp_path / "so" / "_prng.so", ["/opt/rocm/lib"], new_dtags=False,
                    links=(rocm_stubs["libamdhip64.so.7"],))
    wheels = pair(tmp_path, wheel_artifacts, **{"_prng.so": so})
    assert findings(wheels.values(), "needed") == []   # the runpath check reports the DT_RPATH


def test_a_rocm_version_without_a_list_resolves_nothing_in_rocm(tmp_path, wheel_artifacts, rocm_stubs):
    so = compile_so(tmp_path / "so" / "_prng.so", configured_runpath(), links=(rocm_stubs["libamdhip64.so.7"],))
    wheels = pair(tmp_path, wheel_artifacts, **{"_prng.so": so})
    [(_, _, message)] = findings(wheels.values(), "needed", rocm_version="7.3.0")
    assert "no ROCm runtime (ROCm 7.3.0 has no soname list in rocm_runtime.json (listed: 7.1.1, 7.2.0)" in message
    assert findings(wheels.values(), "needed", rocm_version="7.1.1") == []


def test_a_wheel_that_names_no_rocm_version_asks_for_one(tmp_path, wheel_artifacts, rocm_stubs):
    so = compile_so(tmp_path / "so" / "_prng.so", configured_runpath(), links=(rocm_stubs["libamdhip64.so.7"],))
    plugin = pair(tmp_path, wheel_artifacts, **{"_prng.so": so})["plugin"]
    name, _ = member_text(plugin, ".dist-info/METADATA")
    unknown = craft(plugin, tmp_path / "unknown" / plugin.name,
                    replace={name: lambda t: t.replace("(ROCm 7.2.0)", "ROCm:unknown")})
    [(_, _, message)] = findings([unknown], "needed")
    assert "no ROCm runtime (the wheel's Summary names no ROCm version; pass --rocm-version of ROCm 7)" in message
    [(_, _, message)] = findings([unknown], "needed", rocm_version="10.0.0")  # another major's: not this wheel's
    assert message.endswith("pass --rocm-version of ROCm 7; --rocm-version 10.0.0 is ROCm 10's), then the "
                            "manylinux_2_28_x86_64 system libraries")
    assert findings([unknown], "needed", rocm_version="7.2.0") == []


def test_symbol_versions_above_the_tag_are_errors(tmp_path, wheel_artifacts):
    """GLIBCXX_3.4.29 is GCC 11's libstdc++; manylinux_2_28 allows up to GLIBCXX_3.4.24."""
    so = compile_cxx_so(tmp_path / "so" / "_triton.so", configured_runpath())
    wheels = pair(tmp_path, wheel_artifacts, **{"_triton.so": so})
    assert findings(wheels.values(), "symbols") == [
        ("jax_rocm7_plugin", "_triton.so", "needs GLIBCXX_3.4.29 from libstdc++.so.6; "
         "manylinux_2_28_x86_64 allows GLIBCXX up to GLIBCXX_3.4.24")]
    assert findings(wheels.values(), "needed") == []   # libstdc++ itself is a system library


@pytest.mark.parametrize("platform, version, allowed", [
    ("manylinux_2_28_x86_64", "GLIBCXX_3.4.24", True),
    ("manylinux_2_28_x86_64", "GLIBCXX_3.4.25", False),
    ("manylinux_2_28_x86_64", "CXXABI_1.3.11", True),
    ("manylinux_2_28_x86_64", "CXXABI_1.3.12", False),
    ("manylinux_2_27_x86_64", "GCC_7.0.0", True),
    ("manylinux_2_17_x86_64", "GCC_7.0.0", False),
    ("manylinux2014_x86_64", "GLIBCXX_3.4.19", True),
    ("manylinux2014_x86_64", "GLIBCXX_3.4.20", False),
    ("manylinux_2_29_x86_64", "GLIBCXX_3.4.25", False),   # no policy of its own: 2_28's
    ("manylinux_2_35_x86_64", "GLIBCXX_3.4.30", True),
    ("manylinux_2_34_x86_64", "GLIBCXX_3.4.30", False),
    ("manylinux_2_28_x86_64", "CXXABI_TM_1", True),       # not a bounded family
    ("manylinux_2_28_x86_64", "GLIBC_2.28", True),
    ("manylinux_2_28_x86_64", "GLIBC_2.29", False),
])
def test_policy_bounds(platform, version, allowed):
    assert (manylinux.policy_for(platform).too_new(version) is None) == allowed


def test_only_x86_64_manylinux_tags_have_a_policy():
    assert manylinux.policy_for("linux_x86_64") is None
    assert manylinux.policy_for("manylinux_2_28_aarch64") is None
    assert manylinux.policy_for("manylinux_2_4_x86_64") is None
    assert "libmvec.so.1" in manylinux.policy_for("manylinux_2_27_x86_64").libraries
    assert "libmvec.so.1" not in manylinux.policy_for("manylinux_2_26_x86_64").libraries


@pytest.mark.parametrize("entry, origin, expected", [
    ("$ORIGIN/../rocm/lib", "/venv/lib/python3/site-packages/jax_rocm7_plugin",
     "site-packages/rocm/lib"),
    ("$ORIGIN/../../rocm/lib", "/venv/lib/python3/site-packages/jax_plugins/xla_rocm7",
     "site-packages/rocm/lib"),
    ("${ORIGIN}", "/venv/lib/python3/site-packages/a", "site-packages/a"),
    ("$ORIGIN/../../../python3.11/dist-packages/_rocm_sdk_core/lib",
     "/venv/lib/python3/site-packages/jax_rocm7_plugin",
     "site-packages/../../python3.11/dist-packages/_rocm_sdk_core/lib"),
    ("/opt/rocm/lib/", "/x", "/opt/rocm/lib"),
])
def test_origin_is_the_install_directory(entry, origin, expected):
    assert shown(expand(entry, origin)) == expected


@pytest.mark.parametrize("entry", ["lib", "", "$LIB/x", "$PLATFORM"])
def test_entries_the_loader_reads_otherwise_resolve_nothing(entry):
    assert expand(entry, "/venv/lib/python3/site-packages/a") is None


def test_the_runtime_data_says_where_each_list_came_from():
    for version in rocm_runtime.known_versions():
        runtime = rocm_runtime.load(version)
        assert runtime.sources and runtime.locations
        assert runtime.provides("/opt/rocm/lib", "libamdhip64.so.7")
        assert runtime.provides("site-packages/_rocm_sdk_libraries_gfx950-dcgpu/lib", "libMIOpen.so.1")
        assert not runtime.provides("site-packages/_rocm_sdk_core/lib", "libMIOpen.so.1")


@pytest.mark.parametrize("data, error", [
    ("{", "not readable JSON"),
    ('{"schema": 2, "releases": {}}', 'expected an object with "schema": 1'),
    ('{"schema": 1, "releases": {"7.2.0": {"sources": []}}}', "releases.7.2.0: expected an object with a non-empty"),
    ('{"schema": 1, "releases": {"7.2.0": {"sources": ["x"], "locations": {"lib": ["a.so.1"]}}}}',
     "releases.7.2.0.locations.lib: expected an absolute directory"),
    ('{"schema": 1, "releases": {"7.2.0": {"sources": ["x"], "locations": {"/l": ["a"]}}}}',
     "expected a non-empty list of sonames"),
    ('{"schema": 1, "releases": {"7.2.0": {"sources": ["x"], "same_as": "7.2.0"}}}', "no cycle"),
])
def test_broken_runtime_data_is_one_line(tmp_path, data, error):
    (tmp_path / "jax_rocm_plugin").mkdir()
    (tmp_path / "jax_rocm_plugin" / "rocm_runtime.json").write_text(data)
    with pytest.raises(UserError, match=error.replace(".", r"\.").replace("(", r"\(")):
        rocm_runtime.load("7.2.0", tmp_path)


def test_verify_refuses_a_rocm_version_without_a_list(run_cli, good_wheels):
    code, _, err = run_cli("verify", good_wheels["pjrt"], "--rocm-version", "6.3.0")
    assert code == 2
    assert "ROCm 6.3.0 has no soname list in rocm_runtime.json" in err
    code, out, _ = run_cli("verify", good_wheels["pjrt"], good_wheels["plugin"], "--rocm-version", "7.2.0",
                           "--json")
    assert code == 0
    assert {c for w in json.loads(out)["wheels"] for c, s in w["checks"].items() if s == "ok"} >= {"needed", "symbols"}


def test_a_plan_for_a_rocm_version_without_a_list_is_refused(tmp_path):
    """A change of version_info.json's rocm_version to a release with no soname list stops the
    build before anything is built (exit 2, one line)."""
    import shutil

    from release.build.plan import make_plan
    from release.core.config import load_project
    from tests.support.crafted import REPO
    for name in ("deps.yaml", "version_info.json"):
        shutil.copy(REPO / name, tmp_path / name)
    shutil.copytree(REPO / "jax_rocm_plugin", tmp_path / "jax_rocm_plugin")
    info = json.loads((tmp_path / "version_info.json").read_text())
    make_plan(load_project(tmp_path), "release")
    (tmp_path / "version_info.json").write_text(json.dumps(dict(info, rocm_version="7.3.0")))
    with pytest.raises(UserError, match=r"^ROCm 7\.3\.0 has no soname list in rocm_runtime\.json"):
        make_plan(load_project(tmp_path), "release")


def test_an_error_names_a_few_runpath_entries_and_counts_the_rest(tmp_path, wheel_artifacts, rocm_stubs):
    runpath = [f"$ORIGIN/../d{i}" for i in range(9)]
    so = compile_so(tmp_path / "so" / "_prng.so", runpath, links=(rocm_stubs["librocm_sysdeps_hwloc.so.5"],))
    [(_, _, message)] = findings(pair(tmp_path, wheel_artifacts, **{"_prng.so": so}).values(), "needed")
    assert "searched RUNPATH site-packages/d0, site-packages/d1, site-packages/d2, site-packages/d3, " \
           "site-packages/d4, site-packages/d5 and 3 more for the wheels' own objects" in message
    six = compile_so(tmp_path / "six" / "_prng.so", runpath[:6], links=(rocm_stubs["librocm_sysdeps_hwloc.so.5"],))
    [(_, _, message)] = findings(build_pair(tmp_path / "w6", wheel_artifacts["good"],
                                            overrides={"_prng.so": six}).values(), "needed")
    assert "site-packages/d5 for the wheels' own objects" in message   # all six named, none counted


@pytest.mark.network
def test_the_published_wheels_name_no_rocm_version_and_ours_do(published_wheels, tmp_path, wheel_artifacts):
    """The published 0.10.2 pair: its Summary says ROCm:unknown, so nothing says which ROCm its
    NEEDED must resolve in: every ROCm library is unresolved. Told ROCm 7.2.0, all of them resolve
    (their RUNPATH ends in /opt/rocm/lib) and their symbol versions fit manylinux_2_27. The same
    kernel objects packed by this project's build (Summary "(ROCm 7.2.0)") pass as they are."""
    import zipfile
    real = [published_wheels["pjrt"], published_wheels["plugin"]]
    unknown = findings(real, "needed")
    assert unknown and all("no ROCm runtime (the wheel's Summary names no ROCm version" in m for _, _, m in unknown)
    assert {lib.split(" ")[0] for _, _, lib in unknown} >= {"libamdhip64.so.7", "librocblas.so.5", "libMIOpen.so.1"}
    told = verify_wheels(real, opts(rocm_version="7.2.0"))
    assert [(r.status("needed"), r.status("symbols"), r.status("glibc")) for r in told] == [("ok", "ok", "ok")] * 2
    # the real kernels, packed by this project's build next to a pjrt object of our own
    kernels = tmp_path / "kernels"
    with zipfile.ZipFile(published_wheels["plugin"]) as zf:
        for name in zf.namelist():
            if name.endswith(".so"):
                (kernels / name.rsplit("/", 1)[1]).parent.mkdir(parents=True, exist_ok=True)
                (kernels / name.rsplit("/", 1)[1]).write_bytes(zf.read(name))
    ours = build_pair(tmp_path / "ours", wheel_artifacts["good"],
                      overrides={p.name: p for p in kernels.glob("*.so")})
    reports = verify_wheels(list(ours.values()), opts())
    assert [(r.status("needed"), r.status("symbols"), r.status("glibc")) for r in reports] == [("ok", "ok", "ok")] * 2


# ---------------------------------------------------------------- generated layouts, a real tree as oracle

_DIRS = ("jax_rocm7_plugin", "jax_plugins/xla_rocm7", "jax_rocm7_plugin/sub", "other")
_LIBS = ("liba.so.1", "libb.so", "_k.so", "libc.so.6")


@st.composite
def layouts(draw):
    """Shipped objects in a few package directories, each with NEEDED on the others (or on
    libc, or on a library nothing ships) and RUNPATH entries climbing and descending."""
    objects = {}
    for _ in range(draw(st.integers(1, 5))):
        path = f"{draw(st.sampled_from(_DIRS))}/{draw(st.sampled_from(_LIBS[:3]))}"
        entries = draw(st.lists(st.one_of(
            st.builds(lambda up, d: "/".join(["$ORIGIN", *[".."] * up, *([d] if d else [])]),
                      st.integers(0, 3), st.sampled_from(("", *_DIRS))),
            st.just("/opt/elsewhere/lib")), max_size=3))
        needed = draw(st.lists(st.sampled_from((*_LIBS, "libmissing.so.9")), max_size=3, unique=True))
        objects[path] = (tuple(entries), tuple(needed))
    return objects


@settings(derandomize=True, max_examples=150, deadline=None)
@given(layouts())
def test_what_resolves_is_what_a_real_directory_tree_holds(tmp_path_factory, layout):
    """The ``needed`` verdict over generated layouts equals what the file system says once the
    objects sit in a real site-packages: for each RUNPATH entry, $ORIGIN replaced by the
    object's real directory, does a file of the NEEDED name exist there (libc: the system's)?"""
    from release.check.loadable import check_needed
    from release.core.elffacts import ElfFacts
    from release.core.naming import Identity
    from release.core.scan import Member, Scan
    root = tmp_path_factory.mktemp("venv")
    site = root / "lib" / "python3" / "site-packages"
    for path in layout:
        (site / path).parent.mkdir(parents=True, exist_ok=True)
        (site / path).write_bytes(b"\x7fELF")
    members = [Member(path, 4, 0o755, elf=ElfFacts(runpath, None, needed, None))
               for path, (runpath, needed) in layout.items()]
    scan = Scan(Path("jax_rocm7_plugin-0.9.1-cp312-cp312-manylinux_2_28_x86_64.whl"), members, [])
    found = {(f.member, f.message.split(" ")[0]) for f in check_needed(
        scan, Identity.of(scan.path), Options(rocm_version="7.2.0"), [scan])}
    import os
    expected = set()
    for path, (runpath, needed) in layout.items():
        origin = os.path.dirname(site / path)
        for lib in needed:
            if lib == "libc.so.6":
                continue
            dirs = [e.replace("$ORIGIN", origin) for e in runpath]
            if not any(os.path.isfile(os.path.join(d, lib)) for d in dirs):
                expected.add((path, lib))
    assert found == expected


@pytest.mark.parametrize("runpath, rpath, searched", [
    (("$ORIGIN/../rocm/lib",), ("/opt/rocm/lib",), ["site-packages/jax_plugins/rocm/lib"]),
    ((), ("/opt/rocm/lib",), []),                      # an empty RUNPATH still hides the RPATH
    (None, ("/opt/rocm/lib", "$ORIGIN"), ["/opt/rocm/lib", "site-packages/jax_plugins/xla_rocm7"]),
    (None, None, []),
    (("/opt/rocm-7.2.0/lib", "$ORIGIN/../../_rocm_sdk_core/lib"), None,
     ["/opt/rocm-7.2.0/lib", "site-packages/_rocm_sdk_core/lib"]),
])
def test_the_loader_searches_the_runpath_alone_when_there_is_one(runpath, rpath, searched):
    """ld.so ignores DT_RPATH when a DT_RUNPATH is present (empty or not), in the order written."""
    from release.check.loadable import search_dirs
    from release.core.elffacts import ElfFacts
    elf = ElfFacts(runpath, rpath, ("libamdhip64.so.7",), None)
    assert [shown(d) for d in search_dirs("jax_plugins/xla_rocm7/xla_rocm_plugin.so", elf)] == searched
