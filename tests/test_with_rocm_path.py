"""The install users type without a system ROCm: ``jax[rocmN]`` -> ``jax-rocmN-plugin[with-rocm]`` ->
TheRock's ROCm runtime wheels. validate resolves it for every cell from metadata alone (pip
``--dry-run --report``, uv ``--dry-run``; no runtime wheel downloaded) and names in one line a cell
whose extra does not resolve, resolves another plugin, or resolves another major's ROCm. smoke
``--with-rocm`` installs it for real: TheRock stand-ins (``_rocm_sdk_core/lib``) served by a local
index, a plugin whose PJRT object is a real ELF NEEDing a soname only they ship, with the RUNPATH
jax's ``rocm_rpath.bzl`` links in; it loads with the extra, and without it the soname is named."""

from __future__ import annotations

import copy
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from release.check import interpreters, resolver, smoke, with_rocm_path
from release.check.runpath import JAX_TREE_RUNPATH
from release.check.validate_install import step_with_rocm
from release.check.validation import Validation
from release.core import public_index, rocm_sdk_wheels
from release.core.errors import UserError
from tests.support.crafted import VERSION, build_pair
from tests.support.elf import compile_so
from tests.support.installs import jax_stand_ins, needs_uv, uv_install
from tests.support.jax_stand_in import jax_wheels
from tests.support.publish_dist import PYTHON, build_dist, write_wheel
from tests.support.registry import LocalIndex
from tests.support.sdk_wheels import runtime_wheels, with_extra

LINE = "0.9.1"  # the line of the crafted pair's VERSION


@pytest.mark.parametrize("major, version, line", [(7, "0.9.1", "0.9.1"), (10, "0.11.1.dev20261122", "0.11.1"),
                                                  (10, "0.10.2.post3", "0.10.2"), (7, "0.12.0rc1", "0.12.0")])
def test_the_users_line_asks_jaxs_extra_and_the_plugins_with_the_plugin_pinned(major, version, line):
    assert with_rocm_path.requirements(major, version) == [
        f"jax[rocm{major}]=={line}", f"jaxlib=={line}", f"jax-rocm{major}-plugin[with-rocm]=={version}"]


@pytest.mark.parametrize("spelled", ["with-rocm", "with_rocm", "With.ROCm"])
def test_the_extra_is_read_however_metadata_spells_it(tmp_path, spelled):
    plugin = write_wheel(tmp_path / "p.whl", "jax-rocm7-plugin", LINE, "cp311-cp311-manylinux_2_28_x86_64", {},
                         requires=["jax-rocm7-pjrt==0.9.1", f'rocm[libraries]==7.2.0; extra == "{spelled}"',
                                   'pytest; extra == "test"'], provides_extra=(spelled, "test"))
    assert [str(r).split(";")[0] for r in with_rocm_path.declared(plugin) or ()] == ["rocm[libraries]==7.2.0"]


def test_a_plugin_without_the_extra_is_not_resolved_and_says_why(tmp_path):
    """Nothing is run (no interpreter is even needed): there is no with-rocm path to resolve."""
    plugin = write_wheel(tmp_path / "p.whl", "jax-rocm7-plugin", LINE, "py3-none-any", {})
    record = with_rocm_path.check_cell(tmp_path / "no-python", 7, LINE, plugin, "http://127.0.0.1:1/simple/",
                                       None, None, tmp_path / "w", lambda _: None)
    assert record.to_json() == {"pip": "n/a", "uv": "n/a", "runtime": [], "reason": "p.whl declares no "
                                "with-rocm extra"} and record.problems == []


