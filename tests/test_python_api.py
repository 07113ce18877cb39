"""The Python API: ``meshsim.run`` and ``meshsim.start`` as docs/python-api.md shows them."""

from __future__ import annotations

import contextlib
import io
import re

import numpy as np
import pytest

import meshsim
from meshsim.engine.tools.runcase import RunOptions, run_case
from tests.conftest import DATA, ROOT

PAGE = ROOT / "docs" / "python-api.md"
BLOCK = re.compile(r"```(python|text)\n(.*?)```", re.S)


def test_the_pages_examples_run_and_print_what_it_shows():
    """Each python block runs in one namespace; a text block right after it is its output."""
    namespace: dict[str, object] = {}
    blocks = BLOCK.findall(PAGE.read_text(encoding="utf-8"))
    assert [kind for kind, _ in blocks].count("python") >= 3
    for number, (kind, text) in enumerate(blocks):
        if kind != "python":
            continue
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            exec(compile(text, f"{PAGE.name} block {number}", "exec"), namespace)
        following = blocks[number + 1] if number + 1 < len(blocks) else None
        if following is not None and following[0] == "text":
            assert printed.getvalue() == following[1], f"{PAGE.name} block {number}"


def test_metrics_equal_the_commands_result_json():
    options = {"machine": "flat:4", "workload": str(DATA / "tiny.swf"), "backfill": "easy"}
    document = run_case(RunOptions(**options)).document
    result = meshsim.run(**options)
    assert result.metrics == document["metrics"]
    assert result.skipped == document["skipped"]
    assert len(result.jobs) == document["metrics"]["jobs"]


def test_a_path_object_names_a_file():
    assert meshsim.run(machine="flat:4", workload=DATA / "tiny.swf").metrics["jobs"] == 3


def test_jobs_are_a_structured_array_in_the_jobs_csv_columns():
    jobs = meshsim.run(machine="flat:4", workload=str(DATA / "tiny.swf")).jobs
    assert isinstance(jobs, np.ndarray)
    assert jobs.dtype.names == (
        "job_id",
        "submit",
        "start",
        "end",
        "size",
        "allocated",
        "wait",
        "bsld",
        "location",
    )
    assert np.all(jobs["end"] >= jobs["start"])


def test_a_non_finite_metric_is_none():
    """The API's document is the JSON file's: a metric the engine cannot define is ``None``."""
    from meshsim.api import _defined

    document = {"metrics": {"avg_bsld": float("nan"), "jobs": 0}, "by_queue": [float("inf")]}
    assert _defined(document) == {"metrics": {"avg_bsld": None, "jobs": 0}, "by_queue": [None]}


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"machine": "nosuch"}, "unknown machine 'nosuch' (valid:"),
        ({"queue": "lifo"}, "unknown queue order 'lifo' (valid: fcfs, sjf, wfp"),
        ({"widnow": 3}, "run option 'widnow' is not known"),
        ({"machine": "flat:4", "scenario": "x.json"}, "cannot be combined with scenario"),
        ({"window": "abc"}, "run option 'window' must be an integer, got 'abc'"),
        ({"load_factor": "x"}, "run option 'load_factor' must be a number, got 'x'"),
        ({"rotate": "yes"}, "run option 'rotate' must be true or false, got 'yes'"),
        ({"seed": 1.5}, "run option 'seed' must be an integer, got 1.5"),
    ],
)
def test_bad_options_raise_the_commands_messages(options, message):
    with pytest.raises(meshsim.MeshsimError, match=re.escape(message)):
        meshsim.run(**options)


def test_a_session_steps_forks_and_steps_back():
    session = meshsim.start(machine="flat:4", workload=str(DATA / "tiny.swf"))
    assert isinstance(session, meshsim.Session)
    session.step(3)
    branch = session.fork()
    branch.step(1)
    assert (session.events, branch.events) == (3, 4)
    session.back(2)
    assert session.events == 1
