"""The issue-4 and issue-5 speed scenarios of ``meshsim bench`` run what they say (timings are not
asserted)."""

import pytest

from meshsim.engine.tools.bench import INTREPID_MONTH, SCENARIOS, contention_50
from meshsim.engine.topology.machines import load_machine
from meshsim.engine.workloads.generators import load_workload


def test_scenarios_are_registered_with_the_issue_targets() -> None:
    for name, target in (
        ("intrepid-month", "< 3 s (issue 4)"),
        ("mc-mesh32", "< 5 s (issue 5)"),
        ("contention-50", "< 50 ms (issue 5)"),
    ):
        scenario = SCENARIOS.get(name)
        assert scenario.target == target and not scenario.heavy


def test_intrepid_month_is_10000_jobs_of_one_month(tmp_path) -> None:
    spec = tmp_path / "w.toml"
    spec.write_text(INTREPID_MONTH)
    w = load_workload(str(spec), load_machine("intrepid"))
    assert len(w) == 10_000
    assert w.submit[-1] - w.submit[0] <= 30 * 86400


def test_contention_scenario_reports_its_parts() -> None:
    r = contention_50()
    assert r["jobs"] == 50 and r["pairs"] == 50 * 20 * 32
    parts = r["route_ms"] + r["recompute_ms"] + r["runtime_ms"]
    assert r["wall_s"] * 1e3 == pytest.approx(parts)


def test_the_engine_only_timing_script_runs(tmp_path) -> None:
    """``nasa-easy`` times the engine alone with a script run in a fresh interpreter."""
    import subprocess
    import sys

    from meshsim.engine.tools.bench import _ENGINE_ONLY
    from tests.conftest import DATA

    script = _ENGINE_ONLY.format(trace=str(DATA / "tiny.swf"))
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
