"""Job-count cuts (issue 23, item 1): ``--first N`` and ``--skip S`` count records in file order
before any record is skipped, on SWF traces and on operators' logs, and every record of the cut is
either replayed or counted."""

import json

import pytest

from meshsim.engine.core.errors import MeshsimError
from meshsim.engine.logs.options import LogOptions
from meshsim.engine.logs.trace import read_trace
from meshsim.engine.tools.runcase import RunOptions, run_case
from meshsim.engine.topology.machines import load_machine
from meshsim.engine.workloads.generators import load_workload
from meshsim.engine.workloads.swf import read_swf
from meshsim.engine.workloads.tracecut import RecordCut, cut_summary
from tests.conftest import DATA, SHARED_TRACES, require_trace

ROW = "{job} {submit} -1 {run} 2 -1 -1 2 10 -1 1 1 1 -1 1 -1 -1 -1"
FLAT = load_machine("flat:4")


def trace_file(tmp_path, rows: list[str]):
    """An SWF file of ``rows`` under a header and with a comment between records."""
    lines = ["; Version: 2.2", "; MaxProcs: 4", rows[0], "; a comment is not a record", *rows[1:]]
    path = tmp_path / "t.swf"
    path.write_text("\n".join(lines) + "\n")
    return path


def rows(*jobs: tuple[int, int, int]) -> list[str]:
    return [ROW.format(job=j, submit=s, run=r) for j, s, r in jobs]


def cut_of(first: int | None = None, skip: int = 0) -> LogOptions:
    return LogOptions(cut=RecordCut(first, skip))


def test_the_cut_counts_records_in_file_order_not_submit_order(tmp_path):
    # file order 4, 1, 3, 2 (submit times 30, 0, 20, 10): the first two records are jobs 4 and 1
    path = trace_file(tmp_path, rows((4, 30, 5), (1, 0, 5), (3, 20, 5), (2, 10, 5)))
    workload = load_workload(str(path), FLAT, log=cut_of(2))
    assert workload.job_id.tolist() == [1, 4]
    workload = load_workload(str(path), FLAT, log=cut_of(2, skip=1))
    assert workload.job_id.tolist() == [1, 3]
    assert workload.cut is not None and (workload.cut.records, workload.cut.past_end) == (2, 0)


def test_records_are_counted_before_any_is_skipped(tmp_path):
    # the second record never ran (run time -1): it is one of the first 3, skipped and counted
    path = trace_file(tmp_path, rows((1, 0, 5), (2, 1, -1), (3, 2, 5), (4, 3, 5)))
    workload = load_workload(str(path), FLAT, log=cut_of(3))
    assert workload.job_id.tolist() == [1, 3]
    assert workload.skipped["runtime_negative"] == 1
    assert workload.cut is not None
    assert workload.cut.records == len(workload) + workload.skipped_total == 3


def test_records_the_file_lacks_are_counted_past_its_end(tmp_path):
    path = trace_file(tmp_path, rows((1, 0, 5), (2, 1, 5), (3, 2, 5)))
    workload = load_workload(str(path), FLAT, log=cut_of(10, skip=1))
    assert workload.job_id.tolist() == [2, 3]
    assert workload.cut is not None
    assert (workload.cut.records, workload.cut.past_end) == (2, 8)


def test_a_cut_that_holds_no_record_is_an_error_naming_the_option(tmp_path):
    path = trace_file(tmp_path, rows((1, 0, 5), (2, 1, 5)))
    with pytest.raises(MeshsimError, match=r"--first 5 --skip 2: .*t\.swf holds 2 records"):
        load_workload(str(path), FLAT, log=cut_of(5, skip=2))


def test_a_generated_workload_refuses_a_cut():
    with pytest.raises(MeshsimError, match=r"--skip 1: .* is a generated workload"):
        load_workload(
            str(DATA / "mesh-sides-small.toml"), load_machine("mesh32"), log=cut_of(skip=1)
        )


