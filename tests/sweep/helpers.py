"""Shared helpers for the sweep tests: spec files written on the fly, the run command's schema."""

import subprocess
import sys
from pathlib import Path

from meshsim.cli.sweep import command_schema
from meshsim.engine.tools.experiments.options import OptionSchema
from tests.conftest import DATA

TINY = DATA / "tiny.swf"

WORKLOAD = """[workload]
kind = "flat-poisson"
jobs = {jobs}
load = 0.8
max_size = 16
"""


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def run_schema() -> OptionSchema:
    schema = command_schema("run")
    assert schema is not None
    return schema


def meshsim(*args: str, cwd=None, env=None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "meshsim", *args], capture_output=True, text=True, cwd=cwd, env=env
    )
