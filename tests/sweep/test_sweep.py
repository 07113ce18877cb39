"""Running sweeps in process: identical tables, resume by content hash, failures recorded, Ctrl-C (a
case raising KeyboardInterrupt) stopping cleanly and a rerun finishing the rest."""

import json
from dataclasses import replace

import pytest

from meshsim.engine.tools.experiments.executors import InlineExecutor, make_executor
from meshsim.engine.tools.experiments.options import OptionSchema
from meshsim.engine.tools.experiments.runners import RUNNERS, Runner
from meshsim.engine.tools.experiments.spec import expand, load_spec
from meshsim.engine.tools.experiments.store import ResultStore
from meshsim.engine.tools.experiments.sweep import run_sweep
from meshsim.engine.tools.experiments.tables import load_rows, parquet_available
from meshsim.engine.tools.runcase import RunOptions, run_case
from tests.sweep.helpers import TINY, WORKLOAD, meshsim, run_schema, write

CALLS: list[int] = []
INTERRUPT_AT: list[int] = []


def _counting(options, jobs):
    """The run command, counting calls and raising KeyboardInterrupt when told to."""
    CALLS.append(options["seed"])
    if INTERRUPT_AT and options["seed"] == INTERRUPT_AT[0]:
        raise KeyboardInterrupt
    return run_case(RunOptions.from_mapping(dict(options)), jobs=jobs)


if "test-counting" not in RUNNERS:
    RUNNERS.register("test-counting")(Runner("test-counting", _counting, lambda options: []))


def _spec(tmp_path, grid='backfill = ["none", "easy"]\nseed = [1, 2, 3]', extra=""):
    write(tmp_path / "w.toml", WORKLOAD.format(jobs=60))
    text = f'{extra}[base]\nmachine = "flat:16"\nworkload = "w.toml"\n[grid]\n{grid}\n'
    return load_spec(write(tmp_path / "s.toml", text))


def test_two_sweeps_write_identical_tables_and_the_second_runs_nothing(tmp_path):
    spec = _spec(tmp_path, extra="[sweep]\nbaseline = { backfill = 'none' }\n")
    first = run_sweep(spec, run_schema(), tmp_path / "r", InlineExecutor())
    assert (first.planned, first.skipped, first.ran, first.failures) == (6, 0, 6, ())
    tables = {p.name: p.read_bytes() for p in first.tables}
    assert {"results.csv", "summary.csv", "gains.csv"} <= set(tables)
    assert ("results.parquet" in tables) == parquet_available()
    stamps = {p.name: p.stat().st_mtime_ns for p in (tmp_path / "r" / "cases").iterdir()}
    second = run_sweep(spec, run_schema(), tmp_path / "r", InlineExecutor())
    assert (second.skipped, second.ran) == (6, 0)
    assert {p.name: p.read_bytes() for p in second.tables} == tables
    assert {p.name: p.stat().st_mtime_ns for p in (tmp_path / "r" / "cases").iterdir()} == stamps
    header, *rows = tables["results.csv"].decode().splitlines()
    assert header.startswith("backfill,seed,case_id,status,jobs,avg_wait_s,")
    assert [r.split(",")[:2] for r in rows] == [
        ["none", "1"], ["none", "2"], ["none", "3"], ["easy", "1"], ["easy", "2"], ["easy", "3"],
    ]  # fmt: skip
    summary = tables["summary.csv"].decode().splitlines()
    assert summary[0].startswith("backfill,n,jobs_mean,jobs_ci95,avg_wait_s_mean,")
    assert [line.split(",")[:2] for line in summary[1:]] == [["none", "3"], ["easy", "3"]]