def test_an_extra_naming_what_no_runtime_data_records_is_not_resolved_and_says_so(tmp_path):
    """As verify's with-rocm check: the rocm-jax layout's amd_*_instinct packages are not TheRock's
    runtime wheels; nothing is run."""
    plugin = write_wheel(tmp_path / "p.whl", "jax-rocm7-plugin", LINE, "py3-none-any", {},
                         requires=['amd_hipblas_instinct; extra == "with-rocm"',
                                   'rocm[libraries]==7.2.0; extra == "with-rocm"'], provides_extra=("with-rocm",))
    record = with_rocm_path.check_cell(tmp_path / "no-python", 7, LINE, plugin, "http://127.0.0.1:1/simple/",
                                       None, None, tmp_path / "w", lambda _: None)
    assert record.installers == {"pip": "n/a", "uv": "n/a"} and record.problems == []
    assert record.reason == ("the with-rocm extra names amd-hipblas-instinct, which rocm_runtime.json does not "
                             "record as ROCm runtime wheels")


@pytest.mark.parametrize("value", ["none", "ftp://x/simple", "rocm.example/simple"])
def test_a_rocm_index_that_is_no_url_is_one_line(value):
    with pytest.raises(UserError, match=r"^\$RELEASE_ROCM_INDEX '.*': expected an index URL"):
        public_index.rocm_index_default({"RELEASE_ROCM_INDEX": value})


SDK = rocm_sdk_wheels.load()
RUNTIME = ("rocm", "rocm-sdk-core", "rocm-sdk-libraries", "rocm-sdk-libraries-gfx94x-dcgpu")


@given(st.sampled_from([7, 10]), st.dictionaries(st.sampled_from(RUNTIME), st.sampled_from(
    ["7.2.0", "7.1.1", "10.1.0", "10.0.0rc2", "6.4.3"]), min_size=1))
def test_a_runtime_wheel_of_another_major_is_named_once_per_major(major, runtime):
    resolved = {"jax-rocm%d-plugin" % major: LINE, "jax": LINE, "numpy": "10.2.0", **runtime}
    problems = with_rocm_path.judge(resolved, major, LINE, [Requirement("rocm[libraries]")] if "rocm" in runtime
                                    else [], SDK)
    others = sorted({int(v.split(".")[0]) for v in runtime.values()} - {major})
    assert [p.split("runtime wheels")[0] for p in problems] == [
        f"the with-rocm extra resolves ROCm {m} " for m in others]  # numpy 10.x is no ROCm release
    for m, problem in zip(others, problems):
        assert problem.endswith(f") for a rocm{major} plugin")
        assert all(f"{n}=={v}" in problem for n, v in runtime.items() if v.startswith(f"{m}."))


def test_a_resolution_without_the_drafts_plugin_or_the_extras_packages_fails():
    extra = [Requirement("rocm[libraries]==7.2.0"), Requirement("amd-hipblas")]
    assert with_rocm_path.judge({"jax-rocm7-plugin": "0.9.0", "rocm": "7.2.0"}, 7, LINE, extra, SDK) == [
        "it resolves jax-rocm7-plugin 0.9.0, not the draft's 0.9.1",
        "the with-rocm extra's amd-hipblas not in what it resolves"]
    assert with_rocm_path.judge({"rocm": "7.2.0"}, 7, LINE, extra[:1], SDK)[0] == \
        "it resolves jax-rocm7-plugin not at all, not the draft's 0.9.1"


@pytest.mark.parametrize("stderr, said", [
    ("ERROR: Could not find a version\nERROR: No matching distribution found for rocm==7.9.9\n",
     "ERROR: No matching distribution found for rocm==7.9.9"),
    ("Using Python 3.12\nerror: No solution found when resolving dependencies\n  cause: Because rocm-sdk-x "
     "was not found in the package registry, we can conclude that it cannot be used.\n         And because\n",
     "Because rocm-sdk-x was not found in the package registry, we can conclude that it cannot be used."),
    ("  × No solution found when resolving dependencies:\n  ╰─▶ Because rocm==7.9.9 was not found.\n",
     "Because rocm==7.9.9 was not found."),
    ("", "failed without a message")])
