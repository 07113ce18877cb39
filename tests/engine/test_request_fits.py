"""Out-of-order scheduling that asks only the jobs whose request may fit (issue 23, item 5): the
tallest free box of every width, the request mask, the queue's tags, and the out-of-order pass
holding the same starts and the same blocked head as one that asks every job."""

import copy
from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from meshsim.engine.allocation import boxes
from meshsim.engine.allocation.allocator import ALLOCATORS
from meshsim.engine.allocation.boxes import TallestBoxes, TallestByWidth, tallest_by_width
from meshsim.engine.allocation.request_fits import _Column
from meshsim.engine.core.jobs import Job
from meshsim.engine.core.policy import Policy
from meshsim.engine.kernel.simulation import Simulation
from meshsim.engine.scheduling.context import PassContext
from meshsim.engine.scheduling.disciplines import OutOfOrder
from meshsim.engine.scheduling.orders import FCFS, SJF, WFP, WaitingQueue
from meshsim.engine.scheduling.tags import TagColumn
from meshsim.engine.tools.outputs import jobs_csv_text
from meshsim.engine.topology.machines import load_machine
from meshsim.engine.workloads.generators import load_workload
from tests.conftest import DATA

MESH32 = load_machine("mesh32")
TORUS = load_machine(str(DATA / "torus4x4.toml"))
BGL = load_machine("bgl")


@settings(max_examples=200, deadline=None)
@given(
    st.integers(1, 40),
    st.integers(1, 70),
    st.floats(0.0, 1.0),
    st.integers(0, 2**32 - 1),
    st.booleans(),
)
def test_tallest_by_width_is_the_tallest_free_box_of_each_width(
    columns, rows, busy_share, seed, growing
):
    """Both ways of computing it (16-bit words of free cells ANDed over every window of columns, up
    to five words a column here; and, past WINDOW_WORDS_KEPT, one width at a time) against the
    per-width sparse table of free runs."""
    busy = np.random.default_rng(seed).random((columns, rows)) < busy_share
    kept = 0 if growing else boxes.WINDOW_WORDS_KEPT
    with mock.patch.object(boxes, "WINDOW_WORDS_KEPT", kept):
        heights = tallest_by_width(busy)
    tallest = TallestBoxes(busy)
    assert heights[0] == 0
    assert heights[1:].tolist() == [tallest.tallest(w) for w in range(1, columns + 1)]


@settings(max_examples=100, deadline=None)
@given(
    st.integers(1, 40),
    st.integers(1, 70),
    st.floats(0.0, 0.6),
    st.integers(0, 2**32 - 1),
)
def test_kept_windows_follow_the_boxes_taken(columns, rows, busy_share, seed):
    """:class:`TallestByWidth` updated box by box gives the heights computed from scratch on the
    occupancy after each box, and so does the allocator that keeps it across starts."""
    rng = np.random.default_rng(seed)
    busy = rng.random((columns, rows)) < busy_share
    kept = TallestByWidth(busy)
    for _ in range(6):
        w, h = int(rng.integers(1, columns + 1)), int(rng.integers(1, rows + 1))
        x, y = int(rng.integers(0, columns - w + 1)), int(rng.integers(0, rows - h + 1))
        busy[x : x + w, y : y + h] = True
        kept.take((x, y), (w, h))
        assert kept.heights().tolist() == tallest_by_width(busy).tolist()


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from(["mpl", "first-fit", "best-fit"]))
def test_the_allocator_keeps_the_heights_of_its_occupancy(seed, name):
    """Random starts and ends on mesh32, the heights asked between them: always those of the
    occupancy then (the kept windows follow starts and are dropped at an end)."""
    rng = np.random.default_rng(seed)
    alloc = ALLOCATORS.get(name)(MESH32, rng)
    running = {}
    for index in range(40):
        if running and rng.random() < 0.3:
            gone = int(rng.choice(list(running)))
            alloc.release(running[gone][0], running.pop(gone)[1])
        else:
            shape = (int(rng.integers(1, 20)), int(rng.integers(1, 20)))
            job = Job(index, index + 1, 0.0, 1.0, 1.0, shape[0] * shape[1], 0, shape=shape)
            placement = alloc.find(job)
            if placement is not None:
                alloc.allocate(job, placement)
                running[index] = (job, placement)
        if rng.random() < 0.7:
            assert alloc.tallest_by_width().tolist() == tallest_by_width(alloc.busy()).tolist()


