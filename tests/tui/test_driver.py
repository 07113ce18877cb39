"""The engine worker on its own (no Textual): commands, errors, live mode, frame rate, stop; the
engine process (start, commands, errors, ending, no Textual). The wire is in test_wire.py."""

from __future__ import annotations

import math
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from meshsim.engine.core.errors import MeshsimError
from meshsim.engine.tools.runcase import RunOptions
from meshsim.engine.tools.session import Session
from meshsim.tui.driver import Driver, Frame
from meshsim.tui.engine_process import EngineProcess, Opening
from meshsim.tui.requests import GoToEvent, Live, Query, Request, Step, handle

ROOT = Path(__file__).resolve().parents[2]
MESH = RunOptions(
    machine=str(ROOT / "tests/data/mesh5x4.toml"),
    workload=str(ROOT / "tests/data/mesh-sides-small.toml"),
)


class Recorder:
    """Collects frames and lets a test wait for one that satisfies a condition."""

    def __init__(self) -> None:
        self.frames: list[Frame] = []
        self._cond = threading.Condition()

    def __call__(self, frame: Frame) -> None:
        with self._cond:
            self.frames.append(frame)
            self._cond.notify_all()

    def wait(self, test, timeout: float = 10.0) -> Frame:  # type: ignore[no-untyped-def]
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                for frame in self.frames:
                    if test(frame):
                        return frame
                left = deadline - time.monotonic()
                assert left > 0, "no such frame in time"
                self._cond.wait(left)


@dataclass(frozen=True)
class LoadedUILibraries(Request):
    """A test's own request: the UI libraries the engine process has loaded."""


@handle.register(LoadedUILibraries)
def _loaded_ui_libraries(request: LoadedUILibraries, driver: Driver) -> list[str]:
    return sorted(name for name in sys.modules if name.split(".")[0] in ("textual", "rich"))


@contextmanager
def running(**options: float) -> Iterator[tuple[Driver, Recorder]]:
    """A driver on a fresh session, looping on a thread of its own; stopped and joined after."""
    frames = Recorder()
    driver = Driver(Session(MESH), frames, **options)
    thread = threading.Thread(target=driver.loop, daemon=True)
    thread.start()
    try:
        yield driver, frames
    finally:
        driver.stop()
        thread.join(5)
    assert not thread.is_alive()


def test_commands_run_on_the_worker_and_each_publishes_a_frame() -> None:
    with running() as (driver, frames):
        frames.wait(lambda f: f.snapshot.event == 0)
        driver.send(Step(5), "step")
        frame = frames.wait(lambda f: f.label == "step")
        assert frame.snapshot.event == 5
        assert frame.metrics is not None and "avg_wait_s" in frame.metrics
        driver.send(Query("events"), "count")
        assert frames.wait(lambda f: f.label == "count").result == 5


def test_an_engine_error_comes_back_as_a_frame_not_an_exception() -> None:
    with running() as (driver, frames):
        driver.send(Query("explain", (99_999,)), "find")
        frame = frames.wait(lambda f: f.label == "find")
        assert frame.error == "no job 99999"
        driver.send(Step(1), "after")
        assert frames.wait(lambda f: f.label == "after").snapshot.event == 1


def test_live_mode_runs_to_the_end_at_full_speed_and_reports_its_rate() -> None:
    with running(fps=30) as (driver, frames):
        driver.send(Live(True, math.inf))
        done = frames.wait(lambda f: f.snapshot.done, timeout=30)
        assert not done.live
        assert any(f.live for f in frames.frames)
        assert done.events_per_second > 0
        events = [f.snapshot.event for f in frames.frames]
        assert events == sorted(events)


def test_live_mode_at_a_finite_speed_keeps_simulated_time_near_wall_time() -> None:
    with running(fps=20) as (driver, frames):
        driver.send(Live(True, 10.0))
        first = frames.wait(lambda f: f.live)
        time.sleep(0.6)
        driver.send(Live(False), "pause")
        paused = frames.wait(lambda f: f.label == "pause")
        assert not paused.live
        elapsed_sim = paused.snapshot.time - first.snapshot.time
        assert elapsed_sim <= 10.0 * 1.5, "never runs ahead of speed × wall time"
        assert not paused.snapshot.done


