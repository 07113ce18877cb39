"""What the console's keys and palette entries do, apart from the layout: the forms that ask for
values, and the reports that show what came back. The engine commands the forms turn into are in
:mod:`meshsim.tui.requests` (they run in the engine process, never in the UI's)."""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from functools import singledispatch
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich import box
from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.app import SystemCommand

from meshsim.engine.allocation.free_space import FreeSpace
from meshsim.engine.core.errors import MeshsimError
from meshsim.engine.core.policy import Policy
from meshsim.engine.kernel.action_checks import policy_choices, static_refusal
from meshsim.engine.kernel.actions import Action, Fail, Repair, Reserve, SetPolicy, Submit
from meshsim.engine.kernel.history import HistoryPage, log_line
from meshsim.engine.kernel.metrics import metric_info, metric_text
from meshsim.engine.tools.session import JobDetails
from meshsim.engine.topology.machines import Machine
from meshsim.engine.topology.units import UnitInfo, unit_name
from meshsim.tui.format import clock, duration, shape_text
from meshsim.tui.keys import key_sections
from meshsim.tui.queue_view import QueueFilter, parse_filter
from meshsim.tui.requests import Vetted, WhatIf, WhatIfResult
from meshsim.tui.screens.form import Field, FormScreen
from meshsim.tui.screens.report import ReportScreen
from meshsim.tui.widgets.event_log import EventLog

if TYPE_CHECKING:
    from meshsim.tui.app import MeshsimApp

POLICY_FIELDS = (
    ("queue", "queue order"),
    ("discipline", "start discipline"),
    ("backfill", "backfilling"),
    ("allocator", "allocator"),
)
"""The policy fields an operator may change from now on; their valid names on a machine are
:func:`~meshsim.engine.kernel.action_checks.policy_choices`."""

UNCHANGED = ("(unchanged)", "")
"""The choice that leaves a field of a what-if branch as it is."""