def test_why_a_resolution_failed_is_the_installers_reason(stderr, said):
    assert with_rocm_path._said(stderr) == said


# ---------------------------------------------------------------- metadata-only resolutions, real pip and uv


@pytest.fixture(scope="module")
def indexes(tmp_path_factory):
    """The public index (jax and jaxlib of the line offering rocm7 and rocm10) and TheRock's (ROCm
    7.2.0 and 10.1.0 runtime wheels), both serving PEP 658 metadata."""
    base = tmp_path_factory.mktemp("indexes")
    public = LocalIndex(jax_stand_ins(base / "public", LINE, with_rocm=(7, 10)), metadata=True)
    rocm = LocalIndex([w for v in ("7.2.0", "10.1.0") for w in runtime_wheels(base / "rocm", v)], metadata=True)
    yield public, rocm
    public.close()
    rocm.close()


@pytest.fixture(scope="module")
def real(tmp_path_factory, indexes):
    """The module's one real resolution (pip, and uv where it is installed) of a rocm10 cell whose
    extra is ``rocm[libraries]==10.1.0``: its record, pip's ``--report`` as JSON, and what
    TheRock's index was asked. The broken cases below answer check_cell with this report edited."""
    public, rocm = indexes
    base = tmp_path_factory.mktemp("real")
    dist = build_dist(base / "dist", LINE, majors=(10,), with_rocm={10: ("rocm[libraries]==10.1.0",)})
    wheels = sorted(dist.glob("*.whl"))
    plugin = next(w for w in wheels if "plugin" in w.name)
    with resolver.staged_index(wheels, base / "index") as draft:
        record = with_rocm_path.check_cell(sys.executable, 10, LINE, plugin, draft, public.url, rocm.url,
                                           base / "work", lambda _: None)
    return record, json.loads((base / "work" / "with-rocm-pip.json").read_text()), list(rocm.log)


@needs_uv()
def test_the_path_resolves_with_pip_and_uv_from_metadata_alone(real):
    record, _, asked = real
    assert record.problems == [] and record.to_json() == {
        "pip": "ok", "uv": "ok", "reason": None,
        "runtime": ["rocm==10.1.0", "rocm-sdk-core==10.1.0", "rocm-sdk-libraries==10.1.0"]}
    assert "/files/rocm_sdk_core-10.1.0-py3-none-any.whl.metadata" in asked
    assert not [p for p in asked if p.endswith(".whl")], "a runtime wheel was downloaded"


def edited(report: dict, major: int, rocm: str) -> dict:
    """pip's real report with its plugin and PJRT renamed to ``major``'s and every ROCm runtime
    package at version ``rocm``."""
    done = json.loads(json.dumps(report))
    for item in done["install"]:
        meta = item["metadata"]
        meta["name"] = re.sub(r"^jax-rocm\d+-", f"jax-rocm{major}-", meta["name"])
        if meta["name"].startswith("rocm"):
            meta["version"] = rocm
    return done


@given(st.randoms(use_true_random=False), st.sampled_from([str.upper, str.lower, lambda n: n.replace("-", "_"),
                                                           lambda n: n.replace("-", ".")]))
def test_what_pip_reports_is_read_whatever_order_and_name_spelling(real, tmp_path_factory, rng, spell):
    """pip's real report, its entries in any order and its names spelled as core metadata may
    (case, ``_`` or ``.`` for ``-``): the same canonical names and versions."""
    report = json.loads(json.dumps(real[1]))
    want = {str(canonicalize_name(i["metadata"]["name"])): i["metadata"]["version"] for i in report["install"]}
    rng.shuffle(report["install"])
    for item in report["install"]:
        item["metadata"]["name"] = spell(item["metadata"]["name"])
    path = tmp_path_factory.mktemp("report") / "r.json"
    path.write_text(json.dumps(report))
    assert with_rocm_path.resolved_by("pip", "", "", path) == want
    assert {"jax-rocm10-plugin", "rocm", "rocm-sdk-core"} <= set(want)


