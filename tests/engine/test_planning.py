"""The node-count planner against a brute-force step function."""

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.jobs import Job
from engine.planning import CountPlanner, Releases, Slot, span_end


def job(index: int, size: int) -> Job:
    return Job(index, index + 1, 0.0, 1.0, 1.0, size, size)


def brute_free(now, free_now, releases, adjust, t):
    free = free_now + sum(n for when, n in releases if max(when, now) <= t)
    return free - sum(n for a, b, n in adjust if a <= t < b)


def brute_min(now, free_now, releases, adjust, a, b):
    points = (
        {a}
        | {max(w, now) for w, _ in releases}
        | {x for x, _, _ in adjust}
        | {y for _, y, _ in adjust}
    )
    return min(brute_free(now, free_now, releases, adjust, p) for p in points if a <= p < b)


times = st.sampled_from([0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.5, 7.0])
durations = st.sampled_from([0.0, 0.5, 1.0, 2.5, 4.0])


@settings(max_examples=300, deadline=None)
@given(
    free_now=st.integers(0, 8),
    releases=st.lists(st.tuples(times, st.integers(1, 6)), max_size=6),
    reservations=st.lists(st.tuples(times, durations, st.integers(1, 8)), max_size=4),
    query=st.tuples(st.integers(1, 12), durations),
)
def test_count_planner_matches_brute_force(free_now, releases, reservations, query):
    now = 0.0
    releases = sorted(releases)
    entries = [(w, i, n) for i, (w, n) in enumerate(releases)]
    planner = CountPlanner(now, free_now, Releases(now, entries, {}))
    adjust = []
    for k, (start, duration, size) in enumerate(reservations):
        planner.reserve(job(100 + k, size), Slot(start), duration)
        adjust.append((start, span_end(start, duration), size))
    size, duration = query
    for t in (0.0, 0.5, 1.0, 2.0, 4.5, 7.0, 9.0):
        assert planner.free_at(t) == brute_free(now, free_now, releases, adjust, t)
        end = span_end(t, duration)
        assert planner.min_free(t, end) == brute_min(now, free_now, releases, adjust, t, end)
    slot = planner.earliest(job(50, size), duration)
    candidates = sorted({now} | {max(w, now) for w, _ in releases} | {b for _, b, _ in adjust})
    fits = [
        s
        for s in candidates
        if brute_min(now, free_now, releases, adjust, s, span_end(s, duration)) >= size
    ]
    if fits:
        assert slot is not None and slot.start == fits[0]
    else:
        assert slot is None
    assert not math.isnan(free_now)