_DURATION = re.compile(r"^(\d+(?:\.\d+)?)\s*([smhd]?)$")
_UNITS = {"": 1.0, "s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0}


def parse_duration(text: str, what: str) -> float:
    """Seconds from ``90``, ``90s``, ``15m``, ``2h`` or ``1.5d``."""
    match = _DURATION.match(text.strip().lower())
    if match is None:
        raise MeshsimError(f"{what}: expected a duration such as 3600, 45m, 2h or 1d, got {text!r}")
    return float(match.group(1)) * _UNITS[match.group(2)]


def parse_target(text: str) -> tuple[str, float]:
    """A go-to target: ``#123`` or ``event 123`` (an event number), ``+2h`` (that much later), ``day
    3 12:00`` or a number of seconds (a simulated time)."""
    raw = text.strip().lower()
    event = re.match(r"^(?:#|e|event)\s*(\d+)$", raw)
    if event:
        return "event", float(event.group(1))
    day = re.match(r"^day\s+(\d+)(?:\s+(\d{1,2}):(\d{2})(?::(\d{2}))?)?$", raw)
    if day:
        d, h, m, s = (int(g) if g else 0 for g in day.groups())
        return "time", float(d * 86400 + h * 3600 + m * 60 + s)
    if raw.startswith("+"):
        return "later", parse_duration(raw[1:], "go to")
    return "time", parse_duration(raw, "go to")


def refuse(machine: Machine, action: Action, policy: Policy | None = None) -> Action:
    """``action``, or the form's error when it can never apply on ``machine`` (the engine's rules,
    :func:`~meshsim.engine.kernel.action_checks.static_refusal`)."""
    problem = static_refusal(machine, action, migrate=bool(policy and policy.migrate))
    if problem:
        raise MeshsimError(problem)
    return action


def target_text(target: tuple[str, float]) -> str:
    """A go-to target in words: ``event 1,200``, ``day 3 12:00:00``, ``2h later``."""
    kind, value = target
    if kind == "event":
        return f"event {int(value):,}"
    return f"{duration(value)} later" if kind == "later" else clock(value)


# ---------------------------------------------------------------------- forms


def goto_form() -> FormScreen:
    return FormScreen(
        "Go to",
        [Field("target", "event (#1200), time (day 3 12:00, 86400, 36h) or +duration (+2h)")],
        lambda v: parse_target(v["target"]),
        "Going back replays the run from its start with the same actions.",
    )


def _job_number(text: str) -> int:
    if not text.strip().isdigit():
        raise MeshsimError(f"a job number is a whole number, got {text!r}")
    return int(text)


def job_form(title: str) -> FormScreen:
    return FormScreen(title, [Field("job", "job number")], lambda v: _job_number(v["job"]))


def filter_form(current: QueueFilter | None) -> FormScreen:
    """The waiting queue's filter (:func:`~meshsim.tui.queue_view.parse_filter`); empty lists every
    job."""
    return FormScreen(
        "Filter the waiting queue",
        [
            Field(
                "filter",
                "user=12 size>=512 queue=3 state=held|blocked|waiting, a job number; empty: all",
                current.text if current is not None else "",
            )
        ],
        lambda v: parse_filter(v["filter"]),
        "All the words must hold. The pane's title shows the filter in use.",
    )


def submit_form(machine: Machine) -> FormScreen:
    def check(v: dict[str, str]) -> Submit:
        if not v["size"].isdigit():
            raise MeshsimError(f"size must be 1..{machine.nodes} nodes, got {v['size']!r}")
        runtime = parse_duration(v["runtime"], "runtime")
        estimate = parse_duration(v["estimate"], "estimate") if v["estimate"] else -1.0
        action = Submit(time=0.0, size=int(v["size"]), runtime=runtime, estimate=estimate)
        return refuse(machine, action)

    return FormScreen(
        "Submit a job now",
        [
            Field("size", f"size (1..{machine.nodes:,} nodes)", str(min(512, machine.nodes))),
            Field("runtime", "runtime", "1h"),
            Field("estimate", "estimate (empty: the runtime)"),
        ],
        check,
    )


ON_JOB_CHOICES = (
    ("wait: the units are reserved as their jobs end", "wait"),
    ("kill: the jobs still on the units are killed at the start", "kill"),
)
"""What a reservation does at its start to a job still running on its units (the action's
``on_job``, :data:`~meshsim.engine.kernel.outages.ON_JOB_AT_START`)."""


def reserve_form(machine: Machine, cell: int) -> FormScreen:
    """A reservation of a block over a window that starts now or later: until its start it is
    pending and keeps out every job whose estimate reaches the start."""

    def check(v: dict[str, str]) -> dict[str, Any]:
        if not v["block"]:
            raise MeshsimError("name the block to reserve")
        start = parse_duration(v["start"], "starts in") if v["start"] else 0.0
        length = parse_duration(v["length"], "lasts")
        if length <= 0:
            raise MeshsimError("lasts: a reservation lasts longer than 0")
        refuse(machine, Reserve(time=0.0, block=v["block"], until=start + length, start=start))
        return {"block": v["block"], "start": start, "length": length, "on_job": v["on_job"]}

    return FormScreen(
        "Reserve a block (maintenance drain)",
        [
            Field("block", "units: names, a box 0,0 4x4 or a partition", unit_name(machine, cell)),
            Field("start", "starts in (from now: 0, 45m, 2h)", "0"),
            Field("length", "lasts", "4h"),
            Field("on_job", "jobs still on its units at the start", "wait", ON_JOB_CHOICES),
        ],
        check,
        "Until it starts it is pending: no job whose estimate reaches the start begins on its "
        "units. Then idle units are reserved; all return after.",
    )


def reserve_question(values: dict[str, Any]) -> str:
    """The confirmation of a reservation form's values: the window and the rule at its start."""
    lead = values["start"]
    when = "now" if lead <= 0 else f"in {duration(lead)} (pending until then)"
    rule = "killed" if values["on_job"] == "kill" else "waited for"
    return (
        f"Reserve {values['block']} for {duration(values['length'])} of maintenance, starting "
        f"{when}? Jobs still on its units at the start are {rule}."
    )


def fail_action(machine: Machine, cell: int) -> Fail:
    return Fail(time=0.0, unit=unit_name(machine, cell))


def repair_action(machine: Machine, cell: int) -> Repair:
    return Repair(time=0.0, unit=unit_name(machine, cell))


def _current(policy: Policy, machine: Machine, name: str) -> str:
    value = getattr(policy, name)
    return machine.default_allocator if name == "allocator" and value is None else str(value)


def _policy_field(machine: Machine, policy: Policy, name: str, label: str, branch: bool) -> Field:
    names = policy_choices(machine, name, migrate=policy.migrate)
    current = _current(policy, machine, name)
    choices = tuple((n + (" (now)" if n == current else ""), n) for n in names)
    if branch:
        return Field(name, f"{label} in the branch", "", (UNCHANGED, *choices))
    return Field(name, label, current, choices)


def _policy_changes(values: dict[str, str], machine: Machine, policy: Policy) -> dict[str, str]:
    changes = {
        name: values[name]
        for name, _ in POLICY_FIELDS
        if values[name] and values[name] != _current(policy, machine, name)
    }
    if changes:
        refuse(machine, SetPolicy(time=0.0, **changes), policy)
    return changes


def policy_form(machine: Machine, policy: Policy) -> FormScreen:
    """The policy from now on: each field offers the names valid on this machine, the current one
    chosen."""
    fields = [_policy_field(machine, policy, name, label, False) for name, label in POLICY_FIELDS]

    def check(v: dict[str, str]) -> dict[str, str]:
        changes = _policy_changes(v, machine, policy)
        if not changes:
            raise MeshsimError("nothing changed: choose another value in a field")
        return changes

    return FormScreen("Change policy from now on", fields, check)


def path_form(title: str, default: str) -> FormScreen:
    def check(v: dict[str, str]) -> Path:
        if not v["path"]:
            raise MeshsimError("give a file or folder name")
        return Path(v["path"]).expanduser()

    return FormScreen(title, [Field("path", "path", default)], check)


# ---------------------------------------------------------------------- what-if


def what_if_form(machine: Machine, policy: Policy, now: float) -> FormScreen:
    """Fork now; the branch may change any policy field (the names valid on this machine) and fail
    a unit."""
    policy_fields = [
        _policy_field(machine, policy, name, label, True) for name, label in POLICY_FIELDS
    ]

    def check(v: dict[str, str]) -> WhatIf:
        changes = _policy_changes(v, machine, policy)
        if v["fail"]:
            refuse(machine, Fail(time=0.0, unit=v["fail"]))
        until = None
        if v["until"]:
            kind, value = parse_target(v["until"])
            if kind == "event":
                raise MeshsimError("compare until a time (day 3, 36h, +2h), not an event")
            until = now + value if kind == "later" else value
            if until <= now:
                raise MeshsimError(f"run until a time after now ({clock(now)})")
        if not changes and not v["fail"]:
            raise MeshsimError("change at least one thing in the branch")
        return WhatIf(changes, v["fail"], until)

    return FormScreen(
        "What if… (fork now, change the branch, run both)",
        [
            *policy_fields,
            Field("fail", "fail this unit in the branch (e.g. " + unit_name(machine, 0) + ")"),
            Field("until", "run until (empty: the end; day 3, 36h, +2h)"),
        ],
        check,
        "space opens a list; enter accepts the form.",
    )


# ---------------------------------------------------------------------- reports


def job_report(details: JobDetails) -> ReportScreen:
    job = details.job
    table = Table.grid(padding=(0, 2))
    table.add_column(style="dim")
    table.add_column()
    rows = [
        ("job", str(job.job_id)),
        ("status", details.status),
        ("user / group / queue", f"{job.user} / {job.group} / {job.queue}"),
        ("size", f"{job.size} nodes ({job.procs} processors), shape {shape_text(job.shape)}"),
        ("submitted", clock(job.submit)),
        ("runtime / estimate", f"{duration(job.runtime)} / {duration(job.estimate)}"),
        ("started", "-" if math.isnan(details.start) else clock(details.start)),
        ("ended", "-" if math.isnan(details.end) else clock(details.end)),
        ("location", details.location or "-"),
    ]
    for key, value in rows:
        table.add_row(key, value)
    history = Text("\n".join(log_line(r) for r in details.events) or "(no events for this job)")
    return ReportScreen(
        f"Job {job.job_id}", Group(table, Text("\nits events", style="bold"), history)
    )


def unit_report(info: UnitInfo) -> ReportScreen:
    table = Table.grid(padding=(0, 2))
    table.add_column(style="dim")
    table.add_column()
    table.add_row("unit", info.name)
    table.add_row("state", info.state)
    if info.job_id is not None:
        table.add_row("job", f"{info.job_id} on {info.placement}")
    if info.until is not None:
        table.add_row("reserved until", clock(info.until))
    for start, until in info.ahead:
        table.add_row("pending reservation", f"{clock(start)} → {clock(until)}")
    table.add_row("blocks", ", ".join(info.blocks) if info.blocks else "-")
    keys = Text("f fail · r repair · R reserve a block starting here", style="dim")
    return ReportScreen(f"Unit {info.name}", Group(table, Text(""), keys))


def free_space_report(space: FreeSpace) -> ReportScreen:
    """The machine's free space (:mod:`meshsim.engine.allocation.free_space`): its figures, then
    its tables."""
    parts: list[Any] = [Text(line) for line in space.lines]
    for part in space.tables:
        table = Table(title=part.title, box=box.SIMPLE_HEAD, title_justify="left")
        for k, column in enumerate(part.columns):
            figures = all(row[k].replace(",", "").isdigit() for row in part.rows)
            table.add_column(column, justify="right" if figures and part.rows else "left")
        for row in part.rows:
            table.add_row(*row)
        if not part.rows:
            table.add_row("(none)", *[""] * (len(part.columns) - 1))
        parts.append(table)
    return ReportScreen(space.title, Group(*parts))


def gain_text(gain: float | None) -> Text:
    """A gain as an arrow and a signed percentage — readable without colour (``NO_COLOR``) — in
    green when the branch is better and red when it is worse."""
    if gain is None:
        return Text("—", style="dim")
    if abs(gain) < 0.0005:
        return Text("= 0.0%", style="dim")
    if gain > 0:
        return Text(f"▲ +{gain:.1%}", style="green")
    return Text(f"▼ −{-gain:.1%}", style="red")


def what_if_report(result: WhatIfResult) -> ReportScreen:
    """Both branches, metric by metric, since the fork beside since day 0; each gain signed by the
    metric's better direction (:data:`~meshsim.engine.kernel.metrics.METRIC_INFO`)."""
    q = result.question
    change = ", ".join(f"{k}={v}" for k, v in q.policy.items())
    if q.fail:
        change = ", ".join(filter(None, [change, f"fail {q.fail}"]))
    horizon = "the end" if q.until is None else clock(q.until)
    table = Table(
        title=f"forked at {clock(result.forked_at)}; branch: {change}; run to {horizon}",
        caption="gain: ▲ the branch is better, ▼ worse, by each metric's better direction "
        "(—: neither)\nfork: what happened after the fork; day 0: the whole run",
        box=box.SIMPLE_HEAD,
        padding=(0, 0),
        pad_edge=False,
    )
    table.add_column("metric", no_wrap=True)
    for scope in ("fork", "day 0"):
        table.add_column(f"{scope}: base", justify="right", no_wrap=True)
        table.add_column("what-if", justify="right", no_wrap=True)
        table.add_column("gain", justify="right", no_wrap=True)
    fork = {d.name: d for d in result.comparison.since_fork}
    for whole in result.comparison.since_start:
        label = "jobs completed" if whole.name == "jobs" else metric_info(whole.name).label
        cells: list[str | Text] = [label]
        for d in (fork.get(whole.name), whole):
            if d is None:
                cells += ["", "", ""]
                continue
            base, branch = metric_text(d.name, d.base), metric_text(d.name, d.branch)
            cells += [base, branch, gain_text(d.gain)]
        table.add_row(*cells)
    return ReportScreen("What-if comparison", table)


def help_screen(app: MeshsimApp) -> ReportScreen:
    """Every key, generated from the bindings (:func:`meshsim.tui.keys.key_sections`)."""
    table = Table(title="keys (also in the command palette, ctrl+p)")
    table.add_column("key")
    table.add_column("action")
    table.add_column("what it does")
    for section in key_sections(app.BINDINGS):
        table.add_section()
        table.add_row(Text(section.title, style="bold"), "", "")
        for key in section.keys:
            table.add_row(key.display, key.action, key.does)
    return ReportScreen("Help", table)


@singledispatch
def present(result: Any, app: MeshsimApp, label: str) -> None:
    """Show what a request returned, by its type (nothing for a result of no type below)."""


@present.register(JobDetails)
def _job(result: JobDetails, app: MeshsimApp, label: str) -> None:
    app.push_screen(job_report(result))


@present.register(UnitInfo)
def _unit(result: UnitInfo, app: MeshsimApp, label: str) -> None:
    app.push_screen(unit_report(result))


@present.register(FreeSpace)
def _free_space(result: FreeSpace, app: MeshsimApp, label: str) -> None:
    app.push_screen(free_space_report(result))


@present.register(WhatIfResult)
def _what_if(result: WhatIfResult, app: MeshsimApp, label: str) -> None:
    app.push_screen(what_if_report(result))


@present.register(HistoryPage)
def _history_page(result: HistoryPage, app: MeshsimApp, label: str) -> None:
    app.query_one(EventLog).show_page(result)


@present.register(Vetted)
def _vetted(result: Vetted, app: MeshsimApp, label: str) -> None:
    app.confirm_action(result, label)


@present.register(Action)
def _undone(result: Action, app: MeshsimApp, label: str) -> None:
    app.notify(f"{label}: {result.kind} removed from the action log")


@present.register(str)
def _message(result: str, app: MeshsimApp, label: str) -> None:
    app.notify(result, title=label or None)


def palette(app: MeshsimApp) -> Iterator[SystemCommand]:
    """Command-palette entries: every binding's action, every policy choice, jump to job."""
    for binding in app.BINDINGS:
        if isinstance(binding, tuple) or binding.action == "quit":
            continue
        yield SystemCommand(binding.description, binding.tooltip, _runner(app, binding.action))
    policy = app.frame.snapshot.policy if app.frame else None
    for name, label in POLICY_FIELDS:
        migrate = bool(policy and policy.migrate)
        for value in policy_choices(app.machine, name, migrate=migrate):
            yield SystemCommand(
                f"{label}: {value}",
                f"switch the {label} to {value} from now on",
                _policy_runner(app, name, value),
            )
    yield SystemCommand("Jump to job…", "inspect a job by its number", app.action_find_job)


def _runner(app: MeshsimApp, action: str) -> Any:
    async def run() -> None:
        await app.run_action(action)

    return run


def _policy_runner(app: MeshsimApp, name: str, value: str) -> Any:
    return lambda: app.set_policy(**{name: value})
