"""The comparison with a log's recorded schedule on the command line: ``meshsim run``'s summary
and result JSON, ``--queue-map``, and ``meshsim compare --recorded``."""

import csv
import json

import pytest

from tests.cli.test_cli import meshsim
from tests.conftest import NASA, ROOT, require_trace
from tests.engine.test_recorded_run import LOG


@pytest.fixture
def log(tmp_path):
    path = tmp_path / "log.swf"
    path.write_text(LOG)
    return str(path)


def test_run_prints_recorded_against_simulated(log, tmp_path):
    out = tmp_path / "r.json"
    done = meshsim(
        "run", "--machine", "flat:4", "--workload", log, "--backfill", "easy", "--out", str(out)
    )
    assert done.returncode == 0, done.stderr
    assert "recorded against simulated wait (hours, from submit)" in done.stdout
    assert "jobs not compared: 1 cancelled before start, 1 no recorded wait, 1 skipped on load" in (
        done.stdout
    )
    assert json.loads(out.read_text())["recorded"]["overall"]["jobs"] == 3


def test_a_log_without_waits_says_so():
    done = meshsim("run", "--machine", "flat:128", "--workload", str(require_trace(NASA)))
    assert done.returncode == 0, done.stderr
    assert "recorded schedule: no fit: the log records no waits" in done.stdout
    assert "18,239 no recorded wait" in done.stdout


def test_queue_map_is_reported_in_the_summary_and_the_result(tmp_path):
    trace = tmp_path / "q.swf"
    trace.write_text(
        "; Queue: 10 q256s\n; Queue: 30 q1ll\n"
        "1 0 0 60 200 -1 -1 200 -1 -1 1 1 -1 -1 10 2 -1 -1\n"
        "2 0 0 60 1 -1 -1 1 -1 -1 1 1 -1 -1 30 2 -1 -1\n"
    )
    out = tmp_path / "r.json"
    args = ("run", "--machine", "paragon-sdsc", "--workload", str(trace), "--out", str(out))
    done = meshsim(*args, "--queue-map", "q256s=q256m", "--queue-map", "q1ll=q1l")
    assert done.returncode == 0, done.stderr
    assert "queue mapping: q256s → q256m (--queue-map, 1 job)" in done.stdout
    assert json.loads(out.read_text())["inputs"]["queue_mapping"][1] == {
        "trace_queue": "q1ll",
        "machine_queue": "q1l",
        "rule": "--queue-map",
        "jobs": 1,
    }
    unmapped = meshsim(*args[:-2])
    assert unmapped.returncode == 1
    assert unmapped.stderr.count("\n") == 1 and "queue 10 'q256s' is not an NQS queue" in (
        unmapped.stderr
    )
    bad = meshsim(*args[:-2], "--queue-map", "q256s")
    assert bad.returncode == 1 and "--queue-map 'q256s': expected NAME=QUEUE" in bad.stderr


