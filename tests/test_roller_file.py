"""roller.yaml read as a person writes it: every value in range is taken as written (bounds
included), every value out of range or of the wrong kind is one exact line naming the file, the
key, the value and what is allowed, and the file is bounded. Fast rules over generated files
(fixed seed); bump, status and the dashboard reading it are in tests/test_roller.py and the weeks.
"""

from __future__ import annotations

import datetime as dt

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from release.core import roller as R
from release.core.errors import ConfigError

UTC = dt.timezone.utc
HOURS_EXPECTED = f"a number of hours from 0 to {R.MAX_COOLDOWN_HOURS}"
THROTTLE_EXPECTED = f"a whole number of red nightlies from 0 (off) to {R.MAX_THROTTLE}"

times = st.datetimes(min_value=dt.datetime(2000, 1, 1), max_value=dt.datetime(2100, 1, 1),
                     timezones=st.none() | st.sampled_from([UTC, dt.timezone(dt.timedelta(hours=-7)),
                                                            dt.timezone(dt.timedelta(hours=5, minutes=30))]))
hours = st.integers(0, R.MAX_COOLDOWN_HOURS) | st.floats(0, R.MAX_COOLDOWN_HOURS) | st.sampled_from(
    [0, R.MAX_COOLDOWN_HOURS, 0.5])
resets = st.integers(1, 2 ** 63 - 1) | times


def as_utc(value: dt.datetime) -> dt.datetime:
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def parse(tmp_path, data) -> R.Roller:
    return R.parse_roller(tmp_path / "roller.yaml", yaml.safe_dump(data).encode())


def refused(tmp_path, raw: bytes) -> str:
    with pytest.raises(ConfigError) as exc:
        R.parse_roller(tmp_path / "roller.yaml", raw)
    line = str(exc.value)
    assert "\n" not in line
    return line


@settings(derandomize=True, max_examples=80, deadline=None)
@given(mode=st.none() | st.sampled_from(R.MODES), cooldown=st.none() | hours,
       limit=st.none() | st.integers(0, R.MAX_THROTTLE) | st.sampled_from([0, R.MAX_THROTTLE]),
       reset=st.none() | resets, iso=st.booleans())
def test_every_value_in_range_is_taken_as_written(tmp_path_factory, mode, cooldown, limit, reset, iso):
    tmp = tmp_path_factory.mktemp("r")
    data = {k: v for k, v in (("mode", mode), ("cooldown_hours", cooldown), ("throttle_after_red", limit))
            if v is not None}
    if reset is not None:  # a time as YAML's own timestamp, or as an ISO string
        data["throttle_reset_after"] = reset.isoformat() if iso and isinstance(reset, dt.datetime) else reset
    got = parse(tmp, data)
    want_reset = as_utc(reset) if isinstance(reset, dt.datetime) else reset
    assert got == R.Roller(mode or R.RUNNING, float(cooldown or 0), "roller.yaml", limit or 0, want_reset)
    assert isinstance(got.cooldown_hours, float)
    if isinstance(want_reset, dt.datetime):
        assert got.throttle_reset_after.tzinfo == UTC
        assert got.reset_text() == f"{want_reset:%Y-%m-%dT%H:%M:%SZ}"
    elif want_reset is not None:
        assert got.reset_text() == f"run #{want_reset}"
    else:
        assert got.reset_text() is None


bad_hours = st.sampled_from([-1, -0.001, R.MAX_COOLDOWN_HOURS + 1, R.MAX_COOLDOWN_HOURS + 0.5, True, False,
                             "24", "a day", [1], {"h": 1}, None]).filter(lambda v: v is not None)
bad_limits = st.sampled_from([-1, R.MAX_THROTTLE + 1, 1.5, 3.0, True, "3", [3]])
bad_resets = st.sampled_from([0, -1, 2 ** 63, True, 1.5, "2026-11-24", "soon", "415", [415],
                              dt.date(2026, 11, 24)])


@settings(derandomize=True, max_examples=60, deadline=None)
@given(key=st.sampled_from(["cooldown_hours", "throttle_after_red", "throttle_reset_after", "mode"]),
       data=st.data())
