"""The issue-3 speed scenarios of ``meshsim bench`` run what they say (timings are not asserted)."""

from meshsim.engine.tools.bench import (
    OO_SATURATION_RATE,
    SATURATED_RATE,
    SCENARIOS,
    _mesh32_workload,
)
from meshsim.engine.topology.machines import load_machine


def test_mesh32_scenarios_are_registered_with_their_targets() -> None:
    for key, target in (("oo", "< 3 s"), ("window", "< 5 s"), ("easy", "< 5 s")):
        light = SCENARIOS.get(f"mesh32-{key}")
        heavy = SCENARIOS.get(f"mesh32-{key}-heavy")
        assert not light.heavy and heavy.heavy
        assert light.target.startswith(target) and heavy.target == light.target


def test_mesh32_workload_is_seed_001_uniform_at_the_chosen_rate() -> None:
    machine = load_machine("mesh32")
    shipped = _mesh32_workload()(machine)
    faster = _mesh32_workload(OO_SATURATION_RATE)(machine)
    assert len(shipped) == len(faster) == 10_000
    for workload, rate in ((shipped, 2.5), (faster, OO_SATURATION_RATE)):
        span = workload.submit[-1] - workload.submit[0]
        assert 0.9 * rate < len(workload) / span < 1.1 * rate
    shapes = shipped.shapes
    assert shapes is not None and shapes.min() >= 1 and shapes.max() <= 32


def test_the_saturated_out_of_order_scenario_is_issue_23s_case() -> None:
    """Issue 23: 10,000 uniform-side jobs at 10 jobs per time unit, MPL + OO, within 3 s end to
    end; the workload it runs is the shipped one at that rate."""
    scenario = SCENARIOS.get("mesh32-oo-saturated")
    assert not scenario.heavy and scenario.target.startswith("< 3 s end to end")
    workload = _mesh32_workload(SATURATED_RATE)(load_machine("mesh32"))
    span = workload.submit[-1] - workload.submit[0]
    assert len(workload) == 10_000 and 9.0 < len(workload) / span < 11.0
