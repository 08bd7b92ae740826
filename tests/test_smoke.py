"""``release smoke``: the plugin registers before the draft is published. The wheels the build
makes are installed with jax and jaxlib of their line (stand-ins from a local public index: they
load every ``jax_plugins`` entry point as jax does, and really ``dlopen`` the PJRT object); the
gate passes only when ROCm devices are listed and the jitted computation matches. A PJRT object
that needs a library the machine lacks fails the gate, with the loader's own words."""

from __future__ import annotations

import dataclasses
import json
import shutil
import signal
import sys

import pytest

from release.check import smoke
from release.core import naming
from release.publish import notes
from release.publish.drafts import publish_draft, read_dist
from release.publish.stores import LocalStore
from tests.support.crafted import VERSION, build_pair, configured_runpath, craft
from tests.support.elf import compile_so
from tests.support.jax_stand_in import jax_wheels

LINE = "0.9.1"  # the line of VERSION


@pytest.fixture(scope="module")
def public(tmp_path_factory):
    from tests.support.registry import LocalIndex
    index = LocalIndex(jax_wheels(tmp_path_factory.mktemp("public"), LINE))
    yield index
    index.close()


def smoke_cli(run_cli, target, public, *more):
    code, out, err = run_cli("smoke", target, "--public-index", public.url, "--python", sys.executable,
                             "--json", *more)
    return code, (json.loads(out) if out.strip() else None), err


def test_a_plugin_that_registers_passes_the_gate(run_cli, tmp_path, wheel_artifacts, public):
    wheels = build_pair(tmp_path / "dist", wheel_artifacts["good"])
    code, result, err = smoke_cli(run_cli, tmp_path / "dist", public)
    assert code == 0, (result, err)
    assert result["ok"] and result["rocm_devices"] == ["rocm:0"] and result["jit_matches"]
    assert result["devices"] == ["rocm:0"] and result["problems"] == []
    assert wheels["pjrt"].exists()


def test_a_plugin_whose_library_does_not_load_fails_the_gate(run_cli, tmp_path, wheel_artifacts, public):
    """TheRock#8163 on a user's machine: the PJRT object needs a library nothing provides; jax
    logs it and falls back to the CPU, which the gate refuses."""
    stub = compile_so(tmp_path / "rocm" / "libamdhip64.so.7", soname="libamdhip64.so.7")
    pjrt = compile_so(tmp_path / "so" / "xla_rocm_plugin.so", configured_runpath(), links=(stub,))
    build_pair(tmp_path / "dist", wheel_artifacts["good"], overrides={"xla_rocm_plugin.so": pjrt})
    code, result, _ = smoke_cli(run_cli, tmp_path / "dist", public)
    assert code == 1 and not result["ok"]
    assert result["devices"] == ["cpu:0"] and result["rocm_devices"] == []
    [problem] = result["cells"][0]["problems"]
    assert problem.startswith("jax.devices() lists no ROCm device: cpu:0 (jax logged: Jax plugin "
                              "configuration error: Exception when calling jax_plugins.xla_rocm7.initialize(): "
                              "OSError: libamdhip64.so.7: cannot open shared object file")


def test_with_jax_platforms_rocm_the_failing_devices_call_says_so_and_why(run_cli, tmp_path, wheel_artifacts,
                                                                          public, monkeypatch):
    """JAX_PLATFORMS=rocm on the runner: jax.devices() raises instead of falling back to the CPU;
    the verdict names the setting, jax's error and the plugin's own reason."""
    stub = compile_so(tmp_path / "rocm" / "libamdhip64.so.7", soname="libamdhip64.so.7")
    pjrt = compile_so(tmp_path / "so" / "xla_rocm_plugin.so", configured_runpath(), links=(stub,))
    build_pair(tmp_path / "dist", wheel_artifacts["good"], overrides={"xla_rocm_plugin.so": pjrt})
    monkeypatch.setenv("JAX_PLATFORMS", "rocm")
    code, result, _ = smoke_cli(run_cli, tmp_path / "dist", public)
    assert code == 1 and result["devices"] == [] and not result["jit_matches"]
    [problem] = result["cells"][0]["problems"]
    assert problem.startswith("jax.devices() failed with JAX_PLATFORMS=rocm set: RuntimeError: Unable to "
                              "initialize backend 'rocm': Backend 'rocm' is not in the list of known backends")
    assert ("(jax logged: Jax plugin configuration error: Exception when calling jax_plugins.xla_rocm7."
            "initialize(): OSError: libamdhip64.so.7: cannot open shared object file") in problem


