"""One headless run, as a function: what ``meshsim run`` does, minus printing.

``meshsim run`` and every case of ``meshsim sweep`` go through :func:`load_inputs` and
:func:`case_document`, so a sweep case is an ordinary run: same loading, same policy, same result
JSON, byte for byte.

:class:`RunOptions` holds every option of ``meshsim run`` that defines a simulation (outputs and
verbosity are not among them). Its field names are the command's parameter names and its defaults
are the command's defaults; a test holds the two together, so an option added to the command must be
added here too. ``queue_map`` holds the repeatable ``--queue-map NAME=QUEUE`` as one text, its
pairs joined by commas (:func:`meshsim.engine.nqs.queue_map.parse_queue_map`)."""

from __future__ import annotations

import csv
import io
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from meshsim.engine.actions import Action, LoggedAction
from meshsim.engine.contention.observer import ContentionObserver
from meshsim.engine.contention.traffic import with_traffic
from meshsim.engine.errors import MeshsimError
from meshsim.engine.events import EventRecord
from meshsim.engine.generators import load_workload
from meshsim.engine.machines import Machine, load_machine
from meshsim.engine.nqs.queue_map import parse_queue_map
from meshsim.engine.outputs import RunInputs, jobs_csv_columns, result_document
from meshsim.engine.policy import Policy
from meshsim.engine.shapes import with_shapes
from meshsim.engine.simulation import Simulation
from meshsim.engine.workload import Workload

DEFAULT_MACHINE = "intrepid"
"""The machine a run uses when none is given."""


@dataclass(frozen=True)
class RunOptions:
    """The simulation-defining options of ``meshsim run``, by parameter name."""

    machine: str = DEFAULT_MACHINE
    workload: str | None = None
    queue: str | None = None
    discipline: str | None = None
    backfill: str | None = None
    alloc: str | None = None
    window: int = 240
    bound: int = 8
    rotate: bool = False
    migrate: bool = False
    shape: str | None = None
    runtime_model: str | None = None
    pattern: str | None = None
    io_traffic: str | None = None
    io_share: float | None = None
    procs_per_unit: int | None = None
    load_factor: float = 1.0
    runtime_scale: float = 1.0
    seed: int = 0
    lenient: bool = False
    requeue: bool = False
    queue_map: str | None = None

    @classmethod
    def from_mapping(cls, options: Mapping[str, Any]) -> RunOptions:
        """Options from a mapping of parameter names (as :func:`meshsim.run` takes them); an
        unknown name, or a value of the wrong type for its option, is a :class:`MeshsimError`
        naming the option."""
        hints = typing.get_type_hints(cls)
        unknown = sorted(set(options) - set(hints))
        if unknown:
            valid = ", ".join(sorted(hints))
            raise MeshsimError(
                f"run option '{unknown[0]}' is not known to this meshsim (valid: {valid})"
            )
        for name, value in options.items():
            if not fits_option(value, hints[name]):
                raise MeshsimError(
                    f"run option '{name}' must be {_kind(hints[name])}, got {value!r}"
                )
        return cls(**options)

    def policy(self, machine: Machine) -> Policy:
        """The policy these options name; order, discipline and backfilling left out take the
        machine's defaults."""
        return Policy.for_machine(
            machine,
            queue=self.queue,
            discipline=self.discipline,
            backfill=self.backfill,
            allocator=self.alloc,
            window=self.window,
            bound=self.bound,
            rotate=self.rotate,
            migrate=self.migrate,
            runtime_model=self.runtime_model,
        )


def fits_option(value: Any, hint: Any) -> bool:
    """Whether ``value`` fits a :class:`RunOptions` field of type ``hint`` (an int is a float; a
    bool is not an int)."""
    allowed = typing.get_args(hint) if isinstance(hint, types.UnionType) else (hint,)
    for t in allowed:
        if t is type(None) and value is None:
            return True
        if t is bool and isinstance(value, bool):
            return True
        if t is int and isinstance(value, int) and not isinstance(value, bool):
            return True
        if t is float and isinstance(value, int | float) and not isinstance(value, bool):
            return True
        if t is str and isinstance(value, str):
            return True
    return False


