"""PBS (Torque, PBS Pro) and Cobalt accounting logs, from fixtures written by hand from the formats'
documentation and Cobalt's source (their header comments say so), and Cobalt partition names on
Intrepid."""

from __future__ import annotations

import pytest

from meshsim.engine.core.errors import MeshsimError
from meshsim.engine.families.partitions.menu import build_menu
from meshsim.engine.families.partitions.recorded import partition_midplanes
from meshsim.engine.logs.formats import detect
from meshsim.engine.logs.pbs import exec_host_slots, nodes_processors, select_processors
from meshsim.engine.logs.records import CANCELLED, COMPLETED, FAILED, LogJob
from meshsim.engine.logs.trace import LogTrace, replay_workload
from meshsim.engine.topology.machines import flat_machine, load_machine
from meshsim.engine.workloads.swf import ALLOC, PARTITION, REQ_PROCS, REQ_TIME, RUN, STATUS
from tests.logs.helpers import LOGS, read

TORQUE = LOGS / "pbs-torque.log"
PBSPRO = LOGS / "pbs-pro"
COBALT = LOGS / "cobalt-intrepid.log"


def runs(trace: LogTrace) -> dict[str, list[tuple[LogJob, list[float]]]]:
    out: dict[str, list] = {}
    for o, row in zip(trace.origin, trace.records.tolist(), strict=True):
        out.setdefault(o.job.job_id, []).append((o.job, row))
    return out


@pytest.mark.parametrize(
    ("path", "fmt", "jobs", "counts"),
    [
        (TORQUE, "pbs", 6, {"record_folded": 14, "record_type_unused": 1, "not_finished": 2}),
        (PBSPRO, "pbs", 3, {"record_folded": 7, "record_type_unused": 1, "never_started": 1}),
        (COBALT, "cobalt", 7, {"record_folded": 23, "record_type_unused": 2, "not_finished": 1}),
    ],
)
def test_every_accounting_record_is_a_job_or_skipped_by_reason(path, fmt, jobs, counts):
    assert detect(path) == fmt
    trace = read(path, tz="America/Chicago")
    workload = replay_workload(trace, flat_machine("flat:65536"))
    assert len(workload) == jobs
    assert {k: v for k, v in trace.counts.items() if v and k != "cancelled_before_start"} == counts
    assert trace.records_read == len(workload) + sum(workload.skipped.values())


def test_torque_jobs_runs_and_processors():
    by = runs(read(TORQUE))
    ((job, row),) = by["1001.torque01"]
    assert (row[REQ_PROCS], row[ALLOC], row[STATUS], row[RUN]) == (8, 8, COMPLETED, 1800)
    assert row[REQ_TIME] == 3600 and job.location.startswith("node01/0+")
    ((job, row),) = by["1002.torque01"]  # Q then D: cancelled before it started
    assert not job.started and row[STATUS] == CANCELLED and job.submit == 1711965630
    ((job, row),) = by["1003.torque01"]  # D while running, then E: replayed for what it ran
    assert row[STATUS] == CANCELLED and row[RUN] == 600 and "deleted while running" in job.state
    ((job, row),) = by["1004.torque01"]  # node07:ppn=2+1:ppn=4; exec_host node07/0-1+node08/0-3
    assert (row[REQ_PROCS], row[ALLOC], row[STATUS]) == (6, 6, FAILED)
    first, second = by["1005.torque01"]  # S, R (rerun), S, E: two runs
    assert first[0].state == "R (rerun)" and (first[1][STATUS], first[1][RUN]) == (FAILED, 1000)
    assert second[1][STATUS] == COMPLETED and second[1][RUN] == 3500
    ((job, row),) = by["1006.torque01"]  # no walltime asked for
    assert job.requested_time is None and row[REQ_TIME] == -1
    assert "1007.torque01" not in by and "1008.torque01" not in by  # running, queued


def test_a_job_without_walltime_takes_its_queues_limit():
    trace = read(TORQUE, partition_limit="batch=02:00:00")
    ((_job, row),) = runs(trace)["1006.torque01"]
    assert row[REQ_TIME] == 7200
    assert any("2 from --partition-limit" in n for n in trace.header.notes)  # and 1002's


def test_pbs_pro_daily_files_select_chunks_and_the_time_zone():
    berlin = read(PBSPRO, tz="Europe/Berlin")
    by = runs(berlin)
    ((job, row),) = by["5001.pbspro"]  # Q on 1 March, E on 2 March: two daily files
    assert (row[REQ_PROCS], row[ALLOC], row[RUN]) == (16, 16, 3600)
    assert job.where.file.endswith("20240302")
    ((job, row),) = by["5002.pbspro"]
    assert row[STATUS] == FAILED  # Exit_status=-29
    ((job, row),) = by["5004.pbspro"]  # A before any start: never started, status 0
    assert not job.started and row[STATUS] == FAILED and job.reason == "never_started"
    assert job.submit == 1709330400 + 3100  # its Q stamp, read in Europe/Berlin
    ((utc_job, _),) = runs(read(PBSPRO))["5004.pbspro"]
    assert utc_job.submit - job.submit == 3600


