"""The no-GPU gate's verdict (``release smoke --no-gpu``), for every answer its probe can give: jax
must import, list the CPU and run a jitted computation without an AMD GPU, and what it says about
the GPU it did not find is at most one warning. The gate run for real is in tests/test_smoke.py."""

from __future__ import annotations

import pytest

from release.check import smoke

CPU = [{"name": "cpu:0", "repr": "CpuDevice(id=0)", "platform": "cpu"}]
GOOD = {"cpu": CPU, "devices": CPU, "errors": {}, "log": [], "jit": [0.0, 8.0], "reference": [0.0, 8.0]}
INIT = "Jax plugin configuration error: Exception when calling jax_plugins.xla_rocm7.initialize(): no GPU"


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
