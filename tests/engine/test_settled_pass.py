"""A settled pass (only arrivals since the last one) starts exactly what a full pass would.

The engine skips re-trying the jobs the last pass left waiting when nothing was released since
(:class:`meshsim.engine.scheduling.scheduler.Scheduler`). The same runs with an allocator that
does not declare stable refusals always take full passes; the two must agree event by event, in
start times and in the reasons given for waiting jobs, including when jobs overrun their estimates
and when the operator fails, repairs and holds. Likewise for an allocator that does not declare that
it fits by count, which takes no idle passes (nothing fits) and makes EASY ask ``fits`` of every
job. One difference is allowed, and checked to be true: a settled pass keeps EASY's reservation for
the unchanged head, so its reason may name the reserved time where a full pass that found nothing to
backfill did not compute it."""

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from meshsim.engine.allocation.contiguous_choice import MaxFreeBox, MaximumPeripheralLength
from meshsim.engine.allocation.flat import FlatAllocator
from meshsim.engine.core.policy import Policy
from meshsim.engine.core.simclock import clock as sim_clock
from meshsim.engine.kernel.actions import Fail, Hold, ReleaseHold, Repair
from meshsim.engine.kernel.simulation import Simulation
from meshsim.engine.kernel.waits import Watch
from meshsim.engine.topology.machines import load_machine
from tests.conftest import DATA
from tests.engine.helpers import workload


class AlwaysFullPasses(FlatAllocator):
    """The flat allocator, without the promise that lets passes be settled."""

    stable_refusals = False


class AskedToFit(FlatAllocator):
    """The flat allocator, without the promise that it fits by count: no idle passes, and EASY asks
    ``fits`` of every job it considers."""

    fits_by_count = False


jobs = st.lists(
    st.tuples(
        st.sampled_from([0.0, 0.0, 1.0, 2.5, 4.0]),
        st.integers(1, 8),
        st.sampled_from([0.0, 1.0, 3.0, 6.0, 10.0]),
        st.sampled_from([0.5, 1.0, 2.0]),
    ),
    min_size=1,
    max_size=24,
)
policies = st.sampled_from([("fcfs", "easy"), ("oo", "easy"), ("fcfs", "none"), ("oo", "none")])


RESERVED = re.compile(r" reserved for day \d+ \d\d:\d\d:\d\d")


def trace(sim: Simulation) -> list[tuple]:
    """Per step: the record, the waiting jobs' reasons, and EASY's head and reserved time."""
    seen = []
    while (record := sim.step()) is not None:
        snap = sim.snapshot(watch=Watch(first=50))
        easy = sim.scheduler.backfill
        head = getattr(easy, "head", None)
        slot = getattr(easy, "slot", None)
        reserved = None if head is None or slot is None else (head.job_id, slot.start)
        waits = sorted((index, wait.text) for index, wait in snap.waits.items())
        seen.append((record, tuple(waits), reserved))
    return seen


@settings(max_examples=150, deadline=None)
@given(rows=jobs, policy=policies, operator=st.booleans())
def test_settled_passes_change_nothing(rows, policy, operator):
    clock = 0.0
    timed = []
    for gap, size, runtime, overrun in rows:
        clock += gap
        timed.append((clock, size, runtime, runtime / overrun))  # estimate below runtime: overrun
    actions = []
    if operator:
        first = timed[0][0]
        actions = [Fail(first + 1.0, unit=0), Hold(first + 2.0, job_id=2)]
        actions += [Repair(first + 5.0, unit=0), ReleaseHold(first + 7.0, job_id=2)]
    discipline, backfill = policy
    runs = []
    for allocator in (None, AlwaysFullPasses, AskedToFit):
        sim = Simulation(
            load_machine("flat:8"),
            workload(timed),
            Policy(discipline=discipline, backfill=backfill),
            actions=actions,
            allocator_class=allocator,
        )
        runs.append((trace(sim), sim.start_times().tolist(), sim.action_rejections()))
    assert [step[0] for step in runs[0][0]] == [step[0] for step in runs[1][0]]
    assert runs[0][1] == runs[1][1]
    assert runs[2][0] == runs[0][0]  # idle passes and counting change nothing either
    assert runs[2][1] == runs[0][1]
    last_computed: dict[int, float] = {}  # head job -> the last reservation a full pass made
    for (_, settled, _), (_, full, reserved) in zip(runs[0][0], runs[1][0], strict=True):
        if reserved is not None:
            last_computed[reserved[0]] = reserved[1]
        assert [job for job, _ in settled] == [job for job, _ in full]
        for (_, kept), (_, computed) in zip(settled, full, strict=True):
            if kept != computed:
                assert RESERVED.sub("", kept) == computed
                head = int(re.search(r"delay job (\d+)", computed).group(1))
                expected = f" reserved for {sim_clock(last_computed[head])}"
                assert RESERVED.search(kept).group(0) == expected
    assert runs[0][2] == runs[1][2]


BOXES = [
    (load_machine(str(DATA / "mesh5x4.toml")), MaximumPeripheralLength),
    (load_machine(str(DATA / "torus4x4.toml")), MaximumPeripheralLength),
    (load_machine("bgl"), MaxFreeBox),
]


@settings(max_examples=100, deadline=None)
@given(
    rows=jobs,
    discipline=st.sampled_from(["fcfs", "oo"]),
    boxes=st.sampled_from(BOXES),
    operator=st.booleans(),
)
def test_settled_passes_on_meshes_and_tori_change_nothing(rows, discipline, boxes, operator):
    """The box allocators' refusals are stable too (taking cells only takes free boxes away; a job
    that grows to a larger volume finds none either): without backfilling, settled passes start
    what full passes do, step by step, with the same reasons, through failures and holds."""
    machine, kind = boxes
    clock = 0.0
    timed = []
    for gap, size, runtime, overrun in rows:
        clock += gap
        timed.append((clock, size, runtime, runtime / overrun))
    actions = []
    if operator:
        first = timed[0][0]
        actions = [Fail(first + 1.0, unit=0), Hold(first + 2.0, job_id=2)]
        actions += [Repair(first + 5.0, unit=0), ReleaseHold(first + 7.0, job_id=2)]
    full = type(f"AlwaysFull{kind.__name__}", (kind,), {"stable_refusals": False})
    runs = []
    for allocator in (kind, full):
        sim = Simulation(
            machine,
            workload(timed),
            Policy(discipline=discipline),
            actions=actions,
            allocator_class=allocator,
        )
        assert sim.scheduler._incremental is (allocator is kind)
        runs.append((trace(sim), sim.start_times().tolist(), sim.action_rejections()))
    assert runs[0] == runs[1]