def answering(monkeypatch, pip, uv=(0, "")):
    """check_cell's subprocesses answered without running them: the venv is made, pip answers
    ``(returncode, stderr, report or None)``, uv ``(returncode, stderr)``. The argvs asked, returned."""
    asked: list[list[str]] = []

    def run(argv, **_):
        asked.append(argv)
        if argv[1:3] == ["-m", "venv"]:
            return subprocess.CompletedProcess(argv, 0, "", "")
        if "--report" in argv:
            code, err, report = pip
            if report is not None:
                Path(argv[argv.index("--report") + 1]).write_text(json.dumps(report))
            return subprocess.CompletedProcess(argv, code, "", err)
        return subprocess.CompletedProcess(argv, uv[0], "", uv[1])
    monkeypatch.setattr(with_rocm_path.subprocess, "run", run)
    monkeypatch.setattr(with_rocm_path.user_install, "find_uv", lambda: "uv")
    return asked


NOT_FOUND = "ERROR: Could not find a version that satisfies the requirement {0} (from versions: none)\n" \
    "ERROR: No matching distribution found for {0}\n"  # pip's words, as the real runs printed them


@pytest.mark.parametrize("major, requirement, pip, said", [
    (7, "rocm-sdk-libraries-gfx942==7.2.0", (1, NOT_FOUND.format("rocm-sdk-libraries-gfx942==7.2.0"), None),
     "cannot resolve jax[rocm7]==0.9.1 jaxlib==0.9.1 jax-rocm7-plugin[with-rocm]==0.9.1 from the draft's index "
     "and {public} and {rocm}: ERROR: No matching distribution found for rocm-sdk-libraries-gfx942==7.2.0"),
    (10, "rocm[libraries]==10.9.9", (1, NOT_FOUND.format("rocm==10.9.9"), None),
     "cannot resolve jax[rocm10]==0.9.1 jaxlib==0.9.1 jax-rocm10-plugin[with-rocm]==0.9.1 from the draft's index "
     "and {public} and {rocm}: ERROR: No matching distribution found for rocm==10.9.9"),
    (10, "rocm[libraries]", (0, "", None),
     "cannot resolve jax[rocm10]==0.9.1 jaxlib==0.9.1 jax-rocm10-plugin[with-rocm]==0.9.1 from the draft's index "
     "and {public} and {rocm}: it named nothing it would install"),
    (7, "rocm[libraries]>=7", (0, "", (7, "10.1.0")), "the with-rocm extra resolves ROCm 10 runtime wheels "
     "(rocm==10.1.0, rocm-sdk-core==10.1.0, rocm-sdk-libraries==10.1.0) for a rocm7 plugin"),
    (10, "rocm[libraries]<8", (0, "", (10, "7.2.0")), "the with-rocm extra resolves ROCm 7 runtime wheels "
     "(rocm==7.2.0, rocm-sdk-core==7.2.0, rocm-sdk-libraries==7.2.0) for a rocm10 plugin")],
    ids=["no-such-runtime-wheel", "no-such-pin", "nothing-named", "rocm7-takes-rocm10", "rocm10-takes-rocm7"])
