"""One headless run, as a function: what ``meshsim run`` does, minus printing.

``meshsim run`` and every case of ``meshsim sweep`` go through :func:`load_inputs` and
:func:`case_document`, so a sweep case is an ordinary run: same loading, same policy, same result
JSON, byte for byte.

:class:`RunOptions` holds every option of ``meshsim run`` that defines a simulation (outputs and
verbosity are not among them). Its field names are the command's parameter names and its defaults
are the command's defaults; a test holds the two together, so an option added to the command must be
added here too. ``queue_map`` holds the repeatable ``--queue-map NAME=QUEUE`` as one text, its
pairs joined by commas (:func:`meshsim.engine.families.nqs.queue_map.parse_queue_map`)."""

from __future__ import annotations

import types
import typing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from meshsim.engine.core.errors import MeshsimError
from meshsim.engine.core.policy import Policy
from meshsim.engine.families.contention.observer import ContentionObserver
from meshsim.engine.families.contention.traffic import with_traffic
from meshsim.engine.families.nqs.queue_map import parse_queue_map
from meshsim.engine.kernel.actions import Action, LoggedAction
from meshsim.engine.kernel.events import EventRecord
from meshsim.engine.kernel.simulation import Simulation
from meshsim.engine.logs.options import LogOptions
from meshsim.engine.tools.outputs import RunInputs, jobs_csv_text, result_document
from meshsim.engine.tools.scenario_checks import check_actions
from meshsim.engine.topology.machines import Machine, check_allocator, load_machine, machine_path
from meshsim.engine.validation.options import check_run_options
from meshsim.engine.workloads.generators import load_workload, workload_path
from meshsim.engine.workloads.shapes import with_shapes
from meshsim.engine.workloads.tracecut import RecordCut
from meshsim.engine.workloads.workload import Workload

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
    log_format: str | None = None
    tz: str = "UTC"
    partition_limit: str | None = None
    first: int | None = None
    skip: int = 0
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

    def log_options(self) -> LogOptions:
        """How the workload is read when it is a trace or log (its job-count cut included)."""
        cut = RecordCut(self.first, self.skip)
        return LogOptions(self.log_format, self.tz, self.partition_limit, self.lenient, cut)

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
    (the traffic options need a machine with I/O nodes). Every option is first held to its rule
    (:func:`~meshsim.engine.validation.options.check_run_options`), and the allocator to the
    machine's topology, so each path that prepares a run refuses the same values."""
    check_run_options(options)
    machine = load_machine(options.machine)
    if options.alloc is not None:
        check_allocator(machine, options.alloc, "--alloc")
    jobs = load_workload(
        options.workload,
        machine,
        seed=options.seed,
        lenient=options.lenient,
        procs_per_unit=options.procs_per_unit,
        requeue=options.requeue,
        log=options.log_options(),
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


def check_inputs(options: RunOptions) -> None:
    """What can be checked of a run's inputs without loading its workload (for front ends that
    load it elsewhere, as the console's engine process does): the options (``--queue-map``'s
    pairs included), the machine, the allocator on it, and that the workload file exists."""
    check_run_options(options)
    parse_queue_map(options.queue_map)
    machine = load_machine(options.machine)
    if options.alloc is not None:
        check_allocator(machine, options.alloc, "--alloc")
    path = workload_path(options.workload, machine)
    if not path.is_file():
        raise MeshsimError(f"{path}: no such file")
    if path.name.endswith(".toml"):
        options.log_options().cut.refuse_generated(str(path))


def input_files(options: RunOptions) -> list[Path]:
    """The files a run of ``options`` reads, as far as they exist (the machine file and the
    workload, or the machine's default workload): outputs must never be one of them."""
    files = [machine_path(options.machine)]
    try:
        machine = load_machine(options.machine)
        files.append(workload_path(options.workload, machine))
    except MeshsimError:
        pass  # the run itself reports the missing or broken input
    return [f for f in files if f is not None]


def prepare(
    options: RunOptions,
    *,
    log: Callable[[EventRecord], None] | None = None,
    actions: Sequence[Action | LoggedAction] = (),
    recent: int = 0,
    history: bool = False,
    source: str = "",
) -> Simulation:
    """The simulation of a run, built but not yet run, with ``actions`` applied (an operator action
    log, first checked against the machine and workload; ``source`` names the scenario file they
    come from in messages); ``recent`` and ``history`` are passed to :class:`Simulation` for the
    console."""
    machine, jobs = load_inputs(options)
    check_actions(actions, machine, jobs, source)
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
        first=options.first,
        skip=options.skip,
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
