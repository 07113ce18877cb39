"""Which machine queue a trace's NQS queue goes to: matched by name, never by number (seed 004 §4).

A trace names its queues in its SWF header (``Queue: N name``); a job's queue number (field 15) is
only the key into those lines, and a machine's queue numbers are its own. Two numberings rarely
agree: queue 10 of the SDSC Paragon's 1996 log is ``q256s``, a queue the 1995 machine of Wan et al.
(``machines/paragon-sdsc.toml``) does not have, while that machine's queue 10 is ``q256m``. So each
queue of the trace that holds jobs goes to:

1. the machine queue that ``--queue-map NAME=QUEUE`` names (rule ``--queue-map``); a NAME the
   trace's jobs do not use, or a QUEUE the machine does not have, is an error;
2. else the machine queue of the same name;
3. else the queue the paper's naming rule gives (rule ``name rule``). Wan et al. §4: a queue name
   is ``q``, an optional ``f`` (32 MB "fat" nodes; without it 16 MB nodes), the largest number of
   nodes a job may request, and ``s``, ``m`` or ``l`` for a 1-, 4- or 12-hour time limit. A trace
   queue so named goes to the machine queue whose name follows the rule with the same ``f`` and
   the same time letter and whose node limit is the smallest that still holds the trace queue's
   (so every job it admitted is admitted, on the same kind of node, for the same time, at the same
   priority class). Queues outside the rule (``q4t``, ``q1ll``, ``standby``, ``holding``, ...)
   have no default;
4. else it is an error naming the queue, the machine's queue names and the option.

A queue number the header does not name is known by the number as written (``7``): only
``--queue-map 7=QUEUE`` places it. Every placement under another name is reported with the
number of jobs it moved (:class:`meshsim.engine.workloads.workload.QueueMapping`)."""

from __future__ import annotations

import re
from collections.abc import Mapping

import numpy as np

from meshsim.engine.core.errors import MeshsimError
from meshsim.engine.families.nqs.config import NQSConfig, QueueSpec
from meshsim.engine.workloads.workload import QueueMapping, Workload

NAME_RULE = re.compile(r"q(f?)([1-9][0-9]*)([sml])")
"""Wan et al.'s queue names (§4): fat-node flag, node limit, time class."""

BY_OPTION = "--queue-map"
BY_NAME_RULE = "name rule"


def parse_queue_map(text: str | None) -> dict[str, str]:
    """``NAME=QUEUE`` pairs separated by commas (``meshsim run --queue-map``, repeatable, joins
    its values with commas) as a dict; a malformed pair or a name mapped twice is an error."""
    mapping: dict[str, str] = {}
    for item in (text or "").split(","):
        if not item.strip():
            continue
        name, eq, target = (part.strip() for part in item.partition("="))
        if not eq or not name or not target:
            raise MeshsimError(
                f"--queue-map '{item.strip()}': expected NAME=QUEUE "
                "(a queue name of the trace, a queue name of the machine)"
            )
        if mapping.get(name, target) != target:
            raise MeshsimError(f"--queue-map maps '{name}' twice ({mapping[name]}, {target})")
        mapping[name] = target
    return mapping


def trace_queue_names(workload: Workload) -> dict[int, str]:
    """The name of every queue number the workload's jobs use: the header's ``Queue:`` name, or
    the number as written when the header does not name it."""
    named = workload.header.queues if workload.header is not None else {}
    names = {}
    for number in np.unique(workload.queue).tolist():
        words = named.get(number, "").split()
        names[number] = words[0] if words else str(number)
    return names


def by_name_rule(name: str, config: NQSConfig) -> QueueSpec | None:
    """The machine queue the naming rule gives for trace queue ``name`` (module docstring, 3)."""
    rule = NAME_RULE.fullmatch(name)
    if rule is None:
        return None
    fat, nodes, period = rule.group(1), int(rule.group(2)), rule.group(3)
    fits = []
    for spec in config.queues:
        own = NAME_RULE.fullmatch(spec.name)
        if own and (own.group(1), own.group(3)) == (fat, period) and spec.max_nodes >= nodes:
            fits.append(spec)
    return min(fits, key=lambda s: (s.max_nodes, s.number), default=None)


def match_queues(
    workload: Workload, config: NQSConfig, queue_map: Mapping[str, str]
) -> tuple[dict[int, QueueSpec], tuple[QueueMapping, ...]]:
    """The machine queue of every trace queue number the jobs use, and the placements under
    another name with the jobs each moved (rules in the module docstring)."""
    by_name = config.queue_by_name()
    valid = ", ".join(q.name for q in config.queues)
    names = trace_queue_names(workload)
    unused = sorted(set(queue_map) - set(names.values()))
    if unused:
        used = ", ".join(sorted(set(names.values())))
        raise MeshsimError(
            f"--queue-map {unused[0]}={queue_map[unused[0]]}: no job of {workload.name} is in a "
            f"queue '{unused[0]}' (its queues: {used})"
        )
    for name, target in queue_map.items():
        if target not in by_name:
            raise MeshsimError(
                f"--queue-map {name}={target}: the machine has no NQS queue '{target}' "
                f"(valid: {valid})"
            )
    numbers, counts = np.unique(workload.queue, return_counts=True)
    translate: dict[int, QueueSpec] = {}
    mappings: list[QueueMapping] = []
    for number, jobs in zip(numbers.tolist(), counts.tolist(), strict=True):
        name = names[number]
        rule = BY_OPTION if name in queue_map else None
        spec = by_name[queue_map[name]] if rule else by_name.get(name)
        if spec is None:
            spec = by_name_rule(name, config)
            rule = BY_NAME_RULE
        if spec is None:
            what = f"'{name}'" if name != str(number) else "(the trace header does not name it)"
            raise MeshsimError(
                f"{workload.name}: queue {number} {what} is not an NQS queue of this machine and "
                f"no rule places it (machine queues: {valid}); queues are matched by name, never "
                f"by number: map it with --queue-map {name}=QUEUE"
            )
        translate[number] = spec
        if spec.name != name:
            mappings.append(QueueMapping(name, spec.name, str(rule), jobs))
    return translate, tuple(mappings)
