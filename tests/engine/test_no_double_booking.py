"""No cell is ever held by two running jobs, whatever the estimates say (issue 20's review).

On meshes and tori, EASY's planner releases a running job's cells at its expected end, or now when
that has passed; a job backfilled now must still find its cells free in the real occupancy, since a
job past its estimate holds them until it really ends. Before the fix, a 5 x 1 mesh with first fit
gave the cells of a job past its zero estimate to a backfilled one (the first case below)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from meshsim.engine.core.policy import Policy
from meshsim.engine.kernel.simulation import Simulation
from meshsim.engine.topology.machines import Machine, load_machine
from tests.engine.helpers import workload

MACHINE = """[machine]
name = "{name}"
topology = "{topology}"
default_allocator = "first-fit"

[topology]
dims = [{dims}]
"""


def small_machine(tmp_path_factory: pytest.TempPathFactory, name: str, topology: str, dims: str):
    path = tmp_path_factory.mktemp("machines") / f"{name}.toml"
    path.write_text(MACHINE.format(name=name, topology=topology, dims=dims))
    return load_machine(str(path))


@pytest.fixture(scope="module")
def machines(tmp_path_factory: pytest.TempPathFactory) -> list[Machine]:
    return [
        small_machine(tmp_path_factory, "line5", "mesh", "5, 1"),
        small_machine(tmp_path_factory, "mesh3x3", "mesh", "3, 3"),
        small_machine(tmp_path_factory, "torus3x3", "torus", "3, 3"),
    ]


def shared_cells(machine: Machine, rows: list[tuple], backfill: str, allocator: str) -> list:
    """Every (time, cell, job, job) where two running jobs hold one cell, event by event."""
    sim = Simulation(machine, workload(rows), Policy(backfill=backfill, allocator=allocator))
    clashes = []
    while sim.step() is not None:
        holder: dict[int, int] = {}
        for index, running in sim.running.items():
            for cell in running.placement.cells:
                if cell in holder:
                    clashes.append((sim.now, cell, holder[cell], index))
                holder[cell] = index
    return clashes


def test_a_job_past_its_estimate_keeps_its_cells(machines: list[Machine]) -> None:
    rows = [(0, 3, 0, 2), (2, 4, 0, 8), (3, 5, 2, 3), (4, 4, 5, 0), (4, 3, 8, 3), (6, 1, 2, 1)]
    rows.append((8, 2, 3, 8))
    assert shared_cells(machines[0], rows, "easy", "first-fit") == []


times = st.sampled_from([0, 1, 2, 3, 5, 8])
gaps = st.sampled_from([0, 0, 1, 2])
rows = st.lists(st.tuples(gaps, st.integers(1, 9), times, times), min_size=2, max_size=8)


@settings(max_examples=60, deadline=None)
@given(
    jobs=rows,
    which=st.integers(0, 2),
    backfill=st.sampled_from(["easy", "conservative"]),
    allocator=st.sampled_from(["first-fit", "best-fit", "mpl", "max-free-box"]),
)
def test_no_cell_is_held_twice(machines, jobs, which, backfill, allocator) -> None:
    machine = machines[which]
    clock, timed = 0.0, []
    for gap, size, runtime, estimate in jobs:  # overrunning estimates on purpose
        clock += gap
        timed.append((clock, min(size, machine.nodes), float(runtime), float(estimate)))
    assert shared_cells(machine, timed, backfill, allocator) == []
