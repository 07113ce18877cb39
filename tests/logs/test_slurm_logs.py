"""Slurm's logs, read from the real ones recorded on Slurm 22.05
(tests/logs/record_slurm_fixtures.py): the job-completion log and two sacct dumps of the same jobs
must give the same jobs, and every record is accounted for."""

from __future__ import annotations

import pytest

from meshsim.engine.core.errors import MeshsimError
from meshsim.engine.logs.formats import detect
from meshsim.engine.logs.records import CANCELLED, COMPLETED, FAILED
from meshsim.engine.logs.trace import LogTrace, replay_workload
from meshsim.engine.topology.machines import flat_machine
from meshsim.engine.workloads.swf import REQ_TIME, RUN, STATUS, SUBMIT, WAIT
from tests.logs.helpers import LOGS, read

JOBCOMP = LOGS / "slurm-jobcomp.txt"
SACCT = LOGS / "slurm-sacct.txt"
SACCT_ALL = LOGS / "slurm-sacct-all.txt"


def jobs(trace: LogTrace) -> dict[tuple[str, float], tuple]:
    """Each job (and run) by log id and arrival: processors, status, start, run time, limit."""
    out = {}
    for o, row in zip(trace.origin, trace.records.tolist(), strict=True):
        j = o.job
        out[(j.job_id, row[SUBMIT])] = (
            j.requested,
            row[STATUS],
            None if j.start is None else j.start,
            row[RUN],
            row[REQ_TIME],
        )
    return out


def test_the_three_slurm_logs_are_told_apart_and_give_the_same_jobs():
    assert [detect(p) for p in (JOBCOMP, SACCT, SACCT_ALL)] == ["jobcomp", "sacct", "sacct"]
    traces = [read(p) for p in (JOBCOMP, SACCT, SACCT_ALL)]
    assert jobs(traces[0]) == jobs(traces[1]) == jobs(traces[2])
    assert len(traces[0]) == 13  # 12 runs that started and the job cancelled while pending


@pytest.mark.parametrize("path", [JOBCOMP, SACCT, SACCT_ALL])
def test_every_record_is_a_job_or_skipped_by_reason(path):
    trace = read(path)
    workload = replay_workload(trace, flat_machine("flat:16"))
    assert trace.records_read == len(workload) + sum(workload.skipped.values())
    assert workload.skipped["cancelled_before_start"] == 1
    assert workload.skipped["het_component"] == 1
    assert workload.skipped["job_step"] == (15 if path != JOBCOMP else 0)
    assert len(trace.report()) == sum(workload.skipped.values())


def test_what_each_slurm_state_became():
    by_id: dict[str, list] = {}
    for o, row in zip(read(SACCT).origin, read(SACCT).records.tolist(), strict=True):
        by_id.setdefault(o.job.job_id, []).append((o.job, row))
    ((pending, row),) = by_id["6"]  # cancelled while it waited for 16 CPUs
    assert pending.state == "CANCELLED by 0" and not pending.started
    assert (row[STATUS], row[WAIT], row[RUN]) == (CANCELLED, -1, -1)
    ((_running, row),) = by_id["7"]  # cancelled 5 s after it started: replayed for 5 s
    assert (row[STATUS], row[RUN]) == (CANCELLED, 5)
    ((timeout, row),) = by_id["13"]  # Slurm ended it 12 s past its one-minute limit
    assert timeout.state == "TIMEOUT" and (row[STATUS], row[RUN], row[REQ_TIME]) == (FAILED, 72, 60)
    ((_failed, row),) = by_id["3"]
    assert row[STATUS] == FAILED
    ((het, row),) = by_id["9+0"]  # 1 CPU on n1 and 2 CPUs on n2, one job
    assert het.requested == 3 and het.location == "n1,n2"
    ((exclusive, row),) = by_id["12"]  # -n 1 --exclusive holds the node's 8 CPUs
    assert exclusive.requested == 8 and row[STATUS] == COMPLETED
    first, second = by_id["11"]  # requeued while running; --duplicates lists both runs
    assert first[0].state == "REQUEUED" and (first[1][STATUS], first[1][RUN]) == (FAILED, 4)
    assert second[0].state == "COMPLETED" and second[0].arrival == second[0].eligible
    assert second[0].eligible - second[0].submit == 121  # Slurm delays a requeued job