def test_case_files_are_what_meshsim_run_writes(tmp_path):
    spec = _spec(tmp_path, grid='backfill = ["easy"]', extra="[sweep]\njobs = true\n")
    report = run_sweep(spec, run_schema(), tmp_path / "r", InlineExecutor())
    cid = expand(spec)[0].case_id
    done = meshsim(
        "run", "--machine", "flat:16", "--workload", str(tmp_path / "w.toml"), "--backfill",
        "easy", "--quiet", "--out", str(tmp_path / "run.json"),
        "--jobs-out", str(tmp_path / "j.csv"),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    store = ResultStore(report.folder)
    assert store.result_path(cid).read_bytes() == (tmp_path / "run.json").read_bytes()
    assert store.jobs_path(cid).read_bytes() == (tmp_path / "j.csv").read_bytes()


def test_changed_input_reruns_only_the_cases_that_read_it(tmp_path):
    write(tmp_path / "a.swf", TINY.read_text())
    write(tmp_path / "b.swf", TINY.read_text())
    text = '[base]\nmachine = "flat:4"\n[grid]\nworkload = ["a.swf", "b.swf"]\nseed = [1, 2]\n'
    spec = load_spec(write(tmp_path / "s.toml", text))
    run_sweep(spec, run_schema(), tmp_path / "r", InlineExecutor())
    write(tmp_path / "b.swf", TINY.read_text().replace("1 0 -1 10 2", "1 0 -1 20 2"))
    again = run_sweep(spec, run_schema(), tmp_path / "r", InlineExecutor())
    assert (again.skipped, again.ran) == (2, 2)


def test_a_failing_case_is_recorded_and_the_others_finish(tmp_path):
    write(tmp_path / "bad.swf", "1 2 3\n")
    text = '[base]\nmachine = "flat:4"\n[grid]\nworkload = ["bad.swf", "' + str(TINY) + '"]\n'
    spec = load_spec(write(tmp_path / "s.toml", text))
    report = run_sweep(spec, run_schema(), tmp_path / "r", InlineExecutor())
    assert report.ran == 2 and len(report.failures) == 1
    assert "line 1: expected 18 fields, got 3" in report.failures[0].error
    lines = (tmp_path / "r" / "results.csv").read_text().splitlines()
    assert lines[1].split(",")[2] == "failed" and "expected 18 fields" in lines[1]
    assert lines[2].split(",")[2] == "ok"
    meta = json.loads(
        (tmp_path / "r" / "cases" / f"{report.failures[0].case_id}.meta.json").read_text()
    )
    assert meta["status"] == "failed" and meta["detail"] is None
    rerun = run_sweep(spec, run_schema(), tmp_path / "r", InlineExecutor())
    assert (rerun.skipped, rerun.ran) == (1, 1)  # failed cases are tried again


def test_interrupt_stops_cleanly_and_a_rerun_computes_only_the_rest(tmp_path):
    spec = _spec(tmp_path, grid="seed = [1, 2, 3, 4, 5]")
    spec = replace(spec, settings=replace(spec.settings, command="test-counting"))
    schema = OptionSchema("test-counting", run_schema().options)
    CALLS.clear()
    INTERRUPT_AT[:] = [3]
    (tmp_path / "r" / "cases").mkdir(parents=True)
    write(tmp_path / "r" / "cases" / "leftover.json.part", "half a file")
    try:
        first = run_sweep(spec, schema, tmp_path / "r", InlineExecutor())
    finally:
        INTERRUPT_AT.clear()
    assert first.interrupted and first.ran == 2 and CALLS == [1, 2, 3]
    assert not list((tmp_path / "r").rglob("*.part"))
    statuses = [
        line.split(",")[2] for line in (tmp_path / "r" / "results.csv").read_text().splitlines()[1:]
    ]
    assert statuses == ["ok", "ok", "pending", "pending", "pending"]
    CALLS.clear()
    second = run_sweep(spec, schema, tmp_path / "r", InlineExecutor())
    assert not second.interrupted and (second.skipped, second.ran) == (2, 3)
    assert CALLS == [3, 4, 5]


def test_process_pool_gives_the_same_table_as_in_process(tmp_path):
    spec = _spec(tmp_path)
    inline = run_sweep(spec, run_schema(), tmp_path / "a", InlineExecutor())
    pooled = run_sweep(spec, run_schema(), tmp_path / "b", make_executor("local", 2))
    assert (tmp_path / "a" / "results.csv").read_bytes() == (
        tmp_path / "b" / "results.csv"
    ).read_bytes()
    assert pooled.ran == inline.ran == 6


@pytest.mark.parametrize(
    ("name", "message"), [("slurm", "unknown executor 'slurm'"), ("local", "at least 1")]
)
def test_bad_executor_requests(name, message):
    from meshsim.engine.core.errors import MeshsimError

    with pytest.raises(MeshsimError, match=message):
        make_executor(name, 0 if name == "local" else None)


@pytest.mark.parametrize(
    ("name", "damage"),
    [
        ("result cut short", lambda store, cid: _cut(store.result_path(cid))),
        ("result changed", lambda store, cid: store.result_path(cid).write_text("{}\n")),
        ("meta cut short", lambda store, cid: _cut(store.meta_path(cid))),
        ("jobs CSV gone", lambda store, cid: store.jobs_path(cid).unlink()),
    ],
)
def test_a_damaged_stored_case_is_reported_and_computed_again(tmp_path, name, damage):
    spec = _spec(tmp_path, grid="seed = [1, 2]", extra="[sweep]\njobs = true\n")
    first = run_sweep(spec, run_schema(), tmp_path / "r", InlineExecutor())
    store = ResultStore(first.folder)
    cid = expand(spec)[1].case_id
    whole = {p.name: p.read_bytes() for p in store.cases.iterdir()}
    damage(store, cid)
    rows = {r.case_id: r for r in load_rows(store)[1]}
    assert rows[cid].status == "unreadable" and rows[cid].error
    again = run_sweep(spec, run_schema(), tmp_path / "r", InlineExecutor())
    assert [case_id for case_id, _ in again.damaged] == [cid]
    assert (again.skipped, again.ran, again.failures) == (1, 1, ())
    assert {p.name: p.read_bytes() for p in store.cases.iterdir()} == whole
    assert {r.status for r in load_rows(store)[1]} == {"ok"}


def _cut(path):
    path.write_bytes(path.read_bytes()[:20])


def test_a_spec_cuts_a_trace_by_job_count(tmp_path):
    """Issue 23: ``first`` and ``skip`` are spec keys like any option of ``meshsim run``; each
    case's result JSON records the cut and what it held."""
    text = f'[base]\nmachine = "flat:4"\nworkload = "{TINY}"\n[grid]\nfirst = [1, 2]\nskip = [1]\n'
    spec = load_spec(write(tmp_path / "s.toml", text))
    result = run_sweep(spec, run_schema(), tmp_path / "r", InlineExecutor())
    assert result.failures == ()
    cuts = sorted(
        (
            json.loads(p.read_text())["cut"]
            for p in (tmp_path / "r" / "cases").glob("*.json")
            if not p.name.endswith(".meta.json")
        ),
        key=lambda cut: cut["first"],
    )
    assert cuts == [
        {"first": 1, "skip": 1, "records": 1, "replayed": 1, "past_end": 0},
        {"first": 2, "skip": 1, "records": 2, "replayed": 2, "past_end": 0},
    ]
