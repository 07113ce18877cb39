"""The calendar on SimPy's public API (:mod:`meshsim.engine.kernel.events`): ticks at their exact
times, in priority order within an instant whatever order they were made in, cancelled ticks
dropped unseen, and no SimPy attribute that is not public read anywhere in the engine."""

import re
from math import inf, nextafter
from pathlib import Path

import simpy
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


def test_simpy_steps_to_the_time_peek_gave():
    """What the calendar relies on to keep SimPy's clock without reading ``env.now`` per tick:
    ``step`` moves the clock to the time ``peek`` gave, and only ``step`` moves it."""
    env = simpy.Environment(2.0)
    simpy.Timeout(env, 3.5)
    simpy.Timeout(env, 1.25)
    assert env.now == 2.0
    at = env.peek()
    env.step()
    assert env.now == at == 3.25
    simpy.Timeout(env, 0.5)
    assert env.now == 3.25


def test_one_simpy_timeout_per_instant_carries_all_its_ticks():
    calendar = Calendar(0.0)
    for key in range(3):
        calendar.schedule(5.0, key, str, key)
    calendar.schedule(7.0, 0, str, "later")
    env = calendar.env
    instants = []
    while env.peek() < inf:
        instants.append(env.peek())
        env.step()
    assert instants == [5.0, 7.0]


def test_the_ticks_of_one_instant_come_whole_in_priority_order():
    calendar = Calendar(0.0)
    for prio in (3, 1, 2):
        calendar.schedule(5.0, prio, str, prio)
    calendar.schedule(9.0, 0, str, "later")
    calendar.schedule(4.0, 9, str, "earlier")
    order = []
    while (tick := calendar.next_tick()) is not None:
        calendar.now = tick[0]
        calendar.pop()
        order.append(tick[4])
        if tick[4] == 3:  # a tick for the instant SimPy has handed on joins it
            calendar.schedule(5.0, 4, str, 4)
    assert order == ["earlier", 1, 2, 3, 4, "later"]
