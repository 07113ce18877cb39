"""``run_case`` is ``meshsim run`` as a function: same options, same defaults, same bytes."""

import inspect
import json
import subprocess
import sys
from dataclasses import fields

import pytest

from meshsim.cli import run as run_command
from meshsim.engine.core.errors import MeshsimError
from meshsim.engine.tools.outputs import dumps
from meshsim.engine.tools.runcase import RunOptions, run_case
from tests.conftest import DATA

OUTPUT_PARAMETERS = {
    "ctx",
    "scenario",
    "out_path",
    "jobs_out",
    "events_out",
    "swf_out",
    "report",
    "report_out",
    "quiet",
}


def test_run_options_mirror_the_run_command():
    params = inspect.signature(run_command.run).parameters
    simulated = {name: p.default for name, p in params.items() if name not in OUTPUT_PARAMETERS}
    assert simulated == {f.name: f.default for f in fields(RunOptions)}


def test_run_case_writes_what_meshsim_run_writes(tmp_path):
    trace = str(DATA / "tiny.swf")
    done = subprocess.run(
        [
            sys.executable, "-m", "meshsim", "run", "--machine", "flat:4", "--workload", trace,
            "--backfill", "easy", "--runtime-scale", "1.5", "--quiet",
            "--out", str(tmp_path / "r.json"), "--jobs-out", str(tmp_path / "j.csv"),
        ],
        capture_output=True, text=True,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    options = RunOptions(machine="flat:4", workload=trace, backfill="easy", runtime_scale=1.5)
    output = run_case(options, jobs=True)
    assert dumps(output.document) == (tmp_path / "r.json").read_text()
    assert output.jobs_csv == (tmp_path / "j.csv").read_bytes().decode()
    assert json.loads(dumps(output.document))["inputs"]["runtime_scale"] == 1.5


def test_unknown_option_and_bad_procs_per_unit_are_input_errors():
    with pytest.raises(MeshsimError, match="run option 'sharpness' is not known"):
        RunOptions.from_mapping({"sharpness": "high"})
    with pytest.raises(MeshsimError, match="--procs-per-unit: must be at least 1"):
        run_case(RunOptions(machine="flat:4", workload=str(DATA / "tiny.swf"), procs_per_unit=0))