def test_jobcomp_writes_a_requeued_run_as_pending_with_its_nodes():
    runs = [o.job for o in read(JOBCOMP).origin if o.job.job_id == "11"]
    assert [j.state for j in runs] == ["PENDING (a run ended by a requeue)", "COMPLETED"]
    assert runs[0].status == FAILED and runs[0].run_time == 4


def test_array_tasks_arrive_when_the_throttle_lets_them():
    tasks = {o.job.job_id: o.job for o in read(JOBCOMP).origin if "_" in o.job.job_id}
    assert sorted(tasks) == ["2_0", "2_1", "2_2"]  # --array=0-2%1: one at a time
    assert tasks["2_1"].eligible == tasks["2_0"].end
    assert tasks["2_1"].arrival == tasks["2_1"].eligible > tasks["2_1"].submit


def test_the_time_zone_moves_the_header_start_not_the_schedule():
    utc, berlin = read(SACCT), read(SACCT, tz="Europe/Berlin")
    assert berlin.header.time_zone_string == "Europe/Berlin"
    assert utc.header.unix_start_time - berlin.header.unix_start_time == 3600
    assert (utc.records == berlin.records).all()


def test_sacct_needs_its_header_and_the_columns_that_say_what_happened(tmp_path):
    headless = tmp_path / "noheader.txt"
    headless.write_text("\n".join(SACCT.read_text().splitlines()[2:]) + "\n")
    with pytest.raises(MeshsimError, match=r"noheader\.txt line 1: not a known trace or log"):
        read(headless)
    with pytest.raises(MeshsimError, match="expected sacct's header line"):
        read(headless, fmt="sacct")
    narrow = tmp_path / "narrow.txt"
    narrow.write_text("JobID|State|Submit|Start|End\n1|COMPLETED|x|x|x\n")
    with pytest.raises(MeshsimError, match=r"narrow.txt line 1: .*NodeList, AllocCPUS; dump it"):
        read(narrow)


def test_a_bad_sacct_line_is_an_error_naming_it_or_skipped_when_lenient(tmp_path):
    lines = SACCT.read_text().splitlines()
    lines[2] = lines[2].replace("COMPLETED", "EXPLODED")
    lines[8] = lines[8] + "|extra"
    bad = tmp_path / "bad.txt"
    bad.write_text("\n".join(lines) + "\n")
    with pytest.raises(MeshsimError, match=r"bad.txt line 3: unknown job state 'EXPLODED'"):
        read(bad)
    trace = read(bad, lenient=True)
    assert trace.counts["malformed_line"] == 2
    assert [m.line for m in trace.malformed] == [3, 9]
    workload = replay_workload(trace, flat_machine("flat:16"))
    assert trace.records_read == len(workload) + sum(workload.skipped.values())


def test_unlimited_limits_take_the_partition_limit_when_given(tmp_path):
    lines = SACCT.read_text().splitlines()
    unlimited = tmp_path / "unlimited.txt"
    unlimited.write_text(
        "\n".join([*lines[:2], lines[2].replace("|5|4|2|batch|", "|5|4|UNLIMITED|batch|")]) + "\n"
    )
    assert read(unlimited).records[0, REQ_TIME] == -1
    assert "no finite time limit" in " ".join(read(unlimited).header.notes)
    assert read(unlimited, partition_limit="batch=1-00:00:00").records[0, REQ_TIME] == 86400
    assert read(unlimited, partition_limit="*=90").records[0, REQ_TIME] == 5400
    with pytest.raises(MeshsimError, match="--partition-limit 'batch': expected NAME=DURATION"):
        read(unlimited, partition_limit="batch")
