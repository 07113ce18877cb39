"""Units as operators name them: the one mapping between cell indices and unit names.

A *unit* is what fails, gets repaired or is reserved, and what the machine map draws as one cell:

- on a ``partitions`` machine (Intrepid) a midplane, named as in the machine file (``R00-M0``);
- on a ``mesh`` or ``torus`` a grid node, named by its coordinate ``x,y`` or ``x,y,z``
  (engine/grid.py: the cell index is row-major with x slowest);
- on a ``flat`` machine a node, named by its number ``0`` … ``N-1``.

Everywhere the raw cell index (a plain integer) is accepted too. :func:`unit_name` and
:func:`unit_cell` are inverse to each other on every unit; :func:`block_cells` reads the block of a
reservation (a list of units, a box ``"0,0 4x4"`` on grids, or a partition name such as ``"1K
R00-M0..R00-M1"`` as the partition menu names them)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import product
from typing import TYPE_CHECKING

from meshsim.engine.errors import MeshsimError

if TYPE_CHECKING:
    from meshsim.engine.machines import Machine

_BOX = re.compile(r"^\(?\s*(\d+(?:\s*,\s*\d+)*)\s*\)?\s+(\d+(?:\s*x\s*\d+)*)$")


@dataclass(frozen=True)
class UnitInfo:
    """What the unit inspector shows (:meth:`meshsim.engine.simulation.Simulation.unit_info`).

    ``state`` is ``free``, ``busy``, ``down`` or ``reserved`` (service nodes that are never
    allocated show as reserved). ``job_index``/``job_id``/``placement`` describe the job on a busy
    unit. ``blocks`` names, on partition machines, the other partitions made unusable by the unit's
    job (overlap or wiring) or, for a down or reserved midplane, the partitions that use it; it is
    empty on other machines. ``until`` is the end of the latest reservation covering the unit (a
    busy unit under a reservation is reserved when its job ends)."""

    cell: int
    name: str
    state: str
    job_index: int | None = None
    job_id: int | None = None
    placement: str = ""
    blocks: tuple[str, ...] = ()
    until: float | None = None


def unit_count(machine: Machine) -> int:
    """How many units the machine has (midplanes, grid nodes or nodes)."""
    if machine.topology == "partitions":
        return int(machine.spec.midplanes)
    return machine.nodes


def unit_name(machine: Machine, cell: int) -> str:
    """The operator's name of unit ``cell``: ``R00-M0``, ``3,4`` / ``3,4,1``, or ``5``."""
    _check(machine, cell)
    if machine.topology == "partitions":
        return str(machine.spec.names[cell])
    if machine.topology in ("mesh", "torus"):
        return ",".join(str(c) for c in machine.spec.coord(cell))
    return str(cell)


def unit_cell(machine: Machine, text: str | int) -> int:
    """The cell index of a unit given by name (see the module docstring) or by raw index; an unknown
    unit is a :class:`MeshsimError` naming it and the machine."""
    if isinstance(text, int) and not isinstance(text, bool):
        return _check(machine, text)
    raw = str(text).strip()
    if raw.isdigit():
        return _check(machine, int(raw))
    if machine.topology == "partitions":
        names = {n.lower(): i for i, n in enumerate(machine.spec.names)}
        if raw.lower() in names:
            return names[raw.lower()]
    elif machine.topology in ("mesh", "torus"):
        dims = machine.spec.dims
        parts = raw.strip("()").split(",")
        if len(parts) == len(dims) and all(p.strip().isdigit() for p in parts):
            coord = tuple(int(p) for p in parts)
            if all(c < d for c, d in zip(coord, dims, strict=True)):
                return int(machine.spec.cell(coord))
    raise MeshsimError(f"no unit '{text}' on machine '{machine.name}' ({_forms(machine)})")


def block_cells(machine: Machine, block: str | Sequence[str | int]) -> tuple[int, ...]:
    """The cells of a reservation block, sorted and without repeats. ``block`` is a list of units,
    or one string: a partition name of the menu (partition machines), a box ``"x,y WxH"`` / ``"x,y,z
    AxBxC"`` (grids; it wraps around on tori and must fit on meshes), or units separated by
    spaces."""
    if not isinstance(block, str):
        cells = [unit_cell(machine, u) for u in block]
    else:
        cells = _block_from_text(machine, block.strip())
    if not cells:
        raise MeshsimError(f"empty block on machine '{machine.name}'")
    return tuple(sorted(set(cells)))


def _block_from_text(machine: Machine, text: str) -> list[int]:
    if machine.topology == "partitions":
        from meshsim.engine.partitions.menu import build_menu

        for p in build_menu(machine.spec).partitions:
            if p.name == text:
                return list(p.midplanes)
    box = _BOX.match(text)
    if box is not None and machine.topology in ("mesh", "torus"):
        return _box_cells(machine, text, box)
    return [unit_cell(machine, u) for u in text.split()]


def _box_cells(machine: Machine, text: str, box: re.Match[str]) -> list[int]:
    spec = machine.spec
    start = [int(v) for v in box.group(1).split(",")]
    extent = [int(v) for v in box.group(2).split("x")]
    dims = spec.dims
    if len(start) != len(dims) or len(extent) != len(dims):
        raise MeshsimError(f"box '{text}' needs {len(dims)} coordinates and extents")
    for s, e, d, w in zip(start, extent, dims, spec.wrap, strict=True):
        if s >= d or e < 1 or e > d or (not w and s + e > d):
            raise MeshsimError(f"box '{text}' does not fit machine '{machine.name}' {dims}")
    axes = [[(s + k) % d for k in range(e)] for s, e, d in zip(start, extent, dims, strict=True)]
    return [int(spec.cell(c)) for c in product(*axes)]


def _check(machine: Machine, cell: int) -> int:
    count = unit_count(machine)
    if not 0 <= cell < count:
        raise MeshsimError(f"no unit {cell} on machine '{machine.name}' (cells 0..{count - 1})")
    return cell


def _forms(machine: Machine) -> str:
    if machine.topology == "partitions":
        return "a midplane name such as " + machine.spec.names[0] + ", or a cell number"
    if machine.topology in ("mesh", "torus"):
        return f"a coordinate such as {','.join('0' * len(machine.spec.dims))}, or a cell number"
    return f"a node number 0..{machine.nodes - 1}"
