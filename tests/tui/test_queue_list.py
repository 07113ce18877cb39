"""The waiting queue's fit to its pane: every column and the reason beside them when wide, the
reason on a line of its own when not, the narrow columns when even those do not fit."""

from __future__ import annotations

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