def test_a_value_out_of_range_is_one_exact_line(tmp_path_factory, key, data):
    tmp = tmp_path_factory.mktemp("r")
    strategy = {"cooldown_hours": bad_hours, "throttle_after_red": bad_limits, "throttle_reset_after": bad_resets,
                "mode": st.sampled_from(["Running", "dry_run", "", 1, True, ["stopped"]])}[key]
    value = data.draw(strategy)
    expected = {"cooldown_hours": HOURS_EXPECTED, "throttle_after_red": THROTTLE_EXPECTED,
                "throttle_reset_after": R.RESET_EXPECTED, "mode": " | ".join(R.MODES)}[key]
    shown = value.isoformat() if isinstance(value, dt.date) else repr(value)[:60]
    line = refused(tmp, yaml.safe_dump({"mode": "running", key: value} if key != "mode" else {key: value}).encode())
    assert line == f"{tmp / 'roller.yaml'}: {key}: got {shown}; expected {expected}"


def test_a_long_value_is_shown_cut_at_sixty_characters(tmp_path):
    long = "x" * 100
    for key, expected in (("cooldown_hours", HOURS_EXPECTED), ("throttle_after_red", THROTTLE_EXPECTED),
                          ("throttle_reset_after", R.RESET_EXPECTED), ("mode", " | ".join(R.MODES)),
                          ("until", R.UNTIL_EXPECTED)):
        line = refused(tmp_path, yaml.safe_dump({key: long}).encode())
        assert line == f"{tmp_path / 'roller.yaml'}: {key}: got {repr(long)[:60]}; expected {expected}"
    many = list(range(100))  # a value of the wrong kind is cut the same way
    line = refused(tmp_path, yaml.safe_dump({"throttle_reset_after": many}).encode())
    assert line == f"{tmp_path / 'roller.yaml'}: throttle_reset_after: got {repr(many)[:60]}; expected " \
                   f"{R.RESET_EXPECTED}"
    line = refused(tmp_path, yaml.safe_dump({"k" * 100: 1}).encode())
    assert line == (f"{tmp_path / 'roller.yaml'}: {'k' * 60}: got an unknown key; expected only "
                    "mode, cooldown_hours, throttle_after_red, throttle_reset_after, until")


def test_the_file_is_bounded_and_whole(tmp_path):
    path = tmp_path / "roller.yaml"
    body = b"mode: stopped\n"
    exact = body + b"#" * (R.MAX_BYTES - len(body) - 1) + b"\n"
    assert len(exact) == R.MAX_BYTES and R.parse_roller(path, exact).mode == R.STOPPED
    over = exact + b"\n"
    assert refused(tmp_path, over) == f"{path}: got {R.MAX_BYTES + 1} bytes; expected at most {R.MAX_BYTES} bytes"
    assert refused(tmp_path, b"mode: \xff\n") == f"{path}: got bytes that are not UTF-8; expected a UTF-8 YAML file"
    assert refused(tmp_path, b"- mode\n") == f"{path}: got a list; expected a mapping with the key 'mode'"
    assert refused(tmp_path, b"running\n") == f"{path}: got a str; expected a mapping with the key 'mode'"
    assert refused(tmp_path, b"a: &x 1\nb: *x\n") == (f"{path}: line 1, column 4: got an anchor or alias (&name, "
                                                       "*name); write the value out; expected well-formed YAML "
                                                       "of plain data")
    assert R.parse_roller(path, b"") == R.parse_roller(path, b"# nothing yet\n") == R.Roller(source="roller.yaml")


def test_loading_reads_the_file_beside_deps_yaml_or_takes_the_defaults(tmp_path):
    assert R.load_roller(tmp_path) == R.Roller()  # absent: running, no source
    (tmp_path / "roller.yaml").write_text("mode: dry-run\ncooldown_hours: 6\n")
    assert R.load_roller(tmp_path) == R.Roller(R.DRY_RUN, 6.0, "roller.yaml")
    (tmp_path / "roller.yaml").unlink()
    (tmp_path / "roller.yaml").mkdir()  # there, but not a file
    with pytest.raises(ConfigError) as exc:
        R.load_roller(tmp_path)
    assert str(exc.value) == (f"{tmp_path / 'roller.yaml'}: got an unreadable file (Is a directory); "
                              "expected a readable YAML file")


