"""What an operator does to a run: submit, hold, release and cancel jobs, change the policy, fail
and repair units and reserve blocks of them (the :mod:`meshsim.engine.kernel.actions` carry these
out through it: :attr:`meshsim.engine.kernel.simulation.Simulation.operator`)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

from meshsim.engine.allocation.allocator import ALLOCATORS, Allocator
from meshsim.engine.core.errors import MeshsimError
from meshsim.engine.core.jobs import Job
from meshsim.engine.core.seeding import Stream, generator
from meshsim.engine.core.simclock import clock
from meshsim.engine.kernel.events import ACTION, priority
from meshsim.engine.rejections import ActionRejected
from meshsim.engine.topology.units import block_cells, unit_name

if TYPE_CHECKING:
    from meshsim.engine.core.policy import Policy
    from meshsim.engine.kernel.loop import EventLoop
    from meshsim.engine.kernel.records import Reservation
    from meshsim.engine.topology.machines import Machine
    from meshsim.engine.workloads.workload import Workload

_RESERVATION_START = priority(ACTION, (1 << 37))
_RESERVATION_END = priority(ACTION, (1 << 38))


def make_allocator(
    machine: Machine, policy: Policy, seed: int, chosen: type[Allocator] | None
) -> Allocator:
    """The allocator ``policy`` names (or ``chosen``), or the machine's default; one that does not
    work on the machine's topology is an error listing those that do."""
    name = policy.allocator or machine.default_allocator
    cls = chosen or ALLOCATORS.get(name)
    if machine.topology not in cls.topologies:
        topology = machine.topology
        valid = [n for n in ALLOCATORS.names() if topology in ALLOCATORS.get(n).topologies]
        raise MeshsimError(
            f"allocator '{name}' does not work on {machine.topology} machine "
            f"'{machine.name}' (valid here: {', '.join(valid)})"
        )
    return cls(machine, generator(seed, Stream.ALLOCATOR), rotate=policy.rotate)


