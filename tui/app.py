"""The meshsim operator console (``meshsim tui``).

One engine process alone drives the simulation (:class:`~meshsim.tui.driver.Driver` in
:mod:`meshsim.tui.engine_process`); the UI sends it declared requests (:mod:`meshsim.tui.requests`)
and renders the immutable frames it publishes (DESIGN.md, "Console"; style anchors §1.4 and §1.7).
Every key and command-palette entry is an action below; actions that change the run go into the
session's action log, so a saved scenario replays to the same results."""

from __future__ import annotations

import itertools
import math
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any, ClassVar

from textual import on
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.screen import ModalScreen, Screen
from textual.widgets import Input, TabbedContent, TabPane

from meshsim.engine.core.bundled import bundled_file
from meshsim.engine.core.errors import MeshsimError
from meshsim.engine.kernel.actions import Action, Cancel, Hold, ReleaseHold, SetPolicy, Submit
from meshsim.engine.tools.runcase import RunOptions
from meshsim.tui import commands
from meshsim.tui.driver import DEFAULT_SPEED, Frame, Progress
from meshsim.tui.engine_process import EngineProcess, Opening
from meshsim.tui.queue_view import QueueFilter
from meshsim.tui.requests import (
    Act,
    Back,
    CancelLong,
    Export,
    GoLater,
    GoToEvent,
    GoToTime,
    InspectJob,
    InspectUnit,
    Live,
    LongRequest,
    Request,
    ReserveBlock,
    Save,
    SearchLog,
    ShowFreeSpace,
    Step,
    StepToStart,
    Undo,
    Vet,
    Vetted,
    WatchJobs,
    WhatIf,
)
from meshsim.tui.screens.confirm import ConfirmScreen
from meshsim.tui.screens.progress import ProgressScreen
from meshsim.tui.screens.reservations import reservations_report
from meshsim.tui.widgets.event_log import EventLog
from meshsim.tui.widgets.footer import ConsoleFooter
from meshsim.tui.widgets.machine_map import MachineMap
from meshsim.tui.widgets.metrics_pane import MetricsPane
from meshsim.tui.widgets.queue_detail import QueueDetail
from meshsim.tui.widgets.queue_list import QueueList
from meshsim.tui.widgets.running_table import RunningTable
from meshsim.tui.widgets.status_bar import StatusBar
from meshsim.tui.widgets.timeline import Timeline

SPEEDS = (1.0, 10.0, 60.0, 600.0, 3600.0, 21600.0, 86400.0, math.inf)
"""Live speeds (simulated seconds per wall second) that ``+`` and ``-`` step through."""

PROGRESS_AFTER = 0.3
"""Seconds a long command (go-to, what-if, export) runs before its progress is shown."""

RUNNING_MIN = 8
"""Lines of the left column the map leaves to the running jobs (border, header and five jobs; the
same as the running table's ``min-height`` in app.tcss)."""


class FrameReady(Message):
    """A frame from the engine; a newer one replaces an unprocessed older one, unless the older one
    answers a command (its result or error is never dropped)."""

    def __init__(self, frame: Frame) -> None:
        super().__init__()
        self.frame = frame

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, FrameReady) and not self.frame.answers


class ProgressReady(Message):
    """A long command's progress report from the engine."""

    def __init__(self, progress: Progress) -> None:
        super().__init__()
        self.progress = progress


class EngineEnded(Message):
    """The engine process ended without being asked to (``reason`` says how)."""

    def __init__(self, reason: str) -> None:
        super().__init__()
        self.reason = reason


def _binding(
    key: str,
    action: str,
    description: str,
    tooltip: str,
    *,
    show: bool = True,
    priority: bool = False,
) -> Binding:
    return Binding(
        key,
        action,
        description,
        show=show,
        priority=priority,
        id=action.split("(")[0].replace("_", "-"),
        tooltip=tooltip,
    )


