"""The console's engine in a process of its own (DESIGN.md, "Console").

The engine and the UI used to share one interpreter lock, so every millisecond the UI spent drawing
was a millisecond the engine stood still. Now :class:`EngineProcess` (UI side) starts a child
process that builds the :class:`~meshsim.engine.tools.session.Session` from an :class:`Opening` —
the run options or a scenario file, and the UI's working directory — and runs a
:class:`~meshsim.tui.driver.Driver` on it: each process has a core and a lock of its own.

Start method: ``forkserver`` with :data:`PRELOAD`. The UI process has threads (Textual's, the frame
reader), and forking a threaded process can copy a lock another thread holds; the fork server is a
fresh single-threaded interpreter that imports the engine once and then forks each engine process in
milliseconds (``spawn`` would import everything again for each console). Where ``forkserver`` does
not exist, ``spawn``.

The wire: two one-way pipes. UI → engine: ``(label, request)`` pickled (the declared requests of
:mod:`meshsim.tui.requests`), ``None`` to stop, or a :class:`~meshsim.tui.requests.CancelLong`
(handed to the driver at once, not queued: it stops a long request that is running). Engine → UI:
one kind byte, then the payload — :data:`PAUSED`, :data:`LIVE` or :data:`ANSWER` (a frame that
carries a command's result or error) followed by a :class:`~meshsim.tui.wire.FrameEncoder` message,
:data:`PROGRESS` followed by a pickled :class:`~meshsim.tui.driver.Progress` (how far a long request
is), or :data:`FAILED` followed by a UTF-8 message (the engine could not start, or ended on an
error).

A reader thread in the UI process hands frames to the app. When the UI falls behind it reads every
message waiting in the pipe but decodes and hands on only the newest frame, plus every frame that
answers a command, in order: stale frames never queue up, answers are never dropped. A skipped
frame's new waiting jobs are still taken (:meth:`~meshsim.tui.wire.FrameDecoder.learn`):
the wire sends each job once.

Ending: :meth:`EngineProcess.stop` asks the loop to stop, waits :data:`STOP_WAIT` seconds, then
terminates the process (a long export or what-if is abandoned). The engine process also ends when
its command pipe closes (the UI process is gone), and ignores SIGINT (Ctrl-C belongs to the UI,
which ends the engine itself). It never writes to the terminal: an exception becomes a
:data:`FAILED` message or, inside a command, an error frame.

This module does not import Textual."""

from __future__ import annotations

import contextlib
import ctypes
import multiprocessing
import os
import pickle
import signal
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from meshsim.engine.core.errors import MeshsimError
from meshsim.engine.tools.runcase import RunOptions
from meshsim.engine.tools.session import Session
from meshsim.tui.driver import Driver, Frame, Progress, error_text
from meshsim.tui.requests import CancelLong, Request, Unreadable
from meshsim.tui.wire import FrameDecoder, FrameEncoder

PRELOAD = ["meshsim.tui.engine_process", "meshsim.engine.catalog"]
"""What the fork server imports once for every engine process it forks (the catalog, so no engine
process pays for filling the registries)."""

MMAP_THRESHOLD = 128 * 1024
"""Bytes from which the engine process's C allocator maps each block on its own (returned to the
system when freed); see :func:`return_freed_memory`."""

_M_MMAP_THRESHOLD = -3
"""glibc's ``mallopt`` parameter number for the mmap threshold (``malloc.h``)."""

STOP_WAIT = 2.0
"""Seconds :meth:`EngineProcess.stop` waits for the engine to end before terminating it."""

PAUSED, LIVE, ANSWER, FAILED, PROGRESS = b"P", b"L", b"A", b"F", b"G"
"""Kinds of message from the engine: a paused frame, a live frame, a frame that answers a command,
the engine's failure, a long command's progress."""


@dataclass(frozen=True)
class Opening:
    """What the engine process builds its session from: the UI's own inputs, never a pickled
    session."""

    options: RunOptions
    scenario: Path | None = None
    cwd: str = field(default_factory=os.getcwd)
    fps: float = 15.0
    event: int | None = None
    """The event the console opens at (``meshsim tui --event``); None: the run's start, or a
    scenario's saved position."""

    def session(self) -> Session:
        """The session these inputs define (a scenario reopens at its saved position), taken to
        :attr:`event` when one is given."""
        if self.scenario is not None:
            session = Session.from_scenario(self.scenario)
        else:
            session = Session(self.options)
        if self.event is not None:
            session.goto_event(self.event)
        return session


def _context() -> Any:
    methods = multiprocessing.get_all_start_methods()
    if "forkserver" not in methods:
        return multiprocessing.get_context("spawn")
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(PRELOAD)
    return context


