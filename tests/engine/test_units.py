"""Units belong to the topology specs: :mod:`meshsim.engine.topology.units` asks the spec how units
are named, found, grouped into blocks and drawn, so a topology it has never heard of works as
well."""

from dataclasses import dataclass

import pytest

from meshsim.engine.core.errors import MeshsimError
from meshsim.engine.topology.machines import Machine
from meshsim.engine.topology.units import block_cells, unit_cell, unit_count, unit_name


@dataclass(frozen=True)
class RingSpec:
    """A ring of nodes named ``r0``, ``r1``, ...; the block ``all`` is every node."""

    nodes: int

    @property
    def units(self) -> int:
        return self.nodes

    def describe(self) -> str:
        return f"ring of {self.nodes}"

    def unit_name(self, cell: int) -> str:
        return f"r{cell}"

    def find_unit(self, name: str) -> int | None:
        number = name[1:]
        return int(number) if name.startswith("r") and number.isdigit() else None

    def unit_forms(self) -> str:
        return "r0 .. r5"

    def block(self, text: str, machine: str) -> list[int] | None:
        return list(range(self.nodes)) if text == "all" else None

    def picture(self) -> list[str]:
        return ["o" * self.nodes]


RING = Machine(name="ring", topology="ring", spec=RingSpec(6))


def test_a_new_topology_names_finds_and_groups_its_units():
    assert unit_count(RING) == 6
    assert [unit_name(RING, c) for c in range(3)] == ["r0", "r1", "r2"]
    assert unit_cell(RING, "r3") == 3
    assert unit_cell(RING, 4) == unit_cell(RING, "4") == 4
    assert block_cells(RING, "all") == tuple(range(6))
    assert block_cells(RING, "r2 r1 r2") == (1, 2)
    assert RING.unit_name(5) == "r5" and RING.unit_cell("r5") == 5


def test_an_unknown_unit_names_the_machine_and_the_spec_s_forms():
    with pytest.raises(MeshsimError, match=r"no unit 'x9' on machine 'ring' \(r0 \.\. r5\)"):
        unit_cell(RING, "x9")
    with pytest.raises(MeshsimError, match=r"no unit 6 on machine 'ring' \(cells 0\.\.5\)"):
        unit_name(RING, 6)