class MeshsimApp(App[None]):
    """Queue, machine map, running jobs, metrics, timeline and event log of one live run."""

    CSS_PATH = bundled_file("meshsim.tui", "app.tcss")
    TITLE = "meshsim"
    BINDINGS: ClassVar[list[BindingType]] = [
        # Help and Quit come first so that the footer, which drops keys from its right end on a
        # narrow terminal, always shows them (100 columns hid both).
        _binding("question_mark,f1", "help", "Help", "Every key and what it does"),
        _binding(
            "q",
            "quit",
            "Quit",
            "Close the open dialog, else quit the console (asks when operator actions are unsaved)",
        ),
        _binding(
            "space",
            "toggle_live",
            "Run/Pause",
            "Run live at the chosen speed, or pause",
            priority=True,
        ),
        _binding("n", "step(1)", "Step", "Process one event"),
        _binding("N", "step(10)", "Step 10", "Process ten events"),
        _binding("s", "step_to_start", "To start", "Process events until a job starts"),
        _binding("b", "back(1)", "Back", "Step back one event (replays the run)"),
        _binding("B", "back(10)", "Back 10", "Step back ten events", show=False),
        _binding("g", "goto", "Go to", "Go to a simulated time or an event number"),
        _binding("plus,equals_sign", "faster", "Faster", "Raise the live speed", show=False),
        _binding("minus", "slower", "Slower", "Lower the live speed", show=False),
        _binding(
            "slash",
            "filter_queue",
            "Filter",
            "Filter the waiting queue (user=12 size>=512 queue=3 state=held, a job number)",
        ),
        _binding("number_sign", "find_job", "Find job", "Inspect a job by its number"),
        _binding("i", "inspect", "Inspect", "Inspect the selected job or unit"),
        _binding(
            "m",
            "free_space",
            "Free space",
            "Partitions by state and what blocks each idle midplane (partlist), or the free "
            "boxes of a mesh or torus",
        ),
        _binding("a", "submit_job", "Submit", "Submit a job now", show=False),
        _binding("h", "hold", "Hold", "Hold the selected waiting job", show=False),
        _binding("u", "release", "Release", "Release the selected held job", show=False),
        _binding("c", "cancel_job", "Cancel", "Cancel the selected job", show=False),
        _binding("f", "fail_unit", "Fail", "Fail the unit under the map cursor", show=False),
        _binding("r", "repair_unit", "Repair", "Repair the unit under the map cursor", show=False),
        _binding("R", "reserve", "Reserve", "Reserve a block for a time window", show=False),
        _binding(
            "v",
            "reservations",
            "Reservations",
            "List the reservations: units, start, end, pending or active, jobs on their units",
            show=False,
        ),
        _binding(
            "p", "policy", "Policy", "Change queue order, backfilling or allocator", show=False
        ),
        _binding("z", "undo", "Undo", "Undo the last operator action", show=False),
        _binding("w", "what_if", "What-if", "Fork, change something, compare both to the end"),
        _binding(
            "ctrl+s",
            "save_scenario",
            "Save",
            "Save the scenario (inputs, actions, position)",
            show=False,
        ),
        _binding(
            "x",
            "export",
            "Export",
            "Export results (JSON, CSV, SWF) of the run to its end",
            show=False,
        ),
        _binding("X", "screenshot_svg", "Screenshot", "Save an SVG screenshot", show=False),
        _binding("t", "next_tab", "Tab", "Cycle metrics, timeline and event log", show=False),
    ]

    def __init__(self, engine: EngineProcess, *, start_live: bool = False) -> None:
        super().__init__()
        self.engine = engine
        self.machine = engine.first.snapshot.machine
        self.frame: Frame | None = None
        self.frames_drawn = 0
        """Frames rendered and drawn on screen (the console benchmark reads this)."""
        self._engine_ended: str | None = None
        self._start_live = start_live
        self._speed_index = SPEEDS.index(DEFAULT_SPEED)
        self._saved_actions = 0
        """Operator actions in the log when the scenario was last saved (or the console opened)."""
        self._metrics_shown: dict[str, float | int] | None = None
        self._tickets = itertools.count(1)
        self._long: tuple[int, str, str] | None = None
        """The long command running: its ticket, label and title."""
        self._progress: Progress | None = None
        self._panes: tuple[Any, ...] | None = None
        """The panes a frame updates, found once instead of by five DOM queries per frame (0.65 ms
        of each live frame under cProfile)."""

    # ------------------------------------------------------------------ layout

    def compose(self) -> ComposeResult:
        yield StatusBar(id="status")
        with Horizontal(id="main"):
            with Vertical(id="left"):
                yield MachineMap(id="map", leave=RUNNING_MIN)
                yield RunningTable(id="running")
            with Vertical(id="right"):
                yield QueueList(id="queue")
                yield QueueDetail(id="queue-detail")
                with TabbedContent(id="lower"):
                    with TabPane("Metrics", id="tab-metrics"):
                        yield MetricsPane(id="metrics")
                    with TabPane("Timeline", id="tab-timeline"):
                        yield Timeline(id="timeline")
                    with TabPane("Events", id="tab-events"):
                        yield EventLog(id="events")
        yield ConsoleFooter()

    def on_mount(self) -> None:
        self.query_one("#map").border_title = "machine"
        self.engine.listen(self._publish, self._ended, self._progressed)
        if self._start_live:
            self.action_toggle_live()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """``space`` is a priority key (it runs or pauses whatever pane has the focus), so it would
        reach the app from a dialog too: in a form or a text field it is a space, or opens a
        choice's list, and never starts the run."""
        typing = isinstance(self.screen, ModalScreen) or isinstance(self.focused, Input)
        return not (action == "toggle_live" and typing)

    def on_resize(self) -> None:
        self.set_class(self.size.height < 30, "short")
        self.call_after_refresh(self.query_one(MachineMap).refit)

    # ------------------------------------------------------------------ engine process

    def _publish(self, frame: Frame) -> None:
        """Reader thread: hand a frame to the UI."""
        self.post_message(FrameReady(frame))

    def _progressed(self, progress: Progress) -> None:
        """Reader thread: a long command's progress."""
        self.post_message(ProgressReady(progress))

    @on(ProgressReady)
    def _on_progress(self, message: ProgressReady) -> None:
        self._progress = message.progress
        if isinstance(self.screen, ProgressScreen):
            self.screen.show(message.progress)

    def run_long(self, command: LongRequest, label: str, title: str) -> None:
        """Send a long command with a ticket of its own; its progress shows after
        :data:`PROGRESS_AFTER` seconds, with a way to cancel it."""
        ticket = next(self._tickets)
        self._long = (ticket, label, title)
        self._progress = None
        self.send(replace(command, ticket=ticket), label)
        self.set_timer(PROGRESS_AFTER, partial(self._show_progress, ticket))

    def _show_progress(self, ticket: int) -> None:
        if self._long is None or self._long[0] != ticket:
            return
        screen = ProgressScreen(self._long[2], partial(self._cancel_long, ticket))
        if self._progress is not None:
            screen.show(self._progress)
        self.push_screen(screen)

    def _cancel_long(self, ticket: int) -> None:
        self.send(CancelLong(ticket))

    def _long_done(self, frame: Frame) -> None:
        """The answer of the long command running has come: close its progress."""
        if self._long is None or frame.label != self._long[1]:
            return
        self._long = None
        if isinstance(self.screen, ProgressScreen):
            self.pop_screen()

    def _ended(self, reason: str) -> None:
        """Reader thread: the engine process is gone."""
        self.post_message(EngineEnded(reason))

    @on(EngineEnded)
    def _on_engine_ended(self, message: EngineEnded) -> None:
        self._engine_ended = message.reason
        self.notify(message.reason, title="engine", severity="error", timeout=30)

    def send(self, command: Request, label: str = "") -> None:
        """Queue work for the engine process (the UI never touches the session itself); a command
        is a declared request (:mod:`meshsim.tui.requests`)."""
        try:
            if self._engine_ended is not None:
                raise MeshsimError(f"{self._engine_ended}; quit with q")
            self.engine.send(command, label)
        except MeshsimError as exc:
            self.notify(str(exc), title="engine", severity="error")

    def on_unmount(self) -> None:
        """Whatever ends the app (q, ctrl+q, an error) ends the engine process with it."""
        self.engine.stop()

    # ------------------------------------------------------------------ rendering

    @on(FrameReady)
    def show_frame(self, message: FrameReady) -> None:
        """Render a frame: status, map, running jobs, queue and the visible lower tab. Live, the
        metrics tab is redrawn only when the frame brings fresh result metrics (the driver computes
        them every ``METRICS_EVERY`` seconds): its sparklines and values were a fifth of a live
        frame's drawing; paused, every frame redraws it."""
        frame = message.frame
        if self.frame is None:
            self._saved_actions = frame.actions
        self.frame = frame
        snap = frame.snapshot
        panes = self._panes
        if panes is None or not panes[0].is_attached:
            panes = self._panes = (
                self.query_one(StatusBar),
                self.query_one(MachineMap),
                self.query_one(RunningTable),
                self.query_one(QueueList),
                self.query_one("#lower", TabbedContent),
                self.query_one(MetricsPane),
                self.query_one(Timeline),
                self.query_one(EventLog),
            )
        status, machine_map, running, queue, tabs, metrics, timeline, events = panes
        with self.batch_update():
            status.show(frame)
            machine_map.show(snap)
            running.show(snap)
            running.border_title = f"running · {len(snap.running):,}"
            queue.show(snap)
            lower = tabs.active
            if lower == "tab-metrics":
                if not frame.live or frame.metrics is not self._metrics_shown:
                    metrics.show(snap, frame.metrics)
                    self._metrics_shown = frame.metrics
            elif lower == "tab-timeline":
                timeline.show(snap)
            else:
                events.show(snap)
        self.call_after_refresh(self._drawn)
        if frame.answers:
            self._long_done(frame)
        if frame.error:
            self.notify(frame.error, title=frame.label or "error", severity="error")
        elif frame.result is not None:
            if frame.label == "saved":
                self._saved_actions = frame.actions
            commands.present(frame.result, self, frame.label)

    def _drawn(self) -> None:
        self.frames_drawn += 1

    @on(TabbedContent.TabActivated)
    def _on_tab(self) -> None:
        """Redraw the newly visible tab from the last frame, without its command's answer: a tab
        switch never shows a result (a report, a what-if table) a second time."""
        self._metrics_shown = None
        if self.frame is not None:
            self.post_message(FrameReady(replace(self.frame, result=None, error=None, label="")))

    # ------------------------------------------------------------------ stepping

    def action_toggle_live(self) -> None:
        speed = SPEEDS[self._speed_index]
        live = not (self.frame is not None and self.frame.live)
        self.send(Live(live, speed))

    def action_step(self, count: int) -> None:
        self.send(Step(count))

    def action_step_to_start(self) -> None:
        self.send(StepToStart())

    def action_back(self, count: int) -> None:
        self.send(Back(count))

    def _change_speed(self, delta: int) -> None:
        self._speed_index = max(0, min(len(SPEEDS) - 1, self._speed_index + delta))
        speed = SPEEDS[self._speed_index]
        live = self.frame is not None and self.frame.live
        self.send(Live(live, speed))
        self.notify(f"speed {'max' if math.isinf(speed) else f'×{speed:g}'}", timeout=1.5)

    def action_faster(self) -> None:
        self._change_speed(1)

    def action_slower(self) -> None:
        self._change_speed(-1)

    def action_goto(self) -> None:
        self.push_screen(commands.goto_form(), self._goto)

    def _goto(self, target: tuple[str, float] | None) -> None:
        if target is None:
            return
        kind, value = target
        title = "Going to " + commands.target_text(target)
        if kind == "event":
            self.run_long(GoToEvent(int(value)), "go to", title)
        elif kind == "later":
            self.run_long(GoLater(value), "go to", title)
        else:
            self.run_long(GoToTime(value), "go to", title)

    def action_next_tab(self) -> None:
        tabs = self.query_one("#lower", TabbedContent)
        order = ["tab-metrics", "tab-timeline", "tab-events"]
        tabs.active = order[(order.index(tabs.active) + 1) % len(order)]

    # ------------------------------------------------------------------ inspectors

    def _selected_job(self) -> int | None:
        focused = self.focused
        if isinstance(focused, RunningTable) and focused.selected_job is not None:
            return focused.selected_job
        queue = self.query_one(QueueList)
        job = queue.selected
        return job.job_id if job is not None else None

    def action_inspect(self) -> None:
        if isinstance(self.focused, MachineMap):
            self._inspect_unit(self.focused.cursor)
            return
        job_id = self._selected_job()
        if job_id is not None:
            self._inspect_job(job_id)

    def _inspect_job(self, job_id: int) -> None:
        self.send(InspectJob(job_id), "job")

    def _inspect_unit(self, cell: int) -> None:
        self.send(InspectUnit(cell), "unit")

    @on(QueueList.JobSelected)
    @on(RunningTable.JobSelected)
    def _on_job_selected(self, message: QueueList.JobSelected | RunningTable.JobSelected) -> None:
        self._inspect_job(message.job_id)

    @on(QueueList.WatchWanted)
    def _on_watch_wanted(self, message: QueueList.WatchWanted) -> None:
        """Rows without a wait came into view: the engine explains them from the next frame on."""
        self.send(WatchJobs(message.jobs))

    @on(QueueList.DetailChanged)
    def _on_detail(self, message: QueueList.DetailChanged) -> None:
        """The detail line follows the queue, also while a dialog covers the main screen (and
        not at all once the app is closing)."""
        for detail in self.screen_stack[0].query(QueueDetail) if self.screen_stack else ():
            detail.show(message.text)

    @on(EventLog.SearchWanted)
    def _on_search(self, message: EventLog.SearchWanted) -> None:
        self.send(SearchLog(message.query, message.before), "search")

    @on(MachineMap.UnitSelected)
    def _on_unit_selected(self, message: MachineMap.UnitSelected) -> None:
        self._inspect_unit(message.cell)

    def action_free_space(self) -> None:
        self.send(ShowFreeSpace(), "free space")

    def action_filter_queue(self) -> None:
        queue = self.query_one(QueueList)
        self.push_screen(commands.filter_form(queue.filter), self._filtered)

    def _filtered(self, chosen: QueueFilter | None) -> None:
        if chosen is not None:
            self.query_one(QueueList).set_filter(chosen if chosen.text else None)

    def action_find_job(self) -> None:
        self.push_screen(commands.job_form("Find job"), self._found)

    def _found(self, job_id: int | None) -> None:
        if job_id is not None:
            self._inspect_job(job_id)

    def action_help(self) -> None:
        self.push_screen(commands.help_screen(self))

    # ------------------------------------------------------------------ operator actions

    def _act(self, action: Action, label: str) -> None:
        self.send(Act(action), label)

    def action_submit_job(self) -> None:
        self.push_screen(commands.submit_form(self.machine), self._submitted)

    def _submitted(self, action: Submit | None) -> None:
        if action is not None:
            self._act(action, "submit")

    def _job_action(self, cls: type, label: str) -> None:
        job_id = self._selected_job()
        if job_id is None:
            self.notify("select a job in the queue or the running table first", severity="warning")
            return
        self._act(cls(time=0.0, job_id=job_id), label)

    def action_hold(self) -> None:
        self._job_action(Hold, "hold")

    def action_release(self) -> None:
        self._job_action(ReleaseHold, "release")

    def action_cancel_job(self) -> None:
        job_id = self._selected_job()
        if job_id is None:
            self._job_action(Cancel, "cancel")
            return
        self._vet(Cancel(time=0.0, job_id=job_id), "cancel")

    def action_fail_unit(self) -> None:
        self._vet(commands.fail_action(self.machine, self.query_one(MachineMap).cursor), "fail")

    def _vet(self, action: Action, label: str) -> None:
        """Ask the engine whether ``action`` could apply now; the answer
        (:class:`~meshsim.tui.requests.Vetted`) opens the confirmation, a refusal is shown instead
        of it (:meth:`confirm_action`)."""
        self.send(Vet(action), label)

    def confirm_action(self, vetted: Vetted, label: str) -> None:
        """Ask before a destructive action the engine has found possible; apply it on yes."""
        self._confirm(vetted.title, vetted.question, partial(self._act, vetted.action, label))

    def _confirm(self, title: str, question: str, then: Any) -> None:
        """Ask before a destructive action; ``then()`` runs only on yes."""

        def answered(yes: bool | None) -> None:
            if yes:
                then()

        self.push_screen(ConfirmScreen(title, question), answered)

    def action_repair_unit(self) -> None:
        cell = self.query_one(MachineMap).cursor
        self._act(commands.repair_action(self.machine, cell), "repair")

    def action_reserve(self) -> None:
        cell = self.query_one(MachineMap).cursor
        self.push_screen(commands.reserve_form(self.machine, cell), self._reserved)

    def _reserved(self, values: dict[str, Any] | None) -> None:
        if values is not None:
            self._confirm(
                "Drain a block",
                commands.reserve_question(values),
                partial(
                    self.send,
                    ReserveBlock(
                        values["block"], values["start"], values["length"], values["on_job"]
                    ),
                    "reserve",
                ),
            )

    def action_reservations(self) -> None:
        """The reservations list (Cobalt's ``showres``, Slurm's ``scontrol show res``)."""
        if self.frame is not None:
            self.push_screen(reservations_report(self.frame.snapshot))

    def action_policy(self) -> None:
        if self.frame is not None:
            form = commands.policy_form(self.machine, self.frame.snapshot.policy)
            self.push_screen(form, self._policy)

    def _policy(self, changes: dict[str, str] | None) -> None:
        if changes:
            self._act(SetPolicy(time=0.0, **changes), "policy")

    def set_policy(self, **changes: str) -> None:
        """Change one policy field from now on (used by the command palette)."""
        self._act(SetPolicy(time=0.0, **changes), "policy")

    def action_quit(self) -> None:  # type: ignore[override]
        """``q`` (and ``ctrl+q``): close the open dialog; on the main screen quit, asking first when
        operator actions were taken since the scenario was last saved."""
        if isinstance(self.screen, ModalScreen):
            self.screen.dismiss(None)
            return
        unsaved = (self.frame.actions if self.frame else 0) != self._saved_actions
        if not unsaved:
            self.exit()
            return
        self._confirm(
            "Quit",
            "Operator actions are not saved (ctrl+s saves the scenario). Quit anyway?",
            self.exit,
        )

    def action_undo(self) -> None:
        self.send(Undo(), "undo")

    # ------------------------------------------------------------------ what-if, files

    def action_what_if(self) -> None:
        if self.frame is not None:
            snap = self.frame.snapshot
            form = commands.what_if_form(self.machine, snap.policy, snap.time)
            self.push_screen(form, self._what_if)

    def _what_if(self, change: WhatIf | None) -> None:
        if change is not None:
            self.run_long(change, "what-if", "What-if: running both branches")

    def action_save_scenario(self) -> None:
        self.push_screen(
            commands.path_form("Save scenario", self._default_name("json")), self._save
        )

    def _save(self, path: Path | None) -> None:
        if path is not None:
            self.send(Save(path), "saved")

    def action_export(self) -> None:
        self.push_screen(
            commands.path_form("Export results to folder", self._default_name("")), self._export
        )

    def _export(self, folder: Path | None) -> None:
        if folder is not None:
            self.run_long(Export(folder), "exported", "Export: running a copy to the end")

    def action_screenshot_svg(self) -> None:
        path = Path(self.save_screenshot(filename=self._default_name("svg")))
        self.notify(f"screenshot saved to {path}")

    def _default_name(self, suffix: str) -> str:
        event = self.frame.snapshot.event if self.frame else 0
        name = f"meshsim-{self.machine.name}-event{event}"
        return f"{name}.{suffix}" if suffix else name

    def get_system_commands(self, screen: Screen) -> Any:
        yield from super().get_system_commands(screen)
        yield from commands.palette(self)


def make_app(
    options: RunOptions,
    *,
    scenario: Path | None = None,
    fps: float = 15.0,
    start_live: bool = False,
    event: int | None = None,
) -> MeshsimApp:
    """The console on ``options`` (or on a saved scenario, reopened at its position): its engine
    process is running and has built the session when this returns (a bad input raises the
    :class:`MeshsimError` here, before any screen). Given ``event``, the engine replays the run to
    that event before its first frame."""
    engine = EngineProcess(Opening(options, scenario, fps=fps, event=event))
    return MeshsimApp(engine, start_live=start_live)
