"""The one worker that drives a live simulation (DESIGN.md, "Console").

:class:`Driver` owns the :class:`~engine.session.Session`. The UI thread never touches it: it
sends commands through a thread-safe queue (:meth:`Driver.send`), and the driver answers with
immutable :class:`Frame`\\ s through a ``publish`` callback (the app turns them into messages).

In pause mode the driver waits for commands; each command is followed by one frame. In live mode
it advances the simulation in chunks and publishes a frame at a steady rate (``fps``), at a
chosen speed in simulated seconds per wall second, or as fast as it can (``speed = inf``). A
command received while live is carried out between two chunks, so the UI never waits for the
engine.

Paced mode (``paced=True``, what the console uses): after publishing a live frame the driver
sleeps until the UI calls :meth:`Driver.shown` (at most :data:`SHOWN_WAIT` seconds), then runs
the engine for the rest of the frame's period, and at least :data:`ENGINE_RATIO` times as long
as the UI took to show the frame, as long as frames still come :data:`MIN_FPS` times a second:
a slow UI lowers the frame rate from ``fps`` towards :data:`MIN_FPS` to leave the engine two
thirds of the time, never below.
The engine and the UI share one interpreter lock: without the pause every short wait of the UI
thread (each turn of its event loop) costs it a switch interval while the engine holds the lock,
and the console drew about 5 frames a second instead of 15.

This module does not import Textual, so it is tested on its own.
"""

from __future__ import annotations

import math
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from engine.errors import MeshsimError
from engine.session import Session
from engine.simulation import Snapshot

Command = Callable[[Session], Any]
"""Work for the engine worker: it gets the session; what it returns goes back in the frame."""

CHUNK = 64
"""Events processed between two looks at the wall clock in live mode."""

SHOWN_WAIT = 0.25
"""Longest wall time a paced driver waits for the UI to show a live frame."""

ENGINE_RATIO = 2.0
"""Engine time after a live frame, as a multiple of the time the UI took to show it (within
:data:`MIN_FPS`)."""

MIN_FPS = 12.0
"""The frame rate a paced driver keeps in live mode whatever the UI costs: a margin above the
10 frames a second the console promises, for the chunk and the snapshot that end a frame after
its deadline."""

METRICS_EVERY = 0.5
"""Wall seconds between two computations of the result metrics in live mode (about 3 ms each
on a 10,000-job Intrepid month); paused frames always carry fresh ones."""


@dataclass(frozen=True, eq=False)
class Frame:
    """What the UI renders: a snapshot, the driver's state and the outcome of a command."""

    snapshot: Snapshot
    session: str
    live: bool
    speed: float
    events_per_second: float = 0.0
    metrics: dict[str, float | int] | None = None
    result: Any = None
    error: str | None = None
    label: str = ""


class Stop(Exception):
    """Raised inside the loop to end it."""


class Driver:
    """Owns one session; runs commands and live mode; publishes frames."""

    def __init__(
        self,
        session: Session,
        publish: Callable[[Frame], None],
        *,
        fps: float = 15.0,
        reasons: int = 40,
        paced: bool = False,
    ) -> None:
        self.session = session
        self._publish = publish
        self._commands: queue.SimpleQueue[tuple[str, Command] | None] = queue.SimpleQueue()
        self.frame_seconds = 1.0 / fps
        self.reasons = reasons
        self.live = False
        self.speed = math.inf
        self._anchor = (0.0, 0.0)
        self._rate = 0.0
        self._metrics: dict[str, float | int] | None = None
        self._metrics_at = -math.inf
        self._paced = paced
        self._shown = threading.Event()
        self._shown.set()
        self.live_frames = 0
        """Frames published in live mode (the console benchmark reads these counts)."""
        self.shown_frames = 0
        """Calls of :meth:`shown`: frames the UI has drawn."""

    # ------------------------------------------------------------------ UI thread side

    def send(self, command: Command, label: str = "") -> None:
        """Queue ``command`` for the worker (thread-safe)."""
        self._commands.put((label, command))

    def shown(self) -> None:
        """The UI has drawn the latest frame (thread-safe; paced mode waits for it)."""
        self.shown_frames += 1
        self._shown.set()

    def stop(self) -> None:
        """Ask the loop to end (thread-safe)."""
        self._commands.put(None)

    # ------------------------------------------------------------------ worker side

    def set_live(self, live: bool, speed: float | None = None) -> None:
        """Start or pause live mode (call through :meth:`send`)."""
        if speed is not None:
            if not speed > 0:
                raise MeshsimError(f"speed must be positive, got {speed:g}")
            self.speed = speed
        self.live = live and not self.session.done
        self._anchor = (time.perf_counter(), self.session.now)

    def frame(self, result: Any = None, error: str | None = None, label: str = "") -> Frame:
        """A frame of the current state; its result metrics are fresh when paused and at most
        :data:`METRICS_EVERY` seconds old when live."""
        clock = time.perf_counter()
        if not self.live or clock - self._metrics_at >= METRICS_EVERY:
            self._metrics = self.session.sim.results().metrics
            self._metrics_at = clock
        return Frame(
            self.session.snapshot(self.reasons),
            self.session.name,
            self.live,
            self.speed,
            self._rate,
            self._metrics,
            result,
            error,
            label,
        )

    def publish(self, result: Any = None, error: str | None = None, label: str = "") -> None:
        """Publish a frame of the current state."""
        self._publish(self.frame(result, error, label))

    def loop(self, cancelled: Callable[[], bool] = lambda: False) -> None:
        """Run until :meth:`stop` or ``cancelled()``: commands, live chunks, frames."""
        self.publish()
        try:
            while not cancelled():
                self._take_commands(block=not self.live)
                if self.live:
                    self._live_frame()
        except Stop:
            return

    def _take_commands(self, *, block: bool) -> None:
        try:
            item = self._commands.get(timeout=0.05) if block else self._commands.get_nowait()
        except queue.Empty:
            return
        while True:
            if item is None:
                raise Stop
            label, command = item
            try:
                result = command(self.session)
            except MeshsimError as exc:
                self.publish(error=str(exc), label=label)
            else:
                self.publish(result=result, label=label)
            try:
                item = self._commands.get_nowait()
            except queue.Empty:
                return

    def _live_frame(self) -> None:
        """Advance for one frame's worth of wall time, then publish."""
        session = self.session
        started = time.perf_counter()
        deadline = started + self.frame_seconds
        if self._paced:
            self._shown.wait(SHOWN_WAIT)
            shown = time.perf_counter()
            slowest = started + 1 / MIN_FPS
            deadline = max(deadline, min(shown + ENGINE_RATIO * (shown - started), slowest))
        first = session.events
        if math.isinf(self.speed):
            while time.perf_counter() < deadline and not session.done:
                session.sim.run(max_events=CHUNK)
        else:
            wall0, sim0 = self._anchor
            target = sim0 + self.speed * (deadline - wall0)
            while time.perf_counter() < deadline and session.next_time() <= target:
                session.run_until(target, max_events=CHUNK)
        elapsed = time.perf_counter() - started
        if elapsed < self.frame_seconds:
            time.sleep(self.frame_seconds - elapsed)
            elapsed = self.frame_seconds
        self._rate = (session.events - first) / elapsed
        if session.done:
            self.live = False
        self._shown.clear()
        self.live_frames += 1
        self.publish()
