"""``meshsim run`` on machines with I/O nodes: traffic options, contention columns and metrics."""

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from meshsim.engine.families.contention.observer import JOB_COLUMNS
from meshsim.engine.tools.runcase import RunOptions
from meshsim.engine.tools.scenario import Scenario, save_scenario
from tests.sweep.helpers import run_schema

MACHE = (
    '[workload]\nkind = "mache-io"\njobs = 40\nmean_interarrival = 300\n'
    "iterations = 20000\nio_share = 1.0\nseed = 3\n"
)


def meshsim(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "COLUMNS": "250"}
    return subprocess.run(
        [sys.executable, "-m", "meshsim", *args], capture_output=True, text=True, env=env
    )


@pytest.fixture(scope="module")
def workload(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("w") / "mache.toml"
    path.write_text(MACHE)
    return path


def test_run_with_a_pattern_reports_contention(tmp_path, workload):
    out, jobs = tmp_path / "r.json", tmp_path / "j.csv"
    done = meshsim(
        "run", "--machine", "paragon-io", "--workload", str(workload), "--alloc", "mc",
        "--runtime-model", "contention", "--pattern", "fft", "--io-traffic", "read",
        "--io-share", "0.5", "--out", str(out), "--jobs-out", str(jobs),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "intra / inter-job contention" in done.stdout
    assert "network throughput" in done.stdout
    doc = json.loads(out.read_text())
    assert "traffic pattern fft, io_traffic read, io_share 0.5" in doc["inputs"]["transforms"]
    m = doc["metrics"]
    for key in (
        "max_contention_time_mean",
        "balance_time_mean",
        "intra_contention_time_mean",
        "inter_contention_time_mean",
        "network_throughput_mb_s_time_mean",
        "diameter_time_mean",
        "diameter_mean",
    ):
        assert m[key] >= 0, key
    rows = list(csv.DictReader(jobs.open()))
    assert len(rows) == 40
    assert list(rows[0])[-len(JOB_COLUMNS) :] == list(JOB_COLUMNS)
    assert all(int(r["nodes_affected"]) >= int(r["size"]) for r in rows)


def test_unknown_pattern_is_one_line_listing_the_valid_names(workload):
    done = meshsim(
        "run", "--machine", "paragon-io", "--workload", str(workload), "--pattern", "ring", "-q"
    )  # fmt: skip
    assert done.returncode != 0
    assert "Traceback" not in done.stderr
    assert "unknown communication pattern 'ring' (valid: all-to-all," in done.stderr
    done = meshsim("run", "--machine", "mesh32", "--io-traffic", "read", "-q")
    assert done.returncode != 0 and "need a machine with I/O nodes" in done.stderr


def test_help_and_list_name_the_patterns():
    help_text = meshsim("run", "--help").stdout
    for name in ("--pattern", "--io-traffic", "--io-share", "circular-shift", "random-pairs"):
        assert name in help_text
    listing = meshsim("list").stdout
    assert "communication pattern (--pattern)" in listing
    assert "I/O traffic (--io-traffic)" in listing and "write, read" in listing


def test_scenario_files_carry_the_traffic(tmp_path, workload):
    options = RunOptions(
        machine="paragon-io",
        workload=str(workload),
        alloc="paging",
        runtime_model="contention",
        pattern="nbody",
        io_share=0.0,
    )
    path = tmp_path / "s.json"
    save_scenario(path, Scenario(options, name="nbody ring"))
    assert '"pattern": "nbody"' in path.read_text()
    out = tmp_path / "r.json"
    done = meshsim("run", "--scenario", str(path), "--out", str(out), "-q")
    assert done.returncode == 0, done.stderr
    doc = json.loads(out.read_text())
    assert "traffic pattern nbody, io_share 0.0" in doc["inputs"]["transforms"]
    assert doc["metrics"]["inter_contention_time_mean"] >= 0


def test_sweep_specs_accept_the_traffic_options():
    schema = run_schema()
    kinds = {key: schema.get(key).kind for key in ("pattern", "io-traffic", "io-share")}
    assert kinds == {"pattern": "str", "io-traffic": "str", "io-share": "float"}
