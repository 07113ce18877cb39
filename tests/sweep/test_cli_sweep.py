"""The sweep, reproduce and plot commands end to end: a sweep killed halfway (SIGINT or SIGKILL)
resumes without recomputing finished cases; a real Dask scheduler and worker on 127.0.0.1 give the
table the local executor gives; reproduce prints the paper beside meshsim and names what it lacks;
plots are drawn."""

import importlib.util
import json
import os
import signal
import socket
import subprocess
import sys
import time

import pytest

from tests.sweep.helpers import TINY, WORKLOAD, meshsim, write


def _sweep_files(tmp_path, jobs=4000, seeds=8):
    write(tmp_path / "w.toml", WORKLOAD.format(jobs=jobs))
    grid = ", ".join(str(s) for s in range(1, seeds + 1))
    base = '[base]\nmachine = "flat:16"\nworkload = "w.toml"\nbackfill = "easy"\n'
    text = f"{base}[grid]\nseed = [{grid}]\n"
    return write(tmp_path / "s.toml", text)


def _finished(folder):
    cases = folder / "cases"
    return sorted(cases.glob("*.meta.json")) if cases.is_dir() else []


@pytest.mark.parametrize("how", [signal.SIGINT, signal.SIGKILL])
def test_killed_sweep_resumes_without_recomputing_finished_cases(tmp_path, how):
    spec = _sweep_files(tmp_path)
    results = tmp_path / "r"
    command = [
        sys.executable,
        "-m",
        "meshsim",
        "sweep",
        str(spec),
        "--results",
        str(results),
        "--workers",
        "1",
    ]
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 30
    while len(_finished(results)) < 2 and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.01)
    proc.send_signal(how)
    _, stderr = proc.communicate(timeout=30)
    finished = {p.name: p.stat().st_mtime_ns for p in _finished(results)}
    assert 2 <= len(finished) < 8, "the sweep was not caught halfway; make its cases longer"
    if how == signal.SIGINT:
        assert proc.returncode == 130
        assert "interrupted:" in stderr and "run the same command again" in stderr
        assert "Traceback" not in stderr
        assert not list(results.rglob("*.part"))
    done = meshsim("sweep", str(spec), "--results", str(results), "--workers", "1")
    assert done.returncode == 0, done.stderr
    assert (
        f"8 cases: {len(finished)} already finished, {8 - len(finished)} run now, 0 failed"
        in done.stdout
    )
    assert {
        p.name: p.stat().st_mtime_ns for p in _finished(results) if p.name in finished
    } == finished
    statuses = [
        line.split(",")[2] for line in (results / "results.csv").read_text().splitlines()[1:]
    ]
    assert statuses == ["ok"] * 8
    assert not list(results.rglob("*.part"))


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.skipif(
    importlib.util.find_spec("distributed") is None,
    reason="dask.distributed is not installed (pip install 'meshsim[dask]')",
)
def test_dask_scheduler_and_worker_on_localhost_give_the_local_table(tmp_path):
    spec = _sweep_files(tmp_path, jobs=200, seeds=4)
    port = _free_port()
    address = f"127.0.0.1:{port}"
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    scheduler = subprocess.Popen(
        [sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1",
         "--port", str(port), "--no-dashboard"], **quiet,
    )  # fmt: skip
    worker = subprocess.Popen(
        [sys.executable, "-m", "distributed.cli.dask_worker", f"tcp://{address}", "--nworkers",
         "1", "--nthreads", "1", "--no-dashboard", "--host", "127.0.0.1"], cwd=tmp_path, **quiet,
    )  # fmt: skip
    try:
        done = meshsim(
            "sweep",
            str(spec),
            "--results",
            str(tmp_path / "dask"),
            "--executor",
            f"dask://{address}",
        )
        assert done.returncode == 0, done.stderr
    finally:
        for proc in (worker, scheduler):
            proc.terminate()
        for proc in (worker, scheduler):
            proc.wait(timeout=20)
    local = meshsim("sweep", str(spec), "--results", str(tmp_path / "local"), "--workers", "2")
    assert local.returncode == 0, local.stderr
    assert (tmp_path / "dask" / "results.csv").read_bytes() == (
        tmp_path / "local" / "results.csv"
    ).read_bytes()


def test_failures_exit_nonzero_after_writing_everything(tmp_path):
    write(tmp_path / "bad.swf", "garbage\n")
    text = f'[base]\nmachine = "flat:4"\n[grid]\nworkload = ["bad.swf", "{TINY}"]\n'
    done = meshsim("sweep", str(write(tmp_path / "s.toml", text)))
    assert done.returncode == 1
    assert "error: 1 of 2 cases failed" in done.stderr
    assert "bad.swf line 1" in done.stdout
    assert (tmp_path / "s-results" / "results.csv").is_file()


