"""A finished run against its log (engine/recorded_run.py): the result JSON's ``recorded`` section,
worked out by hand on a six-job log, and the logs that get no fit."""

from dataclasses import replace

import numpy as np
import pytest

import meshsim
from meshsim.engine.core.policy import Policy
from meshsim.engine.kernel.simulation import Simulation
from meshsim.engine.logs.options import LogOptions
from meshsim.engine.logs.trace import read_trace, replay_workload
from meshsim.engine.recorded_run import replay_fit
from meshsim.engine.tools.outputs import jobs_csv_columns
from meshsim.engine.tools.runcase import RunOptions, prepare, run_case
from meshsim.engine.topology.machines import flat_machine, load_machine
from meshsim.engine.workloads.generators import load_workload
from meshsim.engine.workloads.workload import from_columns
from tests.conftest import DATA, LUBLIN, NASA, require_trace

LOG = """\
; UnixStartTime: 1230768000
; TimeZoneString: America/Chicago
; Queue: 1 batch
; Queue: 2 debug
; Partition: 1 main
1  0    0 100 2 -1 -1 2 -1 -1 1 1 7 -1 1  1 -1 -1
2  0  100  50 4 -1 -1 4 -1 -1 1 1 7 -1 1  1 -1 -1
3 10    5  20 1 -1 -1 1 -1 -1 1 2 8 -1 2  1 -1 -1
4 20   -1  10 1 -1 -1 1 -1 -1 0 2 8 -1 2 -1 -1 -1
5 30    0   0 1 -1 -1 1 -1 -1 5 2 8 -1 2 -1 -1 -1
6 40    0  10 8 -1 -1 8 -1 -1 1 2 8 -1 2 -1 -1 -1
"""
"""On flat:4 with EASY: job 1 starts at 0; job 2 (all 4 nodes) at 100, as recorded; job 3 backfills
at 10 (recorded 15); job 4 has no recorded wait (status 0); job 5 was cancelled before it ran
(status 5, runtime 0); job 6 (8 nodes) is skipped on loading."""


@pytest.fixture
def log(tmp_path):
    path = tmp_path / "log.swf"
    path.write_text(LOG)
    return str(path)


def test_the_recorded_section_by_hand(log):
    document = run_case(RunOptions(machine="flat:4", workload=log, backfill="easy")).document
    section = document["recorded"]
    assert section["compared"] is True and section["waits_from"] == "submit"
    overall = section["overall"]
    assert overall["jobs"] == 3
    assert overall["mean_recorded_wait_s"] == pytest.approx(105 / 3)
    assert overall["mean_simulated_wait_s"] == pytest.approx(100 / 3)
    assert (overall["median_recorded_wait_s"], overall["median_simulated_wait_s"]) == (5.0, 0.0)
    assert overall["wait_mae_s"] == pytest.approx(5 / 3)
    assert overall["within_1min"] == 1.0 and overall["within_1h"] == 1.0
    assert overall["not_compared"] == 2
    assert section["not_compared"] == {
        "times_transformed": 0,
        "cancelled_before_start": 1,
        "no_recorded_wait": 1,
        "rejected_on_arrival": 0,
        "not_started": 0,
        "skipped_on_load": 1,
    }
    # 2 x 100 + 4 x 50 + 1 x 20 node-seconds over 4 nodes x 150 s in both schedules
    assert section["recorded_utilization"] == pytest.approx(0.7)
    assert section["simulated_utilization"] == pytest.approx(0.7)
    queues = section["by_queue"]
    assert list(queues) == ["batch", "debug"]
    assert (queues["batch"]["jobs"], queues["batch"]["wait_mae_s"]) == (2, 0.0)
    assert (queues["debug"]["jobs"], queues["debug"]["not_compared"]) == (1, 2)
    assert list(section["by_partition"]) == ["unknown", "main"]
    assert section["by_partition"]["unknown"]["jobs"] == 0
    assert list(section["by_user_group"]) == ["7", "8"]
    assert list(section["by_size_class"]) == ["1", "2", "3-4"]


def test_the_jobs_csv_has_the_recorded_start(log):
    sim = prepare(RunOptions(machine="flat:4", workload=log, backfill="easy"))
    sim.run()
    header, columns = jobs_csv_columns(sim)
    assert header[-1] == "recorded_start"
    by_id = dict(zip(columns[0], columns[-1], strict=True))
    assert by_id == {1: 0.0, 2: 100.0, 3: 15.0, 4: "", 5: ""}


