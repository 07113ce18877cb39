"""The status bar: machine, simulated time, ``event N``, run/pause state, speed and policy.

On a narrow terminal the line keeps what fits: the queue and running counts go first (the pane
titles show them too), then the machine and session name (the map's header names the machine); time,
``event N``, the run state with its speed, and the policy always stay."""

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
    if snap.done:
        state = "■ done"
    elif frame.live:
        state = f"▶ live {speed_text(frame.speed)} ({frame.events_per_second:,.0f} ev/s)"
    else:
        state = f"❚❚ paused (speed {speed_text(frame.speed)})"
    who = f"{snap.machine.name} [{frame.session}]"
    counts = (
        f"{len(snap.waiting)} waiting, {len(snap.running)} running, {snap.free_nodes:,} idle nodes"
    )
    core = [clock(snap.time), f"event {snap.event}", state, snap.policy.label()]
    for fields in ([who, *core, counts], [who, *core], core):
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
