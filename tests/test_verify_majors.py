"""verify resolves as the loader would for each ROCm major: every wheel's DT_NEEDED through its
RUNPATH (the entries jax's ``jaxlib/rocm/rocm_rpath.bzl`` links in: TheRock's pip layouts one and
two levels up from $ORIGIN, the tarball layout, /opt/rocm/lib) against the runtime of the wheel's
own major, so a wheel needing a soname its major does not ship fails, even when another major
of the same line ships it. Real ELF objects compiled here, packed by the real build path."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from release.check.verify import Options, verify_wheels
from release.core import rocm_runtime
from release.core.errors import UserError
from tests.support.crafted import PYTHON, REPO, configured_runpath, revision_map
from tests.support.elf import ALL_SOS, PJRT_SO, compile_so

VERSION = "0.11.1"
# jaxlib/rocm/rocm_rpath.bzl's families, written as its package directories are (- as _)
FAMILIES = ["gfx950-dcgpu", "gfx94X-dcgpu", "gfx90a", "gfx90X-dcgpu", "gfx908", "gfx906", "gfx900",
            "gfx120X-all", "gfx1153", "gfx1152", "gfx1151", "gfx1150", "gfx110X-all", "gfx103X-all",
            "gfx101X-dgpu"]


def rocm_rpath_bzl() -> list[str]:
    """The RUNPATH jaxlib/rocm/rocm_rpath.bzl builds (its _rocm_wheel_rpaths, then /opt/rocm/lib)."""
    core = ["_rocm_sdk_core/lib", "_rocm_sdk_libraries/lib"]
    site = core + [f"_rocm_sdk_libraries_{f.replace('-', '_')}/lib" for f in FAMILIES]
    out = ["$ORIGIN/../rocm/lib", "$ORIGIN/../../rocm/lib"]
    for up in ("$ORIGIN/..", "$ORIGIN/../.."):
        out += [f"{up}/{lib}" for lib in site]
        out += [f"{up}/../../python3.{m}/dist-packages/{lib}" for m in range(9, 16) for lib in core]
    out += [f"/usr/local/lib/python3.{m}/dist-packages/{lib}" for m in range(9, 16) for lib in core]
    return out + ["/opt/rocm/lib"]


@pytest.fixture(scope="module")
def ten_root(tmp_path_factory) -> Path:
    """The shipped runtime data plus a stand-in ROCm 10 release (no real list exists yet) whose
    HIP is libamdhip64.so.10, as the rule needs two majors that ship different sonames."""
    root = tmp_path_factory.mktemp("runtime")
    data = json.loads((REPO / "jax_rocm_plugin" / "rocm_runtime.json").read_text())
    data["releases"]["10.0.0"] = {"sources": ["a stand-in for the rule test"], "locations": {
        "/opt/rocm/lib": ["libamdhip64.so.10", "libhipblas.so.4"],
        "site-packages/_rocm_sdk_core/lib": ["libamdhip64.so.10"],
        "site-packages/_rocm_sdk_libraries_*/lib": ["libhipblas.so.4"]}}
    (root / "jax_rocm_plugin").mkdir()
    (root / "jax_rocm_plugin" / "rocm_runtime.json").write_text(json.dumps(data))
    return root


@pytest.fixture(scope="module")
def stubs(tmp_path_factory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("rocmlibs")
    return {n: compile_so(base / n, soname=n) for n in
            ("libamdhip64.so.7", "libhipblas.so.3", "libamdhip64.so.10", "libhipblas.so.4")}


def build(dest: Path, rocm_version: str, objects: dict[str, Path], wheel_artifacts) -> list[Path]:
    """The pjrt and one plugin wheel of ``rocm_version``'s major, the named objects replaced."""
    from release.build.bazel import requires_python
    from release.build.wheel_specs import load_specs
    from release.build.wheels import build_wheel
    so = {n: wheel_artifacts["good"] / n for n in ALL_SOS} | objects
    common = dict(version=VERSION, rocm_version=rocm_version, revisions=revision_map(VERSION),
                  specs=load_specs(REPO), requires_python=requires_python(REPO))
    dest.mkdir(parents=True, exist_ok=True)
    return [build_wheel("pjrt", dest, {PJRT_SO: so[PJRT_SO]}, **common),
            build_wheel("plugin", dest, {n: so[n] for n in ALL_SOS if n != PJRT_SO}, python=PYTHON, **common)]


