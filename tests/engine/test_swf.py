"""SWF reading and writing: header parsing, normalization, errors, lenient mode, round trips."""

import gzip

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from meshsim.engine.core.errors import MeshsimError
from meshsim.engine.topology.machines import load_machine
from meshsim.engine.workloads.swf import FIELDS, read_swf, write_swf
from meshsim.engine.workloads.workload import from_swf
from tests.conftest import DATA, NASA, require_trace

ROW = "1 0 -1 10 2 -1 -1 2 10 -1 1 1 1 -1 1 -1 -1 -1"


def test_header_is_parsed_and_kept():
    trace = read_swf(DATA / "tiny.swf")
    h = trace.header
    assert h.version == "2.2"
    assert h.computer == "Hand-made test machine"
    assert h.installation == "meshsim tests"
    assert (h.max_jobs, h.max_records, h.max_nodes, h.max_procs) == (3, 3, 4, 4)
    assert h.unix_start_time == 1230768000
    assert h.time_zone_string == "America/Chicago"
    assert h.queues == {1: "batch", 2: "debug"}
    assert h.notes == ("the metric example of tests/engine/test_metrics.py (hand-computed)",)
    assert len(h.lines) == 13
    assert trace.records.shape == (3, 18)


def test_nasa_header_and_counts():
    trace = read_swf(require_trace(NASA))
    assert len(trace) == 18239
    assert trace.header.max_procs == 128
    assert trace.header.queues == {0: "interactive", 1: "batch"}
    assert trace.header.start_time == "Fri Oct 01 00:00:03 PDT 1993"
    assert trace.header.end_time == "Fri Dec 31 23:03:45 PST 1993"


def _write(tmp_path, text, name="t.swf"):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_normalization_rules(tmp_path):
    rows = [
        "1 0 -1 10 4 -1 -1 -1 -1 -1 1 1 1 -1 1 -1 -1 -1",  # size from field 5, estimate = runtime
        "2 0 -1 10 4 -1 -1 2 30 -1 1 1 1 -1 1 -1 -1 -1",  # requested procs and time win
        "3 5 -1 -1 4 -1 -1 -1 -1 -1 1 1 1 -1 1 -1 -1 -1",  # runtime < 0: skipped
        "4 5 -1 10 -1 -1 -1 -1 -1 -1 1 1 1 -1 1 -1 -1 -1",  # size <= 0: skipped
        "5 6 -1 10 9 -1 -1 9 -1 -1 1 1 1 -1 1 -1 -1 -1",  # larger than flat:8: skipped
        "7 3 -1 1.5 1 -1 -1 1 -1 -1 1 1 1 -1 1 -1 -1 -1",  # float runtime, gap in numbers
        "6 3 -1 1 1 -1 -1 1 -1 -1 1 1 1 -1 1 -1 -1 -1",  # same submit: ordered by number
    ]
    w = from_swf(read_swf(_write(tmp_path, "\n".join(rows))), load_machine("flat:8"))
    assert w.job_id.tolist() == [1, 2, 6, 7]
    assert w.size.tolist() == [4, 2, 1, 1]
    assert w.estimate.tolist() == [10, 30, 1, 1.5]
    assert w.runtime.tolist() == [10, 10, 1, 1.5]
    assert dict(w.skipped) == {
        "malformed_line": 0,
        "size_not_positive": 1,
        "runtime_negative": 1,
        "larger_than_machine": 1,
    }


def test_procs_per_unit_rounds_up(tmp_path):
    rows = ["1 0 -1 10 5 -1 -1 -1 -1 -1 1 1 1 -1 1 -1 -1 -1"]
    w = from_swf(
        read_swf(_write(tmp_path, "\n".join(rows))), load_machine("flat:8"), procs_per_unit=4
    )
    assert w.size.tolist() == [2]
    assert w.procs.tolist() == [5]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "is empty"),
        ("; Version: 2\n; MaxJobs: 0\n", "has a header but no job records"),
        (f"{ROW}\n1 2 3\n", "line 2: expected 18 fields, got 3"),
        (
            f"; c\n{ROW}\n{ROW.replace('10', 'ten', 1)}\n",
            "line 3: field 4 (run_time) is not a number",
        ),
    ],
)
def test_bad_files_name_the_line(tmp_path, text, message):
    with pytest.raises(MeshsimError) as err:
        read_swf(_write(tmp_path, text))
    assert message in str(err.value)
    assert str(tmp_path / "t.swf") in str(err.value)


def test_missing_file(tmp_path):
    with pytest.raises(MeshsimError, match="no such file"):
        read_swf(tmp_path / "absent.swf")


def test_lenient_skips_and_reports(tmp_path):
    path = _write(tmp_path, f"{ROW}\n1 2 3\n{ROW.replace('1 0', '2 0', 1)}\nx y\n")
    trace = read_swf(path, lenient=True)
    assert len(trace) == 2
    assert [(m.line, m.reason) for m in trace.malformed] == [
        (2, "expected 18 fields, got 3"),
        (4, "expected 18 fields, got 2"),
    ]
    w = from_swf(trace, load_machine("flat:8"))
    assert w.skipped["malformed_line"] == 2


def test_gzip_is_read_directly(tmp_path):
    path = tmp_path / "t.swf.gz"
    path.write_bytes(gzip.compress((DATA / "tiny.swf").read_bytes()))
    assert np.array_equal(read_swf(path).records, read_swf(DATA / "tiny.swf").records)


def test_writer_keeps_header_and_adds_note(tmp_path):
    trace = read_swf(DATA / "tiny.swf")
    out = tmp_path / "out.swf"
    write_swf(out, trace.records, trace.header, notes=["produced by a test"])
    again = read_swf(out)
    assert again.header.lines[: len(trace.header.lines)] == trace.header.lines
    assert again.header.notes[-1] == "produced by a test"
    assert np.array_equal(again.records, trace.records)


numbers = st.one_of(
    st.integers(-1, 10**9).map(float),
    st.floats(0, 1e7, allow_nan=False, allow_infinity=False),
)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(numbers, min_size=18, max_size=18), min_size=1, max_size=20))
def test_round_trip(tmp_path_factory, rows):
    records = np.array(rows, dtype=float)
    path = tmp_path_factory.mktemp("rt") / "r.swf.gz"
    write_swf(path, records)
    assert np.array_equal(read_swf(path).records, records)
    assert len(FIELDS) == 18


def test_shipped_excerpt_is_the_first_thousand_jobs_of_the_nasa_log():
    """``traces/nasa-ipsc-1000.swf`` (the README's tour) is the cleaned NASA log's first 1,000
    records, byte for byte, under its header and a note naming the source."""
    from meshsim.engine.core.bundled import bundled_file

    excerpt = bundled_file("meshsim.traces", "nasa-ipsc-1000.swf")
    trace = read_swf(excerpt)
    assert len(trace.records) == 1000 and trace.header.computer == "Intel iPSC/860"
    assert any("NASA-iPSC-1993-3.1-cln.swf" in note for note in trace.header.notes)
    lines = excerpt.read_text().splitlines()
    whole = require_trace(NASA).read_text().splitlines()
    jobs = [line for line in whole if not line.startswith(";")][:1000]
    assert [line for line in lines if not line.startswith(";")] == jobs