def test_scaled_times_get_no_fit(log):
    document = run_case(RunOptions(machine="flat:4", workload=log, load_factor=2.0)).document
    section = document["recorded"]
    assert section["compared"] is False
    assert "load factor 2" in section["reason"]
    assert section["not_compared"]["times_transformed"] == 5
    sim = prepare(RunOptions(machine="flat:4", workload=log, load_factor=2.0))
    sim.run()
    assert "recorded_start" not in jobs_csv_columns(sim)[0]


def test_the_nasa_log_and_lublins_model_record_no_waits():
    section = replay_fit(_ran(str(require_trace(NASA)), "flat:128")).as_dict()
    assert section["compared"] is False
    assert "field 3 is -1 for every job" in section["reason"]
    assert "submit times are actually start times" in section["reason"]
    assert section["not_compared"]["no_recorded_wait"] == 18239
    lublin = replay_fit(_ran(str(require_trace(LUBLIN)), "flat:256")).as_dict()
    assert lublin["compared"] is False and lublin["not_compared"]["no_recorded_wait"] == 10000


def test_a_generated_workload_records_no_schedule():
    jobs = from_columns("gen", submit=np.zeros(3), runtime=np.ones(3), size=np.ones(3))
    sim = Simulation(load_machine("flat:2"), jobs)
    sim.run()
    section = replay_fit(sim).as_dict()
    assert section["compared"] is False and "generated" in section["reason"]
    assert section["not_compared"]["no_recorded_wait"] == 3


def test_interactive_jobs_rejected_on_arrival_are_counted(tmp_path):
    """nqs-small's interactive partition has 4 nodes: a second 3-node interactive job arriving
    while the first runs is rejected (seed 004 §1) and counted, not compared."""
    path = tmp_path / "i.swf"
    path.write_text(
        "; Queue: 0 interactive\n"
        "1 0 0 100 3 -1 -1 3 -1 -1 1 1 1 -1 0 1 -1 -1\n"
        "2 10 0 100 3 -1 -1 3 -1 -1 1 1 1 -1 0 1 -1 -1\n"
    )
    document = run_case(RunOptions(machine=str(DATA / "nqs-small.toml"), workload=str(path)))
    section = document.document["recorded"]
    assert section["overall"]["jobs"] == 1
    assert section["not_compared"]["rejected_on_arrival"] == 1
    assert document.document["rejected"] == {"interactive partition full": 1}


def test_waits_are_measured_from_the_eligible_column(log):
    machine = load_machine("flat:4")
    jobs = load_workload(log, machine)
    eligible = jobs.submit.copy()
    eligible[2] = 12.0  # job 3 held until 12: recorded wait 3, simulated (start 12) 0
    held = replace(jobs, attrs={"eligible": eligible})
    sim = Simulation(machine, held, Policy(backfill="easy"))
    sim.run()
    section = replay_fit(sim).as_dict()
    assert section["waits_from"] == "eligible"
    debug = section["by_queue"]["debug"]
    assert debug["mean_recorded_wait_s"] == 3.0
    assert (
        debug["mean_simulated_wait_s"] == -2.0
    )  # this replay does not hold jobs: it started at 10
    assert np.isfinite(section["overall"]["wait_mae_s"])


def _ran(workload: str, machine: str) -> Simulation:
    sim = prepare(RunOptions(machine=machine, workload=workload))
    sim.run()
    return sim


def test_the_python_api_gives_the_recorded_section(log):
    result = meshsim.run(machine="flat:4", workload=log, backfill="easy")
    assert result.recorded["overall"]["jobs"] == 3
    assert result.recorded["not_compared"]["skipped_on_load"] == 1


def test_a_replayed_slurm_log_is_measured_from_its_eligible_times():
    """What the live Slurm check (tests/logs/test_live_slurm.py) can call on its replay: the log
    read and replayed as there, then ``replay_fit(sim)``. Its arrivals are the eligible times
    (docs/logs.md), and its job steps and heterogeneous components are records, not jobs."""
    trace = read_trace(DATA / "logs" / "slurm-sacct.txt", LogOptions())
    machine = flat_machine("flat:16")
    workload = replay_workload(trace, machine)
    assert workload.skipped["job_step"] == 15 and workload.skipped["het_component"] == 1
    sim = Simulation(machine, workload, Policy(queue="fcfs", discipline="fcfs", backfill="easy"))
    sim.run()
    fit = replay_fit(sim).as_dict()
    assert fit["compared"] and fit["waits_from"] == "eligible"
    assert fit["overall"]["jobs"] == len(workload) == 12
    assert fit["not_compared"]["skipped_on_load"] == 1  # the job cancelled before it started
    recorded = workload.records[:, 2]
    assert fit["overall"]["mean_recorded_wait_s"] == pytest.approx(recorded.mean())