def test_an_extra_that_does_not_resolve_or_resolves_another_major_is_one_line(tmp_path, monkeypatch, real, major,
                                                                              requirement, pip, said):
    """pip's answers (its error, its real report edited) judged: the installer is recorded failed and
    the cell's problem is one line; pip is asked with the draft's, the public and TheRock's index."""
    code, err, report = pip
    if isinstance(report, tuple):
        report = edited(real[1], *report)
    asked = answering(monkeypatch, (code, err, report))
    plugin = write_wheel(tmp_path / "p.whl", f"jax-rocm{major}-plugin", LINE, "py3-none-any", {},
                         requires=[f'{requirement}; extra == "with-rocm"'], provides_extra=("with-rocm",))
    public, rocm = "http://127.0.0.1:1/public/", "http://127.0.0.1:1/rocm/"
    record = with_rocm_path.check_cell(sys.executable, major, LINE, plugin, "http://127.0.0.1:1/draft/", public,
                                       rocm, tmp_path / "work", lambda _: None, installers=("pip",))
    assert record.installers == {"pip": "failed"}
    assert record.problems == ["with-rocm path, pip: " + said.format(public=public, rocm=rocm)]
    [argv] = [a for a in asked if "--report" in a]
    assert "--dry-run" in argv and argv[-3:] == with_rocm_path.requirements(major, LINE)
    assert ["--extra-index-url", rocm] == argv[argv.index(rocm) - 1:argv.index(rocm) + 1]


def test_a_cell_whose_extra_fails_is_recorded_failed_and_fails_validation(tmp_path, monkeypatch, real):
    """validate's step: the cell's ``with_rocm`` says which installer failed, and its problems are
    the cell's (so the cell is not tested and the draft not marked). pip resolves ROCm 7 for a rocm10
    plugin (its real report edited), uv the same in its `` + name==version`` lines."""
    uv_said = "Resolved 7 packages in 9ms\nWould install 7 packages\n + jax-rocm10-plugin==0.9.1\n" \
        " + rocm==7.2.0\n + rocm-sdk-core==7.2.0\n + rocm-sdk-libraries==7.2.0\n"
    answering(monkeypatch, (0, "", edited(real[1], 10, "7.2.0")), (0, uv_said))
    plugin = write_wheel(tmp_path / "p.whl", "jax-rocm10-plugin", LINE, "py3-none-any", {},
                         requires=['rocm[libraries]<8; extra == "with-rocm"'], provides_extra=("with-rocm",))
    result = Validation("t", None, cells={(10, PYTHON): {"tested": False}})
    problems = step_with_rocm(sys.executable, (10, PYTHON), LINE, plugin, "http://127.0.0.1:1/draft/",
                              "http://127.0.0.1:1/public/", None, tmp_path / "work", result, lambda _: None)
    assert [p.split(":")[0] for p in problems] == ["with-rocm path, pip", "with-rocm path, uv"]
    assert all("ROCm 7 runtime wheels" in p for p in problems)
    assert result.cells[(10, PYTHON)]["with_rocm"] == {
        "pip": "failed", "uv": "failed", "reason": None,
        "runtime": ["rocm==7.2.0", "rocm-sdk-core==7.2.0", "rocm-sdk-libraries==7.2.0"]}


# ---------------------------------------------------------------- installed for real: smoke --with-rocm


@pytest.fixture(scope="module")
def loading_set(tmp_path_factory, wheel_artifacts):
    """TheRock stand-ins of ROCm 7.2.0 shipping libamdhip64.so.7, the public jax stand-ins that
    dlopen the PJRT object, and a pair whose PJRT object NEEDs libamdhip64.so.7 with jax's RUNPATH
    (``$ORIGIN/../../_rocm_sdk_core/lib`` among it), its plugin's extra ``rocm[libraries]==7.2.0``."""
    base = tmp_path_factory.mktemp("loading")
    stub = compile_so(base / "stub" / "libamdhip64.so.7", soname="libamdhip64.so.7")
    runtime = runtime_wheels(base / "rocm", "7.2.0", core=("libamdhip64.so.7",))
    pjrt_so = compile_so(base / "so" / "xla_rocm_plugin.so", list(JAX_TREE_RUNPATH), links=(stub,))
    pair = build_pair(base / "built", wheel_artifacts["good"], overrides={"xla_rocm_plugin.so": pjrt_so})
    dist = base / "dist"
    dist.mkdir()
    (dist / pair["pjrt"].name).write_bytes(pair["pjrt"].read_bytes())
    with_extra(pair["plugin"], dist, ["rocm[libraries]==7.2.0"])
    public = LocalIndex(jax_wheels(base / "public", LINE))
    rocm = LocalIndex(runtime, metadata=True)
    yield dist, public, rocm, runtime
    public.close()
    rocm.close()


