"""Whether the process that left a file or folder behind (a ``.part``, a validate workdir) still
runs: its leftovers are removed only when it does not."""

from __future__ import annotations

import os


def alive(pid: int) -> bool:
    """True while ``pid`` runs, ours or someone else's (a signal 0 we may not send still means it is there)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
