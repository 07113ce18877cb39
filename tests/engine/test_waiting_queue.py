"""The waiting queue's running totals: demand and the smallest waiting size."""

from hypothesis import given, settings
from hypothesis import strategies as st

from meshsim.engine.core.jobs import Job
from meshsim.engine.scheduling.orders import FCFS, SJF, WFP, WaitingQueue


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
        assert queue.sizes == [j.size for j in queue.jobs]


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.integers(1, 6), st.floats(0, 5)), max_size=40))
def test_sizes_follow_the_queue_through_reorders(steps):
    """Under a static order ``sizes`` lists the sizes in queue order (jobs inserted in the middle,
    removed anywhere, the order switched to SJF and back); None under WFP."""
    queue = WaitingQueue(FCFS(None))
    waiting: list[Job] = []
    for index, (add, size, submit) in enumerate(steps):
        if add or not waiting:
            job = Job(index, index + 1, submit, 1.0, float(size), size, size)
            queue.add(job)
            waiting.append(job)
        else:
            queue.remove(waiting.pop(size % len(waiting)))
        if index % 7 == 3:
            queue.reorder(SJF(None))
        elif index % 7 == 5:
            queue.reorder(WFP(None))
            assert queue.sizes is None
            queue.reorder(FCFS(None))
        assert queue.sizes == [j.size for j in queue.jobs]
