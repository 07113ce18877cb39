"""The command line: runs, outputs, determinism, listings, and one-line errors on bad input."""

import json
import os
import subprocess
import sys

import pytest

from tests.conftest import DATA, NASA, require_trace


def meshsim(*args: str, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "meshsim", *args], capture_output=True, text=True, cwd=cwd
    )


def test_run_writes_every_output(tmp_path):
    out = tmp_path / "r.json"
    done = meshsim(
        "run",
        "--machine",
        "flat:4",
        "--workload",
        str(DATA / "tiny.swf"),
        "--backfill",
        "easy",
        "--out",
        str(out),
        "--jobs-out",
        str(tmp_path / "j.csv"),
        "--events-out",
        str(tmp_path / "e.jsonl"),
        "--swf-out",
        str(tmp_path / "s.swf"),
    )
    assert done.returncode == 0, done.stderr
    assert "utilization" in done.stdout
    doc = json.loads(out.read_text())
    assert doc["schema"] == "meshsim.result/1"
    for key in (
        "jobs",
        "avg_wait_s",
        "max_wait_s",
        "avg_response_s",
        "avg_bsld",
        "utilization",
        "unused_capacity",
        "lost_capacity",
        "loss_of_capacity",
        "makespan_s",
    ):
        assert key in doc["metrics"]
    assert doc["inputs"]["policy"]["backfill"] == "easy"
    assert doc["skipped"]["larger_than_machine"] == 0
    header = (tmp_path / "j.csv").read_text().splitlines()[0].split(",")
    assert header[:8] == ["job_id", "submit", "start", "end", "size", "allocated", "wait", "bsld"]
    assert "location" in header
    events = [json.loads(line) for line in (tmp_path / "e.jsonl").read_text().splitlines()]
    assert {e["kind"] for e in events} == {"arrival", "start", "end"}
    schedule = (tmp_path / "s.swf").read_text()
    assert "Note: schedule simulated by meshsim" in schedule
    rows = [line.split() for line in schedule.splitlines() if not line.startswith(";")]
    assert [r[2] for r in rows] == ["0", "10", "0"]


def test_result_json_is_byte_identical_across_runs(tmp_path):
    trace = str(require_trace(NASA))
    for name in ("a", "b"):
        done = meshsim(
            "run",
            "--machine",
            "flat:128",
            "--workload",
            trace,
            "--queue",
            "wfp",
            "--backfill",
            "easy",
            "--runtime-scale",
            "1.5",
            "--quiet",
            "--out",
            str(tmp_path / f"{name}.json"),
        )
        assert done.returncode == 0, done.stderr
        assert done.stdout == ""
    assert (tmp_path / "a.json").read_bytes() == (tmp_path / "b.json").read_bytes()


def test_default_run_works():
    done = meshsim("run", "--quiet")
    assert done.returncode == 0, done.stderr


def test_help_lists_every_policy_name():
    text = meshsim("run", "--help").stdout
    for name in ("fcfs", "sjf", "wfp", "none", "easy", "conservative", "flat"):
        assert name in text
    listing = meshsim("list").stdout
    for name in ("wfp", "conservative", "flat-poisson", "ipsc860", "hold", "cancel"):
        assert name in listing


def _bad(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


ROW = "1 0 -1 10 2 -1 -1 2 10 -1 1 1 1 -1 1 -1 -1 -1"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--workload", "{tmp}/absent.swf"], "absent.swf: no such file"),
        (["--workload", "empty.swf"], "is empty"),
        (["--workload", "header.swf"], "has a header but no job records"),
        (["--workload", "truncated.swf"], "line 2: expected 18 fields, got 5"),
        (["--workload", "nonnumeric.swf"], "line 1: field 2 (submit_time) is not a number"),
        (["--machine", "nosuch"], "unknown machine 'nosuch' (valid:"),
        (["--queue", "lifo"], "unknown queue order 'lifo' (valid: fcfs, sjf, wfp"),
        (["--backfill", "greedy"], "unknown backfill 'greedy' (valid: none, easy, conservative"),
        (["--alloc", "magic"], "unknown allocator 'magic' (valid:"),
        (["--machine", "broken.toml"], "broken.toml key 'topology.nodes': expected an integer"),
        (["--machine", "typo.toml"], "typo.toml key 'machine.nmae': unknown key"),
        (["--load-factor", "0"], "--load-factor: must be greater than 0"),
    ],
)
def test_bad_input_is_one_line_and_nonzero(tmp_path, args, message):
    _bad(tmp_path, "empty.swf", "")
    _bad(tmp_path, "header.swf", "; Version: 2\n; MaxJobs: 1\n")
    _bad(tmp_path, "truncated.swf", f"{ROW}\n2 5 -1 10 2\n")
    _bad(tmp_path, "nonnumeric.swf", ROW.replace("1 0", "1 zero", 1) + "\n")
    _bad(
        tmp_path,
        "broken.toml",
        '[machine]\nname = "b"\ntopology = "flat"\n[topology]\nnodes = "many"\n',
    )
    _bad(
        tmp_path,
        "typo.toml",
        '[machine]\nname = "t"\nnmae = "x"\ntopology = "flat"\n[topology]\nnodes = 4\n',
    )
    full = ["run", "--machine", "flat:4", "--workload", str(DATA / "tiny.swf")]
    for flag, value in zip(args[::2], args[1::2], strict=True):
        value = value.replace("{tmp}", str(tmp_path))
        if value.endswith((".swf", ".toml")) and "/" not in value:
            value = str(tmp_path / value)
        full += [flag, value]
    done = meshsim(*full)
    assert done.returncode != 0
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("error: ")
    assert message in lines[0]