class Operator:
    """The operator's hand on one run: its jobs (``held`` ones aside), its policy and its units."""

    def __init__(
        self,
        loop: EventLoop,
        workload: Workload,
        policy: Policy,
        seed: int,
        allocator_class: type[Allocator] | None,
    ) -> None:
        self.loop = loop
        self.machine = loop.state.machine
        self.workload = workload
        self.policy = policy
        self.seed = seed
        self.allocator_class = allocator_class
        self.held: dict[int, Job] = {}
        self.requeues = 0
        self._ids: dict[int, int] | None = None

    # ------------------------------------------------------------------------------ jobs

    def job_index(self, job_id: int) -> int:
        """The index of the job with number ``job_id``."""
        if self._ids is None:
            ids = self.workload.job_id.tolist()
            self._ids = {job_id: i for i, job_id in enumerate(ids)}
            for job in self.loop.ledger.extra:
                self._ids[job.job_id] = job.index
        try:
            return self._ids[job_id]
        except KeyError:
            raise ActionRejected("job_unknown", f"no job {job_id}") from None

    def waiting_job(self, job_id: int) -> Job:
        """The waiting job numbered ``job_id``; an error when it is not waiting."""
        index = self.job_index(job_id)
        for job in self.loop.scheduler.queue.ordered(self.loop.now):
            if job.index == index:
                return job
        if index in self.loop.state.running or index in self.held:
            state = "running" if index in self.loop.state.running else "held"
            raise ActionRejected("job_not_waiting", f"job {job_id} is {state}, not waiting")
        ledger = self.loop.ledger
        if index in ledger.cancelled or not math.isnan(ledger.finish[index]):
            raise ActionRejected("job_ended", f"job {job_id} has ended")
        raise ActionRejected("job_not_arrived", f"job {job_id} has not been submitted yet")

    def submit_job(self, size: int, runtime: float, estimate: float, user: int, queue: int) -> Job:
        """A new job submitted now."""
        machine, ledger = self.machine, self.loop.ledger
        if size < 1 or size > machine.nodes:
            raise MeshsimError(f"job size must be 1..{machine.nodes}, got {size}")
        if runtime < 0:
            raise MeshsimError(f"runtime must not be negative, got {runtime}")
        index = len(ledger.start)
        last_id = max(int(self.workload.job_id.max()) if len(self.workload) else 0, index)
        job_id = max([last_id, *(j.job_id for j in ledger.extra)]) + 1
        est = estimate if estimate > 0 else runtime
        procs = size * machine.procs_per_unit
        now = self.loop.now
        job = Job(index, job_id, now, runtime, est, size, procs, user, -1, queue, -1, None)
        ledger.add(job)
        if self._ids is not None:
            self._ids[job_id] = index
        self.loop.scheduler.add(job)
        self.loop.scheduler.stats.arrivals += 1
        return job

    def hold_job(self, job_id: int) -> None:
        """Take a waiting job out of the queue until released."""
        job = self.waiting_job(job_id)
        self.loop.scheduler.withdraw(job)
        self.held[job.index] = job

    def release_job(self, job_id: int) -> None:
        """Put a held job back in the queue (at its original priority)."""
        job = self.held.pop(self.job_index(job_id), None)
        if job is None:
            raise ActionRejected("job_not_held", f"job {job_id} is not held")
        self.loop.scheduler.add(job)

    def cancel_job(self, job_id: int) -> None:
        """Cancel a waiting, held or running job."""
        index = self.job_index(job_id)
        if index in self.loop.state.running:
            self.loop.state.finish(index, True)
        elif index in self.held:
            del self.held[index]
        else:
            self.loop.scheduler.withdraw(self.waiting_job(job_id))
        self.loop.ledger.cancelled.add(index)

    def change_policy(self, **changes: str) -> None:
        """Switch queue order, discipline, backfilling or allocator from now on."""
        policy = self.policy.with_changes(**changes)
        scheduler, state = self.loop.scheduler, self.loop.state
        policies = scheduler.policies_for(policy)
        if policy.allocator != self.policy.allocator:
            allocator = make_allocator(self.machine, policy, self.seed, self.allocator_class)
            for r in state.running.values():
                allocator.allocate(r.job, r.placement)
            for cell, kind in sorted(state.outages.out.items()):
                allocator.withdraw(cell, kind)
            state.adopt(allocator)
            self.loop.configure()
        state.layout += 1
        self.policy = policy
        scheduler.adopt(policy, policies)

    # ------------------------------------------------------------------------------ units

    def fail_unit(self, unit: str | int, on_job: str = "requeue") -> str:
        """Unit ``unit`` fails now: it becomes DOWN and is never allocated until repaired. A job
        running on it is requeued (killed, back in the waiting queue with its original submit time,
        restarted from scratch later; counted in ``requeued_jobs``) or, with ``on_job="kill"``,
        killed (it ends as cancelled). On a count-only (flat) pool nodes are interchangeable: an
        idle node is taken if there is one, else the job that started last is hit. Failing a unit
        that is down already, or one that is never allocated, is an error."""
        outages = self.loop.state.outages
        cell, occupant = outages.fail(unit, on_job)
        text = f"unit {unit_name(self.machine, cell)} failed"
        if occupant >= 0:
            job = self.loop.state.finish(occupant, True).job
            if on_job == "requeue":
                self.loop.ledger.forget(occupant)
                self.loop.scheduler.queue.add(job)
                self.requeues += 1
            else:
                self.loop.ledger.cancelled.add(occupant)
            verb = "requeued" if on_job == "requeue" else "killed"
            text += f"; job {job.job_id} {verb}"
        outages.settle((cell,))
        return text

    def repair_unit(self, unit: str | int) -> str:
        """A failed unit comes back (:meth:`meshsim.engine.kernel.outages.Outages.repair`)."""
        return self.loop.state.outages.repair(unit)

    def reserve_units(
        self,
        block: str | Sequence[str | int],
        until: float,
        start: float | None = None,
        on_job: str = "wait",
    ) -> str:
        """Reserve a block of units over [start, until) (a maintenance drain), made now; ``start``
        defaults to now. A start in the past or an end not after the start is an error.

        Until its start the reservation is *pending*: its units stay in service, but no job whose
        estimate reaches past the start (now + estimate > start) starts on them, on any start path,
        and backfilling plans with them unavailable over [start, until)
        (:mod:`meshsim.engine.allocation.windows`). At its start (an internal calendar event,
        after the operator actions of that instant) every idle unit of the block becomes RESERVED;
        a unit still running a job (one that overran its estimate, or started before the
        reservation was made) drains: it becomes RESERVED when its job ends (``on_job="wait"``), or
        the job is killed then and there (``on_job="kill"``; on a count-only pool the job that
        started last, as a failure picks). At ``until`` (a calendar event after the starts of that
        instant) every unit the reservation holds returns to service, unless it is down or another
        active reservation covers it. Reserved units are never allocated; units that are never
        allocated (service nodes) are left as they are. Limitation: once active, backfilling plans
        with its units as unavailable for good (it does not count on their return at ``until``)."""
        now = self.loop.now
        opens = now if start is None else start
        cells = block_cells(self.machine, block)
        if opens < now:
            raise ActionRejected(
                "reservation_start_passed",
                f"a reservation cannot start in the past ({clock(opens)}, now {clock(now)})",
            )
        if not (math.isfinite(until) and until > opens):
            raise ActionRejected(
                "reservation_over", f"a reservation must end after it starts ({clock(opens)})"
            )
        label = block if isinstance(block, str) else " ".join(map(str, block))
        outages = self.loop.state.outages
        reservation = outages.reserve(cells, opens, until, label, on_job)
        calendar = self.loop.calendar
        calendar.schedule(until, _RESERVATION_END | reservation.number, self._end, reservation)
        made = f"reserved {label} ({len(cells)} unit{'' if len(cells) == 1 else 's'})"
        if opens > now:
            key = _RESERVATION_START | reservation.number
            calendar.schedule(opens, key, self._start_reservation, reservation)
            then = "kill" if on_job == "kill" else "wait for"
            window = f"from {clock(opens)} until {clock(until)}"
            return f"{made} {window}: pending ({then} its jobs then)"
        return f"{made} until {clock(until)}" + self._open(reservation)

    def _open(self, reservation: Reservation) -> str:
        """The reservation starts now; what it did to the jobs on its units, as text ("" when
        there were none)."""
        outages = self.loop.state.outages
        outages.activate(reservation)
        hit = outages.occupants(reservation)
        if not hit:
            return ""
        ids = [self.loop.state.running[i].job.job_id for i in hit]
        if reservation.on_job == "wait":
            return f"; waits for {_jobs_text(ids)} on its units"
        killed = []
        while hit:
            for index in hit:
                killed.append(self.loop.state.finish(index, True).job.job_id)
                self.loop.ledger.cancelled.add(index)
            hit = outages.occupants(reservation)
        return f"; killed {_jobs_text(killed)} on its units"

    def _start_reservation(self, reservation: Reservation) -> None:
        text = f"reservation of {reservation.label} started" + self._open(reservation)
        self.loop.log.emit("action", detail=text)
        self.loop.request_pass()

    def _end(self, reservation: Reservation) -> None:
        self.loop.state.outages.release(reservation)
        self.loop.log.emit("action", detail=f"reservation of {reservation.label} ended")
        self.loop.request_pass()


def _jobs_text(ids: Sequence[int]) -> str:
    """``job 12`` or ``jobs 12, 15 and 20`` (the first ten, then how many more)."""
    if len(ids) == 1:
        return f"job {ids[0]}"
    shown = ", ".join(map(str, ids[:10]))
    more = f" and {len(ids) - 10} more" if len(ids) > 10 else ""
    return f"jobs {shown}{more}"
