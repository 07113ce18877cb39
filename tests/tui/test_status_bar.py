"""The status bar's line: every field when it fits, then the counts and the machine dropped."""

from __future__ import annotations

from meshsim.engine.tools.runcase import RunOptions
from meshsim.engine.tools.session import Session
from meshsim.tui.driver import Frame
from meshsim.tui.widgets.status_bar import status_text

MESH = RunOptions(machine="tests/data/mesh5x4.toml", workload="tests/data/mesh-sides-small.toml")


def frame() -> Frame:
    session = Session(MESH, name="what-if")
    session.step(12)
    return Frame(session.snapshot(), session.name, False, 60.0)


def test_wide_status_has_every_field_and_the_session_name_verbatim() -> None:
    text = status_text(frame())
    for part in ("mesh5x4 [what-if]", "day 0", "event 12", "paused (speed ×60)", "waiting,"):
        assert part in text
    assert "idle nodes" in text


def test_narrow_status_keeps_the_counts_at_100_columns_and_time_event_state_policy_always() -> None:
    """Issue 22: at 100 columns the status bar lost its counts."""
    full = status_text(frame())
    policy = frame().snapshot.policy.label()
    for width in (len(full) - 1, 100, 80, 40):
        text = status_text(frame(), width)
        for part in ("day 0", "event 12", "paused", policy):
            assert part in text
    assert "mesh5x4" in status_text(frame(), len(full) - 1)
    at_100 = status_text(frame(), 100)
    assert len(at_100) <= 100 and " wait · " in at_100 and " idle" in at_100
    assert "wait" not in status_text(frame(), 60)


def test_the_counts_stay_at_100_columns_on_day_10_after_event_6215() -> None:
    """Seen on Intrepid in tmux: a two-digit day and a four-digit event pushed the counts out."""
    session = Session(RunOptions(machine="intrepid"), name="console")
    session.goto_time(10 * 86400 + 11 * 3600 + 55 * 60 + 6)
    text = status_text(Frame(session.snapshot(), session.name, False, 3600.0), 100)
    assert text.startswith(" day 10 11:55:06 │ event 62") and " wait · " in text
    assert "❚❚ ×3600" in text and len(text) <= 100