def test_a_free_run_across_whole_words_is_one_run():
    """Rows 5-52 free in columns 2-4 of a 6 x 70 mesh: the run crosses two whole 16-bit words."""
    busy = np.ones((6, 70), dtype=bool)
    busy[2:5, 5:53] = False
    busy[0, 60:70] = False
    assert tallest_by_width(busy).tolist() == [0, 48, 48, 48, 0, 0, 0]


@settings(max_examples=200)
@given(st.lists(st.tuples(st.booleans(), st.integers(0, 1000)), max_size=80))
def test_a_tag_column_follows_inserts_and_deletes_like_a_list(steps):
    column, model = TagColumn(), []
    for insert, value in steps:
        if insert or not model:
            position = value % (len(model) + 1)
            column.insert(position, value)
            model.insert(position, value)
        else:
            position = value % len(model)
            column.delete(position)
            del model[position]
        assert column.view().tolist() == model


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.integers(1, 6), st.floats(0, 5)), max_size=40))
def test_queue_tags_stay_aligned_with_its_jobs(steps):
    """Tags are kept in queue order through inserts, removals and reorders, and none are kept
    under a dynamic order (WFP)."""
    queue = WaitingQueue(FCFS(None))
    queue.tag_with(lambda job: 100 * job.size + job.index)
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
            assert queue.tags is None
            queue.reorder(FCFS(None))
        assert queue.tags is not None
        assert queue.tags.view().tolist() == [100 * j.size + j.index for j in queue.jobs]


