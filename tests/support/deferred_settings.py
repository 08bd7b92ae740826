"""openapi-core's settings modules in the tests: pydantic-settings loaded when a setting is first read.

The GitHub stand-in's openapi-core imports ``openapi_spec_validator`` (for ``validate``, which the
stand-in turns off) and ``openapi_schema_validator``; each imports its ``settings`` module at its own
import, and that module imports pydantic and pydantic-settings to declare one ``BaseSettings`` class:
about 0.18 CPU-s in every process of the suite that loads the stand-in (each xdist worker), though
checking requests and answers against GitHub's description reads no setting. ``install()``, called
by tests/conftest.py before anything imports openapi-core, puts a stand-in in place of each settings
module whose names (the ones the libraries import from it, all of them called, never subclassed)
import the real module on their first call and answer with it: a spec validation or a compiled
validator cache gets the real settings (environment variables included), only later.
tests/test_deferred_settings.py holds both halves: nothing of pydantic at import, the real module
when a setting is read.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import threading
import types
from collections.abc import Callable

# Each settings module and the names the installed libraries import from it at their own import.
MODULES = {
    "openapi_spec_validator.settings": ("OpenAPISpecValidatorSettings", "get_schema_validator_backend",
                                        "get_resolved_cache_maxsize"),
    "openapi_schema_validator.settings": ("OpenAPISchemaValidatorSettings", "get_settings", "reset_settings_cache"),
}
_LOCK = threading.RLock()


def real(name: str) -> types.ModuleType:
    """The real module ``name``, imported now if only the stand-in is in place."""
    with _LOCK:
        module = sys.modules.get(name)
        if module is None or getattr(module, "_deferred", False):
            sys.modules.pop(name, None)
            module = importlib.import_module(name)
        return module


def _forward(module: str, attr: str) -> Callable:
    def call(*args, **kwargs):
        return getattr(real(module), attr)(*args, **kwargs)
    call.__name__ = call.__qualname__ = attr
    call.__doc__ = f"The real ``{module}.{attr}``, its module imported on the first call."
    return call


def _stand_in(name: str, names: tuple[str, ...]) -> types.ModuleType:
    stand_in = types.ModuleType(name, f"{name}, imported when first used (tests/support/deferred_settings.py)")
    stand_in._deferred = True  # type: ignore[attr-defined]
    for attr in names:
        setattr(stand_in, attr, _forward(name, attr))

    def attribute(attr: str) -> object:
        """Any other name of the real module, which is imported for it; not a dunder: the import
        system asks for ``__path__`` (is it a package?), and the answer must stay no, at no cost."""
        if attr.startswith("__"):
            raise AttributeError(attr)
        return getattr(real(name), attr)

    stand_in.__getattr__ = attribute  # type: ignore[method-assign]
    return stand_in


def install() -> None:
    """Put the stand-ins in place unless their package is imported already or not installed
    (``find_spec`` of the package only: that of the dotted name would import the package)."""
    for name, names in MODULES.items():
        package = name.partition(".")[0]
        if package in sys.modules or name in sys.modules or importlib.util.find_spec(package) is None:
            continue
        sys.modules[name] = _stand_in(name, names)
