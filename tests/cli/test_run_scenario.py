"""``meshsim run --scenario FILE``: the console's export, byte for byte, and one-line errors."""

import subprocess
import sys

import pytest

from meshsim.engine.kernel.actions import Fail, LoggedAction, Repair, Reserve
from meshsim.engine.tools.outputs import dumps, jobs_csv_text
from meshsim.engine.tools.runcase import RunOptions
from meshsim.engine.tools.scenario import Scenario, load_scenario, save_scenario, scenario_document
from tests.conftest import DATA

SCENARIOS = {
    "mesh": Scenario(
        RunOptions(machine=str(DATA / "mesh5x4.toml"), workload=str(DATA / "tiny.swf")),
        (LoggedAction(0, Fail(2.0, "0,0")), LoggedAction(1, Repair(8.0, "0,0"))),
        position=3,
        name="mesh failure",
    ),
    "intrepid": Scenario(
        RunOptions(machine="intrepid", workload=str(DATA / "intrepid-mini.swf")),
        (
            LoggedAction(2, Fail(150.0, "R00-M0", "kill")),
            LoggedAction(2, Reserve(160.0, "1K R10-M0..R10-M1", 5000.0)),
        ),
        name="intrepid drain",
    ),
    "io": Scenario(
        RunOptions(
            machine="paragon-io",
            workload=str(DATA / "mache-mini.toml"),
            runtime_model="contention",
            alloc="mc",
        ),
        (LoggedAction(5, Fail(2000.0, "3,3")), LoggedAction(9, Repair(9000.0, "3,3"))),
        position=12,
        name="contention with a failure",
    ),
}


def meshsim(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "meshsim", "run", *args], capture_output=True, text=True, check=False
    )


@pytest.mark.parametrize("key", sorted(SCENARIOS))
def test_run_scenario_is_byte_identical_to_the_export(tmp_path, key):
    scenario = SCENARIOS[key]
    path = tmp_path / "s.json"
    save_scenario(path, scenario)
    out, jobs = tmp_path / "x.json", tmp_path / "j.csv"
    done = meshsim("--scenario", str(path), "--out", str(out), "--jobs-out", str(jobs), "-q")
    assert done.returncode == 0, done.stderr
    sim = scenario.build(recent=200, history=True)
    sim.run()
    assert out.read_bytes() == dumps(scenario_document(sim, scenario)).encode()
    assert jobs.read_bytes() == jobs_csv_text(sim).encode()
    assert load_scenario(path).name in out.read_text()
    if key == "io":  # the contention observer's figures are part of both
        assert "inter_contention_time_mean" in out.read_text()
        assert "inter_contention" in jobs.read_text().splitlines()[0]


def test_simulation_options_are_refused_with_a_scenario(tmp_path):
    path = tmp_path / "s.json"
    save_scenario(path, SCENARIOS["mesh"])
    for flag, value in (("--machine", "intrepid"), ("--seed", "0"), ("--load-factor", "2")):
        done = meshsim("--scenario", str(path), flag, value, "-q")
        assert done.returncode != 0
        assert done.stderr.strip().splitlines() == [
            f"error: {flag} cannot be combined with --scenario (the scenario file sets it)"
        ]


def test_bad_scenario_file_is_one_error_line(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text('{"schema": "meshsim.scenario/1",\n "options": {"machine": 3}}')
    done = meshsim("--scenario", str(path), "-q")
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [
        f"error: {path} key 'options.machine': expected a string, got 3"
    ]
    assert "Traceback" not in done.stderr
