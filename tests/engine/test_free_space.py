"""Issue 22, item 4: the machine's free space as the console's ``m`` view shows it — a partition
menu's ``partlist`` (partitions by size and state, what blocks each idle midplane), the free boxes
of a mesh or torus with the fragmentation, the free nodes of a pool."""

from __future__ import annotations

import numpy as np

from meshsim.engine.allocation.allocator import DOWN, FREE, RESERVED
from meshsim.engine.allocation.free_space import box_space
from meshsim.engine.core.policy import Policy
from meshsim.engine.kernel.actions import Fail
from meshsim.engine.kernel.simulation import Simulation
from meshsim.engine.kernel.views import free_space
from meshsim.engine.topology.machines import load_machine
from tests.engine.helpers import workload
from tests.engine.test_intrepid import allocator, take


def test_a_flat_pool_gives_its_free_nodes():
    sim = Simulation(load_machine("flat:16"), workload([(0, 5, 10), (0, 4, 10)]))
    sim.run(until=0)
    space = free_space(sim)
    assert space.title == "Free nodes"
    assert space.lines == ("16 nodes: 7 free, 9 taken",)


def test_free_boxes_fragmentation_and_positions_on_a_mesh():
    # mesh 5 x 4 (x across, cell = x * 4 + y); a job on column x = 2 splits the free cells
    owners = np.full((5, 4), FREE, dtype=np.int64)
    owners[2, :] = 7
    owners[0, 0] = DOWN
    owners[4, 3] = RESERVED
    space = box_space(owners.reshape(-1), (5, 4), (False, False))
    assert space.lines == (
        "20 units: 14 free, 4 busy, 1 down, 1 reserved",
        "largest free box 2x3 (6 cells); fragmentation 57% (free cells outside it)",
    )
    (table,) = space.tables
    assert table.rows[0] == ("2x3", "6", "2")
    shapes = [row[0] for row in table.rows]
    assert "3x2" not in shapes, "a shape fitting in one listed before it is not listed"
    assert "1x4" in shapes, "the free column x = 1 is its own largest box"


def test_free_boxes_wrap_around_a_torus():
    owners = np.full((4, 4), FREE, dtype=np.int64)
    owners[1:3, :] = 3  # the free rows 0 and 3 meet across the wrap
    space = box_space(owners.reshape(-1), (4, 4), (True, True))
    assert space.tables[0].rows[0] == ("2x4", "8", "4")
    assert space.lines[1].endswith("fragmentation 0% (free cells outside it)")


def test_partlist_counts_partitions_by_state_and_names_the_blockers():
    alloc = allocator()
    take(alloc, 0, "R00-M0", "R00-M1")  # a 1K partition: job number 1
    alloc.withdraw(alloc.menu.spec.names.index("R01-M0"), DOWN)
    space = alloc.free_space(lambda index: index + 1)
    assert space.title == "Partitions (partlist)"
    assert space.lines == ("80 units: 77 free, 2 busy, 1 down, 0 reserved (midplanes)",)
    sizes, idle = space.tables
    by_size = {row[0]: row for row in sizes.rows}
    assert by_size["512"] == ("512", "80", "77", "0", "2", "1", "0")
    assert by_size["1K"][3] == "1", "the job's own partition is the one busy 1K partition"
    rows = {r[0]: r for r in idle.rows}
    # R01-M1 still joins 1K and 2K partitions along the x cables (R01..R02); every 4K one that
    # holds it also needs R00's midplanes or the down R01-M0
    assert rows["R01-M1"] == ("R01-M1", "2K", "4K: 1 (R00-M0), R01-M0 down")
    assert rows["R47-M1"] == ("R47-M1", "32K", "40K: 1 (R00-M0), R01-M0 down")
    assert len(idle.rows) == 77


def test_the_console_view_of_a_run_on_each_family():
    intrepid = Simulation(load_machine("intrepid"), workload([(0, 2048, 100.0)]))
    intrepid.run(until=0)
    assert free_space(intrepid).title == "Partitions (partlist)"
    mesh = Simulation(load_machine("mesh32"), workload([(0, 100, 10.0)]), Policy())
    mesh.run(until=0)
    assert free_space(mesh).title == "Free boxes"
    failed = Simulation(
        load_machine("mesh32"), workload([(1, 1, 10.0)]), actions=[Fail(1.0, "0,0")]
    )
    failed.run(until=1)
    assert ", 1 down, " in free_space(failed).lines[0]
