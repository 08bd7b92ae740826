"""What a command loads: run ``python -m release``'s entry in a fresh interpreter and read back
``sys.modules`` as it stands when the command is done. The start-up rules (test_startup,
test_build, test_throttle_bump) hold commands to what they must not load."""

from __future__ import annotations

import json
import subprocess
import sys

PROBE = """
import json, sys
from release.cli import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
print(json.dumps(sorted(sys.modules)), file=sys.__stderr__)
"""


def run_probe(*argv: str, probe: str = PROBE, **kwargs) -> tuple[subprocess.CompletedProcess, set[str]]:
    """(the finished command, the modules loaded by then); ``kwargs`` go to ``subprocess.run``
    (cwd, env)."""
    proc = subprocess.run([sys.executable, "-c", probe, *argv], capture_output=True, text=True, **kwargs)
    return proc, set(json.loads(proc.stderr.strip().splitlines()[-1]))