def test_negative_size_and_too_large_jobs_are_counted_skips(tmp_path):
    rows = [
        ROW,
        "2 1 -1 10 -4 -1 -1 -4 10 -1 1 1 1 -1 1 -1 -1 -1",
        "3 2 -1 10 64 -1 -1 64 10 -1 1 1 1 -1 1 -1 -1 -1",
    ]
    path = _bad(tmp_path, "skips.swf", "\n".join(rows) + "\n")
    done = meshsim(
        "run", "--machine", "flat:4", "--workload", path, "--out", str(tmp_path / "r.json")
    )
    assert done.returncode == 0, done.stderr
    doc = json.loads((tmp_path / "r.json").read_text())
    assert doc["skipped"]["size_not_positive"] == 1
    assert doc["skipped"]["larger_than_machine"] == 1
    assert doc["metrics"]["jobs"] == 1
    assert "skipped jobs: 1 size not positive, 1 larger than machine" in done.stdout


def test_lenient_reports_malformed_lines(tmp_path):
    path = _bad(tmp_path, "m.swf", f"{ROW}\nbroken line\n")
    done = meshsim("run", "--machine", "flat:4", "--workload", path, "--lenient")
    assert done.returncode == 0, done.stderr
    assert "1 malformed line" in done.stdout


def test_trace_info_and_convert(tmp_path):
    done = meshsim("trace", "info", str(DATA / "tiny.swf"), "--json")
    info = json.loads(done.stdout)
    assert info["jobs"] == 3
    assert info["span"]["first_date"].startswith("2008-12-31T18:00:00-06:00")
    assert info["sizes"] == {"1": 1, "2": 1, "3-4": 1}
    text = meshsim("trace", "info", str(DATA / "tiny.swf")).stdout
    assert "arrivals by hour of day" in text
    out = tmp_path / "cut.csv"
    done = meshsim("trace", "convert", str(DATA / "tiny.swf"), str(out), "--start", "1")
    assert done.returncode == 0, done.stderr
    lines = out.read_text().splitlines()
    assert lines[0].startswith("job_number,submit_time")
    assert len(lines) == 2 and lines[1].startswith("3,4,")


