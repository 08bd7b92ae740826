"""``release.core.deadline``: a limit with nothing left fails at once naming 0 s, a limit off the
main thread runs unarmed (its callers keep their per-read timeouts), and an inner limit never
outlives the outer one: the outer's error is the one raised, while the inner block runs."""

from __future__ import annotations

import math
import threading
import time

import pytest

from release.core.deadline import DeadlineExceeded, wall_clock_limit


def test_the_error_names_the_limit():
    assert str(DeadlineExceeded(2.5)) == "no complete answer within 2.5 s"
    assert str(DeadlineExceeded(600)) == "no complete answer within 600 s"


@pytest.mark.parametrize("seconds", [0, 0.0, -0.0, -3, -math.inf, math.inf, math.nan])
def test_a_limit_or_restart_with_nothing_left_fails_at_once_naming_0_s(seconds):
    for start in (True, False):
        with pytest.raises(DeadlineExceeded) as caught:
            if start:
                with wall_clock_limit(seconds):
                    pytest.fail("the block ran")
            else:
                with wall_clock_limit(30) as limit:
                    limit.restart(seconds)
                    pytest.fail("the block went on")
        assert caught.value.seconds == 0.0 and str(caught.value) == "no complete answer within 0 s"


def test_a_restart_with_time_left_goes_on_with_it():
    with wall_clock_limit(30) as limit:
        limit.restart(20)
        assert limit.seconds == 20


def test_off_the_main_thread_a_limit_runs_its_block_unarmed():
    seen: list[object] = []

    def work() -> None:
        try:
            with wall_clock_limit(30) as limit:
                limit.restart(10)
                seen.append(limit.seconds)
        except BaseException as exc:  # noqa: BLE001 (what a thread raised is the finding)
            seen.append(exc)
    thread = threading.Thread(target=work)
    thread.start()
    thread.join()
    assert seen == [10]


def test_an_inner_limit_longer_than_the_outer_ends_with_the_outer_inside_the_inner_block():
    """The outer limit's error, raised while the inner block still runs (not after it), and not
    before the outer limit's time (short work inside it finishes)."""
    steps = []
    with pytest.raises(DeadlineExceeded) as caught:
        with wall_clock_limit(2.0):
            with wall_clock_limit(300):
                time.sleep(0.01)
                steps.append("short work done")
                time.sleep(8)
                steps.append("the inner block outlived the outer limit")
    assert caught.value.seconds == 2.0
    assert steps == ["short work done"]