def test_a_speed_must_be_positive() -> None:
    with running() as (driver, frames):
        driver.send(Live(True, 0.0), "speed")
        assert "speed must be positive" in frames.wait(lambda f: f.label == "speed").error


def test_any_other_exception_in_a_command_comes_back_as_an_internal_error() -> None:
    with running() as (driver, frames):
        driver.send(Query("explain"), "bug")
        assert frames.wait(lambda f: f.label == "bug").error.startswith("internal error: TypeError")
        driver.send(Step(2), "after")
        assert frames.wait(lambda f: f.label == "after").snapshot.event == 2


def test_live_frames_come_at_the_chosen_rate_without_waiting_for_anyone() -> None:
    with running(fps=20) as (driver, frames):
        driver.send(Live(True, 1.0))
        frames.wait(lambda f: f.live)
        time.sleep(1.0)
        driver.send(Live(False), "pause")
        frames.wait(lambda f: f.label == "pause")
        live = sum(f.live for f in frames.frames)
        assert 12 <= live <= 22, live


# ---------------------------------------------------------------------- the engine process


class Collector:
    """What a UI gets from an engine process: frames and, at most once, why it ended."""

    def __init__(self, engine: EngineProcess) -> None:
        self.frames = Recorder()
        self.ended: list[str] = []
        engine.listen(self.frames, self.ended.append)


def test_the_engine_process_runs_commands_and_never_loads_textual() -> None:
    engine = EngineProcess(Opening(MESH))
    try:
        assert engine.first.snapshot.event == 0
        got = Collector(engine)
        engine.send(Step(5), "step")
        assert got.frames.wait(lambda f: f.label == "step").snapshot.event == 5
        engine.send(GoToEvent(99_999_999), "no")
        engine.send(Query("explain"), "bug")
        assert got.frames.wait(lambda f: f.label == "bug").error.startswith("internal error")
        engine.send(LoadedUILibraries(), "modules")
        assert got.frames.wait(lambda f: f.label == "modules").result == []
    finally:
        engine.stop()
    assert not engine.process.is_alive() and engine.process.exitcode == 0
    assert got.ended == [], "a stopped engine is not reported as lost"


def test_every_answer_arrives_while_live_frames_pour_in() -> None:
    engine = EngineProcess(Opening(MESH, fps=200))
    try:
        got = Collector(engine)
        engine.send(Live(True, 1.0))
        got.frames.wait(lambda f: f.live)
        for number in range(20):
            engine.send(Query("events"), f"ask {number}")
        for number in range(20):
            got.frames.wait(lambda f, n=number: f.label == f"ask {n}")
        labels = [f.label for f in got.frames.frames if f.answers]
        assert labels == [f"ask {n}" for n in range(20)]
    finally:
        engine.stop()


def test_bad_inputs_fail_before_the_console_opens_and_leave_no_process() -> None:
    before = set(multiprocessing.active_children())
    with pytest.raises(MeshsimError, match="nosuch"):
        EngineProcess(Opening(RunOptions(machine="nosuch")))
    assert set(multiprocessing.active_children()) <= before


def test_the_engine_ends_when_the_ui_goes_away() -> None:
    engine = EngineProcess(Opening(MESH))
    engine._commands.close()
    engine.process.join(5)
    assert engine.process.exitcode == 0
    engine.stop()


def test_an_engine_that_dies_is_reported_once() -> None:
    engine = EngineProcess(Opening(MESH))
    got = Collector(engine)
    os.kill(engine.pid, signal.SIGKILL)
    deadline = time.monotonic() + 10
    while not got.ended and time.monotonic() < deadline:
        time.sleep(0.02)
    assert got.ended and "ended unexpectedly" in got.ended[0]
    with pytest.raises(MeshsimError, match="has ended"):
        engine.send(Step(1))
    engine.stop()
    assert got.ended == got.ended[:1]


def test_each_request_type_has_its_handler_and_an_unknown_query_is_refused() -> None:
    from meshsim.tui import requests

    declared = [
        cls
        for cls in vars(requests).values()
        if isinstance(cls, type) and issubclass(cls, Request) and cls is not Request
    ]
    assert all(
        requests.handle.dispatch(cls) is not requests.handle.dispatch(Request) for cls in declared
    )
    with running() as (driver, frames):
        driver.send(Query("__class__"), "sneaky")
        assert frames.wait(lambda f: f.label == "sneaky").error.startswith("unknown query")