def test_with_jax_platforms_rocm_a_plugin_that_registers_passes(run_cli, tmp_path, wheel_artifacts, public,
                                                                monkeypatch):
    build_pair(tmp_path / "dist", wheel_artifacts["good"])
    monkeypatch.setenv("JAX_PLATFORMS", "rocm")
    code, result, err = smoke_cli(run_cli, tmp_path / "dist", public)
    assert code == 0 and result["rocm_devices"] == ["rocm:0"], (result, err)


@pytest.mark.parametrize("keep", [0.3, 0.6])
def test_a_truncated_pjrt_library_names_the_signal_and_what_it_means(run_cli, tmp_path, wheel_artifacts,
                                                                     public, keep):
    """A half-written PJRT object: dlopen maps pages past its end and the probe dies of SIGBUS
    before it can answer; the verdict says so, where, and what the signal means."""
    wheels = build_pair(tmp_path / "built", wheel_artifacts["good"])
    data = (wheel_artifacts["good"] / "xla_rocm_plugin.so").read_bytes()
    short = data[:int(len(data) * keep)]
    (tmp_path / "dist").mkdir()
    craft(wheels["pjrt"], tmp_path / "dist" / wheels["pjrt"].name,
          replace={"jax_plugins/xla_rocm7/xla_rocm_plugin.so": short})
    shutil.copy(wheels["plugin"], tmp_path / "dist")
    code, result, _ = smoke_cli(run_cli, tmp_path / "dist", public)
    assert code == 1 and not result["ok"]
    [problem] = result["cells"][0]["problems"]
    assert problem.startswith("the probe was killed by SIGBUS during jax.devices(), in register_plugin "
                              "(jax/_src/xla_bridge.py) called from initialize (jax_plugins/xla_rocm7/"
                              "__init__.py): a bus error: a mapped file could not be read, "
                              "as a truncated or half-written shared library"), problem


@pytest.mark.parametrize("version, fails", [(VERSION, False), ("0.9.1rc2", False), ("0.9.1", True),
                                             ("0.9.1.post3", True)])
def test_a_line_jax_has_not_released_yet_is_a_warning_for_nightlies_and_rcs_only(run_cli, tmp_path,
                                                                                 wheel_artifacts, version, fails):
    """As validate: a nightly or rc of a jax line not on the public index yet cannot be installed
    with jax by its users either (a warning, the gate passes, saying so); a release or post must."""
    from tests.support.registry import LocalIndex
    build_pair(tmp_path / "dist", wheel_artifacts["good"], version=version)
    older = LocalIndex(jax_wheels(tmp_path / "older", "0.9.0"))
    try:
        code, result, _ = smoke_cli(run_cli, tmp_path / "dist", older)
    finally:
        older.close()
    if fails:
        assert code == 1 and result["warnings"] == []
        assert result["cells"][0]["problems"][0].startswith(f"pip cannot install jax[rocm7-local]=={LINE} "
                                                            f"jaxlib=={LINE} "
                                                            f"jax-rocm7-plugin=={version}: ")
    else:
        assert code == 0 and result["ok"] and result["problems"] == [] and result["devices"] == []
        kind = "nightly" if version == VERSION else "rc"
        assert result["cells"][0]["warnings"] == [f"jax {LINE} is not on the public index yet, so this {kind} could "
                                      "not be installed with jax to smoke-test it"]
        notes = smoke.from_json(result).markdown(version)
        assert notes.startswith(f"**ROCm smoke test** ({version}): not run, 0 of 1 cells run")
        assert f"**ROCm smoke test** ({version}, ROCm 7, Python {result['cells'][0]['python']}): not run" in notes
        assert "- warning: jax 0.9.1 is not on the public index yet" in notes


