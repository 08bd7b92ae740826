"""Release aggregator for the JAX ROCm plugin.

Pins xla, jax and the ROCm plugin in ``deps.yaml``, keeps the next version in
``version_info.json``, and turns them into tested, versioned, published wheels.
Run it as ``python -m release <command>`` or ``jax-rocm-release <command>``.
"""

__version__ = "0.1.0"