def test_a_mode_that_does_less_says_so_naming_its_file():
    assert R.Roller().line() is None and R.Roller(source="roller.yaml").line() is None
    assert R.Roller(R.STOPPED).line() == ("roller stopped (roller.yaml mode: stopped): nothing rolled, "
                                          "committed, pushed or opened")
    assert R.Roller(R.DRY_RUN, source="ci/roller.yaml").line() == (
        "roller in dry-run (ci/roller.yaml mode: dry-run): shown what would move; nothing written")


def test_a_reset_time_is_utc_whatever_the_machines_zone(tmp_path, monkeypatch):
    """A time without a zone means UTC (as YAML reads one), and one with a zone is that moment
    in UTC: never the machine's local time, which a runner's TZ could make anything."""
    import time
    monkeypatch.setenv("TZ", "America/Denver")
    time.tzset()
    try:
        for written, want in (("2026-11-24T06:00:00", "2026-11-24T06:00:00Z"),
                              ("2026-11-24T06:00:00Z", "2026-11-24T06:00:00Z"),
                              ("2026-11-24T06:00:00-07:00", "2026-11-24T13:00:00Z"),
                              ("2026-11-24 06:00:00", "2026-11-24T06:00:00Z")):
            for text in (f"throttle_reset_after: {written}\n", f"throttle_reset_after: '{written}'\n"):
                got = R.parse_roller(tmp_path / "roller.yaml", text.encode())
                assert got.reset_text() == want, (text, got)
                assert got.throttle_reset_after.utcoffset() == dt.timedelta(0)
    finally:
        monkeypatch.delenv("TZ")
        time.tzset()


@pytest.mark.parametrize("written, ends", [
    ("2026-12-01", dt.datetime(2026, 12, 2, tzinfo=UTC)),              # a YAML date: through that UTC day
    ("'2026-12-01'", dt.datetime(2026, 12, 2, tzinfo=UTC)),            # the same, quoted
    ("2026-12-01T06:00:00Z", dt.datetime(2026, 12, 1, 6, tzinfo=UTC)),
    ("2026-12-01T06:00:00", dt.datetime(2026, 12, 1, 6, tzinfo=UTC)),  # no zone: UTC
    ("'2026-12-01T06:00:00-07:00'", dt.datetime(2026, 12, 1, 13, tzinfo=UTC)),
])
@pytest.mark.parametrize("mode", [R.STOPPED, R.DRY_RUN])
def test_a_pause_ends_at_its_until_by_the_runs_clock(tmp_path, written, ends, mode):
    roller = R.parse_roller(tmp_path / "roller.yaml", f"mode: {mode}\nuntil: {written}\n".encode())
    assert roller.until == ends
    second = dt.timedelta(seconds=1)
    for now in (ends - dt.timedelta(days=8), ends - second):
        assert roller.at(now).mode == mode and roller.at(now).line().startswith(
            ("roller stopped until", "roller in dry-run until"))
    for now in (ends, ends + second, ends + dt.timedelta(days=400)):
        assert roller.at(now).mode == R.RUNNING and roller.at(now).line() is None
    assert roller.at(ends).cooldown_hours == roller.cooldown_hours


def test_without_until_a_pause_lasts_and_running_stays_running(tmp_path):
    far = dt.datetime(2100, 1, 1, tzinfo=UTC)
    assert R.parse_roller(tmp_path / "roller.yaml", b"mode: stopped\n").at(far).mode == R.STOPPED
    running = R.parse_roller(tmp_path / "roller.yaml", b"mode: running\nuntil: 2026-12-01\n")
    assert running.at(dt.datetime(2026, 11, 1, tzinfo=UTC)).mode == R.RUNNING


@pytest.mark.parametrize("raw", [b"mode: stopped\nuntil: tomorrow\n", b"mode: stopped\nuntil: 7\n",
                                 b"mode: stopped\nuntil: '2026-12-01 noon'\n", b"mode: stopped\nuntil: [2026]\n"])
def test_an_until_that_is_no_date_is_one_line(tmp_path, raw):
    assert "until: got" in refused(tmp_path, raw) and R.UNTIL_EXPECTED in refused(tmp_path, raw)
