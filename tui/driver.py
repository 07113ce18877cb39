"""The one worker that drives a live simulation (DESIGN.md, "Console").

:class:`Driver` owns the :class:`~meshsim.engine.tools.session.Session`. Nothing else touches it:
commands come in through a thread-safe queue (:meth:`Driver.send`), and the driver answers with
immutable
:class:`Frame`\\ s through a ``publish`` callback. The console runs the driver in a process of its
own (:mod:`meshsim.tui.engine_process`), so the engine and the UI each have a core and an
interpreter lock, and the driver never waits for the UI.

Commands are the declared requests of :mod:`meshsim.tui.requests`, each carried out by the one
handler of its type. In pause mode the driver waits for commands; each command is followed by one
frame. In live mode it
advances the simulation in chunks of :data:`CHUNK` events and publishes a frame every ``1/fps``
seconds of wall time, at a chosen speed in simulated seconds per wall second, or as fast as it can
(``speed = inf``). A command received while live is carried out between two frames. A command that
raises is answered by a frame with the error (a :class:`MeshsimError`'s message, or the type and
message of any other exception); the session stays usable.

A long request (a go-to over thousands of events, a what-if, an export: a
:class:`~meshsim.tui.requests.LongRequest`) runs in chunks: between two it reports how far it is (a
:class:`Progress`, through the ``progress`` callback, at most every :data:`PROGRESS_EVERY` seconds)
and stops when the operator cancelled it (:meth:`Driver.cancel`, which another thread calls while
the request runs); a cancelled request raises :class:`Cancelled` and is answered like any failed
one, by its message.

Frames cross the pipe as bytes made by :mod:`meshsim.tui.wire`.

This module does not import Textual, so it is tested on its own."""

from __future__ import annotations

import math
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import Any

from meshsim.engine.core.errors import MeshsimError
from meshsim.engine.kernel.records import Snapshot
from meshsim.engine.kernel.waits import Wait, Watch
from meshsim.engine.tools.session import Session
from meshsim.tui.requests import Request, handle

CHUNK = 64
"""Events processed between two looks at the wall clock in live mode."""

METRICS_EVERY = 0.5
"""Wall seconds between two computations of the result metrics in live mode (about 3 ms each on a
10,000-job Intrepid month); paused frames always carry fresh ones."""

WAITS_EVERY = 0.5
"""Wall seconds between two computations of the waiting jobs' waits in live mode (the queue's
profile costs up to about 90 ms on a 2,800-job mesh32 queue); live frames in between carry the last
ones, paused frames always fresh ones."""

EXPLAINED = 40
"""Jobs at the head of the queue whose waits every frame carries (the rows a queue pane shows
first); the console asks for others (:meth:`Driver.watch_jobs`)."""

DEFAULT_SPEED = 3600.0
"""The live speed the console starts at: one simulated hour per wall second, so a month-long trace
runs in about twelve minutes and the map visibly changes from frame to frame (at ``max`` the whole
month passed in about a second and a new operator never saw the live view)."""


PROGRESS_EVERY = 0.1
"""Wall seconds between two progress reports of a long command."""


@dataclass(frozen=True)
class Progress:
    """How far the long command ``label`` is: ``done`` of 1, and what it is doing."""

    label: str
    done: float
    text: str


class Cancelled(MeshsimError):
    """The operator cancelled the long command that raises it."""


