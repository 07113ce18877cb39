"""The engine worker on its own (no Textual): commands, errors, live mode, frame rate, stop."""

from __future__ import annotations

import math
import threading
import time

import engine.catalog  # noqa: F401
from engine.errors import MeshsimError
from engine.runcase import RunOptions
from engine.session import Session
from tui.driver import SHOWN_WAIT, Driver, Frame

MESH = RunOptions(machine="tests/data/mesh5x4.toml", workload="tests/data/mesh-sides-small.toml")


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


def start(driver: Driver) -> threading.Thread:
    thread = threading.Thread(target=driver.loop, daemon=True)
    thread.start()
    return thread


def test_commands_run_on_the_worker_and_each_publishes_a_frame() -> None:
    frames = Recorder()
    driver = Driver(Session(MESH), frames)
    thread = start(driver)
    frames.wait(lambda f: f.snapshot.event == 0)
    driver.send(lambda s: s.step(5) and "stepped", "step")
    frame = frames.wait(lambda f: f.label == "step")
    assert frame.snapshot.event == 5
    assert frame.result == "stepped"
    assert frame.metrics is not None and "avg_wait_s" in frame.metrics
    driver.stop()
    thread.join(5)
    assert not thread.is_alive()


def test_an_engine_error_comes_back_as_a_frame_not_an_exception() -> None:
    frames = Recorder()
    driver = Driver(Session(MESH), frames)
    thread = start(driver)

    def bad(session: Session) -> None:
        raise MeshsimError("no job 99")

    driver.send(bad, "find")
    frame = frames.wait(lambda f: f.label == "find")
    assert frame.error == "no job 99"
    driver.send(lambda s: s.step(1) and None, "after")
    assert frames.wait(lambda f: f.label == "after").snapshot.event == 1
    driver.stop()
    thread.join(5)


def test_live_mode_runs_to_the_end_at_full_speed_and_reports_its_rate() -> None:
    frames = Recorder()
    driver = Driver(Session(MESH), frames, fps=30)
    thread = start(driver)
    driver.send(lambda s: driver.set_live(True, math.inf))
    done = frames.wait(lambda f: f.snapshot.done, timeout=30)
    assert not done.live
    assert any(f.live for f in frames.frames)
    assert done.events_per_second > 0
    events = [f.snapshot.event for f in frames.frames]
    assert events == sorted(events)
    driver.stop()
    thread.join(5)


def test_live_mode_at_a_finite_speed_keeps_simulated_time_near_wall_time() -> None:
    frames = Recorder()
    driver = Driver(Session(MESH), frames, fps=20)
    thread = start(driver)
    driver.send(lambda s: driver.set_live(True, 10.0))
    first = frames.wait(lambda f: f.live)
    time.sleep(0.6)
    driver.send(lambda s: driver.set_live(False), "pause")
    paused = frames.wait(lambda f: f.label == "pause")
    assert not paused.live
    elapsed_sim = paused.snapshot.time - first.snapshot.time
    assert elapsed_sim <= 10.0 * 1.5, "never runs ahead of speed × wall time"
    assert not paused.snapshot.done
    driver.stop()
    thread.join(5)


def test_a_speed_must_be_positive() -> None:
    frames = Recorder()
    driver = Driver(Session(MESH), frames)
    thread = start(driver)
    driver.send(lambda s: driver.set_live(True, 0.0), "speed")
    assert "speed must be positive" in frames.wait(lambda f: f.label == "speed").error
    driver.stop()
    thread.join(5)


def test_paced_live_mode_waits_for_the_ui_to_show_a_frame_before_the_next() -> None:
    frames = Recorder()
    driver = Driver(Session(MESH), frames, fps=50, paced=True)
    thread = start(driver)
    driver.send(lambda s: driver.set_live(True, 10.0))
    frames.wait(lambda f: f.live)
    time.sleep(SHOWN_WAIT / 3)
    published = driver.live_frames
    time.sleep(SHOWN_WAIT / 3)
    assert driver.live_frames == published, "no new live frame before the UI has shown one"
    driver.shown()
    frames.wait(lambda f: f.live and driver.live_frames > published)
    assert driver.shown_frames == 1
    time.sleep(SHOWN_WAIT * 1.5)
    assert driver.live_frames >= published + 2, "an unshown frame holds the driver back briefly"
    driver.stop()
    thread.join(5)
