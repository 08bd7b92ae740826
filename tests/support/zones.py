"""A local time zone for the length of a block: rules about UTC dates and times must hold on a
runner whose zone is a day ahead or behind (TZ in POSIX form, such as ``<+14>-14``)."""

from __future__ import annotations

import contextlib
import os
import time
from typing import Iterator


@contextlib.contextmanager
def local_zone(zone: str) -> Iterator[None]:
    """Run the block with ``TZ=zone`` in force (``time.tzset``); the zone before comes back after."""
    saved = os.environ.get("TZ")
    os.environ["TZ"] = zone
    time.tzset()
    try:
        yield
    finally:
        if saved is None:
            os.environ.pop("TZ", None)
        else:
            os.environ["TZ"] = saved
        time.tzset()