def test_pbs_processor_syntaxes():
    assert select_processors("2:ncpus=8:mem=4gb+1:ncpus=4") == 20
    assert select_processors("3:mem=1gb") == 3
    assert nodes_processors("2:ppn=4+bignode:ppn=8") == 16
    assert nodes_processors("4") == 4
    assert exec_host_slots("n1/0+n1/1") == 2
    assert exec_host_slots("n1/0*8+n2/0*8") == 16
    assert exec_host_slots("n1/0-3,5+n2/0") == 6
    with pytest.raises(ValueError, match="not a processor count"):
        select_processors("1:ncpus=lots")


def test_a_bad_accounting_line_is_an_error_naming_it(tmp_path):
    text = TORQUE.read_text().splitlines()
    text[19] = text[19].replace("start=1711965660", "start=soon")
    bad = tmp_path / "bad.log"
    bad.write_text("\n".join(text) + "\n")
    with pytest.raises(MeshsimError, match=r"bad.log line 20: job 1001.torque01: not a time"):
        read(bad)
    text[5] = "garbage"
    bad.write_text("\n".join(text) + "\n")
    with pytest.raises(MeshsimError, match=r"bad\.log line 6: expected MM/DD/YYYY HH:MM:SS;TYPE"):
        read(bad, fmt="pbs")
    trace = read(bad, fmt="pbs", lenient=True)
    assert trace.counts["malformed_line"] == 2  # the garbage line and job 1001's E record
    workload = replay_workload(trace, flat_machine("flat:64"))
    assert "1001.torque01" not in {o.job.job_id for o in trace.origin}
    assert trace.records_read == len(workload) + sum(workload.skipped.values())


def test_cobalt_jobs_and_what_each_record_type_became():
    trace = read(COBALT, tz="America/Chicago")
    by = runs(trace)
    ((job, row),) = by["123001"]
    assert (row[REQ_PROCS], row[ALLOC], row[STATUS]) == (8192, 8192, COMPLETED)
    assert (job.group, job.queue, job.location) == ("ProjA", "prod", "ANL-R00-R01-2048")
    ((job, row),) = by["123003"]  # an A (walltime over) before the E: status 0
    assert row[STATUS] == FAILED and "limit reached" in job.state
    ((job, row),) = by["123004"]  # Q then D
    assert row[STATUS] == CANCELLED and not job.started
    ((job, row),) = by["123005"]  # D while running
    assert row[STATUS] == CANCELLED and row[RUN] == 600
    ((job, row),) = by["123007"]  # 128 nodes on a block of node cards; held, released at etime
    assert (row[REQ_PROCS], row[ALLOC]) == (512, 512) and job.arrival == job.eligible
    assert trace.header.computer == "intrepid"
    names = trace.header.partitions
    assert names[int(row[PARTITION])] == "ANL-R40-M1-N04-128"
    unused = {s.detail for s in trace.skipped if s.reason == "record_type_unused"}
    assert unused == {"record type Y", "record type B"}
    folded = {s.detail.split()[0] for s in trace.skipped if s.reason == "record_folded"}
    assert folded == {"Q", "QA", "S", "D", "A", "TS", "TE", "HA", "HR"}


def test_a_record_type_cobalt_may_add_is_counted_not_an_error(tmp_path):
    log = tmp_path / "new-types.log"
    extra = "05/01/2009 14:00:00;ZZ;123001;something=new"
    log.write_text(COBALT.read_text() + extra + "\n")
    trace = read(log, tz="America/Chicago")
    assert trace.counts["record_type_unused"] == 3


@pytest.mark.parametrize(
    ("name", "partition"),
    [
        ("ANL-R00-M0-512", "R00-M0"),
        ("ANL-R40-M1-N04-128", "R40-M1"),
        ("ANL-R11-1024", "1K R11-M0..R11-M1"),
        ("ANL-R00-R01-2048", "2K R00-M0..R01-M1"),
        ("ANL-R04-R07-4096", "4K R04-M0..R07-M1"),
        ("ANL-R20-R27-8192", "8K R20-M0..R27-M1"),
        ("ANL-R00-R17-16384", "16K R00-M0..R17-M1"),
        ("ANL-R00-R47-40960", "40K R00-M0..R47-M1"),
    ],
)
def test_cobalt_partition_names_are_intrepid_partitions(name, partition):
    spec = load_machine("intrepid").spec
    menu = build_menu(spec)
    cells = partition_midplanes(name, spec)
    assert cells is not None
    assert [p.name for p in menu.partitions if p.midplanes == cells] == [partition]


@pytest.mark.parametrize(
    "name", ["ANL-R00-R01-4096", "ANL-R00-M2-512", "ANL-R99-1024", "ANL-R00-M0-N00-512", "x"]
)
def test_names_that_are_not_intrepid_partitions(name):
    assert partition_midplanes(name, load_machine("intrepid").spec) is None
