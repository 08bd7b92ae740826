"""The ROCm PJRT plugin for JAX.

jax finds this package through the ``jax_plugins`` entry point and calls
``initialize()``, which registers ``xla_rocm_plugin.so`` (next to this file) as the
``rocm`` backend. Importing this package alone does not import jax.
"""

import logging
import os
import pathlib

from .version import __version__  # noqa: F401

_log = logging.getLogger(__name__)
PLUGIN_LIBRARY = pathlib.Path(__file__).resolve().parent / "xla_rocm_plugin.so"


def library_path() -> str:
    return str(PLUGIN_LIBRARY)


def initialize():
    path = library_path()
    if not os.path.exists(path):
        _log.warning("ROCm PJRT plugin library %s is missing; the rocm backend is unavailable", path)
        return
    from jax._src import xla_bridge

    xla_bridge.register_plugin("rocm", priority=500, library_path=path, options=None)
