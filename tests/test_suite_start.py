"""A worker of the suite starts without what no test uses: pytest-httpserver's plugin (werkzeug's
server and test client, ~0.18 CPU-s a process) is not loaded even where an older venv has it, and
openapi-core's settings (pydantic) wait for a setting to be read (tests/test_deferred_settings.py)."""

from __future__ import annotations

import sys


def test_no_worker_loads_the_http_server_plugin(pytestconfig):
    assert pytestconfig.pluginmanager.get_plugin("pytest_httpserver") is None
    assert not any(m.split(".")[0] == "pytest_httpserver" for m in sys.modules)