EXPERIMENT = """
[experiment]
name = "tiny-demo"
version = 2
title = "EASY against none on the tiny trace, and a policy that does not exist yet"
source = "hand computation (tests/engine/test_metrics.py)"
notes = "test experiment"
[experiment.traces]
"absent-trace.swf" = "meshsim trace fetch absent-trace"
[sweep]
baseline = { backfill = "none" }
[base]
machine = "flat:4"
workload = "TRACE"
[grid]
backfill = ["none", "easy"]
alloc = ["flat", "quantum"]
[[compare]]
label = "mean wait without backfilling"
where = { backfill = "none", alloc = "flat" }
statistic = "value"
metric = "avg_wait_s"
paper = 8.333333333333334
[[compare]]
label = "wait gain of EASY"
where = { backfill = "easy", alloc = "flat" }
statistic = "gain"
metric = "avg_wait_s"
scale = 100
unit = "%"
[[compare]]
label = "with a future allocator"
where = { alloc = "quantum" }
statistic = "max"
metric = "utilization"
paper = 0.5
"""


def test_reproduce_runs_what_it_can_and_names_what_it_lacks(tmp_path):
    path = write(tmp_path / "tiny-demo.toml", EXPERIMENT.replace("TRACE", str(TINY)))
    done = meshsim("reproduce", str(path), cwd=tmp_path, env={**os.environ, "COLUMNS": "200"})
    assert done.returncode == 0, done.stderr
    assert "needs allocator 'quantum' (not available) — 2 of 4 cases left out" in done.stderr
    text = done.stdout
    assert "tiny-demo: paper vs. meshsim" in text
    assert "│ mean wait without backfilling │ 8.33333 │   8.333 │" in text
    assert "│ wait gain of EASY             │       — │     60% │" in text
    assert "not run: needs allocator 'quantum'" in text
    assert (tmp_path / "meshsim-results" / "tiny-demo-v2" / "results.csv").is_file()
    absent = write(tmp_path / "absent.toml", EXPERIMENT.replace("TRACE", "trace:absent-trace.swf"))
    done = meshsim("reproduce", str(absent), cwd=tmp_path)
    assert done.returncode == 1
    line = done.stderr.strip()
    assert "needs trace 'absent-trace.swf' (absent: meshsim trace fetch absent-trace;" in line
    assert len(line.splitlines()) == 1


def test_reproduce_list_and_experiments_needing_other_work():
    listing = meshsim("reproduce", "--list")
    assert listing.returncode == 0
    for name in ("ababneh2010-fig6", "ababneh2010-fig7", "krevat2002-fig1", "tang2010-table2",
                 "tang2010-fig6-9", "mache1999-table5"):  # fmt: skip
        assert name in listing.stdout
    done = meshsim("reproduce", "mache1999-table5")
    if "contention" not in meshsim("--help").stdout:
        assert done.returncode == 1
        assert "error: mache1999-table5: needs command 'contention' (not available)" in done.stderr
    unknown = meshsim("reproduce", "nosuch2000")
    assert (
        unknown.returncode == 1
        and "unknown experiment 'nosuch2000' (valid: ababneh2010-fig6" in unknown.stderr
    )


def _plot_results(tmp_path):
    write(tmp_path / "w.toml", WORKLOAD.format(jobs=80))
    text = """[sweep]
jobs = true
replications = 2
baseline = { backfill = "none" }
[base]
machine = "flat:16"
workload = "w.toml"
[grid]
backfill = ["none", "easy"]
load-factor = [1.0, 2.0]
"""
    done = meshsim("sweep", str(write(tmp_path / "p.toml", text)), "--results", str(tmp_path / "r"))
    assert done.returncode == 0, done.stderr
    return tmp_path / "r"


def test_terminal_plots(tmp_path):
    results = _plot_results(tmp_path)
    done = meshsim("plot", str(results), "--terminal", "--width", "70")
    assert done.returncode == 0, done.stderr
    text = done.stdout
    assert "avg_wait_s against load-factor" in text
    assert "mean bounded slowdown against utilization" in text
    assert "wait CDF by size class (load-factor=1.0)" in text
    assert "● backfill=none" in text and "■ backfill=easy" in text
    assert "x: wait (minutes)   y: fraction of jobs" in text


