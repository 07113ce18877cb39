"""Units as operators name them: the one mapping between cell indices and unit names.

A *unit* is what fails, gets repaired or is reserved, and what the machine map draws as one cell:

- on a ``partitions`` machine (Intrepid) a midplane, named as in the machine file (``R00-M0``);
- on a ``mesh`` or ``torus`` a grid node, named by its coordinate ``x,y`` or ``x,y,z``
  (engine/topology/grid.py: the cell index is row-major with x slowest);
- on a ``flat`` machine a node, named by its number ``0`` … ``N-1``.

Everywhere the raw cell index (a plain integer) is accepted too. :func:`unit_name` and
:func:`unit_cell` are inverse to each other on every unit; :func:`block_cells` reads the block of a
reservation (a list of units, a box ``"0,0 4x4"`` on grids, or a partition name such as ``"1K
R00-M0..R00-M1"`` as the partition menu names them). What differs between topologies is the
topology spec's (:class:`meshsim.engine.topology.machines.TopologySpec`): how it names, finds and
draws its units and reads its own form of block."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from meshsim.engine.core.errors import MeshsimError

if TYPE_CHECKING:
    from meshsim.engine.topology.machines import Machine


@dataclass(frozen=True)
class UnitInfo:
    """What the unit inspector shows
    (:meth:`meshsim.engine.kernel.simulation.Simulation.unit_info`).

    ``state`` is ``free``, ``busy``, ``down`` or ``reserved`` (service nodes that are never
    allocated show as reserved). ``job_index``/``job_id``/``placement`` describe the job on a busy
    unit. ``blocks`` names, on partition machines, the other partitions made unusable by the unit's
    job (overlap or wiring) or, for a down or reserved midplane, the partitions that use it; it is
    empty on other machines. ``until`` is the end of the latest active reservation covering the unit
    (a busy unit under a reservation is reserved when its job ends); ``ahead`` lists the pending
    reservations that will take it, as (start, until)."""

    cell: int
    name: str
    state: str
    job_index: int | None = None
    job_id: int | None = None
    placement: str = ""
    blocks: tuple[str, ...] = ()
    until: float | None = None
    ahead: tuple[tuple[float, float], ...] = ()


def unit_count(machine: Machine) -> int:
    """How many units the machine has (midplanes, grid nodes or nodes)."""
    return machine.spec.units


def unit_name(machine: Machine, cell: int) -> str:
    """The operator's name of unit ``cell``: ``R00-M0``, ``3,4`` / ``3,4,1``, or ``5``."""
    return machine.spec.unit_name(_check(machine, cell))


def unit_cell(machine: Machine, text: str | int) -> int:
    """The cell index of a unit given by name (see the module docstring) or by raw index; an unknown
    unit is a :class:`MeshsimError` naming it and the machine."""
    if isinstance(text, int) and not isinstance(text, bool):
        return _check(machine, text)
    raw = str(text).strip()
    if raw.isdigit():
        return _check(machine, int(raw))
    cell = machine.spec.find_unit(raw)
    if cell is None:
        forms = machine.spec.unit_forms()
        raise MeshsimError(f"no unit '{text}' on machine '{machine.name}' ({forms})")
    return cell


def block_cells(machine: Machine, block: str | Sequence[str | int]) -> tuple[int, ...]:
    """The cells of a reservation block, sorted and without repeats. ``block`` is a list of units,
    or one string: a block in the topology's own form (a partition name of the menu on partition
    machines; a box ``"x,y WxH"`` / ``"x,y,z AxBxC"`` on grids, which wraps around on tori and must
    fit on meshes), or units separated by spaces."""
    if not isinstance(block, str):
        cells = [unit_cell(machine, u) for u in block]
    else:
        text = block.strip()
        found = machine.spec.block(text, machine.name)
        cells = found if found is not None else [unit_cell(machine, u) for u in text.split()]
    if not cells:
        raise MeshsimError(f"empty block on machine '{machine.name}'")
    return tuple(sorted(set(cells)))


def _check(machine: Machine, cell: int) -> int:
    count = unit_count(machine)
    if not 0 <= cell < count:
        raise MeshsimError(f"no unit {cell} on machine '{machine.name}' (cells 0..{count - 1})")
    return cell
