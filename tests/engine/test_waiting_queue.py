"""The waiting queue's running totals: demand and the smallest waiting size."""

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.jobs import Job
from engine.scheduling.orders import FCFS, WaitingQueue


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.integers(1, 6)), max_size=60))
def test_smallest_and_demand_follow_adds_and_removes(steps):
    queue = WaitingQueue(FCFS(None))
    waiting: list[Job] = []
    for index, (add, size) in enumerate(steps):
        if add or not waiting:
            job = Job(index, index + 1, float(index), 1.0, 1.0, size, size)
            queue.add(job)
            waiting.append(job)
        else:
            queue.remove(waiting.pop(size % len(waiting)))
        assert queue.smallest == min((j.size for j in waiting), default=0)
        assert queue.demand == sum(j.size for j in waiting)
        assert queue.jobs == sorted(waiting, key=lambda j: (j.submit, j.index))
