"""Table 5 of the NQS report (seed 004 §4): the expansion factor is (Σ execution + Σ wait) / Σ
execution per queue, as every row of the paper's table satisfies."""

from dataclasses import replace

import numpy as np
import pytest

import meshsim.engine.families.nqs.report  # noqa: F401
from meshsim.engine.core.policy import Policy
from meshsim.engine.kernel.reports import REPORTS
from meshsim.engine.kernel.simulation import Simulation
from meshsim.engine.tools.runcase import RunOptions, prepare
from meshsim.engine.topology.machines import load_machine
from meshsim.engine.workloads.workload import from_columns
from tests.conftest import DATA
from tests.engine.test_nqs import HEADER, MONDAY


def test_table5_expansion_factor_is_total_over_total():
    machine = load_machine(str(DATA / "nqs-small.toml"))
    # queue "low": a 16-node job runs 0-3600, a second one waits for it and runs 100 s
    w = from_columns(
        "ef",
        submit=np.zeros(2),
        queue=np.array([1, 1]),
        size=np.array([16, 16]),
        runtime=np.array([3600.0, 100.0]),
    )
    sim = Simulation(machine, replace(w, header=HEADER), Policy.for_machine(machine))
    sim.run()
    assert sim.start_times().tolist() == [0.0, 3600.0]
    table5 = next(t for t in REPORTS.get("nqs")(sim) if t.name == "table5")
    [row] = table5.rows
    assert row[0] == "low" and row[1] == "2"
    assert float(row[5]) == pytest.approx((3600 + 3700) / 3700, abs=0.05)  # not (1 + 37) / 2


TABLE5 = [
    "q4t",
    "q4s",
    "q8s",
    "q16s",
    "q32s",
    "q64s",
    "q32m",
    "q64m",
    "q128m",
    "q256m",
    "q1l",
    "q32l",
    "q64l",
    "q128l",
    "qf8s",
    "qf16s",
    "qf32s",
    "qf32m",
    "qf64m",
    "qf128m",
    "qf256m",
    "qf32l",
    "qf64l",
    "qf128l",
    "qf256l",
    "standby",
    "fstandby",
]


def test_paragon_sdsc_machine_is_the_papers():
    import re

    from meshsim.engine.families.nqs.allocator import nqs_config

    machine = load_machine("paragon-sdsc")
    config = nqs_config(machine)
    assert machine.nodes == 416
    assert {s.name: s.rect.nodes for s in config.node_sets} == {
        "16MB": 112,
        "32MB": 224,
        "32MB-short": 32,
    }
    assert config.interactive is not None and config.interactive.nodes == 32
    # 416 = 6 service + 10 I/O + 32 interactive + 368 batch
    assert 416 - 32 - sum(s.rect.nodes for s in config.node_sets) == 16
    batch = [q for q in config.queues if not q.interactive]
    assert [q.name for q in batch] == TABLE5
    limits = {"t": 0.25, "s": 1, "m": 4, "l": 12}
    for q in batch:
        rule = re.fullmatch(r"q(f?)(\d+)([tsml])", q.name)
        if rule is None:  # standby, fstandby: low priority, 12 hours
            assert q.priority == 0 and q.time_limit_s == 12 * 3600
            continue
        fat, nodes, kind = rule.groups()
        assert q.max_nodes == int(nodes) and q.time_limit_s == limits[kind] * 3600
        sets = set(config.group(q.group).prime) | set(config.group(q.group).nonprime)
        assert ("16MB" in sets) == (not fat)


def test_table5_from_the_recorded_waits_beside_the_simulated(tmp_path):
    """Queue low: job 2 waited 2 h in the log and 1 h in the replay (behind job 1's hour)."""
    log = tmp_path / "log.swf"
    log.write_text(
        f"; UnixStartTime: {int(MONDAY.timestamp())}\n; TimeZoneString: America/Chicago\n"
        "; Queue: 1 low\n"
        "1 0    0 3600 16 -1 -1 16 -1 -1 1 1 1 -1 1 2 -1 -1\n"
        "2 0 7200  100 16 -1 -1 16 -1 -1 1 1 1 -1 1 2 -1 -1\n"
    )
    sim = prepare(RunOptions(machine=str(DATA / "nqs-small.toml"), workload=str(log)))
    sim.run()
    tables = {t.name: t for t in REPORTS.get("nqs")(sim)}
    assert tables["table5-recorded"].rows == (("low", "2", "1.0", "0.5", "0.5", "2.9", "2.0"),)
    assert tables["table5"].rows[0][3] == "0.5"