def test_a_verdict_from_before_warnings_is_still_read():
    old = {"python": "3.12", "devices": ["rocm:0"], "rocm_devices": ["rocm:0"], "jit_matches": True,
           "problems": [], "log": []}
    assert smoke.from_json(old).ok and smoke.from_json(old).warnings == []
    with pytest.raises(Exception, match="not a verdict"):
        smoke.from_json({**old, "warnings": "jax"})


def test_the_verdict_goes_into_the_drafts_notes(run_cli, tmp_path, make_dist, public, monkeypatch):
    """A draft whose pjrt registers nothing (no entry point): FAILED, in the notes, next to the
    validated mark, and ignored when publish compares notes."""
    store = LocalStore(tmp_path / "store")
    dist = read_dist(make_dist(VERSION))
    publish_draft(store, dist)
    draft = store.drafts_for(naming.release_tag(VERSION))[0]
    store.update_release(draft, body=notes.changed(draft, validated="a" * 64))
    code, result, _ = smoke_cli(run_cli, naming.release_tag(VERSION), public, "--store", "local",
                                  "--store-dir", str(tmp_path / "store"))
    assert code == 1 and result["devices"] == ["cpu:0"], _
    body = store.drafts_for(naming.release_tag(VERSION))[0].body
    section = notes.read(body).smoke
    assert section.startswith(f"**ROCm smoke test** ({VERSION}): FAILED, 1 of 1 cells run")
    assert f"**ROCm smoke test** ({VERSION}, ROCm 7, Python {result['cells'][0]['python']}): FAILED" in section
    assert "- `jax.devices()`: cpu:0" in section
    assert body.endswith(f"<!-- validated: sha256={'a' * 64} -->\n")
    assert notes.same_text(body, draft.body)
    assert publish_draft(store, dist)["changed"] is False   # the notes are the same notes


@pytest.mark.parametrize("seen, rocm, problem", [
    ({"devices": [{"name": "rocm:0", "platform": "rocm"}], "jit": [1.0], "reference": [1.0]}, ["rocm:0"], None),
    ({"devices": [{"name": "gpu:0", "platform": "gpu", "version": "rocm 7.2.0"}], "jit": [1.0],
      "reference": [1.0]}, ["gpu:0"], None),
    ({"devices": [{"name": "gpu:0", "platform": "gpu", "version": "cuda 12.8"}], "jit": [1.0],
      "reference": [1.0]}, [], "jax.devices() lists no ROCm device: gpu:0"),
    ({"devices": [{"name": "rocm:0", "platform": "rocm"}], "jit": [1.0, 2.5], "reference": [1.0, 2.0]},
     ["rocm:0"], "the jitted a * b + a gave [1.0, 2.5]; numpy gives [1.0, 2.0]"),
    ({"devices": [{"name": "rocm:0", "platform": "rocm"}], "jit": [1.0], "reference": [1.0, 2.0]},
     ["rocm:0"], "the jitted a * b + a gave [1.0]; numpy gives [1.0, 2.0]"),
    ({"devices": [], "error": "ImportError: no module named jax"}, [],
     "the probe failed: ImportError: no module named jax"),
    ({"devices": "rocm:0"}, [], "jax.devices() lists no ROCm device: nothing"),
    ({"devices": [], "error": "RuntimeError: Unable to initialize backend 'rocm'", "step": "jax.devices()",
      "jax_platforms": "rocm", "log": ["Jax plugin configuration error: Exception when calling "
                                       "jax_plugins.xla_rocm7.initialize(): OSError: libamdhip64.so.7"]}, [],
     "jax.devices() failed with JAX_PLATFORMS=rocm set: RuntimeError: Unable to initialize backend 'rocm' "
     "(jax logged: Jax plugin configuration error: Exception when calling jax_plugins.xla_rocm7.initialize(): "
     "OSError: libamdhip64.so.7)"),
    ({"devices": [], "error": "RuntimeError: no backend", "step": "jax.devices()", "jax_platforms": None}, [],
     "jax.devices() failed: RuntimeError: no backend"),
    ({"devices": [], "error": "ImportError: libstdc++", "step": "import jax", "jax_platforms": "rocm"}, [],
     "the probe failed at import jax: ImportError: libstdc++"),
    ({"devices": [{"name": "cpu:0", "platform": "cpu"}], "error": "TypeError: x", "step": "the jitted a * b + a",
      "log": ["An NVIDIA GPU may be present", "Jax plugin configuration error: Plugin module "
              "jax_plugins.xla_rocm7 does not exist"]}, [],
     "the probe failed at the jitted a * b + a: TypeError: x"),
    ({"devices": [{"name": "cpu:0", "platform": "cpu"}], "jit": [1.0], "reference": [1.0],
      "log": ["An NVIDIA GPU may be present", "Jax plugin configuration error: Plugin module "
              "jax_plugins.xla_rocm7 does not exist"]}, [],
     "jax.devices() lists no ROCm device: cpu:0 (jax logged: Jax plugin configuration error: Plugin module "
     "jax_plugins.xla_rocm7 does not exist)"),
    ({"devices": [{"name": "cpu:0", "platform": "cpu"}], "jit": [1.0], "reference": [1.0],
      "log": ["An NVIDIA GPU may be present"]}, [],
     "jax.devices() lists no ROCm device: cpu:0 (jax logged: An NVIDIA GPU may be present)"),
])
def test_the_verdict_of_every_probe_answer(seen, rocm, problem):
    result = smoke.judge("3.12", seen)
    assert result.rocm_devices == rocm
    assert (result.problems[0] if result.problems else None) == problem
    assert result.ok == (problem is None)


