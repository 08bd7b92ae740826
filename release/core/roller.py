"""The roller's controls: ``roller.yaml`` next to deps.yaml, so changing them is a reviewed commit.

    mode: running    # running | dry-run | stopped
    until: 2026-12-01    # a pause (dry-run, stopped) ends with this UTC day (or at an ISO time)
    cooldown_hours: 24   # a head-following dep rolls only to commits at least this old
    throttle_after_red: 3   # after 3 red nightlies in a row, stop rolling (0 or absent: off)
    throttle_reset_after: 415   # a person's reset: reds of run #415 or older no longer count
                                # (or an ISO time: 2026-11-24T06:00:00Z, reds created at or before it)

``running`` (also when the file is absent) lets ``bump`` roll, commit, push and open its PR as
asked; ``dry-run`` makes every bump a ``--dry-run`` (it shows what would move and writes
nothing); ``stopped`` makes every bump roll nothing. Each is one line in the bump's output,
changelog and step summary. ``cooldown_hours`` (default 0: none) makes a dep that follows its
branch's head roll to the newest first-parent commit that is at least that old by the run's
clock (``$RELEASE_NOW``), not the tip; the commits left to soak are one line of the changelog.
``until`` ends a pause without a second commit: once the run's clock is past it (a date: the
end of that UTC day; a time: that moment), the mode is ``running`` (``Roller.at``).
``throttle_after_red`` and ``throttle_reset_after`` are read here and judged against the nightly
runs by ``release.sources.throttle``. Read within bounds (``release.core.bounded``); a bad value is one
line naming the file, the key and what is allowed.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
from pathlib import Path
from typing import Union

from release.core import bounded, regular
from release.core.errors import ConfigError

ROLLER_FILE = "roller.yaml"
RUNNING, DRY_RUN, STOPPED = "running", "dry-run", "stopped"
MODES = (RUNNING, DRY_RUN, STOPPED)
MAX_BYTES = 64 * 1024
MAX_COOLDOWN_HOURS = 24 * 366
MAX_THROTTLE = 100
KEYS = ("mode", "cooldown_hours", "throttle_after_red", "throttle_reset_after", "until")
Reset = Union[int, _dt.datetime]  # a run number, or a time (UTC)
RESET_EXPECTED = "a nightly run number (412) or an ISO time with a time of day (2026-11-24T06:00:00Z)"
UNTIL_EXPECTED = "a date (2026-12-01: paused through that UTC day) or an ISO time (2026-12-01T06:00:00Z)"


@dataclasses.dataclass(frozen=True)
class Roller:
    """roller.yaml as committed: the roller's mode, cooldown and throttle (the defaults when absent)."""

    mode: str = RUNNING
    cooldown_hours: float = 0
    source: str | None = None  # the file it came from (None: absent, the defaults)
    throttle_after_red: int = 0  # 0: the throttle is off
    throttle_reset_after: Reset | None = None
    until: _dt.datetime | None = None  # when a pause ends (UTC); None: when a person commits so

    def at(self, now: _dt.datetime) -> "Roller":
        """The roller as of ``now`` (the run's clock): a pause past its ``until`` is running."""
        if self.until is not None and self.mode != RUNNING and now >= self.until:
            return dataclasses.replace(self, mode=RUNNING)
        return self

    def reset_text(self) -> str | None:
        """How the reset reads in a line: ``run #415`` or ``2026-11-24T06:00:00Z``."""
        reset = self.throttle_reset_after
        if reset is None:
            return None
        return f"run #{reset}" if isinstance(reset, int) else f"{reset:%Y-%m-%dT%H:%M:%SZ}"

    def line(self) -> str | None:
        """Why this bump does less than it was asked (None when running)."""
        where = self.source or ROLLER_FILE
        until = f" until {self.until:%Y-%m-%dT%H:%M:%SZ}" if self.until is not None else ""
        if self.mode == STOPPED:
            return f"roller stopped{until} ({where} mode: stopped): nothing rolled, committed, pushed or opened"
        if self.mode == DRY_RUN:
            return f"roller in dry-run{until} ({where} mode: dry-run): shown what would move; nothing written"
        return None


def not_asked(roller: Roller) -> str | None:
    """The throttle in one line when GitHub is not asked (``release status --offline``, no
    token): what it is set to, not a decision; None when it is off. Here, not in
    ``release.sources.throttle``: saying it reads no runs, so it loads nothing that would."""
    if roller.throttle_after_red <= 0:
        return None
    reset = f", reset after {roller.reset_text()}" if roller.reset_text() else ""
    k = roller.throttle_after_red
    return (f"throttle: stops after {k} red nightl{'y' if k == 1 else 'ies'} in a row{reset}; "
            "nightly runs not read (GitHub not asked)")


