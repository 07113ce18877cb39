"""The calendar on SimPy's public API (:mod:`meshsim.engine.kernel.events`): ticks at their exact
times, in priority order within an instant whatever order they were made in, cancelled ticks
dropped unseen, and no SimPy attribute that is not public read anywhere in the engine."""

import re
from math import inf, nextafter
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from meshsim.engine.kernel.events import Calendar, delay_to

ENGINE = Path(__file__).resolve().parents[2] / "engine"

times = st.floats(min_value=0.0, max_value=1e12, allow_nan=False, allow_infinity=False)


@given(times, times)
def test_a_delay_lands_on_the_exact_time_or_just_before_when_none_does(a, b):
    now, time = min(a, b), max(a, b)
    delay = delay_to(now, time)
    landed = now + delay
    assert delay >= 0 and landed <= time
    if landed < time:  # no delay lands on it: the next one up overshoots
        assert now + nextafter(delay, inf) > time


def test_ticks_come_by_time_then_priority_and_cancelled_ones_never():
    calendar = Calendar(0.0)
    fired: list[str] = []
    calendar.schedule(5.0, 2, fired.append, "late action")
    calendar.schedule(5.0, 0, fired.append, "completion")
    gone = calendar.schedule(3.0, 0, fired.append, "cancelled")
    calendar.schedule(1.0 / 3.0 * 3.0, 1, fired.append, "first")
    calendar.cancel(gone)
    order = []
    while (tick := calendar.next_tick()) is not None:
        order.append((tick[0], tick[4]))
        calendar.now = tick[0]
        calendar.pop()
        tick[3](tick[4])
    assert order == [(1.0, "first"), (5.0, "completion"), (5.0, "late action")]
    assert fired == ["first", "completion", "late action"]


def test_a_tick_due_before_simpy_s_clock_still_comes_in_order():
    calendar = Calendar(0.0)
    calendar.schedule(10.0, 0, str, "ahead")
    assert calendar.next_tick()[0] == 10.0  # SimPy's clock is now at 10
    calendar.schedule(2.0, 1, str, "now")  # an action applied at the run's clock, 0
    assert [calendar.next_tick()[4]] == ["now"]


def test_the_engine_reads_no_private_simpy_attribute():
    private = re.compile(r"\._(queue|eid|now)\b")
    hits = [
        f"{path.relative_to(ENGINE)}:{number}"
        for path in ENGINE.rglob("*.py")
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if private.search(line)
    ]
    assert hits == []