def test_a_failing_jit_on_the_cpu_also_says_no_rocm_device_was_listed():
    result = smoke.judge("3.12", {"devices": [{"name": "cpu:0", "platform": "cpu"}], "error": "TypeError: x",
                                  "step": "the jitted a * b + a"})
    assert result.problems == ["the probe failed at the jitted a * b + a: TypeError: x",
                               "jax.devices() lists no ROCm device: cpu:0"]


_FAULT = """probe: import jax
probe: jax.devices()
Fatal Python error: {name}

Current thread 0x00007f (most recent call first):
  File "/usr/lib/python3.12/ctypes/__init__.py", line 379 in __init__
  File "/venv/lib/python3.12/site-packages/jaxlib/xla_client.py", line 150 in load_pjrt_plugin_dynamically
  File "/venv/lib/python3.12/site-packages/jax/_src/xla_bridge.py", line 700 in register_plugin
  File "/venv/lib/python3.12/site-packages/jax_plugins/xla_rocm7/__init__.py", line 90 in initialize
  File "<string>", line 30 in <module>
"""


@pytest.mark.parametrize("returncode, stderr, said", [
    (-signal.SIGBUS, _FAULT.format(name="Bus error"),
     "the probe was killed by SIGBUS during jax.devices(), in load_pjrt_plugin_dynamically (jaxlib/xla_client.py) "
     "called from initialize (jax_plugins/xla_rocm7/__init__.py): a bus error: a mapped file could not be read"),
    (-signal.SIGSEGV, _FAULT.format(name="Segmentation fault"),
     "the probe was killed by SIGSEGV during jax.devices(), in load_pjrt_plugin_dynamically"),
    (-signal.SIGKILL, "probe: import jax\nprobe: jax.devices()\nprobe: the jitted a * b + a\n",
     "the probe was killed by SIGKILL during the jitted a * b + a: killed from outside, as by the out-of-memory"),
    (-signal.SIGTERM, "", "the probe was killed by SIGTERM: a fatal signal"),
    (-200, "", "the probe was killed by signal 200: a fatal signal"),
    (1, "probe: import jax\nTraceback\nSystemError: bad\n", "the probe exited 1 during import jax without its "
     "answer: SystemError: bad"),
    (0, "", "the probe exited 0 without its answer: no output"),
])
def test_a_probe_that_ends_without_its_answer_says_how(returncode, stderr, said):
    assert smoke._died(returncode, stderr).startswith(said)


def test_the_smoke_section_replaces_itself_and_keeps_the_mark():
    def changed(body: str, **fields: str) -> str:
        return notes.write(dataclasses.replace(notes.read(body), **fields))
    body = notes.write(notes.Notes(text="notes\n", validated="b" * 64))
    once = changed(body, smoke="first")
    twice = changed(once, smoke="second")
    assert "first" not in twice and twice.count("<!-- smoke -->") == 1
    assert twice.startswith("notes\n\n<!-- smoke -->\nsecond\n<!-- /smoke -->\n")
    assert twice.endswith(f"<!-- validated: sha256={'b' * 64} -->\n")
    assert changed(twice, validated="c" * 64).count("second") == 1   # validate keeps the verdict