def load_roller(root: Path) -> Roller:
    """``roller.yaml`` of ``root`` as it is on disk; the defaults when there is none. ``bump``,
    ``status`` and the dashboard read it as committed instead (``sources.repo.committed_roller``)."""
    path = Path(root) / ROLLER_FILE
    try:
        raw = regular.read_bytes(path, MAX_BYTES)
    except FileNotFoundError:
        return Roller()
    except regular.NotRegular as exc:
        raise ConfigError(path, None, f"a file that {exc.reason.partition('; ')[0]}",
                          f"a regular YAML file of at most {MAX_BYTES} bytes") from None
    except OSError as exc:
        raise ConfigError(path, None, f"an unreadable file ({exc.strerror})", "a readable YAML file") from None
    return parse_roller(path, raw)


def parse_roller(path: Path, raw: bytes) -> Roller:
    if len(raw) > MAX_BYTES:
        raise ConfigError(path, None, f"{len(raw)} bytes", f"at most {MAX_BYTES} bytes")
    try:
        text = raw.decode("utf-8")
        data = bounded.yaml_data(bounded.yaml_compose(text))
    except UnicodeDecodeError:
        raise ConfigError(path, None, "bytes that are not UTF-8", "a UTF-8 YAML file") from None
    except bounded.Unparseable as exc:
        raise ConfigError(path, exc.where, exc.reason, "well-formed YAML of plain data") from None
    if data is None:
        return Roller(source=path.name)
    if not isinstance(data, dict):
        raise ConfigError(path, None, f"a {type(data).__name__}", "a mapping with the key 'mode'")
    for key in data:
        if key not in KEYS:
            raise ConfigError(path, str(key)[:60], "an unknown key", "only " + ", ".join(KEYS))
    mode = data.get("mode", RUNNING)
    if mode not in MODES:
        raise ConfigError(path, "mode", repr(mode)[:60], " | ".join(MODES))
    hours = data.get("cooldown_hours", 0)
    if isinstance(hours, bool) or not isinstance(hours, (int, float)) or not 0 <= hours <= MAX_COOLDOWN_HOURS:
        raise ConfigError(path, "cooldown_hours", repr(hours)[:60], f"a number of hours from 0 to {MAX_COOLDOWN_HOURS}")
    limit = data.get("throttle_after_red", 0)
    if isinstance(limit, bool) or not isinstance(limit, int) or not 0 <= limit <= MAX_THROTTLE:
        raise ConfigError(path, "throttle_after_red", repr(limit)[:60],
                          f"a whole number of red nightlies from 0 (off) to {MAX_THROTTLE}")
    reset = _reset(path, data.get("throttle_reset_after"))
    return Roller(mode, float(hours), path.name, limit, reset, _until(path, data.get("until")))


def _until(path: Path, value: object) -> _dt.datetime | None:
    """``until``: a date ends the pause with that UTC day (at 00:00 UTC of the next), a time at
    that moment (UTC when no zone is given)."""
    if value is None:
        return None
    if isinstance(value, str):
        text = value.strip()
        try:
            value = (_dt.datetime.fromisoformat(text) if "T" in text or " " in text
                     else _dt.date.fromisoformat(text))
        except ValueError:
            raise ConfigError(path, "until", repr(text)[:60], UNTIL_EXPECTED) from None
    if isinstance(value, _dt.datetime):
        return _utc(path, "until", value, UNTIL_EXPECTED)
    if isinstance(value, _dt.date):
        if value >= _dt.date.max:  # no next day to end at
            raise ConfigError(path, "until", value.isoformat(), UNTIL_EXPECTED)
        return _dt.datetime.combine(value + _dt.timedelta(days=1), _dt.time(), _dt.timezone.utc)
    raise ConfigError(path, "until", repr(value)[:60], UNTIL_EXPECTED)


def _utc(path: Path, key: str, value: _dt.datetime, expected: str) -> _dt.datetime:
    """A time from the file as a UTC moment (UTC when it names no zone); one that is no moment a
    datetime holds in UTC (9999-12-31T23:59:59-14:00 falls in the year 10000) is refused."""
    try:
        return value.replace(tzinfo=_dt.timezone.utc) if value.tzinfo is None else value.astimezone(_dt.timezone.utc)
    except OverflowError:
        raise ConfigError(path, key, value.isoformat(), expected) from None


def _reset(path: Path, value: object) -> Reset | None:
    """``throttle_reset_after``: a run number (>= 1) or a time; a time without a zone is UTC (as
    YAML reads one), a bare date is refused (which moment of it is meant?)."""
    if value is None:
        return None
    if isinstance(value, str):
        try:
            parsed = _dt.datetime.fromisoformat(value.strip())  # Python 3.11 reads a trailing Z
        except ValueError:
            raise ConfigError(path, "throttle_reset_after", repr(value)[:60], RESET_EXPECTED) from None
        if "T" not in value and " " not in value.strip():
            raise ConfigError(path, "throttle_reset_after", repr(value)[:60], RESET_EXPECTED)
        value = parsed
    if isinstance(value, _dt.datetime):
        return _utc(path, "throttle_reset_after", value, RESET_EXPECTED)
    if isinstance(value, int) and not isinstance(value, bool) and 1 <= value < 2 ** 63:
        return value
    shown = value.isoformat() if isinstance(value, _dt.date) else repr(value)[:60]
    raise ConfigError(path, "throttle_reset_after", shown, RESET_EXPECTED)