def needing(tmp: Path, hip: Path, blas: Path, runpath: list[str]) -> dict[str, Path]:
    return {PJRT_SO: compile_so(tmp / "p" / PJRT_SO, runpath, links=(hip,)),
            "_linalg.so": compile_so(tmp / "l" / "_linalg.so", runpath, links=(blas,)),
            "_prng.so": compile_so(tmp / "r" / "_prng.so", runpath, links=(hip,))}


def unresolved(wheels, **kw) -> list[tuple[str, str, str]]:
    opts = Options(runpath=tuple(configured_runpath()), revisions=revision_map(VERSION), **kw)
    return [(r.wheel.name.split("-")[0], (f.member or "").rsplit("/", 1)[-1], f.message.split(" is not found")[0])
            for r in verify_wheels(list(wheels), opts) for f in r.findings if f.check == "needed"]


def test_each_major_resolves_in_its_own_runtime_through_jaxs_runpath(tmp_path, wheel_artifacts, stubs, ten_root):
    runpath = rocm_rpath_bzl()
    seven = build(tmp_path / "w7", "7.2.0", needing(tmp_path / "o7", stubs["libamdhip64.so.7"],
                                                     stubs["libhipblas.so.3"], runpath), wheel_artifacts)
    ten = build(tmp_path / "w10", "10.0.0", needing(tmp_path / "o10", stubs["libamdhip64.so.10"],
                                                     stubs["libhipblas.so.4"], runpath), wheel_artifacts)
    assert [w.name.split("-")[0] for w in ten] == ["jax_rocm10_pjrt", "jax_rocm10_plugin"]
    # one verify of the line's draft, --rocm-version naming ROCm 7's release: the rocm10 wheels
    # resolve in ROCm 10's runtime (their Summary's), not in 7.2.0's
    assert unresolved(seven + ten, rocm_version="7.2.0", rocm_root=ten_root) == []


def test_a_wheel_needing_a_soname_only_another_major_ships_fails(tmp_path, wheel_artifacts, stubs, ten_root):
    """A rocm10 wheel linked against ROCm 7's HIP installs beside ROCm 10 and cannot load."""
    runpath = rocm_rpath_bzl()
    ten = build(tmp_path / "w", "10.0.0", needing(tmp_path / "o", stubs["libamdhip64.so.7"],
                                                   stubs["libhipblas.so.4"], runpath), wheel_artifacts)
    found = unresolved(ten, rocm_version="7.2.0", rocm_root=ten_root)
    assert sorted(found) == [("jax_rocm10_pjrt", PJRT_SO, "libamdhip64.so.7"),
                             ("jax_rocm10_plugin", "_prng.so", "libamdhip64.so.7")]
    opts = Options(runpath=tuple(configured_runpath()), revisions=revision_map(VERSION), rocm_root=ten_root)
    [message] = [f.message for r in verify_wheels(ten[:1], opts) for f in r.findings if f.check == "needed"]
    assert "and the ROCm 10.0.0 runtime" in message


def test_a_major_with_no_list_resolves_nothing_in_rocm(tmp_path, wheel_artifacts, stubs):
    """The shipped data has no ROCm 10 list (its sonames are not in TheRock's manifests): a rocm10
    wheel's ROCm libraries are unresolved, saying so, never resolved in ROCm 7's."""
    ten = build(tmp_path / "w", "10.0.0", needing(tmp_path / "o", stubs["libamdhip64.so.7"],
                                                   stubs["libhipblas.so.3"], rocm_rpath_bzl()), wheel_artifacts)
    opts = Options(runpath=tuple(configured_runpath()), revisions=revision_map(VERSION), rocm_version="7.2.0")
    messages = [f.message for r in verify_wheels(ten, opts) for f in r.findings if f.check == "needed"]
    assert len(messages) == 3
    assert all("no ROCm runtime (ROCm 10.0.0 has no soname list in rocm_runtime.json" in m for m in messages)


