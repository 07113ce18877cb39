"""Ctrl-C and SIGTERM (issue 19): one line saying where the command stopped, exit 130 or 143, and
no output changed or left half-written.

A long ``meshsim run`` is interrupted for real in a subprocess (once per signal); the other commands
are interrupted in this process by a signal sent from inside their work, which exercises the same
handler deterministically."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

import meshsim.cli.compare
import meshsim.cli.contention
import meshsim.cli.trace
from meshsim.cli import interrupts
from meshsim.cli.main import main
from tests.cli.test_boundaries import snapshot
from tests.conftest import DATA

WORKLOAD = '[workload]\nkind = "flat-poisson"\njobs = 600000\nseed = 1\n'


def _wait_for(condition, timeout: float = 60.0) -> None:
    end = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > end:
            raise AssertionError("the run never got going")
        time.sleep(0.05)


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_an_interrupted_run_says_where_and_leaves_every_output_as_it_was(tmp_path, signum, code):
    (tmp_path / "w.toml").write_text(WORKLOAD)
    (tmp_path / "r.json").write_text("the previous result\n")
    (tmp_path / "e.jsonl").write_text("the previous event log\n")
    before = snapshot(tmp_path)
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "meshsim",
            "run",
            "--machine",
            "flat:128",
            "--workload",
            str(tmp_path / "w.toml"),
            "--out",
            str(tmp_path / "r.json"),
            "--events-out",
            str(tmp_path / "e.jsonl"),
            "-q",
        ],
        stderr=subprocess.PIPE,
        text=True,
    )

    def logging() -> bool:  # the event log's temporary file is growing: the run is on
        return any(p.stat().st_size > 0 for p in tmp_path.glob(".e.jsonl.*.part"))

    _wait_for(logging)
    process.send_signal(signum)
    _, err = process.communicate(timeout=60)
    assert process.returncode == code, err
    lines = err.strip().splitlines()
    name = signal.Signals(signum).name
    assert len(lines) == 1 and lines[0].startswith(f"interrupted ({name}) at event "), err
    assert "simulated time" in lines[0] and "no output was written" in lines[0]
    assert snapshot(tmp_path) == before


def _signal_inside(signum: int):  # type: ignore[no-untyped-def]
    """A stand-in for a command's work that receives ``signum`` while it runs."""

    def work(*args, **kwargs):  # type: ignore[no-untyped-def]
        os.kill(os.getpid(), signum)
        time.sleep(5)  # the handler interrupts this at once
        raise AssertionError("the signal was not handled")

    return work


def _interrupted(monkeypatch, capsys, module, name, signum, argv):  # type: ignore[no-untyped-def]
    monkeypatch.setattr(module, name, _signal_inside(signum))
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    return exit_info.value.code, capsys.readouterr().err.strip().splitlines()


def test_interrupted_trace_convert_writes_nothing(tmp_path, monkeypatch, capsys, signals_kept):
    (tmp_path / "cut.swf").write_text("an earlier cut\n")
    before = snapshot(tmp_path)
    argv = ["trace", "convert", str(DATA / "tiny.swf"), str(tmp_path / "cut.swf")]
    code, lines = _interrupted(
        monkeypatch, capsys, meshsim.cli.trace, "read_swf", signal.SIGINT, argv
    )
    assert code == 130
    assert lines == [
        f"interrupted (SIGINT) while reading {DATA / 'tiny.swf'}; {tmp_path / 'cut.swf'} was not "
        "written"
    ]
    assert snapshot(tmp_path) == before


def test_interrupted_compare_says_how_far_it_got(tmp_path, monkeypatch, capsys, signals_kept):
    argv = [
        "compare",
        "--machine",
        "flat:4",
        "--workload",
        str(DATA / "tiny.swf"),
        "--config",
        "a:queue=fcfs",
        "--config",
        "b:queue=sjf",
        "--workers",
        "1",
        "--out",
        str(tmp_path / "c"),
    ]
    code, lines = _interrupted(
        monkeypatch, capsys, meshsim.cli.compare, "compare", signal.SIGTERM, argv
    )
    assert code == 143
    assert lines == ["interrupted (SIGTERM) before the first run finished; no output was written"]
    assert not (tmp_path / "c").exists()


def test_interrupted_contention_says_what_it_was_doing(monkeypatch, capsys, signals_kept):
    argv = ["contention", "--layout", "parallel", "--mesh", "8"]
    code, lines = _interrupted(
        monkeypatch, capsys, meshsim.cli.contention, "analyze_layout", signal.SIGINT, argv
    )
    assert code == 130
    assert lines == ["interrupted (SIGINT) while routing the parallel layout on the 8x8 mesh"]


def test_a_second_signal_does_not_cut_the_clean_up_short(signals_kept):
    interrupts.install()
    with pytest.raises(interrupts.Interrupted), interrupts.watching(lambda: "in the test"):
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(5)
    os.kill(os.getpid(), signal.SIGTERM)  # during the clean-up: ignored, nothing raised
    stop = interrupts.stopped()
    assert stop is not None and (stop.name, stop.where, stop.exit_code) == (
        "SIGINT",
        "in the test",
        130,
    )
