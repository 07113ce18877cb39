"""Issue 22, item 1 (metrics): the what-if signs each gain by the metric's better direction, marks
it with an arrow as well as colour, and compares since the fork beside since day 0, counting the
jobs completed. The old table gave utilization ``0.7471 → 0.6909  +7.5%`` (a loss as a gain)."""

from __future__ import annotations

import pytest

from meshsim.engine.kernel.metrics import HIGHER, LOWER, METRIC_INFO, better_gain
from meshsim.tui.app import make_app
from meshsim.tui.commands import gain_text, what_if_report
from meshsim.tui.requests import WhatIfResult
from meshsim.tui.screens.report import ReportScreen

from .test_app import MESH, SIZE, fill, until


@pytest.mark.parametrize(
    ("metric", "base", "new", "gain"),
    [
        ("utilization", 0.7471, 0.6909, -0.0752),
        ("avg_wait_s", 2850.0, 1425.0, 0.5),
        ("jobs", 100, 110, 0.1),
        ("loss_of_capacity", 0.1, 0.12, -0.2),
    ],
)
def test_gains_are_positive_only_when_the_branch_is_better(metric, base, new, gain) -> None:  # type: ignore[no-untyped-def]
    assert better_gain(metric, base, new) == pytest.approx(gain, abs=1e-4)


def test_every_shown_metric_has_a_direction_or_none_on_purpose() -> None:
    assert METRIC_INFO["utilization"].better == HIGHER
    assert METRIC_INFO["avg_bsld"].better == LOWER
    assert better_gain("allocated_utilization", 0.5, 0.6) is None
    assert str(gain_text(-0.075)) == "▼ −7.5%" and str(gain_text(0.1)) == "▲ +10.0%"


async def test_the_what_if_table_shows_losses_as_losses_since_the_fork_and_day_0() -> None:
    app = make_app(MESH)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.frame is not None)
        await pilot.press("N")
        await pilot.press("w")
        await fill(pilot, app, {"backfill": "easy"})
        await until(pilot, lambda: isinstance(app.screen, ReportScreen), timeout=30)
        result = app.frame.result
        assert isinstance(result, WhatIfResult)
        body = app.screen.plain_text()
    assert "fork: base" in body and "day 0: base" in body and "jobs completed" in body
    comparison = result.comparison
    assert comparison.since_fork[0].name == "jobs"
    for d in (*comparison.since_fork, *comparison.since_start):
        if d.gain is None or abs(d.gain) < 0.0005:
            continue
        better = METRIC_INFO[d.name].better
        up = (d.branch > d.base) == (better == HIGHER)
        assert (d.gain > 0) == up, d
    lines = what_if_report(result).plain_text(100).splitlines()
    row = next(line for line in lines if line.lstrip().startswith("utilization"))
    for d in (comparison.since_fork[5], comparison.since_start[5]):
        assert d.name == "utilization"
        arrow = "= 0.0%" if abs(d.gain) < 0.0005 else "▲ +" if d.gain > 0 else "▼ −"
        assert arrow in row, "a utilization loss reads as a loss, without colour too"
        assert (d.gain < 0) == (d.branch < d.base)
