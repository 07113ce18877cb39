"""The console's bounded metric history."""

from __future__ import annotations

import math

from meshsim.engine.kernel.series import Series


def test_a_time_on_a_bucket_edge_by_rounding_advances() -> None:
    start = 9.889731369590926
    t0 = start + 60.0
    assert (t0 - start) // 60.0 == 0.0, "the float case that once looped forever"
    series = Series(start)
    series.add(start, t0, 0.5, 1.0, 0.0)
    series.add(t0, t0 + 30.0, 1.0, 2.0, 0.0)
    view = series.view()
    assert len(view.times) == 2
    assert math.isclose(view.utilization[0], 0.5)
    assert math.isclose(view.utilization[1], 1.0)


def test_buckets_merge_and_keep_time_weighted_means() -> None:
    series = Series(0.0, capacity=4, width=10.0)
    series.add(0.0, 80.0, 1.0, 0.0, 0.0)
    series.add(80.0, 160.0, 0.0, 0.0, 0.0)
    view = series.view()
    assert series.width == 40.0
    assert view.utilization.tolist() == [1.0, 1.0, 0.0, 0.0]
