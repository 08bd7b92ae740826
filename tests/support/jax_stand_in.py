"""Stand-in jax and jaxlib wheels of one line, for the smoke test (the real ones are not reachable
offline and need a GPU to say anything about ROCm).

The stand-in loads plugins as jax does: every ``jax_plugins`` entry point's ``initialize()`` is
called on the first ``jax.devices()``, and a failing plugin is logged as jax logs it (the message
names the module, the reason is only in the record's exception) and skipped, so devices fall back
to the CPU; with ``JAX_PLATFORMS`` naming a backend no plugin registered, ``jax.devices()`` raises
jax's "Unable to initialize backend". ``xla_bridge.register_plugin`` really loads the plugin's shared
object with ``ctypes.CDLL``: an object whose NEEDED does not resolve fails to load here as on a
user's machine. ``jit`` and ``jax.numpy`` know just the elementwise arithmetic the probe uses.
"""

from __future__ import annotations

from pathlib import Path

from tests.support.publish_dist import write_wheel

_INIT = '''
"""Stand-in jax {line}."""
from jax import numpy  # noqa: F401
from jax._src import xla_bridge

__version__ = "{line}"


class Device:
    def __init__(self, platform, index):
        self.platform, self.id = platform, index

    def __str__(self):
        return f"{{self.platform}}:{{self.id}}"

    def __repr__(self):
        return f"{{self.platform.capitalize()}}Device(id={{self.id}})"


def devices(backend=None):
    xla_bridge.discover()
    if backend == "cpu":  # the CPU backend is always there, whatever JAX_PLATFORMS says
        return [Device("cpu", 0)]
    asked = xla_bridge.chosen()
    if asked:
        return [Device(name, 0) for name in asked]
    if xla_bridge.backends:
        return [Device(name, 0) for name in sorted(xla_bridge.backends)]
    return [Device("cpu", 0)]


def jit(f):
    return f
'''

_XLA_BRIDGE = '''
import ctypes
import logging
import os
from importlib.metadata import entry_points

logger = logging.getLogger(__name__)
backends = {}
_discovered = []


def register_plugin(name, *, priority=400, library_path=None, options=None):
    if library_path is None or not os.path.exists(library_path):
        raise RuntimeError(f"no PJRT library at {library_path}")
    ctypes.CDLL(library_path)
    backends[name] = library_path


def discover():
    if _discovered:
        return
    _discovered.append(True)
    for ep in entry_points(group="jax_plugins"):
        try:
            ep.load().initialize()
        except Exception:
            logger.exception("Jax plugin configuration error: Exception when calling %s.initialize()",
                             ep.value)


def chosen():
    """The backends JAX_PLATFORMS names, failing loudly as jax does for one it does not know."""
    asked = [p for p in os.environ.get("JAX_PLATFORMS", "").split(",") if p]
    for platform in asked:
        if platform != "cpu" and platform not in backends:
            known = ["cpu", *sorted(backends)]
            raise RuntimeError(f"Unable to initialize backend '{platform}': Backend '{platform}' is "
                               f"not in the list of known backends: {known}. (you may need to uninstall "
                               "the failing plugin package, or set JAX_PLATFORMS=cpu to skip this backend.)")
    return asked
'''

_NUMPY = '''
class Array:
    def __init__(self, values):
        self.values = [float(v) for v in values]

    def __mul__(self, other):
        return Array(a * b for a, b in zip(self.values, other.values))

    def __add__(self, other):
        return Array(a + b for a, b in zip(self.values, other.values))

    def tolist(self):
        return list(self.values)


def asarray(values):
    return values if isinstance(values, Array) else Array(values)
'''


def jax_wheels(directory: Path, line: str) -> list[Path]:
    """jax (requiring jaxlib of its version) and jaxlib wheels of ``line`` in ``directory``."""
    directory.mkdir(parents=True, exist_ok=True)
    return [write_wheel(directory / f"jax-{line}-py3-none-any.whl", "jax", line, "py3-none-any",
                        {"jax/__init__.py": _INIT.format(line=line), "jax/_src/__init__.py": "",
                         "jax/_src/xla_bridge.py": _XLA_BRIDGE, "jax/numpy.py": _NUMPY},
                        requires=[f"jaxlib=={line}"]),
            write_wheel(directory / f"jaxlib-{line}-py3-none-any.whl", "jaxlib", line, "py3-none-any",
                        {"jaxlib/__init__.py": f"__version__ = {line!r}\n"})]