@pytest.mark.parametrize("columns", ["80", "200"])
def test_trace_info_shows_every_hour_and_day_count_at_any_width(columns):
    """At 80 columns a 24-column table cut the hours' labels and counts to '…'."""
    env = {**os.environ, "COLUMNS": columns}
    done = subprocess.run(
        [sys.executable, "-m", "meshsim", "trace", "info", str(DATA / "logs/slurm-sacct-all.txt")],
        capture_output=True,
        text=True,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    text = done.stdout
    assert "…" not in text
    assert max(len(line) for line in text.splitlines()) <= int(columns)
    cells = [c.strip() for line in text.splitlines() for c in line.split("│") + line.split("┃")]
    for hour in range(24):
        assert f"{hour:02d}" in cells
    assert "12" in cells
    for day in ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"):
        assert day in cells


def test_trace_convert_month(tmp_path):
    out = tmp_path / "month.swf"
    done = meshsim("trace", "convert", str(require_trace(NASA)), str(out), "--month", "1993-11")
    assert done.returncode == 0, done.stderr
    again = meshsim("trace", "info", str(out), "--json")
    info = json.loads(again.stdout)
    assert info["span"]["first_date"].startswith("1993-11-01")
    assert info["span"]["first_submit_s"] >= 0
    bad = meshsim("trace", "convert", str(DATA / "tiny.swf"), str(out), "--month", "March")
    assert bad.returncode != 0 and "expected YYYY-MM" in bad.stderr


def test_machines_commands(tmp_path):
    assert "ipsc860" in meshsim("machines", "list").stdout
    shown = meshsim("machines", "show", "ipsc860").stdout
    assert "128 interchangeable nodes" in shown
    bad = _bad(tmp_path, "bad.toml", '[machine]\nname = "x"\ntopology = "hypercube"\n')
    done = meshsim("machines", "validate", bad)
    assert done.returncode == 1
    assert "key 'machine.topology': unknown topology 'hypercube' (valid: flat" in done.stderr


def test_nqs_report_on_the_paragon(tmp_path):
    spec = tmp_path / "two-weeks.toml"
    spec.write_text('[workload]\nkind = "paragon-nqs"\ndays = 14\nseed = 7\n')
    done = meshsim(
        "run",
        "--machine",
        "paragon-sdsc",
        "--workload",
        str(spec),
        "--report",
        "nqs",
        "--report-out",
        str(tmp_path / "tables"),
    )
    assert done.returncode == 0, done.stderr
    for title in ("Table 1", "Table 2", "Table 3", "Table 4", "Table 5"):
        assert title in done.stdout
    assert sorted(p.name for p in (tmp_path / "tables").iterdir()) == [
        f"table{k}.csv" for k in range(1, 6)
    ]
    rows = (tmp_path / "tables" / "table5.csv").read_text().splitlines()
    assert rows[0] == "queue,jobs,usage %,avg wait (h),avg execution (h),expansion factor"
    assert any(r.startswith("q64l,") for r in rows)


def test_tui_takes_every_simulation_option_run_takes():
    """Issue 22: the BG/L reproduction (``--runtime-scale 1.5 --migrate``) must open in the console,
    so ``tui`` shares ``run``'s one definition of every simulation option."""
    from dataclasses import fields

    import typer.main

    from meshsim.cli.run import run
    from meshsim.cli.tui import tui
    from meshsim.engine.tools.runcase import RunOptions

    def parameters(command) -> set[str]:  # type: ignore[no-untyped-def]
        app = typer.Typer()
        app.command()(command)
        return {p.name for p in typer.main.get_command(app).params}

    wanted = {f.name for f in fields(RunOptions)}
    assert wanted <= parameters(run)
    assert wanted <= parameters(tui)


@pytest.mark.parametrize("columns", ["80", "200"])
def test_machines_list_says_which_machines_need_a_workload(columns):
    """At any width every name and figure is whole (at 80 columns 'paragon-sd…' stood for two
    machines) and every description is shown."""
    done = subprocess.run(
        [sys.executable, "-m", "meshsim", "machines", "list"],
        capture_output=True,
        text=True,
        env={**os.environ, "COLUMNS": columns},
    )
    assert done.returncode == 0, done.stderr
    assert "…" not in done.stdout
    rows = {line.split("│")[1].strip(): line for line in done.stdout.splitlines() if "│" in line}
    assert {"paragon-sdsc", "paragon-sdsc-1996", "paragon-batch", "paragon-io"} <= set(rows)
    assert "give --workload" in rows["bgl"] and "give --workload" in rows["tflops"]
    assert "bundled" in rows["intrepid"]
    assert "BlueGene/L: 4x4x8 torus" in done.stdout


def test_run_summary_says_how_many_of_the_first_n_were_replayed(tmp_path):
    """Issue 23: with ``--first N`` the summary counts the N: replayed, skipped by reason, and
    past the end of the file."""
    rows = [
        "1 0 -1 10 2 -1 -1 2 10 -1 1 1 1 -1 1 -1 -1 -1",
        "2 1 -1 -1 2 -1 -1 2 10 -1 5 1 1 -1 1 -1 -1 -1",
    ]
    (tmp_path / "t.swf").write_text("\n".join(rows) + "\n")
    done = meshsim(
        "run", "--machine", "flat:4", "--workload", str(tmp_path / "t.swf"), "--first", "4"
    )
    assert done.returncode == 0, done.stderr
    assert (
        "records 1–4 (--first 4): 1 of 4 replayed; not replayed: 1 runtime negative, "
        "2 past the end of the file"
    ) in done.stdout
