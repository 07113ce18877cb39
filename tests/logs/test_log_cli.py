"""Logs wherever a trace is accepted: ``trace convert`` and ``trace info``, ``run`` (with
``--alloc recorded`` on Intrepid), ``compare``, ``sweep``; bad logs and options get one
``error:`` line and change no file."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys

import pytest

from meshsim.engine.logs.trace import ORIGIN_COLUMNS
from meshsim.engine.tools.runcase import RunOptions
from meshsim.engine.tools.session import Session
from meshsim.engine.workloads.swf import read_swf
from tests.conftest import DATA

LOGS = DATA / "logs"
ALL = {
    "slurm-jobcomp.txt": [],
    "slurm-sacct.txt": [],
    "pbs-torque.log": [],
    "pbs-pro": ["--tz", "Europe/Berlin"],
    "cobalt-intrepid.log": ["--tz", "America/Chicago"],
}


def meshsim(*args: str, env=None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "meshsim", *args], capture_output=True, text=True, env=env
    )


@pytest.mark.parametrize("name", sorted(ALL))
def test_convert_writes_standard_swf_and_an_origin_file(tmp_path, name):
    out = tmp_path / "out.swf"
    done = meshsim("trace", "convert", str(LOGS / name), str(out), *ALL[name])
    assert done.returncode == 0, done.stderr
    trace = read_swf(out)
    header = trace.header
    assert header.version == "2.2" and header.unix_start_time is not None
    assert header.time_zone_string == (ALL[name][1] if ALL[name] else "UTC")
    assert any("origin file: out.origin.csv" in n for n in header.notes)
    assert header.get("Conversion").startswith("meshsim ")
    with (tmp_path / "out.origin.csv").open() as fh:
        rows = list(csv.reader(fh))
    assert tuple(rows[0]) == ORIGIN_COLUMNS
    assert [int(r[0]) for r in rows[1:]] == trace.records[:, 0].astype(int).tolist()
    (tmp_path / "again").mkdir()
    again = tmp_path / "again" / "out.swf"
    meshsim("trace", "convert", str(LOGS / name), str(again), *ALL[name])
    assert again.read_bytes() == out.read_bytes()  # same log, same bytes
    assert (tmp_path / "again" / "out.origin.csv").read_bytes() == (
        tmp_path / "out.origin.csv"
    ).read_bytes()


@pytest.mark.parametrize("name", sorted(ALL))
def test_run_replays_each_log(tmp_path, name):
    machine = "intrepid" if name.startswith("cobalt") else "flat:65536"
    done = meshsim(
        "run", "--machine", machine, "--workload", str(LOGS / name), *ALL[name],
        "--out", str(tmp_path / "r.json"),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    doc = json.loads((tmp_path / "r.json").read_text())
    info = json.loads(
        meshsim("trace", "info", str(LOGS / name), *ALL[name], "--json").stdout or "{}"
    )
    assert doc["metrics"]["jobs"] == info["jobs"]
    assert info["records"] == info["jobs"] + sum(info["skipped"].values())
    assert len(info["log"]["skipped_records"]) == sum(info["skipped"].values())


def test_recorded_placement_puts_every_cobalt_job_where_it_ran(tmp_path):
    jobs = tmp_path / "jobs.csv"
    done = meshsim(
        "run", "--machine", "intrepid", "--workload", str(LOGS / "cobalt-intrepid.log"),
        "--tz", "America/Chicago", "--alloc", "recorded", "--jobs-out", str(jobs),
        "--out", str(tmp_path / "r.json"),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    with jobs.open() as fh:
        placed = {int(r["job_id"]): r["location"] for r in csv.DictReader(fh)}
    assert placed == {
        1: "2K R00-M0..R01-M1",
        2: "R10-M0",
        3: "1K R11-M0..R11-M1",
        5: "8K R20-M0..R27-M1",
        6: "8K R30-M0..R37-M1",
        7: "16K R00-M0..R17-M1",
        8: "R40-M1",
    }
    assert json.loads((tmp_path / "r.json").read_text())["rejected"] == {}


def test_recorded_placement_rejects_jobs_without_an_intrepid_partition(tmp_path):
    log = tmp_path / "elsewhere.log"
    log.write_text(
        (LOGS / "cobalt-intrepid.log").read_text().replace("ANL-R10-M0-512", "SUR-R00-M9-512")
    )
    done = meshsim(
        "run", "--machine", "intrepid", "--workload", str(log), "--tz", "America/Chicago",
        "--alloc", "recorded", "--out", str(tmp_path / "r.json"),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    doc = json.loads((tmp_path / "r.json").read_text())
    assert doc["rejected"] == {"recorded partition not on this machine": 1}
    meshsim("run", "--machine", "intrepid", "--workload", str(DATA / "intrepid-mini.swf"),
                  "--alloc", "recorded", "--out", str(tmp_path / "s.json"))  # fmt: skip
    assert json.loads((tmp_path / "s.json").read_text())["rejected"] == {"no recorded partition": 6}


def test_compare_and_sweep_take_logs(tmp_path):
    done = meshsim(
        "compare", "--machine", "flat:16", "--workload", str(LOGS / "slurm-sacct.txt"),
        "--config", "fcfs:backfill=none", "--config", "easy:backfill=easy", "--whole",
        "--workers", "1",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    spec = tmp_path / "spec.toml"
    spec.write_text(
        f'[base]\nmachine = "flat:16"\nworkload = "{LOGS / "pbs-pro"}"\ntz = "Europe/Berlin"\n'
        '[grid]\nbackfill = ["none", "easy"]\n'
    )
    done = meshsim("sweep", str(spec), "--quiet", "--workers", "1")
    assert done.returncode == 0, done.stderr
    with (tmp_path / "spec-results" / "results.csv").open() as fh:
        assert [r["status"] for r in csv.DictReader(fh)] == ["ok", "ok"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--from", "lsf"], "unknown log format 'lsf' (valid: sacct, jobcomp, cobalt, pbs)"),
        (["--tz", "Mars/Olympus"], "--tz 'Mars/Olympus': not a time zone"),
        (["--partition-limit", "batch"], "--partition-limit 'batch': expected NAME=DURATION"),
    ],
)
def test_bad_log_options_are_one_error_line(tmp_path, args, message):
    out = tmp_path / "out.swf"
    done = meshsim("trace", "convert", str(LOGS / "slurm-sacct.txt"), str(out), *args)
    assert done.returncode != 0
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {message}")
    assert not out.exists() and list(tmp_path.iterdir()) == []


def test_a_file_that_is_no_format_names_its_line_and_replaces_nothing(tmp_path):
    notes = tmp_path / "notes.txt"
    notes.write_text("\n# a comment\nhello world\n")
    out = tmp_path / "out.swf"
    out.write_text("keep me\n")
    done = meshsim("trace", "convert", str(notes), str(out))
    assert done.returncode != 0
    assert done.stderr.startswith(f"error: {notes} line 3: not a known trace or log format")
    assert len(done.stderr.strip().splitlines()) == 1
    assert out.read_text() == "keep me\n"
    done = meshsim("trace", "convert", str(notes), str(out), "--from", "jobcomp", "--lenient")
    assert done.returncode != 0 and "no jobs in 1 records (1 malformed line)" in done.stderr


def test_convert_never_writes_over_its_input(tmp_path):
    log = tmp_path / "log.origin.csv"
    log.write_bytes((LOGS / "slurm-jobcomp.txt").read_bytes())
    done = meshsim("trace", "convert", str(log), str(tmp_path / "log.swf"), "--from", "jobcomp")
    assert done.returncode != 0 and "an output never replaces an input" in done.stderr
    assert log.read_bytes() == (LOGS / "slurm-jobcomp.txt").read_bytes()
    assert not (tmp_path / "log.swf").exists()


@pytest.mark.parametrize("command", [["run"], ["tui"], ["compare"], ["trace", "info"]])
def test_the_log_options_are_shared(command):
    done = meshsim(*command, "--help", env={**os.environ, "COLUMNS": "200"})
    assert done.returncode == 0, done.stderr
    for option in ("--from", "--tz", "--partition-limit", "--lenient"):
        assert option in done.stdout
    assert "sacct, jobcomp, cobalt, pbs" in done.stdout


def test_the_console_session_opens_on_a_log():
    options = RunOptions(
        machine="intrepid",
        workload=str(LOGS / "cobalt-intrepid.log"),
        tz="America/Chicago",
        alloc="recorded",
    )
    session = Session(options)
    session.run()
    assert session.results().metrics["jobs"] == 7
    assert session.workload.skipped["cancelled_before_start"] == 1