def test_a_summary_of_another_major_than_the_name_resolves_nothing(tmp_path, wheel_artifacts, stubs, ten_root):
    from tests.support.crafted import craft, member_text
    ten = build(tmp_path / "w", "10.0.0", needing(tmp_path / "o", stubs["libamdhip64.so.10"],
                                                   stubs["libhipblas.so.4"], rocm_rpath_bzl()), wheel_artifacts)
    name, _ = member_text(ten[0], ".dist-info/METADATA")
    lying = craft(ten[0], tmp_path / "lying" / ten[0].name,
                  replace={name: lambda t: t.replace("(ROCm 10.0.0)", "(ROCm 7.2.0)")})
    opts = Options(runpath=tuple(configured_runpath()), revisions=revision_map(VERSION), rocm_root=ten_root)
    [message] = [f.message for r in verify_wheels([lying], opts) for f in r.findings if f.check == "needed"]
    assert "no ROCm runtime (the wheel is a rocm10 wheel by its name, but its Summary names ROCm 7.2.0" in message


@pytest.mark.parametrize("version", rocm_runtime.known_versions())
def test_the_shipped_lists_cover_every_directory_jaxs_runpath_names(version):
    runtime = rocm_runtime.load(version)
    assert runtime.major == 7 and len(runtime.sources) >= 3
    for directory in ("/opt/rocm/lib", f"/opt/rocm-{version}/lib", "site-packages/rocm/lib",
                      "site-packages/_rocm_sdk_core/lib"):
        assert runtime.provides(directory, "libamdhip64.so.7"), directory
    for directory in ("/opt/rocm/lib", "site-packages/_rocm_sdk_libraries/lib",
                      *(f"site-packages/_rocm_sdk_libraries_{f.replace('-', '_')}/lib" for f in FAMILIES)):
        assert runtime.provides(directory, "libhipblaslt.so.1"), directory
    assert runtime.provides("/opt/rocm/lib/rocm_sysdeps/lib", "librocm_sysdeps_liblzma.so.5")
    assert not runtime.provides("site-packages/_rocm_sdk_core/lib", "libhipblas.so.3")
    assert not runtime.provides(f"/opt/rocm-{version}/lib", "libamdhip64.so.10")
    assert not any(runtime.provides(d, "librocm_sysdeps_hwloc.so.5") for d, _ in runtime.locations)


def test_each_release_has_its_own_entry_with_its_sources():
    data = json.loads((REPO / "jax_rocm_plugin" / "rocm_runtime.json").read_text())
    assert all("same_as" not in entry and entry["sources"] for entry in data["releases"].values())
    assert rocm_runtime.load("7.1.1").provides("/opt/rocm-7.1.1/lib", "libamdhip64.so.7")
    assert not rocm_runtime.load("7.1.1").provides("/opt/rocm-7.2.0/lib", "libamdhip64.so.7")


@pytest.mark.parametrize("version", ["10.0.0", "10.1.0"])
def test_a_rocm_10_release_is_refused_in_one_line_naming_what_is_missing_and_where_it_would_come_from(version):
    """No ROCm 10 list can be written from what was read (TheRock names its libraries, the trees
    it pins set their sonames): the refusal says so and names those trees at their pins."""
    with pytest.raises(UserError) as refused:
        rocm_runtime.load(version)
    message = str(refused.value)
    assert "\n" not in message and message.startswith(f"ROCm {version} has no soname list in rocm_runtime.json")
    assert ": missing are the sonames ROCm 10 gives its libraries" in message
    assert "ROCm/rocm-systems@d134b7823f61" in message and "ROCm/rocm-libraries@416eae89dcee" in message
    assert message.endswith("; add one, with its sources, before building for it")


@pytest.mark.parametrize("missing, says", [
    ({"11": "the sonames of ROCm 11, from its SDK"}, ": missing are the sonames of ROCm 11, from its SDK;"),
    ({"10": "not this major's"}, None), ({"11": ["not", "text"]}, None), (["11"], None), (None, None)])
def test_a_release_is_refused_with_its_majors_note_only(tmp_path, missing, says):
    """The note of the release's own major, when the file has one as text; no note otherwise."""
    data = {"schema": 1, "releases": {"7.2.0": {"sources": ["x"], "locations": {"/a": ["x.so.1"]}}}}
    (tmp_path / "jax_rocm_plugin").mkdir()
    (tmp_path / "jax_rocm_plugin" / "rocm_runtime.json").write_text(json.dumps(
        data if missing is None else dict(data, missing=missing)))
    with pytest.raises(UserError) as refused:
        rocm_runtime.load("11.0.0", tmp_path)
    message = str(refused.value)
    assert message.startswith("ROCm 11.0.0 has no soname list in rocm_runtime.json (listed: 7.2.0)")
    if says is None:
        assert "missing" not in message and "(listed: 7.2.0); add one" in message
    else:
        assert says in message