@pytest.mark.skipif(
    importlib.util.find_spec("matplotlib") is None,
    reason="matplotlib is not installed (pip install 'meshsim[plot]')",
)
def test_plot_files(tmp_path):
    results = _plot_results(tmp_path)
    for fmt in ("png", "svg"):
        done = meshsim("plot", str(results), "--format", fmt, "--out", str(tmp_path / fmt))
        assert done.returncode == 0, done.stderr
        names = sorted(p.name for p in (tmp_path / fmt).iterdir())
        assert f"utilization-vs-slowdown.{fmt}" in names
        assert f"avg_wait_s-vs-load-factor.{fmt}" in names
        assert f"wait-cdf-1.{fmt}" in names and f"wait-cdf-2.{fmt}" in names
    assert (tmp_path / "png" / "wait-cdf-1.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "<svg" in (tmp_path / "svg" / "utilization-vs-slowdown.svg").read_text()


def test_plot_errors_are_one_line(tmp_path):
    done = meshsim("plot", str(tmp_path))
    assert done.returncode == 1
    assert "not a sweep results folder (no sweep.json)" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_sweep_json_records_the_plan(tmp_path):
    spec = _sweep_files(tmp_path, jobs=20, seeds=2)
    assert meshsim("sweep", str(spec), "-q").returncode == 0
    manifest = json.loads((tmp_path / "s-results" / "sweep.json").read_text())
    assert manifest["schema"] == "meshsim.sweep/1"
    assert manifest["keys"] == ["seed"]
    assert [c["values"]["seed"] for c in manifest["cases"]] == [1, 2]
    assert os.path.basename(manifest["spec"]) == "s.toml"


def test_a_cut_case_file_is_reported_by_plot_and_recomputed_by_the_next_sweep(tmp_path):
    results = _plot_results(tmp_path)
    case = next((results / "cases").glob("*.meta.json")).name.replace(".meta.json", "")
    stored = results / "cases" / f"{case}.json"
    whole = stored.read_bytes()
    stored.write_bytes(whole[: len(whole) // 2])
    plot = meshsim("plot", str(results), "--terminal")
    assert plot.returncode == 0, plot.stderr
    assert plot.stderr.startswith(
        f"warning: 1 stored case(s) could not be read and are left out "
        f"(first: {case}, {case}.json: changed or cut short"
    )
    assert "Traceback" not in plot.stderr
    again = meshsim("sweep", str(tmp_path / "p.toml"), "--results", str(results), "-q")
    assert again.returncode == 0, again.stderr
    assert again.stderr.startswith("warning: 1 stored case(s) could not be read and were computed")
    assert stored.read_bytes() == whole


def _machines_results(tmp_path):
    write(tmp_path / "w.toml", WORKLOAD.format(jobs=60))
    text = """[base]
workload = "w.toml"
[grid]
machine = ["flat:16", "flat:32"]
backfill = ["none", "easy"]
runtime-scale = [1.0, 2.0]
"""
    done = meshsim("sweep", str(write(tmp_path / "p.toml", text)), "--results", str(tmp_path / "r"))
    assert done.returncode == 0, done.stderr
    return tmp_path / "r"


def test_panels_side_by_side_and_the_capacity_figure(tmp_path):
    """Issue 23 (seed 002 Figs. 1 and 2): utilization vs. slowdown with one panel per machine, and
    the capacity utilized, unused and lost of every policy at one load, summing to 1."""
    results = _machines_results(tmp_path)
    args = ("--kind", "util-slowdown", "--kind", "capacity", "--panels", "machine", "--at", "1")
    done = meshsim("plot", str(results), *args, "--terminal", "--width", "60")
    assert done.returncode == 0, done.stderr
    text = done.stdout
    for machine in ("flat:16", "flat:32"):
        assert f"mean bounded slowdown against utilization: machine={machine}" in text
        assert f"capacity utilized, unused and lost at runtime-scale = 1: machine={machine}" in text
    shares = [
        [float(part.split()[-1]) for part in line.strip().split(" · ")]
        for line in text.splitlines()
        if line.strip().startswith("utilized ")
    ]
    assert len(shares) == 4 and all(abs(sum(s) - 1) < 1e-3 for s in shares)
    missing = meshsim("plot", str(results), "--kind", "capacity", "--at", "3", "--terminal")
    assert missing.returncode == 1 and "--at 3: no finished case at runtime-scale = 3" in (
        missing.stderr
    )
    bad = meshsim("plot", str(results), "--panels", "runtime-scale", "--terminal")
    assert bad.returncode == 1 and "--panels runtime-scale: not a key" in bad.stderr


@pytest.mark.skipif(
    importlib.util.find_spec("matplotlib") is None,
    reason="matplotlib is not installed (pip install 'meshsim[plot]')",
)
def test_panel_and_capacity_files(tmp_path):
    results = _machines_results(tmp_path)
    args = ("--kind", "util-slowdown", "--kind", "capacity", "--panels", "machine", "--at", "1")
    done = meshsim("plot", str(results), *args, "--format", "svg", "--out", str(tmp_path / "f"))
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in (tmp_path / "f").iterdir()) == [
        "capacity-at-runtime-scale-1.svg",
        "utilization-vs-slowdown.svg",
    ]
    figure = (tmp_path / "f" / "utilization-vs-slowdown.svg").read_text()
    assert "machine=flat:16" in figure and "machine=flat:32" in figure
    again = meshsim("plot", str(results), *args, "--format", "svg", "--out", str(tmp_path / "g"))
    assert again.returncode == 0, again.stderr
    for name in ("capacity-at-runtime-scale-1.svg", "utilization-vs-slowdown.svg"):
        assert (tmp_path / "g" / name).read_bytes() == (tmp_path / "f" / name).read_bytes()
