"""The frames' wire form (tui/wire.py): whole frames come back equal, each waiting job crosses once,
skipped frames still teach their jobs, replayed jobs are sent again, and both sides' memories stay
bounded."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest

from meshsim.engine.core.jobs import Job
from meshsim.engine.tools.runcase import RunOptions
from meshsim.engine.tools.session import Session
from meshsim.tui import wire
from meshsim.tui.driver import Driver, Frame
from meshsim.tui.wire import FrameDecoder, FrameEncoder

ROOT = Path(__file__).resolve().parents[2]
MESH = RunOptions(
    machine=str(ROOT / "tests/data/mesh5x4.toml"),
    workload=str(ROOT / "tests/data/mesh-sides-small.toml"),
)


def _frames(steps: list[int]) -> tuple[Session, list[Frame]]:
    """Frames of one session after each number of further events in ``steps``."""
    session = Session(MESH)
    driver = Driver(session, lambda frame: None)
    frames = []
    for count in steps:
        session.step(count)
        frames.append(driver.frame(result="ok", label="x"))
    return session, frames


def _first_part(data: bytes) -> tuple[bool, int]:
    """A message's reset mark and how many jobs it carries."""
    (length,) = wire._LENGTH.unpack_from(data)
    reset, columns = pickle.loads(data[wire._LENGTH.size : wire._LENGTH.size + length])
    return reset, len(columns[0]) if columns else 0


def _jobs_sent(data: bytes) -> int:
    return _first_part(data)[1]


def test_a_frame_crosses_the_wire_whole() -> None:
    _, (frame,) = _frames([60])
    back = FrameDecoder().decode(FrameEncoder().encode(frame))
    snap, there = frame.snapshot, back.snapshot
    assert len(snap.waiting) > 1 and there.waiting == snap.waiting
    assert all(type(job) is Job for job in there.waiting)
    assert there.owners.tolist() == snap.owners.tolist() and not there.owners.flags.writeable
    assert dict(there.waits) == dict(snap.waits) and dict(there.metrics) == dict(snap.metrics)
    assert snap.waits, "the frame explains the head of the queue"
    assert (there.event, there.time, there.running, there.recent, there.held) == (
        snap.event,
        snap.time,
        snap.running,
        snap.recent,
        snap.held,
    )
    assert (back.result, back.label, back.answers) == ("ok", "x", True)


def test_each_waiting_job_crosses_once() -> None:
    _, frames = _frames([60, 1, 1, 1])
    encoder, decoder = FrameEncoder(), FrameDecoder()
    sent = []
    for frame in frames:
        data = encoder.encode(frame)
        sent.append(_jobs_sent(data))
        assert decoder.decode(data).snapshot.waiting == frame.snapshot.waiting
    assert sent[0] == len(frames[0].snapshot.waiting)
    known = {job.index for job in frames[0].snapshot.waiting}
    for before, after, count in zip(frames, frames[1:], sent[1:], strict=False):
        new = [job for job in after.snapshot.waiting if job.index not in known]
        assert count == len(new) < len(after.snapshot.waiting)
        known |= {job.index for job in before.snapshot.waiting} | {j.index for j in new}


def test_a_skipped_frame_still_teaches_its_jobs() -> None:
    _, frames = _frames([40, 25, 25])
    encoder, decoder = FrameEncoder(), FrameDecoder()
    first, skipped, shown = (encoder.encode(frame) for frame in frames)
    decoder.decode(first)
    assert _jobs_sent(skipped) > 0
    decoder.learn(skipped)
    assert decoder.decode(shown).snapshot.waiting == frames[2].snapshot.waiting


def test_replayed_jobs_are_sent_again() -> None:
    session = Session(MESH)
    driver = Driver(session, lambda frame: None)
    encoder, decoder = FrameEncoder(), FrameDecoder()
    session.step(60)
    decoder.decode(encoder.encode(driver.frame()))
    session.back(5)
    frame = driver.frame()
    data = encoder.encode(frame)
    assert _jobs_sent(data) == len(frame.snapshot.waiting)
    assert decoder.decode(data).snapshot.waiting == frame.snapshot.waiting


def test_both_memories_stay_bounded_by_the_queue(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(wire, "PRUNE_SLACK", 0)
    _, frames = _frames([150] + [10] * 16)  # the queue grows, then drains to nothing
    encoder, decoder = FrameEncoder(), FrameDecoder()
    resets = 0
    for frame in frames:
        data = encoder.encode(frame)
        reset, count = _first_part(data)
        resets += reset
        assert not reset or count == len(frame.snapshot.waiting)
        assert decoder.decode(data).snapshot.waiting == frame.snapshot.waiting
        bound = 3 * len(frame.snapshot.waiting)
        assert len(encoder._sent) <= bound and len(decoder._jobs) == len(encoder._sent)
    assert resets >= 2 and not encoder._sent
