"""Workload files: a ``[workload]`` table naming a registered generator ``kind`` and its options.

Generators are registered with ``@GENERATORS.register("kind")``: a function ``(table, machine, rng)
-> Workload`` that reads its own keys from the table (and rejects unknown ones) and draws only from
the generator it is given. The ``seed`` key of a workload file fixes the workload independently of
the run's seed; without it, the run's seed drives the workload stream."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

import numpy as np

from meshsim.engine.bundled import resolve_reference
from meshsim.engine.errors import MeshsimError
from meshsim.engine.fetch import cached
from meshsim.engine.machines import Machine
from meshsim.engine.registry import Registry
from meshsim.engine.seeding import Stream, generator
from meshsim.engine.swf import read_swf
from meshsim.engine.toml_table import Table, load_toml
from meshsim.engine.tracepath import TRACE_PREFIX, require_trace
from meshsim.engine.workload import Workload, from_swf

GENERATORS: Registry[Callable[[Table, Machine, np.random.Generator], Workload]] = Registry(
    "workload kind"
)

ADAPTERS: Registry[Callable[..., Workload]] = Registry("workload adapter")
"""Per machine section (e.g. ``nqs``): a function
``(workload, section, requeue=..., queue_map=...)`` that fits a loaded workload to the machine
(queue mapping and limits)."""


def load_workload(
    spec: str | Path | None,
    machine: Machine,
    *,
    seed: int = 0,
    lenient: bool = False,
    procs_per_unit: int | None = None,
    requeue: bool = False,
    queue_map: Mapping[str, str] | None = None,
) -> Workload:
    """The workload named by ``spec``: an SWF trace (``.swf``, ``.swf.gz``), the name of a trace
    fetched with ``meshsim trace fetch``, ``trace:FILE`` for a file on the trace search path
    (:mod:`meshsim.engine.tracepath`), a workload TOML file (a path, or ``PACKAGE:NAME`` for a
    bundled one, :mod:`meshsim.engine.bundled`), or None for the machine's default workload.
    ``requeue`` and ``queue_map`` (trace queue name to machine queue name) go to the adapters of the
    machine's sections; a ``queue_map`` on a machine without one is an error."""
    if spec is None:
        path = machine.default_workload_path()
        if path is None:
            raise MeshsimError(f"machine '{machine.name}' has no default workload; give --workload")
    elif str(spec).startswith(TRACE_PREFIX):
        path = require_trace(str(spec)[len(TRACE_PREFIX) :])
    else:
        path = cached(str(spec)) or resolve_reference(str(spec))
    name = path.name
    if name.endswith(".toml"):
        workload = generate(load_toml(path), machine, seed)
    elif name.endswith((".swf", ".swf.gz", ".gz")) or path.exists():
        trace = read_swf(path, lenient=lenient)
        workload = from_swf(trace, machine, procs_per_unit=procs_per_unit)
    else:
        raise MeshsimError(f"{path}: no such file")
    adapted = False
    for section, config in machine.extras.items():
        if section in ADAPTERS:
            adapter = ADAPTERS.get(section)
            workload = adapter(workload, config, requeue=requeue, queue_map=queue_map)
            adapted = True
    if queue_map and not adapted:
        raise MeshsimError(
            f"--queue-map needs a machine with named queues (an [nqs] section); machine "
            f"'{machine.name}' has none"
        )
    return workload


def generate(root: Table, machine: Machine, seed: int) -> Workload:
    """Run the generator a workload file names."""
    table = root.table("workload", required=True)
    root.reject_unknown()
    kind = table.str("kind", choices=GENERATORS.names())
    own_seed = table.int("seed", None, minimum=0)
    rng = generator(seed if own_seed is None else own_seed, Stream.WORKLOAD)
    workload = GENERATORS.get(kind)(table, machine, rng)
    table.reject_unknown()
    return workload
