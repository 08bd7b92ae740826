"""The run's clock: ``$RELEASE_NOW`` (ISO 8601, UTC when no zone is given; tests, replays and
CI's later jobs set it) or the wall clock. The one place a run reads its clock: the jobs and
the rules take the time as an input."""

from __future__ import annotations

import datetime as _dt
import os

NOW_ENV = "RELEASE_NOW"


def now_utc() -> _dt.datetime:
    """The run's time, in UTC."""
    text = os.environ.get(NOW_ENV, "").strip()
    if not text:
        return _dt.datetime.now(_dt.timezone.utc)
    try:
        value = _dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        from release.core.errors import UserError
        raise UserError(f"${NOW_ENV}={text!r}: expected an ISO 8601 time such as "
                        "2026-11-23T03:00:00Z") from None
    return value.replace(tzinfo=_dt.timezone.utc) if value.tzinfo is None else \
        value.astimezone(_dt.timezone.utc)


def today_utc() -> _dt.date:
    """The UTC date of the run (``now_utc``): what nightly versions are dated."""
    return now_utc().date()
