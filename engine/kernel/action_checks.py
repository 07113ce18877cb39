"""An operator action held to the run it is about to act on, before it is logged
(docs/boundaries.md, "What is validated").

A scenario file's actions are checked against the machine and workload when it is read
(:mod:`meshsim.engine.tools.scenario_checks`), and an action whose turn comes when it can no
longer apply is listed in the result's ``rejected_actions`` (:mod:`meshsim.engine.rejections`). An
action the console is about to apply *now* can be checked against the run's state as well, and one
that could not apply is refused before it enters the action log: it takes no event number and
there is nothing to undo. :func:`refusal` applies the same rules, with the same reasons
(:data:`~meshsim.engine.rejections.REASONS`) and messages, as the simulation does when it carries an
action out:

- ``submit``: 1 to the machine's nodes, a runtime that is not negative (``job_refused``);
- ``hold``: a waiting job; ``release``: a held one; ``cancel``: a waiting, held or running one
  (``job_unknown``, ``job_not_arrived``, ``job_not_waiting``, ``job_not_held``, ``job_ended``);
- ``fail``: a unit of the machine (``unit_unknown``) that is up (``unit_down``) and that jobs are
  ever placed on (``unit_never_allocated``); ``repair``: a unit that is down (``unit_not_down``);
- ``reserve``: a block of the machine (``unit_unknown``) that starts no earlier than now
  (``reservation_start_passed``) and ends after it starts (``reservation_over``);
- ``set-policy``: names of the registries, an allocator that works on the machine and, when the run
  migrates jobs, one that can (``policy_refused``).

:func:`static_refusal` is the part that needs only the machine (the console's forms use it, so a
unit such as ``R99-M7`` is refused in the form)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from meshsim.engine.core.errors import MeshsimError
from meshsim.engine.core.simclock import clock
from meshsim.engine.rejections import ActionRejected

if TYPE_CHECKING:
    from meshsim.engine.kernel.actions import Action
    from meshsim.engine.kernel.simulation import Simulation
    from meshsim.engine.topology.machines import Machine

POLICY_REGISTRIES = ("queue", "discipline", "backfill", "allocator")
"""The policy fields a ``set-policy`` action may change."""


def allocator_choices(machine: Machine, *, migrate: bool = False) -> tuple[str, ...]:
    """The allocators that work on ``machine`` (and can migrate jobs, when ``migrate``)."""
    from meshsim.engine.allocation.allocator import ALLOCATORS, Allocator

    names = []
    for name in ALLOCATORS.names():
        cls = ALLOCATORS.get(name)
        if machine.topology not in cls.topologies:
            continue
        if migrate and cls.repack is Allocator.repack:
            continue
        if not has_section(machine, cls.section):
            continue
        names.append(name)
    return tuple(names)


def has_section(machine: Machine, section: str) -> bool:
    """Whether ``machine`` has the TOML ``section`` a policy reads ("" needs none)."""
    return not section or section in machine.extras


def policy_choices(machine: Machine, field: str, *, migrate: bool = False) -> tuple[str, ...]:
    """The names a ``set-policy`` action may give ``field`` on ``machine`` (a queue order or
    discipline that reads a machine section, as ``nqs`` reads ``[nqs]``, only where it has one)."""
    if field == "allocator":
        return allocator_choices(machine, migrate=migrate)
    from meshsim.engine.scheduling.backfill import BACKFILLS
    from meshsim.engine.scheduling.disciplines import DISCIPLINES
    from meshsim.engine.scheduling.orders import QUEUE_ORDERS

    if field == "backfill":
        return tuple(BACKFILLS.names())
    registry = {"queue": QUEUE_ORDERS, "discipline": DISCIPLINES}[field]
    return tuple(
        name for name in registry.names() if has_section(machine, registry.get(name).section)
    )


def static_refusal(machine: Machine, action: Action, *, migrate: bool = False) -> str:
    """Why ``action`` can never apply on ``machine`` ("" when it may): an unknown unit or block, a
    job bigger than the machine, a policy name that is not valid here."""
    from meshsim.engine.topology.units import block_cells, unit_cell

    try:
        if hasattr(action, "unit"):
            unit_cell(machine, action.unit)
        if hasattr(action, "block"):
            block_cells(machine, action.block)
    except MeshsimError as exc:
        return str(exc)
    if action.kind == "submit":
        size, runtime = getattr(action, "size", 0), getattr(action, "runtime", 0.0)
        if not 1 <= size <= machine.nodes:
            return f"job size must be 1..{machine.nodes}, got {size}"
        if runtime < 0:
            return f"runtime must not be negative, got {runtime}"
    if action.kind == "set-policy":
        for field in POLICY_REGISTRIES:
            name = getattr(action, field, None)
            if name is None:
                continue
            valid = policy_choices(machine, field, migrate=migrate)
            if name not in valid:
                return (
                    f"{field} '{name}' cannot be used on {machine.topology} machine "
                    f"'{machine.name}'{' with --migrate' if migrate else ''} "
                    f"(valid here: {', '.join(valid)})"
                )
    return ""


_STATIC_REASON = {
    "submit": "job_refused",
    "fail": "unit_unknown",
    "repair": "unit_unknown",
    "reserve": "unit_unknown",
    "set-policy": "policy_refused",
}


def refusal(sim: Simulation, action: Action) -> ActionRejected | None:
    """Why ``action``, applied to ``sim`` now, would be rejected (None when it would apply)."""
    static = static_refusal(sim.machine, action, migrate=sim.policy.migrate)
    if static:
        return ActionRejected(_STATIC_REASON[action.kind], static)
    try:
        _check_state(sim, action)
    except ActionRejected as exc:
        return exc
    return None


def check_now(sim: Simulation, action: Action) -> None:
    """Raise the :class:`ActionRejected` of :func:`refusal`, if any."""
    problem = refusal(sim, action)
    if problem is not None:
        raise problem


_JOB_STATES = {
    "hold": ("waiting",),
    "release": ("held",),
    "cancel": ("waiting", "held", "running"),
}


def _check_state(sim: Simulation, action: Action) -> None:
    from meshsim.engine.topology.units import unit_cell, unit_name

    kind = action.kind
    if kind in _JOB_STATES:
        job_id = getattr(action, "job_id", -1)
        state = sim.job_status(job_id)  # job_unknown when there is no such job
        if state in _JOB_STATES[kind]:
            return
        if kind == "release":
            raise ActionRejected("job_not_held", f"job {job_id} is not held")
        if state == "not_arrived":
            raise ActionRejected("job_not_arrived", f"job {job_id} has not been submitted yet")
        if state == "ended":
            raise ActionRejected("job_ended", f"job {job_id} has ended")
        raise ActionRejected("job_not_waiting", f"job {job_id} is {state}, not waiting")
    if kind in ("fail", "repair"):
        cell = unit_cell(sim.machine, getattr(action, "unit", ""))
        name = unit_name(sim.machine, cell)
        outages = sim.outages()
        down = cell in outages["down"]
        if kind == "repair" and not down:
            raise ActionRejected("unit_not_down", f"unit {name} is not down")
        if kind == "fail" and down:
            raise ActionRejected("unit_down", f"unit {name} is already down")
        if kind == "fail" and _never_allocated(sim, cell, outages):
            raise ActionRejected("unit_never_allocated", f"unit {name} is never allocated")
    if kind == "reserve":
        until = getattr(action, "until", math.nan)
        now = max(action.time, sim.now)
        start = getattr(action, "start", None)
        opens = now if start is None else start
        if opens < now:
            raise ActionRejected(
                "reservation_start_passed",
                f"a reservation cannot start in the past ({clock(opens)}, now {clock(now)})",
            )
        if not (math.isfinite(until) and until > opens):
            raise ActionRejected(
                "reservation_over", f"a reservation must end after it starts ({clock(opens)})"
            )


def _never_allocated(sim: Simulation, cell: int, outages: dict[str, tuple[int, ...]]) -> bool:
    """A unit no job is ever placed on (a service node): neither free, busy, down nor reserved by
    an operator."""
    state = sim.unit_info(cell).state
    return state == "reserved" and cell not in outages["reserved"]
