"""Units out of service: failed (DOWN) or held by an operator reservation (RESERVED).

A small state machine per unit: *in service*, *down*, *reserved*, and *draining* (it should be out
but still runs a job; it goes out when that job's nodes are released, before the instant's
scheduling pass). :class:`Outages` keeps what the operator asked for (the units down, the active
reservations) and what the allocator has been told (``out``: units withdrawn from it, with their
state); :meth:`Outages.settle` brings the two together for some units, as far as their jobs allow.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from meshsim.engine.allocation.allocator import DOWN, FREE, RESERVED
from meshsim.engine.core.errors import MeshsimError
from meshsim.engine.kernel.records import Reservation
from meshsim.engine.rejections import ActionRejected
from meshsim.engine.topology.units import UnitInfo, unit_cell, unit_name

if TYPE_CHECKING:
    from collections.abc import Iterable

    from meshsim.engine.families.partitions.menu import Menu
    from meshsim.engine.kernel.machine_state import MachineState

ON_JOB = ("requeue", "kill")
"""What a failure does to the job running on the failing unit (the ``fail`` action's ``on_job``):
requeue it (default) or kill it."""


class Outages:
    """The units out of service on one machine state's allocator."""

    def __init__(self, state: MachineState) -> None:
        self.state = state
        self.down: set[int] = set()
        self.out: dict[int, int] = {}
        self.draining: set[int] = set()
        self.reservations: list[Reservation] = []
        self.reserved_count = 0

    def fail(self, unit: str | int, on_job: str) -> tuple[int, int]:
        """Unit ``unit`` goes down: its cell and its occupant now (a job index, or FREE, ...). The
        caller ends or requeues a job on it, then settles the cell (:meth:`settle`). Failing a unit
        that is down already, or one that is never allocated, is an error."""
        if on_job not in ON_JOB:
            raise MeshsimError(f"on_job must be one of {', '.join(ON_JOB)}, got '{on_job}'")
        machine = self.state.machine
        cell = unit_cell(machine, unit)
        if cell in self.down:
            raise ActionRejected("unit_down", f"unit {unit_name(machine, cell)} is already down")
        occupant = self.occupant(cell, self.state.allocator.owners())
        if occupant < 0 and occupant != FREE and cell not in self.out:
            raise ActionRejected(
                "unit_never_allocated", f"unit {unit_name(machine, cell)} is never allocated"
            )
        self.down.add(cell)
        return cell, occupant

    def repair(self, unit: str | int) -> str:
        """A failed unit comes back: FREE, or RESERVED while a reservation covers it. Repairing a
        unit that is not down is an error."""
        machine = self.state.machine
        cell = unit_cell(machine, unit)
        name = unit_name(machine, cell)
        if cell not in self.down:
            raise ActionRejected("unit_not_down", f"unit {name} is not down")
        self.down.remove(cell)
        self.settle((cell,))
        return f"unit {name} repaired"

    def reserve(
        self, cells: tuple[int, ...], start: float, until: float, label: str
    ) -> Reservation:
        """Hold ``cells`` from ``start`` to ``until`` (the caller ends it at ``until``)."""
        reservation = Reservation(self.reserved_count, cells, start, until, label)
        self.reserved_count += 1
        self.reservations.append(reservation)
        self.settle(cells)
        return reservation

    def release(self, reservation: Reservation) -> None:
        """A reservation ends: its units return to service unless down or reserved again."""
        self.reservations.remove(reservation)
        self.settle(reservation.cells)

    def occupant(self, cell: int, owners: np.ndarray) -> int:
        """A unit's owner: a job index, FREE, DOWN or RESERVED. A count-only pool has no per-node
        owners: a node not taken out is idle while any node is, else it belongs to the job that
        started last."""
        if cell in self.out:
            return self.out[cell]
        if len(owners):
            return int(owners[cell])
        state = self.state
        if state.allocator.free_nodes > 0 or not state.running:
            return FREE
        return state.last_started()

    def covering(self, cell: int) -> list[Reservation]:
        """The active reservations that hold ``cell``."""
        return [r for r in self.reservations if cell in r.cells]

    def drain(self) -> None:
        """Take out the draining units whose jobs have gone (after a release or a re-pack)."""
        if self.draining:
            self.settle(self.draining)

    def settle(self, cells: Iterable[int]) -> None:
        """Bring ``cells`` to the state the operator asked for, as far as their jobs allow."""
        state = self.state
        state.changes += 1
        state.layout += 1
        allocator = state.allocator
        owners = allocator.owners()
        for cell in sorted(cells):
            want = DOWN if cell in self.down else RESERVED if self.covering(cell) else FREE
            occupant = self.occupant(cell, owners)
            if occupant >= 0:
                if want == FREE:
                    self.draining.discard(cell)
                else:
                    self.draining.add(cell)
                continue
            self.draining.discard(cell)
            if occupant == want or (occupant != FREE and cell not in self.out):
                continue
            if want == FREE:
                allocator.restore(cell)
                del self.out[cell]
            else:
                allocator.withdraw(cell, want)
                self.out[cell] = want

    def unit_info(self, cell: int) -> UnitInfo:
        """The unit inspector: name, state, the job on the unit, and what it blocks (on partition
        machines the other partitions that the unit's job, or the unit itself when down or
        reserved, makes unusable through overlap or wiring; elsewhere nothing beyond the job's
        placement)."""
        state = self.state
        allocator = state.allocator
        occupant = self.occupant(cell, allocator.owners())
        until = max((r.until for r in self.covering(cell)), default=None)
        menu = getattr(allocator, "menu", None)
        name = unit_name(state.machine, cell)
        blocks: tuple[str, ...] = ()
        if occupant >= 0:
            r = state.running[occupant]
            if menu is not None:
                p = allocator.partition_of(r.placement).index
                blocks = _partition_names(menu, menu.conflicts[p] & ~(1 << p))
            label = r.placement.label
            return UnitInfo(cell, name, "busy", occupant, r.job.job_id, label, blocks, until)
        if occupant != FREE and menu is not None:
            blocks = _partition_names(menu, menu.by_midplane[cell])
        kind = {FREE: "free", DOWN: "down"}.get(occupant, "reserved")
        return UnitInfo(cell, name, kind, None, None, "", blocks, until)

    def summary(self) -> dict[str, tuple[int, ...]]:
        """Units out of service now: ``down`` and ``reserved`` cells, and ``pending`` cells that
        still run a job but will be reserved (or are down) when it ends."""
        return {
            "down": tuple(sorted(c for c, s in self.out.items() if s == DOWN)),
            "reserved": tuple(sorted(c for c, s in self.out.items() if s == RESERVED)),
            "pending": tuple(sorted(self.draining)),
        }


def _partition_names(menu: Menu, mask: int) -> tuple[str, ...]:
    """Names of the menu's partitions whose bits are set in ``mask``, in menu order."""
    names = []
    while mask:
        low = mask & -mask
        names.append(menu.partitions[low.bit_length() - 1].name)
        mask ^= low
    return tuple(names)