@pytest.mark.parametrize("locations, error", [
    ({"/a": ["x.so.1"], "/b": "/c"}, "releases.7.2.0.locations./b: expected a list of sonames or the name"),
    ({"/a": "/a"}, "releases.7.2.0.locations./a: expected a list of sonames or the name"),
    ({"/a": ["x.so.1"], "/b": "/a"}, None),
])
def test_a_directory_may_share_another_directorys_list(tmp_path, locations, error):
    (tmp_path / "jax_rocm_plugin").mkdir()
    (tmp_path / "jax_rocm_plugin" / "rocm_runtime.json").write_text(json.dumps(
        {"schema": 1, "releases": {"7.2.0": {"sources": ["x"], "locations": locations}}}))
    if error is None:
        assert rocm_runtime.load("7.2.0", tmp_path).provides("/b", "x.so.1")
        return
    with pytest.raises(UserError, match=error.replace(".", r"\.")):
        rocm_runtime.load("7.2.0", tmp_path)


def test_a_jax_tree_line_requires_the_runpath_jax_links_not_the_rocm_jax_configs(tmp_path, wheel_artifacts,
                                                                                 stubs):
    """jax's wheels carry rocm_rpath.bzl's entries: verify of a jax-tree line requires those (and
    passes them), and still refuses an object that lacks TheRock's pip layouts."""
    from release.check.runpath import JAX_TREE_RUNPATH, layout_runpath
    from release.check.verify import required_runpath
    from tests.test_line_build import jax_tree_line
    root = jax_tree_line(tmp_path / "line")
    assert layout_runpath(root) == JAX_TREE_RUNPATH and required_runpath(None, root) == (JAX_TREE_RUNPATH, None)
    assert layout_runpath(REPO) is None and required_runpath(None, REPO)[0] == tuple(configured_runpath())
    assert set(JAX_TREE_RUNPATH) <= set(rocm_rpath_bzl())

    def errors(wheels):
        opts = Options(runpath=required_runpath(None, root)[0], revisions=revision_map(VERSION), rocm_version="7.2.0")
        return [(f.check, f.message) for r in verify_wheels(wheels, opts) for f in r.errors
                if f.check in ("runpath", "needed")]

    objects = needing(tmp_path / "oj", stubs["libamdhip64.so.7"], stubs["libhipblas.so.3"], rocm_rpath_bzl())
    objects |= {n: compile_so(tmp_path / "oj" / "rest" / n, rocm_rpath_bzl()) for n in ALL_SOS if n not in objects}
    jax_built = build(tmp_path / "jax", "7.2.0", objects, wheel_artifacts)
    assert errors(jax_built) == []
    legacy_objects = needing(tmp_path / "ol", stubs["libamdhip64.so.7"], stubs["libhipblas.so.3"],
                             configured_runpath())
    legacy = build(tmp_path / "legacy", "7.2.0", legacy_objects, wheel_artifacts)
    missing = {m for c, m in errors(legacy) if c == "runpath"}
    assert "configured entry $ORIGIN/../_rocm_sdk_core/lib is missing" in missing


def test_a_jax_tree_object_reaching_therocks_layout_from_one_depth_only_is_refused(tmp_path, wheel_artifacts):
    """The kernels sit one directory below site-packages, the PJRT object two: jax links both
    depths into every object, and verify holds a jax-tree line's objects to that."""
    from release.check.runpath import JAX_TREE_RUNPATH
    one_deep = [e for e in rocm_rpath_bzl() if not e.startswith("$ORIGIN/../../_rocm_sdk")]
    objects = {n: compile_so(tmp_path / "o" / n, one_deep) for n in ALL_SOS}
    wheels = build(tmp_path / "w", "7.2.0", objects, wheel_artifacts)
    opts = Options(runpath=JAX_TREE_RUNPATH, revisions=revision_map(VERSION), rocm_version="7.2.0")
    missing = {f.message for r in verify_wheels(wheels, opts) for f in r.errors if f.check == "runpath"}
    assert missing == {"configured entry $ORIGIN/../../_rocm_sdk_core/lib is missing",
                       "configured entry $ORIGIN/../../_rocm_sdk_libraries/lib is missing"}