def _random_state(machine, allocator_name, seed, *, rotate=False, jobs=40):
    """An allocator on ``machine`` with random jobs placed, and a random queue of waiting jobs."""
    rng = np.random.default_rng(seed)
    cls = ALLOCATORS.get(allocator_name)
    allocator = cls(machine, np.random.default_rng(0), rotate=rotate)
    dims = tuple(machine.spec.dims)
    index = 0

    def job(shaped: bool) -> Job:
        nonlocal index
        index += 1
        if shaped and len(dims) == 2:
            shape = tuple(int(rng.integers(1, d + 1)) for d in dims)
            size = int(np.prod(shape))
        else:
            shape, size = None, int(rng.integers(1, max(2, machine.nodes // 4)))
        return Job(index, index, 0.0, 1.0, 1.0, size, size, shape=shape)

    for _ in range(jobs):
        placement = allocator.find(job(shaped=rng.random() < 0.5))
        if placement is not None:
            allocator.allocate(Job(index, index, 0.0, 1.0, 1.0, 1, 1), placement)
    queue = [job(shaped=rng.random() < 0.7) for _ in range(int(rng.integers(1, 60)))]
    return allocator, queue


def _pass(discipline, allocator, queue, method):
    """Run one out-of-order pass of ``method`` on ``queue``; the jobs it started and its head."""
    waiting = WaitingQueue(FCFS(None))
    for job in queue:
        waiting.add(job)
    started = []

    def start(job, placement):
        allocator.allocate(job, placement)
        started.append((job.index, placement.cells))

    ctx = PassContext(0.0, waiting.jobs, allocator, start, lambda: None, waiting=waiting)
    if method == "fitting":
        fits = allocator.request_fits()
        waiting.tag_with(fits.request_id)
        head = discipline._select_fitting(ctx, fits, waiting.tags.view())
    else:
        head = discipline._select_each(ctx)
    return started, head


@pytest.mark.parametrize(
    ("machine", "allocator", "rotate"),
    [
        (MESH32, "mpl", False),
        (MESH32, "first-fit", True),
        (MESH32, "best-fit", False),
        (TORUS, "first-fit", False),
        (BGL, "max-free-box", False),
    ],
    ids=["mesh-mpl", "mesh-first-fit-rotate", "mesh-best-fit", "torus-2d", "bgl-3d"],
)
def test_the_fitting_pass_starts_and_blocks_as_asking_every_job(machine, allocator, rotate):
    discipline = OutOfOrder(Policy(discipline="oo"))
    for seed in range(25 if machine is not BGL else 8):
        alloc, queue = _random_state(machine, allocator, seed, rotate=rotate)
        expected = _pass(discipline, copy.deepcopy(alloc), queue, "each")
        assert _pass(discipline, copy.deepcopy(alloc), queue, "fitting") == expected, seed


def test_the_mask_refuses_only_requests_that_do_not_fit():
    for seed in range(30):
        alloc, queue = _random_state(MESH32, "mpl", seed, rotate=seed % 2 == 1)
        fits = alloc.request_fits()
        ids = [fits.request_id(job) for job in queue]
        mask = fits.mask()
        for job, request in zip(queue, ids, strict=True):
            assert mask[request] == (alloc.find(job) is not None)  # exact on a 2D mesh
        refused = [r for r, job in zip(ids, queue, strict=True) if alloc.find(job) is None]
        for request in refused:
            fits.refuse(request)
        assert not fits.mask()[refused].any()


@pytest.mark.parametrize(
    "policy",
    [
        {"allocator": "mpl"},
        {"allocator": "mpl", "rotate": True},
        {"allocator": "first-fit", "queue": "sjf"},
        {"allocator": "best-fit", "backfill": "easy"},
        {"allocator": "mpl", "queue": "wfp"},
    ],
    ids=["mpl", "mpl-rotate", "first-fit-sjf", "best-fit-easy", "mpl-wfp"],
)
def test_saturated_out_of_order_schedules_are_those_of_asking_every_job(
    policy, monkeypatch, tmp_path
):
    """The same schedule, job for job, as the pass that asks every waiting job (a queue of
    hundreds: 1,500 seed-001 uniform jobs at 10 jobs per time unit)."""
    spec = tmp_path / "uniform.toml"
    spec.write_text(
        '[workload]\nkind = "mesh-sides"\njobs = 1500\nseed = 1\narrival_rate = 10.0\n'
        'mean_service = 1.0\nside_distribution = "uniform"\n'
    )
    workload = load_workload(str(spec), MESH32)
    fast = Simulation(MESH32, workload, Policy(discipline="oo", **policy))
    fast.run()
    monkeypatch.setattr(OutOfOrder, "select", OutOfOrder._select_each)
    slow = Simulation(MESH32, workload, Policy(discipline="oo", **policy))
    slow.run()
    assert jobs_csv_text(fast) == jobs_csv_text(slow)
    assert fast.events == slow.events


def test_a_candidate_refused_after_a_start_is_the_head_when_it_comes_first():
    """The mask at the start of the pass lets the 31 × 32 job and twenty 2 × 2 jobs through (one
    cell is busy); the 31 × 32 job starts and the 2 × 2 jobs no longer fit: the head is the first
    of them (position 1), not the 32 × 32 job behind them that the mask refused at once."""
    allocator = ALLOCATORS.get("mpl")(MESH32, np.random.default_rng(0))
    corner = Job(0, 0, 0.0, 1.0, 1.0, 1, 1, shape=(1, 1))
    allocator.allocate(corner, allocator.find(corner))

    def job(index: int, shape: tuple[int, int]) -> Job:
        size = shape[0] * shape[1]
        return Job(index, index, 0.0, 1.0, 1.0, size, size, shape=shape)

    queue = [job(1, (31, 32)), *(job(2 + k, (2, 2)) for k in range(20)), job(30, (32, 32))]
    discipline = OutOfOrder(Policy(discipline="oo"))
    each = _pass(discipline, copy.deepcopy(allocator), queue, "each")
    assert [index for index, _ in each[0]] == [1] and each[1] == 1
    assert _pass(discipline, copy.deepcopy(allocator), queue, "fitting") == each


@settings(max_examples=50)
@given(st.lists(st.integers(-(2**40), 2**40), max_size=300), st.integers(0, 300))
def test_a_growing_column_holds_what_was_appended(values, seen_at):
    """Request columns grow in place; a view taken earlier keeps what it held then."""
    column, views = _Column(), []
    for k, value in enumerate(values):
        if k == seen_at:
            views.append((column.values(), list(values[:k])))
        column.append(value)
    assert len(column) == len(values) and column.values().tolist() == values
    for view, held in views:
        assert view.tolist() == held
