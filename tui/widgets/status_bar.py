"""The status bar: machine, simulated time, ``event N``, run/pause state, speed and policy."""

from __future__ import annotations

import math

from textual.widgets import Static

from tui.driver import Frame
from tui.format import clock


def speed_text(speed: float) -> str:
    """``max`` for as fast as possible, else simulated seconds per wall second."""
    return "max" if math.isinf(speed) else f"×{speed:g}"


def status_text(frame: Frame) -> str:
    """The one-line status for ``frame``."""
    snap = frame.snapshot
    if snap.done:
        state = "■ done"
    elif frame.live:
        state = f"▶ live {speed_text(frame.speed)} ({frame.events_per_second:,.0f} ev/s)"
    else:
        state = f"❚❚ paused (speed {speed_text(frame.speed)})"
    return (
        f" {snap.machine.name} [{frame.session}] │ {clock(snap.time)} │ event {snap.event} │ "
        f"{state} │ {snap.policy.label()} │ {len(snap.waiting)} waiting, "
        f"{len(snap.running)} running, {snap.free_nodes:,} idle nodes"
    )


class StatusBar(Static):
    """Shows :func:`status_text` of the latest frame."""

    DEFAULT_CSS = """
    StatusBar { height: 1; background: $primary-background; color: $text; }
    """

    def show(self, frame: Frame) -> None:
        self.update(status_text(frame))