def test_every_job_that_publishes_passes_the_smoke_gate_between_validate_and_publish():
    """The gate sits in the one declaration of the jobs: after validate and before publish, in
    every job that publishes, with nothing between it and publish that touches the draft (a cut
    makes its tag there, last, so a failed gate leaves no tag); it runs only when asked (--smoke,
    on a ROCm machine)."""
    from release.jobs.catalog import JOBS, PUBLISH, SMOKE, TAG, VALIDATE
    publishing = [job for job in JOBS.values() if PUBLISH in job.steps]
    assert {job.name for job in publishing} >= {"nightly", "nightly-finish", "cut", "cut-finish", "post"}
    for job in publishing:
        order = list(job.steps)
        assert order.index(VALIDATE) < order.index(SMOKE) < order.index(PUBLISH), job.name
        assert set(order[order.index(SMOKE) + 1:order.index(PUBLISH)]) <= {TAG}, job.name
    assert SMOKE.when is not None and "smoke" in SMOKE.takes


@pytest.mark.parametrize("command", [["nightly"], ["cut"], ["cut", "--post", "1"]])
def test_the_smoke_flag_reaches_every_job_command(run_cli, command):
    code, out, _ = run_cli(*command, "--help")
    assert code == 0 and "--smoke" in out


def test_a_draft_whose_smoke_test_failed_is_never_published(tmp_path, make_dist):
    from release.core.errors import UserError
    from release.publish.drafts import current_assets_digest
    from tests.support.publish_dist import mark_validated
    store = LocalStore(tmp_path / "store")
    tag = naming.release_tag(VERSION)
    publish_draft(store, read_dist(make_dist(VERSION)))
    failed = smoke.judge("3.12", {"devices": [{"name": "cpu:0", "platform": "cpu"}]})
    assert smoke.record(store, tag, failed)
    mark_validated(store, tag)
    assert current_assets_digest(store, store.drafts_for(tag)[0])
    from release.publish.drafts import undraft as undraft_
    with pytest.raises(UserError, match="failed the ROCm smoke test"):
        undraft_(store, tag)
    passed = smoke.judge("3.12", {"devices": [{"name": "rocm:0", "platform": "rocm"}], "jit": [1.0],
                                  "reference": [1.0]})
    smoke.record(store, tag, passed)
    assert undraft_(store, tag)["status"] == "published"


def test_a_verdict_made_on_the_rocm_runner_is_recorded_in_the_notes(run_cli, tmp_path, make_dist):
    store = LocalStore(tmp_path / "store")
    tag = naming.release_tag(VERSION)
    dist = read_dist(make_dist(VERSION))
    publish_draft(store, dist)
    verdict = tmp_path / "smoke.json"
    verdict.write_text(json.dumps(smoke.judge("3.12", {"devices": [{"name": "rocm:0", "platform": "rocm"}],
                                                       "jit": [2.0], "reference": [2.0]}).to_json()))
    where = ("--store", "local", "--store-dir", str(tmp_path / "store"))
    code, out, _ = run_cli("smoke", tag, "--record", verdict, *where, "--json")
    assert code == 0 and json.loads(out)["rocm_devices"] == ["rocm:0"]
    assert "**ROCm smoke test** (0.9.1.dev20261122, Python 3.12): passed" in store.drafts_for(tag)[0].body
    # notes that publish renders anew (the plan's "being built" notes) keep the verdict
    draft = store.drafts_for(tag)[0]
    store.update_release(draft, body=draft.body.replace("jax-rocm", "stale jax-rocm", 1))
    assert publish_draft(store, dist)["changed"] is True
    assert "): passed" in store.drafts_for(tag)[0].body and "stale" not in store.drafts_for(tag)[0].body
    verdict.write_text('{"python": "3.12"}')
    code, _, err = run_cli("smoke", tag, "--record", verdict, *where)
    assert code == 2 and "not a verdict of `release smoke --json`" in err


# ---------------------------------------------------------------- the no-GPU gate (--no-gpu)