def test_smoke_with_rocm_loads_the_plugin_through_the_runtime_wheels(run_cli, loading_set):
    """With ``--with-rocm`` the PJRT object finds libamdhip64.so.7 in ``_rocm_sdk_core/lib`` through
    its RUNPATH, installed from TheRock's index, and ROCm devices are listed."""
    dist, public, rocm, _ = loading_set
    code, out, err = run_cli("smoke", dist, "--public-index", public.url, "--python", sys.executable, "--json",
                             "--with-rocm", "--rocm-index", rocm.url)
    result = json.loads(out)
    assert (code, result["ok"], result["rocm_devices"]) == (0, True, ["rocm:0"]), (result, err)
    assert any(p.startswith("/files/rocm_sdk_core-7.2.0") and p.endswith(".whl") for p in rocm.log)


@needs_uv()
def test_uv_installs_the_with_rocm_path_the_plugin_loads_and_without_it_smoke_names_the_soname(
        tmp_path, loading_set, monkeypatch):
    """The same set with uv from one index holding it all, as a user's mirror: the plugin loads.
    With ``_rocm_sdk_core`` gone (as ``jax[rocm7-local]`` on a machine without a system ROCm) the
    probe fails naming the soname, and smoke's cell adds the one warning saying what users without
    a system ROCm install (not under ``--with-rocm``, which installed it)."""
    dist, _, _, runtime = loading_set
    everything = LocalIndex([*sorted(dist.glob("*.whl")), *jax_wheels(tmp_path / "jax", LINE), *runtime])
    try:
        code, installed, err = uv_install(tmp_path, everything.url, "--prerelease", "allow",
                                          *with_rocm_path.requirements(7, VERSION)[1:], f"jax=={LINE}")
    finally:
        everything.close()
    assert code == 0, err
    assert installed["rocm-sdk-core"] == "7.2.0"

    def probe():
        done = subprocess.run([str(tmp_path / "uvenv" / "bin" / "python"), "-c", smoke.PROBE], capture_output=True,
                              text=True, cwd=tmp_path, timeout=120)
        return smoke.judge(PYTHON, json.loads(done.stdout.strip().splitlines()[-1]))
    verdict = probe()
    assert verdict.ok and verdict.rocm_devices == ["rocm:0"], verdict.problems
    [core] = (tmp_path / "uvenv").glob("lib/python*/site-packages/_rocm_sdk_core")
    shutil.rmtree(core)
    without = probe()
    [problem] = without.problems
    assert problem.startswith("jax.devices() lists no ROCm device: cpu:0")
    assert "OSError: libamdhip64.so.7: cannot open shared object file" in problem
    monkeypatch.setattr(smoke, "_install_and_probe", lambda *_: copy.deepcopy(without))
    interp = interpreters.Interpreter(sys.executable, PYTHON, "running")
    wheels = sorted(dist.glob("*.whl"))
    assert smoke.run_smoke(wheels, interp, None, tmp_path, lambda _: None).warnings == [
        "libamdhip64.so.7 is not on this machine: users without a system ROCm install jax[rocm7] (the plugin's "
        "with-rocm extra, TheRock's runtime wheels); `release smoke --with-rocm` tries that"]
    assert smoke.run_smoke(wheels, interp, None, tmp_path, lambda _: None, with_rocm=True).warnings == []


@pytest.mark.parametrize("command", ["validate", "smoke"])
def test_a_rocm_index_flag_that_is_no_url_is_one_line_exit_2(run_cli, command):
    code, _, err = run_cli(command, "rocm-jax-v0.9.1", "--rocm-index", "none")
    assert code == 2 and "--rocm-index 'none': expected an index URL" in err
