"""Scenario files: the rules of their keys and of every action kind, and the checks of actions
against the machine and workload they act on (docs/boundaries.md).

Reading a file (:func:`read_action`) holds each action to its kind's section: types, ranges and
fixed names. Preparing the run (:func:`check_actions`) then checks what needs the machine and the
workload: the unit or block exists, the job exists (or will be submitted by an earlier ``submit``),
the policy names are valid and the allocator works on the machine, a submitted job fits the
machine. Reading a reservation checks that it starts no earlier than it is made and ends after it
starts. What can only fail when an action's time comes (its
job has ended by then) is reported by the run (:mod:`meshsim.engine.rejections`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from meshsim.engine.core.errors import MeshsimError, where
from meshsim.engine.kernel.outages import ON_JOB_AT_START
from meshsim.engine.validation.formats import SCENARIO_FILE
from meshsim.engine.validation.options import RUN
from meshsim.engine.validation.rules import Rule, Section, check_value
from meshsim.engine.validation.swf_columns import MAX_SECONDS

if TYPE_CHECKING:
    from meshsim.engine.kernel.actions import Action, LoggedAction
    from meshsim.engine.topology.machines import Machine
    from meshsim.engine.workloads.workload import Workload

SCHEMA = "meshsim.scenario/1"
"""The ``schema`` of a scenario file."""

TOP = SCENARIO_FILE.add(
    Section(
        "top level (a JSON object)",
        (
            Rule("schema", "str", choices=(SCHEMA,)),
            Rule("name", "str", None, doc="default: the file's name"),
            Rule("options", "table", {}, doc="run options by parameter name (load_factor, ...)"),
            Rule("position", "int", 0, minimum=0, doc="the event the console was at"),
            Rule("actions", "tables", [], doc="operator actions, in the order applied"),
        ),
    )
)
OPTIONS = SCENARIO_FILE.add(
    Section(
        "options",
        tuple(replace(r, key=r.key[2:].replace("-", "_")) for r in RUN.rules),
        doc="the options of meshsim run, by parameter name, held to the same rules",
    )
)

_COMMON = (
    Rule("action", "str", names="action"),
    Rule("time", "float", minimum=0.0, maximum=MAX_SECONDS, doc="simulated seconds"),
    Rule("after_event", "int", 0, minimum=0, doc="events processed when it was applied"),
)
_JOB = Rule("job_id", "int", doc="a job of the workload, or one an earlier submit makes")
_UNIT = Rule("unit", "value", doc="a unit name (R00-M0, 3,4, 5) or a cell number")


def _action(kind: str, rules: tuple[Rule, ...], doc: str) -> Section:
    return SCENARIO_FILE.add(Section(f"action {kind}", (*_COMMON, *rules), doc=doc))


ACTION_SECTIONS = {
    "submit": _action(
        "submit",
        (
            Rule("size", "int", 1, minimum=1, doc="nodes, at most the machine"),
            Rule("runtime", "float", 0.0, minimum=0.0, maximum=MAX_SECONDS),
            Rule("estimate", "float", -1.0, minimum=-1.0, maximum=MAX_SECONDS),
            Rule("user", "int", -1, minimum=-1),
            Rule("queue", "int", -1, minimum=-1),
        ),
        "a new job, submitted at the action's time",
    ),
    "hold": _action("hold", (_JOB,), "take a waiting job out of the queue"),
    "release": _action("release", (_JOB,), "put a held job back"),
    "cancel": _action("cancel", (_JOB,), "cancel a waiting, held or running job"),
    "set-policy": _action(
        "set-policy",
        (
            Rule("queue", "str", None, names="queue order"),
            Rule("discipline", "str", None, names="discipline"),
            Rule("backfill", "str", None, names="backfill"),
            Rule("allocator", "str", None, names="allocator", doc="must work on the machine"),
        ),
        "change the policy from now on",
    ),
    "fail": _action(
        "fail",
        (_UNIT, Rule("on_job", "str", "requeue", choices=("requeue", "kill"))),
        "a unit fails; its job is requeued or killed",
    ),
    "repair": _action("repair", (_UNIT,), "a failed unit is back"),
    "reserve": _action(
        "reserve",
        (
            Rule("block", "value", doc="units (a list), a box 'x,y WxH', or a partition name"),
            Rule("until", "float", minimum=0.0, maximum=MAX_SECONDS, doc="after start"),
            Rule(
                "start",
                "float",
                None,
                minimum=0.0,
                maximum=MAX_SECONDS,
                doc="when the window opens, not before time (default: time)",
            ),
            Rule(
                "on_job",
                "str",
                "wait",
                choices=ON_JOB_AT_START,
                doc="a job still on its units at the start: wait for it, or kill it",
            ),
        ),
        "reserve a block over [start, until), made at time (pending until start)",
    ),
}
"""The section of every action kind (a test holds them to the action classes' fields)."""


def read_options(raw: Any, source: str) -> dict[str, Any]:
    """The ``options`` object of a scenario file, every key known and held to its rule."""
    check_value(TOP.rule("options"), raw, where(source, key="options"))
    known = OPTIONS.key_list()
    for key, value in raw.items():
        if key not in known:
            raise MeshsimError(f"{where(source, key=f'options.{key}')}: unknown option")
        if value is not None:
            check_value(OPTIONS.rule(key), value, where(source, key=f"options.{key}"))
    return dict(raw)


def read_action(item: Any, source: str, index: int) -> LoggedAction:
    """Action ``index`` of a scenario file, held to its kind's section."""
    from meshsim.engine.kernel.actions import ACTIONS, LoggedAction

    prefix = f"actions[{index}]"
    if not isinstance(item, dict):
        raise MeshsimError(f"{where(source, key=prefix)}: expected an object, got {item!r:.40}")
    if "action" not in item:
        raise MeshsimError(f"{where(source, key=prefix)}: has no 'action' name")
    kind = check_value(_COMMON[0], item["action"], where(source, key=f"{prefix}.action"))
    section = ACTION_SECTIONS[kind]
    values: dict[str, Any] = {}
    for key, value in item.items():
        at = where(source, key=f"{prefix}.{key}")
        if key not in section.key_list():
            valid = ", ".join(section.key_list())
            raise MeshsimError(f"{at}: unknown key for action '{kind}' (valid: {valid})")
        rule = section.rule(key)
        if value is None and rule.default is None:  # null: not given
            values[key] = None
        else:
            values[key] = check_value(rule, value, at) if rule.kind != "value" else value
    for rule in section.rules:
        if rule.required and rule.key not in values:
            raise MeshsimError(f"{where(source, key=f'{prefix}.{rule.key}')}: is required")
    _check_shapes(values, source, prefix)
    after = values.pop("after_event", 0)
    del values["action"]
    return LoggedAction(after, ACTIONS.get(kind)(**values))


def _check_shapes(values: dict[str, Any], source: str, prefix: str) -> None:
    """The keys whose type depends on their value: a unit is a name or a cell number, a block a
    name or a list of units."""
    if "unit" in values and not _is_unit(values["unit"]):
        raise MeshsimError(
            f"{where(source, key=f'{prefix}.unit')}: expected a unit name or a cell number, "
            f"got {values['unit']!r:.40}"
        )
    block = values.get("block")
    if block is not None and not (
        isinstance(block, str) or (isinstance(block, list | tuple) and all(map(_is_unit, block)))
    ):
        raise MeshsimError(
            f"{where(source, key=f'{prefix}.block')}: expected a block name or a list of units, "
            f"got {block!r:.40}"
        )
    start = values.get("start")
    if start is not None and "time" in values and start < values["time"]:
        raise MeshsimError(
            f"{where(source, key=f'{prefix}.start')}: must not come before 'time' "
            f"({values['time']:g}), got {start:g}"
        )
    opens, after = (values.get("time"), "time") if start is None else (start, "start")
    if "until" in values and opens is not None and not values["until"] > opens:
        raise MeshsimError(
            f"{where(source, key=f'{prefix}.until')}: must come after '{after}' "
            f"({opens:g}), got {values['until']:g}"
        )


def _is_unit(value: Any) -> bool:
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def check_actions(
    actions: Sequence[Action | LoggedAction],
    machine: Machine,
    workload: Workload,
    source: str = "",
) -> None:
    """Hold every action to the machine and workload it will act on (see the module docstring);
    ``source`` names the file in messages."""
    from meshsim.engine.kernel.actions import LoggedAction
    from meshsim.engine.topology.machines import check_allocator
    from meshsim.engine.topology.units import block_cells, unit_cell

    ids = set(workload.job_id.tolist())
    next_id = max(int(workload.job_id.max()) if len(workload) else 0, len(workload)) + 1
    plain = [a.action if isinstance(a, LoggedAction) else a for a in actions]
    submitted = sum(a.kind == "submit" for a in plain)
    for k, action in enumerate(plain):
        at = f"{source}: actions[{k}]" if source else f"actions[{k}]"
        try:
            if hasattr(action, "unit"):
                unit_cell(machine, action.unit)
            if hasattr(action, "block"):
                block_cells(machine, action.block)
        except MeshsimError as exc:
            raise MeshsimError(f"{at}: {exc}") from None
        job_id = getattr(action, "job_id", None)
        if job_id is not None and job_id not in ids and not next_id <= job_id < next_id + submitted:
            raise MeshsimError(f"{at}: no job {job_id} in the workload")
        if action.kind == "submit" and action.size > machine.nodes:
            raise MeshsimError(
                f"{at}: a job of {action.size} nodes does not fit machine '{machine.name}' "
                f"({machine.nodes} nodes)"
            )
        allocator = getattr(action, "allocator", None)
        if allocator is not None:
            check_allocator(machine, allocator, f"{at}.allocator")