def test_without_a_gpu_the_plugin_leaves_jax_on_the_cpu_with_one_warning(run_cli, tmp_path, wheel_artifacts, public):
    """A machine without an AMD GPU (here: no ROCm library at all): the plugin cannot initialize,
    jax says so once and goes on with the CPU; the no-GPU gate passes and records nothing."""
    stub = compile_so(tmp_path / "rocm" / "libamdhip64.so.7", soname="libamdhip64.so.7")
    pjrt = compile_so(tmp_path / "so" / "xla_rocm_plugin.so", configured_runpath(), links=(stub,))
    build_pair(tmp_path / "dist", wheel_artifacts["good"], overrides={"xla_rocm_plugin.so": pjrt})
    code, result, err = smoke_cli(run_cli, tmp_path / "dist", public, "--no-gpu")
    assert code == 0, (result, err)
    assert result["ok"] and result["devices"] == ["cpu:0"] and result["jit_matches"]
    [said] = result["cells"][0]["warnings"]
    assert said.startswith("without a GPU jax said (as expected): Jax plugin configuration error")


def test_without_a_gpu_jax_platforms_rocm_breaks_jax_and_fails_the_gate(run_cli, tmp_path, wheel_artifacts, public,
                                                                       monkeypatch):
    stub = compile_so(tmp_path / "rocm" / "libamdhip64.so.7", soname="libamdhip64.so.7")
    pjrt = compile_so(tmp_path / "so" / "xla_rocm_plugin.so", configured_runpath(), links=(stub,))
    build_pair(tmp_path / "dist", wheel_artifacts["good"], overrides={"xla_rocm_plugin.so": pjrt})
    monkeypatch.setenv("JAX_PLATFORMS", "rocm")
    code, result, _ = smoke_cli(run_cli, tmp_path / "dist", public, "--no-gpu")
    assert code == 1 and not result["ok"]
    assert result["cells"][0]["problems"][0].startswith("jax.devices() failed without a GPU: RuntimeError: Unable to "
                                            "initialize backend 'rocm'")


def test_a_recorded_verdict_is_never_the_no_gpu_gates(run_cli, tmp_path):
    verdict = tmp_path / "v.json"
    verdict.write_text("{}")
    code, _, err = run_cli("smoke", "rocm-jax-v0.9.1", "--record", str(verdict), "--no-gpu")
    assert code == 2 and "--no-gpu: not allowed with argument --record" in err


@pytest.mark.network
def test_the_public_set_leaves_jax_working_on_a_machine_without_a_gpu(published_wheels, tmp_path):
    """The real jax-rocm7 wheels with jax and jaxlib of their line from the public index, on this
    machine (no AMD GPU): jax imports, lists the CPU, runs a jitted computation, and the plugin
    says at most one warning."""
    from tests.support.registry import PUBLISHED_VERSION
    if f"{sys.version_info.major}.{sys.version_info.minor}" != "3.11":
        pytest.skip("the published wheels are downloaded for Python 3.11")
    from release.check import interpreters
    result = smoke.run_smoke(list(published_wheels.values()), interpreters.given([sys.executable])[0], None,
                             tmp_path, lambda _: None, no_gpu=True)
    assert result.ok, (result.problems, result.log)
    assert result.devices and all(d.startswith(("cpu", "TFRT_CPU")) for d in result.devices), result.devices
    assert result.jit_matches and PUBLISHED_VERSION.startswith("0.")


def test_every_cell_of_a_two_major_set_gets_its_own_venv_and_verdict(run_cli, tmp_path, make_dist, public):
    """A dist of ROCm 7 and ROCm 10 pairs: the no-GPU gate runs once per (major, Python) cell, each
    installing its own major's pair (jax[rocmN-local] with the plugin pinned), and the verdict
    keys each cell by its major: one major's pass never stands for the other's."""
    dist = make_dist(VERSION, majors=(7, 10))
    code, result, err = smoke_cli(run_cli, dist, public, "--no-gpu")
    assert code == 0 and result["ok"], (result, err)
    py = f"{sys.version_info.major}.{sys.version_info.minor}"
    assert [(c["rocm_major"], c["python"], c["ok"]) for c in result["cells"]] == [(7, py, True), (10, py, True)]
