"""Statistics on hand-computed examples: Student-t intervals, relative gains, shares of gains."""

import math

import pytest

from meshsim.engine.tools.experiments.stats import (
    aggregate,
    fraction_above,
    gains,
    mean_ci,
    relative_gain,
    t975,
)
from meshsim.engine.tools.experiments.tables import CaseRow


def test_t_quantiles_from_the_table_and_between_entries():
    assert t975(1) == 12.7062
    assert t975(4) == 2.7764
    assert t975(30) == 2.0423
    assert t975(35) == pytest.approx(2.0301, abs=2e-4)  # exact 2.03011
    assert t975(200) == pytest.approx(1.9719, abs=2e-4)  # exact 1.97190
    assert t975(10**9) == pytest.approx(1.96, abs=1e-4)
    with pytest.raises(ValueError):
        t975(0)


def test_mean_ci_by_hand():
    # values 1..5: mean 3, s = sqrt(2.5), half = t(4) * s / sqrt(5) = 2.7764 * 0.70711 = 1.96321
    e = mean_ci([1, 2, 3, 4, 5])
    assert (e.mean, e.n) == (3.0, 5)
    assert e.ci95 == pytest.approx(1.963214, abs=1e-5)
    # two values 10, 14: s = 2.8284, half = 12.7062 * 2.8284 / 1.41421 = 25.4124
    assert mean_ci([10, 14]).ci95 == pytest.approx(25.4124, abs=1e-3)
    one = mean_ci([7.0])
    assert one.mean == 7.0 and math.isnan(one.ci95)


def test_relative_gain_rules():
    assert relative_gain(0.2, 0.15) == pytest.approx(0.25)
    assert relative_gain(100, 112) == pytest.approx(-0.12)
    assert relative_gain(0, 0) == 0.0
    assert math.isnan(relative_gain(0, 3))


def _row(cid, alloc, month, seed, loc, wait):
    values = {"alloc": alloc, "month": month, "seed": seed}
    return CaseRow(cid, values, "ok", None, {"loss_of_capacity": loc, "avg_wait_s": wait})


def test_gains_pair_each_case_with_its_baseline_and_count_positive_shares():
    rows = [
        _row("b1", "base", "mar", 1, 0.20, 100.0),
        _row("b2", "base", "apr", 1, 0.10, 50.0),
        _row("s1", "sl", "mar", 1, 0.15, 110.0),  # LoC gain 25 %, wait gain -10 %
        _row("s2", "sl", "apr", 1, 0.11, 40.0),  # LoC gain -10 %, wait gain 20 %
        _row("p1", "pf", "mar", 1, 0.18, 90.0),  # LoC gain 10 %, wait gain 10 %
        CaseRow("p2", {"alloc": "pf", "month": "apr", "seed": 1}, "failed", "boom", {}),
    ]
    keys = ["alloc", "month", "seed"]
    pairs = gains(rows, keys, {"alloc": "base"}, ["loss_of_capacity", "avg_wait_s"])
    assert [(g.row.case_id, g.base.case_id) for g in pairs] == [
        ("s1", "b1"),
        ("s2", "b2"),
        ("p1", "b1"),
    ]
    loc = [g.gains["loss_of_capacity"] for g in pairs]
    assert loc == pytest.approx([0.25, -0.1, 0.1])
    assert [g.gains["avg_wait_s"] for g in pairs] == pytest.approx([-0.1, 0.2, 0.1])
    assert fraction_above(loc) == pytest.approx(2 / 3)
    assert fraction_above(loc, 0.2) == pytest.approx(1 / 3)
    assert fraction_above([0.0, 0.0, 0.1]) == pytest.approx(1 / 3)  # strictly above
    assert math.isnan(fraction_above([]))


def test_aggregate_pools_replications_per_configuration():
    rows = [
        CaseRow("a", {"q": "fcfs", "seed": 1}, "ok", None, {"w": 1.0}),
        CaseRow("b", {"q": "fcfs", "seed": 2}, "ok", None, {"w": 3.0}),
        CaseRow("c", {"q": "wfp", "seed": 1}, "ok", None, {"w": 5.0}),
        CaseRow("d", {"q": "wfp", "seed": 2}, "failed", "x", {}),
    ]
    out = aggregate(rows, ["q"], ["w"])
    assert [c["q"] for c, _ in out] == ["fcfs", "wfp"]
    fcfs, wfp = out[0][1]["w"], out[1][1]["w"]
    assert (fcfs.mean, fcfs.n) == (2.0, 2)
    assert fcfs.ci95 == pytest.approx(12.7062 * math.sqrt(2) / math.sqrt(2))
    assert (wfp.mean, wfp.n) == (5.0, 1)
