"""The no-GPU gate's verdict (``release smoke --no-gpu``), for every answer its probe can give: jax
must import, list the CPU and run a jitted computation without an AMD GPU, and what it says about
the GPU it did not find is at most one warning. The gate run for real is in tests/test_smoke.py."""

from __future__ import annotations

import pytest

from release.check import smoke

CPU = [{"name": "cpu:0", "repr": "CpuDevice(id=0)", "platform": "cpu"}]
GOOD = {"cpu": CPU, "devices": CPU, "errors": {}, "log": [], "jit": [0.0, 8.0], "reference": [0.0, 8.0]}
INIT = "Jax plugin configuration error: Exception when calling jax_plugins.xla_rocm7.initialize(): no GPU"
# What jax 0.11.2 logged on an NVIDIA H200 with the GPU hidden (CUDA_VISIBLE_DEVICES=""), its real CUDA
# plugin standing in for ours (scripts/device-probe): the plugin's one warning, then jax's own notice
# of the NVIDIA hardware it saw, which is not the plugin speaking.
REAL_CUDA_HIDDEN = [
    "Jax plugin configuration error: Exception when calling jax_plugins.xla_cuda13.initialize(): "
    "RuntimeError: jaxlib/cuda/versions_helpers.cc:135: operation cuInit(0) failed: CUDA_ERROR_NO_DEVICE",
    "An NVIDIA GPU may be present on this machine, but a CUDA-enabled jaxlib is not installed. "
    "Falling back to cpu."]
NOTICES = ["An NVIDIA GPU may be present on this machine, but a CUDA-enabled jaxlib is not installed. "
           "Falling back to cpu.",
           "A Google TPU may be present on this machine, but either a TPU-enabled jaxlib or libtpu is "
           "not installed. Falling back to cpu.",
           "CUDA backend failed to initialize: no supported devices found for platform CUDA."]


@pytest.mark.parametrize("seen, problem", [
    (GOOD, None),
    (GOOD | {"log": [INIT]}, None),
    (GOOD | {"log": ["UserWarning: something about numpy"]}, None),
    (GOOD | {"log": [INIT, "RuntimeWarning: ROCm: hipGetDeviceCount failed"]},
     "without a GPU the plugin said 2 warnings, expected at most one"),
    (GOOD | {"errors": {"import jax": "ImportError: libamdhip64.so.7"}, "cpu": [], "devices": [], "jit": None},
     "import jax failed without a GPU: ImportError: libamdhip64.so.7"),
    (GOOD | {"errors": {'jax.devices("cpu")': "RuntimeError: boom"}, "cpu": []},
     'jax.devices("cpu") failed without a GPU: RuntimeError: boom'),
    (GOOD | {"cpu": []}, 'jax.devices("cpu") lists no device'),
    (GOOD | {"jit": [0.0, 9.0]}, "the jitted a * b + a gave [0.0, 9.0] without a GPU"),
])
def test_the_no_gpu_verdict_of_every_probe_answer(seen, problem):
    result = smoke.judge_no_gpu("3.12", seen)
    if problem is None:
        assert result.ok, result.problems
    else:
        assert not result.ok and result.problems[0].startswith(problem), result.problems


@pytest.mark.parametrize("notice", NOTICES)
@pytest.mark.parametrize("before", [True, False])
def test_jax_notices_of_other_hardware_are_not_the_plugin_speaking(notice, before):
    """One plugin warning plus jax's notice of an NVIDIA GPU or TPU it saw (on a CUDA runner that
    installed the ROCm plugin) passes, the notice kept as a warning; two plugin warnings still fail
    beside it."""
    log = [notice, INIT] if before else [INIT, notice]
    result = smoke.judge_no_gpu("3.12", GOOD | {"log": log})
    assert result.ok, result.problems
    assert any("other hardware" in w and notice[:20] in w for w in result.warnings), result.warnings
    twice = smoke.judge_no_gpu("3.12", GOOD | {"log": [*log, "RuntimeWarning: ROCm: hipGetDeviceCount failed"]})
    assert not twice.ok and "said 2 warnings" in twice.problems[0]


def test_the_real_cuda_plugin_with_its_gpu_hidden_passes_the_no_gpu_gate():
    assert smoke.judge_no_gpu("3.12", GOOD | {"log": REAL_CUDA_HIDDEN}).ok
