"""The node-count planner against a brute-force step function."""

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from meshsim.engine.allocation.allocator import Placement
from meshsim.engine.allocation.planning import CountPlanner, Releases, Slot, count_shadow, span_end
from meshsim.engine.core.jobs import Job


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


@settings(max_examples=400, deadline=None)
@given(
    free_now=st.integers(0, 8),
    releases=st.lists(st.tuples(times, st.integers(1, 6)), max_size=6),
    head=st.tuples(st.integers(1, 16), durations),
    candidates=st.lists(st.tuples(st.integers(1, 8), durations), max_size=8),
)
def test_the_shadow_rule_decides_as_the_planner_does(free_now, releases, head, candidates):
    """EASY's closed form (shadow time, free and extra nodes) admits exactly the jobs the planner
    admits after reserving the head's earliest slot, job after job, with releases past their
    estimate (before now = 1.5) counted as free now; except a zero-length job beside a head reserved
    for now, which ends by the shadow time (now + 0 <= now) where the planner's zero-length
    occupation holds the instant now (the rule's own test:
    tests/engine/test_reference_flat.py::test_a_job_without_estimate_ends_by_a_shadow_time_of_now).
    """
    now = 1.5
    entries = sorted((w, i, n) for i, (w, n) in enumerate(releases))
    first = job(0, head[0])
    planner = CountPlanner(now, free_now, Releases(now, entries, {}))
    shadow = CountPlanner(now, free_now, Releases(now, entries, {})).shadow(first)
    slot = planner.earliest(first, head[1])
    when, free, extra = shadow
    assert when == (math.inf if slot is None else slot.start)
    if slot is not None:
        planner.reserve(first, slot, head[1])
    for k, (size, duration) in enumerate(candidates):
        if duration == 0 and when == now:
            continue
        candidate = job(1 + k, size)
        across = when < now + duration
        by_shadow = size <= free and (not across or size <= extra)
        placement = Placement((), size)
        assert planner.admits(candidate, placement, duration) == by_shadow
        if by_shadow:
            planner.start(candidate, placement, duration)
            free -= size
            extra -= size if across else 0


@settings(max_examples=300, deadline=None)
@given(
    free_now=st.integers(0, 8),
    releases=st.lists(st.tuples(times, st.integers(0, 6)), max_size=8),
    size=st.integers(0, 40),
)
def test_the_shadow_with_a_kept_total_is_the_shadow(free_now, releases, size):
    """The closed form walks back from the last release when the caller keeps the releases' total of
    nodes (the engine does); it gives the same shadow as without it, and the shadow time is the
    earliest slot of the head in the planner."""
    now = 1.5
    entries = sorted((w, i, n) for i, (w, n) in enumerate(releases))
    total = sum(n for _, _, n in entries)
    shadow = count_shadow(now, free_now, entries, size)
    assert count_shadow(now, free_now, entries, size, total) == shadow
    slot = CountPlanner(now, free_now, Releases(now, entries, {})).earliest(job(0, size), 1.0)
    assert shadow[0] == (math.inf if slot is None else slot.start)
