"""The waiting queue's fit to its pane: every column and the reason beside them when wide, the
reason on a line of its own when not, the narrow columns when even those do not fit; and the
operator's views of it (issue 22): filter, sort, sections for held and blocked jobs, totals per
user, priorities without scientific notation (``prio 9.05e+05`` before)."""

from __future__ import annotations

import pytest

from meshsim.engine.allocation.allocator import DOWN
from meshsim.engine.core.errors import MeshsimError
from meshsim.engine.kernel.actions import Fail, Hold
from meshsim.engine.tools.runcase import RunOptions
from meshsim.engine.tools.session import Session
from meshsim.engine.topology.units import unit_count
from meshsim.tui.format import compact
from meshsim.tui.queue_view import Section, in_service, parse_filter, queue_rows, user_totals
from meshsim.tui.widgets.queue_list import COLUMNS, NARROW, REASON_MIN, fit

FULL = sum(w for _, w in COLUMNS)


def test_a_wide_pane_has_every_column_and_the_reason_beside_them() -> None:
    assert fit(FULL + REASON_MIN) == (COLUMNS, 1)


def test_a_pane_too_narrow_for_the_reason_puts_it_below_each_job() -> None:
    assert fit(FULL + REASON_MIN - 1) == (COLUMNS, 2)
    assert fit(FULL) == (COLUMNS, 2)


def test_a_pane_narrower_than_the_columns_keeps_the_narrow_ones() -> None:
    columns, lines = fit(FULL - 1)
    assert lines == 2
    assert tuple(name for name, _ in columns) == NARROW
    assert sum(w for _, w in columns) <= 38, "fits the queue pane of an 80-column terminal"


# ---------------------------------------------------------------------- issue 22: operator views


def _session_with_a_queue() -> Session:
    session = Session(RunOptions(), name="queue")
    session.goto_event(3000)
    return session


def test_a_filter_keeps_the_jobs_all_its_words_hold_for() -> None:
    snap = _session_with_a_queue().snapshot()
    big = queue_rows(snap, parse_filter("size>=16000"), "#", False)
    assert big and all(job.size >= 16000 for job in big)
    user = snap.waiting[0].user
    mine = queue_rows(snap, parse_filter(f"user={user} size>=1"), "#", False)
    assert [j.job_id for j in mine] == [j.job_id for j in snap.waiting if j.user == user]
    assert [j.job_id for j in queue_rows(snap, parse_filter("1450"), "#", False)] == [1450]
    with pytest.raises(MeshsimError, match="unknown field 'colour'"):
        parse_filter("colour=red")


def test_sorting_by_any_column_either_way() -> None:
    snap = _session_with_a_queue().snapshot()
    by_size = queue_rows(snap, None, "size", False)
    assert [j.size for j in by_size] == sorted(j.size for j in snap.waiting)
    waited = queue_rows(snap, None, "wait", True)
    assert [j.submit for j in waited] == sorted(j.submit for j in snap.waiting)
    assert queue_rows(snap, None, "#", False) is snap.waiting, "the default view costs nothing"


def test_held_and_blocked_jobs_have_sections_of_their_own() -> None:
    session = _session_with_a_queue()
    held = session.snapshot().waiting[-1]
    session.act_now(Hold(time=0.0, job_id=held.job_id))
    largest = max(job.size for job in session.snapshot().waiting)
    for cell in range(unit_count(session.machine)):
        if in_service(session.snapshot()) < largest:
            break
        session.act_now(Fail(time=0.0, unit=cell))
    snap = session.snapshot()
    service = in_service(snap)
    down = int((snap.owners == DOWN).sum())
    assert service == snap.machine.nodes - 512 * down < largest
    rows = queue_rows(snap, None, "#", False)
    titles = [row.title for row in rows if isinstance(row, Section)]
    assert titles[0].startswith("── waiting · ")
    blocked = [t for t in titles if t.startswith(f"── blocked: larger than the {service:,} nodes")]
    assert blocked and blocked[0].endswith(f" · {sum(j.size > service for j in snap.waiting)} ──")
    assert titles[-1] == "── held by the operator · 1 ──" and rows[-1] == held
    only_held = queue_rows(snap, parse_filter("state=held"), "#", False)
    assert [r.job_id for r in only_held if not isinstance(r, Section)] == [held.job_id]


def test_per_user_totals_add_up_to_the_queue_and_the_machine() -> None:
    snap = _session_with_a_queue().snapshot()
    totals = user_totals(snap)
    assert sum(t.waiting for t in totals) == len(snap.waiting)
    assert sum(t.waiting_nodes for t in totals) == sum(j.size for j in snap.waiting)
    assert sum(t.running for t in totals) == len(snap.running)
    assert totals == sorted(totals, key=lambda t: (-t.waiting_nodes, -t.running_nodes, t.user))


def test_priorities_never_show_in_scientific_notation() -> None:
    for value in (905_000.0, 1.44073e6, 3.2e-7, -2.5e9, 12.0):
        assert "e" not in compact(value).lower()
    assert compact(905_000.0) == "905k" and compact(1.44073e6) == "1.44M"
