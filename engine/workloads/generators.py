"""Workload files: a ``[workload]`` table naming a registered generator ``kind`` and its options.

Generators are registered with ``@GENERATORS.register("kind")``: a function ``(table, machine, rng)
-> Workload`` that reads its own keys from the table through the section it adds to
:data:`~meshsim.engine.validation.formats.WORKLOAD_FILE` (:func:`generator_section`; ``kind`` and
``seed`` belong to every one), checks the number of jobs it will draw against
:data:`~meshsim.engine.validation.limits.JOBS` before drawing, and draws only from the generator
it is given. The ``seed`` key of a workload file fixes the workload independently of the run's
seed; without it, the run's seed drives the workload stream."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path

import numpy as np

from meshsim.engine.core.bundled import resolve_reference
from meshsim.engine.core.errors import MeshsimError
from meshsim.engine.core.registry import Registry
from meshsim.engine.core.seeding import Stream, generator
from meshsim.engine.core.toml_table import Table, load_toml
from meshsim.engine.logs.formats import SWF
from meshsim.engine.logs.options import LogOptions
from meshsim.engine.topology.machines import Machine
from meshsim.engine.validation.formats import WORKLOAD_FILE
from meshsim.engine.validation.limits import JOBS
from meshsim.engine.validation.rules import Rule, Section
from meshsim.engine.workloads.fetch import cached
from meshsim.engine.workloads.swf import read_swf
from meshsim.engine.workloads.tracepath import TRACE_PREFIX, require_trace
from meshsim.engine.workloads.workload import Workload, from_swf

GENERATORS: Registry[Callable[[Table, Machine, np.random.Generator], Workload]] = Registry(
    "workload kind"
)

ROOT = WORKLOAD_FILE.add(Section("top level", (Rule("workload", "table"),)))
COMMON = (
    Rule("kind", "str", names="workload kind"),
    Rule("seed", "int", None, minimum=0, doc="fixes the workload whatever the run's seed"),
)
"""The keys of every ``[workload]`` table."""
WORKLOAD = WORKLOAD_FILE.add(
    Section("[workload]", COMMON, doc="plus the keys of its kind (sections below)", open=True)
)


def generator_section(kind: str, rules: tuple[Rule, ...], doc: str) -> Section:
    """The section of generator ``kind``: :data:`COMMON` and its own ``rules``, added to the
    workload file format."""
    return WORKLOAD_FILE.add(Section(f"[workload] kind = {kind}", (*COMMON, *rules), doc=doc))


def check_jobs(t: Table, count: int) -> None:
    """Refuse a workload of ``count`` jobs beyond the job limit, before any is drawn."""
    JOBS.check(count, f"{t.source}: the workload")


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
    log: LogOptions | None = None,
    queue_map: Mapping[str, str] | None = None,
) -> Workload:
    """The workload named by ``spec``: an SWF trace (``.swf``, ``.swf.gz``), an operator's log
    (Slurm, PBS, Cobalt: :mod:`meshsim.engine.logs`, read as ``log`` says), the name of a trace
    fetched with ``meshsim trace fetch``, ``trace:FILE`` for a file on the trace search path
    (:mod:`meshsim.engine.workloads.tracepath`), a workload TOML file (a path, or ``PACKAGE:NAME``
    for a bundled one, :mod:`meshsim.engine.core.bundled`), or None for the machine's default
    workload. A job-count cut (``log.cut``, :mod:`meshsim.engine.workloads.tracecut`) applies to
    traces and logs; a generated workload refuses one.
    ``requeue`` and ``queue_map`` (trace queue name to machine queue name) go to the adapters of the
    machine's sections; a ``queue_map`` on a machine without one is an error."""
    path = workload_path(spec, machine)
    name = path.name
    cut = (log or LogOptions()).cut
    if name.endswith(".toml"):
        cut.refuse_generated(str(path))
        workload = generate(load_toml(path, ROOT), machine, seed)
    elif name.endswith((".swf", ".swf.gz")) and (log is None or log.fmt in (None, SWF)):
        trace = read_swf(path, lenient=lenient, cut=cut)
        workload = from_swf(trace, machine, procs_per_unit=procs_per_unit)
    elif name.endswith(".gz") or path.exists():
        from meshsim.engine.logs.trace import read_trace, replay_workload

        trace = read_trace(path, replace(log or LogOptions(), lenient=lenient))
        workload = replay_workload(trace, machine, procs_per_unit=procs_per_unit)
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


def workload_path(spec: str | Path | None, machine: Machine) -> Path:
    """The file a workload ``spec`` names (see :func:`load_workload`)."""
    if spec is None:
        path = machine.default_workload_path()
        if path is None:
            raise MeshsimError(f"machine '{machine.name}' has no default workload; give --workload")
        return path
    if str(spec).startswith(TRACE_PREFIX):
        return require_trace(str(spec)[len(TRACE_PREFIX) :])
    return cached(str(spec)) or resolve_reference(str(spec))


def check_workload_file(path: Path) -> None:
    """What can be checked of a workload file without drawing it: for a workload ``.toml``, every
    key of its ``[workload]`` table against its generator's section (the checks a generator makes
    between keys, or against the machine, happen when it draws)."""
    if not path.name.endswith(".toml"):
        return
    root = load_toml(path, ROOT)
    root.reject_unknown()
    table = root.table("workload", WORKLOAD)
    kind = table.get("kind")
    table.get("seed")
    generator_keys = table.follow(WORKLOAD_FILE.section(f"[workload] kind = {kind}"))
    generator_keys.reject_unknown()
    for key in generator_keys.section.key_list():
        generator_keys.get(key)


def generate(root: Table, machine: Machine, seed: int) -> Workload:
    """Run the generator a workload file names."""
    root.reject_unknown()
    table = root.table("workload", WORKLOAD)
    kind = table.get("kind")
    own_seed = table.get("seed")
    rng = generator(seed if own_seed is None else own_seed, Stream.WORKLOAD)
    return GENERATORS.get(kind)(table, machine, rng)