class EngineProcess:
    """UI side of the engine process: start it, send it commands, read its frames, end it.

    The constructor returns once the engine has published its first frame (:attr:`first`); when the
    session cannot be built it raises that :class:`MeshsimError` instead."""

    def __init__(self, opening: Opening) -> None:
        context = _context()
        commands_in, self._commands = context.Pipe(duplex=False)
        self._frames, frames_out = context.Pipe(duplex=False)
        self.process = context.Process(
            target=serve,
            args=(opening, commands_in, frames_out),
            name="meshsim-engine",
            daemon=True,
        )
        self.process.start()
        commands_in.close()
        frames_out.close()
        self._stopping = False
        self._decoder = FrameDecoder()
        self._reader: threading.Thread | None = None
        self.live_frames = 0
        """Live frames the engine published, including any the reader dropped as stale (the console
        benchmark reads this)."""
        try:
            data = self._frames.recv_bytes()
        except (EOFError, OSError):
            data = FAILED + self._gone().encode()
        if data[:1] == FAILED:
            self.stop()
            raise MeshsimError(data[1:].decode())
        self.first = self._decoder.decode(data[1:])

    @property
    def pid(self) -> int | None:
        return self.process.pid

    def listen(
        self,
        on_frame: Callable[[Frame], None],
        on_end: Callable[[str], None],
        on_progress: Callable[[Progress], None] = lambda p: None,
    ) -> None:
        """Start the reader thread: ``on_frame`` gets the first frame, then every frame the engine
        publishes (see the module's rule for a UI that falls behind); ``on_progress`` every
        progress report of a long command; ``on_end`` a message once if the engine ends without
        being stopped. All are called on the reader thread."""
        self._reader = threading.Thread(
            target=self._read,
            args=(on_frame, on_end, on_progress),
            name="meshsim-frames",
            daemon=True,
        )
        self._reader.start()

    def _read(
        self,
        on_frame: Callable[[Frame], None],
        on_end: Callable[[str], None],
        on_progress: Callable[[Progress], None],
    ) -> None:
        on_frame(self.first)
        frames = self._frames
        try:
            while True:
                batch = [frames.recv_bytes()]
                while frames.poll():
                    batch.append(frames.recv_bytes())
                last = len(batch) - 1
                for number, data in enumerate(batch):
                    kind = data[:1]
                    if kind == PROGRESS:
                        on_progress(pickle.loads(data[1:]))
                        continue
                    if kind == LIVE:
                        self.live_frames += 1
                    if kind == FAILED:
                        on_end(data[1:].decode())
                        return
                    if kind == ANSWER or number == last:
                        on_frame(self._decoder.decode(data[1:]))
                    else:
                        self._decoder.learn(data[1:])
        except (EOFError, OSError):
            if not self._stopping:
                on_end(self._gone())

    def _gone(self) -> str:
        self.process.join(STOP_WAIT)
        return f"the engine process ended unexpectedly (exit code {self.process.exitcode})"

    def send(self, command: Request, label: str = "") -> None:
        """Queue ``command`` for the engine, or hand it a :class:`~meshsim.tui.requests.CancelLong`
        (from one thread at a time: the UI's). Raises :class:`MeshsimError` when the engine has
        ended."""
        try:
            self._commands.send(command if isinstance(command, CancelLong) else (label, command))
        except (OSError, ValueError) as exc:
            raise MeshsimError("the engine process has ended; quit with q") from exc

    def stop(self) -> None:
        """End the engine process and the reader thread (idempotent): ask, wait
        :data:`STOP_WAIT` seconds, terminate, and kill as a last resort."""
        self._stopping = True
        if not self._commands.closed:
            with contextlib.suppress(OSError):
                self._commands.send(None)
            self._commands.close()
        process = self.process
        process.join(STOP_WAIT)
        if process.is_alive():
            process.terminate()
            process.join(STOP_WAIT)
        if process.is_alive():
            process.kill()
            process.join()
        if self._reader is not None and self._reader is not threading.current_thread():
            self._reader.join(STOP_WAIT)
        if not self._frames.closed and (self._reader is None or not self._reader.is_alive()):
            self._frames.close()


# ---------------------------------------------------------------------- engine side


def serve(opening: Opening, commands: Connection, frames: Connection) -> None:
    """The engine process: build the session, then run the driver until told to stop or the UI's end
    of the pipes closes."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    return_freed_memory()
    try:
        os.chdir(opening.cwd)
        session = opening.session()
    except Exception as exc:
        _tell(frames, FAILED + error_text(exc).encode())
        return

    encoder = FrameEncoder()

    def publish(frame: Frame) -> None:
        kind = ANSWER if frame.answers else LIVE if frame.live else PAUSED
        frames.send_bytes(kind + encoder.encode(frame))

    def progress(report: Progress) -> None:
        frames.send_bytes(PROGRESS + pickle.dumps(report))

    driver = Driver(session, publish, fps=opening.fps, progress=progress)
    threading.Thread(target=_forward, args=(commands, driver), daemon=True).start()
    try:
        driver.loop()
    except OSError:
        return
    except Exception as exc:
        _tell(frames, FAILED + f"the engine failed: {error_text(exc)}".encode())


def return_freed_memory() -> bool:
    """Fix the C allocator's mmap threshold at :data:`MMAP_THRESHOLD` (glibc only; returns whether
    it was set).

    Live frames carry the result metrics every :data:`~meshsim.tui.driver.METRICS_EVERY` seconds,
    which builds and frees arrays over every finished job (800 kB each at 100,000 jobs). glibc
    raises its mmap threshold to the size of each mapped block freed, so after the first such array
    the next ones come from the heap, which fragments and is not given back: over a 100,000-job live
    run the process kept 12 MB more than the same run without frames, with the same Python objects
    alive. A fixed threshold keeps large arrays mapped, and freeing one returns it."""
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    return bool(mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD))


def _tell(frames: Connection, data: bytes) -> None:
    with contextlib.suppress(OSError):
        frames.send_bytes(data)


def _forward(commands: Connection, driver: Driver) -> None:
    """Engine-process thread: move commands from the pipe to the driver's queue; stop the driver at
    ``None`` or when the pipe closes."""
    try:
        while True:
            data = commands.recv_bytes()
            try:
                item = pickle.loads(data)
            except Exception as exc:
                driver.send(Unreadable(f"{type(exc).__name__}: {exc}"))
                continue
            if item is None:
                break
            if isinstance(item, CancelLong):
                driver.cancel(item.ticket)
                continue
            label, command = item
            driver.send(command, label)
    except (EOFError, OSError):
        pass
    driver.stop()