def test_malformed_lines_are_records_and_keep_their_line_numbers(tmp_path):
    good = rows((1, 0, 5), (2, 1, 5), (3, 2, 5))
    path = trace_file(tmp_path, [good[0], "7 8 9", good[1], good[2]])
    # the malformed record (line 5) is outside the cut: it is not read, so no error
    assert len(read_swf(path, cut=RecordCut(1))) == 1
    # inside the cut it is named by its line in the file, or (lenient) counted as a record
    with pytest.raises(MeshsimError, match=r"t\.swf line 5: expected 18 fields"):
        read_swf(path, cut=RecordCut(2, skip=1))
    workload = load_workload(str(path), FLAT, lenient=True, log=cut_of(3))
    assert workload.job_id.tolist() == [1, 2]
    assert workload.skipped["malformed_line"] == 1
    assert workload.cut is not None and workload.cut.records == 3


def test_without_a_cut_nothing_changes(tmp_path):
    path = trace_file(tmp_path, rows((1, 0, 5), (2, 1, 5)))
    workload = load_workload(str(path), FLAT, log=cut_of())
    assert workload.cut is None and len(workload) == 2


def test_a_log_cut_counts_every_record_in_file_order():
    log = DATA / "logs" / "slurm-sacct.txt"
    whole = read_trace(log, LogOptions())
    whole_records = whole.records_read  # type: ignore[attr-defined]
    for first, skip in ((5, 0), (4, 3), (10, 10), (1000, 20)):
        options = LogOptions(cut=RecordCut(first, skip))
        trace = read_trace(log, options)
        workload = load_workload(str(log), load_machine("flat:64"), log=options)
        kept = min(first, whole_records - skip)
        assert trace.cut is not None and trace.cut.records == kept
        assert trace.cut.past_end == first - kept
        assert len(workload) + workload.skipped_total == kept


def test_a_log_cut_keeps_the_records_in_its_window_and_names_them_by_line():
    log = DATA / "logs" / "slurm-sacct.txt"
    whole = read_trace(log, LogOptions())
    entries = sorted(
        [(o.job.where, o.job.job_id) for o in whole.origin]  # type: ignore[attr-defined]
        + [(s.where, s.job_id) for s in whole.skipped]  # type: ignore[attr-defined]
    )
    window = entries[2:9]
    cut = read_trace(log, LogOptions(cut=RecordCut(7, skip=2)))
    kept = sorted(
        [(o.job.where, o.job.job_id) for o in cut.origin]  # type: ignore[attr-defined]
        + [(s.where, s.job_id) for s in cut.skipped]  # type: ignore[attr-defined]
    )
    assert kept == window


def test_the_result_json_records_the_cut_and_what_it_held(tmp_path):
    path = trace_file(tmp_path, rows((1, 0, 5), (2, 1, -1), (3, 2, 5)))
    options = RunOptions(machine="flat:4", workload=str(path), first=5, skip=1)
    document = run_case(options).document
    assert (document["inputs"]["first"], document["inputs"]["skip"]) == (5, 1)
    assert document["cut"] == {"first": 5, "skip": 1, "records": 2, "replayed": 1, "past_end": 3}
    assert document["skipped"]["runtime_negative"] == 1
    json.dumps(document, allow_nan=False)
    uncut = run_case(RunOptions(machine="flat:4", workload=str(path))).document
    assert uncut["cut"] is None and uncut["inputs"]["first"] is None


def test_the_summary_says_how_many_of_n_were_replayed_and_why_not_the_others():
    cut = {"first": 10000, "skip": 0, "records": 9000, "replayed": 7943, "past_end": 1000}
    skipped = {"malformed_line": 0, "runtime_negative": 1057}
    assert cut_summary(cut, skipped) == (
        "records 1–10,000 (--first 10000): 7,943 of 10,000 replayed; not replayed: "
        "1,057 runtime negative, 1,000 past the end of the file"
    )
    only_skip = {"first": None, "skip": 5, "records": 3, "replayed": 3, "past_end": 0}
    assert cut_summary(only_skip, {}) == "records from 6 (--skip 5): 3 of 3 replayed"


def test_the_first_10000_records_of_the_sdsc_log():
    """The segment the Fig. 1(b) spec replays: 1,057 of the first 10,000 records of the cleaned
    SDSC SP2 log never ran (run time −1)."""
    path = require_trace(SHARED_TRACES / "SDSC-SP2-1998-4.2-cln.swf.gz")
    workload = load_workload(str(path), load_machine("bgl"), procs_per_unit=1, log=cut_of(10000))
    assert len(workload) == 8943 and workload.skipped["runtime_negative"] == 1057
    assert workload.job_id.max() == 10010  # the cleaned log's 10,000th record is job 10,010
