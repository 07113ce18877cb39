"""``meshsim compare``: month splits, the AdjEst history window, cores to nodes, gains."""

import json
import subprocess
import sys

import pytest

from meshsim.engine.tools.compare import PRESETS, Config, Outcome, compare, gains, month_parts
from meshsim.engine.topology.machines import load_machine
from meshsim.engine.workloads.generators import load_workload
from tests.conftest import DATA

INTREPID = load_machine("intrepid")
MINI = DATA / "intrepid-mini.swf"


def test_month_split_history_window_and_cores_to_nodes():
    w = load_workload(str(MINI), INTREPID)
    assert w.size.tolist() == [512, 1024, 512, 2048, 512, 500]  # cores / 4, rounded up
    parts = month_parts(w)
    assert [(label, len(part)) for label, part, _ in parts] == [
        ("2009-01", 3),
        ("2009-02", 2),
        ("2009-03", 1),
    ]
    assert parts[0][2] is None
    assert len(parts[1][2]) == 3 and len(parts[2][2]) == 5  # jobs before each month


def test_adjest_learns_from_the_months_before():
    w = load_workload(str(MINI), INTREPID)
    configs = (
        Config("Base", {"allocator": "least-blocking"}),
        Config("AdjEst", {"allocator": "adjest"}, "Base"),
    )
    outcomes = compare(INTREPID, w, configs)
    assert {(o.config, o.part, o.jobs) for o in outcomes} == {
        (c, p, n)
        for c in ("Base", "AdjEst")
        for p, n in (("2009-01", 3), ("2009-02", 2), ("2009-03", 1))
    }
    from meshsim.engine.core.policy import Policy
    from meshsim.engine.families.partitions.allocator import AdjEst
    from meshsim.engine.kernel.simulation import Simulation

    _, march, before = month_parts(w)[2]
    sim = Simulation(INTREPID, march, Policy(allocator="adjest"), past=before)
    job = march.jobs()[0]  # user 1 has finished 3 jobs before March: ratios 0.5, 1/6, 1/3
    assert isinstance(sim.allocator, AdjEst)
    assert sim.allocator.walltime(job) == pytest.approx(
        1800 * (0.5 + 1800 / 3600 * 0 + 600 / 3600 + 1200 / 3600) / 3
    )


def test_gains_are_relative_to_the_baseline():
    configs = (Config("A", {}), Config("B", {}, "A"))
    outcomes = [
        Outcome("A", "m", 1, {"loss_of_capacity": 0.2, "avg_wait_s": 100.0, "avg_bsld": 4.0}),
        Outcome("B", "m", 1, {"loss_of_capacity": 0.1, "avg_wait_s": 150.0, "avg_bsld": 4.0}),
    ]
    [row] = gains(outcomes, configs)
    assert row["loss_of_capacity"] == pytest.approx(0.5)
    assert row["avg_wait_s"] == pytest.approx(-0.5)
    assert row["avg_bsld"] == 0.0
    assert len(PRESETS.get("tang2010")) == 12


def test_compare_command_end_to_end(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "meshsim", "compare", "--machine", "intrepid",
         "--workload", str(MINI), "--preset", "tang2010", "--workers", "1", "--out", str(tmp_path)],
        capture_output=True, text=True,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "relative gain in LoC" in done.stdout and "2009-02" in done.stdout
    doc = json.loads((tmp_path / "compare.json").read_text())
    assert len(doc["outcomes"]) == 36 and len(doc["gains"]) == 30
    assert (tmp_path / "gains.csv").read_text().splitlines()[0] == (
        "config,baseline,part,loss_of_capacity,avg_wait_s,avg_bsld"
    )
    bad = subprocess.run(
        [sys.executable, "-m", "meshsim", "compare", "--config", "x"],
        capture_output=True,
        text=True,
    )
    assert bad.returncode == 1 and "expected NAME:key=value" in bad.stderr


def test_compare_replays_a_job_count_cut(tmp_path):
    """Issue 23: ``--first`` and ``--skip`` cut the workload of every configuration alike; the
    output says how many of the N were replayed, and compare.json records the cut."""
    done = subprocess.run(
        [sys.executable, "-m", "meshsim", "compare", "--machine", "intrepid",
         "--workload", str(MINI), "--first", "5", "--skip", "1", "--whole",
         "--config", "a:queue=fcfs", "--config", "b:queue=wfp", "--workers", "1",
         "--out", str(tmp_path)],
        capture_output=True, text=True,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "records 2–6 (--first 5 --skip 1): 5 of 5 replayed" in done.stdout
    doc = json.loads((tmp_path / "compare.json").read_text())
    assert (doc["first"], doc["skip"]) == (5, 1)
    assert {o["jobs"] for o in doc["outcomes"]} == {5}