def _kind(hint: Any) -> str:
    """How a :class:`RunOptions` field type reads in an error message."""
    allowed = typing.get_args(hint) if isinstance(hint, types.UnionType) else (hint,)
    words = {bool: "true or false", int: "an integer", float: "a number", str: "a string"}
    named = [words[t] for t in allowed if t in words]
    if type(None) in allowed:
        named.append("None")
    return " or ".join(named)


def load_inputs(options: RunOptions) -> tuple[Machine, Workload]:
    """The machine and the workload of a run, with the load, runtime and traffic transforms applied
    (the traffic options need a machine with I/O nodes)."""
    if options.procs_per_unit is not None and options.procs_per_unit < 1:
        raise MeshsimError(f"procs per unit must be at least 1, got {options.procs_per_unit}")
    machine = load_machine(options.machine)
    jobs = load_workload(
        options.workload,
        machine,
        seed=options.seed,
        lenient=options.lenient,
        procs_per_unit=options.procs_per_unit,
        requeue=options.requeue,
        queue_map=parse_queue_map(options.queue_map),
    ).scaled(load_factor=options.load_factor, runtime_scale=options.runtime_scale)
    if options.shape is not None:
        dims = getattr(machine.spec, "dims", None)
        if dims is None:
            raise MeshsimError(
                f"--shape needs a mesh or torus; machine '{machine.name}' is not one"
            )
        jobs = with_shapes(jobs, options.shape, tuple(dims))
    traffic = {"pattern": options.pattern, "io": options.io_traffic, "io_share": options.io_share}
    if any(v is not None for v in traffic.values()):
        if not ContentionObserver.applies(machine):
            raise MeshsimError(
                f"--pattern, --io-traffic and --io-share need a machine with I/O nodes "
                f"(an [io] section); machine '{machine.name}' has none"
            )
        jobs = with_traffic(jobs, **traffic)
    return machine, jobs


def prepare(
    options: RunOptions,
    *,
    log: Callable[[EventRecord], None] | None = None,
    actions: Sequence[Action | LoggedAction] = (),
    recent: int = 0,
    history: bool = False,
) -> Simulation:
    """The simulation of a run, built but not yet run, with ``actions`` applied (an operator action
    log); ``recent`` and ``history`` are passed to :class:`Simulation` for the console."""
    machine, jobs = load_inputs(options)
    return Simulation(
        machine,
        jobs,
        options.policy(machine),
        options.seed,
        actions=actions,
        log=log,
        recent=recent,
        history=history,
    )


def case_document(
    sim: Simulation, options: RunOptions, *, scenario: str | None = None
) -> dict[str, Any]:
    """The result JSON (as a dict) of a finished simulation built by :func:`prepare`; ``scenario``
    is echoed as ``inputs.scenario`` (the scenario's name for scenario runs)."""
    inputs = RunInputs(
        machine=options.machine,
        workload=options.workload or str(sim.machine.default_workload),
        seed=options.seed,
        load_factor=options.load_factor,
        runtime_scale=options.runtime_scale,
        procs_per_unit=options.procs_per_unit,
        scenario=scenario,
    )
    return result_document(sim, inputs)


class CaseOutput(NamedTuple):
    """What :func:`run_case` returns: the result JSON as a dict, and the per-job CSV text when it
    was asked for (the same bytes ``meshsim run --jobs-out`` writes)."""

    document: dict[str, Any]
    jobs_csv: str | None


def run_case(options: RunOptions, *, jobs: bool = False) -> CaseOutput:
    """Run to the end; return the result JSON and, with ``jobs``, the per-job CSV (with the
    contention columns on a machine with I/O nodes, see :class:`Simulation`)."""
    sim = prepare(options)
    sim.run()
    return CaseOutput(case_document(sim, options), jobs_csv_text(sim) if jobs else None)


def jobs_csv_text(sim: Simulation) -> str:
    """The per-job CSV of a finished run as text
    (:func:`meshsim.engine.outputs.jobs_csv_columns`)."""
    header, columns = jobs_csv_columns(sim)
    buffer = io.StringIO(newline="")
    writer = csv.writer(buffer)
    writer.writerow(header)
    writer.writerows(zip(*columns, strict=True))
    return buffer.getvalue()
