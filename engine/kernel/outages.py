"""Units out of service: failed (DOWN) or held by an operator reservation (RESERVED).

A small state machine per unit: *in service*, *down*, *reserved*, and *draining* (it should be out
but still runs a job; it goes out when that job's nodes are released, before the instant's
scheduling pass). :class:`Outages` keeps what the operator asked for (the units down, the
reservations) and what the allocator has been told (``out``: units withdrawn from it, with their
state); :meth:`Outages.settle` brings the two together for some units, as far as their jobs allow.

A reservation is *pending* from the moment it is made until its start, then *active* until its end
(docs/model.md, "Operator reservations"). A pending one takes no unit out of service: it is a
maintenance window ahead (:meth:`Outages.windows`) that the scheduling pass keeps every job that
would reach it off its units (:mod:`meshsim.engine.allocation.windows`). When it starts its idle
units are reserved at once and its busy ones drain (the job on them is waited for) or, with
``on_job = "kill"``, their jobs are killed first (:meth:`meshsim.engine.kernel.operator.Operator`
does both, at the reservation's start)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from meshsim.engine.allocation.allocator import DOWN, FREE, RESERVED
from meshsim.engine.allocation.windows import Window
from meshsim.engine.core.errors import MeshsimError
from meshsim.engine.kernel.records import Reservation, ReservationStatus
from meshsim.engine.rejections import ActionRejected
from meshsim.engine.topology.units import UnitInfo, unit_cell, unit_count, unit_name

if TYPE_CHECKING:
    from collections.abc import Iterable

    from meshsim.engine.families.partitions.menu import Menu
    from meshsim.engine.kernel.machine_state import MachineState

ON_JOB = ("requeue", "kill")
"""What a failure does to the job running on the failing unit (the ``fail`` action's ``on_job``):
requeue it (default) or kill it."""

ON_JOB_AT_START = ("wait", "kill")
"""What a reservation does, when it starts, to a job still running on its units (the ``reserve``
action's ``on_job``): wait for it (default: the unit is reserved when the job ends) or kill it."""


class Outages:
    """The units out of service on one machine state's allocator."""

    def __init__(self, state: MachineState) -> None:
        self.state = state
        self.down: set[int] = set()
        self.out: dict[int, int] = {}
        self.draining: set[int] = set()
        self.reservations: list[Reservation] = []
        """The active reservations."""
        self.pending: list[Reservation] = []
        """The reservations made that have not started, in order of start."""
        self.reserved_count = 0
        self._windows: tuple[Window, ...] | None = ()
        """The pending reservations as windows (None: to be computed again)."""

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
        self, cells: tuple[int, ...], start: float, until: float, label: str, on_job: str
    ) -> Reservation:
        """A reservation of ``cells`` over [start, until), pending until the caller starts it
        (:meth:`activate`) and ends it (:meth:`release`)."""
        reservation = Reservation(self.reserved_count, cells, start, until, label, on_job)
        self.reserved_count += 1
        self.pending.append(reservation)
        self.pending.sort(key=lambda r: (r.start, r.number))
        self._changed()
        return reservation

    def activate(self, reservation: Reservation) -> None:
        """A pending reservation starts: its idle units are reserved, its busy ones drain."""
        self.pending.remove(reservation)
        self.reservations.append(reservation)
        self.settle(reservation.cells)

    def release(self, reservation: Reservation) -> None:
        """A reservation ends: its units return to service unless down or reserved again."""
        self.reservations.remove(reservation)
        self.settle(reservation.cells)

    def occupants(self, reservation: Reservation) -> list[int]:
        """The running jobs (indices, in order) that an active reservation waits for: those on its
        draining units (on a count-only pool, the job a failure would hit, the last started)."""
        owners = self.state.allocator.owners()
        found = {self.occupant(c, owners) for c in reservation.cells if c in self.draining}
        return sorted(i for i in found if i >= 0)

    def windows(self) -> tuple[Window, ...]:
        """The pending reservations as maintenance windows ahead, in order of start; a window's
        ``nodes`` are its units in service now, in nodes."""
        windows = self._windows
        if windows is None:
            machine = self.state.machine
            per_unit = machine.nodes // unit_count(machine)
            windows = self._windows = tuple(
                Window(
                    r.start,
                    r.until,
                    r.cells,
                    per_unit * sum(1 for c in r.cells if c not in self.out),
                    r.label,
                )
                for r in self.pending
            )
        return windows

    def _changed(self) -> None:
        """The units out of service or the pending reservations changed: the free capacity the
        scheduling pass sees changed, and the windows are computed again."""
        state = self.state
        state.changes += 1
        state.layout += 1
        self._windows = None if self.pending else ()

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
        self._changed()
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
        ahead = tuple((r.start, r.until) for r in self.pending if cell in r.cells)
        menu = getattr(allocator, "menu", None)
        name = unit_name(state.machine, cell)
        blocks: tuple[str, ...] = ()
        if occupant >= 0:
            r = state.running[occupant]
            if menu is not None:
                p = allocator.partition_of(r.placement).index
                blocks = _partition_names(menu, menu.conflicts[p] & ~(1 << p))
            label = r.placement.label
            job_id = r.job.job_id
            return UnitInfo(cell, name, "busy", occupant, job_id, label, blocks, until, ahead)
        if occupant != FREE and menu is not None:
            blocks = _partition_names(menu, menu.by_midplane[cell])
        kind = {FREE: "free", DOWN: "down"}.get(occupant, "reserved")
        return UnitInfo(cell, name, kind, None, None, "", blocks, until, ahead)

    def statuses(self) -> tuple[ReservationStatus, ...]:
        """Every reservation that has not ended, pending and active, by number (the console's
        reservations list)."""
        state = self.state
        owners = state.allocator.owners()
        out = []
        for r in sorted([*self.pending, *self.reservations], key=lambda r: r.number):
            jobs: set[int] = set()
            if len(owners):
                jobs = {int(owners[c]) for c in r.cells if owners[c] >= 0}
            ids = tuple(sorted(state.running[i].job.job_id for i in jobs))
            active = r in self.reservations
            waits = sum(1 for c in r.cells if c in self.draining) if active else 0
            state_name = "active" if active else "pending"
            out.append(
                ReservationStatus(
                    r.number, r.label, r.cells, r.start, r.until, r.on_job, state_name, ids, waits
                )
            )
        return tuple(out)

    def summary(self) -> dict[str, tuple[int, ...]]:
        """Units out of service now: ``down`` and ``reserved`` cells, and ``draining`` cells that
        still run a job but will be reserved (or are down) when it ends."""
        return {
            "down": tuple(sorted(c for c, s in self.out.items() if s == DOWN)),
            "reserved": tuple(sorted(c for c, s in self.out.items() if s == RESERVED)),
            "draining": tuple(sorted(self.draining)),
        }


def _partition_names(menu: Menu, mask: int) -> tuple[str, ...]:
    """Names of the menu's partitions whose bits are set in ``mask``, in menu order."""
    names = []
    while mask:
        low = mask & -mask
        names.append(menu.partitions[low.bit_length() - 1].name)
        mask ^= low
    return tuple(names)