class Work:
    """What a long command is handed: report progress, and learn whether it was cancelled."""

    def __init__(
        self,
        label: str,
        ticket: int,
        report: Callable[[Progress], None],
        cancelled: Callable[[int], bool],
    ) -> None:
        self.label = label
        self._ticket = ticket
        self._report = report
        self._cancelled = cancelled
        self._last = -math.inf

    def report(self, done: float, text: str) -> None:
        """Say how far the command is (sent at most every :data:`PROGRESS_EVERY` seconds)."""
        clock = time.perf_counter()
        if clock - self._last >= PROGRESS_EVERY:
            self._last = clock
            self._report(Progress(self.label, max(0.0, min(1.0, done)), text))

    def check(self, what: str) -> None:
        """Raise :class:`Cancelled` (saying ``what`` was stopped) if the operator cancelled."""
        if self._cancelled(self._ticket):
            raise Cancelled(f"{what}: cancelled")


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
    actions: int = 0
    """Operator actions in the session's log (the console asks before quitting with unsaved
    ones)."""

    @property
    def answers(self) -> bool:
        """Whether the frame carries a command's result or error (never dropped on the way)."""
        return self.result is not None or self.error is not None


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
        explained: int = EXPLAINED,
        progress: Callable[[Progress], None] = lambda p: None,
    ) -> None:
        self.session = session
        self._publish = publish
        self._progress = progress
        self._cancelled: set[int] = set()
        self._lock = threading.Lock()
        self._label = ""
        self._commands: queue.SimpleQueue[tuple[str, Request] | None] = queue.SimpleQueue()
        self.frame_seconds = 1.0 / fps
        self.watch = Watch(first=explained)
        """The waiting jobs whose waits the frames carry."""
        self.live = False
        self.speed = DEFAULT_SPEED
        self._anchor = (0.0, 0.0)
        self._deadline = 0.0
        self._last = (0.0, 0)
        self._rate = 0.0
        self._metrics: dict[str, float | int] | None = None
        self._metrics_at = -math.inf
        self._waits: MappingProxyType[int, Wait] | None = None
        self._waits_at = -math.inf

    # ------------------------------------------------------------------ any thread

    def send(self, command: Request, label: str = "") -> None:
        """Queue ``command`` for the loop (thread-safe)."""
        self._commands.put((label, command))

    def stop(self) -> None:
        """Ask the loop to end (thread-safe)."""
        self._commands.put(None)

    def cancel(self, ticket: int) -> None:
        """Stop the long command with ``ticket``, running now or still queued (thread-safe)."""
        with self._lock:
            self._cancelled.add(ticket)

    def _is_cancelled(self, ticket: int) -> bool:
        with self._lock:
            return ticket in self._cancelled

    # ------------------------------------------------------------------ the loop's thread

    def work(self, ticket: int) -> Work:
        """What the long request with ``ticket`` that is being handled now reports to, under its
        label, and learns from whether it was cancelled."""
        return Work(self._label, ticket, self._progress, self._is_cancelled)

    def set_live(self, live: bool, speed: float | None = None) -> None:
        """Start or pause live mode (what a :class:`~meshsim.tui.requests.Live` request does)."""
        if speed is not None:
            if not speed > 0:
                raise MeshsimError(f"speed must be positive, got {speed:g}")
            self.speed = speed
        self.live = live and not self.session.done
        clock = time.perf_counter()
        self._anchor = (clock, self.session.now)
        self._deadline = clock + self.frame_seconds
        self._last = (clock, self.session.events)

    def watch_jobs(self, jobs: frozenset[int]) -> None:
        """Carry the waits of ``jobs`` (by index; the rows the console shows) as well as those of
        the first :data:`EXPLAINED`, from the next frame on."""
        self.watch = replace(self.watch, jobs=jobs)
        self._waits_at = -math.inf

    def frame(self, result: Any = None, error: str | None = None, label: str = "") -> Frame:
        """A frame of the current state; its result metrics and waits are fresh when paused and at
        most :data:`METRICS_EVERY` and :data:`WAITS_EVERY` seconds old when live."""
        clock = time.perf_counter()
        if not self.live or clock - self._metrics_at >= METRICS_EVERY:
            self._metrics = self.session.results().metrics
            self._metrics_at = clock
        if not self.live or self._waits is None or clock - self._waits_at >= WAITS_EVERY:
            snapshot = self.session.snapshot(self.watch)
            self._waits, self._waits_at = snapshot.waits, clock
        else:
            snapshot = replace(self.session.snapshot(), waits=self._waits)
        return Frame(
            snapshot,
            self.session.name,
            self.live,
            self.speed,
            self._rate,
            self._metrics,
            result,
            error,
            label,
            len(self.session.actions),
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
                    try:
                        self._live_frame()
                    except Exception as exc:
                        self.live = False
                        self.publish(error=error_text(exc), label="live")
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
                self._label = label
                result = handle(command, self)
            except Exception as exc:
                self.publish(error=error_text(exc), label=label)
            else:
                self.publish(result=result, label=label)
            try:
                item = self._commands.get_nowait()
            except queue.Empty:
                return

    def _live_frame(self) -> None:
        """Advance until the next frame is due (at least one chunk), then publish. Frames are due
        every ``1/fps`` seconds from going live; a frame that comes late moves the ones after it, so
        frames never bunch up."""
        session = self.session
        deadline = self._deadline
        if math.isinf(self.speed):
            session.run(max_events=CHUNK)
            while time.perf_counter() < deadline and not session.done:
                session.run(max_events=CHUNK)
        else:
            wall0, sim0 = self._anchor
            target = sim0 + self.speed * (deadline - wall0)
            while session.peek() <= target:
                session.run_until(target, max_events=CHUNK)
                if time.perf_counter() >= deadline:
                    break
        clock = time.perf_counter()
        if clock < deadline:
            time.sleep(deadline - clock)
            clock = deadline
        then, events = self._last
        self._rate = (session.events - events) / max(clock - then, 1e-9)
        self._last = (clock, session.events)
        self._deadline = max(deadline + self.frame_seconds, clock)
        if session.done:
            self.live = False
        self.publish()


def error_text(exc: Exception) -> str:
    """What the operator reads about a failed command: an engine error's own message, else the
    exception's type and message (an internal error, shown instead of ending the console)."""
    if isinstance(exc, MeshsimError):
        return str(exc)
    return f"internal error: {type(exc).__name__}: {exc}"