def test_compare_recorded_ranks_by_wait_mae(log, tmp_path):
    done = meshsim(
        "compare", "--recorded", "--machine", "flat:4", "--workload", log, "--workers", "1",
        "--config", "fcfs:queue=fcfs", "--config", "easy:backfill=easy", "--out", str(tmp_path),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    rows = list(csv.DictReader((tmp_path / "recorded.csv").open()))
    assert [(r["rank"], r["config"]) for r in rows] == [("1", "easy"), ("2", "fcfs")]
    assert float(rows[0]["wait_mae_s"]) < float(rows[1]["wait_mae_s"])
    document = json.loads((tmp_path / "recorded.json").read_text())
    assert document["configs"][0]["recorded"]["by_queue"]["batch"]["jobs"] == 2
    assert done.stdout.index(" easy ") < done.stdout.index(" fcfs ")


def test_compare_recorded_needs_recorded_waits():
    done = meshsim(
        "compare", "--recorded", "--machine", "flat:128", "--workload", str(require_trace(NASA)),
        "--config", "a:backfill=easy",
    )  # fmt: skip
    assert done.returncode == 1
    assert "nothing to rank against: the log records no waits" in done.stderr


def test_plot_draws_recorded_against_simulated(log, tmp_path):
    result, jobs = tmp_path / "r.json", tmp_path / "j.csv"
    args = ("--workload", log, "--backfill", "easy", "--out", str(result), "--jobs-out", str(jobs))
    assert meshsim("run", "--machine", "flat:4", *args, "-q").returncode == 0
    done = meshsim("plot", str(result), "--jobs", str(jobs), "--terminal")
    assert done.returncode == 0, done.stderr
    assert "recorded against simulated wait: 3 jobs (2 with a wait under 1 s" in done.stdout
    assert "2 without a recorded start not drawn" in done.stdout
    assert "mean wait per queue, recorded and simulated" in done.stdout
    assert "batch" in done.stdout and "debug" in done.stdout
    bars = meshsim("plot", str(result), "--terminal")
    assert "mean wait per queue" in bars.stdout and "recorded against" not in bars.stdout
    no_jobs = meshsim("plot", str(result), "--kind", "recorded-scatter", "--terminal")
    assert no_jobs.returncode == 1 and "needs the run's per-job CSV: --jobs FILE" in no_jobs.stderr


def test_plot_files_of_a_run(log, tmp_path):
    pytest.importorskip("matplotlib")
    result, jobs = tmp_path / "r.json", tmp_path / "j.csv"
    args = ("--workload", log, "--out", str(result), "--jobs-out", str(jobs), "-q")
    assert meshsim("run", "--machine", "flat:4", *args).returncode == 0
    done = meshsim("plot", str(result), "--jobs", str(jobs), "--format", "svg")
    assert done.returncode == 0, done.stderr
    names = sorted(p.name for p in (tmp_path / "figures").iterdir())
    assert names == ["recorded-queues.svg", "recorded-vs-simulated-wait.svg"]


def test_plot_says_why_a_result_has_nothing_to_draw(tmp_path):
    result = tmp_path / "r.json"
    args = ("--workload", str(require_trace(NASA)), "--out", str(result), "-q")
    assert meshsim("run", "--machine", "flat:128", *args).returncode == 0
    done = meshsim("plot", str(result), "--terminal")
    assert done.returncode == 1
    assert "no recorded schedule to draw: the log records no waits" in done.stderr
    other = tmp_path / "x.json"
    other.write_text("{}")
    assert "not a result of meshsim run" in meshsim("plot", str(other)).stderr
    other.write_text("{")
    assert "x.json line 1: not JSON" in meshsim("plot", str(other)).stderr


def test_a_run_with_changed_times_says_why_it_has_no_fit(log):
    done = meshsim("run", "--machine", "flat:4", "--workload", log, "--load-factor", "2")
    assert done.returncode == 0, done.stderr
    assert "workload: load factor 2" in done.stdout
    assert "recorded schedule: no fit: the run changed the log's times (load factor 2)" in (
        done.stdout
    )
    assert "jobs not compared: 5 times transformed, 1 skipped on load" in done.stdout


QUEUES = "; Queue: 10 q256s\n1 0 0 60 200 -1 -1 200 -1 -1 1 1 -1 -1 10 2 -1 -1\n"


@pytest.mark.parametrize(
    ("machine", "mapping", "message"),
    [
        ("paragon-sdsc", "q256s", "--queue-map 'q256s': expected NAME=QUEUE"),
        ("paragon-sdsc", "q256s=", "--queue-map 'q256s=': expected NAME=QUEUE"),
        ("paragon-sdsc", "q256s=q999m", "--queue-map q256s=q999m: the machine has no NQS queue"),
        ("paragon-sdsc", "q1ll=q1l", "--queue-map q1ll=q1l: no job of"),
        ("flat:256", "q256s=q256m", "--queue-map needs a machine with named queues"),
    ],
)
def test_a_bad_queue_map_is_one_error_naming_the_option_and_writes_nothing(
    tmp_path, machine, mapping, message
):
    trace = tmp_path / "q.swf"
    trace.write_text(QUEUES)
    out = tmp_path / "r.json"
    done = meshsim(
        "run", "--machine", machine, "--workload", str(trace), "--queue-map", mapping,
        "--out", str(out),
    )  # fmt: skip
    assert done.returncode == 1
    assert done.stderr.startswith("error: ") and done.stderr.count("\n") == 1, done.stderr
    assert message in done.stderr
    assert not out.exists()


def test_queue_map_is_an_option_of_run_tui_and_compare_and_a_run_rule():
    from meshsim.engine.validation.options import RUN

    assert RUN.rule("--queue-map").kind == "str"
    for command in ("run", "tui", "compare"):
        done = meshsim(command, "--help")
        assert "--queue-map" in done.stdout, command


def test_the_console_checks_the_queue_map_before_it_opens():
    done = meshsim("tui", "--machine", "paragon-sdsc", "--queue-map", "nonsense")
    assert done.returncode == 1
    assert done.stderr == (
        "error: --queue-map 'nonsense': expected NAME=QUEUE "
        "(a queue name of the trace, a queue name of the machine)\n"
    )


def test_compare_recorded_writes_nothing_when_the_log_has_no_waits(tmp_path):
    out = tmp_path / "ranking"
    done = meshsim(
        "compare", "--recorded", "--machine", "flat:128", "--workload",
        str(ROOT / "traces" / "nasa-ipsc-1000.swf"), "--config", "a:backfill=easy",
        "--out", str(out),
    )  # fmt: skip
    assert done.returncode == 1 and done.stderr.count("\n") == 1
    assert "nothing to rank against: the log records no waits" in done.stderr
    assert not out.exists()


def test_plot_kinds_belong_to_what_is_plotted(log, tmp_path):
    result = tmp_path / "r.json"
    ran = meshsim("run", "--machine", "flat:4", "--workload", log, "--out", str(result), "-q")
    assert ran.returncode == 0, ran.stderr
    done = meshsim("plot", str(result), "--kind", "load", "--terminal")
    assert done.returncode == 1
    assert "--kind load: not a figure of a result JSON (valid: recorded-scatter" in done.stderr
    folder = meshsim("plot", str(tmp_path), "--jobs", str(result), "--terminal")
    assert folder.returncode == 1 and "--jobs: only for a result JSON" in folder.stderr
    unknown = meshsim("plot", str(result), "--kind", "pie", "--terminal")
    assert unknown.returncode == 1 and "--kind" in unknown.stderr
