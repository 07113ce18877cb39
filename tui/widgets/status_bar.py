"""The status bar: machine, simulated time, ``event N``, run/pause state, speed, policy and the
waiting, running and idle counts.

On a narrow terminal the line keeps what fits, dropping in this order: the session name, the machine
(the map's header names it), the long forms of the state and the counts, the words ``live`` and
``paused`` (their symbols stay), then the counts (the pane titles show them too). Time, ``event N``,
the run state with its speed, and the policy always stay; at 100 columns the counts stay as well."""

from __future__ import annotations

import math

from textual.widgets import Static

from meshsim.tui.driver import Frame
from meshsim.tui.format import clock

SEPARATOR = " │ "


def speed_text(speed: float) -> str:
    """``max`` for as fast as possible, else simulated seconds per wall second."""
    return "max" if math.isinf(speed) else f"×{speed:g}"


def status_text(frame: Frame, width: int | None = None) -> str:
    """The one-line status for ``frame``, in at most ``width`` columns when it is given."""
    snap = frame.snapshot
    speed = speed_text(frame.speed)
    if snap.done:
        state = short_state = tiny_state = "■ done"
    elif frame.live:
        state = f"▶ live {speed} ({frame.events_per_second:,.0f} ev/s)"
        short_state, tiny_state = f"▶ live {speed}", f"▶ {speed}"
    else:
        state = f"❚❚ paused (speed {speed})"
        short_state, tiny_state = f"❚❚ paused {speed}", f"❚❚ {speed}"
    waiting, running = len(snap.waiting), len(snap.running)
    counts = f"{waiting:,} waiting, {running:,} running, {snap.free_nodes:,} idle nodes"
    short_counts = f"{waiting:,} wait · {running:,} run · {snap.free_nodes:,} idle"
    time, event, policy = clock(snap.time), f"event {snap.event}", snap.policy.label()
    machine = snap.machine.name
    variants = (
        [f"{machine} [{frame.session}]", time, event, state, policy, counts],
        [machine, time, event, state, policy, counts],
        [time, event, state, policy, counts],
        [time, event, short_state, policy, short_counts],
        [time, event, tiny_state, policy, short_counts],
        [time, event, short_state, policy],
    )
    for fields in variants:
        text = " " + SEPARATOR.join(fields)
        if width is None or len(text) <= width:
            return text
    return text


class StatusBar(Static):
    """Shows :func:`status_text` of the latest frame, fitted to the bar's width."""

    DEFAULT_CSS = """
    StatusBar { height: 1; background: $primary-background; color: $text; }
    """

    def __init__(self, **kwargs: object) -> None:
        super().__init__(markup=False, **kwargs)
        self._frame: Frame | None = None

    def show(self, frame: Frame) -> None:
        self._frame = frame
        self.update(status_text(frame, self.size.width), layout=False)

    def on_resize(self) -> None:
        if self._frame is not None:
            self.show(self._frame)
